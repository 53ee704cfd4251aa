// Rows of the reduction ops.
#include <algorithm>

#include "autograd/cost.hpp"
#include "autograd/ops/common.hpp"

namespace nabla {

namespace {

std::vector<TensorMeta> infer_sum(const TensorList& in, const Attrs& a) {
  auto dims = reduction_dims("sum", a.ints("dims"), in[0].dim());
  DType t = in[0].dtype();
  if (!is_floating(t)) t = DType::i64;  // integer and bool sums widen, as in PyTorch
  return one(reduced_shape(in[0].sizes(), dims, a.b("keepdim")), t);
}
std::vector<TensorMeta> infer_mean(const TensorList& in, const Attrs& a) {
  check_floating("mean", "input", in[0]);
  auto dims = reduction_dims("mean", a.ints("dims"), in[0].dim());
  return one(reduced_shape(in[0].sizes(), dims, a.b("keepdim")), in[0].dtype());
}

TensorList backward_sum(BackwardContext& c) {
  auto dims = reduction_dims("sum", c.attrs().ints("dims"), static_cast<int64_t>(c.input_shape(0).size()));
  Tensor g = unsqueeze_reduced(c.grad(), c.input_shape(0), dims, c.attrs().b("keepdim"));
  return {expand(g, c.input_shape(0).vec())};
}
TensorList backward_mean(BackwardContext& c) {
  const Shape& shape = c.input_shape(0);
  auto dims = reduction_dims("mean", c.attrs().ints("dims"), static_cast<int64_t>(shape.size()));
  int64_t count = 1;
  for (int64_t d : dims) count *= shape[d];
  Tensor g = unsqueeze_reduced(c.grad(), shape, dims, c.attrs().b("keepdim"));
  return {expand(g / static_cast<double>(count), shape.vec())};
}

std::vector<AttrSpec> dims_keepdim() {
  return {attr_optional("dims", AttrKind::ints, std::vector<int64_t>{}),
          attr_optional("keepdim", AttrKind::boolean, false)};
}

Tensor zero_scalar() { return wrapped_scalar(0.0); }
int64_t ndim_of(const Shape& s) { return static_cast<int64_t>(s.size()); }
// The number of elements that `dims` of `shape` reduce into one.
int64_t reduced_count(const Shape& shape, const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= shape[d];
  return n;
}

// A max or min has no identity, so reducing zero elements is an error (PyTorch's too).
void check_nonempty(const char* op, const Tensor& x, const std::vector<int64_t>& dims) {
  for (int64_t d : dims)
    if (x.sizes()[d] == 0)
      throw Error(std::string(op) + ": cannot reduce over dim " + std::to_string(d) +
                  " of size 0 of argument 'input' of shape " + x.shape_str());
}

// --- max / min of all elements

std::vector<TensorMeta> infer_extremum_all(const char* op, const Tensor& x) {
  if (x.numel() == 0)
    throw Error(std::string(op) + ": cannot reduce an empty tensor of shape " + x.shape_str() +
                " (give a dim to reduce over a non-empty one)");
  return one(Shape{}, x.dtype());
}
std::vector<TensorMeta> infer_max(const TensorList& in, const Attrs&) { return infer_extremum_all("max", in[0]); }
std::vector<TensorMeta> infer_min(const TensorList& in, const Attrs&) { return infer_extremum_all("min", in[0]); }

// Every element equal to the result shares the gradient evenly (PyTorch's rule for
// the all-elements max/min, which keeps the gradient symmetric under ties); a NaN
// result is shared by the NaN elements, as PyTorch's evenly_distribute_backward (no
// element equals NaN: every gradient was 0 / 0).
TensorList backward_extremum_all(BackwardContext& c) {
  Tensor x = c.input(0), y = c.output(0);
  Tensor reached = eq(x, y);
  Tensor mask = to_dtype(where(ne(y, y), ne(x, x), reached), x.dtype());
  return {c.grad() * mask / sum(mask)};
}

// --- max / min along one dim, with indices

std::vector<TensorMeta> infer_extremum_dim(const char* op, const TensorList& in, const Attrs& a) {
  const Tensor& x = in[0];
  auto dims = reduction_dims(op, {a.i("dim")}, x.dim());
  check_nonempty(op, x, dims);
  Shape s = reduced_shape(x.sizes(), dims, a.b("keepdim"));
  return {TensorMeta{s, x.dtype()}, TensorMeta{s, DType::i64}};
}
std::vector<TensorMeta> infer_max_dim(const TensorList& in, const Attrs& a) {
  return infer_extremum_dim("max_dim", in, a);
}
std::vector<TensorMeta> infer_min_dim(const TensorList& in, const Attrs& a) {
  return infer_extremum_dim("min_dim", in, a);
}

// Positions 0..n-1 along dims[0] of `shape`, shaped to broadcast against it (a
// 0-dim input reduces no dim: its one element is position 0).
Tensor positions_along(const Shape& shape, const std::vector<int64_t>& dims, Device device) {
  if (dims.empty()) return zeros(Shape{}, DType::i64, device);
  int64_t d = dims[0];
  IntList sizes(shape.size(), 1);
  sizes[d] = shape[d];
  return reshape(arange(shape[d], DType::i64, device), sizes);
}

// The whole gradient of a slice goes to the one index the forward returned, as in
// PyTorch, also under ties; so the mask comes from the indices, not from comparing
// x with the values. where() of a one-hot mask is the scatter of the gradient into
// zeros, and is differentiable in the gradient again.
TensorList backward_extremum_dim(BackwardContext& c) {
  const Shape& shape = c.input_shape(0);
  auto dims = reduction_dims("max_dim", {c.attrs().i("dim")}, ndim_of(shape));
  bool keepdim = c.attrs().b("keepdim");
  Tensor g = unsqueeze_reduced(c.grad(0), shape, dims, keepdim);
  Tensor index = unsqueeze_reduced(c.output(1), shape, dims, keepdim);
  Tensor hit = eq(positions_along(shape, dims, index.device()), index);
  return {where(hit, g, zero_scalar())};
}

// --- argmax / argmin (dim none: over the flattened tensor)

std::vector<TensorMeta> infer_arg_extremum(const char* op, const TensorList& in, const Attrs& a) {
  const Tensor& x = in[0];
  bool flat = a.is_none("dim");
  if (flat && x.numel() == 0)
    throw Error(std::string(op) + ": cannot reduce an empty tensor of shape " + x.shape_str() +
                " (give a dim to reduce over a non-empty one)");
  auto dims = flat ? reduction_dims(op, {}, x.dim()) : reduction_dims(op, {a.i("dim")}, x.dim());
  if (!flat) check_nonempty(op, x, dims);
  return one(reduced_shape(x.sizes(), dims, a.b("keepdim")), DType::i64);
}
std::vector<TensorMeta> infer_argmax(const TensorList& in, const Attrs& a) {
  return infer_arg_extremum("argmax", in, a);
}
std::vector<TensorMeta> infer_argmin(const TensorList& in, const Attrs& a) {
  return infer_arg_extremum("argmin", in, a);
}

// --- var / std

std::vector<TensorMeta> infer_variance(const char* op, const TensorList& in, const Attrs& a) {
  check_floating(op, "input", in[0]);
  auto dims = reduction_dims(op, a.ints("dims"), in[0].dim());
  return one(reduced_shape(in[0].sizes(), dims, a.b("keepdim")), in[0].dtype());
}
std::vector<TensorMeta> infer_var(const TensorList& in, const Attrs& a) { return infer_variance("var", in, a); }
std::vector<TensorMeta> infer_std(const TensorList& in, const Attrs& a) { return infer_variance("std", in, a); }

// What var and std's backward rules share: the reduced dims, the gradient shaped
// to broadcast against x, x's deviation from its mean, and N - correction.
struct VarianceParts {
  std::vector<int64_t> dims;
  Tensor g, centered;
  double divisor;
};
VarianceParts variance_parts(BackwardContext& c, const char* op) {
  const Shape& shape = c.input_shape(0);
  VarianceParts p;
  p.dims = reduction_dims(op, c.attrs().ints("dims"), ndim_of(shape));
  p.g = unsqueeze_reduced(c.grad(), shape, p.dims, c.attrs().b("keepdim"));
  Tensor x = c.input(0);
  p.centered = x - mean(x, p.dims, true);
  // N - correction as it is, as PyTorch's var_backward: the kernel's divisor never
  // goes below 0 (a correction past N makes the value inf), its backward's does.
  p.divisor = static_cast<double>(reduced_count(shape, p.dims) - c.attrs().i("correction"));
  return p;
}
// d var / dx = 2 (x - mean) / (N - correction)
TensorList backward_var(BackwardContext& c) {
  VarianceParts p = variance_parts(c, "var");
  return {p.g * p.centered * (2.0 / p.divisor)};
}
// d std / dx = d var / dx / (2 std), where std is 0 taken as 0, as PyTorch's
// std_backward (x constant along the dims: its gradient was 0 / 0, NaN).
TensorList backward_std(BackwardContext& c) {
  VarianceParts p = variance_parts(c, "std");
  Tensor y = unsqueeze_reduced(c.output(0), c.input_shape(0), p.dims, c.attrs().b("keepdim"));
  Tensor g_var = where(eq(y, zero_scalar()), zero_scalar(), p.g / (2.0 * y));
  return {g_var * p.centered * (2.0 / p.divisor)};
}

// --- logsumexp

std::vector<TensorMeta> infer_logsumexp(const TensorList& in, const Attrs& a) {
  auto dims = reduction_dims("logsumexp", a.ints("dims"), in[0].dim());
  // Integer inputs give f32, as in PyTorch.
  return one(reduced_shape(in[0].sizes(), dims, a.b("keepdim")), float_result(in[0].dtype()));
}
// d lse / dx = exp(x - lse), the softmax over the reduced dims.
TensorList backward_logsumexp(BackwardContext& c) {
  const Shape& shape = c.input_shape(0);
  auto dims = reduction_dims("logsumexp", c.attrs().ints("dims"), ndim_of(shape));
  bool keepdim = c.attrs().b("keepdim");
  Tensor g = unsqueeze_reduced(c.grad(), shape, dims, keepdim);
  Tensor y = unsqueeze_reduced(c.output(0), shape, dims, keepdim);
  return {g * exp(c.input(0) - y)};
}

// --- softmax / log_softmax

std::vector<TensorMeta> infer_softmax_like(const char* op, const TensorList& in, const Attrs& a) {
  check_floating(op, "input", in[0]);
  wrap_dim(a.i("dim"), in[0].dim(), op);
  return one(in[0].sizes(), in[0].dtype());
}
std::vector<TensorMeta> infer_softmax(const TensorList& in, const Attrs& a) {
  return infer_softmax_like("softmax", in, a);
}
std::vector<TensorMeta> infer_log_softmax(const TensorList& in, const Attrs& a) {
  return infer_softmax_like("log_softmax", in, a);
}
// dx = y * (g - sum(g * y)) along dim
TensorList backward_softmax(BackwardContext& c) {
  Tensor y = c.output(0);
  int64_t dim = c.attrs().i("dim");
  return {y * (c.grad() - sum(c.grad() * y, {dim}, true))};
}
// dx = g - softmax * sum(g) along dim, with softmax = exp(y)
TensorList backward_log_softmax(BackwardContext& c) {
  int64_t dim = c.attrs().i("dim");
  return {c.grad() - exp(c.output(0)) * sum(c.grad(), {dim}, true)};
}

std::vector<AttrSpec> dim_keepdim() {
  return {attr_required("dim", AttrKind::integer), attr_optional("keepdim", AttrKind::boolean, false)};
}
std::vector<AttrSpec> optional_dim_keepdim() {
  return {attr_optional("dim", AttrKind::integer, NoneAttr{}), attr_optional("keepdim", AttrKind::boolean, false)};
}
std::vector<AttrSpec> dims_correction_keepdim() {
  return {attr_optional("dims", AttrKind::ints, std::vector<int64_t>{}),
          attr_optional("correction", AttrKind::integer, int64_t{1}),
          attr_optional("keepdim", AttrKind::boolean, false)};
}

// Cost rules (docs/cost.md), in FLOPs per input element: one add or comparison for
// sum, max, min, argmax and their _dim forms (mean adds one divide per output
// element); var: 4 (the mean, then subtract, square, add), std one sqrt more per
// output element; logsumexp: 4 (max, subtract, exp, add) and a log per output
// element; softmax: 5 (max, subtract, exp, sum, divide); log_softmax: 4 (max,
// subtract, exp, sum), a log per row and a subtract per element.
OpCost cost_reduce(const TensorList& in, const Attrs&, const TensorList& out) {
  return cost_per_input_element(1.0, in, out);
}
OpCost cost_mean(const TensorList& in, const Attrs&, const TensorList& out) {
  OpCost c = cost_per_input_element(1.0, in, out);
  c.flops += cost_numel(out[0]);
  return c;
}
OpCost cost_var(const TensorList& in, const Attrs&, const TensorList& out) {
  return cost_per_input_element(4.0, in, out);
}
OpCost cost_std(const TensorList& in, const Attrs& a, const TensorList& out) {
  OpCost c = cost_per_input_element(4.0, in, out);
  c.flops += cost_numel(out[0]);
  return c;
}
OpCost cost_logsumexp(const TensorList& in, const Attrs& a, const TensorList& out) { return cost_std(in, a, out); }
OpCost cost_softmax(const TensorList& in, const Attrs&, const TensorList& out) {
  return cost_per_input_element(5.0, in, out);
}
OpCost cost_log_softmax(const TensorList& in, const Attrs& a, const TensorList& out) {
  OpCost c = cost_per_input_element(5.0, in, out);
  const Shape& s = in[0].sizes();
  int64_t d = a.i("dim"), ndim = static_cast<int64_t>(s.size());
  if (d < 0) d += ndim;
  double row = d >= 0 && d < ndim ? static_cast<double>(s[static_cast<size_t>(d)]) : 1.0;
  c.flops += row > 0 ? cost_numel(in[0]) / row : 0.0;  // a log per row
  return c;
}

}  // namespace

void register_reduction_ops(std::vector<OpDef>& t) {
  row(t, OpId::sum) = {
      .num_inputs = 1, .attrs = dims_keepdim(), .infer = infer_sum, .cpu = cpu::sum, .backward = backward_sum};
  row(t, OpId::mean) = {
      .num_inputs = 1, .attrs = dims_keepdim(), .infer = infer_mean, .cpu = cpu::mean, .backward = backward_mean};

  row(t, OpId::max) = {
      .num_inputs = 1, .infer = infer_max, .cpu = cpu::max, .backward = backward_extremum_all, .saves = {1, 1}};
  row(t, OpId::min) = {
      .num_inputs = 1, .infer = infer_min, .cpu = cpu::min, .backward = backward_extremum_all, .saves = {1, 1}};
  // Output 1 (the indices) is i64 and never carries gradient; the backward rule
  // only reads it.
  row(t, OpId::max_dim) = {.num_inputs = 1,
                           .num_outputs = 2,
                           .attrs = dim_keepdim(),
                           .infer = infer_max_dim,
                           .cpu = cpu::max_dim,
                           .backward = backward_extremum_dim,
                           .saves = {0, 0b10},
                           .nondiff_outputs = 0b10};
  row(t, OpId::min_dim) = {.num_inputs = 1,
                           .num_outputs = 2,
                           .attrs = dim_keepdim(),
                           .infer = infer_min_dim,
                           .cpu = cpu::min_dim,
                           .backward = backward_extremum_dim,
                           .saves = {0, 0b10},
                           .nondiff_outputs = 0b10};
  row(t, OpId::argmax) = {.num_inputs = 1, .attrs = optional_dim_keepdim(), .infer = infer_argmax, .cpu = cpu::argmax};
  row(t, OpId::argmin) = {.num_inputs = 1, .attrs = optional_dim_keepdim(), .infer = infer_argmin, .cpu = cpu::argmin};
  row(t, OpId::var) = {.num_inputs = 1,
                       .attrs = dims_correction_keepdim(),
                       .infer = infer_var,
                       .cpu = cpu::var,
                       .backward = backward_var,
                       .saves = {1, 0}};
  row(t, OpId::std) = {.num_inputs = 1,
                       .attrs = dims_correction_keepdim(),
                       .infer = infer_std,
                       .cpu = cpu::std,
                       .backward = backward_std,
                       .saves = {1, 1}};
  row(t, OpId::logsumexp) = {.num_inputs = 1,
                             .attrs = dims_keepdim(),
                             .infer = infer_logsumexp,
                             .cpu = cpu::logsumexp,
                             .backward = backward_logsumexp,
                             .saves = {1, 1}};
  row(t, OpId::softmax) = {.num_inputs = 1,
                           .attrs = {attr_required("dim", AttrKind::integer)},
                           .infer = infer_softmax,
                           .cpu = cpu::softmax,
                           .backward = backward_softmax,
                           .saves = {0, 1}};
  row(t, OpId::log_softmax) = {.num_inputs = 1,
                               .attrs = {attr_required("dim", AttrKind::integer)},
                               .infer = infer_log_softmax,
                               .cpu = cpu::log_softmax,
                               .backward = backward_log_softmax,
                               .saves = {0, 1}};
  for (OpId id : {OpId::sum, OpId::max, OpId::min, OpId::max_dim, OpId::min_dim, OpId::argmax, OpId::argmin})
    row(t, id).cost = cost_reduce;
  row(t, OpId::mean).cost = cost_mean;
  row(t, OpId::var).cost = cost_var;
  row(t, OpId::std).cost = cost_std;
  row(t, OpId::logsumexp).cost = cost_logsumexp;
  row(t, OpId::softmax).cost = cost_softmax;
  row(t, OpId::log_softmax).cost = cost_log_softmax;
  name_inputs(t, {{OpId::sum, {"input"}},
                  {OpId::mean, {"input"}},
                  {OpId::max, {"input"}},
                  {OpId::min, {"input"}},
                  {OpId::max_dim, {"input"}},
                  {OpId::min_dim, {"input"}},
                  {OpId::argmax, {"input"}},
                  {OpId::argmin, {"input"}},
                  {OpId::var, {"input"}},
                  {OpId::std, {"input"}},
                  {OpId::logsumexp, {"input"}},
                  {OpId::softmax, {"input"}},
                  {OpId::log_softmax, {"input"}}});
  // What :help prints for each op of this family; tests/interp/op_docs.cpp runs every example.
  document_ops(t, {{OpId::sum,
                    "The sum of all elements, or over dims (dim=d for one), keeping them as size 1 with keepdim, as "
                    "torch.sum. "
                    "Example: randn(2, 3).sum(dim=1)"},
                   {OpId::mean,
                    "The mean of all elements, or over dims (dim=d for one), keeping them as size 1 with keepdim, as "
                    "torch.mean. "
                    "Example: mean(randn(2, 3), dim=0, keepdim=true)"},
                   {OpId::max,
                    "The largest element; along dim, a (values, indices) tuple; of two tensors, their elementwise "
                    "maximum, as torch.max. "
                    "Example: randn(3, 4).max(dim=1)"},
                   {OpId::min,
                    "The smallest element; along dim, a (values, indices) tuple; of two tensors, their elementwise "
                    "minimum, as torch.min. "
                    "Example: randn(3, 4).min(dim=1)"},
                   {OpId::max_dim,
                    "The largest value along dim and its index, a (values, indices) tuple, as torch.max(input, dim). "
                    "Example: max_dim(randn(3, 4), dim=1)"},
                   {OpId::min_dim,
                    "The smallest value along dim and its index, a (values, indices) tuple, as torch.min(input, dim). "
                    "Example: min_dim(randn(3, 4), dim=1)"},
                   {OpId::argmax,
                    "The index of the largest element, in the flattened tensor or along dim, as torch.argmax. "
                    "Example: argmax(randn(3, 4), dim=1)"},
                   {OpId::argmin,
                    "The index of the smallest element, in the flattened tensor or along dim, as torch.argmin. "
                    "Example: argmin(randn(3, 4), dim=0)"},
                   {OpId::var,
                    "The variance of all elements or over dims, divided by N - correction (1: Bessel's correction, 0: "
                    "the population variance), as torch.var. "
                    "Example: var(randn(8, 3), dim=0)"},
                   {OpId::std,
                    "The standard deviation of all elements or over dims, divided by N - correction (1: Bessel's "
                    "correction), as torch.std. "
                    "Example: std(randn(8, 3), dim=0, correction=0)"},
                   {OpId::logsumexp,
                    "log(sum(exp(x))) of all elements or over dims, computed without overflow, as torch.logsumexp. "
                    "Example: logsumexp(randn(2, 5), dim=1)"},
                   {OpId::softmax,
                    "exp of each element divided by the sum of exp along dim, as torch.softmax. "
                    "Example: softmax(randn(2, 5), dim=1)"},
                   {OpId::log_softmax,
                    "The logarithm of softmax along dim, computed stably, as torch.log_softmax. "
                    "Example: log_softmax(randn(2, 5), dim=1)"}});
}

Tensor sum(const Tensor& x, const IntList& dims, bool keepdim) {
  return call1(OpId::sum, {x}, {{"dims", dims}, {"keepdim", keepdim}});
}
Tensor mean(const Tensor& x, const IntList& dims, bool keepdim) {
  return call1(OpId::mean, {x}, {{"dims", dims}, {"keepdim", keepdim}});
}

Tensor max(const Tensor& x) { return call1(OpId::max, {x}); }
Tensor min(const Tensor& x) { return call1(OpId::min, {x}); }
std::pair<Tensor, Tensor> max(const Tensor& x, int64_t dim, bool keepdim) {
  TensorList r = call(OpId::max_dim, {x}, {{"dim", dim}, {"keepdim", keepdim}});
  return {r[0], r[1]};
}
std::pair<Tensor, Tensor> min(const Tensor& x, int64_t dim, bool keepdim) {
  TensorList r = call(OpId::min_dim, {x}, {{"dim", dim}, {"keepdim", keepdim}});
  return {r[0], r[1]};
}
static AttrValue optional_int(std::optional<int64_t> v) { return v ? AttrValue(*v) : AttrValue(NoneAttr{}); }
Tensor argmax(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  return call1(OpId::argmax, {x}, {{"dim", optional_int(dim)}, {"keepdim", keepdim}});
}
Tensor argmin(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  return call1(OpId::argmin, {x}, {{"dim", optional_int(dim)}, {"keepdim", keepdim}});
}
Tensor var(const Tensor& x, const IntList& dims, int64_t correction, bool keepdim) {
  return call1(OpId::var, {x}, {{"dims", dims}, {"correction", correction}, {"keepdim", keepdim}});
}
Tensor std(const Tensor& x, const IntList& dims, int64_t correction, bool keepdim) {
  return call1(OpId::std, {x}, {{"dims", dims}, {"correction", correction}, {"keepdim", keepdim}});
}
Tensor logsumexp(const Tensor& x, const IntList& dims, bool keepdim) {
  return call1(OpId::logsumexp, {x}, {{"dims", dims}, {"keepdim", keepdim}});
}
Tensor softmax(const Tensor& x, int64_t dim) { return call1(OpId::softmax, {x}, {{"dim", dim}}); }
Tensor log_softmax(const Tensor& x, int64_t dim) { return call1(OpId::log_softmax, {x}, {{"dim", dim}}); }

}  // namespace nabla
