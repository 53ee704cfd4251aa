# nn.utils.rnn (stdlib/_nn_packed.dsl) and the recurrent layers on packed input,
# against PyTorch in f64 (tests/stdlib/reference/packed.safetensors, written by
# tests/stdlib/reference/make_packed.py): the packed data and indices, the output and
# final states of each sequence at its own length, and the gradients. Run by ctest
# dsl_tests.
import nn

let ref = load("tests/stdlib/reference/packed.safetensors")
let rnn = nn.utils.rnn

# Loads PyTorch's state into layer (f64), packs the saved input by its lengths, runs it
# and compares everything make_packed.py saved for case `name`.
fn check(name, layer, batch_first, hx=none, weight_name=none) {
  layer.double()
  let sd = {}
  for k in ref.keys() {
    if k.startswith(name + ".state.") { sd[k[len(name) + 7:]] = ref[k] }
  }
  layer.load_state_dict(sd)
  let x = ref[name + ".x"].clone().requires_grad_(true)
  let packed = rnn.pack_padded_sequence(x, ref[name + ".lengths"], batch_first=batch_first, enforce_sorted=false)
  expect_close(packed.data, ref[name + ".packed_data"], rtol=0, atol=0)
  expect(equal(packed.batch_sizes, ref[name + ".batch_sizes"]), f"{name}: batch_sizes {packed.batch_sizes}")
  expect(equal(packed.sorted_indices, ref[name + ".sorted_indices"]) and equal(packed.unsorted_indices, ref[name + ".unsorted_indices"]))
  let (y_packed, state) = layer(packed, hx) if hx != none else layer(packed)
  expect(type(y_packed) == "PackedSequence")
  expect_close(y_packed.data, ref[name + ".y_data"], rtol=1e-12, atol=1e-12)
  let (y, lengths) = rnn.pad_packed_sequence(y_packed, batch_first=batch_first)
  expect_close(y, ref[name + ".y"], rtol=1e-12, atol=1e-12)
  expect(equal(lengths, ref[name + ".y_lengths"]))
  let h_n = state[0] if type(state) == "tuple" else state
  expect_close(h_n, ref[name + ".h_n"], rtol=1e-12, atol=1e-12)
  if type(state) == "tuple" { expect_close(state[1], ref[name + ".c_n"], rtol=1e-12, atol=1e-12) }
  (y * ref[name + ".g"]).sum().backward()
  expect_close(x.grad, ref[name + ".grad_x"], rtol=1e-10, atol=1e-12)
  if weight_name != none {
    expect_close(getattr(layer, weight_name).grad, ref[name + ".grad_" + weight_name], rtol=1e-10, atol=1e-12)
  }
}

test "a 2-layer bidirectional LSTM (batch_first, given states) on unsorted packed sequences equals PyTorch's" {
  check("lstm", nn.LSTM(3, 4, num_layers=2, bidirectional=true, batch_first=true), true,
        (ref["lstm.h0"], ref["lstm.c0"]), "weight_hh_l1_reverse")
}

test "a bidirectional GRU, a 2-layer relu RNN and an LSTM with proj_size on packed sequences" {
  check("gru", nn.GRU(3, 5, bidirectional=true), false, none, "weight_ih_l0")
  check("rnn", nn.RNN(2, 3, num_layers=2, nonlinearity="relu"), false, ref["rnn.h0"], "weight_hh_l0")
  check("lstm_proj", nn.LSTM(3, 5, proj_size=2, batch_first=true), true, none, "weight_hr_l0")
}

test "pad_sequence, pack_sequence and pad_packed_sequence with total_length" {
  let seqs = [ref["seq0"], ref["seq1"], ref["seq2"]]
  expect_close(rnn.pad_sequence(seqs, batch_first=true, padding_value=-1.0), ref["pad_sequence"], rtol=0, atol=0)
  let packed = rnn.pack_sequence([ref["seq1"], ref["seq0"], ref["seq2"]])
  expect_close(packed.data, ref["pack_sequence.data"], rtol=0, atol=0)
  expect(equal(packed.batch_sizes, ref["pack_sequence.batch_sizes"]))
  expect(packed.sorted_indices == none)
  let (padded, lengths) = rnn.pad_packed_sequence(packed, total_length=7, padding_value=2.5)
  expect_close(padded, ref["pad_packed.padded"], rtol=0, atol=0)
  expect(equal(lengths, ref["pad_packed.lengths"]))
  let (data, sizes, order, inverse) = packed
  expect(equal(data, packed.data) and order == none)
}

test "bad packing names the argument" {
  expect_error(fn() = rnn.pack_padded_sequence(ones([3, 2, 1]), [1, 3]), "lengths must be sorted in decreasing order when enforce_sorted=true")
  expect_error(fn() = rnn.pack_padded_sequence(ones([3, 2, 1]), [4, 1]), "lengths[0] must be an int from 1 to the input's 3 steps, got 4")
  expect_error(fn() = rnn.pack_padded_sequence(ones([3, 2, 1]), [3]), "1 lengths for a batch of 2 sequences")
  expect_error(fn() = rnn.pad_sequence([ones([2, 3]), ones([2, 4])]), "sequences[1] has shape [2, 4], but sequences[0] has trailing dims [3]")
  expect_error(fn() = rnn.pad_packed_sequence(ones([3])), "sequence must be a PackedSequence, got tensor")
  expect_error(fn() = rnn.pad_packed_sequence(rnn.pack_sequence([ones([3, 1])]), total_length=2), "total_length 2 is less than")
}
