// Helpers shared by the rewriting passes (see rewrite.hpp).
#include "graph/rewrite.hpp"

#include <algorithm>
#include <map>

#include "tensor/cpu/conv_geometry.hpp"
#include "tensor/cpu/kernels.hpp"

namespace nabla::graph {

namespace {

// batch_norm in training mode with running statistics (without them it is pure).
bool updates_running_stats(const Node& n) {
  return n.op == OpId::batch_norm && n.attrs.has("training") && n.attrs.b("training") && n.inputs.size() == 5 &&
         n.inputs[3] >= 0;
}

// Rows that write their inputs on every call (the optimizer steps, Note [Rows that
// write their inputs] in autograd/ops/optim.cpp); batch_norm writes only in training.
bool steps_in_place(const Node& n) {
  const OpDef* def = Graph::table_op(n);
  return def && def->updated_inputs != 0 && n.op != OpId::batch_norm;
}

}  // namespace

bool is_collective(OpId op) {
  switch (op) {
    case OpId::dist_copy:
    case OpId::dist_reduce:
    case OpId::dist_split:
    case OpId::dist_gather:
    case OpId::dist_shard_gather:
    case OpId::dist_shard_reduce:
      return true;
    default:
      return false;
  }
}

bool is_raise(const Node& n) { return n.kind == NodeKind::custom && n.custom_name == "raise"; }

namespace {
thread_local int quiet_raises = 0;
}

QuietRaises::QuietRaises(bool on) : on_(on) { quiet_raises += on_ ? 1 : 0; }
QuietRaises::~QuietRaises() { quiet_raises -= on_ ? 1 : 0; }
bool QuietRaises::active() { return quiet_raises > 0; }

std::string side_effect(const Node& n) {
  if (is_raise(n)) return "raises the program's error where a call takes a failing side";
  // A region's effects are its node's: a cond whose side draws (an `if` that only
  // draws, yielding nothing) was dropped by dce, and the generator fell behind eager's.
  for (const auto& r : n.regions)
    if (r)
      for (const Node& inner : r->nodes)
        if (std::string e = side_effect(inner); !e.empty()) return "holds " + inner.name() + ", which " + e;
  if (updates_running_stats(n)) return "training mode updates the running statistics";
  if (n.kind == NodeKind::table && draws_random_numbers(n.op)) return "draws from the random generator";
  if (n.kind == NodeKind::copy) return "writes into a parameter or buffer";
  if (steps_in_place(n) || is_optimizer_steps(n)) return "updates a parameter and its optimizer state in place";
  if (is_collective(n.op)) return "communicates with the other ranks, which run the same calls in the same order";
  return "";
}

std::vector<size_t> written_inputs(const Node& n) {
  if (n.kind == NodeKind::copy) return {0};
  if (updates_running_stats(n)) return {3, 4};
  std::vector<size_t> written;
  if (steps_in_place(n))
    for (size_t k = 0; k < n.inputs.size() && k < 32; ++k)
      if (Graph::table_op(n)->updated_inputs >> k & 1u) written.push_back(k);
  if (is_optimizer_steps(n) && n.body)  // what its rows write, as the node's own inputs
    for (const Node& row : n.body->nodes)
      for (size_t k : written_inputs(row))
        if (int64_t slot = body_input_slot(n, row.inputs[k]); slot >= 0) written.push_back(static_cast<size_t>(slot));
  return written;
}

bool is_view_node(const Node& n) {
  const OpDef* def = Graph::table_op(n);
  return def && def->view;
}

std::vector<int> storage_roots(const Graph& g) {
  std::vector<int> roots(g.values.size());
  for (size_t v = 0; v < roots.size(); ++v) roots[v] = static_cast<int>(v);
  for (const Node& n : g.nodes) {  // in order: an input's root is known before its use
    if (!is_view_node(n) || n.inputs.empty() || n.inputs[0] < 0) continue;
    for (int out : n.outputs) roots[static_cast<size_t>(out)] = roots[static_cast<size_t>(n.inputs[0])];
  }
  return roots;
}

std::vector<bool> written_storage(const Graph& g, const std::vector<int>& roots) {
  std::vector<bool> written_root(g.values.size(), false);
  for (const Node& n : g.nodes)
    for (size_t k : written_inputs(n))
      if (k < n.inputs.size() && n.inputs[k] >= 0)
        written_root[static_cast<size_t>(roots[static_cast<size_t>(n.inputs[k])])] = true;
  std::vector<bool> written(g.values.size(), false);
  for (size_t v = 0; v < written.size(); ++v) written[v] = written_root[static_cast<size_t>(roots[v])];
  return written;
}

std::string value_name(const Graph& g, int id) {
  const Value& v = g.value(id);
  return v.name.empty() ? std::to_string(v.id) : v.name;
}

std::string describe_node(const Graph& g, const Node& n) {
  std::string s;
  for (size_t k = 0; k < n.outputs.size(); ++k) s += (k ? ", %" : "%") + value_name(g, n.outputs[k]);
  s += (s.empty() ? "" : " = ") + n.name();
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

void fuse_nodes(Graph& g, const std::vector<int>& members, const Node& head, std::vector<bool>& dead,
                bool every_output) {
  auto body = std::make_shared<Graph>();
  body->name = head.name();
  std::vector<int> outer_inputs;
  std::map<int, int> inner;  // outer value -> body value
  auto body_value = [&](int outer) {
    if (outer < 0) return -1;
    auto it = inner.find(outer);
    if (it != inner.end()) return it->second;
    int id = body->add_input("in" + std::to_string(outer_inputs.size()), ValueKind::input, g.value(outer).meta);
    body->value(id).wrapped = g.value(outer).wrapped;
    outer_inputs.push_back(outer);
    return inner[outer] = id;
  };
  std::vector<std::string> absorbed;
  for (int m : members) {
    const Node& n = g.nodes[static_cast<size_t>(m)];
    std::vector<int> ins;
    for (int v : n.inputs) ins.push_back(body_value(v));
    std::vector<TensorMeta> metas;
    for (int v : n.outputs) metas.push_back(g.value(v).meta);
    int b = body->add_node(n.operation(), ins, n.attrs, metas, n.origin);
    const Node& copy = body->nodes[static_cast<size_t>(b)];
    for (size_t k = 0; k < n.outputs.size(); ++k) inner[n.outputs[k]] = copy.outputs[k];
    absorbed.push_back(n.origin.empty() ? n.name() : n.name() + " at " + n.origin);
  }
  Node& root = g.nodes[static_cast<size_t>(members.back())];
  std::vector<int> outputs = root.outputs;
  if (every_output) {
    outputs.clear();
    for (int m : members)
      for (int v : g.nodes[static_cast<size_t>(m)].outputs) outputs.push_back(v);
  }
  for (int v : outputs) body->outputs.push_back(inner.at(v));
  Node fused = head.operation();
  fused.inputs = outer_inputs;
  fused.outputs = outputs;
  fused.origin = root.origin;
  fused.body = std::move(body);
  fused.absorbed = std::move(absorbed);
  root = std::move(fused);
  for (size_t k = 0; k + 1 < members.size(); ++k) dead[static_cast<size_t>(members[k])] = true;
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

bool is_optimizer_steps(const Node& n) { return n.kind == NodeKind::custom && n.custom_name == kOptimizerSteps; }

bool is_weight_bias_gradient(const Node& n) {
  return n.kind == NodeKind::custom && n.custom_name == kWeightBiasGradient;
}

int64_t body_input_slot(const Node& n, int body_value) {
  for (size_t k = 0; n.body && k < n.body->inputs.size(); ++k)
    if (n.body->inputs[k] == body_value) return static_cast<int64_t>(k);
  return -1;
}

std::pair<int64_t, int64_t> pool_gradient_slots(const Node& n) {
  if (!is_weight_bias_gradient(n) || !n.body) return {-1, -1};
  for (const Node& b : n.body->nodes)
    if (Graph::table_op(b) && b.op == OpId::max_pool2d_backward && b.inputs.size() == 2)
      return {body_input_slot(n, b.inputs[0]), body_input_slot(n, b.inputs[1])};
  return {-1, -1};
}

bool pools_plain_2x2(const Node& pooled_conv) {
  if (pooled_conv.kind != NodeKind::epilogue || pooled_conv.epilogue.pool != OpId::max_pool2d || !pooled_conv.body ||
      pooled_conv.body->nodes.size() != 3)
    return false;
  const Node& pool = pooled_conv.body->nodes[2];
  const Shape& pooled_input = pooled_conv.body->value(pool.inputs[0]).meta.sizes;
  return pooled_input.size() == 4 && cpu::is_plain_2x2(cpu::pool_geometry(pooled_input, pool.attrs, "max_pool2d"));
}

bool made_by_plain_2x2_pool(const Graph& g, int v) {
  const Value& value = g.value(v);
  return value.kind == ValueKind::op && pools_plain_2x2(g.nodes[static_cast<size_t>(value.node)]);
}

bool fits_channel_blocks(const Shape& sizes) {
  if (sizes.size() != 4 || sizes[1] % 16 != 0) return false;
  return std::all_of(sizes.begin(), sizes.end(), [](int64_t d) { return d > 0; });
}

bool reads_blocked_layout(const Node& n, size_t slot) {
  if (n.kind == NodeKind::epilogue) return n.epilogue.base == OpId::conv2d && slot == 0;
  if (is_weight_bias_gradient(n)) return true;
  if (!Graph::table_op(n)) return false;
  switch (n.op) {
    case OpId::conv2d_backward_input: return slot == 0;
    case OpId::max_pool2d_backward:
    case OpId::threshold_backward: return slot < 2;
    default: return false;
  }
}

bool operands_share_shape(const Graph& g, const Node& n) {
  if (n.outputs.empty()) return false;
  const Shape& out = g.value(n.outputs[0]).meta.sizes;
  for (int v : n.inputs)
    if (v < 0 || g.value(v).meta.sizes != out) return false;
  return true;
}

bool writes_blocked_layout(const Node& n) {
  if (n.kind == NodeKind::epilogue) return n.epilogue.base == OpId::conv2d && n.epilogue.pool != OpId::kCount;
  return Graph::table_op(n) && (n.op == OpId::conv2d_backward_input || n.op == OpId::max_pool2d_backward ||
                                n.op == OpId::threshold_backward);
}

}  // namespace nabla::graph
