// The layout rules of cond, while_loop and scan (See Note [Control-flow regions] in
// graph/control_flow.hpp), for the verifier. Each check returns why the node is not
// well formed, or "" when that part holds.
#include "graph/control_flow.hpp"

#include <algorithm>

namespace nabla::graph {

bool is_control_flow(NodeKind kind) {
  return kind == NodeKind::cond || kind == NodeKind::while_loop || kind == NodeKind::scan;
}

const std::vector<std::string>& region_labels(NodeKind kind) {
  static const std::vector<std::string> cond = {"then", "else"}, loop = {"cond", "body"}, scan = {"body"}, none;
  switch (kind) {
    case NodeKind::cond: return cond;
    case NodeKind::while_loop: return loop;
    case NodeKind::scan: return scan;
    default: return none;
  }
}

std::vector<int> region_params(const Graph& region) {
  std::vector<int> ids;
  for (int id : region.inputs)
    if (region.value(id).kind != ValueKind::constant) ids.push_back(id);
  return ids;
}

TensorMeta stacked_meta(TensorMeta m, int64_t length) {
  m.sizes.insert(0, length);
  return m;
}

ControlLayout control_layout(const Node& n) {
  ControlLayout l;
  size_t operands = n.inputs.size();
  if (n.kind == NodeKind::cond) {
    l.invariants = operands - 1;
    return l;
  }
  l.carried = static_cast<size_t>(n.attrs.i("carried"));
  if (n.kind == NodeKind::while_loop) l.stacks_carries = n.attrs.has("trips");
  if (n.kind == NodeKind::scan) {
    l.stacks_carries = n.attrs.has("stack_carries") && n.attrs.b("stack_carries");
    l.scanned = static_cast<size_t>(n.attrs.i("scanned"));
    l.length = n.attrs.i("length");
    l.reverse = n.attrs.has("reverse") && n.attrs.b("reverse");
  }
  l.invariants = operands - l.carried - l.scanned;
  return l;
}

namespace {

bool same_meta(const TensorMeta& a, const TensorMeta& b) { return a.dtype == b.dtype && a.sizes == b.sizes; }

std::vector<TensorMeta> metas_of(const Graph& g, const std::vector<int>& ids) {
  std::vector<TensorMeta> out;
  for (int id : ids) out.push_back(g.value(id).meta);
  return out;
}

// "f32[3], i64[]"
std::string metas_text(const std::vector<TensorMeta>& ms) {
  std::string s;
  for (size_t k = 0; k < ms.size(); ++k) s += (k ? ", " : "") + meta_str(ms[k]);
  return s.empty() ? "nothing" : s;
}

// `what` of region `label` must be exactly `want` (count and types).
std::string expect_metas(const std::string& label, const std::string& what, const std::vector<TensorMeta>& have,
                         const std::vector<TensorMeta>& want) {
  bool same = have.size() == want.size();
  for (size_t k = 0; same && k < have.size(); ++k) same = same_meta(have[k], want[k]);
  if (same) return "";
  return "region '" + label + "' " + what + " (" + metas_text(have) + "), expected " + metas_text(want);
}

// A region's inputs: only the node's operands (inputs) and its own constants.
std::string region_inputs_problem(const std::string& label, const Graph& r, const std::vector<TensorMeta>& want) {
  for (int id : r.inputs)
    if (r.value(id).kind == ValueKind::param)
      return "region '" + label + "' has a param %" + r.value(id).name +
             " (a region reads only its inputs and constants: pass the parameter as an operand)";
  return expect_metas(label, "takes", metas_of(r, region_params(r)), want);
}

// The node's attributes: the ints `required` and `optional` (each >= 0) and the bools
// `flags`, no others, every required one present.
std::string attrs_problem(const Node& n, const std::vector<std::string>& required, const std::vector<std::string>& optional,
                          const std::vector<std::string>& flags) {
  auto listed = [](const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  for (const Attr& a : n.attrs.items()) {
    bool is_int = listed(required, a.name) || listed(optional, a.name);
    if (is_int && (!std::holds_alternative<int64_t>(a.value) || std::get<int64_t>(a.value) < 0))
      return "attribute '" + a.name + "' must be an int >= 0, got " + attr_value_str(a.value);
    if (listed(flags, a.name) && !std::holds_alternative<bool>(a.value))
      return "attribute '" + a.name + "' must be a bool, got " + attr_value_str(a.value);
    if (!is_int && !listed(flags, a.name)) {
      std::string names;
      for (const auto* group : {&required, &optional, &flags})
        for (const std::string& i : *group) names += (names.empty() ? "" : ", ") + i;
      return "unknown attribute '" + a.name + "' (" + n.name() + " takes " + (names.empty() ? "none" : names) + ")";
    }
  }
  for (const std::string& i : required)
    if (!n.attrs.has(i)) return "the required attribute '" + i + "' is missing";
  return "";
}

// The carries entering each of `length` steps, stacked (See Note [Control-flow
// gradients] in graph/control_flow_grad.hpp): outputs after the node's own.
void add_stacked_carries(std::vector<TensorMeta>& outs, const std::vector<TensorMeta>& carried, int64_t length) {
  for (const TensorMeta& m : carried) outs.push_back(stacked_meta(m, length));
}

std::string cond_problem(const Graph& g, const Node& n) {
  if (n.inputs.empty()) return "cond takes a predicate and operands, has no inputs";
  const TensorMeta& pred = g.value(n.inputs[0]).meta;
  if (pred.dtype != DType::b8 || !pred.sizes.empty())
    return "the predicate must be bool[] (one boolean, 0-dim), got " + meta_str(pred);
  std::vector<TensorMeta> operands = metas_of(g, {n.inputs.begin() + 1, n.inputs.end()});
  std::vector<TensorMeta> outs = metas_of(g, n.outputs);
  for (size_t r = 0; r < 2; ++r) {
    const std::string& label = region_labels(n.kind)[r];
    if (std::string why = region_inputs_problem(label, *n.regions[r], operands); !why.empty()) return why;
    if (std::string why = expect_metas(label, "yields", metas_of(*n.regions[r], n.regions[r]->outputs), outs);
        !why.empty())
      return why + " (the node's outputs)";
  }
  return "";
}

// A loop body yields its carried values first, each of the type it came in with.
std::string carried_problem(const Graph& body, const std::vector<TensorMeta>& carried) {
  if (body.outputs.size() < carried.size())
    return "region 'body' yields " + std::to_string(body.outputs.size()) + " values, fewer than the " +
           std::to_string(carried.size()) + " carried";
  for (size_t k = 0; k < carried.size(); ++k) {
    const TensorMeta& after = body.value(body.outputs[k]).meta;
    if (!same_meta(after, carried[k]))
      return "carried value " + std::to_string(k) + " enters the body as " + meta_str(carried[k]) + " and leaves it as " +
             meta_str(after) + " (a carried value keeps its shape and dtype between iterations)";
  }
  return "";
}

std::string while_problem(const Graph& g, const Node& n) {
  if (std::string why = attrs_problem(n, {"carried"}, {"trips"}, {}); !why.empty()) return why;
  size_t k = static_cast<size_t>(n.attrs.i("carried"));
  if (k > n.inputs.size()) return "carried=" + std::to_string(k) + " but the node has " + std::to_string(n.inputs.size()) + " operands";
  std::vector<TensorMeta> operands = metas_of(g, n.inputs);
  std::vector<TensorMeta> carried(operands.begin(), operands.begin() + static_cast<long>(k));
  const Graph& cond = *n.regions[0];
  const Graph& body = *n.regions[1];
  if (std::string why = region_inputs_problem("cond", cond, operands); !why.empty()) return why;
  if (std::string why = expect_metas("cond", "yields", metas_of(cond, cond.outputs), {TensorMeta{{}, DType::b8}});
      !why.empty())
    return why;
  if (std::string why = region_inputs_problem("body", body, operands); !why.empty()) return why;
  if (std::string why = carried_problem(body, carried); !why.empty()) return why;
  if (body.outputs.size() != k)
    return "region 'body' yields " + std::to_string(body.outputs.size()) + " values, a while_loop body yields its " +
           std::to_string(k) + " carried values";
  std::vector<TensorMeta> outs = metas_of(g, n.outputs), want = carried;
  if (n.attrs.has("trips")) add_stacked_carries(want, carried, n.attrs.i("trips"));
  if (!expect_metas("body", "", outs, want).empty())
    return "the outputs (" + metas_text(outs) + ") must be the carried values (" + metas_text(carried) + ")" +
           (n.attrs.has("trips") ? ", then each of them stacked over the trips" : "");
  return "";
}

// The rows of the scanned operands, each of leading size `length`.
std::string scanned_rows(const std::vector<TensorMeta>& xs, int64_t length, std::vector<TensorMeta>* rows) {
  for (size_t j = 0; j < xs.size(); ++j) {
    if (xs[j].sizes.empty() || xs[j].sizes[0] != length)
      return "scanned operand " + std::to_string(j) + " is " + meta_str(xs[j]) + ", it needs a leading size of length=" +
             std::to_string(length);
    rows->push_back({Shape(xs[j].sizes.begin() + 1, xs[j].sizes.end()), xs[j].dtype});
  }
  return "";
}

std::string scan_problem(const Graph& g, const Node& n) {
  if (std::string why = attrs_problem(n, {"carried", "scanned", "length"}, {}, {"reverse", "stack_carries"}); !why.empty())
    return why;
  size_t k = static_cast<size_t>(n.attrs.i("carried")), m = static_cast<size_t>(n.attrs.i("scanned"));
  if (k + m > n.inputs.size())
    return "carried=" + std::to_string(k) + " and scanned=" + std::to_string(m) + " but the node has " +
           std::to_string(n.inputs.size()) + " operands";
  int64_t length = n.attrs.i("length");
  std::vector<TensorMeta> operands = metas_of(g, n.inputs);
  std::vector<TensorMeta> carried(operands.begin(), operands.begin() + static_cast<long>(k));
  std::vector<TensorMeta> params = carried;
  if (std::string why = scanned_rows({operands.begin() + static_cast<long>(k), operands.begin() + static_cast<long>(k + m)},
                                     length, &params);
      !why.empty())
    return why;
  params.insert(params.end(), operands.begin() + static_cast<long>(k + m), operands.end());
  const Graph& body = *n.regions[0];
  if (std::string why = region_inputs_problem("body", body, params); !why.empty()) return why;
  if (std::string why = carried_problem(body, carried); !why.empty()) return why;
  std::vector<TensorMeta> outs = carried;
  for (size_t j = k; j < body.outputs.size(); ++j) {
    outs.push_back(stacked_meta(body.value(body.outputs[j]).meta, length));
  }
  bool stacks = n.attrs.has("stack_carries") && n.attrs.b("stack_carries");
  if (stacks) add_stacked_carries(outs, carried, length);
  std::vector<TensorMeta> have = metas_of(g, n.outputs);
  if (!expect_metas("body", "", have, outs).empty())
    return "the outputs are " + metas_text(have) + ", expected " + metas_text(outs) +
           " (the final carry, then each step output stacked along a new leading axis of length " +
           std::to_string(length) + (stacks ? ", then the carry entering each step, stacked" : "") + ")";
  return "";
}

}  // namespace

std::string control_flow_problem(const Graph& g, const Node& n) {
  const std::vector<std::string>& labels = region_labels(n.kind);
  if (n.body) return n.name() + " has regions, not a body";
  if (n.regions.size() != labels.size()) {
    std::string names;
    for (const std::string& l : labels) names += (names.empty() ? "" : ", ") + l;
    return n.name() + " takes " + std::to_string(labels.size()) + " region" + (labels.size() == 1 ? "" : "s") + " (" +
           names + "), has " + std::to_string(n.regions.size());
  }
  for (const auto& r : n.regions)
    if (!r) return n.name() + " has an empty region";
  for (int v : n.inputs)
    if (v < 0) return "an input is none; " + n.name() + " needs every input";
  switch (n.kind) {
    case NodeKind::cond:
      return n.attrs.items().empty() ? cond_problem(g, n) : "cond takes no attributes, has " + n.attrs.str();
    case NodeKind::while_loop: return while_problem(g, n);
    case NodeKind::scan: return scan_problem(g, n);
    default: return n.name() + " is not a control-flow op";
  }
}

}  // namespace nabla::graph
