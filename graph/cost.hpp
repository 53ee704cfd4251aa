// The cost of a graph without running it (docs/cost.md): per node, the FLOPs and
// bytes of its op-table row's cost rule (OpDef::cost) on the node's types, and where
// it sits on a roofline (autograd/roofline.hpp). What gm.cost(), `:cost` and the
// tests read; it knows the IR and the op table, nothing of the language.
#pragma once
#include <string>
#include <vector>

#include "autograd/roofline.hpp"
#include "graph/ir.hpp"

namespace nabla::graph {

struct NodeCost {
  int node = -1;        // index in Graph::nodes
  std::string results;  // "%5" or "%5, %6" ("" for a node without outputs)
  std::string op;
  std::string type;    // the first output's type, "f32[64, 256]" ("" without outputs)
  std::string origin;  // the DSL line, may be empty
  OpCost cost;
  // A node with a body (fused, linear_relu, ...): FLOPs of every op of its body, but
  // bytes of the node's own inputs and outputs only, since its intermediates never
  // reach memory: the point of fusion.
  bool fused = false;
};

struct GraphCost {
  std::vector<NodeCost> nodes;  // in execution order
  OpCost total;
};

// The cost of every node of g. A table op costs what its row's rule says on stand-ins
// of its input and output types (meta_tensor); a fused node as NodeCost says; a
// graph-level op without a body (copy_) no FLOPs and its inputs and outputs in bytes.
GraphCost graph_cost(const Graph& g);
// The cost of one node of g (what graph_cost adds up).
NodeCost node_cost(const Graph& g, const Node& n);

// The estimated time of a run: the nodes' roofline times added (they run one after
// another), which is more than the total's own max(flops/peak, bytes/bandwidth).
double graph_seconds(const GraphCost& cost, const Roofline& roof);

// The printed table: a line per node (value, op, type, FLOPs, bytes, FLOP/B, bound,
// estimated time), a total line, and the roofline's measured peaks and ridge point.
std::string format_graph_cost(const GraphCost& cost, const Roofline& roof, const std::string& heading);

}  // namespace nabla::graph
