// Checks on the gradients that come from the user rather than from the op table's
// rules: grad_outputs (backward's gradient=, grad's grad_outputs), what tensor hooks
// and module backward hooks return, and what a custom function's backward returns.
// Each either fits the gradient to the tensor it flows into or throws naming the
// node and both shapes. See Note [Gradient validation] in grad_validation.cpp.
#pragma once
#include "autograd/node.hpp"

namespace nabla {

// Whether g already fits a tensor described by meta (the engine's fast path).
inline bool fits(const Tensor& g, const TensorMeta& meta) {
  return g.dtype() == meta.dtype && g.sizes() == meta.sizes && g.device() == meta.device;
}

// What backward rule `node` returned for its input `input`, which goes to a tensor
// described by `meta`: cast to meta's dtype, moved to its device, and summed over
// the dims it was broadcast along; an error when its shape cannot be summed to meta's.
Tensor fit_rule_gradient(const Tensor& g, const TensorMeta& meta, const Node& node, size_t input);

// What a hook on output slot `slot` of `node` returned (for a leaf's hook, node is
// the leaf's AccumulateGrad): cast and moved like a rule's result; a change of shape
// is an error.
Tensor fit_hook_gradient(const Tensor& g, const TensorMeta& meta, const Node& node, size_t slot);

// grad_output `index` given for `root` (`what`: "backward" or "grad"): cast and moved
// to the root's dtype and device; a shape other than the root's is an error.
Tensor fit_seed(const Tensor& g, const Tensor& root, const char* what, size_t index);

}  // namespace nabla
