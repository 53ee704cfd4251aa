// Which of a control-flow node's inputs its outputs depend on, differentiably.
//
// Note [Outputs a lowered region does not differentiate]
// Eager, a value made from tensors that require grad requires grad only if an op with
// a backward made it from them: `acc = acc + h.detach()` in a loop, or a buffer the
// loop writes with `self.buf[t] = h.detach()`, does not. A control-flow node in a
// training capture is one autograd op, and it used to mark each of its floating
// outputs as requiring grad once any input did. So a carry that eager leaves without
// history came out of the node with one: a buffer written from it after the loop held
// a grad_fn into the capture's graph (its requires_grad true where eager's is false,
// and the next capture, on a new shape, walked into the freed graph: "ScanBackward:
// its saved values were freed"), and a weight that only such a carry read got a zero
// gradient where eager leaves .grad none (momentum and Adam then moved it).
// Now an output requires grad only when an input that does reaches it through the
// regions' ops with a backward: a cond's either side; a loop's body over any number of
// steps (a carry that a step reads feeds the next step's outputs), a scan of length 0
// and a while_loop that may run no trip passing each carry through as it came.
// Nested control flow counts as reaching each of its outputs from each of its inputs.
// The same table tells gradient_reach which inputs a loop passes its outputs'
// gradients on to (Note [Gradients a lowered branch may not reach]).
#pragma once
#include <vector>

#include "graph/ir.hpp"

namespace nabla::graph {

// [k][j]: whether region input k (in region_params order) can carry a gradient to
// region output j: an op with a backward computes j from k (a nested control-flow node
// as node_carries says).
using CarryTable = std::vector<std::vector<bool>>;
CarryTable region_carries(const Graph& region);

// [k][j]: whether control-flow node n's input k can carry a gradient to its output j,
// for the outputs its regions yield (a cond's predicate carries none). Read before a
// capture adds the outputs its backward needs.
CarryTable node_carries(const Node& n);

}  // namespace nabla::graph
