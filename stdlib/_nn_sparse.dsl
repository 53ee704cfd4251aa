# _nn_sparse: the lookup-table layers nn.Embedding and nn.EmbeddingBag (PyTorch's
# torch/nn/modules/sparse.py), the function embedding_bag and max_norm's in-place
# renormalization, with PyTorch's arguments, defaults, init and state_dict keys. Their
# gradients are dense (scale_grad_by_freq scales them: Note [Gradients scaled by
# frequency]); sparse=true is taken and the gradient stays dense (optim.SparseAdam
# steps the rows whose gradient is nonzero: Note [SparseAdam on dense gradients] in
# stdlib/_optim_sparse.dsl).
# nn re-exports them; import nn, not this module.
import _nn_init

let normal_ = _nn_init.normal_
let parameter = _nn_init.parameter

# ---- shared by both layers -------------------------------------------------------------

# padding_idx (negative counts from the end) as a row of the table, or none.
fn _padding_idx(who, padding_idx, n) {
  if padding_idx == none { return none }
  assert(type(padding_idx) == "int" and padding_idx >= -n and padding_idx < n,
         f"{who}: padding_idx must be within num_embeddings ({n}), got {repr(padding_idx)}")
  return padding_idx if padding_idx >= 0 else padding_idx + n
}
fn _check_max_norm(who, max_norm) {
  assert(max_norm == none or type(max_norm) in ["int", "float"], f"{who}: max_norm must be a number or none, got {type(max_norm)}")
  return max_norm
}
fn _dense_flags(who, scale_grad_by_freq, sparse) {
  assert(type(scale_grad_by_freq) == "bool", f"{who}: scale_grad_by_freq must be true or false, got {type(scale_grad_by_freq)}")
  assert(type(sparse) == "bool", f"{who}: sparse must be true or false, got {type(sparse)}")
}

# Note [Gradients scaled by frequency]: scale_grad_by_freq=true divides each looked-up
# row's gradient by how many times its index occurs in the whole input (all bags
# together), as PyTorch's embedding_dense_backward: an index seen 3 times sends each
# of its 3 gradients / 3. The lookup's values are untouched: _GradScale is the
# identity forward and multiplies the gradient by the per-position factor backward.
# (PyTorch 1.13's CPU embedding_bag misplaces these counts among the indices, a bug
# fixed later; the bags here follow the definition, tests/stdlib/reference/
# make_layers_vs_torch6.py builds the bags' reference from embedding's.)
function _GradScale {
  forward(ctx, x, scale) {
    ctx.save(scale)
    return x.clone()
  }
  backward(ctx, grad) = (grad * ctx.saved[0], none)
}

# 1 / (how often each row of weight is named in indices), 1 where it is not named.
fn _inverse_counts(indices, num_weights, dtype) {
  let flat = indices.reshape([-1]).to(i64)
  let counts = scatter_add(zeros([num_weights], dtype=dtype, device=flat.device), 0, flat,
                           ones([flat.shape[0]], dtype=dtype, device=flat.device))
  return 1.0 / counts.clamp_min(1.0)
}

# rows (a lookup of weight at `at`, [*at.shape, D]) whose gradient is scaled by the
# inverse counts `inverse` of every row of the weight (_inverse_counts).
fn _scaled_by_inverse(rows, at, inverse) = _GradScale(rows, embedding(inverse.unsqueeze(1), at))

# embedding(weight, indices) with each row's gradient divided by its index's count in
# indices (F.embedding's scale_grad_by_freq=true calls it too).
fn _embedding_scaled_by_freq(weight, indices) = _scaled_by_inverse(
    embedding(weight, indices), indices, _inverse_counts(indices, weight.shape[0], weight.dtype))
fn _given_weight(who, w, n, d) {
  assert(list(w.shape) == [n, d], f"{who}: _weight must have shape [{n}, {d}], got {list(w.shape)}")
  return w.detach().clone().requires_grad_(true)
}
fn _zero_padding_row(m) {
  if m.padding_idx != none and m.weight.shape[0] > 0 {
    no_grad { m.weight[m.padding_idx] = zeros([m.embedding_dim], dtype=m.weight.dtype) }
  }
}

# PyTorch's embedding_renorm_ (max_norm): in place and under no_grad, every row of
# weight that indices name whose norm_type-norm exceeds max_norm is scaled by
# max_norm / (norm + 1e-7); the other rows are multiplied by exactly 1, so they keep
# their bits. The norms are of every row (one pass over the table), the scale is
# computed in f64 as PyTorch's and rounded to the weight's dtype.
fn embedding_renorm_(weight, indices, max_norm, norm_type=2.0) {
  "Scales, in place, the rows of weight that indices name down to norm max_norm where it is exceeded, as torch.embedding_renorm_. Example: nn.embedding_renorm_(e.weight, tensor([0, 3]), 1.0)"
  _check_indices("embedding_renorm_()", weight, indices)
  no_grad {
    let flat = indices.reshape([-1])
    let named = scatter_add(zeros([weight.shape[0]], device=weight.device), 0, flat, ones([flat.shape[0]], device=weight.device)) > 0
    let norms = weight.norm(norm_type, dim=1).to(f64)
    let scale = where(logical_and(named, norms > max_norm), max_norm / (norms + 1e-7), 1.0)
    weight.mul_(scale.to(weight.dtype).unsqueeze(1))
  }
  return weight
}

# indices as PyTorch takes them: an i64 or i32 tensor (a float one was read as a
# table, or rounded to i64 by embedding_bag's 1-D path).
fn _check_index_dtype(who, indices, name) {
  assert(type(indices) == "tensor" and indices.dtype in [i64, i32],
         f"{who}: {name} must be an integer tensor (i64 or i32), got " + (f"{indices.dtype}" if type(indices) == "tensor" else type(indices)))
}

# The indices of a lookup in weight checked as embedding checks them (rows of the
# table, i64 or i32), before max_norm renormalizes: an index the renorm's scatter could
# not place was an error naming scatter_add. Eagerly only (a capture must not read
# values; there the lookup's gather names a bad index).
fn _check_indices(who, weight, indices) {
  assert(type(weight) == "tensor" and weight.ndim == 2,
         f"{who}: weight must be a 2-D tensor [num_embeddings, dim], got " + (f"shape {list(weight.shape)}" if type(weight) == "tensor" else type(weight)))
  _check_index_dtype(who, indices, "indices")
  if indices.numel() > 0 and not is_compiling() {
    let low = indices.min().item()
    let high = indices.max().item()
    let n = weight.shape[0]
    assert(low >= 0 and high < n, f"{who}: index {low if low < 0 else high} is out of range for the {n} rows of the weight")
  }
}

# ---- Embedding -------------------------------------------------------------------------

# padding_idx: that row starts at zeros and gets no gradient, as PyTorch's; lookups of
# it read the row as it is. max_norm: the rows looked up are renormalized in place
# before each lookup (embedding_renorm_ above).
model Embedding(num_embeddings, embedding_dim, padding_idx=none, max_norm=none, norm_type=2.0,
                scale_grad_by_freq=false, sparse=false, _weight=none, device=none, dtype=none) {
  "A lookup table of num_embeddings vectors of embedding_dim; called with i64 indices. Example: nn.Embedding(10000, 128)(tensor([1, 5], dtype=i64))"
  num_embeddings = _nn_init._size_arg("Embedding", "num_embeddings", num_embeddings)
  embedding_dim = _nn_init._size_arg("Embedding", "embedding_dim", embedding_dim)
  padding_idx = _padding_idx("Embedding", padding_idx, num_embeddings)
  max_norm = _check_max_norm("Embedding", max_norm)
  norm_type = norm_type
  scale_grad_by_freq = scale_grad_by_freq
  sparse = sparse
  let _flags = _dense_flags("Embedding", scale_grad_by_freq, sparse)
  weight = normal_(parameter([num_embeddings, embedding_dim])) if _weight == none else _given_weight("Embedding", _weight, num_embeddings, embedding_dim)
  let _z = _zero_padding_row(self) if _weight == none else none  # a given weight keeps its row, as PyTorch's
  let _fk = _nn_init._factory(self, device, dtype)
  # PyTorch's classmethod: an Embedding holding a copy of `embeddings` [num, dim], frozen
  # (no gradient) unless freeze=false.
  static from_pretrained(embeddings, freeze=true, padding_idx=none, max_norm=none, norm_type=2.0,
                         scale_grad_by_freq=false, sparse=false) {
    assert(embeddings.ndim == 2, f"Embedding.from_pretrained(): embeddings must be 2-D, got shape {list(embeddings.shape)}")
    let e = Embedding(embeddings.shape[0], embeddings.shape[1], padding_idx=padding_idx, max_norm=max_norm,
                      norm_type=norm_type, scale_grad_by_freq=scale_grad_by_freq, sparse=sparse, _weight=embeddings)
    e.weight.requires_grad_(not freeze)
    return e
  }
  forward(indices) {
    _check_index_dtype("Embedding", indices, "indices")
    if self.max_norm != none { embedding_renorm_(self.weight, indices, self.max_norm, self.norm_type) }
    let rows = _embedding_scaled_by_freq(self.weight, indices) if self.scale_grad_by_freq else embedding(self.weight, indices)
    if self.padding_idx == none { return rows }
    let keep = (indices != self.padding_idx).unsqueeze(-1)
    return where(keep, rows, embedding(self.weight.detach(), indices))
  }
}

# ---- EmbeddingBag ----------------------------------------------------------------------
# Note [Bags as a padded block]: embedding_bag reduces each bag of indices (a row of a
# 2-D input, or input[offsets[b]:offsets[b + 1]] of a 1-D one) to one vector by "sum",
# "mean" or "max". The bags are laid out as a block [B, M] (M the longest bag) of
# indices with a mask of the positions that count (inside the bag and not padding_idx);
# the rows looked up are [B, M, D], reduced over M with the mask, so gradients (of the
# weight and of per_sample_weights) are those of embedding, index_select and sum/max.
# An empty bag gives zeros in every mode, as PyTorch's. A 2-D input is its own block;
# offsets need host reads (their first and last values, the longest bag).

let _bag_modes = ["sum", "mean", "max"]

fn embedding_bag(input, weight, offsets=none, max_norm=none, norm_type=2.0, scale_grad_by_freq=false, mode="mean",
                 sparse=false, per_sample_weights=none, include_last_offset=false, padding_idx=none) {
  "Sums, averages or takes the max of each bag of embeddings (rows of a 2-D input, or a 1-D input cut at offsets), as torch.nn.functional.embedding_bag. Example: nn.embedding_bag(tensor([1, 2, 4, 5]), randn([6, 3]), tensor([0, 2]), mode='sum')"
  let who = "embedding_bag()"
  assert(mode in _bag_modes, f"{who}: mode must be \"sum\", \"mean\" or \"max\", got {repr(mode)}")
  _dense_flags(who, scale_grad_by_freq, sparse)
  assert(not (scale_grad_by_freq and mode == "max"), f"{who}: mode \"max\" does not support scale_grad_by_freq=true")
  _check_index_dtype(who, input, "input")
  let psw = per_sample_weights
  if psw != none {
    assert(mode == "sum", f"{who}: per_sample_weights is only supported for mode \"sum\", got mode {repr(mode)}")
    assert(type(psw) == "tensor" and psw.dtype == weight.dtype,
           f"{who}: per_sample_weights must have the weight's dtype {weight.dtype}, got " + (f"{psw.dtype}" if type(psw) == "tensor" else type(psw)))
    assert(psw.shape == input.shape, f"{who}: per_sample_weights {list(psw.shape)} must have the input's shape {list(input.shape)}")
  }
  let pad = _padding_idx(who, padding_idx, weight.shape[0])
  if max_norm != none { embedding_renorm_(weight, input, max_norm, norm_type) }
  let bags = _bag_block(who, input, offsets, include_last_offset, psw)
  let inverse = _inverse_counts(input, weight.shape[0], weight.dtype) if scale_grad_by_freq else none
  return _reduce_bags(weight, bags[0], bags[1], bags[2], mode, pad, inverse)
}

# [indices [B, M], mask [B, M] (bool: in its bag), weights [B, M] or none] of the input.
fn _bag_block(who, input, offsets, include_last_offset, psw) {
  if input.ndim == 2 {
    assert(offsets == none, f"{who}: a 2-D input is a batch of bags of equal size, so offsets must be none, got {type(offsets)}")
    let n = input.shape[1]
    if not include_last_offset and n > 0 { return [input, ones(list(input.shape), device=input.device) > 0, psw] }
    # As PyTorch's: cut at the rows' starts, which include_last_offset makes the last an
    # end (B - 1 bags); a row of no indices is an empty bag.
    let device = input.device
    let starts = arange(0, input.numel(), n, device=device) if n > 0 else zeros([input.shape[0]], dtype=i64, device=device)
    return _bag_block(who, input.reshape([-1]), starts, include_last_offset, psw.reshape([-1]) if psw != none else none)
  }
  assert(input.ndim == 1, f"{who}: input must be 1-D (with offsets) or 2-D, got shape {list(input.shape)}")
  let given = type(offsets) if type(offsets) != "tensor" else f"shape {list(offsets.shape)}"
  assert(type(offsets) == "tensor" and offsets.ndim == 1,
         f"{who}: a 1-D input needs offsets, a 1-D tensor of where each bag starts, got {given}")
  assert(offsets.dtype in [i64, i32], f"{who}: offsets must be an integer tensor (i64 or i32), got {offsets.dtype}")
  let n = input.shape[0]
  let offs = offsets.to(i64)
  if offs.shape[0] > 0 {
    let first = offs[0].item()
    let last = offs[-1].item()
    assert(first == 0, f"{who}: offsets[0] must be 0 (the first bag starts the input), got {first}")
    assert(last <= n, f"{who}: offsets[-1] must be at most the input's length {n}, got {last}")
  }
  let starts = offs[:-1] if include_last_offset else offs
  let ends = offs[1:] if include_last_offset else cat([offs[1:], tensor([n], device=offs.device)])
  let lengths = ends - starts
  let longest = lengths.max().item() if lengths.shape[0] > 0 else 0
  assert(lengths.shape[0] == 0 or lengths.min().item() >= 0, f"{who}: offsets must not decrease")
  let at = arange(max(longest, 1), device=offs.device).unsqueeze(0)
  let mask = at < lengths.unsqueeze(1)
  let source = where(mask, starts.unsqueeze(1) + at, n).reshape([-1])   # n: a slot past the input
  let block = list(mask.shape)
  let indices = index_select(cat([input.to(i64), tensor([0], device=input.device)]), 0, source).reshape(block)
  let weights = none if psw == none else index_select(cat([psw, zeros([1], dtype=psw.dtype, device=psw.device)]), 0, source).reshape(block)
  return [indices, mask, weights]
}

# inverse: the rows' inverse counts when scale_grad_by_freq, else none.
fn _reduce_bags(weight, indices, mask, psw, mode, pad, inverse) {
  let counted = mask if pad == none else logical_and(mask, indices != pad)
  let rows = embedding(weight, indices) if inverse == none else _scaled_by_inverse(embedding(weight, indices), indices, inverse)
  if mode == "max" {
    let best = where(counted.unsqueeze(-1), rows, float("-inf")).max(dim=1).values
    return where(counted.any(dim=1).unsqueeze(-1), best, 0.0)
  }
  let scale = counted.to(rows.dtype) if psw == none else counted.to(rows.dtype) * psw
  let total = (rows * scale.unsqueeze(-1)).sum(dim=1)
  if mode == "sum" { return total }
  return total / counted.sum(dim=1).to(rows.dtype).clamp_min(1.0).unsqueeze(-1)
}

# mode: "sum", "mean" (the default) or "max" over each bag; forward(input, offsets=none,
# per_sample_weights=none). padding_idx's row starts at zeros and is left out of every
# bag (so it gets no gradient); include_last_offset: offsets has B + 1 entries, the
# last the end of the last bag.
model EmbeddingBag(num_embeddings, embedding_dim, max_norm=none, norm_type=2.0, scale_grad_by_freq=false, mode="mean",
                   sparse=false, _weight=none, include_last_offset=false, padding_idx=none, device=none, dtype=none) {
  "The sum, mean or max of each bag of embeddings (rows of a 2-D input, or a 1-D input cut at offsets). Example: nn.EmbeddingBag(10, 3, mode='sum')(tensor([[1, 2], [4, 5]]))"
  num_embeddings = _nn_init._size_arg("EmbeddingBag", "num_embeddings", num_embeddings)
  embedding_dim = _nn_init._size_arg("EmbeddingBag", "embedding_dim", embedding_dim)
  max_norm = _check_max_norm("EmbeddingBag", max_norm)
  norm_type = norm_type
  scale_grad_by_freq = scale_grad_by_freq
  mode = mode
  let _m = assert(mode in _bag_modes, f"EmbeddingBag: mode must be \"sum\", \"mean\" or \"max\", got {repr(mode)}")
  let _mf = assert(not (scale_grad_by_freq == true and mode == "max"), "EmbeddingBag: mode \"max\" does not support scale_grad_by_freq=true")
  sparse = sparse
  let _flags = _dense_flags("EmbeddingBag", scale_grad_by_freq, sparse)
  include_last_offset = include_last_offset
  padding_idx = _padding_idx("EmbeddingBag", padding_idx, num_embeddings)
  weight = normal_(parameter([num_embeddings, embedding_dim])) if _weight == none else _given_weight("EmbeddingBag", _weight, num_embeddings, embedding_dim)
  let _z = _zero_padding_row(self) if _weight == none else none
  let _fk = _nn_init._factory(self, device, dtype)
  static from_pretrained(embeddings, freeze=true, max_norm=none, norm_type=2.0, scale_grad_by_freq=false, mode="mean",
                         sparse=false, include_last_offset=false, padding_idx=none) {
    assert(embeddings.ndim == 2, f"EmbeddingBag.from_pretrained(): embeddings must be 2-D, got shape {list(embeddings.shape)}")
    let e = EmbeddingBag(embeddings.shape[0], embeddings.shape[1], max_norm=max_norm, norm_type=norm_type,
                         scale_grad_by_freq=scale_grad_by_freq, mode=mode, sparse=sparse, _weight=embeddings,
                         include_last_offset=include_last_offset, padding_idx=padding_idx)
    e.weight.requires_grad_(not freeze)
    return e
  }
  forward(input, offsets=none, per_sample_weights=none) = embedding_bag(
      input, self.weight, offsets, max_norm=self.max_norm, norm_type=self.norm_type,
      scale_grad_by_freq=self.scale_grad_by_freq, mode=self.mode,
      per_sample_weights=per_sample_weights, include_last_offset=self.include_last_offset, padding_idx=self.padding_idx)
}
