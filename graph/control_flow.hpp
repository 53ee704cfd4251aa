// Structured control flow in the graph IR: cond, while_loop and scan, nodes whose
// regions (Node::regions) are graphs of their own. This header says how a node's
// operands, regions and outputs line up; graph/control_flow.cpp checks that (for the
// verifier) and graph/control_flow_exec.cpp runs the nodes (for the executor). It
// knows nothing of the language: interp/ lowers `if`, `for` and `while` to these.
//
// Note [Control-flow regions]
// Regions are closed: a region reads its own inputs and its own constants, never a
// value of the enclosing graph; whatever it needs, the node passes as an operand (a
// weight a loop body reads is an invariant operand). So a region verifies, runs and is
// rewritten as a graph on its own, and a node's operands are everything it reads.
//
//   cond(pred, operands...) -> outputs
//     pred is bool[] (0-dim). Regions then(operands...) and else(operands...) each
//     yield values of the node's output types; the one pred selects runs.
//   while_loop(carried..., invariants...) {carried=k} -> the final carried values
//     Region cond(carried..., invariants...) yields one bool[]; while it is true,
//     region body(carried..., invariants...) yields the next carried values, each of
//     the type it had (a carried value keeps its shape and dtype between iterations).
//     With {trips=n} (a recorded trip count, for gradients) the loop must run exactly
//     n times, else the run fails naming the loop's line; the outputs are followed by
//     each carried value as it entered each iteration, stacked ([n] + its type).
//   scan(init..., xs..., invariants...) {carried=k, scanned=m, length=n, reverse=false}
//     -> final carry..., ys...
//     Each of the m xs has n rows (its leading size is n). Region body(carry..., rows
//     of the xs..., invariants...) yields the next carry (same types) and then the
//     step's outputs; each step output y is stacked into a node output of type
//     [n] + y's type, row k from step k. With reverse=true the steps run from n - 1
//     down to 0 (row k is still step k's): the backward of a scan is a reverse scan.
//     With stack_carries=true the outputs are followed by each carried value as it
//     entered each step, stacked ([n] + its type): what the backward reads.
#pragma once
#include <string>
#include <vector>

#include "graph/ir.hpp"

namespace nabla::graph {

bool is_control_flow(NodeKind kind);
inline bool is_control_flow(const Node& n) { return is_control_flow(n.kind); }
// The labels of a control-flow node's regions, in order, as the text form writes
// them: cond {then, else}, while_loop {cond, body}, scan {body}.
const std::vector<std::string>& region_labels(NodeKind kind);

// How a while_loop's or scan's operands split (attributes carried, scanned, length,
// reverse); a cond's operands after pred are all "invariants" here.
struct ControlLayout {
  size_t carried = 0, scanned = 0, invariants = 0;
  int64_t length = 0;  // scan only
  bool reverse = false;
  // Whether the outputs end with the stacked carries (scan stack_carries, while_loop trips).
  bool stacks_carries = false;
};
// The layout of n; assumes a node that verified (control_flow_problem is "").
ControlLayout control_layout(const Node& n);

// The ids of a region's inputs that the node binds (every input but its constants),
// in signature order.
std::vector<int> region_params(const Graph& region);

// Why control-flow node n of g is not well formed, or "" when it is: attributes,
// region count, and the types of operands, region inputs and yields and outputs as
// Note [Control-flow regions] lays them out. The regions' own nodes are the caller's
// to verify (each region is a graph).
std::string control_flow_problem(const Graph& g, const Node& n);

// [length] + m's sizes: the type of a value stacked over a loop's steps.
TensorMeta stacked_meta(TensorMeta m, int64_t length);
// Row k of t along its leading axis, as a view (a scan's rows and stacked outputs).
Tensor row_view(const Tensor& t, int64_t k);
// How many iterations while_loop n runs on `inputs` (it runs them).
int64_t while_trips(const Node& n, const TensorList& inputs);

// The executor's kernel of cond, while_loop and scan (a GraphOpFn): fills `outputs`,
// allocated with the node's output types, running the regions with run_graph.
void run_control_flow(const Node& n, const TensorList& inputs, TensorList& outputs);

}  // namespace nabla::graph
