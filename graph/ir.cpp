// Building, printing and compacting graphs (the parser is in ir_parse.cpp, the
// verifier in verify.cpp).
#include "graph/ir.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "graph/control_flow.hpp"
#include "graph/ir_text.hpp"
#include "graph/memory_plan.hpp"
#include "tensor/cpu/copy.hpp"

namespace nabla::graph {

// ---- what a node computes --------------------------------------------------------

namespace {

// The one spelling of each graph-level kind that has a fixed name.
constexpr const char* kCopyName = "copy_";
constexpr const char* kFusedName = "fused";

constexpr const char* kPoolSuffix = "_max_pool2d";

// The control-flow kinds by their one spelling (graph/control_flow.hpp).
constexpr std::pair<NodeKind, const char*> kControlNames[] = {
    {NodeKind::cond, "cond"}, {NodeKind::while_loop, "while_loop"}, {NodeKind::scan, "scan"}};

// "linear_relu" -> {linear, relu}, "conv2d_relu_max_pool2d" -> {conv2d, relu,
// max_pool2d}; false unless the name is an epilogue base, '_' and an epilogue
// activation (then the pool suffix, after conv2d only). (Table names such as
// "max_pool2d" are looked up first.)
bool epilogue_from_name(std::string name, Epilogue* e) {
  size_t suffix = std::string(kPoolSuffix).size();
  bool pooled = name.size() > suffix && name.compare(name.size() - suffix, suffix, kPoolSuffix) == 0;
  if (pooled) name.resize(name.size() - suffix);
  size_t cut = name.find('_');
  if (cut == std::string::npos) return false;
  e->base = op_id_from_name(name.substr(0, cut));
  e->activation = op_id_from_name(name.substr(cut + 1));
  e->pool = pooled ? OpId::max_pool2d : OpId::kCount;
  return is_epilogue_base(e->base) && is_epilogue_activation(e->activation) && (!pooled || e->base == OpId::conv2d);
}

}  // namespace

std::string Node::name() const {
  switch (kind) {
    case NodeKind::table: return op_name(op);
    case NodeKind::copy: return kCopyName;
    case NodeKind::fused: return kFusedName;
    case NodeKind::epilogue:
      return std::string(op_name(epilogue.base)) + "_" + op_name(epilogue.activation) +
             (epilogue.pool == OpId::kCount ? "" : kPoolSuffix);
    case NodeKind::custom: return custom_name;
    case NodeKind::cond:
    case NodeKind::while_loop:
    case NodeKind::scan: break;
  }
  for (const auto& [k, name] : kControlNames)
    if (k == kind) return name;
  return "?";
}

Node Node::operation() const {
  Node n;
  n.kind = kind;
  n.op = op;
  n.epilogue = epilogue;
  n.custom_name = custom_name;
  n.payload = payload;
  return n;
}

Node Node::of(OpId op) {
  Node n;
  n.op = op;
  return n;
}

Node Node::of_kind(NodeKind kind) {
  Node n;
  n.kind = kind;
  return n;
}

Node Node::epilogue_of(OpId base, OpId activation, OpId pool) {
  Node n;
  n.kind = NodeKind::epilogue;
  n.epilogue = {base, activation, pool};
  return n;
}

// Parsing maps a name to what it stands for here, once; passes then compare ids.
Node Node::named(const std::string& name) {
  if (OpId id = op_id_from_name(name); id != OpId::kCount) return of(id);
  if (name == kCopyName) return of_kind(NodeKind::copy);
  if (name == kFusedName) return of_kind(NodeKind::fused);
  for (const auto& [kind, spelling] : kControlNames)
    if (name == spelling) return of_kind(kind);
  if (Epilogue e; epilogue_from_name(name, &e)) return epilogue_of(e.base, e.activation, e.pool);
  Node n = of_kind(NodeKind::custom);
  n.custom_name = name;
  return n;
}

// ---- building ---------------------------------------------------------------------

int Graph::add_input(const std::string& name, ValueKind kind, TensorMeta meta) {
  Value v;
  v.id = static_cast<int>(values.size());
  v.name = name;
  v.kind = kind;
  v.meta = std::move(meta);
  values.push_back(v);
  inputs.push_back(v.id);
  return v.id;
}

int Graph::add_constant(const Tensor& t, const std::string& name) {
  std::string n = name;
  for (size_t k = constants.size(); n.empty() || constants.count(n); ++k) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "c%zu", k);  // (GCC 12 warns falsely on "c" + to_string)
    n = buf;
  }
  constants[n] = t;
  int id = add_input(n, ValueKind::constant, {t.sizes(), t.dtype()});
  value(id).wrapped = t.impl()->wrapped_number;
  return id;
}

int Graph::add_node(Node head, std::vector<int> node_inputs, Attrs attrs, const std::vector<TensorMeta>& outs,
                    std::string origin) {
  Node n = head.operation();
  n.inputs = std::move(node_inputs);
  n.attrs = std::move(attrs);
  n.origin = std::move(origin);
  int index = static_cast<int>(nodes.size());
  for (size_t k = 0; k < outs.size(); ++k) {
    Value v;
    v.id = static_cast<int>(values.size());
    v.kind = ValueKind::op;
    v.meta = outs[k];
    v.node = index;
    v.output = static_cast<int>(k);
    values.push_back(v);
    n.outputs.push_back(v.id);
  }
  nodes.push_back(std::move(n));
  return index;
}

const OpDef* Graph::table_op(const Node& n) {
  bool row = n.kind == NodeKind::table && n.op != OpId::kCount;
  return row && !n.body ? &op_def(n.op) : nullptr;
}

std::vector<int> Graph::use_counts() const {
  std::vector<int> uses(values.size(), 0);
  for (const Node& n : nodes)
    for (int v : n.inputs)
      if (v >= 0) ++uses[static_cast<size_t>(v)];
  for (int v : outputs) ++uses[static_cast<size_t>(v)];
  return uses;
}

void Graph::compact(const std::vector<bool>& dead_nodes) {
  // Keep every graph input (the signature does not change) and the live nodes'
  // outputs; renumber in definition order.
  std::vector<int> remap(values.size(), -1);
  std::vector<Value> kept;
  auto keep = [&](int id) {
    Value v = values[static_cast<size_t>(id)];
    remap[static_cast<size_t>(id)] = static_cast<int>(kept.size());
    v.id = static_cast<int>(kept.size());
    kept.push_back(std::move(v));
  };
  for (int id : inputs) keep(id);
  std::vector<Node> live;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (i < dead_nodes.size() && dead_nodes[i]) continue;
    for (int id : nodes[i].outputs) keep(id);
    live.push_back(std::move(nodes[i]));
  }
  auto map_id = [&](int id) {
    if (id < 0) return -1;
    int m = remap[static_cast<size_t>(id)];
    NABLA_CHECK(m >= 0, "graph compact: a live node uses a value of a removed node");
    return m;
  };
  for (size_t i = 0; i < live.size(); ++i) {
    for (int& v : live[i].inputs) v = map_id(v);
    for (int& v : live[i].outputs) {
      v = map_id(v);
      kept[static_cast<size_t>(v)].node = static_cast<int>(i);
    }
  }
  for (int& v : inputs) v = map_id(v);
  for (int& v : outputs) v = map_id(v);
  values = std::move(kept);
  nodes = std::move(live);
}

// ---- printing ---------------------------------------------------------------------

std::string meta_str(const TensorMeta& m) {
  std::string s = dtype_name(m.dtype);
  s += "[";
  for (size_t i = 0; i < m.sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(m.sizes[i]);
  return s + "]";
}

std::string number_text(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[40];
  for (int digits : {15, 16, 17}) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, x);
    if (std::strtod(buf, nullptr) == x) break;
  }
  std::string s = buf;
  // A number attribute always shows a point or an exponent, so it never reads as an int.
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string attr_text(const AttrValue& v) {
  if (const double* d = std::get_if<double>(&v)) return number_text(*d);
  return attr_value_str(v);
}

namespace {

std::string value_ref(const Graph& g, int id) {
  if (id < 0) return "none";
  const Value& v = g.value(id);
  return "%" + (v.name.empty() ? std::to_string(id) : v.name);
}

// A constant's value inline when small ("= 0.5", "= [1.0, 2.0]"), else "= <pool>".
// (An i64 prints from its own bits: through a double, one past 2^53 would change.)
std::string constant_text(const Tensor& t) {
  if (t.numel() > kInlineConstantLimit) return "<pool>";
  Tensor c = t.dtype() == DType::i64 ? contiguous_raw(cpu_copy(t)) : Tensor();
  std::vector<double> xs = to_double_vector(t);
  bool integral = !is_floating(t.dtype());
  auto one = [&](size_t i) {
    if (t.dtype() == DType::b8) return std::string(xs[i] != 0 ? "true" : "false");
    if (t.dtype() == DType::i64) return std::to_string(c.data<int64_t>()[i]);
    return integral ? std::to_string(static_cast<int64_t>(xs[i])) : number_text(xs[i]);
  };
  if (t.dim() == 0) return one(0);
  std::string s = "[";
  for (size_t i = 0; i < xs.size(); ++i) s += (i ? ", " : "") + one(i);
  return s + "]";
}

const char* kind_word(ValueKind k) {
  switch (k) {
    case ValueKind::param: return "param ";
    case ValueKind::constant: return "const ";
    default: return "";
  }
}

void print_body(const Graph& g, const std::string& label, const std::string& indent, std::string& out);

void print_node(const Graph& g, const Node& n, const std::string& indent, std::string& out) {
  out += indent;
  for (size_t k = 0; k < n.outputs.size(); ++k) out += (k ? ", " : "") + value_ref(g, n.outputs[k]);
  if (!n.outputs.empty()) out += " = ";  // a node without outputs (copy_) is a statement
  out += n.name() + "(";
  for (size_t k = 0; k < n.inputs.size(); ++k) out += (k ? ", " : "") + value_ref(g, n.inputs[k]);
  out += ")";
  if (!n.attrs.items().empty()) {
    out += " {";
    const auto& items = n.attrs.items();
    for (size_t k = 0; k < items.size(); ++k) out += (k ? ", " : "") + items[k].name + "=" + attr_text(items[k].value);
    out += "}";
  }
  if (!n.outputs.empty()) out += " :";
  for (size_t k = 0; k < n.outputs.size(); ++k) out += (k ? ", " : " ") + meta_str(g.value(n.outputs[k]).meta);
  if (n.body) {
    out += " {\n";
    print_body(*n.body, "body", indent + "  ", out);
    out += indent + "}";
  }
  for (size_t r = 0; r < n.regions.size(); ++r) {  // control flow: "{ then(...) ... } { else(...) ... }"
    const std::vector<std::string>& labels = region_labels(n.kind);
    out += " {\n";
    print_body(*n.regions[r], r < labels.size() ? labels[r] : "region", indent + "  ", out);
    out += indent + "}";
  }
  if (!n.origin.empty()) out += "  # " + n.origin;
  out += "\n";
}

void print_signature(const Graph& g, std::string& out) {
  out += "(";
  for (size_t k = 0; k < g.inputs.size(); ++k) {
    const Value& v = g.value(g.inputs[k]);
    out += (k ? ", " : "") + value_ref(g, v.id) + ": " + kind_word(v.kind) + (v.wrapped ? "wrapped " : "");
    out += meta_str(v.meta);
    if (v.kind == ValueKind::constant) {
      auto it = g.constants.find(v.name);
      NABLA_CHECK(it != g.constants.end(), "graph: constant %" + v.name + " has no value");
      out += " = " + constant_text(it->second);
    }
  }
  out += ")";
}

// A fused node's body or a control-flow region: its label and signature line
// ("body(...)", "then(...)"), nodes, and "yield".
void print_body(const Graph& g, const std::string& label, const std::string& indent, std::string& out) {
  out += indent + label;
  print_signature(g, out);
  out += "\n";
  for (const Node& n : g.nodes) print_node(g, n, indent, out);
  out += indent + "yield";
  for (size_t k = 0; k < g.outputs.size(); ++k) out += (k ? ", " : " ") + value_ref(g, g.outputs[k]);
  out += "\n";
}

}  // namespace

std::string print_graph(const Graph& g) {
  std::string out = "graph " + g.name;
  print_signature(g, out);
  out += " {\n";
  for (const Node& n : g.nodes) print_node(g, n, "  ", out);
  out += "  return";
  for (size_t k = 0; k < g.outputs.size(); ++k) out += (k ? ", " : " ") + value_ref(g, g.outputs[k]);
  out += "\n}\n";
  if (g.plan) out += print_plan(g, *g.plan);
  return out;
}

}  // namespace nabla::graph
