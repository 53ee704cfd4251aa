#include "autograd/grad_validation.hpp"

#include "autograd/ops.hpp"

namespace nabla {

// Note [Gradient validation]
// A gradient must have the shape, dtype and device of the tensor it flows into. The
// op table's rules keep to that; what the user supplies need not. As PyTorch's
// engine does (validate_outputs), a gradient of another dtype is cast to the
// tensor's (an i64 grad_output or hook result would otherwise turn every gradient
// below it into i64, silently), one on another device is moved, and a rule's result
// broadcast over the input (a custom backward returning the output's shape for a
// broadcast input) is summed back as broadcasting ops do. Any other shape is an
// error naming the node and both shapes. A hook must keep the shape it was given
// (PyTorch: "hook has changed the size of value"). The casts are ops, so with
// create_graph they are differentiated like the rest. The engine calls these on
// every rule result and hook result: an equal shape, dtype and device costs three
// comparisons.

namespace {

// Whether a tensor of shape `from` broadcasts to `to` (PyTorch's is_expandable_to).
bool expandable_to(const Shape& from, const Shape& to) {
  if (from.size() > to.size()) return false;
  size_t lead = to.size() - from.size();
  for (size_t d = 0; d < from.size(); ++d)
    if (from[d] != 1 && from[d] != to[lead + d]) return false;
  return true;
}

// g in meta's dtype and on its device (the shape is checked by the caller).
Tensor cast_to(const Tensor& g, const TensorMeta& meta) {
  Tensor out = g;
  if (out.dtype() != meta.dtype) out = to_dtype(out, meta.dtype);
  if (out.device() != meta.device) out = to_device(out, meta.device);
  return out;
}

// "a tensor of shape [3] (output 0 of MulBackward)" or "a leaf tensor of shape [3]".
std::string hooked_tensor(const Node& node, size_t slot, const Shape& sizes) {
  if (dynamic_cast<const AccumulateGrad*>(&node)) return "a leaf tensor of shape " + shape_str(sizes);
  return "a tensor of shape " + shape_str(sizes) + " (output " + std::to_string(slot) + " of " + node.name() + ")";
}

}  // namespace

Tensor fit_rule_gradient(const Tensor& g, const TensorMeta& meta, const Node& node, size_t input) {
  Tensor out = g;
  if (!(out.sizes() == meta.sizes)) {
    if (!expandable_to(meta.sizes, out.sizes()))
      throw Error(node.name() + " returned a gradient of shape " + out.shape_str() + " for input " +
                  std::to_string(input) + ", whose shape is " + shape_str(meta.sizes) +
                  " (a gradient must have the input's shape, or one the input broadcasts to)");
    out = reduce_to_shape(out, meta.sizes);
  }
  return cast_to(out, meta);
}

Tensor fit_hook_gradient(const Tensor& g, const TensorMeta& meta, const Node& node, size_t slot) {
  if (!(g.sizes() == meta.sizes))
    throw Error("a hook on " + hooked_tensor(node, slot, meta.sizes) + " returned a gradient of shape " +
                g.shape_str() + "; a hook must return a gradient of the tensor's shape");
  return cast_to(g, meta);
}

Tensor fit_seed(const Tensor& g, const Tensor& root, const char* what, size_t index) {
  if (!(g.sizes() == root.sizes()))
    throw Error(std::string(what) + ": grad_output " + std::to_string(index) + " has shape " + g.shape_str() +
                " but the output has shape " + root.shape_str());
  return cast_to(g, TensorMeta{root.sizes(), root.dtype(), root.device()});
}

}  // namespace nabla
