# _nn_packed: PyTorch's torch.nn.utils.rnn, as nn.utils.rnn: sequences of different
# lengths padded into one batch (pad_sequence) or packed (PackedSequence, made by
# pack_padded_sequence and pack_sequence, read back by pad_packed_sequence), and the
# recurrent layers' packed input (stdlib/_nn_recurrent.dsl).
#
# A PackedSequence holds PyTorch's fields: `data` [sum(lengths), *] is the sequences'
# steps time-major, at each time t the batch_sizes[t] sequences still running, longest
# first; `sorted_indices` is the order of the batch by decreasing length (none when the
# caller sorted it: enforce_sorted=true) and `unsorted_indices` its inverse. Packing and
# padding are index_select and cat, so gradients flow through both.
let __name__ = "nn.utils.rnn"  # the name messages show (Module::shown_name)

# PackedSequence(data, batch_sizes, sorted_indices=none, unsorted_indices=none).
# As PyTorch's, unsorted_indices left none with sorted_indices given is their inverse.
model PackedSequence(data, batch_sizes, sorted_indices=none, unsorted_indices=none) {
  "Sequences of different lengths packed time-major (torch.nn.utils.rnn.PackedSequence). Example: nn.utils.rnn.pack_sequence([ones([3, 2]), ones([1, 2])])"
  let _checked = _check_packed(data, batch_sizes, sorted_indices, unsorted_indices)
  data = data
  batch_sizes = batch_sizes
  sorted_indices = sorted_indices
  unsorted_indices = argsort(sorted_indices) if unsorted_indices == none and sorted_indices != none else unsorted_indices
  __iter__() = [self.data, self.batch_sizes, self.sorted_indices, self.unsorted_indices]
}

# A PackedSequence's fields agree: batch_sizes positive and not increasing, summing to
# data's rows; the indices a permutation of the batch (integer tensors), or none. The
# fields can be set after construction, so what reads them checks them again (who).
fn _check_packed(data, batch_sizes, sorted_indices, unsorted_indices, who="nn.utils.rnn.PackedSequence()") {
  assert(type(data) == "tensor" and data.ndim >= 1, f"{who}: data must be a tensor [steps, *], got {type(data)}")
  assert(type(batch_sizes) == "tensor" and batch_sizes.ndim == 1 and batch_sizes.numel() > 0,
         f"{who}: batch_sizes must be a non-empty 1-D tensor, got {batch_sizes}")
  let sizes = batch_sizes.tolist()
  for k in range(len(sizes)) {
    assert(type(sizes[k]) == "int" and sizes[k] >= 1 and (k == 0 or sizes[k] <= sizes[k - 1]),
           f"{who}: batch_sizes must be positive ints that never increase, got {sizes}")
  }
  assert(sum(sizes) == data.shape[0], f"{who}: batch_sizes {sizes} sum to {sum(sizes)}, but data has {data.shape[0]} rows")
  for ix in [sorted_indices, unsorted_indices] {
    assert(ix == none or (type(ix) == "tensor" and ix.ndim == 1 and ix.dtype in [i64, i32] and
                          sorted(ix.tolist()) == list(range(sizes[0]))),
           f"{who}: sorted_indices and unsorted_indices must be permutations of the {sizes[0]} sequences (i64 tensors), got {ix}")
  }
}

# A PackedSequence's fields, checked again where they are read (see _check_packed).
fn _check_fields(who, sequence) {
  assert(type(sequence) == "PackedSequence", f"{who}: sequence must be a PackedSequence, got {type(sequence)}")
  _check_packed(sequence.data, sequence.batch_sizes, sequence.sorted_indices, sequence.unsorted_indices,
                who + ": the PackedSequence's fields")
  assert((sequence.sorted_indices == none) == (sequence.unsorted_indices == none) and
         (sequence.sorted_indices == none or argsort(sequence.sorted_indices).tolist() == sequence.unsorted_indices.tolist()),
         f"{who}: the PackedSequence's unsorted_indices must be the inverse of its sorted_indices, got {sequence.sorted_indices} and {sequence.unsorted_indices}")
}

fn _check_sequences(who, sequences) {
  assert(type(sequences) in ["list", "tuple"] and len(sequences) > 0,
         f"{who}: sequences must be a non-empty list of tensors, got {type(sequences)}")
  for k in range(len(sequences)) {
    let s = sequences[k]
    assert(type(s) == "tensor" and s.ndim >= 1,
           f"{who}: sequences[{k}] must be a tensor of at least 1 dim, got " + (f"shape {list(s.shape)}" if type(s) == "tensor" else type(s)))
  }
  let tail = list(sequences[0].shape)[1:]
  for k in range(len(sequences)) {
    let s = sequences[k]
    assert(list(s.shape)[1:] == tail,
           f"{who}: sequences[{k}] has shape {list(s.shape)}, but sequences[0] has trailing dims {tail}")
  }
}

# [T, B, *] (or [B, T, *] with batch_first) from B tensors [L_i, *], padded after each
# sequence's end with padding_value.
fn pad_sequence(sequences, batch_first=false, padding_value=0.0) {
  "The sequences [L_i, *] padded to the longest and stacked, [T, B, *] ([B, T, *] with batch_first). Example: nn.utils.rnn.pad_sequence([ones([3]), ones([1])])"
  _check_sequences("nn.utils.rnn.pad_sequence()", sequences)
  let longest = max([s.shape[0] for s in sequences])
  let padded = []
  for s in sequences {
    let widths = [0] * (2 * s.ndim)
    widths[2 * s.ndim - 1] = longest - s.shape[0]  # pad's list: the last dim first, so dim 0 is the last pair
    padded.append(pad(s, widths, value=padding_value))
  }
  return stack(padded, dim=0 if batch_first else 1)
}

# The lengths as a list of ints (a list, tuple or 1-D integer tensor), checked.
fn _lengths_of(who, lengths, batch, steps) {
  assert(type(lengths) in ["list", "tuple"] or (type(lengths) == "tensor" and lengths.ndim == 1),
         f"{who}: lengths must be a list or a 1-D tensor of ints, one per sequence, got " +
         (f"shape {list(lengths.shape)}" if type(lengths) == "tensor" else type(lengths)))
  let out = lengths.tolist() if type(lengths) == "tensor" else list(lengths)
  assert(len(out) == batch, f"{who}: {len(out)} lengths for a batch of {batch} sequences")
  for k in range(len(out)) {
    assert(type(out[k]) == "int" and out[k] >= 1 and out[k] <= steps,
           f"{who}: lengths[{k}] must be an int from 1 to the input's {steps} steps, got {out[k]}")
  }
  return out
}

# The positions of the packed steps in a [T, B] time-major flattening: time t's first
# batch_sizes[t] sequences, for sorted lengths.
fn _packed_positions(lengths, batch) {
  let positions = []
  let sizes = []
  for t in range(lengths[0]) {
    let n = 0
    for l in lengths { if l > t { n = n + 1 } }
    sizes.append(n)
    for b in range(n) { positions.append(t * batch + b) }
  }
  return (positions, sizes)
}

# input [T, B, *] sorted by order (none: as it is) and lengths (in input's order) packed.
fn _pack(input, lengths, order) {
  let batch = input.shape[1]
  let sorted_lengths = lengths if order == none else [lengths[i] for i in order.tolist()]
  let x = input if order == none else index_select(input, 1, order)
  let (positions, sizes) = _packed_positions(sorted_lengths, batch)
  let flat = x.reshape([x.shape[0] * batch] + list(x.shape)[2:])
  let data = index_select(flat, 0, tensor(positions))
  let inverse = none
  if order != none { inverse = argsort(order) }
  return PackedSequence(data, tensor(sizes), order, inverse)
}

fn pack_padded_sequence(input, lengths, batch_first=false, enforce_sorted=true) {
  "A padded batch [T, B, *] ([B, T, *] with batch_first) packed by its sequences' lengths. Example: nn.utils.rnn.pack_padded_sequence(ones([3, 2, 4]), [3, 1])"
  let who = "nn.utils.rnn.pack_padded_sequence()"
  assert(type(input) == "tensor" and input.ndim >= 2, f"{who}: input must be a tensor [T, B, *], got {type(input)}")
  let x = input.transpose(0, 1) if batch_first else input
  let ls = _lengths_of(who, lengths, x.shape[1], x.shape[0])
  if enforce_sorted {
    for k in range(1, len(ls)) {
      assert(ls[k] <= ls[k - 1],
             f"{who}: lengths must be sorted in decreasing order when enforce_sorted=true, got {ls} (pass enforce_sorted=false to sort them)")
    }
    return _pack(x, ls, none)
  }
  return _pack(x, ls, argsort(tensor(ls), descending=true, stable=true))
}

fn pack_sequence(sequences, enforce_sorted=true) {
  "The sequences [L_i, *] packed (pad_sequence, then pack_padded_sequence). Example: nn.utils.rnn.pack_sequence([ones([3, 2]), ones([1, 2])])"
  _check_sequences("nn.utils.rnn.pack_sequence()", sequences)
  return pack_padded_sequence(pad_sequence(sequences), [s.shape[0] for s in sequences], enforce_sorted=enforce_sorted)
}

# (padded [T, B, *] in the batch's own order, lengths as a list) of a PackedSequence.
fn _unpack(who, sequence, padding_value, total_length) {
  _check_fields(who, sequence)
  let sizes = sequence.batch_sizes.tolist()
  let batch = sizes[0]
  assert(total_length == none or type(total_length) == "int",
         f"{who}: total_length must be an int or none, got {type(total_length)}")
  let steps = len(sizes) if total_length == none else total_length
  assert(steps >= len(sizes),
         f"nn.utils.rnn.pad_packed_sequence(): total_length {steps} is less than the longest sequence's {len(sizes)} steps")
  let lengths = []
  for b in range(batch) {
    let n = 0
    for s in sizes { if s > b { n = n + 1 } }
    lengths.append(n)
  }
  let data = sequence.data
  # where each padded cell [t, b] comes from: its packed row, or the row of
  # padding_value appended below
  let where_from = [data.shape[0]] * (steps * batch)
  let at = 0
  for t in range(len(sizes)) {
    for b in range(sizes[t]) {
      where_from[t * batch + b] = at
      at = at + 1
    }
  }
  let pad_row = full([1] + list(data.shape)[1:], padding_value, dtype=data.dtype)
  let padded = index_select(cat([data, pad_row]), 0, tensor(where_from)).reshape([steps, batch] + list(data.shape)[1:])
  if sequence.unsorted_indices != none {
    padded = index_select(padded, 1, sequence.unsorted_indices)
    lengths = [lengths[i] for i in sequence.unsorted_indices.tolist()]
  }
  return (padded, lengths)
}

fn pad_packed_sequence(sequence, batch_first=false, padding_value=0.0, total_length=none) {
  "A PackedSequence back as (padded [T, B, *] in the batch's own order, lengths). Example: nn.utils.rnn.pad_packed_sequence(nn.utils.rnn.pack_sequence([ones([3, 2]), ones([1, 2])]))"
  let (padded, lengths) = _unpack("nn.utils.rnn.pad_packed_sequence()", sequence, padding_value, total_length)
  return (padded.transpose(0, 1) if batch_first else padded, tensor(lengths))
}

# What a recurrent layer runs on a packed input: (x [T, B, *] in the batch's own order,
# lengths), and its output packed back as the input was (same order and indices).
fn unpacked_for_layer(who, sequence) = _unpack(who, sequence, 0.0, none)
fn packed_like(output, lengths, sequence) = _pack(output, lengths, sequence.sorted_indices)
