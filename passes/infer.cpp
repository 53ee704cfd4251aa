// Shape and dtype inference: recomputes the type of every node's outputs from its
// inputs' types, in order, with the op table's shape rules (a fused node's from its
// body, re-typed the same way). Capture already types every value, so on a captured
// graph this changes nothing; it re-types a graph whose input types were edited (a
// new batch size in the text form, say) without capturing again, and `verify`
// then checks the result. A rule that rejects the new types is an error naming the
// node.
#include "graph/rewrite.hpp"
#include "passes/passes.hpp"

namespace nabla::graph {

namespace {

int retype(Graph& g);

// Re-types a fused node's body from the node's input types; returns its output types.
std::vector<TensorMeta> body_types(Graph& g, const Node& n, int& changes) {
  Graph& body = *n.body;
  for (size_t k = 0; k < n.inputs.size(); ++k) {
    TensorMeta& m = body.value(body.inputs[k]).meta;
    const TensorMeta& want = g.value(n.inputs[k]).meta;
    if (!(m.sizes == want.sizes) || m.dtype != want.dtype) {
      m = want;
      ++changes;
    }
  }
  changes += retype(body);
  std::vector<TensorMeta> out;
  for (int v : body.outputs) out.push_back(body.value(v).meta);
  return out;
}

int retype(Graph& g) {
  int changes = 0;
  for (const Node& n : g.nodes) {
    std::vector<TensorMeta> metas;
    if (n.body) {
      metas = body_types(g, n, changes);
    } else if (const OpDef* def = Graph::table_op(n)) {
      try {
        metas = infer_types(g, n, *def);
      } catch (const Error& e) {
        throw Error("infer: " + describe_node(g, n) + ": " + e.what());
      }
    } else {
      continue;  // a graph-level op without a body (copy_): no outputs to type
    }
    for (size_t k = 0; k < metas.size() && k < n.outputs.size(); ++k) {
      TensorMeta& m = g.value(n.outputs[k]).meta;
      if (!(m.sizes == metas[k].sizes) || m.dtype != metas[k].dtype) {
        m = metas[k];
        ++changes;
      }
    }
  }
  return changes;
}

PassResult run_infer(Graph& g, const PassContext&) {
  PassResult r;
  r.changes = retype(g);
  return r;
}

}  // namespace

PassInfo infer_pass() {
  return {"infer",
          "shape and dtype inference: re-type every value from its inputs with the ops' shape rules",
          {},
          run_infer,
          /*retypes=*/true,
          /*top_level_only=*/true};  // a region's types follow its node's operands
}

}  // namespace nabla::graph
