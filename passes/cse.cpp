// Common subexpression elimination: two nodes with the same op, the same inputs and
// equal attributes compute the same values, so the later one goes and its users read
// the earlier one's outputs. Attributes compare after the row's defaults are filled
// in ({dim=1} equals {dim=1, keepdim=false}). Nodes with a fused body, and nodes with
// an effect outside the graph (dropout, batch_norm in training mode) are never merged.
#include <algorithm>
#include <unordered_map>

#include "passes/ir_text.hpp"
#include "passes/passes.hpp"
#include "passes/rewrite.hpp"

namespace nabla::graph {

namespace {

// The attributes as "name=value" texts sorted by name, defaults filled in for table
// ops; number_text prints every double distinctly, so equal texts mean equal values.
std::string attrs_key(const Node& n) {
  const OpDef* def = Graph::table_op(n);
  Attrs attrs = def ? complete_attrs(*def, n.attrs) : n.attrs;
  std::vector<std::string> items;
  for (const Attr& a : attrs.items()) items.push_back(a.name + "=" + attr_text(a.value));
  std::sort(items.begin(), items.end());
  std::string key;
  for (const std::string& item : items) key += item + ",";
  return key;
}

// Everything that decides what a node computes: op, inputs, attributes, and the output
// types (graph-level ops have no shape rule that would make them follow).
std::string node_key(const Graph& g, const Node& n) {
  std::string key = n.op + "(";
  for (int v : n.inputs) key += std::to_string(v) + ",";
  key += "){" + attrs_key(n) + "}:";
  for (int v : n.outputs) key += meta_str(g.value(v).meta) + ",";
  return key;
}

PassResult run_cse(Graph& g, const PassContext& ctx) {
  PassResult r;
  std::vector<bool> dead(g.nodes.size(), false);
  std::unordered_map<std::string, size_t> first;  // node key -> the earliest node with it
  ValueForwarding forward;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& n = g.nodes[i];
    forward.forward_inputs(n);
    if (n.body || n.outputs.empty()) continue;  // a node without outputs exists for its effect
    std::string key = node_key(g, n);
    auto [it, inserted] = first.emplace(key, i);
    if (inserted) continue;
    const Node& earlier = g.nodes[it->second];
    std::string effect = side_effect(n);
    if (!effect.empty()) {
      if (ctx.explain)
        r.notes.push_back(describe_node(g, n) + ": not merged with " + describe_node(g, earlier) + ": " + effect);
      continue;
    }
    for (size_t k = 0; k < n.outputs.size(); ++k) forward.replace(n.outputs[k], earlier.outputs[k]);
    dead[i] = true;
    ++r.changes;
  }
  if (!r.changes) return r;
  forward.finish(g);
  g.compact(dead);
  return r;
}

}  // namespace

PassInfo cse_pass() {
  return {"cse", "common subexpression elimination: merge nodes that compute the same thing", {}, run_cse};
}

}  // namespace nabla::graph
