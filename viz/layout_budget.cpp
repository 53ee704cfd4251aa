#include "viz/layout_budget.hpp"

#include <algorithm>

namespace nabla::viz::detail {

namespace {

// The layout cost of drawing the first k nodes: k plus the virtual nodes of their
// edges, each node ranked one below its lowest drawn predecessor (Kahn's order).
size_t layout_cost(const std::vector<std::vector<size_t>>& edges, size_t k) {
  std::vector<size_t> pending(k, 0), rank(k, 0);
  for (size_t i = 0; i < k; ++i)
    for (size_t j : edges[i])
      if (j < k) ++pending[j];
  std::vector<size_t> ready;
  for (size_t i = 0; i < k; ++i)
    if (pending[i] == 0) ready.push_back(i);
  while (!ready.empty()) {
    size_t i = ready.back();
    ready.pop_back();
    for (size_t j : edges[i]) {
      if (j >= k) continue;
      rank[j] = std::max(rank[j], rank[i] + 1);
      if (--pending[j] == 0) ready.push_back(j);
    }
  }
  size_t cost = k;
  for (size_t i = 0; i < k; ++i)
    for (size_t j : edges[i])
      if (j < k && rank[j] > rank[i]) cost += rank[j] - rank[i] - 1;
  return cost;
}

}  // namespace

size_t nodes_within_budget(const std::vector<std::vector<size_t>>& edges) {
  size_t lo = 0, hi = edges.size();  // the answer is in [lo, hi]; the cost grows with k
  while (lo < hi) {
    size_t mid = lo + (hi - lo + 1) / 2;
    if (layout_cost(edges, mid) <= kLayoutBudget) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

}  // namespace nabla::viz::detail
