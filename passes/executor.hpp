// The executor: runs a graph with the op table's kernels, outside autograd. Each
// value is freed right after its last use, so the caching allocator reuses buffers
// in graph order. Graph-level ops that passes create (fused kernels, conv2d with an
// activation, ...) register their implementation here.
#pragma once
#include <string>

#include "passes/ir.hpp"

namespace nabla::graph {

// args: one tensor per graph input that is not a constant (inputs and params, in
// the order of Graph::inputs); returns the graph's outputs.
TensorList run_graph(const Graph& g, const TensorList& args);

using GraphOpFn = TensorList (*)(const Node& node, const TensorList& inputs);
void register_graph_op(const std::string& name, GraphOpFn fn);

}  // namespace nabla::graph
