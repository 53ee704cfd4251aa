"""PyTorch's recurrent layers, for tests/stdlib/test_nn_recurrent.dsl: each layer's
state_dict (PyTorch's key names, under "<layer>.state."), an input, initial
states, PyTorch's outputs and final states, and for the LSTM the gradients of
sum(output * weights) with respect to the input and one weight. f32, as nabla's layers.

    /usr/bin/python3 tests/stdlib/reference/make_recurrent.py   # from the repository root
"""
import os
import sys

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "scripts", "reference"))
from safetensors_file import write_safetensors  # noqa: E402

OUT = os.path.join(ROOT, "tests", "stdlib", "reference", "recurrent.safetensors")


def add_state(out, prefix, module):
    for k, v in module.state_dict().items():
        out[f"{prefix}.state.{k}"] = v


def main():
    torch.manual_seed(0)
    out = {}

    # LSTM: 2 layers, bidirectional, batch_first, given (h0, c0); and its gradients
    lstm = torch.nn.LSTM(4, 6, num_layers=2, bidirectional=True, batch_first=True)
    x = torch.randn(3, 5, 4, requires_grad=True)
    h0, c0 = torch.randn(4, 3, 6), torch.randn(4, 3, 6)
    y, (hn, cn) = lstm(x, (h0, c0))
    weights = torch.randn(y.shape)
    (y * weights).sum().backward()
    add_state(out, "lstm", lstm)
    out.update({"lstm.x": x, "lstm.h0": h0, "lstm.c0": c0, "lstm.y": y, "lstm.h_n": hn, "lstm.c_n": cn,
                "lstm.out_weights": weights, "lstm.grad_x": x.grad,
                "lstm.grad_weight_hh_l1_reverse": lstm.weight_hh_l1_reverse.grad})

    # GRU: 2 layers, bidirectional, time-major, given h0
    gru = torch.nn.GRU(4, 6, num_layers=2, bidirectional=True)
    x = torch.randn(5, 3, 4)
    h0 = torch.randn(4, 3, 6)
    y, hn = gru(x, h0)
    add_state(out, "gru", gru)
    out.update({"gru.x": x, "gru.h0": h0, "gru.y": y, "gru.h_n": hn})

    # RNN: relu, 2 layers, unbatched input, no initial state
    rnn = torch.nn.RNN(4, 6, num_layers=2, nonlinearity="relu")
    x = torch.randn(5, 4)
    y, hn = rnn(x)
    add_state(out, "rnn", rnn)
    out.update({"rnn.x": x, "rnn.y": y, "rnn.h_n": hn})

    # RNN: tanh, bidirectional, batch_first; GRU without biases
    rnn_bi = torch.nn.RNN(4, 6, bidirectional=True, batch_first=True)
    x = torch.randn(3, 5, 4)
    y, hn = rnn_bi(x)
    add_state(out, "rnn_bi", rnn_bi)
    out.update({"rnn_bi.x": x, "rnn_bi.y": y, "rnn_bi.h_n": hn})
    gru_nb = torch.nn.GRU(4, 6, bias=False)
    x = torch.randn(5, 3, 4)
    y, hn = gru_nb(x)
    add_state(out, "gru_nb", gru_nb)
    out.update({"gru_nb.x": x, "gru_nb.y": y, "gru_nb.h_n": hn})

    # The cells, one step from a given state
    x = torch.randn(3, 4)
    h, c = torch.randn(3, 6), torch.randn(3, 6)
    lstm_cell, gru_cell, rnn_cell = torch.nn.LSTMCell(4, 6), torch.nn.GRUCell(4, 6), torch.nn.RNNCell(4, 6)
    h1, c1 = lstm_cell(x, (h, c))
    add_state(out, "lstm_cell", lstm_cell)
    add_state(out, "gru_cell", gru_cell)
    add_state(out, "rnn_cell", rnn_cell)
    out.update({"cell.x": x, "cell.h": h, "cell.c": c, "lstm_cell.h1": h1, "lstm_cell.c1": c1,
                "gru_cell.h1": gru_cell(x, h), "rnn_cell.h1": rnn_cell(x, h)})

    write_safetensors(OUT, out)
    print(f"wrote {OUT}: {len(out)} tensors")


if __name__ == "__main__":
    main()
