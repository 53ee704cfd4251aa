// Rows of the reduction ops.
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
  return {attr_optional("dims", AttrKind::ints, std::vector<int64_t>{}), attr_optional("keepdim", AttrKind::boolean, false)};
}

}  // namespace

void register_reduction_ops(std::vector<OpDef>& t) {
  row(t, OpId::sum) = {.num_inputs = 1, .attrs = dims_keepdim(), .infer = infer_sum, .cpu = cpu::sum,
                       .backward = backward_sum};
  row(t, OpId::mean) = {.num_inputs = 1, .attrs = dims_keepdim(), .infer = infer_mean, .cpu = cpu::mean,
                        .backward = backward_mean};
}

Tensor sum(const Tensor& x, const IntList& dims, bool keepdim) {
  return call1(OpId::sum, {x}, {{"dims", dims}, {"keepdim", keepdim}});
}
Tensor mean(const Tensor& x, const IntList& dims, bool keepdim) {
  return call1(OpId::mean, {x}, {{"dims", dims}, {"keepdim", keepdim}});
}

}  // namespace nabla
