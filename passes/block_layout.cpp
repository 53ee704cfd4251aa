// The channel-blocked layout between convolutions: values that only oneDNN's
// convolutions and the ops around them read stay in the layout oneDNN computes in.
//
// Note [Blocked activations between convolutions]
// oneDNN's convolutions compute in a channel-blocked layout (nChw16c on AVX-512): a
// plain NCHW operand is reordered into it first, and a result back out of it. Between
// two kernels that both want the blocked layout, both reorders are work that nothing
// reads. In the Fashion-MNIST CNN's training step they were eight passes over 1.6 to
// 6.4 MB, about a fifth of the step. So a value may hold nChw16c instead of NCHW: it
// keeps its type and its memory (the same number of elements), and only kernels that
// know the layout see it.
//
// The kernels that can write the layout: a conv2d_<act>_max_pool2d (its result and its
// indices, the same layout), conv2d_backward_input (the input's gradient),
// max_pool2d_backward (its gradient); those that can read it: a conv2d epilogue's input,
// conv2d_backward_input's output gradient, conv2d_backward_weight_bias's input and
// output gradient (or, when it computes that by max_pool2d_backward, the pool's
// gradient and indices: both or neither), max_pool2d_backward's gradient and indices
// (both, or neither).
// threshold_backward (ReLU's gradient) is elementwise over operands of one shape, so
// it reads and writes whatever layout its operands share (not when it broadcasts).
// Values that must agree are one group: a node's result and indices, the pool
// gradient's two inputs, and the threshold_backward's operands and result. A group
// holds nChw16c when every value in it is f32 [N, C, H, W] with C a multiple of 16,
// none empty (or i64 indices of such a result: the plain 2x2 pool's as window codes,
// whose readers get window_codes=true, Note [Window codes] in
// tensor/cpu/kernels.hpp), each made by a node that can write the layout and read
// only where the layout can be read, none returned, and the group has a convolution
// at one end (else it would gain nothing). The nodes get blocked_inputs (the input
// slots that hold the layout) and blocked_out (their outputs do); the verifier checks
// that producers and readers agree. A kernel that cannot use the layout (on a GPU; a
// CPU without AVX-512) ignores the flags, producers and readers alike
// (cpu::blocked_input), so they always agree.
#include <algorithm>
#include <map>
#include <numeric>

#include "graph/rewrite.hpp"
#include "passes/passes.hpp"

namespace nabla::graph {

namespace {

bool convolution(const Node& n) {
  return (n.kind == NodeKind::epilogue && n.epilogue.base == OpId::conv2d) || is_weight_bias_gradient(n) ||
         (Graph::table_op(n) && n.op == OpId::conv2d_backward_input);
}

// ReLU's gradient runs over blocked memory only when it does not broadcast.
bool elementwise_fits(const Graph& g, const Node& n) {
  return !Graph::table_op(n) || n.op != OpId::threshold_backward || operands_share_shape(g, n);
}

// Values that must share one layout, as a union-find over value ids.
struct Groups {
  std::vector<int> parent;
  explicit Groups(size_t values) : parent(values) { std::iota(parent.begin(), parent.end(), 0); }
  int find(int v) {  // iterative, halving the path: a long chain of ties must not recurse
    while (parent[static_cast<size_t>(v)] != v) {
      int up = parent[static_cast<size_t>(v)];
      parent[static_cast<size_t>(v)] = parent[static_cast<size_t>(up)];
      v = up;
    }
    return v;
  }
  void join(int a, int b) { parent[static_cast<size_t>(find(a))] = find(b); }
};

Groups tied_values(const Graph& g) {
  Groups groups(g.values.size());
  for (const Node& n : g.nodes) {
    bool pooled_conv = n.kind == NodeKind::epilogue && n.epilogue.pool != OpId::kCount && n.outputs.size() == 2;
    if (pooled_conv) groups.join(n.outputs[0], n.outputs[1]);
    // a weight gradient that takes the pool's gradient apart: its two operands, as
    // max_pool2d_backward's below
    if (auto [grad, indices] = pool_gradient_slots(n); grad >= 0 && indices >= 0)
      groups.join(n.inputs[static_cast<size_t>(grad)], n.inputs[static_cast<size_t>(indices)]);
    if (!Graph::table_op(n) || n.inputs.size() < 2 || n.inputs[0] < 0 || n.inputs[1] < 0) continue;
    if (n.op == OpId::max_pool2d_backward) groups.join(n.inputs[0], n.inputs[1]);
    if (n.op == OpId::threshold_backward && operands_share_shape(g, n)) {
      groups.join(n.inputs[0], n.inputs[1]);
      groups.join(n.inputs[0], n.outputs[0]);
    }
  }
  return groups;
}

// Why value v cannot hold nChw16c by itself, or "".
std::string keeps_plain(const Graph& g, int v, const std::vector<std::vector<std::pair<int, size_t>>>& readers) {
  const Value& value = g.value(v);
  const TensorMeta& m = value.meta;
  if (value.kind != ValueKind::op) return "not made by a node";
  const Node& p = g.nodes[static_cast<size_t>(value.node)];
  bool indices = p.outputs.size() == 2 && p.outputs[1] == v;
  if (m.dtype != (indices ? DType::i64 : DType::f32)) return std::string("dtype ") + dtype_name(m.dtype);
  if (!fits_channel_blocks(m.sizes)) return "not [N, C, H, W] with C a multiple of 16, none empty";
  if (!writes_blocked_layout(p) || !elementwise_fits(g, p)) return "made by " + p.name();
  for (int out : g.outputs)
    if (out == v) return "returned";
  for (auto [node, slot] : readers[static_cast<size_t>(v)])
    if (!reads_blocked_layout(g.nodes[static_cast<size_t>(node)], slot) ||
        !elementwise_fits(g, g.nodes[static_cast<size_t>(node)]))
      return "read by " + g.nodes[static_cast<size_t>(node)].name();
  return "";
}

// A pool gradient that reads nChw16c indices reads window codes when the plain 2x2 pool
// made them (Note [Window codes] in tensor/cpu/kernels.hpp).
bool reads_codes(const Graph& g, const Node& n, const std::vector<char>& blocked) {
  return Graph::table_op(n) && n.op == OpId::max_pool2d_backward && n.inputs.size() == 2 && n.inputs[1] >= 0 &&
         blocked[static_cast<size_t>(n.inputs[1])] && made_by_plain_2x2_pool(g, n.inputs[1]);
}

void set_flags(const Graph& g, Node& n, const std::vector<char>& blocked) {
  n.attrs.erase("blocked_inputs");
  n.attrs.erase("blocked_out");
  n.attrs.erase("window_codes");
  std::vector<int64_t> slots;
  for (size_t k = 0; k < n.inputs.size(); ++k)
    if (n.inputs[k] >= 0 && blocked[static_cast<size_t>(n.inputs[k])]) slots.push_back(static_cast<int64_t>(k));
  if (!slots.empty()) n.attrs.set("blocked_inputs", slots);
  if (!n.outputs.empty() && blocked[static_cast<size_t>(n.outputs[0])]) n.attrs.set("blocked_out", true);
  if (reads_codes(g, n, blocked)) n.attrs.set("window_codes", true);
}

PassResult run_block_layout(Graph& g, const PassContext& ctx) {
  PassResult r;
  std::vector<std::vector<std::pair<int, size_t>>> readers(g.values.size());
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (size_t k = 0; k < g.nodes[i].inputs.size(); ++k)
      if (int v = g.nodes[i].inputs[k]; v >= 0) readers[static_cast<size_t>(v)].emplace_back(static_cast<int>(i), k);
  Groups groups = tied_values(g);
  // group root -> its values: nodes' results, and the graph's inputs that a tie joins
  // to them (threshold_backward(%input, %pooled)), which keep the group NCHW
  std::map<int, std::vector<int>> members;
  std::vector<char> seen(g.values.size(), 0);
  for (const Node& n : g.nodes)
    for (const std::vector<int>* values : {&n.inputs, &n.outputs})
      for (int v : *values)
        if (v >= 0 && !seen[static_cast<size_t>(v)]) {
          seen[static_cast<size_t>(v)] = 1;
          members[groups.find(v)].push_back(v);
        }
  std::vector<char> blocked(g.values.size(), 0);
  for (auto& [root, values] : members) {
    bool near_convolution = false;
    std::string why;
    for (int v : values) {
      const Value& value = g.value(v);
      if (value.kind == ValueKind::op)
        near_convolution = near_convolution || convolution(g.nodes[static_cast<size_t>(value.node)]);
      for (auto [node, slot] : readers[static_cast<size_t>(v)])
        near_convolution = near_convolution || convolution(g.nodes[static_cast<size_t>(node)]);
      if (why.empty() && !(why = keeps_plain(g, v, readers)).empty())
        why = std::string(1, '%').append(value_name(g, v)).append(" ").append(why);  // GCC 12's false -Wrestrict
    }
    bool any_result =
        std::any_of(values.begin(), values.end(), [&](int v) { return g.value(v).kind == ValueKind::op; });
    if (!near_convolution || !any_result) continue;
    std::string listed;
    for (int v : values) listed += std::string(listed.empty() ? "" : ", ") + "%" + value_name(g, v);
    if (!why.empty()) {
      if (ctx.explain) r.notes.push_back(listed + " stay NCHW: " + why);
      continue;
    }
    for (int v : values) blocked[static_cast<size_t>(v)] = 1;
    ++r.changes;
    r.notes.push_back(listed + " hold nChw16c (oneDNN's channel-blocked layout) between the kernels that read them");
  }
  for (Node& n : g.nodes)
    if (writes_blocked_layout(n) || is_weight_bias_gradient(n) || convolution(n)) set_flags(g, n, blocked);
  return r;
}

}  // namespace

// Top level only: a region's nodes may be replayed one eager call at a time for a
// gradient (replay_eager in graph/control_flow_grad.cpp), and an eager call takes no
// layout.
PassInfo block_layout_pass() {
  return {"block_layout",
          "values that only convolutions and the ops around them read hold oneDNN's channel-blocked layout",
          {},
          run_block_layout,
          /*retypes=*/false,
          /*top_level_only=*/true};
}

}  // namespace nabla::graph
