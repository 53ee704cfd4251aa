// Helpers shared by the rewriting passes (see rewrite.hpp).
#include "passes/rewrite.hpp"

namespace nabla::graph {

std::string side_effect(const Node& n) {
  if (n.op == "batch_norm" && n.attrs.has("training") && n.attrs.b("training"))
    return "training mode updates the running statistics";
  if (n.op == "dropout") return "draws from the random generator";
  if (n.op == "copy_") return "writes into a parameter or buffer";
  return "";
}

std::string describe_node(const Graph& g, const Node& n) {
  std::string s;
  for (size_t k = 0; k < n.outputs.size(); ++k) {
    const Value& v = g.value(n.outputs[k]);
    s += (k ? ", %" : "%") + (v.name.empty() ? std::to_string(v.id) : v.name);
  }
  s += (s.empty() ? "" : " = ") + n.op;
  if (!n.origin.empty()) s += " at " + n.origin;
  return s;
}

void ValueForwarding::replace(int old_value, int new_value) {
  if (old_value >= static_cast<int>(to_.size())) to_.resize(static_cast<size_t>(old_value) + 1, -1);
  to_[static_cast<size_t>(old_value)] = new_value;
}

int ValueForwarding::resolve(int value) const {
  // Follows chains (a replaced by b, b later replaced by c).
  while (value >= 0 && value < static_cast<int>(to_.size()) && to_[static_cast<size_t>(value)] >= 0)
    value = to_[static_cast<size_t>(value)];
  return value;
}

void ValueForwarding::forward_inputs(Node& n) const {
  for (int& v : n.inputs) v = resolve(v);
}

void ValueForwarding::finish(Graph& g) const {
  for (int& v : g.outputs) v = resolve(v);
}

int remove_constants(Graph& g, const std::function<bool(int)>& drop) {
  std::vector<int> kept;
  for (int id : g.inputs) {
    const Value& v = g.value(id);
    if (v.kind == ValueKind::constant && drop(id))
      g.constants.erase(v.name);
    else
      kept.push_back(id);
  }
  int removed = static_cast<int>(g.inputs.size() - kept.size());
  g.inputs = std::move(kept);
  return removed;
}

std::vector<int> live_use_counts(const Graph& g, const std::vector<bool>& dead_nodes) {
  std::vector<int> uses(g.values.size(), 0);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (i < dead_nodes.size() && dead_nodes[i]) continue;
    for (int v : g.nodes[i].inputs)
      if (v >= 0) ++uses[static_cast<size_t>(v)];
  }
  for (int v : g.outputs) ++uses[static_cast<size_t>(v)];
  return uses;
}

}  // namespace nabla::graph
