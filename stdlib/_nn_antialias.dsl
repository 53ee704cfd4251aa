# _nn_antialias: F.interpolate(..., antialias=true) for "bilinear" and "bicubic" (round 9,
# tests/stdlib/test_gaps_vs_torch9_nn.dsl): the builtin interpolate calls this module's
# function when antialias is true (interp/builtins/composites/composite_torch_gaps9.cpp);
# private to the stdlib.
#
# Note [Antialiased interpolation]
# PyTorch 1.13's antialiased resize (PIL's): along each of H and W, output i averages the
# inputs j in [center - support, center + support), center = scale (i + 0.5), with
# weights filter((j - center + 0.5) / max(scale, 1)) normalized to sum 1; the filter is
# the triangle (bilinear, support 1) or Keys' cubic with a = -0.5 (bicubic, support 2),
# the support widened by the scale when shrinking, so every input pixel counts. The
# weights depend on the sizes only, so each dim is one matrix product: differentiable to
# any order, on any device.
let __name__ = "nn.functional"  # the name messages show (Module::shown_name)
import math

fn _filter(mode, x) {
  let a = x.abs()
  if mode == "bilinear" { return (1.0 - a).clamp(min=0.0) }
  let c = -0.5
  let near = ((c + 2.0) * a - (c + 3.0)) * a * a + 1.0
  let far = ((c * a - 5.0 * c) * a + 8.0 * c) * a - 4.0 * c
  return where(a < 1.0, near, where(a < 2.0, far, 0.0))
}

# The [out, in] weights of one dim (PyTorch's _compute_indices_weights_aa).
fn _weights(mode, in_size, out_size, scale, dtype, device) {
  let support = (1.0 if mode == "bilinear" else 2.0) * (scale if scale >= 1.0 else 1.0)
  let invscale = 1.0 / scale if scale >= 1.0 else 1.0
  let center = (arange(out_size, dtype=f64, device=device) + 0.5).unsqueeze(1) * scale
  let j = arange(in_size, dtype=f64, device=device).unsqueeze(0)
  let lo = (center - support + 0.5).floor().clamp(min=0.0)
  let hi = (center + support + 0.5).floor().clamp(max=in_size)
  let inside = (j >= lo) & (j < hi)
  let w = where(inside, _filter(mode, (j - center + 0.5) * invscale), 0.0)
  let total = w.sum(1, keepdim=true)
  return where(total != 0.0, w / where(total != 0.0, total, 1.0), w).to(dtype)
}

# PyTorch's area_pixel_compute_scale
fn _scale(in_size, out_size, align_corners, factor) {
  if align_corners { return (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0 }
  return 1.0 / factor if factor != none and factor > 0 else in_size / out_size
}

fn _pair(who, what, v) {
  let p = [v, v] if type(v) in ["int", "float"] else v
  if not (type(p) in ["list", "tuple"]) or len(p) != 2 { fail(f"{who}: {what} must be a number or 2 of them, got {repr(v)}") }
  return list(p)
}

fn antialiased_interpolate(input, size=none, scale_factor=none, mode="nearest", align_corners=none, recompute_scale_factor=none) {
  let who = "interpolate()"
  if not (mode in ["bilinear", "bicubic"]) { fail(f"{who}: antialias is only supported for the \"bilinear\" and \"bicubic\" modes (as PyTorch's), got mode {repr(mode)}") }
  if input.dim() != 4 { fail(f"{who}: antialias needs a 4-D input [N, C, H, W], got shape {list(input.shape)}") }
  if not input.dtype.is_floating_point { fail(f"{who}: input must be floating, got {input.dtype}") }
  if (size == none) == (scale_factor == none) { fail(f"{who}: give exactly one of size and scale_factor") }
  let ins = list(input.shape)[2:]
  let factors = none if scale_factor == none else _pair(who, "scale_factor", scale_factor)
  let outs = _pair(who, "size", size) if size != none else [int(math.floor(ins[d] * factors[d])) for d in range(2)]
  if not all([type(o) == "int" and o >= 1 for o in outs]) { fail(f"{who}: the output size must be ints >= 1, got {outs}") }
  if factors != none and recompute_scale_factor == true { factors = none }
  let corners = align_corners == true
  let wh = _weights(mode, ins[0], outs[0], _scale(ins[0], outs[0], corners, none if factors == none else factors[0]), input.dtype, input.device)
  let ww = _weights(mode, ins[1], outs[1], _scale(ins[1], outs[1], corners, none if factors == none else factors[1]), input.dtype, input.device)
  return wh @ input @ ww.t()
}
