// The mapping of the op table's network ops to ONNX (opset 17): linear algebra,
// attention, convolution, pooling, normalization, resampling, losses; and the rows
// ONNX cannot express (gradient ops, collectives). See Note [Every op mapped or
// refused] in op_mapping.cpp.
#include <cmath>
#include <limits>

#include "graph/onnx/writer.hpp"

namespace nabla::graph::onnx_export {

namespace {

constexpr int64_t kReductionNone = 0, kReductionMean = 1;  // the loss rows' reduction codes
constexpr int64_t kInterpolateNearest = 0, kInterpolateLinear = 1;
constexpr int64_t kPadConstant = 0, kPadReflect = 1, kPadReplicate = 2;
// Resize's nearest_mode for PyTorch's nearest: the cell at the floor of the source
// coordinate (with coordinate_transformation_mode "asymmetric").
constexpr const char* kNearestFloor = "floor";


void require_inference(NodeEmit& e) {
  if (e.n.attrs.b("training"))
    e.unsupported("training mode (batch statistics, random masks); call model.eval() before compiling for export");
}

// ---- linear algebra and attention ----------------------------------------------

std::string transposed_last_two(NodeEmit& e, const std::string& x, int64_t rank) {
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < rank; ++d) perm.push_back(d);
  std::swap(perm[static_cast<size_t>(rank - 1)], perm[static_cast<size_t>(rank - 2)]);
  return e.w.op_with("Transpose", {x}, [&](auto& n) { set_ints(n, "perm", perm); });
}

// linear(x, W, b) = x W^T + b: Gemm for a 2-D x, MatMul (and Add) otherwise.
void linear(NodeEmit& e) {
  bool bias = e.has_input(2);
  if (e.rank() == 2) {
    std::vector<std::string> ins{e.in(0), e.in(1)};
    if (bias) ins.push_back(e.in(2));
    return set_int(e.w.node("Gemm", ins, {e.out()}), "transB", 1);
  }
  std::string product = e.w.op("MatMul", {e.in(0), transposed_last_two(e, e.in(1), 2)});
  if (!bias) return e.assign(0, product);
  e.w.node("Add", {product, e.in(2)}, {e.out()});
}

// softmax(q k^T * scale (+ mask)) v, as attention_weights in autograd/ops/attention.cpp.
void attention(NodeEmit& e) {
  const Attrs& a = e.n.attrs;
  if (a.f("dropout_p") != 0.0) e.unsupported("attention dropout (dropout_p > 0) is random; export in eval mode");
  const Shape& q = e.in_meta(0).sizes;
  const Shape& k = e.in_meta(1).sizes;
  if (a.b("enable_gqa") && q[q.size() - 3] != k[k.size() - 3])
    e.unsupported("grouped-query attention (enable_gqa with fewer key heads)");
  int64_t L = q[q.size() - 2], S = k[k.size() - 2], E = q.back();
  double scale = a.is_none("scale") ? 1.0 / std::sqrt(static_cast<double>(E)) : a.f("scale");
  DType dt = e.out_meta(0).dtype;
  std::string scores = e.w.op("MatMul", {e.in(0), transposed_last_two(e, e.in(1), static_cast<int64_t>(k.size()))});
  scores = e.w.op("Mul", {scores, e.w.scalar(scale, dt)});
  std::string neg_inf = e.w.scalar(-std::numeric_limits<double>::infinity(), dt);
  if (a.b("is_causal")) {
    Tensor keep = full({L, S}, 0.0, DType::b8);
    for (int64_t i = 0; i < L; ++i)
      for (int64_t j = 0; j <= i && j < S; ++j) keep.data<bool>()[i * S + j] = true;
    scores = e.w.op("Where", {e.w.tensor(keep), scores, neg_inf});
  }
  if (e.has_input(3))
    scores = e.in_meta(3).dtype == DType::b8 ? e.w.op("Where", {e.in(3), scores, neg_inf})
                                             : e.w.op("Add", {scores, e.in_as(3, dt)});
  std::string weights = e.w.op_with("Softmax", {scores}, [](auto& n) { set_int(n, "axis", -1); });
  e.w.node("MatMul", {weights, e.in(2)}, {e.out(0)});
  if (e.output_used(1)) e.assign(1, e.w.tensor(empty(e.out_meta(1).sizes, e.out_meta(1).dtype)));
}

// ---- convolution and pooling -------------------------------------------------------

::onnx::NodeProto& convolution(NodeEmit& e, const char* op_type) {
  std::vector<std::string> ins{e.in(0), e.in(1)};
  if (e.has_input(2)) ins.push_back(e.in(2));
  auto& n = e.w.node(op_type, ins, {e.out()});
  set_conv_attrs(n, e.n.attrs);
  return n;
}

void conv(NodeEmit& e) { convolution(e, "Conv"); }

void conv_transpose(NodeEmit& e) { set_ints(convolution(e, "ConvTranspose"), "output_padding", e.n.attrs.ints("output_padding")); }

std::vector<int64_t> stride_or_kernel(const Attrs& a) {
  return a.is_none("stride") || a.ints("stride").empty() ? a.ints("kernel_size") : a.ints("stride");
}

// The indices of max pooling count within each [N, C] plane in nabla (PyTorch);
// ONNX's count over the whole tensor: subtract each plane's offset.
void plane_indices(NodeEmit& e, const std::string& onnx_indices) {
  const Shape& in = e.in_meta(0).sizes;
  int64_t plane = 1;
  for (size_t d = 2; d < in.size(); ++d) plane *= in[d];
  Shape offset_shape{in[0], in[1]};
  for (size_t d = 2; d < in.size(); ++d) offset_shape.push_back(1);
  Tensor offsets = empty(offset_shape, DType::i64);
  for (int64_t k = 0; k < in[0] * in[1]; ++k) offsets.data<int64_t>()[k] = k * plane;
  e.w.node("Sub", {onnx_indices, e.w.tensor(offsets)}, {e.out(1)});
}

void max_pool(NodeEmit& e) {
  const Attrs& a = e.n.attrs;
  bool indices = e.output_used(1);
  std::string raw_indices = indices ? e.w.fresh("indices") : "";
  std::vector<std::string> outs{e.out(0)};
  if (indices) outs.push_back(raw_indices);
  auto& n = e.w.node("MaxPool", {e.in(0)}, outs);
  set_ints(n, "kernel_shape", a.ints("kernel_size"));
  set_ints(n, "strides", stride_or_kernel(a));
  set_ints(n, "pads", both_sides(a.ints("padding")));
  set_ints(n, "dilations", a.ints("dilation"));
  set_int(n, "ceil_mode", a.b("ceil_mode"));
  if (indices) plane_indices(e, raw_indices);
}

void avg_pool(NodeEmit& e) {
  const Attrs& a = e.n.attrs;
  auto& n = e.w.node("AveragePool", {e.in(0)}, {e.out()});
  set_ints(n, "kernel_shape", a.ints("kernel_size"));
  set_ints(n, "strides", stride_or_kernel(a));
  set_ints(n, "pads", both_sides(a.ints("padding")));
  set_int(n, "ceil_mode", a.b("ceil_mode"));
  set_int(n, "count_include_pad", a.b("count_include_pad"));
}

// Adaptive pooling: a global pool for output 1, a plain pool when every input size is
// a multiple of the output size (equal windows); uneven windows have no ONNX form.
void adaptive_pool(NodeEmit& e, const char* global_op, const char* pool_op) {
  if (e.n.outputs.size() > 1 && e.output_used(1)) e.unsupported("the indices of adaptive max pooling");
  const Shape& in = e.in_meta(0).sizes;
  const Shape& out = e.out_meta(0).sizes;
  std::vector<int64_t> kernel;
  bool global = true;
  for (size_t d = 2; d < in.size(); ++d) {
    if (in[d] % out[d] != 0)
      e.unsupported("adaptive pooling from " + std::to_string(in[d]) + " to " + std::to_string(out[d]) +
                    " (uneven windows; ONNX pools with one window size)");
    kernel.push_back(in[d] / out[d]);
    global = global && out[d] == 1;
  }
  if (global) return (void)e.w.node(global_op, {e.in(0)}, {e.out(0)});
  auto& n = e.w.node(pool_op, {e.in(0)}, {e.out(0)});
  set_ints(n, "kernel_shape", kernel);
  set_ints(n, "strides", kernel);
}

// ---- normalization -------------------------------------------------------------------

// An optional per-channel input, or `value` everywhere when it is absent.
std::string input_or_filled(NodeEmit& e, size_t k, int64_t channels, double value) {
  return e.has_input(k) ? e.in(k) : e.w.filled({channels}, value, e.out_meta().dtype);
}

void batch_norm(NodeEmit& e) {
  require_inference(e);
  if (!e.has_input(3) || !e.has_input(4)) e.unsupported("batch_norm without running statistics uses the batch's");
  int64_t channels = e.in_meta(0).sizes[1];
  auto& n = e.w.node("BatchNormalization",
                     {e.in(0), input_or_filled(e, 1, channels, 1.0), input_or_filled(e, 2, channels, 0.0), e.in(3),
                      e.in(4)},
                     {e.out()});
  set_float(n, "epsilon", static_cast<float>(e.n.attrs.f("eps")));
}

void layer_norm(NodeEmit& e) {
  const std::vector<int64_t>& shape = e.n.attrs.ints("normalized_shape");
  std::string scale = e.has_input(1) ? e.in(1) : e.w.filled(Shape(shape.begin(), shape.end()), 1.0, e.out_meta().dtype);
  std::vector<std::string> ins{e.in(0), scale};
  if (e.has_input(2)) ins.push_back(e.in(2));
  auto& n = e.w.node("LayerNormalization", ins, {e.out()});
  set_int(n, "axis", -static_cast<int64_t>(shape.size()));
  set_float(n, "epsilon", static_cast<float>(e.n.attrs.f("eps")));
}

// [N, C, ...] normalized per group of C / G channels: InstanceNormalization of the
// input seen as [N, G, rest] (GroupNormalization is opset 18), then the affine part.
void group_norm(NodeEmit& e) {
  const Shape& in = e.in_meta(0).sizes;
  int64_t groups = e.n.attrs.i("num_groups"), channels = in[1];
  DType dt = e.out_meta().dtype;
  std::string grouped = e.w.op("Reshape", {e.in(0), e.w.ints({in[0], groups, -1})});
  std::string normalized = e.w.op_with(
      "InstanceNormalization", {grouped, e.w.filled({groups}, 1.0, dt), e.w.filled({groups}, 0.0, dt)},
      [&](auto& n) { set_float(n, "epsilon", static_cast<float>(e.n.attrs.f("eps"))); });
  std::vector<int64_t> shape(in.begin(), in.end()), per_channel{channels};
  for (size_t d = 2; d < in.size(); ++d) per_channel.push_back(1);
  std::string y = e.w.op("Reshape", {normalized, e.w.ints(shape)});
  if (e.has_input(1)) y = e.w.op("Mul", {y, e.w.op("Reshape", {e.in(1), e.w.ints(per_channel)})});
  if (e.has_input(2)) y = e.w.op("Add", {y, e.w.op("Reshape", {e.in(2), e.w.ints(per_channel)})});
  e.assign(0, y);
}

// x * rsqrt(mean(x^2 over the normalized dims) + eps) * weight; eps none: the dtype's epsilon.
void rms_norm(NodeEmit& e) {
  size_t dims = e.n.attrs.ints("normalized_shape").size();
  std::vector<int64_t> axes;
  for (int64_t d = e.rank() - static_cast<int64_t>(dims); d < e.rank(); ++d) axes.push_back(d);
  DType dt = e.out_meta().dtype;
  double eps = e.n.attrs.is_none("eps") ? (dt == DType::f64 ? std::numeric_limits<double>::epsilon()
                                                            : std::numeric_limits<float>::epsilon())
                                        : e.n.attrs.f("eps");
  std::string x = e.in(0);
  std::string mean = e.w.op_with("ReduceMean", {e.w.op("Mul", {x, x})}, [&](auto& n) {
    set_ints(n, "axes", axes);
    set_int(n, "keepdims", 1);
  });
  std::string inv = e.w.op("Reciprocal", {e.w.op("Sqrt", {e.w.op("Add", {mean, e.constant(eps)})})});
  std::string y = e.w.op("Mul", {x, inv});
  if (!e.has_input(1)) return e.assign(0, y);
  e.w.node("Mul", {y, e.in(1)}, {e.out()});
}

void dropout(NodeEmit& e) {  // inference: the identity (its mask output is unused in eval)
  require_inference(e);
  if (e.output_used(1)) e.unsupported("the mask of dropout");
  e.assign(0, e.in(0));
}

// ---- resampling and padding --------------------------------------------------------

void interpolate(NodeEmit& e) {
  int64_t mode = e.n.attrs.i("mode");
  if (mode != kInterpolateNearest && mode != kInterpolateLinear)
    e.unsupported("interpolate's bicubic and area modes (only nearest and (bi)linear are mapped)");
  std::vector<int64_t> sizes(e.out_meta().sizes.begin(), e.out_meta().sizes.end());
  auto& n = e.w.node("Resize", {e.in(0), "", "", e.w.ints(sizes)}, {e.out()});
  if (mode == kInterpolateNearest) {
    set_string(n, "mode", "nearest");
    set_string(n, "coordinate_transformation_mode", "asymmetric");
    set_string(n, "nearest_mode", kNearestFloor);
    return;
  }
  set_string(n, "mode", "linear");
  set_string(n, "coordinate_transformation_mode", e.n.attrs.b("align_corners") ? "align_corners" : "pytorch_half_pixel");
}

// pad's list runs last dim first, (begin, end) pairs; ONNX's is every begin, then every end.
void pad(NodeEmit& e) {
  const std::vector<int64_t>& p = e.n.attrs.ints("pad");
  int64_t rank = e.rank(), mode = e.n.attrs.i("mode");
  std::vector<int64_t> begins(static_cast<size_t>(rank), 0), ends(static_cast<size_t>(rank), 0);
  for (size_t k = 0; k + 1 < p.size(); k += 2) {
    size_t dim = static_cast<size_t>(rank - 1 - static_cast<int64_t>(k / 2));
    begins[dim] = p[k];
    ends[dim] = p[k + 1];
  }
  begins.insert(begins.end(), ends.begin(), ends.end());
  if (mode != kPadConstant && mode != kPadReflect && mode != kPadReplicate)
    e.unsupported("circular padding (ONNX's wrap mode is opset 19)");
  std::vector<std::string> ins{e.in(0), e.w.ints(begins)};
  if (mode == kPadConstant) ins.push_back(e.constant(e.n.attrs.f("value")));
  auto& n = e.w.node("Pad", ins, {e.out()});
  set_string(n, "mode", mode == kPadConstant ? "constant" : mode == kPadReflect ? "reflect" : "edge");
}

// ---- losses -------------------------------------------------------------------------

std::string reduction_name(int64_t code) { return code == kReductionNone ? "none" : code == kReductionMean ? "mean" : "sum"; }

void class_loss(NodeEmit& e, const char* op_type) {
  if (e.n.attrs.has("label_smoothing") && e.n.attrs.f("label_smoothing") != 0.0)
    e.unsupported("label smoothing (SoftmaxCrossEntropyLoss has none)");
  auto& n = e.w.node(op_type, {e.in(0), e.in_as(1, DType::i64)}, {e.out()});
  set_string(n, "reduction", reduction_name(e.n.attrs.i("reduction")));
  set_int(n, "ignore_index", e.n.attrs.i("ignore_index"));
}

// The elementwise loss `per_item`, reduced as the row's reduction says.
void reduced_loss(NodeEmit& e, const std::string& per_item) {
  int64_t r = e.n.attrs.i("reduction");
  if (r == kReductionNone) return e.assign(0, per_item);
  std::string total = e.w.op_with(r == kReductionMean ? "ReduceMean" : "ReduceSum", {per_item},
                                  [](auto& n) { set_int(n, "keepdims", 0); });
  e.assign(0, total);
}

void mse_loss(NodeEmit& e) {
  DType dt = e.out_meta().dtype;
  std::string d = e.w.op("Sub", {e.in_as(0, dt), e.in_as(1, dt)});
  reduced_loss(e, e.w.op("Mul", {d, d}));
}

// -(t log x + (1 - t) log(1 - x)), each log clamped at -100 as PyTorch's.
void binary_cross_entropy(NodeEmit& e) {
  DType dt = e.out_meta().dtype;
  std::string x = e.in_as(0, dt), t = e.in_as(1, dt), one = e.constant(1.0), floor = e.constant(-100.0);
  std::string log_x = e.w.op("Max", {e.w.op("Log", {x}), floor});
  std::string log_1mx = e.w.op("Max", {e.w.op("Log", {e.w.op("Sub", {one, x})}), floor});
  std::string sum = e.w.op("Add", {e.w.op("Mul", {t, log_x}), e.w.op("Mul", {e.w.op("Sub", {one, t}), log_1mx})});
  reduced_loss(e, e.w.op("Neg", {sum}));
}

// max(x, 0) - x t + log(1 + exp(-|x|)), the stable form.
void binary_cross_entropy_with_logits(NodeEmit& e) {
  DType dt = e.out_meta().dtype;
  std::string x = e.in_as(0, dt), t = e.in_as(1, dt);
  std::string softplus = e.w.op("Softplus", {e.w.op("Neg", {e.w.op("Abs", {x})})});
  std::string relu = e.w.op("Relu", {x});
  reduced_loss(e, e.w.op("Add", {e.w.op("Sub", {relu, e.w.op("Mul", {x, t})}), softplus}));
}

}  // namespace

std::vector<MappingRow> nn_op_rows() {
  const char* gradient = "a gradient op, which only training graphs hold; export an inference graph (compile(train=false))";
  const char* collective =
      "a collective between processes (Note [Tensor-parallel regions], Note [Sharded parameters in a graph]); an ONNX "
      "graph runs in one";
  return {
      {OpId::matmul, [](NodeEmit& e) { emit_broadcast_binary(e, "MatMul"); }, nullptr},
      {OpId::det, [](NodeEmit& e) { e.w.node("Det", {e.in(0)}, {e.out()}); }, nullptr},
      {OpId::inverse, nullptr, "ONNX's standard opsets have no matrix inverse (only Microsoft's contrib Inverse)"},
      {OpId::linalg_solve, nullptr, "ONNX's standard opsets have no linear solve"},
      {OpId::cholesky, nullptr, "ONNX's standard opsets have no Cholesky factorization"},
      {OpId::eigh, nullptr, "ONNX's standard opsets have no eigendecomposition"},
      {OpId::svd, nullptr, "ONNX's standard opsets have no singular value decomposition"},
      {OpId::qr, nullptr, "ONNX's standard opsets have no QR factorization"},
      {OpId::linear, linear, nullptr},
      {OpId::scaled_dot_product_attention, attention, nullptr},
      {OpId::conv1d, conv, nullptr},
      {OpId::conv2d, conv, nullptr},
      {OpId::conv3d, conv, nullptr},
      {OpId::conv_transpose1d, conv_transpose, nullptr},
      {OpId::conv_transpose2d, conv_transpose, nullptr},
      {OpId::max_pool1d, max_pool, nullptr},
      {OpId::max_pool2d, max_pool, nullptr},
      {OpId::avg_pool1d, avg_pool, nullptr},
      {OpId::avg_pool2d, avg_pool, nullptr},
      {OpId::adaptive_avg_pool1d, [](NodeEmit& e) { adaptive_pool(e, "GlobalAveragePool", "AveragePool"); }, nullptr},
      {OpId::adaptive_avg_pool2d, [](NodeEmit& e) { adaptive_pool(e, "GlobalAveragePool", "AveragePool"); }, nullptr},
      {OpId::adaptive_max_pool2d, [](NodeEmit& e) { adaptive_pool(e, "GlobalMaxPool", "MaxPool"); }, nullptr},
      {OpId::batch_norm, batch_norm, nullptr},
      {OpId::layer_norm, layer_norm, nullptr},
      {OpId::group_norm, group_norm, nullptr},
      {OpId::rms_norm, rms_norm, nullptr},
      {OpId::dropout, dropout, nullptr},
      {OpId::interpolate, interpolate, nullptr},
      {OpId::pad, pad, nullptr},
      {OpId::cross_entropy, [](NodeEmit& e) { class_loss(e, "SoftmaxCrossEntropyLoss"); }, nullptr},
      {OpId::nll_loss, [](NodeEmit& e) { class_loss(e, "NegativeLogLikelihoodLoss"); }, nullptr},
      {OpId::mse_loss, mse_loss, nullptr},
      {OpId::binary_cross_entropy, binary_cross_entropy, nullptr},
      {OpId::binary_cross_entropy_with_logits, binary_cross_entropy_with_logits, nullptr},
      {OpId::conv2d_backward_input, nullptr, gradient},
      {OpId::conv2d_backward_weight, nullptr, gradient},
      {OpId::conv3d_backward_input, nullptr, gradient},
      {OpId::conv3d_backward_weight, nullptr, gradient},
      {OpId::avg_pool2d_backward, nullptr, gradient},
      {OpId::max_pool2d_backward, nullptr, gradient},
      {OpId::threshold_backward, nullptr, gradient},
      {OpId::batch_norm_backward, nullptr, gradient},
      {OpId::interpolate_backward, nullptr, gradient},
      {OpId::pad_backward, nullptr, gradient},
      {OpId::dist_copy, nullptr, collective},
      {OpId::dist_reduce, nullptr, collective},
      {OpId::dist_split, nullptr, collective},
      {OpId::dist_gather, nullptr, collective},
      {OpId::dist_shard_gather, nullptr, collective},
      {OpId::dist_shard_reduce, nullptr, collective},
  };
}

}  // namespace nabla::graph::onnx_export
