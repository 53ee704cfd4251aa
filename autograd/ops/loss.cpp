// Rows of the losses. Each has the attribute reduction: 0 none (one loss per element
// or target position), 1 mean, 2 sum (a 0-dim output). Backward rules are built from
// ops of the table, so grad of grad works; targets of the class losses are indices
// and get no gradient.
#include "autograd/cost.hpp"
#include "autograd/ops/common.hpp"

namespace nabla {

namespace {

constexpr int64_t kNone = 0, kMean = 1, kSum = 2;

AttrSpec reduction_attr() { return attr_optional("reduction", AttrKind::integer, kMean); }

// The output shape: one loss per element of `per_element`, or a scalar.
Shape loss_shape(const char* op, const Attrs& a, const Shape& per_element) {
  int64_t r = a.i("reduction");
  if (r != kNone && r != kMean && r != kSum)
    throw Error(std::string(op) + ": reduction must be 0 (none), 1 (mean) or 2 (sum), got " + std::to_string(r));
  return r == kNone ? per_element : Shape{};
}

// ---- losses of an input and a same-shape target ---------------------------------------

std::vector<TensorMeta> infer_pointwise(const char* op, const TensorList& in, const Attrs& a) {
  const Tensor &x = in[0], &t = in[1];
  check_floating(op, "input", x);
  check_floating(op, "target", t);
  if (!(x.sizes() == t.sizes()))
    throw Error(std::string(op) + ": argument 'target' of shape " + t.shape_str() +
                " must have the shape of argument 'input', " + x.shape_str());
  if (x.dtype() != t.dtype())
    throw Error(std::string(op) + ": arguments 'input' and 'target' must have the same dtype, got " +
                dtype_name(x.dtype()) + " and " + dtype_name(t.dtype()));
  return one(loss_shape(op, a, x.sizes()), x.dtype());
}
std::vector<TensorMeta> infer_mse(const TensorList& in, const Attrs& a) { return infer_pointwise("mse_loss", in, a); }
std::vector<TensorMeta> infer_bce(const TensorList& in, const Attrs& a) {
  return infer_pointwise("binary_cross_entropy", in, a);
}
std::vector<TensorMeta> infer_bce_logits(const TensorList& in, const Attrs& a) {
  return infer_pointwise("binary_cross_entropy_with_logits", in, a);
}

// d(output)/d(each element's loss), times the incoming gradient: g itself (for sum
// the 0-dim g broadcasts), or g / count for mean.
Tensor element_weight(const BackwardContext& c) {
  Tensor g = c.grad();
  if (c.attrs().i("reduction") != kMean) return g;
  return g / static_cast<double>(shape_numel(c.input_shape(0)));
}

// The gradients of both inputs from d(loss)/d(input) and d(loss)/d(target) per element.
TensorList pointwise_grads(const BackwardContext& c, const Tensor& d_input, const Tensor& d_target) {
  Tensor w = element_weight(c);
  return {c.needs_grad(0) ? d_input * w : Tensor(), c.needs_grad(1) ? d_target * w : Tensor()};
}

TensorList backward_mse(BackwardContext& c) {
  Tensor diff2 = (c.input(0) - c.input(1)) * 2.0;
  return pointwise_grads(c, diff2, -diff2);
}

// PyTorch's rules: (p - t) / max(p (1 - p), 1e-12) for the probabilities, and the
// exact derivative in t of the clamped forward for the target.
TensorList backward_bce(BackwardContext& c) {
  Tensor p = c.input(0), t = c.input(1);
  // PyTorch's EPSILON here is the float 1e-12 (9.99999996e-13): the gradient where p
  // (1 - p) is below it is PyTorch's to the last bit only with that constant.
  const double epsilon = static_cast<double>(1e-12f);
  Tensor d_p = c.needs_grad(0) ? (p - t) / clamp(p * (1.0 - p), epsilon, std::nullopt) : Tensor();
  Tensor d_t =
      c.needs_grad(1) ? clamp(log(1.0 - p), -100.0, std::nullopt) - clamp(log(p), -100.0, std::nullopt) : Tensor();
  return pointwise_grads(c, d_p, d_t);
}

TensorList backward_bce_logits(BackwardContext& c) {
  Tensor x = c.input(0);
  Tensor d_x = c.needs_grad(0) ? sigmoid(x) - c.input(1) : Tensor();
  return pointwise_grads(c, d_x, c.needs_grad(1) ? -x : Tensor());
}

// ---- class losses (input [N, C, d...] or [C], target of class indices [N, d...] or []) ----

// The class dim: 1, or 0 for an unbatched [C] input.
int64_t class_dim(int64_t input_dim) { return input_dim == 1 ? 0 : 1; }

std::vector<TensorMeta> infer_class_loss(const char* op, const TensorList& in, const Attrs& a) {
  const Tensor &x = in[0], &t = in[1];
  check_floating(op, "input", x);
  if (x.dim() < 1)
    throw Error(std::string(op) + ": argument 'input' must have a class dim ([N, C, ...] or [C]), got shape " +
                x.shape_str());
  if (!is_index_type(t.dtype()))
    throw Error(std::string(op) + ": argument 'target' must hold class indices (i64), got dtype " +
                dtype_name(t.dtype()) + " (class probabilities are not supported)");
  Shape expected = x.sizes();
  expected.erase(static_cast<size_t>(class_dim(x.dim())));
  if (!(t.sizes() == expected))
    throw Error(std::string(op) + ": argument 'target' of shape " + t.shape_str() +
                " does not match argument 'input' of shape " + x.shape_str() + " (expected target shape " +
                shape_str(expected) + ")");
  return one(loss_shape(op, a, expected), x.dtype());
}

std::vector<TensorMeta> infer_cross_entropy(const TensorList& in, const Attrs& a) {
  double s = a.f("label_smoothing");
  if (!(s >= 0.0 && s <= 1.0))
    throw Error("cross_entropy: label_smoothing must be between 0 and 1, got " + number_str(s));
  return infer_class_loss("cross_entropy", in, a);
}
std::vector<TensorMeta> infer_nll(const TensorList& in, const Attrs& a) { return infer_class_loss("nll_loss", in, a); }

// one_hot(target) along the class dim, in dtype dt: eq(arange(C) shaped to broadcast
// along that dim, target unsqueezed there).
Tensor one_hot(const Tensor& target, const Shape& input_shape, DType dt) {
  int64_t nd = static_cast<int64_t>(input_shape.size()), cdim = class_dim(nd);
  IntList classes_shape(static_cast<size_t>(nd), 1);
  classes_shape[cdim] = input_shape[cdim];
  Tensor classes = reshape(arange(input_shape[cdim], target.dtype(), target.device()), classes_shape);
  return to_dtype(eq(classes, unsqueeze(target, cdim)), dt);
}

// Each target position's weight in the output, unsqueezed at the class dim: 0 where
// the target is ignore_index, else g (divided by the number of counted targets for
// mean). The count is taken as at least 1: with every target ignored, every weight is
// 0 as in PyTorch's kernel (g / 0 gave 0 * inf, NaN).
Tensor position_weight(const BackwardContext& c, const Tensor& target, DType dt) {
  Tensor counted = to_dtype(ne(target, scalar_tensor(c.attrs().i("ignore_index"), target.dtype())), dt);
  Tensor g = c.grad();
  if (c.attrs().i("reduction") == kMean) g = g / clamp(sum(counted), 1.0, std::nullopt);
  return unsqueeze(counted * g, class_dim(static_cast<int64_t>(c.input_shape(0).size())));
}

// d/dx of -(1 - s) log_softmax(x)[t] - s mean_c log_softmax(x)_c is
// softmax(x) - ((1 - s) one_hot(t) + s / C).
TensorList backward_cross_entropy(BackwardContext& c) {
  Tensor x = c.input(0), target = c.input(1);
  const Shape& shape = c.input_shape(0);
  int64_t cdim = class_dim(x.dim());
  double s = c.attrs().f("label_smoothing");
  Tensor smoothed = one_hot(target, shape, x.dtype());
  if (s != 0.0) smoothed = smoothed * (1.0 - s) + s / static_cast<double>(shape[cdim]);
  return {(softmax(x, cdim) - smoothed) * position_weight(c, target, x.dtype()), Tensor()};
}

// -one_hot(t): constant in the log-probabilities, so the second derivative is zero.
TensorList backward_nll(BackwardContext& c) {
  Tensor target = c.input(1);
  DType dt = c.input_dtype(0);
  return {neg(one_hot(target, c.input_shape(0), dt)) * position_weight(c, target, dt), Tensor()};
}

OpDef class_loss_row(InferFn infer, KernelFn k, BackwardFn b, uint32_t saves, std::vector<AttrSpec> extra) {
  std::vector<AttrSpec> attrs{reduction_attr(), attr_optional("ignore_index", AttrKind::integer, int64_t(-100))};
  for (AttrSpec& a : extra) attrs.push_back(std::move(a));
  return {.num_inputs = 2, .attrs = attrs, .infer = infer, .cpu = k, .backward = b, .saves = {saves, 0}};
}
OpDef pointwise_row(InferFn infer, KernelFn k, BackwardFn b) {
  return {.num_inputs = 2, .attrs = {reduction_attr()}, .infer = infer, .cpu = k, .backward = b, .saves = {0b11, 0}};
}

// Cost rules (docs/cost.md), in FLOPs per element of the input: cross_entropy 5 (a
// log_softmax: max, subtract, exp, sum, subtract) plus 2 per target element (pick and
// accumulate); nll_loss 2 per target element (pick and accumulate); mse_loss 3
// (subtract, square, add); binary_cross_entropy 6 (two logs, 1 - p, two products, an
// add); binary_cross_entropy_with_logits 6 (a stable softplus: exp, log, max and
// products). The reduction's final divide is left out (one per call).
OpCost cost_cross_entropy(const TensorList& in, const Attrs&, const TensorList& out) {
  OpCost c = cost_per_input_element(5.0, in, out);
  c.flops += 2.0 * cost_numel(in[1]);
  return c;
}
OpCost cost_nll_loss(const TensorList& in, const Attrs&, const TensorList& out) {
  return {2.0 * cost_numel(in[1]), io_bytes(in, out)};
}
OpCost cost_mse_loss(const TensorList& in, const Attrs&, const TensorList& out) {
  return cost_per_input_element(3.0, in, out);
}
OpCost cost_bce(const TensorList& in, const Attrs&, const TensorList& out) {
  return cost_per_input_element(6.0, in, out);
}

}  // namespace

void register_loss_ops(std::vector<OpDef>& t) {
  row(t, OpId::cross_entropy) = class_loss_row(infer_cross_entropy, cpu::cross_entropy, backward_cross_entropy, 0b11,
                                               {attr_optional("label_smoothing", AttrKind::number, 0.0)});
  row(t, OpId::nll_loss) = class_loss_row(infer_nll, cpu::nll_loss, backward_nll, 0b10, {});
  row(t, OpId::mse_loss) = pointwise_row(infer_mse, cpu::mse_loss, backward_mse);
  row(t, OpId::binary_cross_entropy) = pointwise_row(infer_bce, cpu::binary_cross_entropy, backward_bce);
  row(t, OpId::binary_cross_entropy_with_logits) =
      pointwise_row(infer_bce_logits, cpu::binary_cross_entropy_with_logits, backward_bce_logits);
  row(t, OpId::cross_entropy).cost = cost_cross_entropy;
  row(t, OpId::nll_loss).cost = cost_nll_loss;
  row(t, OpId::mse_loss).cost = cost_mse_loss;
  row(t, OpId::binary_cross_entropy).cost = cost_bce;
  row(t, OpId::binary_cross_entropy_with_logits).cost = cost_bce;
  name_inputs(t, {{OpId::cross_entropy, {"input", "target"}},
                  {OpId::nll_loss, {"input", "target"}},
                  {OpId::mse_loss, {"input", "target"}},
                  {OpId::binary_cross_entropy, {"input", "target"}},
                  {OpId::binary_cross_entropy_with_logits, {"input", "target"}}});
  // What :help prints for each op of this family; tests/interp/op_docs.cpp runs every example.
  document_ops(t, {{OpId::cross_entropy,
                    "The cross-entropy of logits input [N, C, ...] against class indices target [N, ...] (or class "
                    "probabilities of input's shape), with ignore_index, label_smoothing and class weights (weight=, "
                    "the function's), averaged by default, as torch.nn.functional.cross_entropy. "
                    "Example: cross_entropy(randn(4, 10), tensor([1, 0, 9, 3]))"},
                   {OpId::nll_loss,
                    "The negative log-likelihood of log-probabilities input [N, C] at class indices target [N], "
                    "with class weights (weight=, the function's), averaged by default, as torch.nn.functional.nll_loss. "
                    "Example: nll_loss(log_softmax(randn(4, 10), dim=1), tensor([1, 0, 9, 3]))"},
                   {OpId::mse_loss,
                    "The squared difference of input and target, averaged by default, as torch.nn.functional.mse_loss. "
                    "Example: mse_loss(randn(4), zeros(4))"},
                   {OpId::binary_cross_entropy,
                    "-(target * log(input) + (1 - target) * log(1 - input)) for probabilities input, times weight= (the "
                    "function's), averaged by default, as torch.nn.functional.binary_cross_entropy. "
                    "Example: binary_cross_entropy(rand(4), tensor([0.0, 1.0, 1.0, 0.0]))"},
                   {OpId::binary_cross_entropy_with_logits,
                    "binary_cross_entropy of sigmoid(input), computed stably from the logits, with weight= and "
                    "pos_weight= (the function's), as torch.nn.functional.binary_cross_entropy_with_logits. "
                    "Example: binary_cross_entropy_with_logits(randn(4), tensor([0.0, 1.0, 1.0, 0.0]))"}});
}

int64_t reduction_code(const std::string& reduction) {
  if (reduction == "none") return kNone;
  if (reduction == "mean") return kMean;
  if (reduction == "sum") return kSum;
  throw Error("reduction: unknown value '" + reduction + "' (expected \"none\", \"mean\" or \"sum\")");
}

Tensor cross_entropy(const Tensor& logits, const Tensor& target, const std::string& reduction, int64_t ignore_index,
                     double label_smoothing) {
  return call1(
      OpId::cross_entropy, {logits, target},
      {{"reduction", reduction_code(reduction)}, {"ignore_index", ignore_index}, {"label_smoothing", label_smoothing}});
}

Tensor nll_loss(const Tensor& log_probs, const Tensor& target, const std::string& reduction, int64_t ignore_index) {
  return call1(OpId::nll_loss, {log_probs, target},
               {{"reduction", reduction_code(reduction)}, {"ignore_index", ignore_index}});
}

Tensor mse_loss(const Tensor& input, const Tensor& target, const std::string& reduction) {
  return call1(OpId::mse_loss, {input, target}, {{"reduction", reduction_code(reduction)}});
}

Tensor binary_cross_entropy(const Tensor& probs, const Tensor& target, const std::string& reduction) {
  return call1(OpId::binary_cross_entropy, {probs, target}, {{"reduction", reduction_code(reduction)}});
}

Tensor binary_cross_entropy_with_logits(const Tensor& logits, const Tensor& target, const std::string& reduction) {
  return call1(OpId::binary_cross_entropy_with_logits, {logits, target}, {{"reduction", reduction_code(reduction)}});
}

}  // namespace nabla
