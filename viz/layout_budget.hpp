// How much of a graph a drawing may hold (Note [Drawing budget]). Shared by the
// autograd drawing and the IR drawings: each lists its nodes in the order it would
// rather keep them (nearest the outputs first) with the edges between them, and
// draws the longest prefix that fits.
//
// Note [Drawing budget]
// Graphviz's dot layout grows much faster than the graph: 900 nodes in a chain take
// 1.5 s, 3,000 take 20 s, and an edge spanning r ranks costs r - 1 virtual nodes, so
// a 100-step loop that reads one value at every step (a leaf's AccumulateGrad fed from
// every step, or an IR input used by every node: spans summing to ~n^2/2) took
// minutes and gigabytes, and 5,000 steps exhausted the machine's memory. So a drawing
// keeps the nodes nearest its outputs while their count plus the virtual nodes of the
// edges between them, ranked by longest path as dot ranks them, stays within
// kLayoutBudget (about a second of layout), and says that the graph goes on.
#pragma once
#include <cstddef>
#include <vector>

namespace nabla::viz::detail {

constexpr size_t kLayoutBudget = 1000;

// edges[i]: the positions (in the same order) of the nodes that node i points to.
// Returns how many of the first nodes fit the budget; edges to nodes past that prefix
// are not counted (they are not drawn).
size_t nodes_within_budget(const std::vector<std::vector<size_t>>& edges);

}  // namespace nabla::viz::detail
