// Dead code elimination: drops nodes none of whose outputs reach a graph output, and
// constants that no live node uses (they are captured values the graph owns; inputs
// and params stay, being the caller's signature). Nodes with effects outside the graph
// are kept (has_side_effect in rewrite.hpp: batch_norm in training mode, dropout,
// copy_ into a parameter or buffer, collectives).
#include "graph/rewrite.hpp"
#include "passes/passes.hpp"

namespace nabla::graph {

namespace {

PassResult run_dce(Graph& g, const PassContext&) {
  std::vector<bool> live_value(g.values.size(), false);
  for (int v : g.outputs) live_value[static_cast<size_t>(v)] = true;
  std::vector<bool> dead(g.nodes.size(), true);
  for (size_t i = g.nodes.size(); i-- > 0;) {
    const Node& n = g.nodes[i];
    bool live = has_side_effect(n);
    for (int v : n.outputs) live = live || live_value[static_cast<size_t>(v)];
    if (!live) continue;
    dead[i] = false;
    for (int v : n.inputs)
      if (v >= 0) live_value[static_cast<size_t>(v)] = true;
  }
  PassResult r;
  for (bool d : dead) r.changes += d;
  r.changes += remove_constants(g, [&](int id) { return !live_value[static_cast<size_t>(id)]; });
  if (r.changes) g.compact(dead);
  return r;
}

}  // namespace

PassInfo dce_pass() {
  return {"dce", "dead code elimination: drop nodes whose results nothing uses, and unused constants", {}, run_dce};
}

}  // namespace nabla::graph
