// Composite functions of torch.nn.functional over volumes and sampling grids, made of
// table ops (Note [Composites] in composites.hpp): the 3-D pools, conv_transpose3d,
// grid_sample and affine_grid. tests/stdlib/test_composites.dsl checks each against
// PyTorch in f64, values and gradients.
//
// Note [Pools over volumes]
// A max or average over a box window [d0, d1) x [h0, h1) x [w0, w1) is the same over
// depth of the same over (h, w): the pools are separable, window geometry, padding,
// dilation, ceil_mode and count_include_pad included (each dim's rule is applied on
// its own; an average's divisor is the product of the per-dim counts). So a 3-D pool
// is the 2-D row twice: over (H, W) on [N, C * D, H, W], then over depth on
// [N, C, D, OH * OW] with a window of one column. The max pool's tie rule survives:
// PyTorch keeps the first maximum in (d, h, w) order, the composite the first in (h,
// w) of each depth slice and then the first slice. The indices, flat over D * H * W
// as PyTorch's, are put together from the two stages' (gathers of i64, no gradient);
// gradients are the two rows' own, so grad of grad holds.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "autograd/ops.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "interp/builtins/composites/composites.hpp"

namespace nabla::interp {

namespace {

// Three ints from an int or a list of three (absent or none: fallback).
IntList triple_arg(const Bound& b, size_t k, const IntList& fallback, const std::string& what) {
  if (!b.has(k) || b[k].is_none()) return fallback;
  if (b[k].tag == Tag::Int) return {b[k].i, b[k].i, b[k].i};
  IntList v = as_ints(b[k], what);
  if (v.size() != 3) fail(what + " must be an int or three ints, got " + std::to_string(v.size()) + " values");
  return v;
}

using composite_args::ints_str;

Tensor i64_number(int64_t v) { return scalar_tensor(static_cast<double>(v), DType::i64); }

// An input of rank `rank` ([N, C, ...]) or one without its batch dim (rank - 1), as
// PyTorch's volume functions take; the second result says which.
std::pair<Tensor, bool> batched(const Tensor& x, int64_t rank, const std::string& fname, const char* layout) {
  if (x.dim() == rank) return {x, false};
  if (x.dim() == rank - 1) return {unsqueeze(x, 0), true};
  fail(fname + "(): argument 'input' must be " + layout + " (or without N), got shape " + x.shape_str());
}

struct VolumeWindows {
  IntList kernel, stride, padding, dilation;
  bool ceil_mode = false;
};

// One dim's output size of a pool, PyTorch's rule: with ceil_mode the last window may
// stick out past the end, but must start inside the input or its left padding.
int64_t pooled_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  const int64_t span = in + 2 * p - d * (k - 1) - 1;
  if (span < 0) return 0;
  int64_t out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
  if (ceil_mode && (out - 1) * s >= in + p) --out;
  return out;
}

// The windows of a 3-D pool, checked in its own terms (the 2-D rows it runs on would
// name themselves): sizes at least 1, padding at most half the kernel, an output.
VolumeWindows volume_windows(const Bound& b, const Tensor& x, const std::string& fname, bool dilated, bool ceil_mode) {
  VolumeWindows w;
  w.ceil_mode = ceil_mode;
  w.kernel = triple_arg(b, 1, {}, fname + "(): argument 'kernel_size'");
  if (w.kernel.empty()) fail(fname + "(): argument 'kernel_size' is required");
  w.stride = triple_arg(b, 2, w.kernel, fname + "(): argument 'stride'");
  w.padding = triple_arg(b, 3, {0, 0, 0}, fname + "(): argument 'padding'");
  w.dilation = dilated ? triple_arg(b, 4, {1, 1, 1}, fname + "(): argument 'dilation'") : IntList{1, 1, 1};
  for (size_t d = 0; d < 3; ++d) {
    auto bad = [&](const char* what, int64_t v, const char* rule) {
      fail(fname + "(): argument '" + what + "' must be " + rule + ", got " + std::to_string(v));
    };
    if (w.kernel[d] < 1) bad("kernel_size", w.kernel[d], "at least 1");
    if (w.stride[d] < 1) bad("stride", w.stride[d], "at least 1");
    if (w.dilation[d] < 1) bad("dilation", w.dilation[d], "at least 1");
    if (w.padding[d] < 0) bad("padding", w.padding[d], "at least 0");
    if (w.padding[d] > w.kernel[d] / 2)
      fail(fname + "(): argument 'padding' " + ints_str(w.padding) + " must be at most half of 'kernel_size' " +
           ints_str(w.kernel));
  }
  for (size_t d = 0; d < 3; ++d)
    if (pooled_size(x.sizes()[2 + d], w.kernel[d], w.stride[d], w.padding[d], w.dilation[d], w.ceil_mode) < 1)
      fail(fname + "(): input of shape " + x.shape_str() + " is too small for kernel " + ints_str(w.kernel) +
           " with padding " + ints_str(w.padding) + " and dilation " + ints_str(w.dilation));
  return w;
}

// The 2-D pool options of stage `over_hw` (the (H, W) pool) or of the depth stage.
Pool2dOptions stage_options(const VolumeWindows& w, bool over_hw, bool count_include_pad) {
  Pool2dOptions o;
  if (over_hw) {
    o.kernel_size = {w.kernel[1], w.kernel[2]}, o.stride = {w.stride[1], w.stride[2]};
    o.padding = {w.padding[1], w.padding[2]}, o.dilation = {w.dilation[1], w.dilation[2]};
  } else {
    o.kernel_size = {w.kernel[0], 1}, o.stride = {w.stride[0], 1};
    o.padding = {w.padding[0], 0}, o.dilation = {w.dilation[0], 1};
  }
  o.ceil_mode = w.ceil_mode;
  o.count_include_pad = count_include_pad;
  return o;
}

// Flat indices over D * H * W from the stages' (Note [Pools over volumes]): `depth_idx`
// [N, C, OD, P] flat over [D, P] (P = OH * OW, its column the output's own), `hw_idx`
// [N, C * D, OH, OW] flat over [H, W].
Tensor volume_indices(const Tensor& depth_idx, const Tensor& hw_idx, const Shape& in, const Shape& out) {
  const int64_t N = in[0], C = in[1], D = in[2], H = in[3], W = in[4];
  const int64_t P = out[3] * out[4];
  Tensor flat_depth = reshape(depth_idx, {N, C, out[2] * P});
  Tensor hw = gather(reshape(hw_idx, {N, C, D * P}), 2, flat_depth);
  Tensor d = floor_division(flat_depth, i64_number(P));
  return reshape(d * i64_number(H * W) + hw, out.vec());
}

// A 3-D max pool's result from its depth stage's values: the values [N, C, OD, OH, OW]
// (the batch dim dropped again for an unbatched input), with the indices when asked.
Value max_pool_result(const Tensor& depth_val, const Tensor& depth_idx, const Tensor& hw_idx, const Shape& in,
                      const Shape& out, bool with_indices, bool unbatched) {
  Tensor y = reshape(depth_val, out.vec());
  if (!with_indices) return Value::tensor(unbatched ? squeeze(y, {0}) : y);
  Tensor idx = volume_indices(depth_idx, hw_idx, in, out);
  if (unbatched) y = squeeze(y, {0}), idx = squeeze(idx, {0});
  return make_tuple({Value::tensor(y), Value::tensor(idx)});
}

// max_pool3d(input, kernel_size, stride=kernel_size, padding=0, dilation=1,
// ceil_mode=false, return_indices=false)
Value max_pool3d_builtin(Evaluator&, CallArgs& a) {
  const std::string f = "max_pool3d";
  Bound b = bind(f, a, {"input", "kernel_size", "stride", "padding", "dilation", "ceil_mode", "return_indices"}, 2);
  auto [x, unbatched] = batched(arg(b, 0, f.c_str(), "input"), 5, f, "[N, C, D, H, W]");
  VolumeWindows checked = volume_windows(b, x, f, true, b.has(5) && as_bool(b[5], f + "(): argument 'ceil_mode'"));
  const Shape& s = x.sizes();
  auto [hw_val, hw_idx] = max_pool2d_with_indices(reshape(x, {s[0], s[1] * s[2], s[3], s[4]}), stage_options(checked, true, true));
  const int64_t OH = hw_val.sizes()[2], OW = hw_val.sizes()[3];
  auto [val, depth_idx] = max_pool2d_with_indices(reshape(hw_val, {s[0], s[1], s[2], OH * OW}), stage_options(checked, false, true));
  Shape out{s[0], s[1], val.sizes()[2], OH, OW};
  return max_pool_result(val, depth_idx, hw_idx, s, out, b.has(6) && as_bool(b[6], f + "(): argument 'return_indices'"),
                         unbatched);
}

// avg_pool3d(input, kernel_size, stride=kernel_size, padding=0, ceil_mode=false,
// count_include_pad=true, divisor_override=none). divisor_override: the pool excluding
// the padding, each output rescaled to its window's sum over the divisor.
Value avg_pool3d_builtin(Evaluator&, CallArgs& a) {
  const std::string f = "avg_pool3d";
  Bound b = bind(f, a, {"input", "kernel_size", "stride", "padding", "ceil_mode", "count_include_pad",
                        "divisor_override"}, 2);
  auto [x, unbatched] = batched(arg(b, 0, f.c_str(), "input"), 5, f, "[N, C, D, H, W]");
  if (!is_floating(x.dtype())) fail(f + "(): argument 'input' must be a floating tensor, got " + dtype_name(x.dtype()));
  VolumeWindows w = volume_windows(b, x, f, false, b.has(4) && as_bool(b[4], f + "(): argument 'ceil_mode'"));
  const bool divided = b.has(6) && !b[6].is_none();
  const int64_t divisor = divided ? as_int(b[6], f + "(): argument 'divisor_override'") : 0;
  if (divided && divisor == 0) fail(f + "(): argument 'divisor_override' must not be 0");
  bool include_pad = !divided && (!b.has(5) || as_bool(b[5], f + "(): argument 'count_include_pad'"));
  const Shape& s = x.sizes();
  Tensor hw = avg_pool2d(reshape(x, {s[0], s[1] * s[2], s[3], s[4]}), stage_options(w, true, include_pad));
  const int64_t OH = hw.sizes()[2], OW = hw.sizes()[3];
  Tensor v = avg_pool2d(reshape(hw, {s[0], s[1], s[2], OH * OW}), stage_options(w, false, include_pad));
  Tensor y = reshape(v, {s[0], s[1], v.sizes()[2], OH, OW});
  if (divided) y = avg_pool_to_divisor(y, {s[2], s[3], s[4]}, w.kernel, w.stride, w.padding, static_cast<double>(divisor));
  return Value::tensor(unbatched ? squeeze(y, {0}) : y);
}

// An adaptive pool's output size for [.., D, H, W]: an int, or three (none keeps a dim).
IntList adaptive_volume(const Bound& b, const Tensor& x, const std::string& fname) {
  for (int64_t d = 2; d < 5; ++d)
    if (x.sizes()[d] == 0) fail(fname + "(): argument 'input' of shape " + x.shape_str() + " has an empty spatial dim");
  IntList out(3);
  const Value& v = b[1];
  if (v.tag == Tag::Int && v.i < 1) fail(fname + "(): argument 'output_size' must be positive, got " + std::to_string(v.i));
  if (v.tag == Tag::Int) return {v.i, v.i, v.i};
  if (v.tag != Tag::List && v.tag != Tag::Tuple) fail(fname + "(): argument 'output_size' must be an int or three, got " + type_name(v));
  const auto& items = v.as<ListObj>()->items;
  if (items.size() != 3) fail(fname + "(): argument 'output_size' must be an int or three, got " + std::to_string(items.size()) + " values");
  for (size_t d = 0; d < 3; ++d) {
    out[d] = items[d].is_none() ? x.sizes()[2 + d] : as_int(items[d], fname + "(): argument 'output_size'");
    if (out[d] < 1) fail(fname + "(): argument 'output_size' must be positive, got " + std::to_string(out[d]));
  }
  return out;
}

Value adaptive_avg_pool3d_builtin(Evaluator&, CallArgs& a) {
  const std::string f = "adaptive_avg_pool3d";
  Bound b = bind(f, a, {"input", "output_size"}, 2);
  auto [x, unbatched] = batched(arg(b, 0, f.c_str(), "input"), 5, f, "[N, C, D, H, W]");
  IntList o = adaptive_volume(b, x, f);
  const Shape& s = x.sizes();
  Tensor hw = adaptive_avg_pool2d(reshape(x, {s[0], s[1] * s[2], s[3], s[4]}), {o[1], o[2]});
  Tensor v = adaptive_avg_pool2d(reshape(hw, {s[0], s[1], s[2], o[1] * o[2]}), {o[0], o[1] * o[2]});
  Tensor y = reshape(v, {s[0], s[1], o[0], o[1], o[2]});
  return Value::tensor(unbatched ? squeeze(y, {0}) : y);
}

Value adaptive_max_pool3d_builtin(Evaluator&, CallArgs& a) {
  const std::string f = "adaptive_max_pool3d";
  Bound b = bind(f, a, {"input", "output_size", "return_indices"}, 2);
  auto [x, unbatched] = batched(arg(b, 0, f.c_str(), "input"), 5, f, "[N, C, D, H, W]");
  IntList o = adaptive_volume(b, x, f);
  const Shape& s = x.sizes();
  auto [hw_val, hw_idx] = adaptive_max_pool2d(reshape(x, {s[0], s[1] * s[2], s[3], s[4]}), {o[1], o[2]});
  auto [val, depth_idx] = adaptive_max_pool2d(reshape(hw_val, {s[0], s[1], s[2], o[1] * o[2]}), {o[0], o[1] * o[2]});
  Shape out{s[0], s[1], o[0], o[1], o[2]};
  return max_pool_result(val, depth_idx, hw_idx, s, out, b.has(2) && as_bool(b[2], f + "(): argument 'return_indices'"),
                         unbatched);
}

// conv_transpose3d(input, weight, bias=none, stride=1, padding=0, output_padding=0,
// groups=1, dilation=1): the adjoint of conv3d (its input gradient, a row), weight
// [C_in, C_out / groups, kD, kH, kW] as PyTorch's. It is computed uncropped (no
// padding: every cell any window reaches), then each dim is cut to PyTorch's output,
// [padding, padding + out): output_padding may reach cells that padding would crop
// (they are kept) and past the last window (zeros).
Value conv_transpose3d_builtin(Evaluator&, CallArgs& a) {
  const std::string f = "conv_transpose3d";
  Bound b = bind(f, a, {"input", "weight", "bias", "stride", "padding", "output_padding", "groups", "dilation"}, 2);
  auto [x, unbatched] = batched(arg(b, 0, f.c_str(), "input"), 5, f, "[N, C_in, D, H, W]");
  Tensor weight = arg(b, 1, f.c_str(), "weight");
  IntList stride = triple_arg(b, 3, {1, 1, 1}, f + "(): argument 'stride'");
  IntList padding = triple_arg(b, 4, {0, 0, 0}, f + "(): argument 'padding'");
  IntList output_padding = triple_arg(b, 5, {0, 0, 0}, f + "(): argument 'output_padding'");
  int64_t groups = b.has(6) ? as_int(b[6], f + "(): argument 'groups'") : 1;
  IntList dilation = triple_arg(b, 7, {1, 1, 1}, f + "(): argument 'dilation'");
  if (weight.dim() != 5) fail(f + "(): argument 'weight' must be [C_in, C_out / groups, kD, kH, kW], got shape " + weight.shape_str());
  if (groups < 1 || weight.sizes()[0] % groups != 0)
    fail(f + "(): argument 'groups' (" + std::to_string(groups) + ") must be positive and divide the weight's " +
         std::to_string(weight.sizes()[0]) + " input channels");
  if (x.sizes()[1] != weight.sizes()[0])
    fail(f + "(): argument 'input' has " + std::to_string(x.sizes()[1]) + " channels but the weight " +
         weight.shape_str() + " takes " + std::to_string(weight.sizes()[0]));
  for (int64_t d = 2; d < 5; ++d)
    if (x.sizes()[d] == 0) fail(f + "(): argument 'input' of shape " + x.shape_str() + " has an empty spatial dim");
  Shape reach{x.sizes()[0], weight.sizes()[1] * groups, 0, 0, 0};
  IntList out(3);
  for (size_t d = 0; d < 3; ++d) {
    const int64_t s = stride[d], p = padding[d], dil = dilation[d], k = weight.sizes()[2 + d];
    if (s < 1 || dil < 1 || p < 0)
      fail(f + "(): stride " + ints_str(stride) + " and dilation " + ints_str(dilation) +
           " must be positive and padding " + ints_str(padding) + " non-negative");
    if (output_padding[d] < 0 || output_padding[d] >= std::max(s, dil))
      fail(f + "(): argument 'output_padding' " + ints_str(output_padding) +
           " must be smaller than the stride or the dilation in each dim (stride " + ints_str(stride) +
           ", dilation " + ints_str(dilation) + ")");
    reach[2 + d] = (x.sizes()[2 + d] - 1) * s + dil * (k - 1) + 1;
    out[d] = reach[2 + d] - 2 * p + output_padding[d];
    if (out[d] < 1) fail(f + "(): the output would be empty: input " + x.shape_str() + ", weight " + weight.shape_str() +
                         ", padding " + ints_str(padding));
  }
  Tensor y = conv3d_backward_input(x, weight, reach.vec(), Conv3dOptions{stride, {0, 0, 0}, dilation, groups});
  IntList zeros_after(6, 0);  // pad's order: last dim first
  for (size_t d = 0; d < 3; ++d) {
    const int64_t p = padding[d], end = std::min(reach[2 + d], p + out[d]);
    y = slice(y, static_cast<int64_t>(2 + d), p, end, 1);
    zeros_after[2 * (2 - d) + 1] = p + out[d] - end;
  }
  if (zeros_after != IntList(6, 0)) y = pad(y, zeros_after);
  if (b.has(2) && !b[2].is_none()) {
    Tensor bias = arg(b, 2, f.c_str(), "bias");
    if (bias.dim() != 1 || bias.sizes()[0] != reach[1])
      fail(f + "(): argument 'bias' must be [" + std::to_string(reach[1]) + "] (one per output channel), got shape " +
           bias.shape_str());
    y = y + reshape(bias, {1, reach[1], 1, 1, 1});
  }
  return Value::tensor(unbatched ? squeeze(y, {0}) : y);
}

// ---- grid_sample and affine_grid ------------------------------------------------------

// Grid coordinates in [-1, 1] as pixel coordinates along a dim of `size`.
Tensor unnormalized(const Tensor& c, int64_t size, bool align_corners) {
  if (align_corners) return (c + 1.0) * (0.5 * static_cast<double>(size - 1));
  return ((c + 1.0) * static_cast<double>(size) - 1.0) * 0.5;
}

// PyTorch's reflect_coordinates: c folded back into [low, high] (twice each, so
// that half-pixel bounds stay integers) by reflections at the ends.
Tensor reflected(const Tensor& c, double twice_low, double twice_high) {
  if (twice_low == twice_high) return c * 0.0;
  const double low = twice_low / 2, span = (twice_high - twice_low) / 2;
  Tensor in = abs(c - low);
  Tensor extra = remainder(in, number_like(span, in));
  Tensor flips = floor(in / span);
  Tensor even = eq(remainder(flips, number_like(2.0, flips)), number_like(0.0, flips));
  return where(even, extra + low, (span - extra) + low);
}

// Pixel coordinates after the padding mode: zeros leaves them (out-of-range cells
// read 0), border clamps them into the image, reflection reflects them into it.
Tensor padded_coordinate(const Tensor& c, int64_t size, const std::string& mode, bool align_corners) {
  const double hi = static_cast<double>(size - 1);
  if (mode == "border") return clamp(c, 0.0, hi);
  if (mode == "reflection") {
    Tensor r = align_corners ? reflected(c, 0, 2.0 * hi) : reflected(c, -1, 2.0 * static_cast<double>(size) - 1);
    return clamp(r, 0.0, hi);
  }
  return c;
}

// PyTorch's safe_downgrade_to_int_range: a coordinate that is NaN, infinite or past
// the int32 range reads as -100, a cell outside the input (zeros there, in any padding
// mode). A NaN grid cast to an index read the gather at INT64_MIN.
Tensor in_index_range(const Tensor& c) {
  return where(lt(abs(c), number_like(2147483646.0, c)), c, number_like(-100.0, c));
}

// input [N, C, *spatial] read at integer cells: cell[d] [N, *out] (floating, integral
// values) along spatial dim d; 0 where a cell is outside the input: [N, C, *out].
Tensor cells_at(const Tensor& input, const TensorList& cell) {
  const Shape& s = input.sizes();
  const int64_t N = s[0], C = s[1];
  Tensor flat, inside;
  int64_t volume = 1;
  for (size_t d = 0; d < cell.size(); ++d) {
    const int64_t n = s[2 + d];
    const Tensor& c = cell[d];
    Tensor within = to_dtype(ge(c, number_like(0.0, c)), c.dtype()) * to_dtype(le(c, number_like(double(n - 1), c)), c.dtype());
    Tensor index = to_dtype(clamp(c, 0.0, double(n - 1)), DType::i64);
    flat = d == 0 ? index : flat * i64_number(n) + index;
    inside = d == 0 ? within : inside * within;
    volume *= n;
  }
  Tensor rows = reshape(flat, {N, 1, -1});
  Tensor picked = gather(reshape(input, {N, C, volume}), 2, expand(rows, {N, C, rows.sizes()[2]}));
  IntList out{N, C};
  for (int64_t d = 1; d < cell[0].dim(); ++d) out.push_back(cell[0].sizes()[d]);
  return reshape(picked, out) * unsqueeze(inside, 1);
}

// PyTorch's cubic convolution weights (A = -0.75, as its upsample_bicubic and
// grid_sample) of the four taps around a point at fraction t past the second tap.
TensorList cubic_weights(const Tensor& t) {
  const double A = -0.75;
  auto near = [A](const Tensor& x) { return (x * (A + 2.0) - (A + 3.0)) * x * x + 1.0; };
  auto far = [A](const Tensor& x) { return ((x * A - 5.0 * A) * x + 8.0 * A) * x - 4.0 * A; };
  Tensor rest = neg(t) + 1.0;
  return {far(t + 1.0), near(t), near(rest), far(rest + 1.0)};
}

// Note [Bicubic grid_sample]
// As PyTorch's: the point's pixel coordinates (unnormalized, no padding yet), the 4 x 4
// taps around it, each tap's own cell moved by the padding mode (border clamps it,
// reflection reflects it; zeros reads 0 outside), and the cubic weights of the
// fractions. The taps are integer cells (floor of the point, no gradient), so the
// grid's gradient comes through the weights only, as PyTorch's backward computes it,
// and the input's through the gathers.
Tensor bicubic_sampled(const Tensor& input, const Tensor& grid, const std::string& padding_mode, bool align) {
  const int64_t H = input.sizes()[2], W = input.sizes()[3];
  Tensor ix = unnormalized(select(grid, 3, 0), W, align), iy = unnormalized(select(grid, 3, 1), H, align);
  Tensor x0 = floor(ix), y0 = floor(iy);
  TensorList wx = cubic_weights(ix - x0), wy = cubic_weights(iy - y0);
  auto tap = [&](const Tensor& c, int64_t size) {
    return trunc(in_index_range(padded_coordinate(c, size, padding_mode, align)));
  };
  Tensor out;
  for (int64_t i = 0; i < 4; ++i) {
    Tensor row = tap(y0 + static_cast<double>(i - 1), H);
    for (int64_t j = 0; j < 4; ++j) {
      Tensor term = cells_at(input, {row, tap(x0 + static_cast<double>(j - 1), W)}) *
                    unsqueeze(wy[static_cast<size_t>(i)] * wx[static_cast<size_t>(j)], 1);
      out = out.defined() ? out + term : term;
    }
  }
  return out;
}

// grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=false):
// input [N, C, H, W] read at grid [N, Ho, Wo, 2] ((x, y) in [-1, 1]), or a volume [N,
// C, D, H, W] at grid [N, Do, Ho, Wo, 3] ((x, y, z)), as F.grid_sample; bilinear
// (trilinear for volumes), nearest or bicubic (Note [Bicubic grid_sample]);
// differentiable in both (in the grid through the interpolation weights).
Value grid_sample_builtin(Evaluator&, CallArgs& a) {
  const std::string f = "grid_sample";
  Bound b = bind(f, a, {"input", "grid", "mode", "padding_mode", "align_corners"}, 2);
  Tensor input = arg(b, 0, f.c_str(), "input"), grid = arg(b, 1, f.c_str(), "grid");
  std::string mode = b.has(2) ? str(b[2]) : "bilinear";
  std::string padding_mode = b.has(3) ? str(b[3]) : "zeros";
  bool align = b.has(4) && as_bool(b[4], f + "(): argument 'align_corners'");
  if (input.dim() != 4 && input.dim() != 5)
    fail(f + "(): argument 'input' must be [N, C, H, W] or [N, C, D, H, W], got shape " + input.shape_str());
  const int64_t dims = input.dim() - 2;
  if (grid.dim() != input.dim() || grid.sizes()[grid.dim() - 1] != dims || grid.sizes()[0] != input.sizes()[0])
    fail(f + "(): argument 'grid' must be [N, " + (dims == 2 ? "H_out, W_out, 2" : "D_out, H_out, W_out, 3") +
         "] with the input's N (" + std::to_string(input.sizes()[0]) + "), got shape " + grid.shape_str());
  if (!is_floating(input.dtype()) || grid.dtype() != input.dtype())
    fail(f + "(): input and grid must be floating tensors of one dtype, got " + dtype_name(input.dtype()) + " and " +
         dtype_name(grid.dtype()));
  if (mode != "bilinear" && mode != "nearest" && mode != "bicubic")
    fail(f + "(): argument 'mode' must be \"bilinear\", \"nearest\" or \"bicubic\", got \"" + mode + "\"");
  if (mode == "bicubic" && dims != 2)
    fail(f + "(): mode \"bicubic\" samples 4-D inputs [N, C, H, W] only (as PyTorch's), got shape " + input.shape_str());
  if (padding_mode != "zeros" && padding_mode != "border" && padding_mode != "reflection")
    fail(f + "(): argument 'padding_mode' must be \"zeros\", \"border\" or \"reflection\", got \"" + padding_mode + "\"");
  IntList out_shape{input.sizes()[0], input.sizes()[1]};
  for (int64_t d = 1; d <= dims; ++d) out_shape.push_back(grid.sizes()[d]);
  for (int64_t d = 2; d < input.dim(); ++d)
    if (input.sizes()[d] == 0) fail(f + "(): argument 'input' of shape " + input.shape_str() + " has an empty spatial dim");
  if (input.sizes()[0] == 0 || grid.numel() == 0)  // nothing to sample
    return Value::tensor(zeros(Shape(out_shape), input.dtype(), input.device()));
  if (mode == "bicubic") return Value::tensor(bicubic_sampled(input, grid, padding_mode, align));
  // Pixel coordinates per spatial dim in the input's order (D, H, W): the grid's last
  // entry is the first dim's (x is W's).
  TensorList at;
  for (int64_t d = 0; d < dims; ++d) {
    const int64_t size = input.sizes()[2 + d];
    at.push_back(in_index_range(padded_coordinate(unnormalized(select(grid, grid.dim() - 1, dims - 1 - d), size, align),
                                                  size, padding_mode, align)));
  }
  if (mode == "nearest") {
    // The grid's gradient is zeros, as PyTorch's (rounded cells left grid.grad none).
    TensorList cell;
    for (const Tensor& c : at) cell.push_back(round(c));
    return Value::tensor(cells_at(input, cell) - sum(zero_selected_from(grid)));
  }
  // Each corner of the cell around the point, weighted by the product over dims of the
  // distance to the opposite corner.
  TensorList low;
  for (const Tensor& c : at) low.push_back(floor(c));
  Tensor out;
  for (int64_t corner = 0; corner < (int64_t{1} << dims); ++corner) {
    TensorList cell;
    Tensor weight;
    for (int64_t d = 0; d < dims; ++d) {
      const bool high = (corner >> (dims - 1 - d)) & 1;
      Tensor c = high ? low[static_cast<size_t>(d)] + 1.0 : low[static_cast<size_t>(d)];
      Tensor w = high ? at[static_cast<size_t>(d)] - low[static_cast<size_t>(d)] : c + 1.0 - at[static_cast<size_t>(d)];
      cell.push_back(c);
      weight = d == 0 ? w : weight * w;
    }
    Tensor term = cells_at(input, cell) * unsqueeze(weight, 1);
    out = corner == 0 ? term : out + term;
  }
  return Value::tensor(out);
}

// The base coordinates of affine_grid along a dim of n cells: PyTorch's
// linspace_from_neg_one (cell centres without align_corners; 0 for one cell).
Tensor base_coordinates(int64_t n, bool align_corners, DType dtype) {
  std::vector<double> v(static_cast<size_t>(n), 0.0);
  for (int64_t i = 0; i < n && n > 1; ++i) {
    double c = -1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(n - 1);
    v[static_cast<size_t>(i)] = align_corners ? c : c * static_cast<double>(n - 1) / static_cast<double>(n);
  }
  return tensor_from(v, {n}, dtype);
}

// affine_grid(theta, size, align_corners=false): the grid [N, H, W, 2] (or [N, D, H,
// W, 3] for a 5-D size) of theta [N, 2, 3] ([N, 3, 4]) applied to the output's cell
// coordinates, as F.affine_grid; grid_sample reads the input there.
Value affine_grid_builtin(Evaluator&, CallArgs& a) {
  const std::string f = "affine_grid";
  Bound b = bind(f, a, {"theta", "size", "align_corners"}, 2);
  Tensor theta = arg(b, 0, f.c_str(), "theta");
  IntList size = as_ints(b[1], f + "(): argument 'size'");
  bool align = b.has(2) && as_bool(b[2], f + "(): argument 'align_corners'");
  if (size.size() != 4 && size.size() != 5)
    fail(f + "(): argument 'size' must be [N, C, H, W] or [N, C, D, H, W], got " + std::to_string(size.size()) + " values");
  const int64_t dims = static_cast<int64_t>(size.size()) - 2;
  if (!is_floating(theta.dtype()) || theta.dim() != 3 || theta.sizes()[0] != size[0] || theta.sizes()[1] != dims ||
      theta.sizes()[2] != dims + 1)
    fail(f + "(): argument 'theta' must be a floating [N, " + std::to_string(dims) + ", " + std::to_string(dims + 1) +
         "] for size N = " + std::to_string(size[0]) + ", got " + dtype_name(theta.dtype()) + theta.shape_str());
  for (int64_t s : size)
    if (s < 1) fail(f + "(): argument 'size' must be positive, got " + std::to_string(s));
  // Columns (x, y[, z], 1) of every output cell, x varying fastest.
  IntList spatial(size.begin() + 2, size.end());
  Shape cells(spatial);
  TensorList columns;
  for (int64_t k = 0; k < dims; ++k) {  // x is the last dim, y the one before, ...
    int64_t axis = dims - 1 - k;
    IntList shape(static_cast<size_t>(dims), 1);
    shape[static_cast<size_t>(axis)] = spatial[static_cast<size_t>(axis)];
    Tensor c = reshape(base_coordinates(spatial[static_cast<size_t>(axis)], align, theta.dtype()), shape);
    columns.push_back(expand(c, spatial));
  }
  columns.push_back(expand(scalar_tensor(1.0, theta.dtype()), spatial));
  Tensor base = to_device(reshape(stack(columns, -1), {-1, dims + 1}), theta.device());
  Tensor grid = matmul(base, transpose(theta, 1, 2));  // [N, cells, dims]
  IntList out{size[0]};
  out.insert(out.end(), spatial.begin(), spatial.end());
  out.push_back(dims);
  return Value::tensor(reshape(grid, out));
}

const BuiltinEntry kCompositeSpatial[] = {
    {"max_pool3d", max_pool3d_builtin,
     "max_pool3d(input, kernel_size, stride=kernel_size, padding=0, dilation=1, ceil_mode=false, return_indices=false)",
     "3-D max pooling over [N, C, D, H, W] (or [C, D, H, W]), as F.max_pool3d; with return_indices=true also the "
     "indices, flat over D * H * W. Example: max_pool3d(randn(1, 2, 4, 4, 4), 2)"},
    {"avg_pool3d", avg_pool3d_builtin,
     "avg_pool3d(input, kernel_size, stride=kernel_size, padding=0, ceil_mode=false, count_include_pad=true, "
     "divisor_override=none)",
     "3-D average pooling over [N, C, D, H, W] (or [C, D, H, W]), as F.avg_pool3d. "
     "Example: avg_pool3d(randn(1, 2, 4, 4, 4), 2)"},
    {"adaptive_avg_pool3d", adaptive_avg_pool3d_builtin, "adaptive_avg_pool3d(input, output_size)",
     "Average pooling of [N, C, D, H, W] to an output_size volume (an int, or three; none keeps a dim), as "
     "F.adaptive_avg_pool3d. Example: adaptive_avg_pool3d(randn(1, 2, 5, 6, 7), [2, 3, none])"},
    {"adaptive_max_pool3d", adaptive_max_pool3d_builtin, "adaptive_max_pool3d(input, output_size, return_indices=false)",
     "Max pooling of [N, C, D, H, W] to an output_size volume, as F.adaptive_max_pool3d. "
     "Example: adaptive_max_pool3d(randn(1, 2, 5, 6, 7), 2)"},
    {"conv_transpose3d", conv_transpose3d_builtin,
     "conv_transpose3d(input, weight, bias=none, stride=1, padding=0, output_padding=0, groups=1, dilation=1)",
     "The transposed 3-D convolution (conv3d's adjoint) of [N, C_in, D, H, W] with weight [C_in, C_out / groups, "
     "kD, kH, kW], as F.conv_transpose3d. Example: conv_transpose3d(randn(1, 4, 3, 3, 3), randn(4, 2, 2, 2, 2), "
     "stride=2)"},
    {"grid_sample", grid_sample_builtin,
     "grid_sample(input, grid, mode=\"bilinear\", padding_mode=\"zeros\", align_corners=false)",
     "input [N, C, H, W] sampled at grid [N, H_out, W_out, 2] ((x, y) in [-1, 1]), bilinear, nearest or bicubic, with zeros, "
     "border or reflection padding, as F.grid_sample. Example: grid_sample(randn(1, 1, 4, 4), zeros(1, 2, 2, 2))"},
    {"affine_grid", affine_grid_builtin, "affine_grid(theta, size, align_corners=false)",
     "The sampling grid of the affine maps theta [N, 2, 3] over an output of size [N, C, H, W] (theta [N, 3, 4], "
     "size [N, C, D, H, W] for volumes), as F.affine_grid. "
     "Example: affine_grid(tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]]), [1, 1, 2, 3])"},
};

}  // namespace

// Each output of an average pool that excluded the padding (count_include_pad=false)
// rescaled to its window's sum over the input cells it covers, divided by `divisor`:
// PyTorch's divisor_override. The count of covered cells is geometry (no gradient),
// separable over the pooled dims: per dim, the window [o * stride - pad, + kernel)
// clipped to [0, in) (a window never lies wholly in the padding: pad <= kernel / 2).
Tensor avg_pool_to_divisor(const Tensor& avg_excluding_pad, const IntList& in, const IntList& kernel,
                           const IntList& stride, const IntList& padding, double divisor) {
  const size_t n = in.size();
  const Shape& s = avg_excluding_pad.sizes();
  Shape out(s.end() - n, s.end());
  Tensor counts = full(out, 1.0 / divisor, DType::f64);
  if (counts.numel() == 0) return avg_excluding_pad;
  double* c = counts.data<double>();
  int64_t inner = counts.numel();
  for (size_t d = 0; d < n; ++d) {
    inner /= out[d];
    for (int64_t k = 0; k < counts.numel(); ++k) {
      const int64_t o = (k / inner) % out[d], start = o * stride[d] - padding[d];
      c[k] *= static_cast<double>(std::min(start + kernel[d], in[d]) - std::max<int64_t>(start, 0));
    }
  }
  return avg_excluding_pad * to_device(to_dtype(counts, avg_excluding_pad.dtype()), avg_excluding_pad.device());
}

std::span<const BuiltinEntry> composite_spatial() { return kCompositeSpatial; }

}  // namespace nabla::interp
