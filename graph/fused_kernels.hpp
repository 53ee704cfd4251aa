// The executor's kernels for the nodes the fusion passes make: `fused` (an
// elementwise body, run as one loop) and `linear_<act>`, `conv2d_<act>` (the library
// call with the activation as its epilogue).
#pragma once
#include "graph/executor.hpp"

namespace nabla::graph {

// The kernel of a fused or epilogue node (NodeKind::fused, NodeKind::epilogue), or of
// the custom conv2d_backward_weight_bias (passes/fuse_epilogue.cpp), or null for any
// other node.
GraphOpFn fused_kernel(const Node& node);

}  // namespace nabla::graph
