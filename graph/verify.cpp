// The verifier: run after every pass, so a pass that breaks the graph is caught at
// once and named, and on graphs read from text, so that a hand-written or damaged
// graph is refused before the executor trusts it.
//
// Note [Verified nodes]
// Every node is checked against what it claims to be. A node of the op table: the
// row's arity, its absent inputs only where the row allows them, its attributes by
// name and kind (AttrKind: what the kernels' Attrs accessors accept), and its output
// types recomputed with the row's shape rule. A graph-level op (those passes make,
// which the executor implements itself): by the rule of its name below; a node with
// a body is checked as a graph of its own, and the executor runs its body when no
// kernel has its name. Any other name is an unknown op. Values: every input defined before its use, each constant's
// tensor of its declared type, a wrapped number 0-dim f64, i64 or bool. Errors name the node, its
// line in the IR text (parse_graph records it) and its DSL line.
#include <algorithm>
#include <string>

#include "autograd/ops.hpp"
#include "graph/control_flow.hpp"
#include "graph/executor.hpp"
#include "graph/ir.hpp"
#include "graph/memory_plan.hpp"
#include "graph/rewrite.hpp"

namespace nabla::graph {

namespace {

// Where the verifier is: the graph, the pass that ran last, and the node it checks.
// (`within`: "in the body of node 3 (fused) at line 7: " for a body's nodes.)
struct Site {
  const Graph& g;
  const std::string& after;
  int node = -1;
  std::string within;
};

std::string node_place(const Graph& g, int node) {
  const Node& n = g.nodes[static_cast<size_t>(node)];
  std::string where = "node " + std::to_string(node) + " (" + n.name() + ")";
  if (n.text_line > 0) where += " at line " + std::to_string(n.text_line);
  if (!n.origin.empty()) where += " from " + n.origin;
  return where;
}

[[noreturn]] void bad(const Site& s, const std::string& why) {
  std::string where = s.within + (s.node >= 0 ? node_place(s.g, s.node) : std::string("graph"));
  throw Error("graph verifier" + (s.after.empty() ? std::string() : " after pass '" + s.after + "'") + ": " + where +
              ": " + why);
}

bool same_meta(const TensorMeta& a, const TensorMeta& b) { return a.dtype == b.dtype && a.sizes == b.sizes; }

std::string count_of(size_t n, const char* what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

// ---- values --------------------------------------------------------------------------

void verify_values(const Site& s) {
  const Graph& g = s.g;
  for (size_t i = 0; i < g.values.size(); ++i) {
    const Value& v = g.values[i];
    if (v.id != static_cast<int>(i)) bad(s, "value " + std::to_string(i) + " has id " + std::to_string(v.id));
    bool number_type = v.meta.dtype == DType::f64 || v.meta.dtype == DType::i64 || v.meta.dtype == DType::b8;
    if (v.wrapped && (!number_type || !v.meta.sizes.empty()))
      bad(s, "value %" + (v.name.empty() ? std::to_string(i) : v.name) + " is a wrapped number typed " +
                 meta_str(v.meta) + " (a wrapped number is f64[], i64[] or bool[])");
  }
  for (int id : g.inputs) {
    if (id < 0 || id >= static_cast<int>(g.values.size())) bad(s, "input " + std::to_string(id) + " does not exist");
    const Value& v = g.value(id);
    if (v.kind == ValueKind::op) bad(s, "input %" + v.name + " is marked as an op output");
    if (v.kind != ValueKind::constant) continue;
    auto it = g.constants.find(v.name);
    if (it == g.constants.end()) bad(s, "constant %" + v.name + " has no value");
    TensorMeta have{it->second.sizes(), it->second.dtype()};
    if (!same_meta(have, v.meta))
      bad(s, "constant %" + v.name + " is typed " + meta_str(v.meta) + " but its tensor is " + meta_str(have));
  }
}

// ---- table ops -----------------------------------------------------------------------

const char* kind_name(AttrKind k) {
  switch (k) {
    case AttrKind::integer: return "an int";
    case AttrKind::number: return "a number";
    case AttrKind::boolean: return "a bool";
    case AttrKind::ints: return "a list of ints";
    case AttrKind::dtype: return "a dtype";
  }
  return "?";
}

// Whether `v` is what the kernels read an attribute of kind `spec.kind` as (the Attrs
// accessors: an int also reads as a number, a bool as an int); none only where the
// row's default is none.
bool attr_fits(const AttrSpec& spec, const AttrValue& v) {
  if (std::holds_alternative<NoneAttr>(v)) return !spec.required && std::holds_alternative<NoneAttr>(spec.default_value);
  switch (spec.kind) {
    case AttrKind::integer: return std::holds_alternative<int64_t>(v) || std::holds_alternative<bool>(v);
    case AttrKind::number: return std::holds_alternative<double>(v) || std::holds_alternative<int64_t>(v);
    case AttrKind::boolean: return std::holds_alternative<bool>(v);
    case AttrKind::ints: return std::holds_alternative<std::vector<int64_t>>(v);
    case AttrKind::dtype: return std::holds_alternative<DType>(v);
  }
  return false;
}

// The layout attributes of the nodes that know oneDNN's channel-blocked layout (Note
// [Blocked activations between convolutions] in passes/block_layout.cpp):
// blocked_inputs, the input slots that hold it, and blocked_out, the outputs do.
bool blocked_layout_attribute(const Node& n, const Attr& a) {
  if (a.name == "blocked_out") return std::holds_alternative<bool>(a.value) && writes_blocked_layout(n);
  if (a.name == "window_codes")  // Note [Window codes] in tensor/cpu/kernels.hpp
    return std::holds_alternative<bool>(a.value) && Graph::table_op(n) && n.op == OpId::max_pool2d_backward;
  if (a.name != "blocked_inputs" || !std::holds_alternative<std::vector<int64_t>>(a.value)) return false;
  for (int64_t slot : std::get<std::vector<int64_t>>(a.value))
    if (slot < 0 || slot >= static_cast<int64_t>(n.inputs.size()) ||
        !reads_blocked_layout(n, static_cast<size_t>(slot)))
      return false;
  return true;
}

void verify_attrs(const Site& s, const Node& n, const OpDef& def) {
  for (const Attr& a : n.attrs.items()) {
    if (blocked_layout_attribute(n, a)) continue;
    const AttrSpec* spec = nullptr;
    for (const AttrSpec& sp : def.attrs)
      if (sp.name == a.name) spec = &sp;
    if (!spec) {
      std::string names;
      for (const AttrSpec& sp : def.attrs) names += (names.empty() ? "" : ", ") + sp.name;
      bad(s, "unknown attribute '" + a.name + "' (" + def.name + " takes " + (names.empty() ? "none" : names) + ")");
    }
    if (!attr_fits(*spec, a.value))
      bad(s, "attribute '" + a.name + "' must be " + kind_name(spec->kind) + ", got " + attr_value_str(a.value));
  }
  for (const AttrSpec& sp : def.attrs)
    if (sp.required && !n.attrs.has(sp.name)) bad(s, "the required attribute '" + sp.name + "' is missing");
}

void verify_table_node(const Site& s, const Node& n, const OpDef& def) {
  if (def.num_inputs >= 0 && static_cast<int>(n.inputs.size()) != def.num_inputs)
    bad(s, "takes " + std::to_string(def.num_inputs) + " inputs, has " + std::to_string(n.inputs.size()));
  if (def.num_inputs < 0 && n.inputs.empty()) bad(s, "takes a list of inputs, has none");
  verify_attrs(s, n, def);
  std::vector<TensorMeta> metas;
  try {
    metas = infer_types(s.g, n, def);
  } catch (const std::exception& e) {
    bad(s, std::string("shape rule: ") + e.what());
  }
  if (metas.size() != n.outputs.size())
    bad(s, "has " + std::to_string(n.outputs.size()) + " outputs, the op makes " + std::to_string(metas.size()));
  for (size_t k = 0; k < metas.size(); ++k)
    if (!same_meta(metas[k], s.g.value(n.outputs[k]).meta))
      bad(s, "output " + std::to_string(k) + " is typed " + meta_str(s.g.value(n.outputs[k]).meta) +
                 " but the op makes " + meta_str(metas[k]));
}

// ---- graph-level ops -----------------------------------------------------------------

void verify_graph(const Graph& g, const std::string& after, const std::string& within);

// The attributes a node outside the table may carry: an epilogue node's packed_weight
// (Note [Packed weights in a training step] in passes/fuse_epilogue.cpp), and the
// layout attributes.
bool layout_attribute(const Node& n, const Attr& a) {
  if (blocked_layout_attribute(n, a)) return true;
  return n.kind == NodeKind::epilogue && a.name == "packed_weight" && std::holds_alternative<bool>(a.value);
}

// nChw16c indices are window codes when the plain 2x2 pool made them, flat indices
// otherwise (Note [Window codes] in tensor/cpu/kernels.hpp): a max_pool2d_backward
// says which it reads (window_codes=true), and a first layer's weight gradient reads
// only codes.
template <class Named>
void verify_window_codes(const Site& s, const Node& n, const Named& named) {
  const Graph& g = s.g;
  if (Graph::table_op(n) && n.op == OpId::max_pool2d_backward && n.inputs.size() == 2 && n.inputs[1] >= 0) {
    const bool codes = n.attrs.has("window_codes") && n.attrs.b("window_codes");
    const bool expected = named(1) && made_by_plain_2x2_pool(g, n.inputs[1]);
    if (codes != expected)
      bad(s, n.name() + (codes ? " reads window codes (window_codes=true), but its indices %"
                               : " reads flat indices, but its indices %") +
                 value_name(g, n.inputs[1]) +
                 (expected ? " are the plain 2x2 pool's in nChw16c, which are window codes: window_codes=true is needed"
                           : " are not the plain 2x2 pool's in nChw16c: window_codes must be absent"));
  }
  if (auto [grad, indices] = pool_gradient_slots(n); indices >= 0 && named(static_cast<size_t>(indices)) &&
                                                       !made_by_plain_2x2_pool(g, n.inputs[static_cast<size_t>(indices)]))
    bad(s, n.name() + " reads its pool's nChw16c indices as window codes, which only the plain 2x2 pool makes");
}

// Producers and readers of a value agree on its layout: a node with blocked_out makes
// nChw16c values, which every reader names in its blocked_inputs, and which are not
// returned; no reader names a slot whose value is NCHW.
void verify_blocked_layouts(const Graph& g, const std::string& after, const std::string& within) {
  auto flag = [](const Node& n) { return n.attrs.has("blocked_out") && n.attrs.b("blocked_out"); };
  auto blocked_value = [&](int v) {
    const Value& value = g.value(v);
    return value.kind == ValueKind::op && flag(g.nodes[static_cast<size_t>(value.node)]);
  };
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    Site s{g, after, static_cast<int>(i), within};
    // The layout exists for whole blocks of 16 channels of f32 (a pool's i64 indices).
    for (int v : flag(n) ? n.outputs : std::vector<int>{}) {
      const TensorMeta& m = g.value(v).meta;
      if (!fits_channel_blocks(m.sizes) || (m.dtype != DType::f32 && m.dtype != DType::i64))
        bad(s, "blocked_out=true on %" + value_name(g, v) + " of type " + meta_str(m) +
                   ": nChw16c holds non-empty f32 [N, C, H, W] with C a multiple of 16");
    }
    std::vector<int64_t> slots =
        n.attrs.has("blocked_inputs") ? n.attrs.ints("blocked_inputs") : std::vector<int64_t>{};
    auto named = [&](size_t k) {
      return std::find(slots.begin(), slots.end(), static_cast<int64_t>(k)) != slots.end();
    };
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      int v = n.inputs[k];
      if (v < 0 || named(k) == blocked_value(v)) continue;
      bad(s, "input " + std::to_string(k) + " (%" + value_name(g, v) + ") " +
                 (named(k) ? "is named in blocked_inputs, but its producer writes NCHW (no blocked_out)"
                           : "holds nChw16c (its producer's blocked_out), but blocked_inputs does not name it"));
    }
    // The pool gradient reads its gradient and indices in one layout, and ReLU's
    // gradient runs elementwise over its operands' memory, its result's too.
    const OpDef* def = Graph::table_op(n);
    bool tied = def && (def->id == OpId::max_pool2d_backward || def->id == OpId::threshold_backward);
    bool all_or_none = named(0) == named(1) && (!def || def->id != OpId::threshold_backward || named(0) == flag(n));
    if (tied && !all_or_none)
      bad(s, n.name() + " reads " + (def->id == OpId::threshold_backward ? "and writes " : "") +
                 "its operands in one layout: blocked_inputs=[0, 1]" +
                 (def->id == OpId::threshold_backward ? " with blocked_out=true" : "") + ", or neither");
    if (tied && def->id == OpId::threshold_backward && named(0) && !operands_share_shape(g, n))
      bad(s, "threshold_backward broadcasts its operands, which nChw16c cannot hold: blocked_inputs must be absent");
    verify_window_codes(s, n, named);
  }
  for (int v : g.outputs)
    if (blocked_value(v))
      bad(Site{g, after, -1, within},
          "returns %" + value_name(g, v) + ", which holds nChw16c (its producer's blocked_out)");
}

void expect_shape(const Site& s, const Node& n, size_t inputs, size_t outputs, bool body) {
  if (n.inputs.size() != inputs)
    bad(s, "takes " + count_of(inputs, "input") + ", has " + std::to_string(n.inputs.size()));
  for (int v : n.inputs)
    if (v < 0) bad(s, "an input is none; " + n.name() + " needs every input");
  if (n.outputs.size() != outputs)
    bad(s, "makes " + count_of(outputs, "output") + ", has " + std::to_string(n.outputs.size()));
  for (const Attr& a : n.attrs.items())
    if (!layout_attribute(n, a)) bad(s, n.name() + " takes no attributes, has " + n.attrs.str());
  if (body && !n.body) bad(s, n.name() + " needs a body (the ops it computes)");
  if (!body && n.body) bad(s, n.name() + " has no body");
}

// copy_(dst, src): writes src, broadcast to dst's shape and converted to its dtype,
// into a parameter or buffer (graph/capture.hpp).
void verify_copy(const Site& s, const Node& n) {
  expect_shape(s, n, 2, 0, false);
  const Value& dst = s.g.value(n.inputs[0]);
  const Value& src = s.g.value(n.inputs[1]);
  if (dst.kind != ValueKind::param)
    bad(s, "copy_ writes into a parameter or buffer, but %" + (dst.name.empty() ? std::to_string(dst.id) : dst.name) +
               " is not one");
  const Shape& to = dst.meta.sizes;
  const Shape& from = src.meta.sizes;
  bool fits = from.size() <= to.size();
  for (size_t k = 0; fits && k < from.size(); ++k) {
    int64_t f = from[from.size() - 1 - k], t = to[to.size() - 1 - k];
    fits = f == t || f == 1;
  }
  if (!fits) bad(s, "copy_ of " + meta_str(src.meta) + " into " + meta_str(dst.meta) + ": the shapes do not broadcast");
}

// What the kernel of a node with a body needs of the body beyond being well formed.
void verify_body_ops(const Site& s, const Node& n) {
  const Graph& body = *n.body;
  if (n.kind == NodeKind::fused) {  // one result: an elementwise body runs as one loop, others op by op
    if (body.outputs.size() != 1) bad(s, "a fused body yields one value, this one " + std::to_string(body.outputs.size()));
    return;
  }
  if (n.kind != NodeKind::epilogue) return;  // any other name: the executor runs the body
  // linear_<act>, conv2d_<act> (passes/fuse_epilogue.cpp): the base op, then the
  // activation on its result; conv2d_<act>_max_pool2d: then the pool of that, whose
  // outputs are the node's.
  OpId base = n.epilogue.base, act = n.epilogue.activation, pool = n.epilogue.pool;
  size_t ops = pool == OpId::kCount ? 2 : 3;
  auto feeds = [&](size_t k) {  // body node k reads node k - 1's one result
    return body.nodes[k - 1].outputs.size() == 1 && body.nodes[k].inputs.size() == 1 &&
           body.nodes[k].inputs[0] == body.nodes[k - 1].outputs[0];
  };
  bool shaped = body.nodes.size() == ops && body.nodes[0].op == base && body.nodes[1].op == act && feeds(1) &&
                (ops == 2 || (body.nodes[2].op == pool && feeds(2))) && body.outputs == body.nodes.back().outputs;
  if (!shaped)
    bad(s, std::string("its body must be ") + op_name(base) + " and then " + op_name(act) + " of its result" +
               (ops == 3 ? std::string(", then ") + op_name(pool) + " of that" : ""));
}

// A node with a body: the body well formed, its inputs and outputs those of the node.
void verify_body(const Site& s, const Node& n) {
  expect_shape(s, n, n.inputs.size(), n.outputs.size(), true);
  verify_graph(*n.body, s.after, s.within + "in the body of " + node_place(s.g, s.node) + ": ");
  const Graph& body = *n.body;
  if (body.inputs.size() != n.inputs.size())
    bad(s, "body takes " + std::to_string(body.inputs.size()) + " inputs, node gives " + std::to_string(n.inputs.size()));
  for (size_t k = 0; k < n.inputs.size(); ++k)
    if (!same_meta(s.g.value(n.inputs[k]).meta, body.value(body.inputs[k]).meta))
      bad(s, "body input " + std::to_string(k) + " does not match the node's input");
  if (body.outputs.size() != n.outputs.size()) bad(s, "body yields a different number of outputs");
  for (size_t k = 0; k < n.outputs.size(); ++k)
    if (!same_meta(s.g.value(n.outputs[k]).meta, body.value(body.outputs[k]).meta))
      bad(s, "body output " + std::to_string(k) + " has another type than the node's");
  verify_body_ops(s, n);
}

// cond, while_loop, scan: each region a graph of its own, then the layout of
// operands, regions and outputs (See Note [Control-flow regions] in control_flow.hpp).
void verify_control_flow(const Site& s, const Node& n) {
  const std::vector<std::string>& labels = region_labels(n.kind);
  for (size_t r = 0; r < n.regions.size(); ++r)
    if (n.regions[r])
      verify_graph(*n.regions[r], s.after,
                   s.within + "in region '" + (r < labels.size() ? labels[r] : "?") + "' of " + node_place(s.g, s.node) + ": ");
  if (std::string why = control_flow_problem(s.g, n); !why.empty()) bad(s, why);
}

void verify_node(const Site& s, const Node& n) {
  if (is_control_flow(n)) return verify_control_flow(s, n);
  if (!n.regions.empty()) bad(s, n.name() + " has regions; only cond, while_loop and scan do");
  if (const OpDef* def = Graph::table_op(n)) return verify_table_node(s, n, *def);
  if (n.kind == NodeKind::copy) return verify_copy(s, n);
  // fused, linear_<act>, conv2d_<act>, or a group that the executor runs as its body;
  // not under the name of a row, whose kernel it would seem to be.
  if (n.body && n.kind == NodeKind::table) bad(s, n.name() + " is an op of the table, which has no body");
  if (n.body) return verify_body(s, n);
  if (n.kind == NodeKind::fused || n.kind == NodeKind::epilogue)
    bad(s, n.name() + " needs a body (the ops it computes)");
  // A custom name is left: registered at run time (register_graph_op), its own rules.
  if (has_graph_op(n.custom_name)) return;
  bad(s, "unknown op '" + n.name() + "' (not an op of the table, nor a graph-level op: copy_, fused, "
         "linear_<activation>, conv2d_<activation>, or a node with a body)");
}

void verify_graph(const Graph& g, const std::string& after, const std::string& within) {
  Site graph_site{g, after, -1, within};
  verify_values(graph_site);
  std::vector<bool> defined(g.values.size(), false);
  for (int id : g.inputs) defined[static_cast<size_t>(id)] = true;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    Site s{g, after, static_cast<int>(i), within};
    for (int v : n.inputs) {
      if (v >= static_cast<int>(g.values.size())) bad(s, "uses value " + std::to_string(v) + ", which does not exist");
      if (v >= 0 && !defined[static_cast<size_t>(v)]) bad(s, "uses %" + std::to_string(v) + " before its definition");
    }
    for (int v : n.outputs) {
      if (v < 0 || v >= static_cast<int>(g.values.size())) bad(s, "defines value " + std::to_string(v) + ", which does not exist");
      const Value& out = g.value(v);
      if (defined[static_cast<size_t>(v)]) bad(s, "defines %" + std::to_string(v) + " twice");
      if (out.node != s.node) bad(s, "output %" + std::to_string(v) + " names node " + std::to_string(out.node));
      defined[static_cast<size_t>(v)] = true;
    }
    verify_node(s, n);
  }
  for (int v : g.outputs)
    if (v < 0 || v >= static_cast<int>(g.values.size()) || !defined[static_cast<size_t>(v)])
      bad(graph_site, "returns an undefined value");
  verify_blocked_layouts(g, after, within);
  if (!g.plan) return;  // the top-level graph's plan, or a region's
  std::string why = memory_plan_problem(g, *g.plan);
  if (!why.empty())
    bad(graph_site,
        "the memory plan does not fit the graph (plan must run last, after every pass that changes it): " + why);
}

}  // namespace

void verify(const Graph& g, const std::string& after) { verify_graph(g, after, ""); }

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
  return def.infer(ins, complete_attrs(def, n.attrs, /*graph_node=*/true));
}

}  // namespace nabla::graph
