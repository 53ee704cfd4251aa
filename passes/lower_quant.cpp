// Quantized-pattern lowering: the int8 ops of a quantized model, recorded as they
// run eagerly, leave int8 at every layer boundary (quantized_linear returns f32, the
// next layer quantizes that again). This pass keeps the values in int8 from one layer
// to the next by folding what follows an int8 op into its epilogue:
//
//   relu(quantized_linear(...))                    -> quantized_linear(..., relu=true)
//   quantize_per_tensor(quantized_linear(...), s, z, u8)
//                                                  -> quantized_linear(..., output_scale=s,
//                                                                      output_zero_point=z)
//   quantize_per_tensor(dequantize_per_tensor(q, s, z), s, z, dtype of q)  -> q
//
// and the same for quantized_conv2d. The second folds the next layer's activation scale
// into this layer's requantizing epilogue: the kernel multiplies the s32 sums by
// input_scale * weight_scale[n], adds the bias, applies the relu and quantizes with s
// and z, so the f32 tensor between the two layers is never written. Each rewrite gives
// bit for bit what the nodes it replaces give (Note [Requantized outputs] in
// tensor/cpu/quantized.hpp: the epilogue quantizes the very f32 value the f32 output
// would hold), which tests/passes/golden and tests/graph/test_quant_lower.dsl check.
//
// A quantize that follows the int8 op through a max_pool2d, reshape or view first
// moves above them (quantization is monotone and elementwise, so it commutes with max
// pooling and with reshaping, exactly), then folds: Conv -> ReLU -> MaxPool -> the
// next layer's quantize becomes a conv writing u8, then a u8 max pool.
//
// Left alone, with a note when explaining: an int8 op whose f32 result has other
// consumers or is returned (the f32 value must exist), a quantize to a dtype other than
// u8 (the epilogue writes u8), a quantize after an int8 op that already requantizes.
#include "graph/rewrite.hpp"
#include "passes/passes.hpp"

namespace nabla::graph {

namespace {

bool is_int8_op(const Node& n) { return Graph::table_op(n) && has_int8_epilogue(n.op); }

// Whether the int8 node writes f32 (no requantization folded into it yet).
bool writes_f32(const Node& n) { return !n.attrs.has("output_scale") || n.attrs.f("output_scale") == 0.0; }

bool has_relu(const Node& n) { return n.attrs.has("relu") && n.attrs.b("relu"); }

// The int8 node producing input 0 of `n`, or -1.
int int8_producer(const Graph& g, const Node& n) {
  if (n.inputs.empty() || n.inputs[0] < 0) return -1;
  const Value& in = g.value(n.inputs[0]);
  if (in.kind != ValueKind::op) return -1;
  return is_int8_op(g.nodes[static_cast<size_t>(in.node)]) ? in.node : -1;
}

// Why the int8 node `p` cannot take over its consumer `c` (relu or quantize), or "".
std::string fold_blocker(const Graph& g, const Node& p, const Node& c, const std::vector<int>& uses) {
  std::string op = op_name(p.op);
  if (!writes_f32(p)) return "the " + op + " already requantizes its output";
  if (uses[static_cast<size_t>(p.outputs[0])] > 1) return "the " + op + " result has other consumers";
  if (c.op == OpId::relu && has_relu(p)) return "the " + op + " already applies a relu";
  if (c.op == OpId::quantize_per_tensor && c.attrs.dtype("dtype") != DType::u8)
    return std::string("quantizes to ") + dtype_name(c.attrs.dtype("dtype")) + " (the int8 epilogue writes u8)";
  return "";
}

// quantize_per_tensor(dequantize_per_tensor(q, s, z), s, z, q's dtype) is q: the
// value of q, or -1 when `n` is not such a round trip.
int round_trip_source(const Graph& g, const Node& n) {
  if (n.op != OpId::quantize_per_tensor || n.inputs.empty() || n.inputs[0] < 0) return -1;
  const Value& in = g.value(n.inputs[0]);
  if (in.kind != ValueKind::op) return -1;
  const Node& d = g.nodes[static_cast<size_t>(in.node)];
  if (d.op != OpId::dequantize_per_tensor || d.inputs.empty() || d.inputs[0] < 0) return -1;
  bool same = d.attrs.f("scale") == n.attrs.f("scale") && d.attrs.i("zero_point") == n.attrs.i("zero_point") &&
              g.value(d.inputs[0]).meta.dtype == n.attrs.dtype("dtype");
  return same ? d.inputs[0] : -1;
}

// Ops that commute with an elementwise monotone map such as quantization: q(op(v)) is
// op(q(v)). max_pool2d only while its indices (output 1) are unused.
bool commutes_with_quantize(const Node& n, const std::vector<int>& uses) {
  if (!Graph::table_op(n)) return false;
  if (is_reshape_op(n.op)) return true;
  return n.op == OpId::max_pool2d && n.outputs.size() == 2 && uses[static_cast<size_t>(n.outputs[1])] == 0;
}

// Whether value v comes from an int8 op writing f32, through single-use relus and
// commuting ops: where a quantize moved up to v would fold.
bool reaches_int8_op(const Graph& g, int v, const std::vector<int>& uses) {
  while (v >= 0 && g.value(v).kind == ValueKind::op && uses[static_cast<size_t>(v)] == 1) {
    const Node& p = g.nodes[static_cast<size_t>(g.value(v).node)];
    if (is_int8_op(p)) return writes_f32(p);
    if (!(Graph::table_op(p) && p.op == OpId::relu) && !commutes_with_quantize(p, uses)) return false;
    v = p.inputs.empty() ? -1 : p.inputs[0];
  }
  return false;
}

// q = quantize_per_tensor(y), y = m(v) with m commuting (nodes m at i, q at j > i,
// y used by q alone) becomes t = quantize_per_tensor(v) at i, q = m(t) at j: the
// values keep their ids, so q's readers read the same value, now computed in u8.
void move_quantize_above(Graph& g, size_t i, size_t j) {
  Node m = g.nodes[i], q = g.nodes[j];
  int v = m.inputs[0], y = m.outputs[0], out = q.outputs[0];
  g.value(y).meta = {g.value(v).meta.sizes, q.attrs.dtype("dtype")};  // y now holds quantize(v)
  Node& first = g.nodes[i];
  first = q;
  first.inputs = {v};
  first.outputs = {y};
  Node& second = g.nodes[j];
  second = m;
  second.inputs[0] = y;
  second.outputs[0] = out;
  g.value(y).node = static_cast<int>(i), g.value(y).output = 0;
  for (size_t k = 0; k < second.outputs.size(); ++k)
    g.value(second.outputs[k]).node = static_cast<int>(j), g.value(second.outputs[k]).output = static_cast<int>(k);
}

// Moves every quantize that would fold above the commuting ops before it, one op per
// sweep, until none moves; returns how many moves.
int hoist_quantizes(Graph& g) {
  int moves = 0;
  for (bool moved = true; moved;) {
    moved = false;
    std::vector<int> uses = g.use_counts();
    for (size_t j = 0; j < g.nodes.size(); ++j) {
      const Node& q = g.nodes[j];
      if (!Graph::table_op(q) || q.op != OpId::quantize_per_tensor || q.inputs[0] < 0) continue;
      if (q.attrs.dtype("dtype") != DType::u8) continue;  // the int8 epilogue writes u8
      const Value& y = g.value(q.inputs[0]);
      if (y.kind != ValueKind::op || uses[static_cast<size_t>(y.id)] != 1 || y.output != 0) continue;
      const Node& m = g.nodes[static_cast<size_t>(y.node)];
      if (!commutes_with_quantize(m, uses) || !reaches_int8_op(g, m.inputs[0], uses)) continue;
      move_quantize_above(g, static_cast<size_t>(y.node), j);
      moved = true;
      ++moves;
      uses = g.use_counts();
    }
  }
  return moves;
}

PassResult run_lower_quant(Graph& g, const PassContext& ctx) {
  PassResult r;
  r.changes = hoist_quantizes(g);
  std::vector<int> uses = g.use_counts();
  std::vector<bool> dead(g.nodes.size(), false);
  ValueForwarding forward;  // readers of a folded node read what replaced it
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& c = g.nodes[i];
    forward.forward_inputs(c);
    if (!Graph::table_op(c)) continue;
    if (int q = round_trip_source(g, c); q >= 0) {
      forward.replace(c.outputs[0], q);
      dead[i] = true;
      ++r.changes;
      continue;
    }
    if (c.op != OpId::relu && c.op != OpId::quantize_per_tensor) continue;
    int p = int8_producer(g, c);
    if (p < 0) continue;
    Node& producer = g.nodes[static_cast<size_t>(p)];
    std::string why = fold_blocker(g, producer, c, uses);
    if (!why.empty()) {
      if (ctx.explain)
        r.notes.push_back(describe_node(g, c) + ": not folded into " + op_name(producer.op) + ": " + why);
      continue;
    }
    if (c.op == OpId::relu) {
      producer.attrs.set("relu", true);
    } else {
      producer.attrs.set("output_scale", c.attrs.f("scale"));
      producer.attrs.set("output_zero_point", c.attrs.i("zero_point"));
      g.value(producer.outputs[0]).meta.dtype = DType::u8;
    }
    // The producer now computes what c computed, in c's place for its readers.
    forward.replace(c.outputs[0], producer.outputs[0]);
    uses[static_cast<size_t>(producer.outputs[0])] = uses[static_cast<size_t>(c.outputs[0])];
    dead[i] = true;
    ++r.changes;
  }
  if (!r.changes) return r;
  forward.finish(g);
  g.compact(dead);
  return r;
}

}  // namespace

PassInfo lower_quant_pass() {
  return {"lower_quant",
          "int8 lowering: relu and the next layer's quantize fold into a quantized_linear or quantized_conv2d's "
          "epilogue, so activations stay u8 between layers",
          {},
          run_lower_quant};
}

}  // namespace nabla::graph
