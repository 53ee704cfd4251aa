# _torch_gaps9: round 9's torch functions made of ops (tests/stdlib/test_gaps_vs_torch9.dsl):
# torch.as_strided (x.as_strided too), as_strided_scatter, torch.histogramdd, torch's names of linalg and
# special functions (slogdet, matrix_exp, pinverse, igamma, ...), is_same_size,
# scalar_tensor, angle, poisson and binomial. The builtins of the same names call these
# (interp/builtins/composites/composite_torch_gaps9.cpp); private to the stdlib (its name
# starts with _).
let __name__ = "torch"  # the name messages show (Module::shown_name)
import linalg
import special

fn _ints(who, what, v) {
  if type(v) == "int" { return [v] }
  if type(v) == "tensor" and v.dim() <= 1 and not v.dtype.is_floating_point { return [int(k) for k in v.reshape(-1).tolist()] }
  if not (type(v) in ["list", "tuple"]) or not all([type(k) == "int" for k in v]) {
    fail(f"{who}: {what} must be a list of ints, got {repr(v) if type(v) in ['list', 'tuple'] else type(v)}")
  }
  return list(v)
}

# Where each element of a [size] view with `stride` from `offset` lies in the storage (i64).
fn _positions(size, stride, offset, device) {
  let at = full(size, offset, dtype=i64, device=device)
  for d in range(len(size)) {
    let shape = [1] * len(size)
    shape[d] = size[d]
    at = at + arange(size[d], dtype=i64, device=device).reshape(shape) * stride[d]
  }
  return at
}

# Note [as_strided reads the input's elements]
# PyTorch's as_strided makes a view of the input's storage: element i of the result is
# storage[offset + sum(i_d stride_d)]. nabla's is made of ops, so it is differentiable
# to any order and works on every device and under vmap: each storage position the view
# reads is mapped to the input element that lies there (input's own sizes, strides and
# storage_offset say which), and those elements are gathered. So a view that reads a
# storage element which is none of the input's elements (a part of a larger tensor's
# storage outside the input) is refused, and the result is a copy: writes into it do
# not reach the input. Where input elements overlap (an expand), the last one is read
# and gets the gradient.
fn as_strided(input, size, stride, storage_offset=none) {
  let who = "as_strided()"
  let (picked, sizes) = _strided_indices(who, input, size, stride, storage_offset)
  return input.reshape(-1)[picked].reshape(sizes)
}

# torch.as_strided_scatter: input with the elements as_strided(input, size, stride,
# storage_offset) reads replaced by src's (a copy; differentiable in both).
fn as_strided_scatter(input, src, size, stride, storage_offset=none) {
  let who = "as_strided_scatter()"
  let (picked, sizes) = _strided_indices(who, input, size, stride, storage_offset)
  if type(src) != "tensor" or list(src.shape) != sizes { fail(f"{who}: src must be a tensor of shape {sizes} (the view's), got {list(src.shape) if type(src) == 'tensor' else type(src)}") }
  let flat = input.reshape(-1).index_put((picked,), src.reshape(-1).to(input.dtype))
  return flat.reshape(list(input.shape))
}

# The flat indices into input of the elements of its as_strided view, and the view's sizes
# (Note [as_strided reads the input's elements]).
fn _strided_indices(who, input, size, stride, storage_offset) {
  if type(input) != "tensor" { fail(f"{who}: input must be a tensor, got {type(input)}") }
  let sizes = _ints(who, "size", size)
  let strides = _ints(who, "stride", stride)
  if len(sizes) != len(strides) { fail(f"{who}: size {sizes} and stride {strides} must have the same length ({len(sizes)} and {len(strides)})") }
  if any([s < 0 for s in sizes]) { fail(f"{who}: size must hold no negative numbers, got {sizes}") }
  if any([s < 0 for s in strides]) { fail(f"{who}: negative strides are not supported (as PyTorch's), got {strides}") }
  let offset = input.storage_offset() if storage_offset == none else storage_offset
  if type(offset) != "int" or offset < 0 { fail(f"{who}: storage_offset must be an int >= 0, got {repr(offset)}") }
  let count = 1
  for s in sizes { count = count * s }
  if count == 0 { return (zeros([0], dtype=i64, device=input.device), sizes) }
  let last = offset + sum([(s - 1) * t for (s, t) in zip(sizes, strides)])
  let own = _positions(list(input.shape), list(input.stride()), input.storage_offset(), input.device).reshape(-1)
  # the input's first and last storage elements, from its layout (no read of a tensor)
  let reach = [(n - 1) * t for (n, t) in zip(list(input.shape), list(input.stride()))]
  let lo = input.storage_offset() + sum([min(r, 0) for r in reach])
  let hi = input.storage_offset() + sum([max(r, 0) for r in reach])
  if input.numel() == 0 { hi = lo - 1 }
  if offset < lo or last > hi {
    fail(f"{who}: size {sizes}, stride {strides} and storage_offset {offset} read storage elements {offset} to {last}, outside the input's (storage elements {lo} to {hi} of shape {list(input.shape)})")
  }
  # the input's flat index at each storage position it covers, -1 at a gap
  let index = full([hi - lo + 1], -1, dtype=i64, device=input.device)
  index = index.scatter(0, own - lo, arange(input.numel(), dtype=i64, device=input.device))
  let picked = index[_positions(sizes, strides, offset, input.device).reshape(-1) - lo]
  if bool((picked < 0).any()) {
    fail(f"{who}: size {sizes}, stride {strides} and storage_offset {offset} read a storage element between the input's elements (shape {list(input.shape)}, stride {list(input.stride())}), which nabla's as_strided cannot reach (Note [as_strided reads the input's elements])")
  }
  return (picked, sizes)
}

# histogramdd's argument `range` (PyTorch's name) hides the builtin inside it.
let _upto = range

# One dim's bin edges: a 1-D tensor of increasing edges as given, else bins even bins over
# [lo, hi] (histogram's, PyTorch's linspace bit for bit).
fn _edges(who, column, bins, lo_hi, d) {
  if type(bins) == "tensor" {
    if bins.dim() != 1 or bins.numel() < 2 { fail(f"{who}: the bin edges for dim {d} must be a 1-D tensor of at least 2 edges, got shape {list(bins.shape)}") }
    if bool((bins[1:] < bins[:-1]).any()) { fail(f"{who}: the bin edges for dim {d} must be increasing, got {bins.tolist()}") }
    return bins.to(column.dtype)
  }
  if type(bins) != "int" { fail(f"{who}: bins must be an int, a list of ints or a list of edge tensors, got {type(bins)} for dim {d}") }
  if bins < 1 { fail(f"{who}: bins must be >= 1, got {bins} for dim {d}") }
  let (_, edges) = histogram(column, bins, range=lo_hi)
  return edges
}

fn histogramdd(input, bins, range=none, weight=none, density=false) {
  let who = "histogramdd()"
  if type(input) != "tensor" { fail(f"{who}: input must be a tensor, got {type(input)}") }
  if not input.dtype.is_floating_point { fail(f"{who}: input must be a floating tensor, got {input.dtype}") }
  if input.dim() < 2 { fail(f"{who}: input must have at least 2 dims (points x coordinates), got shape {list(input.shape)}") }
  if type(density) != "bool" { fail(f"{who}: density must be true or false, got {type(density)}") }
  let D = input.shape[-1]
  let points = input.detach().reshape([-1, D])
  let per_dim = list(bins) if type(bins) in ["list", "tuple"] else [bins] * D
  if len(per_dim) != D { fail(f"{who}: bins must have one entry per dim of the points ({D}), got {len(per_dim)}") }
  if range != none {
    if not (type(range) in ["list", "tuple"]) or len(range) != 2 * D {
      fail(f"{who}: range must be {2 * D} numbers (min and max of each of the {D} dims), got {repr(range)}")
    }
  }
  let w = none
  if weight != none {
    if type(weight) != "tensor" { fail(f"{who}: weight must be a tensor, got {type(weight)}") }
    if list(weight.shape) != list(input.shape)[:-1] { fail(f"{who}: weight must have shape {list(input.shape)[:-1]} (one per point), got {list(weight.shape)}") }
    w = weight.detach().reshape(-1).to(input.dtype)
  }
  let edges = []
  let inside = ones([points.shape[0]], dtype=bool, device=input.device)
  let flat = zeros([points.shape[0]], dtype=i64, device=input.device)
  for d in _upto(D) {
    let column = points[:, d]
    let lo_hi = none if range == none else [range[2 * d], range[2 * d + 1]]
    let e = _edges(who, column, per_dim[d], lo_hi, d)
    edges.append(e)
    let nbins = e.numel() - 1
    # the last bin holds its right edge
    let k = (searchsorted(e, column, right=true) - 1).clamp(0, nbins - 1)
    inside = inside & (column >= e[0]) & (column <= e[-1])
    flat = flat * nbins + k
  }
  let shape = [e.numel() - 1 for e in edges]
  let total = 1
  for s in shape { total = total * s }
  let counted = (w if w != none else ones([points.shape[0]], dtype=input.dtype, device=input.device)) * inside.to(input.dtype)
  let hist = zeros([total], dtype=input.dtype, device=input.device).index_add(0, flat, counted).reshape(shape)
  if density {
    let volume = ones(shape, dtype=input.dtype, device=input.device)
    for d in _upto(D) {
      let widths_shape = [1] * D
      widths_shape[d] = shape[d]
      volume = volume * (edges[d][1:] - edges[d][:-1]).reshape(widths_shape)
    }
    hist = hist / (hist.sum() * volume)
  }
  return named_tuple(["hist", "bin_edges"], [hist, tuple(edges)])
}

# ---- torch's older names of linalg's and special's functions ---------------------------
fn slogdet(input) = linalg.slogdet(input)
fn matrix_exp(input) = linalg.matrix_exp(input)
fn matrix_power(input, n) = linalg.matrix_power(input, n)
# torch.pinverse's rcond is linalg.pinv's rtol
fn pinverse(input, rcond=1e-15) = linalg.pinv(input, rtol=rcond)
fn cholesky_inverse(input, upper=false) = linalg.cholesky_inverse(input, upper=upper)
fn cholesky_solve(input, input2, upper=false) = linalg.cholesky_solve(input, input2, upper=upper)
fn orgqr(input, tau) = linalg.householder_product(input, tau)
fn igamma(input, other) = special.gammainc(input, other)
fn igammac(input, other) = special.gammaincc(input, other)

fn is_same_size(input, other) {
  if type(input) != "tensor" or type(other) != "tensor" { fail(f"is_same_size(): expected two tensors, got {type(input)} and {type(other)}") }
  return list(input.shape) == list(other.shape)
}

fn scalar_tensor(s, dtype=none, device=none, requires_grad=false) {
  if not (type(s) in ["int", "float", "bool"]) { fail(f"scalar_tensor(): s must be a number, got {type(s)}") }
  return tensor(float(s), dtype=f32 if dtype == none else dtype, device="cpu" if device == none else device, requires_grad=requires_grad)
}

# The argument of each element as a complex number: pi for a negative real, 0 otherwise
# (NaN stays NaN), as torch.angle of a real tensor; its gradient is 0, as PyTorch's.
fn angle(input) {
  if type(input) != "tensor" { fail(f"angle(): input must be a tensor, got {type(input)}") }
  let x = input if input.dtype.is_floating_point else input.to(f32)
  let out = where(x < 0, 3.141592653589793, 0.0).to(x.dtype) + x * 0.0
  return out.detach() + (x - x.detach()) * 0.0 if x.requires_grad else out
}

# Draws of Poisson(input) and Binomial(count, prob) per element, as torch.poisson and
# torch.binomial (distributions' samplers; no gradient).
fn poisson(input, generator=none) {
  import distributions
  if type(input) != "tensor" { fail(f"poisson(): input must be a tensor, got {type(input)}") }
  return distributions.Poisson(input.detach()).sample()
}

fn binomial(count, prob, generator=none) {
  import distributions
  if type(count) != "tensor" or type(prob) != "tensor" { fail(f"binomial(): count and prob must be tensors, got {type(count)} and {type(prob)}") }
  return distributions.Binomial(count.detach(), probs=prob.detach()).sample()
}

# x.get_device(): -1 on the CPU, the GPU's index on one (torch.get_device too); x.ndimension(): x.dim()
fn get_device(input) {
  if type(input) != "tensor" { fail(f"get_device(): input must be a tensor, got {type(input)}") }
  return -1 if input.device == "cpu" else int(input.device.split(":")[1])
}
fn ndimension(input) = input.dim()
