// Dead code elimination: drops nodes none of whose outputs reach a graph output.
// Nodes with effects outside the graph are kept: batch_norm in training mode
// updates its running statistics in place, dropout draws from the generator, and
// copy_ writes into a parameter or buffer.
#include "passes/passes.hpp"

namespace nabla::graph {

namespace {

bool has_side_effect(const Node& n) {
  if (n.op == "batch_norm") return n.attrs.has("training") && n.attrs.b("training");
  return n.op == "dropout" || n.op == "copy_";  // copy_: a write into a parameter or buffer
}

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
  if (r.changes) g.compact(dead);
  return r;
}

}  // namespace

PassInfo dce_pass() {
  return {"dce", "dead code elimination: drop nodes whose results nothing uses", {}, run_dce};
}

}  // namespace nabla::graph
