// Rows of batch_norm, layer_norm and dropout. The backward rules recompute the
// normalization from the saved input with ops of the table (no saved statistics
// from the kernel), so the gradients are themselves differentiable.
#include "autograd/ops/common.hpp"

namespace nabla {

namespace {

// weight, bias and the running stats are optional: each is undefined or exactly `shape`.
void check_param(const char* op, const char* arg, const Tensor& t, const Shape& shape, const Tensor& x,
                 bool same_dtype) {
  if (!t.defined()) return;
  check_floating(op, arg, t);
  if (!(t.sizes() == shape))
    throw Error(std::string(op) + ": argument '" + arg + "' must have shape " + shape_str(shape) + ", got " +
                t.shape_str() + " (input shape " + x.shape_str() + ")");
  if (same_dtype && t.dtype() != x.dtype())
    throw Error(std::string(op) + ": argument '" + arg + "' must have the input's dtype " + dtype_name(x.dtype()) +
                ", got " + dtype_name(t.dtype()));
}

// d/dx of xhat = (x - mean) * rstd with mean and (biased) variance taken over `dims`,
// given gxhat = dL/dxhat: rstd * (gxhat - mean(gxhat) - xhat * mean(gxhat * xhat)).
Tensor normalized_input_grad(const Tensor& gxhat, const Tensor& xhat, const Tensor& rstd, const IntList& dims) {
  return rstd * (gxhat - mean(gxhat, dims, true) - xhat * mean(gxhat * xhat, dims, true));
}

// (x - mean) * rsqrt(var + eps) over `dims`, and the rsqrt, as ops of the table.
std::pair<Tensor, Tensor> normalize(const Tensor& x, const IntList& dims, double eps) {
  Tensor centered = x - mean(x, dims, true);
  // The biased variance, written out so it does not depend on the var row.
  Tensor rstd = rsqrt(mean(centered * centered, dims, true) + eps);
  return {centered * rstd, rstd};
}

// Whether optional input i (weight or bias: never 0-dim when given) was given; an
// absent input leaves an empty shape in the node.
bool given(const BackwardContext& c, size_t i) { return !c.input_shape(i).empty(); }

// ---- batch_norm -------------------------------------------------------------------

// Every dim but the channel dim 1.
IntList batch_norm_dims(int64_t ndim) {
  IntList dims{0};
  for (int64_t d = 2; d < ndim; ++d) dims.push_back(d);
  return dims;
}

// [C] reshaped to [1, C, 1, ...] so it broadcasts against x.
Tensor per_channel(const Tensor& t, int64_t ndim) {
  IntList shape(static_cast<size_t>(ndim), 1);
  shape[1] = t.numel();
  return reshape(t, shape);
}

std::vector<TensorMeta> infer_batch_norm(const TensorList& in, const Attrs& a) {
  const Tensor& x = in[0];
  check_floating("batch_norm", "input", x);
  if (x.dim() < 2)
    throw Error("batch_norm: argument 'input' must have at least 2 dims [N, C, ...], got shape " + x.shape_str());
  Shape channels{x.sizes()[1]};
  check_param("batch_norm", "weight", in[1], channels, x, true);
  check_param("batch_norm", "bias", in[2], channels, x, true);
  // Running stats may keep a wider dtype than x (f32 stats for f16 activations).
  check_param("batch_norm", "running_mean", in[3], channels, x, false);
  check_param("batch_norm", "running_var", in[4], channels, x, false);
  if (in[3].defined() != in[4].defined()) throw Error("batch_norm: give both running_mean and running_var, or neither");
  if (a.b("training")) {
    int64_t per_channel_count = x.sizes()[1] == 0 ? 0 : x.numel() / x.sizes()[1];
    if (per_channel_count <= 1)
      throw Error("batch_norm: expected more than 1 value per channel when training, got input of shape " +
                  x.shape_str());
  } else if (!in[3].defined()) {
    throw Error("batch_norm: running_mean and running_var are required in eval mode (training=false)");
  }
  return one(x.sizes(), x.dtype());
}

// Running stats get no gradient. Training mode recomputes the batch statistics from
// x; eval mode reads the running stats (saved, and never changed in eval).
TensorList backward_batch_norm(BackwardContext& c) {
  Tensor x = c.input(0), g = c.grad();
  int64_t nd = x.dim();
  IntList dims = batch_norm_dims(nd);
  double eps = c.attrs().f("eps");
  Tensor xhat, rstd;
  if (c.attrs().b("training")) {
    std::tie(xhat, rstd) = normalize(x, dims, eps);
  } else {
    rstd = rsqrt(per_channel(to_dtype(c.input(4), x.dtype()), nd) + eps);
    xhat = (x - per_channel(to_dtype(c.input(3), x.dtype()), nd)) * rstd;
  }
  Tensor gx, gw, gb;
  if (c.needs_grad(0)) {
    Tensor gxhat = given(c, 1) ? g * per_channel(c.input(1), nd) : g;
    gx = c.attrs().b("training") ? normalized_input_grad(gxhat, xhat, rstd, dims) : gxhat * rstd;
  }
  if (c.needs_grad(1)) gw = sum(g * xhat, dims);
  if (c.needs_grad(2)) gb = sum(g, dims);
  return {gx, gw, gb, Tensor(), Tensor()};
}

// ---- layer_norm -------------------------------------------------------------------

// The last len(normalized_shape) dims of an input of `ndim` dims.
IntList trailing_dims(int64_t ndim, size_t count) {
  IntList dims;
  for (int64_t d = ndim - static_cast<int64_t>(count); d < ndim; ++d) dims.push_back(d);
  return dims;
}

std::vector<TensorMeta> infer_layer_norm(const TensorList& in, const Attrs& a) {
  const Tensor& x = in[0];
  check_floating("layer_norm", "input", x);
  Shape normalized(a.ints("normalized_shape"));
  size_t k = normalized.size();
  bool matches = k >= 1 && k <= static_cast<size_t>(x.dim());
  for (size_t i = 0; matches && i < k; ++i) matches = x.sizes()[x.dim() - k + i] == normalized[i];
  if (!matches)
    throw Error("layer_norm: normalized_shape " + shape_str(normalized) +
                " must be non-empty and equal the last dims of argument 'input' of shape " + x.shape_str());
  check_param("layer_norm", "weight", in[1], normalized, x, true);
  check_param("layer_norm", "bias", in[2], normalized, x, true);
  return one(x.sizes(), x.dtype());
}

TensorList backward_layer_norm(BackwardContext& c) {
  Tensor x = c.input(0), g = c.grad();
  IntList dims = trailing_dims(x.dim(), c.attrs().ints("normalized_shape").size());
  auto [xhat, rstd] = normalize(x, dims, c.attrs().f("eps"));
  Tensor gx, gw, gb;
  if (c.needs_grad(0)) {
    // weight has the trailing shape, so it broadcasts against g as it is.
    Tensor gxhat = given(c, 1) ? g * c.input(1) : g;
    gx = normalized_input_grad(gxhat, xhat, rstd, dims);
  }
  if (c.needs_grad(1)) gw = reduce_to_shape(g * xhat, c.input_shape(1));
  if (c.needs_grad(2)) gb = reduce_to_shape(g, c.input_shape(2));
  return {gx, gw, gb};
}

// ---- dropout ------------------------------------------------------------------------

void check_dropout_p(double p) {
  if (!(p >= 0.0 && p <= 1.0)) throw Error("dropout: probability p must be between 0 and 1, got " + number_str(p));
}

std::vector<TensorMeta> infer_dropout(const TensorList& in, const Attrs& a) {
  check_floating("dropout", "input", in[0]);
  check_dropout_p(a.f("p"));
  // y, and the 0/1 mask of kept elements in x's dtype.
  return {{in[0].sizes(), in[0].dtype()}, {in[0].sizes(), in[0].dtype()}};
}

// y = x * mask * scale, with scale 1 / (1 - p) when dropping (1 when not; 0 for p == 1,
// where the mask is all zeros anyway).
TensorList backward_dropout(BackwardContext& c) {
  double p = c.attrs().f("p");
  bool active = c.attrs().b("training") && p > 0.0;
  double scale = !active ? 1.0 : p < 1.0 ? 1.0 / (1.0 - p) : 0.0;
  return {c.grad() * c.output(1) * scale};
}

}  // namespace

void register_norm_ops(std::vector<OpDef>& t) {
  row(t, OpId::batch_norm) = {
      .num_inputs = 5,
      .attrs = {attr_required("training", AttrKind::boolean), attr_optional("momentum", AttrKind::number, 0.1),
                attr_optional("eps", AttrKind::number, 1e-5)},
      .infer = infer_batch_norm,
      .cpu = cpu::batch_norm,
      .backward = backward_batch_norm,
      // The running stats are read only in eval mode, where the
      // kernel leaves them unchanged (so their saved version holds).
      .saves = {0b11011, 0},
      .half_native = true};
  row(t, OpId::layer_norm) = {
      .num_inputs = 3,
      .attrs = {attr_required("normalized_shape", AttrKind::ints), attr_optional("eps", AttrKind::number, 1e-5)},
      .infer = infer_layer_norm,
      .cpu = cpu::layer_norm,
      .backward = backward_layer_norm,
      .saves = {0b011, 0}};
  row(t, OpId::dropout) = {
      .num_inputs = 1,
      .num_outputs = 2,
      .attrs = {attr_optional("p", AttrKind::number, 0.5), attr_optional("training", AttrKind::boolean, true)},
      .infer = infer_dropout,
      .cpu = cpu::dropout,
      .backward = backward_dropout,
      .saves = {0, 0b10},
      .nondiff_outputs = 0b10};
  name_inputs(t, {{OpId::batch_norm, {"input", "weight", "bias", "running_mean", "running_var"}},
                  {OpId::layer_norm, {"input", "weight", "bias"}},
                  {OpId::dropout, {"input"}}});
}

Tensor batch_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                  const Tensor& running_var, bool training, double momentum, double eps) {
  return call1(OpId::batch_norm, {x, weight, bias, running_mean, running_var},
               {{"training", training}, {"momentum", momentum}, {"eps", eps}});
}

Tensor layer_norm(const Tensor& x, const IntList& normalized_shape, const Tensor& weight, const Tensor& bias,
                  double eps) {
  return call1(OpId::layer_norm, {x, weight, bias}, {{"normalized_shape", normalized_shape}, {"eps", eps}});
}

Tensor dropout(const Tensor& x, double p, bool training) {
  return call1(OpId::dropout, {x}, {{"p", p}, {"training", training}});
}

}  // namespace nabla
