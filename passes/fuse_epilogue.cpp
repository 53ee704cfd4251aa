// Epilogue fusion: linear or conv2d followed by an activation becomes one node,
// `linear_relu`, `conv2d_gelu`, ..., whose kernel applies the bias and the activation
// inside the library call (oneDNN post-ops; graph/fused_kernels.cpp). The node's
// body holds the two ops it absorbed, so it reads, verifies and draws like any fused
// node. After fold_bn, Conv+BatchNorm+ReLU is one conv2d_relu.
//
// A max_pool2d that is the activation's only reader joins a conv2d's node
// (`conv2d_relu_max_pool2d`): oneDNN computes the convolution in its own layout, and
// the kernel pools from that layout straight into NCHW, so the full-size result is
// never reordered (the reorder and the pool cost a CNN about as much as its
// convolutions). The node's outputs are the pool's, indices included (computed only
// when read).
//
// Note [Packed weights in a training step]
// The kernel keeps the weight in the layout oneDNN computes on, reordered once per
// weight version: an inference graph pays once, and each call after runs faster
// (about 15% on the MLP). In a training step the optimizer changes every weight
// between calls, so the reorder would run on every call, and the profiled CNN step's
// fc1 took 2.2x as long as reading the weight where it is. So in a training step
// (PassContext::training_step) the node gets packed_weight=false.
//
// Left alone, with a note when explaining: an activation whose input has other
// consumers (or is returned: the pre-activation value must exist), and dtypes other
// than f32 (the oneDNN kernels are f32; f64 would gain nothing).
#include <algorithm>

#include "graph/rewrite.hpp"
#include "passes/passes.hpp"

namespace nabla::graph {

namespace {

// Why the activation node `a` cannot be folded into its producer `p`, or "".
std::string epilogue_blocker(const Graph& g, const Node& p, const std::vector<int>& uses) {
  int v = p.outputs[0];
  if (uses[static_cast<size_t>(v)] > 1) return std::string("the ") + op_name(p.op) + " result has other consumers";
  DType dt = g.value(v).meta.dtype;
  if (dt != DType::f32) return std::string("dtype ") + dtype_name(dt) + " (the fused kernels are f32)";
  return "";
}

// The max_pool2d node that is the only reader of node `act`'s result, or -1; a pool
// follows only a conv2d.
int pool_after(const Graph& g, const Node& base, size_t act, const std::vector<int>& uses) {
  int v = g.nodes[act].outputs[0];
  if (base.op != OpId::conv2d || uses[static_cast<size_t>(v)] != 1) return -1;
  for (size_t j = act + 1; j < g.nodes.size(); ++j) {
    const Node& n = g.nodes[j];
    if (std::find(n.inputs.begin(), n.inputs.end(), v) == n.inputs.end()) continue;
    return Graph::table_op(n) && n.op == OpId::max_pool2d && n.inputs[0] == v ? static_cast<int>(j) : -1;
  }
  return -1;  // a graph output
}

// Note [The bias gradient with the weight gradient]
// A convolution's backward computes its weight's gradient, conv2d_backward_weight(x,
// g), and its bias's, sum(g) over N, H, W: two passes over g, the largest tensor of
// the layer's backward. oneDNN's backward-weights primitive writes the bias's
// gradient too while it reads g, so the two become one custom node,
// conv2d_backward_weight_bias, whose body is the two ops (a GPU, and dtypes other than
// f32, run the body). f32 nodes of one g with dims [0, 2, 3]; the node goes where the
// earlier of the two was (kWeightBiasGradient, graph/rewrite.hpp).

bool sums_bias_gradient(const Graph& g, const Node& n) {
  if (!Graph::table_op(n) || n.op != OpId::sum || n.inputs.size() != 1 || n.outputs.size() != 1) return false;
  const TensorMeta& in = g.value(n.inputs[0]).meta;
  return in.sizes.size() == 4 && in.dtype == DType::f32 && n.attrs.has("dims") &&
         n.attrs.ints("dims") == std::vector<int64_t>{0, 2, 3} && !(n.attrs.has("keepdim") && n.attrs.b("keepdim"));
}

// The index of the node that defines v (-1: an input, param or constant).
int definer(const Graph& g, int v) { return g.value(v).kind == ValueKind::op ? g.value(v).node : -1; }

// Note [The pool's gradient inside the first layer's weight gradient]
// A network's first convolution needs no input gradient, so the gradient of its output,
// max_pool2d_backward(g, indices) of its pool, exists only for the weight and bias
// gradients: in the Fashion-MNIST CNN a 6.4 MB tensor, three quarters zeros, written
// by scattering a quarter of it and read back once. When the convolution has few input
// channels (at most 4) and the pool is the plain 2x2 one, the max_pool2d_backward joins
// the conv2d_backward_weight_bias node's body: the CPU kernel builds each pixel's
// gradient in registers from the pooled gradient and the indices (both nChw16c, as
// block_layout leaves them; the indices as window codes) and never stores it
// (cpu::conv2d_pool_backward_weight_bias, tensor/cpu/conv_few_channels.cpp). Elsewhere
// (a GPU, another layout, a code that names no cell) the body's three ops run.

// The max_pool2d_backward that makes weight gradient w's output gradient, read by w
// and its bias gradient alone, when the note above applies; else -1.
int absorbable_pool_gradient(const Graph& g, const Node& w, const std::vector<int>& uses) {
  const TensorMeta& x = g.value(w.inputs[0]).meta;
  int p = definer(g, w.inputs[1]);
  if (p < 0 || x.sizes.size() != 4 || x.sizes[1] > 4 || uses[static_cast<size_t>(w.inputs[1])] != 2) return -1;
  const Node& pool = g.nodes[static_cast<size_t>(p)];
  if (!Graph::table_op(pool) || pool.op != OpId::max_pool2d_backward || pool.inputs.size() != 2) return -1;
  int pooled = definer(g, pool.inputs[1]);
  return pooled >= 0 && pools_plain_2x2(g.nodes[static_cast<size_t>(pooled)]) ? p : -1;
}

int fuse_bias_gradients(Graph& g, const PassContext& ctx, PassResult& r) {
  std::vector<bool> dead(g.nodes.size(), false);
  const std::vector<int> uses = g.use_counts();
  int changes = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& w = g.nodes[i];
    if (dead[i] || !Graph::table_op(w) || w.op != OpId::conv2d_backward_weight || w.inputs.size() != 2 ||
        g.value(w.outputs[0]).meta.dtype != DType::f32)
      continue;
    int grad = w.inputs[1];
    for (size_t j = 0; j < g.nodes.size(); ++j) {
      if (dead[j] || !sums_bias_gradient(g, g.nodes[j]) || g.nodes[j].inputs[0] != grad) continue;
      size_t first = std::min(i, j), later = std::max(i, j);
      // The later node's inputs must exist where the node goes, and its output not
      // be read before the later node's own place.
      bool movable = true;
      for (int v : g.nodes[later].inputs) movable = movable && definer(g, v) < static_cast<int>(first);
      for (size_t k = first + 1; k < later && movable; ++k)
        for (int v : g.nodes[k].inputs) movable = movable && v != g.nodes[later].outputs[0];
      if (!movable) {
        if (ctx.explain) r.notes.push_back(describe_node(g, w) + ": its bias gradient stays apart: the two cannot meet");
        continue;
      }
      // fuse_nodes puts the node at its last member's place: the earlier of the two.
      std::vector<int> members = {static_cast<int>(i), static_cast<int>(j)};
      if (first == i) std::swap(members[0], members[1]);
      int pool = absorbable_pool_gradient(g, w, uses);
      if (pool >= 0) members.insert(members.begin(), pool);
      fuse_nodes(g, members, Node::named(kWeightBiasGradient), dead, true);
      if (pool >= 0) {  // the pool's gradient is the body's own, not an output
        Node& fused = g.nodes[first];
        fused.outputs.erase(fused.outputs.begin());
        fused.body->outputs.erase(fused.body->outputs.begin());
        r.notes.push_back(describe_node(g, fused) + ": the pool's gradient computed inside the first layer's weight "
                          "gradient, never stored");
      }
      ++changes;
      break;
    }
  }
  if (changes) g.compact(dead);
  return changes;
}

PassResult run_fuse_epilogue(Graph& g, const PassContext& ctx) {
  PassResult r;
  std::vector<int> uses = g.use_counts();
  std::vector<bool> dead(g.nodes.size(), false);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& a = g.nodes[i];
    if (!Graph::table_op(a) || !is_epilogue_activation(a.op) || a.inputs.empty() || a.inputs[0] < 0) continue;
    const Value& in = g.value(a.inputs[0]);
    if (in.kind != ValueKind::op) continue;
    int p = in.node;
    const Node& producer = g.nodes[static_cast<size_t>(p)];
    if (!Graph::table_op(producer) || !is_epilogue_base(producer.op)) continue;
    std::string why = epilogue_blocker(g, producer, uses);
    if (!why.empty()) {
      if (ctx.explain)
        r.notes.push_back(describe_node(g, a) + ": not fused into " + op_name(producer.op) + ": " + why);
      continue;
    }
    int pool = pool_after(g, producer, i, uses);
    int root = pool < 0 ? static_cast<int>(i) : pool;
    if (pool < 0) {
      fuse_nodes(g, {p, static_cast<int>(i)}, Node::epilogue_of(producer.op, a.op), dead);
    } else {
      fuse_nodes(g, {p, static_cast<int>(i), pool}, Node::epilogue_of(producer.op, a.op, OpId::max_pool2d), dead);
    }
    // Note [Packed weights in a training step]
    if (ctx.training_step) g.nodes[static_cast<size_t>(root)].attrs.set("packed_weight", false);
    ++r.changes;
  }
  if (r.changes) g.compact(dead);
  r.changes += fuse_bias_gradients(g, ctx, r);
  return r;
}

}  // namespace

std::string fusion_kinds(const OpDef& row) {
  std::string s;
  if (elementwise_fusable(row)) s = "elementwise";
  if (is_epilogue_activation(row.id)) s += s.empty() ? "epilogue" : ",epilogue";
  if (is_epilogue_base(row.id)) s += s.empty() ? "epilogue base" : ",epilogue base";
  return s.empty() ? "-" : s;
}

PassInfo fuse_epilogue_pass() {
  return {"fuse_epilogue",
          "epilogue fusion: linear or conv2d and the activation after it (and a max pool after a conv2d's) "
          "become one library call",
          {},
          run_fuse_epilogue};
}

}  // namespace nabla::graph
