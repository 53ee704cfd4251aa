// Saving a loop step's intermediates for its backward (See Note [Control-flow
// gradients] in graph/control_flow_grad.hpp): a step's traced VJP region recomputes
// the step's forward values from the carry that entered it. split_step moves that
// recomputation into the forward body, which yields the values the backward reads as
// extra step outputs (a scan stacks them), and leaves the backward body only the
// ops that read a cotangent, with the saved values as scanned rows.
#pragma once
#include <memory>

#include "graph/ir.hpp"

namespace nabla::graph {

// The parameter groups of a step's VJP region, in order: tangents (the carries'
// cotangents and the invariant accumulators), the carry, the rows, more tangents (the
// step outputs' and stacked carries' cotangents), the invariants. The step's own body
// takes the carry, the rows and the invariants, in that order.
struct StepLayout {
  size_t front = 0, carry = 0, rows = 0, back = 0, invariants = 0;
};

struct SplitStep {
  std::shared_ptr<Graph> forward;   // the body, yielding after its own outputs the saved values
  std::shared_ptr<Graph> backward;  // the VJP region, the saved values' rows bound after the rows
  std::vector<TensorMeta> saved;    // the saved values' types (one step's)
};

// With `recompute_cheap`, the backward recomputes the primal values of cheap ops
// (elementwise ops, views) it reads instead of their being saved.
SplitStep split_step(const Graph& body, const Graph& vjp, const StepLayout& layout, bool recompute_cheap = true);

}  // namespace nabla::graph
