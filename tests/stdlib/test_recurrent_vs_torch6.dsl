# Round 6 against PyTorch 1.13, the recurrent layers with their options crossed: RNN
# (tanh, relu), LSTM, LSTM with proj_size and GRU, each with num_layers 1/2 x
# bidirectional x bias, and batch_first, initial states and unbatched input rotated
# through them (rnn_combos in the generator); the same layers on a PackedSequence with
# enforce_sorted=false; RNNCell (tanh, relu), LSTMCell and GRUCell with bias x unbatched
# x state given. Each case loads tests/stdlib/reference/layers_vs_torch6.safetensors
# (written by tests/stdlib/reference/make_layers_vs_torch6.py, recurrent_cases, under the
# same name) and compares the state_dict keys, the output, h_n and c_n (flattened into
# one, as the generator's rnn_flat) and the gradients of sum(y0 * g) for the input,
# the initial states and every weight.
import nn
import "vs_torch2_check.inc" as vt

let ref = load("tests/stdlib/reference/layers_vs_torch6.safetensors")
fn check(name, m, n, run) = vt.check_in(ref, name, m, n, run)

# Every tensor of the result flattened into one, as the generator's flat / rnn_flat.
fn flat(ts) = cat([t.reshape(-1) for t in ts])
fn rnn_flat(res) {
  let (y, s) = res
  let out = nn.utils.rnn.pad_packed_sequence(y)[0] if type(y) == "PackedSequence" else y
  return flat([out] + (list(s) if type(s) == "tuple" else [s]))
}

fn make(mode, layers, bi, bias, bf) {
  if mode == "rnn_tanh" or mode == "rnn_relu" {
    return nn.RNN(3, 4, nonlinearity=mode[4:], num_layers=layers, bidirectional=bi, bias=bias, batch_first=bf)
  }
  if mode == "lstm" { return nn.LSTM(3, 4, num_layers=layers, bidirectional=bi, bias=bias, batch_first=bf) }
  if mode == "lstm_proj" {
    return nn.LSTM(3, 4, proj_size=2, num_layers=layers, bidirectional=bi, bias=bias, batch_first=bf)
  }
  return nn.GRU(3, 4, num_layers=layers, bidirectional=bi, bias=bias, batch_first=bf)
}

let modes = ["rnn_tanh", "rnn_relu", "lstm", "lstm_proj", "gru"]

fn bit(c, k) = (c // k) % 2 == 1

fn case_name(mode, layers, bi, bias, bf, given, unbatched) = (
  f"{mode}_l{layers}" + ("_bi" if bi else "") + ("" if bias else "_nobias") + ("_bf" if bf else "")
  + ("_h0" if given else "") + ("_unbatched" if unbatched else ""))

# The generator's rnn_combos: layers x bi x bias crossed, batch_first / states / unbatched rotated.
fn check_mode(m_index) {
  let mode = modes[m_index]
  for c in range(8) {
    let (layers, bi, bias) = (1 + c % 2, bit(c, 2), bit(c, 4))
    let rot = (c * 3 + m_index) % 8
    let (bf, given, unbatched) = (bit(rot, 1), bit(rot, 2), bit(rot, 4))
    let name = case_name(mode, layers, bi, bias, bf, given, unbatched)
    let m = make(mode, layers, bi, bias, bf)
    if not given {
      check(name, m, 1, fn(m, xs) = [rnn_flat(m(xs[0]))])
    } elif mode.startswith("lstm") {
      check(name, m, 3, fn(m, xs) = [rnn_flat(m(xs[0], (xs[1], xs[2])))])
    } else {
      check(name, m, 2, fn(m, xs) = [rnn_flat(m(xs[0], xs[1]))])
    }
  }
}

test "RNN tanh: layers x bidirectional x bias, batch_first, h0 and unbatched input" { check_mode(0) }
test "RNN relu: layers x bidirectional x bias, batch_first, h0 and unbatched input" { check_mode(1) }
test "LSTM: layers x bidirectional x bias, batch_first, (h0, c0) and unbatched input" { check_mode(2) }
test "LSTM proj_size: layers x bidirectional x bias, batch_first, (h0, c0) and unbatched input" { check_mode(3) }
test "GRU: layers x bidirectional x bias, batch_first, h0 and unbatched input" { check_mode(4) }

test "every recurrent layer on a PackedSequence with enforce_sorted=false, two bidirectional layers, states" {
  let lengths = ref["packed_lengths"]
  for mode in modes {
    for bf in [false, true] {
      let name = f"packed_{mode}" + ("_bf" if bf else "")
      let pack = fn(x) = nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=bf, enforce_sorted=false)
      let m = make(mode, 2, true, true, bf)
      if mode.startswith("lstm") {
        check(name, m, 3, fn(m, xs) = [rnn_flat(m(pack(xs[0]), (xs[1], xs[2])))])
      } else {
        check(name, m, 2, fn(m, xs) = [rnn_flat(m(pack(xs[0]), xs[1]))])
      }
    }
  }
}

fn make_cell(kind, bias) {
  if kind == "rnncell_tanh" { return nn.RNNCell(3, 4, bias=bias) }
  if kind == "rnncell_relu" { return nn.RNNCell(3, 4, bias=bias, nonlinearity="relu") }
  if kind == "lstmcell" { return nn.LSTMCell(3, 4, bias=bias) }
  return nn.GRUCell(3, 4, bias=bias)
}

test "RNNCell (tanh, relu), LSTMCell and GRUCell: bias x unbatched x state given" {
  for kind in ["rnncell_tanh", "rnncell_relu", "lstmcell", "grucell"] {
    for bias in [true, false] {
      for unbatched in [false, true] {
        for given in [false, true] {
          let name = kind + ("" if bias else "_nobias") + ("_unbatched" if unbatched else "") + ("_h0" if given else "")
          let cell = make_cell(kind, bias)
          let as_list = fn(s) = list(s) if type(s) == "tuple" else [s]
          if not given {
            check(name, cell, 1, fn(m, xs) = [flat(as_list(m(xs[0])))])
          } elif kind == "lstmcell" {
            check(name, cell, 3, fn(m, xs) = [flat(list(m(xs[0], (xs[1], xs[2]))))])
          } else {
            check(name, cell, 2, fn(m, xs) = [m(xs[0], xs[1]).reshape(-1)])
          }
        }
      }
    }
  }
}
