// Rows of the quantization ops (docs/quantization.md): quantize and dequantize per
// tensor and per channel (not differentiable: integers carry no gradient), fake
// quantization for quantization-aware training (differentiable through a
// straight-through estimator, see Note [Straight-through estimator]), and the int8
// linear and convolution rows on the int8 kernels of tensor/cpu/quantized.hpp, whose
// output is f32 or, given an output scale, requantized u8 (Note [Int8 epilogue]).
//
// The names, arguments and numerics are PyTorch's: quantize_per_tensor(input, scale,
// zero_point, dtype), quantize_per_channel(input, scales, zero_points, axis, dtype),
// fake_quantize_per_tensor_affine and fake_quantize_per_channel_affine (here without
// "_affine": nabla has no other kind), quantized::linear (and linear_relu: the relu
// attribute), quantized::linear_dynamic, quantized::conv2d (and conv2d_relu).
// nabla keeps no quantized tensor type: a quantized value is an integer tensor plus
// its scale and zero point (stdlib/quant.dsl's QuantizedTensor holds the three).
//
// Note [Straight-through estimator]
// Fake quantization rounds, so its true derivative is zero almost everywhere. Its
// backward is the straight-through estimator (Bengio et al. 2013, PyTorch's rule):
// the gradient passes where x * (1/scale) rounds into [quant_min, quant_max] and is
// zero where the value was clamped. The forward writes that mask as a second (bool,
// non-differentiable) output, and the rule is where(mask, grad, 0): made of ops, so
// grad of grad works (its derivative in x is zero, in grad the mask). The row's
// `straight_through` field says so, and the op sweep checks these rows' gradients
// against PyTorch's autograd instead of against finite differences of the forward
// (tests/ops/op_sweep.cpp); where the estimator is the derivative (every element
// clamped) a case gradchecks it too.
#include <cmath>
#include <limits>

#include "autograd/cost.hpp"
#include "autograd/ops/common.hpp"
#include "autograd/ops/conv_checks.hpp"

namespace nabla {

namespace {

std::string str(int64_t v) { return std::to_string(v); }

// ---- argument checks ------------------------------------------------------------------

bool is_quantized_dtype(DType t) { return t == DType::u8 || t == DType::i8 || t == DType::i32; }

void quantized_range(DType t, int64_t* lo, int64_t* hi) {
  if (t == DType::u8) *lo = 0, *hi = 255;
  else if (t == DType::i8) *lo = -128, *hi = 127;
  else *lo = std::numeric_limits<int32_t>::min(), *hi = std::numeric_limits<int32_t>::max();
}

void check_quantized_dtype(const char* op, const char* arg, DType t) {
  if (!is_quantized_dtype(t))
    throw Error(std::string(op) + ": argument '" + arg + "' must be u8, i8 or i32, got " + dtype_name(t));
}

void check_scale(const char* op, double scale) {
  if (!(scale > 0) || !std::isfinite(scale))
    throw Error(std::string(op) + ": argument 'scale' must be positive and finite, got " + number_str(scale));
}

void check_zero_point(const char* op, const char* arg, int64_t zp, int64_t lo, int64_t hi, const std::string& range) {
  if (zp < lo || zp > hi)
    throw Error(std::string(op) + ": argument '" + arg + "' must lie in [" + str(lo) + ", " + str(hi) + "] " + range +
                ", got " + str(zp));
}

// The zero point of a quantize/dequantize row against the range of `t`.
void check_zero_point_for(const char* op, int64_t zp, DType t) {
  int64_t lo, hi;
  quantized_range(t, &lo, &hi);
  check_zero_point(op, "zero_point", zp, lo, hi, std::string("(the range of ") + dtype_name(t) + ")");
}

// quant_min <= zero_point <= quant_max, as PyTorch's fake quantization checks.
void check_fake_range(const char* op, const Attrs& a) {
  int64_t qmin = a.i("quant_min"), qmax = a.i("quant_max");
  if (qmin > qmax)
    throw Error(std::string(op) + ": argument 'quant_min' (" + str(qmin) + ") must not exceed 'quant_max' (" +
                str(qmax) + ")");
  if (a.has("zero_point"))
    check_zero_point(op, "zero_point", a.i("zero_point"), qmin, qmax, "([quant_min, quant_max])");
}

// The axis of a per-channel row, wrapped; scales (floating) and zero_points (integer)
// are 1-D with one element per index of that axis.
int64_t check_channel_args(const char* op, const Tensor& x, const Tensor& scales, const Tensor& zero_points,
                           int64_t axis) {
  NABLA_CHECK(x.dim() >= 1, std::string(op) + ": argument 'input' must have at least 1 dim, got shape " + x.shape_str());
  int64_t a = wrap_dim(axis, x.dim(), op);
  int64_t channels = x.sizes()[a];
  check_floating(op, "scales", scales);
  if (!is_integral(zero_points.dtype()))
    throw Error(std::string(op) + ": argument 'zero_points' must be an integer tensor, got " +
                dtype_name(zero_points.dtype()));
  for (auto [t, name] : {std::pair{&scales, "scales"}, std::pair{&zero_points, "zero_points"}})
    if (t->dim() != 1 || t->sizes()[0] != channels)
      throw Error(std::string(op) + ": argument '" + name + "' of shape " + t->shape_str() + " has " +
                  str(t->numel()) + " elements but axis " + str(a) + " of 'input' of shape " + x.shape_str() +
                  " has " + str(channels));
  return a;
}

// ---- quantize / dequantize -----------------------------------------------------------

std::vector<TensorMeta> infer_quantize_per_tensor(const TensorList& in, const Attrs& a) {
  const char* op = "quantize_per_tensor";
  check_floating(op, "input", in[0]);
  check_scale(op, a.f("scale"));
  check_quantized_dtype(op, "dtype", a.dtype("dtype"));
  check_zero_point_for(op, a.i("zero_point"), a.dtype("dtype"));
  return one(in[0].sizes(), a.dtype("dtype"));
}

std::vector<TensorMeta> infer_quantize_per_channel(const TensorList& in, const Attrs& a) {
  const char* op = "quantize_per_channel";
  check_floating(op, "input", in[0]);
  check_channel_args(op, in[0], in[1], in[2], a.i("axis"));
  check_quantized_dtype(op, "dtype", a.dtype("dtype"));
  return one(in[0].sizes(), a.dtype("dtype"));
}

void check_dequantize(const char* op, const Tensor& q, DType out) {
  check_quantized_dtype(op, "input", q.dtype());
  if (out != DType::f32 && out != DType::f64)
    throw Error(std::string(op) + ": argument 'dtype' must be f32 or f64, got " + dtype_name(out));
}

std::vector<TensorMeta> infer_dequantize_per_tensor(const TensorList& in, const Attrs& a) {
  const char* op = "dequantize_per_tensor";
  check_dequantize(op, in[0], a.dtype("dtype"));
  check_scale(op, a.f("scale"));
  check_zero_point_for(op, a.i("zero_point"), in[0].dtype());
  return one(in[0].sizes(), a.dtype("dtype"));
}

std::vector<TensorMeta> infer_dequantize_per_channel(const TensorList& in, const Attrs& a) {
  const char* op = "dequantize_per_channel";
  check_dequantize(op, in[0], a.dtype("dtype"));
  check_channel_args(op, in[0], in[1], in[2], a.i("axis"));
  return one(in[0].sizes(), a.dtype("dtype"));
}

// ---- fake quantization ----------------------------------------------------------------

std::vector<TensorMeta> fake_outputs(const Tensor& x) { return {{x.sizes(), x.dtype()}, {x.sizes(), DType::b8}}; }

std::vector<TensorMeta> infer_fake_quantize_per_tensor(const TensorList& in, const Attrs& a) {
  const char* op = "fake_quantize_per_tensor";
  check_floating(op, "input", in[0]);
  check_scale(op, a.f("scale"));
  check_fake_range(op, a);
  return fake_outputs(in[0]);
}

std::vector<TensorMeta> infer_fake_quantize_per_channel(const TensorList& in, const Attrs& a) {
  const char* op = "fake_quantize_per_channel";
  check_floating(op, "input", in[0]);
  check_channel_args(op, in[0], in[1], in[2], a.i("axis"));
  check_fake_range(op, a);
  return fake_outputs(in[0]);
}

// See Note [Straight-through estimator]: the gradient where the value was not clamped.
TensorList backward_fake_quantize(BackwardContext& c) {
  TensorList grads(c.num_inputs());
  grads[0] = where(c.output(1), c.grad(), wrapped_scalar(0.0));
  return grads;
}

// ---- int8 linear and convolution --------------------------------------------------------

void check_int8_weight(const char* op, const Tensor& w) {
  if (w.dtype() != DType::i8)
    throw Error(std::string(op) + ": argument 'weight' must be i8 (quantized per channel, symmetric), got " +
                dtype_name(w.dtype()));
}

// weight_scales floating [channels]; bias floating [channels] or none.
void check_channel_params(const char* op, const Tensor& scales, const Tensor& b, int64_t channels) {
  check_floating(op, "weight_scales", scales);
  if (scales.dim() != 1 || scales.sizes()[0] != channels)
    throw Error(std::string(op) + ": argument 'weight_scales' of shape " + scales.shape_str() +
                " must have one element per output channel (" + str(channels) + ")");
  if (b.defined()) {
    check_floating(op, "bias", b);
    if (b.dim() != 1 || b.sizes()[0] != channels)
      throw Error(std::string(op) + ": argument 'bias' must have shape [" + str(channels) + "], got " + b.shape_str());
  }
}

// weight i8 [N, K], weight_scales floating [N], bias floating [N] or none, and the
// input's last dim K; returns the output shape [..., N].
Shape check_int8_linear(const char* op, const Tensor& x, const Tensor& w, const Tensor& scales, const Tensor& b) {
  NABLA_CHECK(x.defined() && x.dim() >= 1, std::string(op) + ": argument 'input' must have at least 1 dim");
  check_int8_weight(op, w);
  if (w.dim() != 2)
    throw Error(std::string(op) + ": argument 'weight' must be 2-D [out_features, in_features], got shape " +
                w.shape_str());
  int64_t N = w.sizes()[0], K = w.sizes()[1];
  if (x.sizes()[x.dim() - 1] != K)
    throw Error(std::string(op) + ": argument 'input' of shape " + x.shape_str() + " has " +
                str(x.sizes()[x.dim() - 1]) + " features but argument 'weight' of shape " + w.shape_str() +
                " expects " + str(K));
  check_channel_params(op, scales, b, N);
  Shape out = x.sizes();
  out.back() = N;
  return out;
}

// A quantized activation (u8 or i8) with its input_scale and input_zero_point.
void check_quantized_input(const char* op, const Tensor& x, const Attrs& a) {
  if (x.dtype() != DType::u8 && x.dtype() != DType::i8)
    throw Error(std::string(op) + ": argument 'input' must be u8 or i8 (a quantized activation), got " +
                dtype_name(x.dtype()));
  check_scale(op, a.f("input_scale"));
  int64_t lo, hi;
  quantized_range(x.dtype(), &lo, &hi);
  check_zero_point(op, "input_zero_point", a.i("input_zero_point"), lo, hi,
                   std::string("(the range of ") + dtype_name(x.dtype()) + ")");
}

// output_scale 0 (f32 output) or positive (u8 output, output_zero_point in [0, 255]);
// returns the output dtype.
DType check_output_attrs(const char* op, const Attrs& a) {
  double scale = a.f("output_scale");
  int64_t zero_point = a.i("output_zero_point");
  if (!(scale >= 0) || !std::isfinite(scale))
    throw Error(std::string(op) + ": argument 'output_scale' must be 0 (an f32 output) or positive and finite, got " +
                number_str(scale));
  if (scale == 0) {
    if (zero_point != 0)
      throw Error(std::string(op) + ": argument 'output_zero_point' is " + str(zero_point) +
                  " but 'output_scale' is 0 (an f32 output, which has no zero point)");
    return DType::f32;
  }
  check_zero_point(op, "output_zero_point", zero_point, 0, 255, "(the range of u8)");
  return DType::u8;
}

std::vector<TensorMeta> infer_quantized_linear(const TensorList& in, const Attrs& a) {
  const char* op = "quantized_linear";
  check_quantized_input(op, in[0], a);
  Shape out = check_int8_linear(op, in[0], in[1], in[2], in[3]);
  return one(out, check_output_attrs(op, a));
}

std::vector<TensorMeta> infer_dynamic_quantized_linear(const TensorList& in, const Attrs&) {
  const char* op = "dynamic_quantized_linear";
  check_floating(op, "input", in[0]);
  return one(check_int8_linear(op, in[0], in[1], in[2], in[3]), DType::f32);
}

std::vector<TensorMeta> infer_quantized_conv2d(const TensorList& in, const Attrs& a) {
  const char* op = "quantized_conv2d";
  const Tensor &x = in[0], &w = in[1];
  check_quantized_input(op, x, a);
  check_int8_weight(op, w);
  cpu::ConvNdGeometry g = check_conv(op, x.sizes(), "input", w.sizes(), "weight", a);
  check_channel_params(op, in[2], in[3], g.OC);
  return one(conv_out_shape(g), check_output_attrs(op, a));
}

// FLOPs: 2*M*N*K (the integer multiply-adds, counted as linear's are), plus for the
// dynamic row the activation's min/max and quantization (2 per input element).
OpCost cost_int8_linear(const TensorList& in, const Attrs&, const TensorList& out) {
  double mn = cost_numel(out[0]), k = static_cast<double>(in[1].sizes()[1]);
  double extra = in[0].dtype() == DType::u8 || in[0].dtype() == DType::i8 ? 0.0 : 2.0 * cost_numel(in[0]);
  return {2.0 * mn * k + mn * (in[3].defined() ? 2.0 : 1.0) + extra, io_bytes(in, out)};
}

// FLOPs: 2 * outputs * (C_in/groups) * kH * kW (as conv2d counts them), plus the
// scale (and the bias) per output element.
OpCost cost_quantized_conv2d(const TensorList& in, const Attrs&, const TensorList& out) {
  const Shape& w = in[1].sizes();
  double outputs = cost_numel(out[0]), macs = static_cast<double>(w[1]) * static_cast<double>(w[2] * w[3]);
  return {2.0 * outputs * macs + outputs * (in[3].defined() ? 2.0 : 1.0), io_bytes(in, out)};
}

// The attributes of the rows with a quantized input and an f32 or u8 output.
std::vector<AttrSpec> int8_attrs(std::vector<AttrSpec> between = {}) {
  std::vector<AttrSpec> specs{attr_required("input_scale", AttrKind::number),
                              attr_required("input_zero_point", AttrKind::integer)};
  specs.insert(specs.end(), between.begin(), between.end());
  specs.push_back(attr_optional("output_scale", AttrKind::number, 0.0));
  specs.push_back(attr_optional("output_zero_point", AttrKind::integer, int64_t{0}));
  specs.push_back(attr_optional("relu", AttrKind::boolean, false));
  return specs;
}

constexpr const char* kQuantCpuOnly = "the quantized kernels are CPU-only (oneDNN int8); no CUDA kernel yet";
constexpr const char* kStraightThrough =
    "straight-through estimator: the gradient passes where the value rounds inside [quant_min, quant_max]";

}  // namespace

void register_quant_ops(std::vector<OpDef>& t) {
  auto scale_attrs = [] {
    return std::vector<AttrSpec>{attr_required("scale", AttrKind::number), attr_required("zero_point", AttrKind::integer)};
  };
  row(t, OpId::quantize_per_tensor) = {
      .num_inputs = 1, .attrs = scale_attrs(), .infer = infer_quantize_per_tensor, .cpu = cpu::quantize_per_tensor};
  row(t, OpId::quantize_per_tensor).attrs.push_back(attr_required("dtype", AttrKind::dtype));
  row(t, OpId::quantize_per_channel) = {
      .num_inputs = 3,
      .attrs = {attr_required("axis", AttrKind::integer), attr_required("dtype", AttrKind::dtype)},
      .infer = infer_quantize_per_channel,
      .cpu = cpu::quantize_per_channel};
  row(t, OpId::dequantize_per_tensor) = {
      .num_inputs = 1, .attrs = scale_attrs(), .infer = infer_dequantize_per_tensor, .cpu = cpu::dequantize_per_tensor};
  row(t, OpId::dequantize_per_tensor).attrs.push_back(attr_optional("dtype", AttrKind::dtype, DType::f32));
  row(t, OpId::dequantize_per_channel) = {
      .num_inputs = 3,
      .attrs = {attr_required("axis", AttrKind::integer), attr_optional("dtype", AttrKind::dtype, DType::f32)},
      .infer = infer_dequantize_per_channel,
      .cpu = cpu::dequantize_per_channel};
  row(t, OpId::fake_quantize_per_tensor) = {
      .num_inputs = 1,
      .num_outputs = 2,
      .attrs = scale_attrs(),
      .infer = infer_fake_quantize_per_tensor,
      .cpu = cpu::fake_quantize_per_tensor,
      .backward = backward_fake_quantize,
      .saves = {0, 0b10},
      .nondiff_outputs = 0b10,
      .straight_through = kStraightThrough};
  for (const char* bound : {"quant_min", "quant_max"})
    row(t, OpId::fake_quantize_per_tensor).attrs.push_back(attr_required(bound, AttrKind::integer));
  row(t, OpId::fake_quantize_per_channel) = {
      .num_inputs = 3,
      .num_outputs = 2,
      .attrs = {attr_required("axis", AttrKind::integer), attr_required("quant_min", AttrKind::integer),
                attr_required("quant_max", AttrKind::integer)},
      .infer = infer_fake_quantize_per_channel,
      .cpu = cpu::fake_quantize_per_channel,
      .backward = backward_fake_quantize,
      .saves = {0, 0b10},
      .nondiff_outputs = 0b10,
      .straight_through = kStraightThrough};
  row(t, OpId::quantized_linear) = {
      .num_inputs = 4, .attrs = int8_attrs(), .infer = infer_quantized_linear, .cpu = cpu::quantized_linear,
      .cost = cost_int8_linear};
  row(t, OpId::quantized_conv2d) = {.num_inputs = 4,
                                    .attrs = int8_attrs(conv_attrs()),
                                    .infer = infer_quantized_conv2d,
                                    .cpu = cpu::quantized_conv2d,
                                    .cost = cost_quantized_conv2d};
  row(t, OpId::dynamic_quantized_linear) = {
      .num_inputs = 4,
      .attrs = {attr_optional("reduce_range", AttrKind::boolean, false)},
      .infer = infer_dynamic_quantized_linear,
      .cpu = cpu::dynamic_quantized_linear,
      .cost = cost_int8_linear};
  for (OpId id : {OpId::quantized_linear, OpId::dynamic_quantized_linear, OpId::quantized_conv2d})
    row(t, id).optional_inputs = 0b1000;  // bias
  for (OpId id : {OpId::quantize_per_tensor, OpId::quantize_per_channel, OpId::dequantize_per_tensor,
                  OpId::dequantize_per_channel, OpId::fake_quantize_per_tensor, OpId::fake_quantize_per_channel,
                  OpId::quantized_linear, OpId::dynamic_quantized_linear, OpId::quantized_conv2d})
    row(t, id).cpu_only = kQuantCpuOnly;
  name_inputs(t, {{OpId::quantize_per_tensor, {"input"}},
                  {OpId::quantize_per_channel, {"input", "scales", "zero_points"}},
                  {OpId::dequantize_per_tensor, {"input"}},
                  {OpId::dequantize_per_channel, {"input", "scales", "zero_points"}},
                  {OpId::fake_quantize_per_tensor, {"input"}},
                  {OpId::fake_quantize_per_channel, {"input", "scales", "zero_points"}},
                  {OpId::quantized_linear, {"input", "weight", "weight_scales", "bias"}},
                  {OpId::dynamic_quantized_linear, {"input", "weight", "weight_scales", "bias"}},
                  {OpId::quantized_conv2d, {"input", "weight", "weight_scales", "bias"}}});
  // What :help prints for each op of this family; tests/interp/op_docs.cpp runs every example.
  document_ops(
      t,
      {{OpId::quantize_per_tensor,
        "round(input / scale) + zero_point clamped to dtype's range (i8 or u8), as "
        "torch.quantize_per_tensor's integer values. "
        "Example: quantize_per_tensor(randn(4), scale=0.1, zero_point=0, dtype=i8)"},
       {OpId::quantize_per_channel,
        "quantize_per_tensor with one scale and zero point per slice along axis, as "
        "torch.quantize_per_channel's integer values. "
        "Example: quantize_per_channel(randn(3, 4), full([3], 0.1), zeros(3, dtype=i64), axis=0, dtype=i8)"},
       {OpId::dequantize_per_tensor,
        "(input - zero_point) * scale of an integer tensor, in dtype, as torch.dequantize. "
        "Example: dequantize_per_tensor(tensor([10, -5], dtype=i8), scale=0.1, zero_point=0)"},
       {OpId::dequantize_per_channel,
        "dequantize_per_tensor with one scale and zero point per slice along axis, as torch.dequantize of a "
        "per-channel tensor. "
        "Example: dequantize_per_channel(tensor([[10], [-5]], dtype=i8), tensor([0.1, 0.2]), zeros(2, dtype=i64), "
        "axis=0)"},
       {OpId::fake_quantize_per_tensor,
        "input rounded to the integer grid of scale and zero_point within [quant_min, quant_max] and back "
        "to floats, with a straight-through gradient, as torch.fake_quantize_per_tensor_affine. "
        "Example: fake_quantize_per_tensor(randn(4), 0.1, 0, -128, 127)"},
       {OpId::fake_quantize_per_channel,
        "fake_quantize_per_tensor with one scale and zero point per slice along axis, as "
        "torch.fake_quantize_per_channel_affine. "
        "Example: fake_quantize_per_channel(randn(3, 4), full([3], 0.1), zeros(3, dtype=i64), 0, -128, 127)"},
       {OpId::quantized_linear,
        "The int8 linear of quantized activations input (u8 or i8, input_scale, input_zero_point) and "
        "per-channel i8 weight, in f32 or, given output_scale, requantized to u8 (relu first if asked), as "
        "torch.ops.quantized.linear. "
        "Example: quantized_linear(quantize_per_tensor(randn(2, 4), 0.1, 0, i8), quantize_per_tensor(randn(3, 4), 0.1, "
        "0, i8), full([3], 0.1), input_scale=0.1, input_zero_point=0)"},
       {OpId::dynamic_quantized_linear,
        "The linear of float input and per-channel i8 weight, quantizing the input per call from its range, "
        "as torch.ops.quantized.linear_dynamic. "
        "Example: dynamic_quantized_linear(randn(2, 4), quantize_per_tensor(randn(3, 4), 0.1, 0, i8), full([3], 0.1))"},
       {OpId::quantized_conv2d,
        "The int8 conv2d of quantized activations input (u8 or i8, input_scale, input_zero_point) and "
        "per-channel i8 weight, in f32 or, given output_scale, requantized to u8 (relu first if asked), as "
        "torch.ops.quantized.conv2d. "
        "Example: quantized_conv2d(quantize_per_tensor(randn(1, 2, 5, 5), 0.1, 0, i8), quantize_per_tensor(randn(3, 2, "
        "3, 3), 0.1, 0, i8), full([3], 0.1), input_scale=0.1, input_zero_point=0)"}});
}

Tensor quantize_per_tensor(const Tensor& x, double scale, int64_t zero_point, DType dtype) {
  return call1(OpId::quantize_per_tensor, {x}, {{"scale", scale}, {"zero_point", zero_point}, {"dtype", dtype}});
}

Tensor quantize_per_channel(const Tensor& x, const Tensor& scales, const Tensor& zero_points, int64_t axis,
                            DType dtype) {
  return call1(OpId::quantize_per_channel, {x, scales, zero_points}, {{"axis", axis}, {"dtype", dtype}});
}

Tensor dequantize_per_tensor(const Tensor& q, double scale, int64_t zero_point, DType dtype) {
  return call1(OpId::dequantize_per_tensor, {q}, {{"scale", scale}, {"zero_point", zero_point}, {"dtype", dtype}});
}

Tensor dequantize_per_channel(const Tensor& q, const Tensor& scales, const Tensor& zero_points, int64_t axis,
                              DType dtype) {
  return call1(OpId::dequantize_per_channel, {q, scales, zero_points}, {{"axis", axis}, {"dtype", dtype}});
}

Tensor fake_quantize_per_tensor(const Tensor& x, double scale, int64_t zero_point, int64_t quant_min,
                                int64_t quant_max) {
  return call(OpId::fake_quantize_per_tensor, {x},
              {{"scale", scale}, {"zero_point", zero_point}, {"quant_min", quant_min}, {"quant_max", quant_max}})[0];
}

Tensor fake_quantize_per_channel(const Tensor& x, const Tensor& scales, const Tensor& zero_points, int64_t axis,
                                 int64_t quant_min, int64_t quant_max) {
  return call(OpId::fake_quantize_per_channel, {x, scales, zero_points},
              {{"axis", axis}, {"quant_min", quant_min}, {"quant_max", quant_max}})[0];
}

namespace {

Attrs int8_call_attrs(double input_scale, int64_t input_zero_point, double output_scale, int64_t output_zero_point,
                      bool relu) {
  return {{"input_scale", input_scale},
          {"input_zero_point", input_zero_point},
          {"output_scale", output_scale},
          {"output_zero_point", output_zero_point},
          {"relu", relu}};
}

}  // namespace

Tensor quantized_linear(const Tensor& x, double input_scale, int64_t input_zero_point, const Tensor& weight,
                        const Tensor& weight_scales, const Tensor& bias, double output_scale,
                        int64_t output_zero_point, bool relu) {
  return call1(OpId::quantized_linear, {x, weight, weight_scales, bias},
               int8_call_attrs(input_scale, input_zero_point, output_scale, output_zero_point, relu));
}

Tensor quantized_conv2d(const Tensor& x, double input_scale, int64_t input_zero_point, const Tensor& weight,
                        const Tensor& weight_scales, const Tensor& bias, const Conv2dOptions& opt,
                        double output_scale, int64_t output_zero_point, bool relu) {
  Attrs a = int8_call_attrs(input_scale, input_zero_point, output_scale, output_zero_point, relu);
  a.set("stride", opt.stride);
  a.set("padding", opt.padding);
  a.set("dilation", opt.dilation);
  a.set("groups", opt.groups);
  return call1(OpId::quantized_conv2d, {x, weight, weight_scales, bias}, a);
}

Tensor dynamic_quantized_linear(const Tensor& x, const Tensor& weight, const Tensor& weight_scales, const Tensor& bias,
                                bool reduce_range) {
  return call1(OpId::dynamic_quantized_linear, {x, weight, weight_scales, bias}, {{"reduce_range", reduce_range}});
}

}  // namespace nabla
