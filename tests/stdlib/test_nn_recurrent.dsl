# nn.RNN, nn.LSTM, nn.GRU and their cells against PyTorch: state_dicts, inputs and
# PyTorch's outputs from tests/stdlib/reference/make_recurrent.py.
import nn

let ref = load("tests/stdlib/reference/recurrent.safetensors")

# A layer's state_dict: the entries of ref under "<prefix>.state.", without it.
fn state_of(prefix) {
  let d = {}
  let head = prefix + ".state."
  for k in ref.keys() {
    if k.startswith(head) { d[k[len(head):]] = ref[k] }
  }
  return d
}

fn loaded(m, prefix) {
  m.load_state_dict(state_of(prefix))
  return m
}

test "LSTM: 2 layers, bidirectional, batch_first, given (h0, c0), equals PyTorch" {
  let m = loaded(nn.LSTM(4, 6, num_layers=2, bidirectional=true, batch_first=true), "lstm")
  let (y, hc) = m(ref["lstm.x"], (ref["lstm.h0"], ref["lstm.c0"]))
  expect_close(y, ref["lstm.y"], rtol=1e-5, atol=1e-6)
  expect_close(hc[0], ref["lstm.h_n"], rtol=1e-5, atol=1e-6)
  expect_close(hc[1], ref["lstm.c_n"], rtol=1e-5, atol=1e-6)
}

test "LSTM: gradients equal PyTorch's and reach every parameter" {
  let m = loaded(nn.LSTM(4, 6, num_layers=2, bidirectional=true, batch_first=true), "lstm")
  let x = ref["lstm.x"].clone().requires_grad_(true)
  let (y, hc) = m(x, (ref["lstm.h0"], ref["lstm.c0"]))
  (y * ref["lstm.out_weights"]).sum().backward()
  expect_close(x.grad, ref["lstm.grad_x"], rtol=1e-4, atol=1e-5)
  expect_close(m.weight_hh_l1_reverse.grad, ref["lstm.grad_weight_hh_l1_reverse"], rtol=1e-4, atol=1e-5)
  for p in m.named_parameters() {
    expect(p[1].grad != none and p[1].grad.abs().sum().item() > 0)
  }
}

test "GRU: 2 layers, bidirectional, given h0, equals PyTorch" {
  let m = loaded(nn.GRU(4, 6, num_layers=2, bidirectional=true), "gru")
  let (y, h_n) = m(ref["gru.x"], ref["gru.h0"])
  expect_close(y, ref["gru.y"], rtol=1e-5, atol=1e-6)
  expect_close(h_n, ref["gru.h_n"], rtol=1e-5, atol=1e-6)
}

test "RNN: relu, 2 layers, unbatched input, equals PyTorch" {
  let m = loaded(nn.RNN(4, 6, num_layers=2, nonlinearity="relu"), "rnn")
  let (y, h_n) = m(ref["rnn.x"])
  expect(y.shape == (5, 6) and h_n.shape == (2, 6))
  expect_close(y, ref["rnn.y"], rtol=1e-5, atol=1e-6)
  expect_close(h_n, ref["rnn.h_n"], rtol=1e-5, atol=1e-6)
}

test "RNN: tanh, bidirectional, batch_first; GRU without biases: equal PyTorch" {
  let r = loaded(nn.RNN(4, 6, bidirectional=true, batch_first=true), "rnn_bi")
  let (y, h_n) = r(ref["rnn_bi.x"])
  expect_close(y, ref["rnn_bi.y"], rtol=1e-5, atol=1e-6)
  expect_close(h_n, ref["rnn_bi.h_n"], rtol=1e-5, atol=1e-6)
  let g = loaded(nn.GRU(4, 6, bias=false), "gru_nb")
  let (y2, h2) = g(ref["gru_nb.x"])
  expect_close(y2, ref["gru_nb.y"], rtol=1e-5, atol=1e-6)
  expect_close(h2, ref["gru_nb.h_n"], rtol=1e-5, atol=1e-6)
}

test "LSTMCell, GRUCell, RNNCell equal PyTorch" {
  let x = ref["cell.x"]
  let h = ref["cell.h"]
  let (h1, c1) = loaded(nn.LSTMCell(4, 6), "lstm_cell")(x, (h, ref["cell.c"]))
  expect_close(h1, ref["lstm_cell.h1"], rtol=1e-5, atol=1e-6)
  expect_close(c1, ref["lstm_cell.c1"], rtol=1e-5, atol=1e-6)
  expect_close(loaded(nn.GRUCell(4, 6), "gru_cell")(x, h), ref["gru_cell.h1"], rtol=1e-5, atol=1e-6)
  expect_close(loaded(nn.RNNCell(4, 6), "rnn_cell")(x, h), ref["rnn_cell.h1"], rtol=1e-5, atol=1e-6)
}

test "the cells take unbatched inputs and default to zero states" {
  manual_seed(0)
  let c = nn.LSTMCell(3, 5)
  let (h, s) = c(randn([3]))
  expect(h.shape == (5,) and s.shape == (5,))
  expect(nn.GRUCell(3, 5)(randn([2, 3])).shape == (2, 5))
  let x = randn([2, 3])
  let r = nn.RNNCell(3, 5)
  expect_close(r(x), r(x, zeros([2, 5])))
}

test "a layer's state_dict keys and shapes are PyTorch's; init is U(-1/sqrt(H), 1/sqrt(H))" {
  manual_seed(1)
  let m = nn.GRU(3, 16, num_layers=2, bidirectional=true)
  let keys = list(m.state_dict().keys())
  expect(keys[0:4] == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"])
  expect(len(keys) == 16 and keys[4] == "weight_ih_l0_reverse")
  expect(m.weight_ih_l1.shape == (48, 32) and m.weight_hh_l1_reverse.shape == (48, 16))
  for p in m.parameters() { expect(p.abs().max().item() <= 0.25) }
  expect(m.weight_ih_l0.abs().max().item() > 0.2)
  expect(len(nn.LSTM(3, 4, bias=false).parameters()) == 2)
}

test "LSTM: batch_first and time-major agree; the final state is the last output" {
  manual_seed(2)
  let m = nn.LSTM(3, 4, num_layers=2)
  let x = randn([6, 2, 3])
  let (y, hc) = m(x)
  expect(y.shape == (6, 2, 4) and hc[0].shape == (2, 2, 4) and hc[1].shape == (2, 2, 4))
  expect_close(hc[0][1], y[-1])
  m.batch_first = true
  let (y2, hc2) = m(x.transpose(0, 1))
  expect_close(y2.transpose(0, 1), y)
  # unbatched: the same as a batch of one
  m.batch_first = false
  let (y3, hc3) = m(x[:, 0])
  expect_close(y3, y[:, 0], rtol=1e-5, atol=1e-6)
  expect_close(hc3[1], hc[1][:, 0], rtol=1e-5, atol=1e-6)
}

test "dropout between layers runs in training mode only" {
  manual_seed(3)
  let m = nn.GRU(3, 8, num_layers=2, dropout=0.5)
  let x = randn([5, 2, 3])
  m.eval()
  let a = m(x)[0]
  expect_close(a, m(x)[0])
  m.train()
  expect((m(x)[0] - a).abs().max().item() > 1e-4)
  # one layer: no layer after it, so no dropout
  let one = nn.GRU(3, 8, dropout=0.5)
  expect_close(one(x)[0], one(x)[0])
}

test "gradcheck of a tiny bidirectional LSTM in f64" {
  manual_seed(4)
  let m = nn.LSTM(2, 3, bidirectional=true).to(f64)
  let x = randn([3, 2, 2], dtype=f64, requires_grad=true)
  let h0 = randn([2, 2, 3], dtype=f64, requires_grad=true)
  let c0 = randn([2, 2, 3], dtype=f64, requires_grad=true)
  fn f(x, h0, c0, w) {
    let (y, hc) = m(x, (h0, c0))
    return y.sum() + (hc[1] * hc[1]).sum() + w.sum() * 0.0
  }
  expect(gradcheck(f, x, h0, c0, m.weight_hh_l0_reverse))
  expect(gradcheck(fn(x) = m(x)[0], x))
}

test "bad input: wrong feature size and wrong state shape name the argument" {
  expect_error("nn.LSTM(4, 6)(zeros([5, 2, 3]))", "input_size")
  expect_error("nn.LSTM(4, 6)(zeros([5, 2, 4]), (zeros([1, 3, 6]), zeros([1, 2, 6])))", "h0 of shape")
  expect_error("nn.GRU(4, 6, num_layers=0)", "num_layers")
  expect_error("nn.RNN(4, 6, nonlinearity=\"sigmoid\")", "nonlinearity")
}
