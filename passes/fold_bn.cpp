// Conv+BatchNorm folding (eval mode): batch_norm(conv2d(x, w, b)) with running
// statistics is one conv2d with scaled weights and a shifted bias,
//
//   s  = gamma * rsqrt(running_var + eps)            (gamma = 1 without affine)
//   w' = w * s[:, None, None, None]
//   b' = (b - running_mean) * s + beta               (b = 0 without a conv bias)
//
// written as graph nodes on the parameters, not baked into constants: a model whose
// parameters change later (training resumes, a checkpoint loads) still computes the
// right thing, and the nodes cost a pass over the weights per call. fold turns them
// into constants when the parameters are constants; fuse_epilogue then makes
// Conv+BN+ReLU one conv2d_relu.
//
// Left alone, with a note when explaining: batch_norm in training mode (it normalises
// with the batch's statistics and updates the running ones), without running
// statistics, after something other than conv2d, or after a conv2d whose result has
// other consumers.
#include "graph/rewrite.hpp"
#include "passes/passes.hpp"

namespace nabla::graph {

namespace {

// batch_norm's inputs, by position in its row.
enum BnInput { kInput = 0, kGamma = 1, kBeta = 2, kMean = 3, kVar = 4 };

std::string fold_blocker(const Graph& g, const Node& bn, const std::vector<int>& uses) {
  if (bn.attrs.b("training")) return "training mode (it normalises with the batch's statistics)";
  if (bn.inputs.size() != 5 || bn.inputs[kMean] < 0 || bn.inputs[kVar] < 0) return "no running statistics";
  const Value& in = g.value(bn.inputs[kInput]);
  if (in.kind != ValueKind::op || g.nodes[static_cast<size_t>(in.node)].op != OpId::conv2d)
    return "its input is not a conv2d";
  if (uses[static_cast<size_t>(in.id)] > 1) return "the conv2d result has other consumers";
  if (!is_floating(in.meta.dtype)) return "dtype";
  return "";
}

// Appends the nodes that compute w' and b' (the pass moves them before their conv),
// each with the batch_norm's DSL line.
struct Folder {
  Graph& g;
  std::string origin;

  int node(OpId op, std::vector<int> inputs, Attrs attrs, const TensorMeta& meta) {
    int index = g.add_node(op, std::move(inputs), std::move(attrs), {meta}, origin);
    return g.nodes[static_cast<size_t>(index)].outputs[0];
  }
};

PassResult run_fold_bn(Graph& g, const PassContext& ctx) {
  PassResult r;
  std::vector<int> uses = g.use_counts();
  size_t original = g.nodes.size();
  std::vector<bool> dead(original, false);
  // Rewrites append their new nodes at the end; `before[i]` lists the appended nodes
  // that must run just before node i (the conv they feed).
  std::vector<std::vector<int>> before(original);
  ValueForwarding forward;  // readers of a folded batch_norm read its conv
  for (size_t i = 0; i < original; ++i) {
    forward.forward_inputs(g.nodes[i]);
    if (g.nodes[i].op != OpId::batch_norm || !Graph::table_op(g.nodes[i])) continue;
    std::string why = fold_blocker(g, g.nodes[i], uses);
    if (!why.empty()) {
      if (ctx.explain) r.notes.push_back(describe_node(g, g.nodes[i]) + ": not folded into a conv: " + why);
      continue;
    }
    Node bn = g.nodes[i];  // a copy: add_node may move the node vector
    int conv_index = g.value(bn.inputs[kInput]).node;
    Node conv = g.nodes[static_cast<size_t>(conv_index)];
    DType dt = g.value(conv.outputs[0]).meta.dtype;
    TensorMeta wmeta = g.value(conv.inputs[1]).meta;  // a copy: add_node grows g.values
    int64_t channels = wmeta.sizes[0];
    TensorMeta vec{Shape{channels}, dt};
    Folder f{g, bn.origin};
    size_t first_new = g.nodes.size();
    int eps = g.add_constant(scalar_tensor(bn.attrs.f("eps"), dt));
    int scale = f.node(OpId::rsqrt, {f.node(OpId::add, {bn.inputs[kVar], eps}, {}, vec)}, {}, vec);
    if (bn.inputs[kGamma] >= 0) scale = f.node(OpId::mul, {bn.inputs[kGamma], scale}, {}, vec);
    Shape column{channels, 1, 1, 1};
    int scale4 =
        f.node(OpId::reshape, {scale}, {{"shape", std::vector<int64_t>(column.begin(), column.end())}}, {column, dt});
    int weight = f.node(OpId::mul, {conv.inputs[1], scale4}, {}, wmeta);
    int centred = conv.inputs[2] >= 0 ? f.node(OpId::sub, {conv.inputs[2], bn.inputs[kMean]}, {}, vec)
                                      : f.node(OpId::neg, {bn.inputs[kMean]}, {}, vec);
    int bias = f.node(OpId::mul, {centred, scale}, {}, vec);
    if (bn.inputs[kBeta] >= 0) bias = f.node(OpId::add, {bias, bn.inputs[kBeta]}, {}, vec);
    for (size_t k = first_new; k < g.nodes.size(); ++k)
      before[static_cast<size_t>(conv_index)].push_back(static_cast<int>(k));
    // The conv reads the folded weight and bias and takes over the batch_norm's output.
    Node& c = g.nodes[static_cast<size_t>(conv_index)];
    c.inputs[1] = weight;
    c.inputs[2] = bias;
    forward.replace(bn.outputs[0], c.outputs[0]);
    dead[i] = true;
    ++r.changes;
  }
  if (!r.changes) return r;
  forward.finish(g);
  // Put the appended nodes before their conv, then drop the batch_norms.
  std::vector<Node> ordered;
  std::vector<bool> ordered_dead;
  for (size_t i = 0; i < original; ++i) {
    for (int k : before[i]) {
      ordered.push_back(std::move(g.nodes[static_cast<size_t>(k)]));
      ordered_dead.push_back(false);
    }
    ordered.push_back(std::move(g.nodes[i]));
    ordered_dead.push_back(dead[i]);
  }
  g.nodes = std::move(ordered);
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (int v : g.nodes[i].outputs) g.value(v).node = static_cast<int>(i);
  g.compact(ordered_dead);
  return r;
}

}  // namespace

PassInfo fold_bn_pass() {
  return {"fold_bn",
          "Conv+BatchNorm folding in eval mode: the conv's weight and bias absorb the normalisation",
          {},
          run_fold_bn};
}

}  // namespace nabla::graph
