// The default cost rule and the helpers of autograd/cost.hpp (see docs/cost.md).
#include "autograd/cost.hpp"

namespace nabla {

double cost_numel(const Tensor& t) { return t.defined() ? static_cast<double>(shape_numel(t.sizes())) : 0.0; }

double cost_bytes(const Tensor& t) {
  return t.defined() ? cost_numel(t) * static_cast<double>(dtype_size(t.dtype())) : 0.0;
}

double cost_numel(const TensorList& ts) {
  double n = 0;
  for (const Tensor& t : ts) n += cost_numel(t);
  return n;
}

double cost_bytes(const TensorList& ts) {
  double b = 0;
  for (const Tensor& t : ts) b += cost_bytes(t);
  return b;
}

OpCost cost_copy(const TensorList& in, const Attrs&, const TensorList& out) { return {0.0, io_bytes(in, out)}; }

OpCost cost_view(const TensorList&, const Attrs&, const TensorList&) { return {}; }

OpCost cost_per_input_element(double per_element, const TensorList& in, const TensorList& out) {
  double n = in.empty() ? 0.0 : cost_numel(in[0]);
  return {per_element * n, io_bytes(in, out)};
}

// The default: a view costs nothing (it aliases its input); any other op does one
// FLOP per output element (the elementwise rows: add, mul, relu, and also exp, tanh,
// gelu, which count as one although they take many instructions) and reads each
// input and writes each output once.
OpCost op_cost(const OpDef& def, const TensorList& inputs, const Attrs& attrs, const TensorList& outputs) {
  if (def.cost) return def.cost(inputs, attrs, outputs);
  if (def.view) return {};
  return {cost_numel(outputs), io_bytes(inputs, outputs)};
}

}  // namespace nabla
