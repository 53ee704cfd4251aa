// The executor's kernels for the nodes the fusion passes make: `fused` (an
// elementwise body, run as one loop) and `linear_<act>`, `conv2d_<act>` (the library
// call with the activation as its epilogue).
#pragma once
#include <map>
#include <string>

#include "graph/executor.hpp"

namespace nabla::graph {

// Adds them to the executor's table of graph-level ops.
void add_fused_kernels(std::map<std::string, GraphOpFn>& ops);

}  // namespace nabla::graph
