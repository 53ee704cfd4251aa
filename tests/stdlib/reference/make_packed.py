"""PyTorch's torch.nn.utils.rnn and its recurrent layers on packed input, for
tests/stdlib/test_nn_packed.dsl: f64 layers (state_dicts under "<case>.state."), the
padded inputs and lengths, and PyTorch's packed data, batch_sizes, sorted and unsorted
indices, the output padded back, the final states, and the gradients of
sum(padded output * g) with respect to the input and one weight.

    /usr/bin/python3 tests/stdlib/reference/make_packed.py   # from the repository root
"""
import os
import sys

import torch
from torch.nn.utils import rnn

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "scripts", "reference"))
from safetensors_file import write_safetensors  # noqa: E402

OUT = os.path.join(ROOT, "tests", "stdlib", "reference", "packed.safetensors")


def record(out, name, layer, x, lengths, batch_first, hx=None, weight_name=None):
    """layer (f64) on x packed by lengths (enforce_sorted=False, lengths distinct);
    saves everything the .dsl compares."""
    for k, v in layer.state_dict().items():
        out[f"{name}.state.{k}"] = v
    x = x.clone().requires_grad_(True)
    packed = rnn.pack_padded_sequence(x, lengths, batch_first=batch_first, enforce_sorted=False)
    result = layer(packed, hx) if hx is not None else layer(packed)
    y_packed, state = result
    y, y_lengths = rnn.pad_packed_sequence(y_packed, batch_first=batch_first)
    g = torch.randn(y.shape, dtype=torch.float64)
    (y * g).sum().backward()
    out.update({f"{name}.x": x.detach(), f"{name}.lengths": torch.tensor(lengths),
                f"{name}.packed_data": packed.data.detach(), f"{name}.batch_sizes": packed.batch_sizes,
                f"{name}.sorted_indices": packed.sorted_indices, f"{name}.unsorted_indices": packed.unsorted_indices,
                f"{name}.y_data": y_packed.data.detach(), f"{name}.y": y.detach(), f"{name}.y_lengths": y_lengths,
                f"{name}.g": g, f"{name}.grad_x": x.grad})
    if isinstance(state, tuple):
        out[f"{name}.h_n"], out[f"{name}.c_n"] = state[0].detach(), state[1].detach()
    else:
        out[f"{name}.h_n"] = state.detach()
    if hx is not None:
        if isinstance(hx, tuple):
            out[f"{name}.h0"], out[f"{name}.c0"] = hx
        else:
            out[f"{name}.h0"] = hx
    if weight_name:
        out[f"{name}.grad_{weight_name}"] = getattr(layer, weight_name).grad


def main():
    torch.manual_seed(0)
    out = {}
    lstm = torch.nn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True).double()
    record(out, "lstm", lstm, torch.randn(4, 6, 3, dtype=torch.float64), [3, 6, 1, 4], True,
           (torch.randn(4, 4, 4, dtype=torch.float64), torch.randn(4, 4, 4, dtype=torch.float64)), "weight_hh_l1_reverse")
    gru = torch.nn.GRU(3, 5, bidirectional=True).double()
    record(out, "gru", gru, torch.randn(5, 3, 3, dtype=torch.float64), [2, 5, 4], False, None, "weight_ih_l0")
    rnn_relu = torch.nn.RNN(2, 3, num_layers=2, nonlinearity="relu").double()
    record(out, "rnn", rnn_relu, torch.randn(4, 3, 2, dtype=torch.float64), [4, 2, 3], False,
           torch.randn(2, 3, 3, dtype=torch.float64), "weight_hh_l0")
    proj = torch.nn.LSTM(3, 5, proj_size=2, batch_first=True).double()
    record(out, "lstm_proj", proj, torch.randn(3, 4, 3, dtype=torch.float64), [4, 1, 2], True, None, "weight_hr_l0")
    # pad_sequence and pack_sequence on their own
    seqs = [torch.randn(3, 2, dtype=torch.float64), torch.randn(5, 2, dtype=torch.float64), torch.randn(1, 2, dtype=torch.float64)]
    for k, s in enumerate(seqs):
        out[f"seq{k}"] = s
    out["pad_sequence"] = rnn.pad_sequence(seqs, batch_first=True, padding_value=-1.0)
    sorted_seqs = sorted(seqs, key=lambda s: -s.shape[0])
    packed = rnn.pack_sequence(sorted_seqs)
    out["pack_sequence.data"], out["pack_sequence.batch_sizes"] = packed.data, packed.batch_sizes
    padded, lengths = rnn.pad_packed_sequence(packed, total_length=7, padding_value=2.5)
    out["pad_packed.padded"], out["pad_packed.lengths"] = padded, lengths
    write_safetensors(OUT, out)
    print(f"{OUT}: {os.path.getsize(OUT)} bytes")


if __name__ == "__main__":
    main()
