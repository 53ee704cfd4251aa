// Helpers for the op table's cost rules (OpDef::cost; docs/cost.md): sizes in, FLOPs
// and bytes out. A rule reads only sizes and dtypes, so the same rule serves the
// profiler (real tensors) and the graph passes (stand-ins without data). Rules live
// beside their rows in autograd/ops/<family>.cpp; the default rule and these helpers
// in autograd/cost.cpp. Nothing here runs a kernel.
#pragma once
#include "autograd/op_table.hpp"

namespace nabla {

// Elements of t as its sizes say (0 for an undefined tensor: an absent bias).
double cost_numel(const Tensor& t);
// Bytes of t as its sizes and dtype say: numel * element size (0 when undefined).
// A broadcast (expanded) tensor counts all its elements: stand-ins are expanded.
double cost_bytes(const Tensor& t);
// Sum of cost_numel / cost_bytes over a list.
double cost_numel(const TensorList& ts);
double cost_bytes(const TensorList& ts);
// Every input read once and every output written once.
inline double io_bytes(const TensorList& in, const TensorList& out) { return cost_bytes(in) + cost_bytes(out); }

// Shared rules.
// A copy (contiguous, to_dtype, to_device, cat, stack): no FLOPs, a read and a write.
OpCost cost_copy(const TensorList& in, const Attrs& attrs, const TensorList& out);
// A view: moves nothing, computes nothing.
OpCost cost_view(const TensorList& in, const Attrs& attrs, const TensorList& out);
// `per_element` FLOPs for each element of input 0, every input and output moved once
// (reductions, softmax, norms, pointwise losses: each rule says its count).
OpCost cost_per_input_element(double per_element, const TensorList& in, const TensorList& out);

}  // namespace nabla
