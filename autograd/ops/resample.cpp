// Rows of interpolate and pad, and of their backward rows. Both ops are linear in
// their input, so each backward is the adjoint linear map (interpolate_backward,
// pad_backward, or for a constant pad a crop, which is pad with negated sizes), and
// the adjoint's own backward is the forward op again: grad of grad holds at any order.
#include "tensor/resample.hpp"

#include <algorithm>
#include <cmath>

#include "autograd/cost.hpp"
#include "autograd/ops/common.hpp"

namespace nabla {

namespace {

std::string ints_str(const IntList& v) { return shape_str(Shape(v)); }

// ---- interpolate --------------------------------------------------------------------

// The mode and the scales of interpolate's attributes, for an input of `ndim` dims.
void check_interpolate_attrs(const char* op, const Attrs& a, int64_t ndim) {
  int64_t mode = a.i("mode");
  if (mode < kInterpolateNearest || mode > kInterpolateNearestExact)
    throw Error(std::string(op) +
                ": mode must be 0 (nearest), 1 (linear/bilinear), 2 (bicubic), 3 (area) or 4 (nearest-exact), got " +
                std::to_string(mode));
  if (mode == kInterpolateBicubic && ndim != 4)
    throw Error(std::string(op) + ": mode 'bicubic' needs a 4-D input [N, C, H, W], got " + std::to_string(ndim) +
                " dims");
  for (const char* s : {"scale_h", "scale_w"})
    if (!a.is_none(s) && !(a.f(s) > 0))
      throw Error(std::string(op) + ": " + s + " must be positive, got " + number_str(a.f(s)));
}

void check_resample_input(const char* op, const char* arg, const Tensor& t) {
  check_floating(op, arg, t);
  if (t.dim() != 3 && t.dim() != 4)
    throw Error(std::string(op) + ": argument '" + arg + "' must be 3-D [N, C, W] or 4-D [N, C, H, W], got shape " +
                t.shape_str());
}

// x's shape with its spatial dims replaced by `size`.
Shape resized(const char* op, const Tensor& x, const IntList& size) {
  if (static_cast<int64_t>(size.size()) != x.dim() - 2)
    throw Error(std::string(op) + ": size " + ints_str(size) + " must give one size per spatial dim of input " +
                x.shape_str());
  Shape out = x.sizes();
  for (size_t k = 0; k < size.size(); ++k) {
    if (size[k] <= 0) throw Error(std::string(op) + ": size " + ints_str(size) + " must be positive");
    out[k + 2] = size[k];
  }
  return out;
}

std::vector<TensorMeta> infer_interpolate(const TensorList& in, const Attrs& a) {
  const Tensor& x = in[0];
  check_resample_input("interpolate", "input", x);
  check_interpolate_attrs("interpolate", a, x.dim());
  for (int64_t d = 2; d < x.dim(); ++d)
    if (x.sizes()[d] == 0) throw Error("interpolate: argument 'input' has an empty spatial dim: " + x.shape_str());
  return one(resized("interpolate", x, a.ints("size")), x.dtype());
}

// Inputs (grad); outputs the gradient of an input of shape input_size.
std::vector<TensorMeta> infer_interpolate_backward(const TensorList& in, const Attrs& a) {
  const Tensor& g = in[0];
  check_resample_input("interpolate_backward", "grad", g);
  check_interpolate_attrs("interpolate_backward", a, g.dim());
  Shape input(a.ints("input_size"));
  bool matches = static_cast<int64_t>(input.size()) == g.dim() && input[0] == g.sizes()[0] && input[1] == g.sizes()[1];
  for (size_t d = 2; matches && d < input.size(); ++d) matches = input[d] > 0;
  if (!matches)
    throw Error("interpolate_backward: input_size " + shape_str(input) + " does not fit argument 'grad' of shape " +
                g.shape_str());
  return one(input, g.dtype());
}

// The spatial sizes of t.
IntList spatial_sizes(const Shape& t) { return IntList(t.begin() + 2, t.end()); }

// The attributes shared by interpolate and interpolate_backward.
Attrs resample_attrs(const Attrs& a) {
  Attrs out;
  for (const char* name : {"mode", "align_corners", "scale_h", "scale_w"}) out.set(name, a.value(name));
  return out;
}

TensorList backward_interpolate(BackwardContext& c) {
  return {interpolate_backward(c.grad(), c.input_shape(0).vec(), c.attrs())};
}

TensorList backward_interpolate_backward(BackwardContext& c) {
  Attrs attrs = resample_attrs(c.attrs());
  attrs.set("size", spatial_sizes(c.input_shape(0)));
  return {call1(OpId::interpolate, {c.grad()}, attrs)};
}

// 2 FLOPs (a multiply-add) per tap per output element; area reads each input element
// about once, so counts the larger side.
OpCost cost_interpolate(const TensorList& in, const Attrs& a, const TensorList& out) {
  if (a.i("mode") == kInterpolateArea)
    return {2.0 * static_cast<double>(std::max(in[0].numel(), out[0].numel())), io_bytes(in, out)};
  int64_t mode = a.i("mode");
  int64_t taps = mode == kInterpolateNearest || mode == kInterpolateNearestExact ? 1
                 : mode == kInterpolateLinear                                    ? 2
                                                                                 : 4;
  const Tensor& big = a.has("input_size") ? in[0] : out[0];  // the output side of the forward map
  double per_dim = big.dim() == 4 ? static_cast<double>(taps * taps) : static_cast<double>(taps);
  return {2.0 * per_dim * static_cast<double>(big.numel()), io_bytes(in, out)};
}

// ---- pad ----------------------------------------------------------------------------

const char* pad_mode_name(int64_t mode) {
  switch (mode) {
    case kPadConstant:
      return "constant";
    case kPadReflect:
      return "reflect";
    case kPadReplicate:
      return "replicate";
    case kPadCircular:
      return "circular";
    default:
      return "?";
  }
}

// The padded shape of `small`, checking pad against it and the mode (op and arg name
// the tensor in errors).
Shape padded_shape(const char* op, const char* arg, const Shape& small, const IntList& pad, int64_t mode) {
  if (mode < kPadConstant || mode > kPadCircular)
    throw Error(std::string(op) + ": mode must be 0 (constant), 1 (reflect), 2 (replicate) or 3 (circular), got " +
                std::to_string(mode));
  int64_t nd = static_cast<int64_t>(small.size());
  if (pad.size() % 2 != 0)
    throw Error(std::string(op) + ": pad " + ints_str(pad) + " must have an even length (a left and a right size " +
                "per dim, last dim first)");
  int64_t k = static_cast<int64_t>(pad.size()) / 2;
  if (k > nd || k > kMaxPadDims)
    throw Error(std::string(op) + ": pad " + ints_str(pad) + " pads " + std::to_string(k) + " dims, but argument '" +
                arg + "' has shape " + shape_str(small));
  Shape out = small;
  for (int64_t j = 0; j < k; ++j) {
    int64_t d = nd - 1 - j, n = small[d], l = pad[2 * j], r = pad[2 * j + 1];
    std::string where = std::string(op) + ": pad " + ints_str(pad) + " with mode '" + pad_mode_name(mode) +
                        "' on dim " + std::to_string(d) + " of size " + std::to_string(n) + " (argument '" + arg +
                        "' of shape " + shape_str(small) + ")";
    // A negative size crops. Reflect and replicate read the input's own coordinates
    // then, as PyTorch's kernels (pad_source); circular wraps around the cropped dim,
    // which pad() makes by a crop first, so the op itself takes no negative circular size.
    if (mode == kPadCircular && (l < 0 || r < 0)) throw Error(where + ": the sizes must be non-negative");
    if (mode == kPadReflect && (l >= n || r >= n))
      throw Error(where + ": reflect padding must be smaller than the dim's size");
    if (mode == kPadCircular && (l > n || r > n))
      throw Error(where + ": circular padding must be at most the dim's size");
    if (mode != kPadConstant && n == 0) throw Error(where + ": the dim must not be empty");
    out[d] = size_add(op, size_add(op, n, l), r);
    if (out[d] < 0 || (mode != kPadConstant && out[d] == 0 && (l < 0 || r < 0)))
      throw Error(where + ": the padded size would be " + std::to_string(out[d]));
  }
  return out;
}

// Any dtype: integer and bool tensors pad too (and carry no gradient).
std::vector<TensorMeta> infer_pad(const TensorList& in, const Attrs& a) {
  return one(padded_shape("pad", "input", in[0].sizes(), a.ints("pad"), a.i("mode")), in[0].dtype());
}

// Inputs (grad) of the padded shape; outputs the unpadded shape.
std::vector<TensorMeta> infer_pad_backward(const TensorList& in, const Attrs& a) {
  const Tensor& g = in[0];
  check_floating("pad_backward", "grad", g);
  IntList pad = a.ints("pad");
  Shape small = g.sizes();
  int64_t k = static_cast<int64_t>(pad.size()) / 2;
  if (pad.size() % 2 == 0 && k <= g.dim())
    for (int64_t j = 0; j < k; ++j) small[g.dim() - 1 - j] -= pad[2 * j] + pad[2 * j + 1];
  for (int64_t s : small)
    if (s < 0)
      throw Error("pad_backward: pad " + ints_str(pad) + " is larger than argument 'grad' of shape " + g.shape_str());
  // The forward shape rule on the unpadded shape checks the rest (and gives back g's).
  padded_shape("pad_backward", "grad", small, pad, a.i("mode"));
  return one(small, g.dtype());
}

IntList negated(IntList v) {
  for (int64_t& x : v) x = -x;
  return v;
}

// A constant pad's adjoint is the crop that pad with negated sizes makes.
TensorList backward_pad(BackwardContext& c) {
  const IntList& p = c.attrs().ints("pad");
  auto mode = static_cast<PadMode>(c.attrs().i("mode"));
  if (mode == PadMode::constant) return {pad(c.grad(), negated(p), PadMode::constant, 0.0)};
  return {pad_backward(c.grad(), p, mode)};
}

TensorList backward_pad_backward(BackwardContext& c) {
  return {pad(c.grad(), c.attrs().ints("pad"), static_cast<PadMode>(c.attrs().i("mode")), 0.0)};
}

std::vector<AttrSpec> interpolate_attr_specs() {
  return {attr_optional("mode", AttrKind::integer, int64_t(kInterpolateNearest)),
          attr_optional("align_corners", AttrKind::boolean, false),
          attr_optional("scale_h", AttrKind::number, NoneAttr{}),
          attr_optional("scale_w", AttrKind::number, NoneAttr{})};
}

}  // namespace

void register_resample_ops(std::vector<OpDef>& t) {
  std::vector<AttrSpec> forward_attrs{attr_required("size", AttrKind::ints)};
  std::vector<AttrSpec> backward_attrs{attr_required("input_size", AttrKind::ints)};
  for (const AttrSpec& s : interpolate_attr_specs()) {
    forward_attrs.push_back(s);
    backward_attrs.push_back(s);
  }
  row(t, OpId::interpolate) = {.num_inputs = 1,
                               .attrs = forward_attrs,
                               .infer = infer_interpolate,
                               .cpu = cpu::interpolate,
                               .backward = backward_interpolate,
                               .cost = cost_interpolate};
  row(t, OpId::interpolate_backward) = {.num_inputs = 1,
                                        .attrs = backward_attrs,
                                        .infer = infer_interpolate_backward,
                                        .cpu = cpu::interpolate_backward,
                                        .backward = backward_interpolate_backward,
                                        .cost = cost_interpolate};
  std::vector<AttrSpec> pad_attrs{attr_required("pad", AttrKind::ints),
                                  attr_optional("mode", AttrKind::integer, int64_t(kPadConstant)),
                                  attr_optional("value", AttrKind::number, 0.0)};
  row(t, OpId::pad) = {
      .num_inputs = 1, .attrs = pad_attrs, .infer = infer_pad, .cpu = cpu::pad, .backward = backward_pad};
  row(t, OpId::pad_backward) = {.num_inputs = 1,
                                .attrs = {pad_attrs[0], pad_attrs[1]},
                                .infer = infer_pad_backward,
                                .cpu = cpu::pad_backward,
                                .backward = backward_pad_backward};
  name_inputs(t, {{OpId::interpolate, {"input"}},
                  {OpId::interpolate_backward, {"grad"}},
                  {OpId::pad, {"input"}},
                  {OpId::pad_backward, {"grad"}}});
  // What :help prints for each op of this family; tests/interp/op_docs.cpp runs every example.
  document_ops(t,
               {{OpId::interpolate,
                 "Resizes the spatial dims of [N, C, W], [N, C, H, W] or [N, C, D, H, W] to size or by scale_factor: "
                 "nearest, nearest-exact, area, linear (3-D), bilinear or bicubic (4-D), trilinear (5-D), as "
                 "torch.nn.functional.interpolate. "
                 "Example: interpolate(randn(1, 1, 4, 4), scale_factor=2, mode=\"bilinear\")"},
                {OpId::interpolate_backward,
                 "The gradient of interpolate with respect to its input, of shape input_size; mode is 0 (nearest), 1 "
                 "(linear, bilinear), 2 (bicubic) or 3 (area). "
                 "Example: interpolate_backward(ones(1, 1, 4, 4), input_size=[1, 1, 2, 2])"},
                {OpId::pad,
                 "Pads the last dims, pad listing (left, right) sizes from the last dim backwards, with a constant "
                 "value or by reflect, replicate or circular, as torch.nn.functional.pad. "
                 "Example: pad(randn(1, 1, 3, 3), [1, 1, 2, 2], mode=\"reflect\")"},
                {OpId::pad_backward,
                 "The gradient of pad with respect to its input: grad with the padding cut off and, for mode 1 "
                 "(reflect), 2 (replicate) or 3 (circular), the padding's gradient added where it was copied from. "
                 "Example: pad_backward(ones(1, 1, 4, 4), pad=[1, 1, 1, 1])"}});
}

namespace {

// The modes an input of `dims` dims takes, for the error of a mode that needs another rank.
std::string modes_for_rank(int64_t dims) {
  if (dims == 3) return " (a 3-D input [N, C, W] takes \"nearest\", \"nearest-exact\", \"area\" or \"linear\")";
  if (dims == 4)
    return " (a 4-D input [N, C, H, W] takes \"nearest\", \"nearest-exact\", \"area\", \"bilinear\" or \"bicubic\")";
  if (dims == 5)
    return " (a 5-D input [N, C, D, H, W] takes \"nearest\", \"nearest-exact\", \"area\" or \"trilinear\")";
  return "";
}

}  // namespace

InterpolateMode interpolate_mode(const std::string& mode, int64_t input_dims) {
  if (mode == "nearest") return InterpolateMode::nearest;
  if (mode == "nearest-exact") return InterpolateMode::nearest_exact;
  if (mode == "area") return InterpolateMode::area;
  if ((mode == "linear" && input_dims == 3) || (mode == "bilinear" && input_dims == 4) ||
      (mode == "trilinear" && input_dims == 5))
    return InterpolateMode::linear;
  if (mode == "bicubic" && input_dims == 4) return InterpolateMode::bicubic;
  if (mode == "linear" || mode == "bilinear" || mode == "bicubic" || mode == "trilinear")
    throw Error("interpolate: mode '" + mode + "' needs a " +
                (mode == "linear"      ? "3-D"
                 : mode == "trilinear" ? "5-D"
                                       : "4-D") +
                " input, got " + std::to_string(input_dims) + " dims" + modes_for_rank(input_dims));
  throw Error("interpolate: unknown mode '" + mode +
              "' (expected \"nearest\", \"nearest-exact\", \"area\", \"linear\" (3-D), \"bilinear\" or "
              "\"bicubic\" (4-D), \"trilinear\" (5-D))");
}

namespace {

// The op on x for output `size`, with the scales the taps use (empty: in / out).
Tensor interpolate_op(const Tensor& x, const InterpolateOptions& opt, const std::vector<double>& scales) {
  Attrs attrs{{"mode", static_cast<int64_t>(opt.mode)}, {"align_corners", opt.align_corners.value_or(false)}};
  const char* names[2] = {"scale_h", "scale_w"};
  size_t spatial = static_cast<size_t>(x.dim() - 2);
  for (size_t k = 0; k < scales.size(); ++k) attrs.set(names[k + 2 - spatial], scales[k]);
  attrs.set("size", opt.size);
  return call1(OpId::interpolate, {x}, attrs);
}

// A 5-D input [N, C, D, H, W] resized as two ops: H and W as a 4-D input [N, C * D, H, W],
// then D as a 4-D one [N, C * H' * W', D, 1]. Nearest, linear and area weights are products of one
// weight per dim, so this is PyTorch's 3-D resampling, and its gradient is the ops' own.
Tensor interpolate_volume(const Tensor& x, const InterpolateOptions& opt, const IntList& size,
                          const std::vector<double>& scales) {
  const Shape& s = x.sizes();
  int64_t n = s[0], c = s[1], d = s[2];
  InterpolateOptions hw = opt, depth = opt;
  hw.size = {size[1], size[2]};
  depth.size = {size[0], 1};
  hw.scale_factor.clear();
  depth.scale_factor.clear();
  std::vector<double> scales_hw, scale_d;
  if (!scales.empty()) {
    scales_hw = {scales[1], scales[2]};
    scale_d = {scales[0]};
  }
  int64_t hw_out = size[1] * size[2];
  Tensor y = interpolate_op(reshape(x, {n, c * d, s[3], s[4]}), hw, scales_hw);
  Tensor planes = reshape(permute(reshape(y, {n, c, d, hw_out}), {0, 1, 3, 2}), {n, c * hw_out, d, 1});
  Tensor z = interpolate_op(planes, depth, scale_d);
  return reshape(permute(reshape(z, {n, c, hw_out, size[0]}), {0, 1, 3, 2}), {n, c, size[0], size[1], size[2]});
}

}  // namespace

Tensor interpolate(const Tensor& x, const InterpolateOptions& opt) {
  check_floating("interpolate", "input", x);
  if (x.dim() < 3 || x.dim() > 5)
    throw Error(
        "interpolate: argument 'input' must be 3-D [N, C, W], 4-D [N, C, H, W] or 5-D [N, C, D, H, W], got "
        "shape " +
        x.shape_str());
  size_t spatial = static_cast<size_t>(x.dim() - 2);
  if (x.dim() == 5 && opt.mode == InterpolateMode::bicubic)
    throw Error("interpolate: mode 'bicubic' needs a 4-D input, got 5 dims" + modes_for_rank(5));
  if (opt.size.empty() == opt.scale_factor.empty())
    throw Error(std::string("interpolate: give exactly one of size and scale_factor, got ") +
                (opt.size.empty() ? "neither" : "both"));
  if (opt.recompute_scale_factor && !opt.size.empty())
    throw Error("interpolate: recompute_scale_factor is not meaningful with an explicit size");
  if (opt.align_corners && (opt.mode == InterpolateMode::nearest || opt.mode == InterpolateMode::area ||
                            opt.mode == InterpolateMode::nearest_exact))
    throw Error("interpolate: align_corners may only be set with the linear, bilinear, bicubic and trilinear modes");
  IntList size = opt.size;
  if (size.size() == 1 && spatial > 1) size.assign(spatial, size[0]);
  std::vector<double> scales;
  if (!opt.scale_factor.empty()) {
    std::vector<double> sf = opt.scale_factor;
    if (sf.size() == 1) sf.assign(spatial, sf[0]);
    if (sf.size() != spatial)
      throw Error("interpolate: scale_factor must have one value per spatial dim (" + std::to_string(spatial) +
                  ") of input " + x.shape_str() + ", got " + std::to_string(opt.scale_factor.size()));
    for (size_t k = 0; k < spatial; ++k) {
      if (!(sf[k] > 0)) throw Error("interpolate: scale_factor must be positive, got " + number_str(sf[k]));
      double scaled = std::floor(static_cast<double>(x.sizes()[k + 2]) * sf[k]);
      // Converting a double past int64's range is undefined: refuse it first.
      if (!(scaled < 9.2e18))
        throw Error("interpolate: scale_factor " + number_str(sf[k]) + " makes dim " + std::to_string(k + 2) +
                    " of input " + x.shape_str() + " larger than 64 bits can count");
      size.push_back(static_cast<int64_t>(scaled));
    }
    if (!opt.recompute_scale_factor) scales = sf;
  }
  InterpolateOptions sized = opt;
  sized.size = size;
  if (x.dim() != 5) return interpolate_op(x, sized, scales);
  Shape out = resized("interpolate", x, size);  // checks size against the rank
  for (int64_t d = 2; d < 5; ++d)
    if (x.sizes()[d] == 0) throw Error("interpolate: argument 'input' has an empty spatial dim: " + x.shape_str());
  return interpolate_volume(x, sized, {out[2], out[3], out[4]}, scales);
}

Tensor interpolate_backward(const Tensor& grad, const IntList& input_shape, const Attrs& interpolate_attrs) {
  Attrs attrs = resample_attrs(interpolate_attrs);
  attrs.set("input_size", input_shape);
  return call1(OpId::interpolate_backward, {grad}, attrs);
}

PadMode pad_mode(const std::string& mode) {
  if (mode == "constant") return PadMode::constant;
  if (mode == "reflect") return PadMode::reflect;
  if (mode == "replicate") return PadMode::replicate;
  if (mode == "circular") return PadMode::circular;
  throw Error("pad: unknown mode '" + mode + "' (expected \"constant\", \"reflect\", \"replicate\" or \"circular\")");
}

Tensor pad(const Tensor& x, const IntList& pad, PadMode mode, double value) {
  bool crops = std::any_of(pad.begin(), pad.end(), [](int64_t p) { return p < 0; });
  if (mode == PadMode::circular && crops) {
    // PyTorch's _pad_circular crops first, then wraps around what is left.
    IntList cut = pad, grow = pad;
    for (size_t k = 0; k < pad.size(); ++k) {
      cut[k] = std::min<int64_t>(pad[k], 0);
      grow[k] = std::max<int64_t>(pad[k], 0);
    }
    int64_t nd = x.dim();
    for (size_t j = 0; j + 1 < pad.size() && static_cast<int64_t>(j / 2) < nd; j += 2) {
      int64_t d = nd - 1 - static_cast<int64_t>(j / 2), left = x.sizes()[d] + cut[j] + cut[j + 1];
      if (grow[j] > left || grow[j + 1] > left)
        throw Error("pad: pad " + ints_str(pad) + " with mode 'circular' on dim " + std::to_string(d) + " of size " +
                    std::to_string(x.sizes()[d]) + " (argument 'input' of shape " + x.shape_str() +
                    "): circular padding must be at most the size the negative sizes leave, " + std::to_string(left));
    }
    return nabla::pad(nabla::pad(x, cut, PadMode::constant, 0.0), grow, PadMode::circular, 0.0);
  }
  return call1(OpId::pad, {x}, {{"pad", pad}, {"mode", static_cast<int64_t>(mode)}, {"value", value}});
}

Tensor pad_backward(const Tensor& grad, const IntList& pad, PadMode mode) {
  return call1(OpId::pad_backward, {grad}, {{"pad", pad}, {"mode", static_cast<int64_t>(mode)}});
}

}  // namespace nabla
