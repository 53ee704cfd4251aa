// Rows of matmul and linear.
#include "autograd/cost.hpp"
#include "autograd/ops/common.hpp"

namespace nabla {

namespace {

// Integer matrices multiply on the CPU, as PyTorch's (its CUDA matmul has no integer
// kernel either); bool has none.
void check_matmul_dtypes(const Tensor& a, const Tensor& b) {
  const bool integers = !is_floating(a.dtype()) && !is_floating(b.dtype()) && a.dtype() != DType::b8 &&
                        b.dtype() != DType::b8;
  if (!integers) return check_same_float("matmul", a, "self", b, "other");
  if (a.dtype() != b.dtype())
    throw Error(std::string("matmul: arguments 'self' and 'other' must have the same dtype, got ") +
                dtype_name(a.dtype()) + " and " + dtype_name(b.dtype()));
  if (a.device().kind != DeviceKind::cpu || b.device().kind != DeviceKind::cpu)
    throw Error(std::string("matmul: integer matrices (") + dtype_name(a.dtype()) +
                ") multiply on the CPU only, as in PyTorch: convert to a floating dtype on CUDA");
}

std::vector<TensorMeta> infer_matmul(const TensorList& in, const Attrs&) {
  const Tensor &a = in[0], &b = in[1];
  check_matmul_dtypes(a, b);
  NABLA_CHECK(a.dim() >= 2 && b.dim() >= 2,
              "matmul: the row needs tensors of at least 2 dims (the API unsqueezes 1-D)");
  int64_t k = a.sizes()[a.dim() - 1], k2 = b.sizes()[b.dim() - 2];
  if (k != k2)
    throw Error("matmul: argument 'other' of shape " + b.shape_str() + " has " + std::to_string(k2) +
                " rows but argument 'self' of shape " + a.shape_str() + " has " + std::to_string(k) + " columns");
  Shape batch_a(a.sizes().begin(), a.sizes().end() - 2), batch_b(b.sizes().begin(), b.sizes().end() - 2);
  Shape out = broadcast_shapes("matmul", batch_a, batch_b);
  out.push_back(a.sizes()[a.dim() - 2]);
  out.push_back(b.sizes()[b.dim() - 1]);
  return one(out, a.dtype());
}

TensorList backward_matmul(BackwardContext& c) {
  Tensor ga, gb;
  if (c.needs_grad(0)) ga = reduce_to_shape(matmul(c.grad(), transpose(c.input(1), -1, -2)), c.input_shape(0));
  if (c.needs_grad(1)) gb = reduce_to_shape(matmul(transpose(c.input(0), -1, -2), c.grad()), c.input_shape(1));
  return {ga, gb};
}

std::vector<TensorMeta> infer_linear(const TensorList& in, const Attrs&) {
  const Tensor &x = in[0], &w = in[1], &b = in[2];
  check_same_float("linear", x, "input", w, "weight");
  NABLA_CHECK(w.dim() == 2,
              "linear: argument 'weight' must be 2-D [out_features, in_features], got shape " + w.shape_str());
  NABLA_CHECK(x.dim() >= 1, "linear: argument 'input' must have at least 1 dim");
  if (x.sizes()[x.dim() - 1] != w.sizes()[1])
    throw Error("linear: argument 'input' of shape " + x.shape_str() + " has " +
                std::to_string(x.sizes()[x.dim() - 1]) + " features but argument 'weight' of shape " + w.shape_str() +
                " expects " + std::to_string(w.sizes()[1]));
  if (b.defined()) {
    NABLA_CHECK(b.dtype() == x.dtype(),
                "linear: argument 'bias' must have dtype " + std::string(dtype_name(x.dtype())));
    if (!(b.dim() == 1 && b.sizes()[0] == w.sizes()[0]))
      throw Error("linear: argument 'bias' must have shape [" + std::to_string(w.sizes()[0]) + "], got " +
                  b.shape_str());
  }
  Shape out = x.sizes();
  out.back() = w.sizes()[0];
  return one(out, x.dtype());
}

TensorList backward_linear(BackwardContext& c) {
  Tensor g = c.grad();
  const Shape& wshape = c.input_shape(1);
  Tensor gx, gw, gb;
  if (c.needs_grad(0)) gx = matmul(g, c.input(1));
  Tensor g2 = reshape(g, {-1, wshape[0]});
  if (c.needs_grad(1)) gw = matmul(transpose(g2, 0, 1), reshape(c.input(0), {-1, wshape[1]}));
  if (c.needs_grad(2)) gb = sum(g2, {0});
  return {gx, gw, gb};
}

// FLOPs: 2*M*N*K per matrix product (a multiply-add is 2, as torch.utils.flop_counter
// and fvcore count), times the broadcast batch of the output; bytes: both operands
// as given (a broadcast batch is read once) and the output.
OpCost cost_matmul(const TensorList& in, const Attrs&, const TensorList& out) {
  const Shape& o = out[0].sizes();
  double m = static_cast<double>(o[o.size() - 2]), n = static_cast<double>(o.back());
  double k = static_cast<double>(in[0].sizes().back());
  double batch = m * n > 0 ? cost_numel(out[0]) / (m * n) : 0.0;
  return {2.0 * batch * m * n * k, io_bytes(in, out)};
}

// FLOPs: 2*M*N*K for x[M, K] W^T[K, N] (M: all leading dims of x), plus M*N adds
// for a bias; bytes: x, W, the bias and the output.
OpCost cost_linear(const TensorList& in, const Attrs&, const TensorList& out) {
  double mn = cost_numel(out[0]), k = static_cast<double>(in[1].sizes()[1]);
  return {2.0 * mn * k + (in[2].defined() ? mn : 0.0), io_bytes(in, out)};
}

}  // namespace

void register_linalg_ops(std::vector<OpDef>& t) {
  row(t, OpId::matmul) = {
      .num_inputs = 2, .infer = infer_matmul, .cpu = cpu::matmul, .backward = backward_matmul, .saves = {0b11, 0}};
  row(t, OpId::matmul).cost = cost_matmul;
  row(t, OpId::linear) = {
      .num_inputs = 3, .infer = infer_linear, .cpu = cpu::linear, .backward = backward_linear, .saves = {0b011, 0}};
  row(t, OpId::linear).cost = cost_linear;
  row(t, OpId::linear).optional_inputs = 0b100;  // bias
  name_inputs(t, {{OpId::matmul, {"self", "other"}}, {OpId::linear, {"input", "weight", "bias"}}});
  // What :help prints for each op of this family; tests/interp/op_docs.cpp runs every example.
  document_ops(t, {{OpId::matmul,
                    "The matrix product with PyTorch's batching and broadcasting, a 1-D operand taken as a vector (the "
                    "@ operator), as torch.matmul; integer matrices multiply on the CPU, wrapping as PyTorch's. "
                    "Example: matmul(randn(2, 3), randn(3, 4))"},
                   {OpId::linear,
                    "input @ weight^T + bias, weight of shape [out_features, in_features], as "
                    "torch.nn.functional.linear. "
                    "Example: linear(randn(2, 4), randn(3, 4), bias=zeros(3))"}});
}

Tensor matmul(const Tensor& a, const Tensor& b) {
  NABLA_CHECK(a.dim() >= 1 && b.dim() >= 1,
              "matmul: both arguments need at least 1 dim, got shapes " + a.shape_str() + " and " + b.shape_str());
  // 1-D operands follow torch.matmul: a vector is a row (left) or a column (right).
  if (a.dim() == 1 && b.dim() == 1) return reshape(call1(OpId::matmul, {unsqueeze(a, 0), unsqueeze(b, 1)}), {});
  if (a.dim() == 1) return squeeze(call1(OpId::matmul, {unsqueeze(a, 0), b}), {-2});
  if (b.dim() == 1) return squeeze(call1(OpId::matmul, {a, unsqueeze(b, 1)}), {-1});
  return call1(OpId::matmul, {a, b});
}

Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  return call1(OpId::linear, {x, weight, bias});
}

}  // namespace nabla
