# _nn_fractional: fractional max pooling (Graham, 2014) as PyTorch 1.13's
# F.fractional_max_pool2d/3d and nn.FractionalMaxPool2d/3d (round 9,
# tests/stdlib/test_gaps_vs_torch9_nn.dsl). The builtins fractional_max_pool2d and
# fractional_max_pool3d (also nn.functional's) call this module's functions
# (interp/builtins/composites/composite_torch_gaps9.cpp); nn re-exports the layers.
#
# Note [Fractional max pooling]
# Each plane (n, c) draws one sample in [0, 1) per pooled dim (_random_samples[n, c]:
# (width, height) in 2-D, (depth, height, width) in 3-D, PyTorch's orders; rand when not
# given). Along a dim of input size I, output size O and pool size K, window i starts at
# int((i + u) a) - int(u a) with a = (I - K) / (O - 1), the last at I - K: PyTorch's
# generate_intervals, computed in the input's dtype as its kernel. Every window's
# elements are gathered as one tensor and the first largest is picked: the output is a
# gather of the input, so its gradient goes to the picked elements (to any order), and
# the indices are PyTorch's (h * W + w, or (t * H + h) * W + w, in the plane).
let __name__ = "nn.functional"  # the name messages show (Module::shown_name)

fn _per_dim(who, what, v, nd) {
  let p = [v] * nd if type(v) in ["int", "float"] else v
  if not (type(p) in ["list", "tuple"]) or len(p) != nd { fail(f"{who}: {what} must be a number or {nd} of them, got {repr(v)}") }
  return list(p)
}

# The start of each window along one dim: [N, C, O] (i64) from the samples [N, C].
fn _starts(u, input_size, output_size, pool) {
  let last = full(list(u.shape) + [1], input_size - pool, dtype=i64, device=u.device)
  if output_size == 1 { return last }
  let alpha = (input_size - pool) / (output_size - 1)
  let i = arange(output_size - 1, dtype=u.dtype, device=u.device)
  let s = u.unsqueeze(-1)
  let head = ((i + s) * alpha).floor().to(i64) - (s * alpha).floor().to(i64)
  return cat([head, last], dim=-1)
}

let _dim_names = ["depth", "height", "width"]

# Fractional max pooling over the last nd (2 or 3) dims (Note [Fractional max pooling]);
# the samples' pair (triple) per plane is read in PyTorch's order: (w, h) in 2-D, (t, h, w) in 3-D.
fn _fractional(who, input, nd, kernel_size, output_size, output_ratio, return_indices, _random_samples) {
  if type(input) != "tensor" { fail(f"{who}: input must be a tensor, got {type(input)}") }
  if not (input.dim() in [nd + 1, nd + 2]) {
    let spatial = "[C, H, W] or [N, C, H, W]" if nd == 2 else "[C, T, H, W] or [N, C, T, H, W]"
    fail(f"{who}: input must be {spatial}, got shape {list(input.shape)}")
  }
  if not input.dtype.is_floating_point { fail(f"{who}: input must be floating, got {input.dtype}") }
  let x = input if input.dim() == nd + 2 else input.unsqueeze(0)
  let N = x.shape[0]
  let C = x.shape[1]
  let sizes = list(x.shape)[2:]
  let kernel = _per_dim(who, "kernel_size", kernel_size, nd)
  if not all([type(k) == "int" and k >= 1 for k in kernel]) { fail(f"{who}: kernel_size must be ints >= 1, got {repr(kernel_size)}") }
  let out_sizes = none
  if output_size != none {
    out_sizes = _per_dim(who, "output_size", output_size, nd)
  } elif output_ratio != none {
    let r = _per_dim(who, "output_ratio", output_ratio, nd)
    if not all([type(v) in ["int", "float"] and v > 0 and v < 1 for v in r]) { fail(f"{who}: output_ratio must be in (0, 1), got {repr(output_ratio)}") }
    out_sizes = [int(sizes[d] * r[d]) for d in range(nd)]
  } else {
    fail(f"{who}: give output_size or output_ratio")
  }
  if not all([type(o) == "int" and o >= 1 for o in out_sizes]) { fail(f"{who}: output_size must be ints >= 1, got {repr(output_size)}") }
  let names = _dim_names[3 - nd:]
  for d in range(nd) {
    if out_sizes[d] + kernel[d] - 1 > sizes[d] {
      fail(f"{who}: pool {names[d]} {kernel[d]} too large relative to input {names[d]} {sizes[d]} (output {names[d]} {out_sizes[d]}: output + pool - 1 must be <= input)")
    }
  }
  let u = _random_samples
  if u == none {
    u = rand([N, C, nd], dtype=x.dtype, device=x.device)
  } elif type(u) != "tensor" or list(u.shape) != [N, C, nd] {
    fail(f"{who}: _random_samples must be a tensor of shape {[N, C, nd]} (one sample in [0, 1) per plane and dim), got {list(u.shape) if type(u) == 'tensor' else type(u)}")
  }
  let samples = u.detach().to(x.dtype)
  # a sample outside [0, 1) (or NaN) would start a window outside the input
  if not bool(((samples >= 0) & (samples < 1)).all()) {
    let found = "a NaN" if bool(samples.isnan().any()) else f"values from {samples.min().item()} to {samples.max().item()}"
    fail(f"{who}: _random_samples must lie in [0, 1), got {found}")
  }
  let order = [1, 0] if nd == 2 else [0, 1, 2]
  # flat: the plane index of every window element, [N, C, O_0, .., O_nd-1, k_0, .., k_nd-1]
  let flat = zeros([N, C] + [1] * (2 * nd), dtype=i64, device=x.device)
  for d in range(nd) {
    let at = _starts(samples[:, :, order[d]], sizes[d], out_sizes[d], kernel[d]).unsqueeze(-1) + arange(kernel[d], device=x.device)
    let shape = [N, C] + [1] * (2 * nd)
    shape[2 + d] = out_sizes[d]
    shape[2 + nd + d] = kernel[d]
    flat = flat * sizes[d] + at.reshape(shape)
  }
  let cells = 1
  let window = 1
  for d in range(nd) {
    cells = cells * out_sizes[d]
    window = window * kernel[d]
  }
  flat = flat.expand([N, C] + out_sizes + kernel).reshape([N, C, cells, window])
  let plane = 1
  for n in sizes { plane = plane * n }
  let values = x.reshape([N, C, plane]).gather(-1, flat.reshape([N, C, cells * window])).reshape([N, C, cells, window])
  let pick = values.detach().argmax(-1, keepdim=true)
  let out = values.gather(-1, pick).reshape([N, C] + out_sizes)
  let indices = flat.gather(-1, pick).reshape([N, C] + out_sizes)
  if input.dim() == nd + 1 {
    out = out.squeeze(0)
    indices = indices.squeeze(0)
  }
  return (out, indices) if return_indices else out
}

fn fractional_max_pool2d(input, kernel_size, output_size=none, output_ratio=none, return_indices=false, _random_samples=none) = _fractional(
  "fractional_max_pool2d()", input, 2, kernel_size, output_size, output_ratio, return_indices, _random_samples)

fn fractional_max_pool3d(input, kernel_size, output_size=none, output_ratio=none, return_indices=false, _random_samples=none) = _fractional(
  "fractional_max_pool3d()", input, 3, kernel_size, output_size, output_ratio, return_indices, _random_samples)

# The layers' checks when made (PyTorch's modules check output_ratio there).
fn _check_layer(who, output_size, output_ratio, nd) {
  if output_size == none and output_ratio == none { fail(f"{who}: give output_size or output_ratio") }
  if output_ratio != none and not all([type(v) in ["int", "float"] and v > 0 and v < 1 for v in _per_dim(who, "output_ratio", output_ratio, nd)]) {
    fail(f"{who}: output_ratio must be in (0, 1), got {repr(output_ratio)}")
  }
  return true
}

model FractionalMaxPool2d(kernel_size, output_size=none, output_ratio=none, return_indices=false, _random_samples=none) {
  "Fractional max pooling over [N, C, H, W] to output_size (or output_ratio of the input) with kernel_size windows at pseudo-random places, as torch.nn.FractionalMaxPool2d (Note [Fractional max pooling]). Example: nn.FractionalMaxPool2d(2, output_size=3)"
  let _ok = _check_layer("nn.FractionalMaxPool2d()", output_size, output_ratio, 2)
  kernel_size = kernel_size
  output_size = output_size
  output_ratio = output_ratio
  return_indices = return_indices
  _random_samples = _random_samples
  forward(x) = fractional_max_pool2d(x, self.kernel_size, self.output_size, self.output_ratio, self.return_indices, self._random_samples)
}

model FractionalMaxPool3d(kernel_size, output_size=none, output_ratio=none, return_indices=false, _random_samples=none) {
  "Fractional max pooling over [N, C, T, H, W], as torch.nn.FractionalMaxPool3d (Note [Fractional max pooling]). Example: nn.FractionalMaxPool3d(2, output_size=3)"
  let _ok = _check_layer("nn.FractionalMaxPool3d()", output_size, output_ratio, 3)
  kernel_size = kernel_size
  output_size = output_size
  output_ratio = output_ratio
  return_indices = return_indices
  _random_samples = _random_samples
  forward(x) = fractional_max_pool3d(x, self.kernel_size, self.output_size, self.output_ratio, self.return_indices, self._random_samples)
}
