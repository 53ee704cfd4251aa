// The channel-blocked layout between convolutions: a pooled convolution whose result
// only other convolutions read hands it on in the layout oneDNN computes in.
//
// Note [Blocked activations between convolutions]
// oneDNN's convolutions compute in a channel-blocked layout (nChw16c on AVX-512): a
// plain NCHW input is reordered into it first, and conv2d_<act>_max_pool2d writes its
// pooled result back to NCHW from it (a transpose per output row). Between two such
// nodes both copies are work that nothing reads: the second convolution only wants
// the blocked layout again. So when every reader of a pooled convolution's result is
// a conv2d epilogue node taking it as its input (not a graph output, no view, its
// indices unread), f32 with channels a multiple of 16, the producer gets
// blocked_out=true and the readers blocked_in=true: the value keeps its type and its
// memory (the same number of elements) but holds the blocked layout, which only those
// kernels see. A kernel that cannot use the layout (on a GPU; a CPU without AVX-512)
// ignores both flags, on the producer and the readers alike, so they always agree.
#include "graph/rewrite.hpp"
#include "passes/passes.hpp"

namespace nabla::graph {

namespace {

constexpr int64_t kChannelBlock = 16;

bool conv_epilogue(const Node& n) { return n.kind == NodeKind::epilogue && n.epilogue.base == OpId::conv2d; }

bool flagged(const Node& n, const char* name) { return n.attrs.has(name) && n.attrs.b(name); }

// Why value v (output 0 of pooled convolution node `producer`) must stay NCHW, or "".
std::string keeps_plain(const Graph& g, size_t producer, const std::vector<int>& uses) {
  const Node& p = g.nodes[producer];
  int v = p.outputs[0];
  const TensorMeta& m = g.value(v).meta;
  if (m.dtype != DType::f32) return "not f32";
  if (m.sizes.size() != 4 || m.sizes[1] % kChannelBlock != 0) return "channels not a multiple of 16";
  if (p.outputs.size() > 1 && uses[static_cast<size_t>(p.outputs[1])] > 0) return "its indices are read";
  for (int out : g.outputs)
    if (out == v) return "returned";
  int readers = 0;
  for (size_t i = producer + 1; i < g.nodes.size(); ++i) {
    const Node& r = g.nodes[i];
    for (size_t k = 0; k < r.inputs.size(); ++k) {
      if (r.inputs[k] != v) continue;
      if (!conv_epilogue(r) || k != 0) return "read by " + r.name() + " (not as a convolution's input)";
      ++readers;
    }
  }
  return readers > 0 ? "" : "not read";
}

PassResult run_block_layout(Graph& g, const PassContext& ctx) {
  PassResult r;
  std::vector<int> uses = g.use_counts();
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& p = g.nodes[i];
    if (!conv_epilogue(p) || p.epilogue.pool == OpId::kCount || flagged(p, "blocked_out")) continue;
    std::string why = keeps_plain(g, i, uses);
    if (!why.empty()) {
      if (ctx.explain) r.notes.push_back(describe_node(g, p) + ": result stays NCHW: " + why);
      continue;
    }
    p.attrs.set("blocked_out", true);
    int v = p.outputs[0];
    for (size_t j = i + 1; j < g.nodes.size(); ++j)
      if (!g.nodes[j].inputs.empty() && g.nodes[j].inputs[0] == v) g.nodes[j].attrs.set("blocked_in", true);
    ++r.changes;
    r.notes.push_back(describe_node(g, p) + ": hands its result on channel-blocked (nChw16c) to the convolutions "
                                            "that read it");
  }
  return r;
}

}  // namespace

PassInfo block_layout_pass() {
  return {"block_layout",
          "a pooled convolution whose result only convolutions read hands it on in oneDNN's channel-blocked layout",
          {},
          run_block_layout};
}

}  // namespace nabla::graph
