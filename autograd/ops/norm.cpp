// Rows of batch_norm, layer_norm, group_norm, rms_norm and dropout. The backward rules recompute the
// normalization from the saved input with ops of the table (no saved statistics
// from the kernel), so the gradients are themselves differentiable.
#include <limits>

#include "autograd/cost.hpp"
#include "autograd/grad_mode.hpp"
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

// Checks the running stats and, in training mode, that each channel has more than
// one value (shared by batch_norm and batch_norm_backward; x is the input).
void check_batch_norm_stats(const char* op, const TensorList& in, size_t first_stat, const Tensor& x, bool training) {
  Shape channels{x.sizes()[1]};
  const Tensor &running_mean = in[first_stat], &running_var = in[first_stat + 1];
  // Running stats may keep a wider dtype than x (f32 stats for f16 activations).
  check_param(op, "running_mean", running_mean, channels, x, false);
  check_param(op, "running_var", running_var, channels, x, false);
  if (running_mean.defined() != running_var.defined())
    throw Error(std::string(op) + ": give both running_mean and running_var, or neither");
  if (training) {
    int64_t per_channel_count = x.sizes()[1] == 0 ? 0 : x.numel() / x.sizes()[1];
    if (per_channel_count <= 1)
      throw Error(std::string(op) + ": expected more than 1 value per channel when training, got input of shape " +
                  x.shape_str());
  } else if (!running_mean.defined()) {
    throw Error(std::string(op) + ": running_mean and running_var are required in eval mode (training=false)");
  }
}

void check_batch_norm_input(const char* op, const Tensor& x) {
  check_floating(op, "input", x);
  if (x.dim() < 2)
    throw Error(std::string(op) + ": argument 'input' must have at least 2 dims [N, C, ...], got shape " +
                x.shape_str());
}

std::vector<TensorMeta> infer_batch_norm(const TensorList& in, const Attrs& a) {
  const Tensor& x = in[0];
  check_batch_norm_input("batch_norm", x);
  Shape channels{x.sizes()[1]};
  check_param("batch_norm", "weight", in[1], channels, x, true);
  check_param("batch_norm", "bias", in[2], channels, x, true);
  check_batch_norm_stats("batch_norm", in, 3, x, a.b("training"));
  return one(x.sizes(), x.dtype());
}

// Inputs (grad, input, weight, running_mean, running_var); outputs the gradients of
// batch_norm's input, weight and bias.
std::vector<TensorMeta> infer_batch_norm_backward(const TensorList& in, const Attrs& a) {
  const char* op = "batch_norm_backward";
  const Tensor &g = in[0], &x = in[1];
  check_batch_norm_input(op, x);
  check_same_float(op, g, "grad", x, "input");
  if (!(g.sizes() == x.sizes()))
    throw Error(std::string(op) + ": argument 'grad' must have the input's shape " + x.shape_str() + ", got " +
                g.shape_str());
  Shape channels{x.sizes()[1]};
  check_param(op, "weight", in[2], channels, x, true);
  check_batch_norm_stats(op, in, 3, x, a.b("training"));
  return {{x.sizes(), x.dtype()}, {channels, x.dtype()}, {channels, x.dtype()}};
}

// Running stats get no gradient. The three gradients come from one fused row,
// batch_norm_backward (the running stats are passed in eval mode only, where they
// take the place of the batch statistics).
TensorList backward_batch_norm(BackwardContext& c) {
  if (!c.needs_grad(0) && !c.needs_grad(1) && !c.needs_grad(2)) return {Tensor(), Tensor(), Tensor(), Tensor(), Tensor()};
  bool training = c.attrs().b("training");
  Tensor weight = given(c, 1) ? c.input(1) : Tensor();
  Tensor running_mean = training ? Tensor() : c.input(3), running_var = training ? Tensor() : c.input(4);
  TensorList g = batch_norm_backward(c.grad(), c.input(0), weight, running_mean, running_var, training,
                                     c.attrs().f("eps"));
  return {c.needs_grad(0) ? g[0] : Tensor(), c.needs_grad(1) ? g[1] : Tensor(), c.needs_grad(2) ? g[2] : Tensor(),
          Tensor(), Tensor()};
}

// The derivatives of batch_norm_backward's outputs (gx, gw, gb) given their
// gradients (Gx, Gw, Gb), as ops of the table. Per channel, over M items, with
// xhat = (x - mean) * rstd, a = g * w, B = mean(a * xhat), P(v) the input gradient
// of the normalization (normalized_input_grad):
//   gx = P(a), gw = sum(g * xhat), gb = sum(g)                    (training)
//   dL/dg = w * P(Gx) + Gw * xhat + Gb
//   dL/dw = sum(Gx * P(g))
//   dL/dx = P(V) - xhat * rstd^2 / M * sum(Gx * (a - mean(a) - xhat * B)),
//     V = Gw * g - rstd * (B * Gx + mean(Gx * xhat) * a)         (dL/dxhat)
// In eval mode gx = g * w * rstd with fixed running stats, which is bilinear.
TensorList backward_batch_norm_backward(BackwardContext& c) {
  Tensor g = c.input(0), x = c.input(1);
  int64_t nd = x.dim();
  IntList dims = batch_norm_dims(nd);
  double eps = c.attrs().f("eps");
  bool weighted = given(c, 2);
  Tensor w = weighted ? per_channel(c.input(2), nd) : Tensor();
  auto times_w = [&](const Tensor& t) { return weighted ? t * w : t; };
  Tensor Gx = c.grad(0), Gw = per_channel(c.grad(1), nd), Gb = per_channel(c.grad(2), nd);
  Tensor dg, dx, dw;
  if (!c.attrs().b("training")) {
    Tensor rstd = rsqrt(per_channel(to_dtype(c.input(4), x.dtype()), nd) + eps);
    Tensor xhat = (x - per_channel(to_dtype(c.input(3), x.dtype()), nd)) * rstd;
    if (c.needs_grad(0)) dg = times_w(Gx * rstd) + Gw * xhat + Gb;
    if (c.needs_grad(1)) dx = Gw * g * rstd;
    if (c.needs_grad(2)) dw = sum(Gx * g * rstd, dims);
    return {dg, dx, dw, Tensor(), Tensor()};
  }
  auto [xhat, rstd] = normalize(x, dims, eps);
  if (c.needs_grad(0)) dg = times_w(normalized_input_grad(Gx, xhat, rstd, dims)) + Gw * xhat + Gb;
  if (c.needs_grad(2)) dw = sum(Gx * normalized_input_grad(g, xhat, rstd, dims), dims);
  if (c.needs_grad(1)) {
    Tensor a = times_w(g);
    Tensor B = mean(a * xhat, dims, true);
    Tensor V = Gw * g - rstd * (B * Gx + mean(Gx * xhat, dims, true) * a);
    Tensor R = sum(Gx * (a - mean(a, dims, true) - xhat * B), dims, true);
    double count = static_cast<double>(x.numel() / x.sizes()[1]);
    dx = normalized_input_grad(V, xhat, rstd, dims) - xhat * (rstd * rstd * R) * (1.0 / count);
  }
  return {dg, dx, dw, Tensor(), Tensor()};
}

// ---- layer_norm -------------------------------------------------------------------

// The last len(normalized_shape) dims of an input of `ndim` dims.
IntList trailing_dims(int64_t ndim, size_t count) {
  IntList dims;
  for (int64_t d = ndim - static_cast<int64_t>(count); d < ndim; ++d) dims.push_back(d);
  return dims;
}

// The normalized_shape check of layer_norm and rms_norm.
void check_normalized_shape(const char* op, const Tensor& x, const Shape& normalized) {
  size_t k = normalized.size();
  bool matches = k >= 1 && k <= static_cast<size_t>(x.dim());
  for (size_t i = 0; matches && i < k; ++i) matches = x.sizes()[x.dim() - k + i] == normalized[i];
  if (!matches)
    throw Error(std::string(op) + ": normalized_shape " + shape_str(normalized) +
                " must be non-empty and equal the last dims of argument 'input' of shape " + x.shape_str());
}

std::vector<TensorMeta> infer_layer_norm(const TensorList& in, const Attrs& a) {
  const Tensor& x = in[0];
  check_floating("layer_norm", "input", x);
  Shape normalized(a.ints("normalized_shape"));
  check_normalized_shape("layer_norm", x, normalized);
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

// ---- group_norm -------------------------------------------------------------------

std::vector<TensorMeta> infer_group_norm(const TensorList& in, const Attrs& a) {
  const Tensor& x = in[0];
  check_batch_norm_input("group_norm", x);
  int64_t groups = a.i("num_groups"), C = x.sizes()[1];
  if (groups <= 0) throw Error("group_norm: num_groups must be positive, got " + std::to_string(groups));
  if (C % groups != 0)
    throw Error("group_norm: the channels of argument 'input' (shape " + x.shape_str() + ", C = " + std::to_string(C) +
                ") must be divisible by num_groups = " + std::to_string(groups));
  Shape channels{C};
  check_param("group_norm", "weight", in[1], channels, x, true);
  check_param("group_norm", "bias", in[2], channels, x, true);
  return one(x.sizes(), x.dtype());
}

// x [N, C, ...] as [N, G, C / G * ...]: each group's items along dim 2.
Tensor as_groups(const Tensor& t, int64_t groups) {
  int64_t N = t.sizes()[0];
  return reshape(t, {N, groups, N * groups == 0 ? 0 : t.numel() / (N * groups)});
}

TensorList backward_group_norm(BackwardContext& c) {
  Tensor x = c.input(0), g = c.grad();
  int64_t groups = c.attrs().i("num_groups"), nd = x.dim();
  IntList group_dims{2};
  auto [xhat, rstd] = normalize(as_groups(x, groups), group_dims, c.attrs().f("eps"));
  Tensor gx, gw, gb;
  if (c.needs_grad(0)) {
    Tensor gxhat = given(c, 1) ? g * per_channel(c.input(1), nd) : g;
    gx = reshape(normalized_input_grad(as_groups(gxhat, groups), xhat, rstd, group_dims), x.sizes().vec());
  }
  if (c.needs_grad(1)) gw = sum(g * reshape(xhat, x.sizes().vec()), batch_norm_dims(nd));
  if (c.needs_grad(2)) gb = sum(g, batch_norm_dims(nd));
  return {gx, gw, gb};
}

// ---- rms_norm -----------------------------------------------------------------------

std::vector<TensorMeta> infer_rms_norm(const TensorList& in, const Attrs& a) {
  const Tensor& x = in[0];
  check_floating("rms_norm", "input", x);
  Shape normalized(a.ints("normalized_shape"));
  check_normalized_shape("rms_norm", x, normalized);
  check_param("rms_norm", "weight", in[1], normalized, x, true);
  if (!a.is_none("eps") && !(a.f("eps") >= 0))
    throw Error("rms_norm: eps must be non-negative, got " + number_str(a.f("eps")));
  return one(x.sizes(), x.dtype());
}

// eps, or the machine epsilon of the dtype the kernel computes in (16-bit inputs
// compute in f32: Note [Half through f32] in dispatch.cpp), as the CPU kernel takes it.
double rms_eps(const Attrs& a, DType dt) {
  if (!a.is_none("eps")) return a.f("eps");
  return dt == DType::f64 ? std::numeric_limits<double>::epsilon() : std::numeric_limits<float>::epsilon();
}

// y = x * r * w, r = rsqrt(mean(x^2) + eps): dx = r * (gw - x * r^2 * mean(gw * x)), gw = g * w.
TensorList backward_rms_norm(BackwardContext& c) {
  Tensor x = c.input(0), g = c.grad();
  IntList dims = trailing_dims(x.dim(), c.attrs().ints("normalized_shape").size());
  Tensor r = rsqrt(mean(x * x, dims, true) + rms_eps(c.attrs(), x.dtype()));
  Tensor gx, gw;
  if (c.needs_grad(0)) {
    Tensor gxhat = given(c, 1) ? g * c.input(1) : g;
    gx = r * (gxhat - x * (r * r) * mean(gxhat * x, dims, true));
  }
  if (c.needs_grad(1)) gw = reduce_to_shape(g * x * r, c.input_shape(1));
  return {gx, gw};
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

// Cost rules (docs/cost.md), in FLOPs per input element: batch_norm in training and
// layer_norm 7 (mean 1, variance 2, then subtract, scale, multiply by the weight, add
// the bias), batch_norm in eval 4 (its statistics are given); batch_norm_backward 8
// (the sums of g and g*xhat, then subtract, subtract, scale, scale and the parameter
// gradients' products). dropout keeps the default: 2 per element (a draw, a multiply:
// one per output element, the mask being an output).
OpCost cost_batch_norm(const TensorList& in, const Attrs& a, const TensorList& out) {
  return cost_per_input_element(a.b("training") ? 7.0 : 4.0, in, out);
}
OpCost cost_batch_norm_backward(const TensorList& in, const Attrs&, const TensorList& out) {
  return cost_per_input_element(8.0, in, out);
}
OpCost cost_layer_norm(const TensorList& in, const Attrs&, const TensorList& out) {
  return cost_per_input_element(7.0, in, out);
}
// rms_norm: 4 per element (square-and-add, then two multiplies and the weight's).
OpCost cost_rms_norm(const TensorList& in, const Attrs&, const TensorList& out) {
  return cost_per_input_element(4.0, in, out);
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
      .half_native = true,
      .updated_inputs = 0b11000};  // the running stats, in training
  row(t, OpId::batch_norm_backward) = {
      .num_inputs = 5,
      .num_outputs = 3,
      .attrs = {attr_required("training", AttrKind::boolean), attr_optional("eps", AttrKind::number, 1e-5)},
      .infer = infer_batch_norm_backward,
      .cpu = cpu::batch_norm_backward,
      .backward = backward_batch_norm_backward,
      .saves = {0b11111, 0}};
  row(t, OpId::layer_norm) = {
      .num_inputs = 3,
      .attrs = {attr_required("normalized_shape", AttrKind::ints), attr_optional("eps", AttrKind::number, 1e-5)},
      .infer = infer_layer_norm,
      .cpu = cpu::layer_norm,
      .backward = backward_layer_norm,
      .saves = {0b011, 0}};
  row(t, OpId::group_norm) = {
      .num_inputs = 3,
      .attrs = {attr_required("num_groups", AttrKind::integer), attr_optional("eps", AttrKind::number, 1e-5)},
      .infer = infer_group_norm,
      .cpu = cpu::group_norm,
      .backward = backward_group_norm,
      .saves = {0b011, 0},
      .optional_inputs = 0b110,
      .autocast = AutocastPolicy::f32,
      .cost = cost_layer_norm};
  row(t, OpId::rms_norm) = {
      .num_inputs = 2,
      .attrs = {attr_required("normalized_shape", AttrKind::ints), attr_optional("eps", AttrKind::number, NoneAttr{})},
      .infer = infer_rms_norm,
      .cpu = cpu::rms_norm,
      .backward = backward_rms_norm,
      .saves = {0b011, 0},
      .optional_inputs = 0b10,
      .autocast = AutocastPolicy::f32,
      .cost = cost_rms_norm};
  row(t, OpId::dropout) = {
      .num_inputs = 1,
      .num_outputs = 2,
      .attrs = {attr_optional("p", AttrKind::number, 0.5), attr_optional("training", AttrKind::boolean, true)},
      .infer = infer_dropout,
      .cpu = cpu::dropout,
      .backward = backward_dropout,
      .saves = {0, 0b10},
      .nondiff_outputs = 0b10};
  // weight, bias and the running stats may be left out (check_param).
  row(t, OpId::batch_norm).optional_inputs = 0b11110;
  row(t, OpId::batch_norm_backward).optional_inputs = 0b11100;
  row(t, OpId::layer_norm).optional_inputs = 0b110;
  row(t, OpId::batch_norm).cost = cost_batch_norm;
  row(t, OpId::batch_norm_backward).cost = cost_batch_norm_backward;
  row(t, OpId::layer_norm).cost = cost_layer_norm;
  name_inputs(t, {{OpId::batch_norm, {"input", "weight", "bias", "running_mean", "running_var"}},
                  {OpId::batch_norm_backward, {"grad", "input", "weight", "running_mean", "running_var"}},
                  {OpId::layer_norm, {"input", "weight", "bias"}},
                  {OpId::group_norm, {"input", "weight", "bias"}},
                  {OpId::rms_norm, {"input", "weight"}},
                  {OpId::dropout, {"input"}}});
  // What :help prints for each op of this family; tests/interp/op_docs.cpp runs every example.
  document_ops(t,
               {{OpId::batch_norm,
                 "Normalizes each channel (dim 1) with the batch's mean and variance while training (moving "
                 "running_mean and running_var by momentum), else with the running ones, then scales by weight and "
                 "shifts by bias, as torch.nn.functional.batch_norm. "
                 "Example: batch_norm(randn(4, 3), zeros(3), ones(3), training=true)"},
                {OpId::batch_norm_backward,
                 "The gradients of batch_norm with respect to input, weight and bias, a tuple, from the output "
                 "gradient grad. "
                 "Example: batch_norm_backward(randn(4, 3), randn(4, 3), training=true)"},
                {OpId::layer_norm,
                 "Normalizes over the last dims (normalized_shape) to mean 0 and variance 1, then scales by weight "
                 "and shifts by bias, as torch.nn.functional.layer_norm. "
                 "Example: layer_norm(randn(2, 8), [8])"},
                {OpId::dropout,
                 "Zeroes each element with probability p and scales the rest by 1 / (1 - p) while training; the "
                 "identity otherwise, as torch.nn.functional.dropout. "
                 "Example: dropout(randn(4, 4), p=0.1)"},
                {OpId::group_norm,
                 "Normalizes each of num_groups groups of channels over the group and the spatial dims, then scales "
                 "and shifts per channel, as torch.nn.functional.group_norm. "
                 "Example: group_norm(randn(2, 4, 3, 3), 2)"},
                {OpId::rms_norm,
                 "x / sqrt(mean(x^2) + eps) over the last dims (normalized_shape), times weight; eps defaults to the "
                 "dtype's machine epsilon, as torch.nn.functional.rms_norm. "
                 "Example: rms_norm(randn(2, 8), [8])"}});
}

Tensor batch_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                  const Tensor& running_var, bool training, double momentum, double eps) {
  return call1(OpId::batch_norm, {x, weight, bias, running_mean, running_var},
               {{"training", training}, {"momentum", momentum}, {"eps", eps}});
}

TensorList batch_norm_backward(const Tensor& grad, const Tensor& x, const Tensor& weight, const Tensor& running_mean,
                               const Tensor& running_var, bool training, double eps) {
  return call(OpId::batch_norm_backward, {grad, x, weight, running_mean, running_var},
              {{"training", training}, {"eps", eps}});
}

Tensor layer_norm(const Tensor& x, const IntList& normalized_shape, const Tensor& weight, const Tensor& bias,
                  double eps) {
  return call1(OpId::layer_norm, {x, weight, bias}, {{"normalized_shape", normalized_shape}, {"eps", eps}});
}

Tensor group_norm(const Tensor& x, int64_t num_groups, const Tensor& weight, const Tensor& bias, double eps) {
  return call1(OpId::group_norm, {x, weight, bias}, {{"num_groups", num_groups}, {"eps", eps}});
}

Tensor instance_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps) {
  if (x.dim() < 2)
    throw Error("instance_norm: argument 'input' must have at least 2 dims [N, C, ...], got shape " + x.shape_str());
  return group_norm(x, x.sizes()[1], weight, bias, eps);
}

namespace {

void check_running_stat(const char* arg, const Tensor& stat, const Tensor& x) {
  if (!stat.defined()) throw Error(std::string("instance_norm: argument '") + arg + "' is missing");
  if (stat.dim() != 1 || stat.sizes()[0] != x.sizes()[1])
    throw Error(std::string("instance_norm: argument '") + arg + "' of shape " + stat.shape_str() +
                " must have one value per channel of argument 'input' of shape " + x.shape_str() +
                " (C = " + std::to_string(x.sizes()[1]) + ")");
}

// running = (1 - momentum) running + momentum * the batch's mean of per_sample [N, C],
// in place and outside autograd, as PyTorch's (which runs batch_norm on [1, N * C, ...]
// with the statistics repeated N times, then averages the N copies back).
void move_running_stat(Tensor running, const Tensor& per_sample, double momentum) {
  copy_(running, running * (1.0 - momentum) + mean(per_sample, {0}) * momentum);
}

}  // namespace

Tensor instance_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                     const Tensor& running_var, bool use_input_stats, double momentum, double eps) {
  if (x.dim() < 2)
    throw Error("instance_norm: argument 'input' must have at least 2 dims [N, C, ...], got shape " + x.shape_str());
  bool tracked = running_mean.defined() || running_var.defined();
  if (tracked || !use_input_stats) {
    check_running_stat("running_mean", running_mean, x);
    check_running_stat("running_var", running_var, x);
  }
  if (!use_input_stats) return batch_norm(x, weight, bias, running_mean, running_var, false, momentum, eps);
  // As PyTorch's _verify_spatial_size: one value per channel has no variance, and
  // normalized every output to 0.
  int64_t spatial_size = 1;
  for (int64_t d = 2; d < x.dim(); ++d) spatial_size *= x.sizes()[d];
  if (spatial_size == 1)
    throw Error("instance_norm: expected more than 1 spatial element when using the input's statistics, got input "
                "of shape " + x.shape_str());
  if (tracked) {
    NoGradGuard no_grad;
    IntList spatial;
    for (int64_t d = 2; d < x.dim(); ++d) spatial.push_back(d);
    if (spatial.empty())
      throw Error("instance_norm: argument 'input' of shape " + x.shape_str() +
                  " has no spatial dims to take running statistics over");
    move_running_stat(running_mean, mean(x, spatial), momentum);
    move_running_stat(running_var, var(x, spatial), momentum);
  }
  return instance_norm(x, weight, bias, eps);
}

Tensor rms_norm(const Tensor& x, const IntList& normalized_shape, const Tensor& weight, std::optional<double> eps) {
  Attrs attrs{{"normalized_shape", normalized_shape}};
  if (eps) attrs.set("eps", *eps);
  return call1(OpId::rms_norm, {x, weight}, attrs);
}

Tensor dropout(const Tensor& x, double p, bool training) {
  return call1(OpId::dropout, {x}, {{"p", p}, {"training", training}});
}

}  // namespace nabla
