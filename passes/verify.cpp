// The verifier: run after every pass, so a pass that breaks the graph is caught at
// once and named.
#include <string>

#include "passes/ir.hpp"
#include "passes/memory_plan.hpp"
#include "autograd/ops.hpp"

namespace nabla::graph {

namespace {

[[noreturn]] void bad(const Graph& g, int node, const std::string& after, const std::string& why) {
  std::string where = node >= 0 ? "node " + std::to_string(node) + " (" + g.nodes[static_cast<size_t>(node)].op + ")"
                                : std::string("graph");
  if (node >= 0 && !g.nodes[static_cast<size_t>(node)].origin.empty())
    where += " from " + g.nodes[static_cast<size_t>(node)].origin;
  throw Error("graph verifier" + (after.empty() ? std::string() : " after pass '" + after + "'") + ": " + where +
              ": " + why);
}

bool same_meta(const TensorMeta& a, const TensorMeta& b) { return a.dtype == b.dtype && a.sizes == b.sizes; }

void verify_graph(const Graph& g, const std::string& after) {
  std::vector<bool> defined(g.values.size(), false);
  for (size_t i = 0; i < g.values.size(); ++i)
    if (g.values[i].id != static_cast<int>(i)) bad(g, -1, after, "value " + std::to_string(i) + " has id " + std::to_string(g.values[i].id));
  for (int id : g.inputs) {
    const Value& v = g.value(id);
    if (v.kind == ValueKind::op) bad(g, -1, after, "input %" + v.name + " is marked as an op output");
    if (v.kind == ValueKind::constant && !g.constants.count(v.name))
      bad(g, -1, after, "constant %" + v.name + " has no value");
    defined[static_cast<size_t>(id)] = true;
  }
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    int ni = static_cast<int>(i);
    for (int v : n.inputs) {
      if (v >= static_cast<int>(g.values.size())) bad(g, ni, after, "uses value " + std::to_string(v) + ", which does not exist");
      if (v >= 0 && !defined[static_cast<size_t>(v)]) bad(g, ni, after, "uses %" + std::to_string(v) + " before its definition");
    }
    for (int v : n.outputs) {
      const Value& out = g.value(v);
      if (defined[static_cast<size_t>(v)]) bad(g, ni, after, "defines %" + std::to_string(v) + " twice");
      if (out.node != ni) bad(g, ni, after, "output %" + std::to_string(v) + " names node " + std::to_string(out.node));
      defined[static_cast<size_t>(v)] = true;
    }
    if (n.body) {
      verify_graph(*n.body, after);
      if (n.body->inputs.size() != n.inputs.size())
        bad(g, ni, after, "body takes " + std::to_string(n.body->inputs.size()) + " inputs, node gives " + std::to_string(n.inputs.size()));
      for (size_t k = 0; k < n.inputs.size(); ++k)
        if (n.inputs[k] < 0 || !same_meta(g.value(n.inputs[k]).meta, n.body->value(n.body->inputs[k]).meta))
          bad(g, ni, after, "body input " + std::to_string(k) + " does not match the node's input");
      if (n.body->outputs.size() != n.outputs.size()) bad(g, ni, after, "body yields a different number of outputs");
      for (size_t k = 0; k < n.outputs.size(); ++k)
        if (!same_meta(g.value(n.outputs[k]).meta, n.body->value(n.body->outputs[k]).meta))
          bad(g, ni, after, "body output " + std::to_string(k) + " has another type than the node's");
      continue;
    }
    const OpDef* def = Graph::table_op(n);
    if (!def) continue;  // graph-level ops (conv2d_act, ...) are checked by their pass's own tests
    if (def->num_inputs >= 0 && static_cast<int>(n.inputs.size()) != def->num_inputs)
      bad(g, ni, after, "takes " + std::to_string(def->num_inputs) + " inputs, has " + std::to_string(n.inputs.size()));
    std::vector<TensorMeta> metas;
    try {
      metas = infer_types(g, n, *def);
    } catch (const std::exception& e) {
      bad(g, ni, after, std::string("shape rule: ") + e.what());
    }
    if (metas.size() != n.outputs.size())
      bad(g, ni, after, "has " + std::to_string(n.outputs.size()) + " outputs, the op makes " + std::to_string(metas.size()));
    for (size_t k = 0; k < metas.size(); ++k)
      if (!same_meta(metas[k], g.value(n.outputs[k]).meta))
        bad(g, ni, after, "output " + std::to_string(k) + " is typed " + meta_str(g.value(n.outputs[k]).meta) +
                              " but the op makes " + meta_str(metas[k]));
  }
  for (int v : g.outputs)
    if (v < 0 || v >= static_cast<int>(g.values.size()) || !defined[static_cast<size_t>(v)])
      bad(g, -1, after, "returns an undefined value");
}

}  // namespace

void verify(const Graph& g, const std::string& after) {
  verify_graph(g, after);
  if (!g.plan) return;
  std::string why = memory_plan_problem(g, *g.plan);
  if (!why.empty())
    bad(g, -1, after, "the memory plan does not fit the graph (plan must run last, after every pass that changes it): " + why);
}

Tensor meta_tensor(const Value& v) {
  // One element expanded to the shape (stride 0): the right sizes and dtype without
  // the full allocation. A wrapped number stays one, since it promotes differently.
  Tensor t = expand(empty(Shape(v.meta.sizes.size(), 1), v.meta.dtype), v.meta.sizes.vec());
  t.impl()->wrapped_number = v.wrapped;
  return t;
}

std::vector<TensorMeta> infer_types(const Graph& g, const Node& n, const OpDef& def) {
  TensorList ins;
  for (int v : n.inputs) {
    if (v < 0) {
      ins.push_back(Tensor());
      continue;
    }
    ins.push_back(meta_tensor(g.value(v)));
  }
  check_inputs_present(def, ins);
  return def.infer(ins, complete_attrs(def, n.attrs));
}

}  // namespace nabla::graph
