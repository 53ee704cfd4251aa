// The mapping of the op table's quantization rows to ONNX (opset 17).
//
// Note [Int8 in ONNX]
// An int8 linear or convolution (quantized_linear, quantized_conv2d, with or without
// the requantizing epilogue that passes/lower_quant.cpp folds in) is written as
//
//   MatMulInteger / ConvInteger(x u8, weight i8, x zero point)   the exact s32 sums
//   Cast to f32, Mul by input_scale * weight_scale[n], Add bias, Relu   Note [Int8 epilogue]
//   Mul by 1 / output_scale, QuantizeLinear(scale 1, output zero point)  u8 output
//
// and not as QLinearMatMul / QLinearConv, because those cannot give nabla's numbers:
// they quantize the bias to s32 and requantize with one folded multiplier
// (input_scale * weight_scale / output_scale), which rounds differently from nabla's
// epilogue (an f32 product, an f32 bias, then 1 / output_scale as fbgemm does) and so
// puts some outputs one level apart, and they have no f32-output form (the last layer
// of a network) and no relu for a nonzero output zero point. The weights stay i8 and
// the activations u8 in the file; only the epilogue is f32, as in nabla's kernel.
// Every quantize is a Mul by 1 / scale (in f32, as nabla's quantize computes it,
// Note [Affine quantization]) and a QuantizeLinear with scale 1, which then rounds
// half to even and saturates exactly as nabla does; QuantizeLinear(x, scale) would
// divide by the scale, which can round the other way at a tie.
#include "graph/onnx/writer.hpp"

namespace nabla::graph::onnx_export {

namespace {

// A zero point of the quantized dtype `dt` as a 0-dim initializer.
std::string zero_point(NodeEmit& e, int64_t zp, DType dt) { return e.w.scalar(static_cast<double>(zp), dt); }

// x * (1 / scale) in f32, then QuantizeLinear(scale 1, zero point) into `out`.
void quantize_into(NodeEmit& e, const std::string& x, double scale, int64_t zp, DType dt, const std::string& out) {
  float inv = 1.0f / static_cast<float>(scale);
  std::string scaled = e.w.op("Mul", {x, e.w.scalar(inv, DType::f32)});
  e.w.node("QuantizeLinear", {scaled, e.w.scalar(1.0, DType::f32), zero_point(e, zp, dt)}, {out});
}

void check_quantized_dtype(NodeEmit& e, DType dt) {
  if (dt != DType::u8 && dt != DType::i8)
    e.unsupported(std::string("quantizing to ") + dtype_name(dt) + " (QuantizeLinear writes u8 or i8 at opset 17)");
}

void quantize_per_tensor(NodeEmit& e) {
  DType dt = e.n.attrs.dtype("dtype");
  check_quantized_dtype(e, dt);
  quantize_into(e, e.in_as(0, DType::f32), e.n.attrs.f("scale"), e.n.attrs.i("zero_point"), dt, e.out());
}

void dequantize_per_tensor(NodeEmit& e) {
  DType q = e.in_meta(0).dtype;
  check_quantized_dtype(e, q);
  std::string x = e.w.op("DequantizeLinear", {e.in(0), e.w.scalar(e.n.attrs.f("scale"), DType::f32),
                                              zero_point(e, e.n.attrs.i("zero_point"), q)});
  e.assign(0, e.out_meta().dtype == DType::f32 ? x : e.w.cast(x, e.out_meta().dtype));
}

// A per-channel vector (input k) reshaped to broadcast along `axis` of a rank-r tensor.
std::string along_axis(NodeEmit& e, const std::string& v, int64_t axis, int64_t rank) {
  std::vector<int64_t> shape(static_cast<size_t>(rank), 1);
  shape[static_cast<size_t>(axis)] = -1;
  return e.w.op("Reshape", {v, e.w.ints(shape)});
}

std::string reciprocal_f32(NodeEmit& e, size_t k) { return e.w.op("Reciprocal", {e.in_as(k, DType::f32)}); }

void quantize_per_channel(NodeEmit& e) {
  DType dt = e.n.attrs.dtype("dtype");
  check_quantized_dtype(e, dt);
  int64_t axis = axis_of(e.n.attrs.i("axis"), e.rank());
  int64_t channels = e.in_meta(0).sizes[static_cast<size_t>(axis)];
  std::string scaled = e.w.op("Mul", {e.in_as(0, DType::f32), along_axis(e, reciprocal_f32(e, 1), axis, e.rank())});
  auto& n = e.w.node("QuantizeLinear", {scaled, e.w.filled({channels}, 1.0, DType::f32), e.in_as(2, dt)}, {e.out()});
  set_int(n, "axis", axis);
}

void dequantize_per_channel(NodeEmit& e) {
  DType q = e.in_meta(0).dtype;
  check_quantized_dtype(e, q);
  int64_t axis = axis_of(e.n.attrs.i("axis"), e.rank());
  std::string x = e.w.op_with("DequantizeLinear", {e.in(0), e.in_as(1, DType::f32), e.in_as(2, q)},
                              [&](auto& n) { set_int(n, "axis", axis); });
  e.assign(0, e.out_meta().dtype == DType::f32 ? x : e.w.cast(x, e.out_meta().dtype));
}

// (clamp(round(x / s) + z, qmin, qmax) - z) * s in x's dtype; `inv`, `scale` and `zp`
// broadcast against x. The mask output (inside the range) is for training only.
void fake_quantize(NodeEmit& e, const std::string& inv, const std::string& scale, const std::string& zp) {
  if (e.output_used(1)) e.unsupported("the mask of fake quantization (a training output)");
  DType dt = e.out_meta().dtype;
  std::string q = e.w.op("Add", {e.w.op("Round", {e.w.op("Mul", {e.in(0), inv})}), zp});
  q = e.w.op("Clip", {q, e.w.scalar(static_cast<double>(e.n.attrs.i("quant_min")), dt),
                      e.w.scalar(static_cast<double>(e.n.attrs.i("quant_max")), dt)});
  e.w.node("Mul", {e.w.op("Sub", {q, zp}), scale}, {e.out(0)});
}

void fake_quantize_per_tensor(NodeEmit& e) {
  DType dt = e.out_meta().dtype;
  float scale = static_cast<float>(e.n.attrs.f("scale"));
  fake_quantize(e, e.w.scalar(1.0f / scale, dt), e.w.scalar(scale, dt),
                e.w.scalar(static_cast<double>(e.n.attrs.i("zero_point")), dt));
}

void fake_quantize_per_channel(NodeEmit& e) {
  DType dt = e.out_meta().dtype;
  int64_t axis = axis_of(e.n.attrs.i("axis"), e.rank());
  std::string scale_f32 = e.in_as(1, DType::f32);
  auto typed = [&](const std::string& v) { return dt == DType::f32 ? v : e.w.cast(v, dt); };
  std::string inv = along_axis(e, typed(e.w.op("Reciprocal", {scale_f32})), axis, e.rank());
  fake_quantize(e, inv, along_axis(e, typed(scale_f32), axis, e.rank()),
                along_axis(e, e.in_as(2, dt), axis, e.rank()));
}

// ---- int8 linear and convolution (Note [Int8 in ONNX]) ------------------------------

// The f32 epilogue on the s32 sums, into the node's output: `channel_shape` puts
// the per-output-channel vectors where the channels are ([N] for linear, [C, 1, 1]).
void int8_epilogue(NodeEmit& e, const std::string& sums, const std::vector<int64_t>& channel_shape) {
  const Attrs& a = e.n.attrs;
  auto per_channel = [&](const std::string& v) { return e.w.op("Reshape", {v, e.w.ints(channel_shape)}); };
  std::string scale = e.w.op("Mul", {e.w.scalar(static_cast<float>(a.f("input_scale")), DType::f32),
                                     e.in_as(2, DType::f32)});
  std::string v = e.w.op("Mul", {e.w.cast(sums, DType::f32),
                                 per_channel(scale)});
  if (e.has_input(3)) v = e.w.op("Add", {v, per_channel(e.in_as(3, DType::f32))});
  if (a.b("relu")) v = e.w.op("Relu", {v});
  bool requantizes = a.has("output_scale") && a.f("output_scale") > 0;
  if (!requantizes) return e.assign(0, v);
  quantize_into(e, v, a.f("output_scale"), a.i("output_zero_point"), DType::u8, e.out());
}

std::string input_zero_point(NodeEmit& e) { return zero_point(e, e.n.attrs.i("input_zero_point"), e.in_meta(0).dtype); }

void quantized_linear(NodeEmit& e) {
  std::string weight_t = e.w.op_with("Transpose", {e.in(1)}, [](auto& n) { set_ints(n, "perm", {1, 0}); });
  std::string sums = e.w.op("MatMulInteger", {e.in(0), weight_t, input_zero_point(e)});
  int8_epilogue(e, sums, {-1});
}

void quantized_conv2d(NodeEmit& e) {
  std::string sums = e.w.op_with("ConvInteger", {e.in(0), e.in(1), input_zero_point(e)},
                                 [&](auto& n) { set_conv_attrs(n, e.n.attrs); });
  int8_epilogue(e, sums, {-1, 1, 1});
}

}  // namespace

std::vector<MappingRow> quant_op_rows() {
  return {
      {OpId::quantize_per_tensor, quantize_per_tensor, nullptr},
      {OpId::dequantize_per_tensor, dequantize_per_tensor, nullptr},
      {OpId::quantize_per_channel, quantize_per_channel, nullptr},
      {OpId::dequantize_per_channel, dequantize_per_channel, nullptr},
      {OpId::fake_quantize_per_tensor, fake_quantize_per_tensor, nullptr},
      {OpId::fake_quantize_per_channel, fake_quantize_per_channel, nullptr},
      {OpId::quantized_linear, quantized_linear, nullptr},
      {OpId::quantized_conv2d, quantized_conv2d, nullptr},
      {OpId::dynamic_quantized_linear, nullptr,
       "each batch's quantization parameters are chosen as PyTorch does (choose_quant_params), which "
       "DynamicQuantizeLinear computes differently, so its outputs would not be nabla's"},
  };
}

}  // namespace nabla::graph::onnx_export
