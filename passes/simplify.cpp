// Algebraic simplification: rewrites that make a node unnecessary or a chain shorter,
// each one counted as a change.
//
//   x*1, 1*x, x+0, 0+x, x-0, x/1  -> x   when the constant is all ones (zeros) and the
//                                        result has exactly x's dtype and shape
//   neg(neg(x))                   -> x
//   transpose(transpose(x)), the same two dims -> x
//   reshape(reshape|view(x))      -> reshape(x);  view(view(x)) -> view(x)
//   reshape(x) or view(x) to x's own shape -> x
//   contiguous(contiguous(x))     -> contiguous(x)
//   stack(select(y, 0, 0), ..., select(y, 0, n - 1)) along dim 0 -> y, all n rows of y
//                                        in order (a list a lowered loop appended to,
//                                        stacked again)
//   threshold_backward(max_pool2d_backward(g, idx), a) with idx the pool of a's
//                                     -> max_pool2d_backward(threshold_backward(g, v), idx),
//                                        v the pool's values (Note [Masking before the
//                                        pool's scatter])
//
// A node that becomes unused (the inner reshape of a chain) is left for dce. The
// identities are exact for every x except that x+0 turns -0.0 into +0.0, a
// difference nothing downstream of a sum observes in practice (PyTorch's and XLA's
// simplifiers make the same trade).
#include <algorithm>

#include "graph/rewrite.hpp"
#include "passes/passes.hpp"

namespace nabla::graph {

namespace {

bool same_meta(const TensorMeta& a, const TensorMeta& b) { return a.dtype == b.dtype && a.sizes == b.sizes; }

// The node that defines v, or nullptr for inputs, params and constants.
const Node* producer(const Graph& g, int v) {
  if (v < 0 || g.value(v).kind != ValueKind::op || g.value(v).node < 0) return nullptr;
  return &g.nodes[static_cast<size_t>(g.value(v).node)];
}

// What the rules read besides the node: the graph, which values the graph writes into
// (See Note [Writes in the graph]), and where notes go.
struct Facts {
  const Graph& g;
  const std::vector<bool>& written;
  const PassContext& ctx;
  PassResult& r;
};

// Whether v is a constant all of whose elements equal `x` (a scalar, or any shape),
// and stays so while the graph runs (nothing writes into it).
bool constant_all_equal(const Facts& f, int v, double x) {
  if (v < 0 || f.g.value(v).kind != ValueKind::constant || f.written[static_cast<size_t>(v)]) return false;
  std::vector<double> xs = to_double_vector(f.g.constants.at(f.g.value(v).name));
  return !xs.empty() && std::all_of(xs.begin(), xs.end(), [x](double e) { return e == x; });
}

// A rule that replaces a node's single output by an existing value: returns that
// value's id, or -1 when it does not apply.
using Rule = int (*)(const Facts& f, const Node& n);

// x*1, 1*x, x+0, 0+x, x-0, x/1. Kept (with a note) when dropping the op would change
// the dtype or shape: i64 x * f32 1.0 is f32, x[3] + 0[2, 3] is [2, 3].
int identity_operand(const Facts& f, const Node& n) {
  struct Identity {
    OpId op;
    double value;
    bool left_too;  // the constant may be the left operand
  };
  static const Identity identities[] = {
      {OpId::mul, 1, true}, {OpId::add, 0, true}, {OpId::sub, 0, false}, {OpId::div, 1, false}};
  if (n.inputs.size() != 2 || n.inputs[1] < 0) return -1;
  for (const Identity& id : identities) {
    if (n.op != id.op) continue;
    for (size_t side : {1, 0}) {
      if (side == 0 && !id.left_too) continue;
      if (!constant_all_equal(f, n.inputs[side], id.value)) continue;
      int x = n.inputs[1 - side];
      const TensorMeta& out = f.g.value(n.outputs[0]).meta;
      if (same_meta(out, f.g.value(x).meta)) return x;
      if (f.ctx.explain)
        f.r.notes.push_back(describe_node(f.g, n) + ": kept: dropping the identity changes dtype/shape (" +
                            meta_str(f.g.value(x).meta) + " -> " + meta_str(out) + ")");
      return -1;
    }
  }
  return -1;
}

// neg(neg(x)) -> x.
int double_negation(const Facts& f, const Node& n) {
  const Node* inner = n.op == OpId::neg ? producer(f.g, n.inputs[0]) : nullptr;
  if (!inner || inner->op != OpId::neg || inner->body) return -1;
  return inner->inputs[0];
}

// The two dims of a transpose node as a sorted pair, wrapped against the rank.
std::pair<int64_t, int64_t> transposed_dims(const Graph& g, const Node& n) {
  int64_t rank = static_cast<int64_t>(g.value(n.inputs[0]).meta.sizes.size());
  int64_t d0 = n.attrs.i("dim0"), d1 = n.attrs.i("dim1");
  if (rank > 0) {
    d0 = wrap_dim(d0, rank, "transpose");
    d1 = wrap_dim(d1, rank, "transpose");
  }
  return {std::min(d0, d1), std::max(d0, d1)};
}

// transpose(transpose(x, a, b), a, b) -> x (either order of a and b).
int double_transpose(const Facts& f, const Node& n) {
  const Node* inner = n.op == OpId::transpose ? producer(f.g, n.inputs[0]) : nullptr;
  if (!inner || inner->op != OpId::transpose || inner->body) return -1;
  if (transposed_dims(f.g, n) != transposed_dims(f.g, *inner)) return -1;
  return inner->inputs[0];
}

// reshape(reshape|view(x)) -> reshape(x) and view(view(x)) -> view(x), in place: the
// outer node reads x. (The shape attribute stays: a -1 in it resolves the same way,
// the element count being the same along the chain. view(reshape(x)) stays, since
// view(x) may fail where the reshape copied.)
bool collapse_reshape_chain(const Graph& g, Node& n) {
  if (!is_reshape_op(n.op)) return false;
  const Node* inner = producer(g, n.inputs[0]);
  if (!inner || inner->body) return false;
  bool collapses = inner->op == OpId::view || (inner->op == OpId::reshape && n.op == OpId::reshape);
  if (collapses) n.inputs[0] = inner->inputs[0];
  return collapses;
}

// reshape(x) or view(x) to x's own shape -> x.
int identity_reshape(const Facts& f, const Node& n) {
  if (!is_reshape_op(n.op)) return -1;
  if (!same_meta(f.g.value(n.outputs[0]).meta, f.g.value(n.inputs[0]).meta)) return -1;
  return n.inputs[0];
}

// contiguous(contiguous(x)) -> contiguous(x): the outer one reads the inner's result.
int double_contiguous(const Facts& f, const Node& n) {
  const Node* inner = n.op == OpId::contiguous ? producer(f.g, n.inputs[0]) : nullptr;
  if (!inner || inner->op != OpId::contiguous || inner->body) return -1;
  return n.inputs[0];
}

// The index along dim 0 that value v of g takes from its producer's input, or -1: v
// is select(y, 0, k), or output k of unbind(y, 0).
int64_t row_index(const Graph& g, int v, const Node** from) {
  const Node* s = producer(g, v);
  *from = s;
  if (!s || !s->attrs.has("dim") || s->attrs.i("dim") != 0) return -1;
  if (s->op == OpId::select) return s->attrs.i("index");
  if (s->op == OpId::unbind) return g.value(v).output;
  return -1;
}

// stack of every row of y, in order, along dim 0 -> y (rows by select or unbind).
int restacked_rows(const Facts& f, const Node& n) {
  if (n.op != OpId::stack || n.attrs.i("dim") != 0) return -1;
  int y = -1;
  for (size_t k = 0; k < n.inputs.size(); ++k) {
    const Node* s = nullptr;
    if (row_index(f.g, n.inputs[k], &s) != static_cast<int64_t>(k)) return -1;
    if (y >= 0 && s->inputs[0] != y) return -1;
    y = s->inputs[0];
  }
  if (y < 0 || !same_meta(f.g.value(y).meta, f.g.value(n.outputs[0]).meta)) return -1;
  return y;
}

// Shortens a reshape chain in place, then tries the replacing rules in turn; returns
// the value that replaces the node's output, or -1. A node that copied x (x*1,
// neg(neg(x))) keeps x's data of that moment, so it is not replaced by x when the
// graph writes into x (See Note [Writes in the graph]); one that viewed x (a transpose
// pair, a reshape to x's shape) saw those writes anyway.
int simplify_node(const Facts& f, Node& n) {
  if (!Graph::table_op(n) || n.outputs.size() != 1 || n.inputs.empty() || n.inputs[0] < 0) return -1;
  while (collapse_reshape_chain(f.g, n)) ++f.r.changes;
  struct Entry {
    Rule apply;
    bool through_views;
  };
  static const Entry rules[] = {{identity_operand, false},
                                {double_negation, false},
                                {double_transpose, true},
                                {identity_reshape, true},
                                {double_contiguous, false},
                                {restacked_rows, false}};
  for (const Entry& rule : rules) {
    int replacement = rule.apply(f, n);
    if (replacement < 0) continue;
    if (!rule.through_views && f.written[static_cast<size_t>(replacement)]) {
      if (f.ctx.explain)
        f.r.notes.push_back(describe_node(f.g, n) + ": kept: the graph writes into %" + value_name(f.g, replacement) +
                            ", which would replace it");
      return -1;
    }
    ++f.r.changes;
    return replacement;
  }
  return -1;
}

// Note [Masking before the pool's scatter]
// A training step's ReLU followed by a max pool has, in its backward,
//   %s = max_pool2d_backward(%g, %idx)   where  %v, %idx = max_pool2d(%a)
//   %t = threshold_backward(%s, %a)      (relu's backward: %s where %a > threshold)
// Every element %s holds comes from the window maximum %v[o] = %a[%idx[o]] of the
// cell it is scattered to, so the mask can be taken on the pooled side first:
//   %s' = threshold_backward(%g, %v);  %t = max_pool2d_backward(%s', %idx)
// bit for bit the same (overlapping windows add terms that each carry the same mask;
// a NaN maximum fails the comparison on both sides), on a tensor a quarter the size.
// And %a is then read by the pool alone, so fuse_epilogue can pool straight from the
// convolution's layout, never writing %a out. Applies when %s has no other reader.
int mask_before_pool_scatter(Graph& g, const PassContext& ctx, PassResult& r) {
  std::vector<int> uses = g.use_counts();
  int changes = 0;
  for (Node& t : g.nodes) {
    if (!Graph::table_op(t) || t.op != OpId::threshold_backward || t.inputs.size() != 2) continue;
    const Node* scatter = producer(g, t.inputs[0]);
    if (!scatter || !Graph::table_op(*scatter) || scatter->op != OpId::max_pool2d_backward ||
        uses[static_cast<size_t>(t.inputs[0])] != 1)
      continue;
    const Node* pool = producer(g, scatter->inputs[1]);
    if (!pool || !Graph::table_op(*pool) || pool->op != OpId::max_pool2d || pool->outputs.size() != 2 ||
        pool->outputs[1] != scatter->inputs[1] || pool->inputs[0] != t.inputs[1])
      continue;
    Node& s = g.nodes[static_cast<size_t>(g.value(t.inputs[0]).node)];
    int grad = s.inputs[0], indices = s.inputs[1], values = pool->outputs[0];
    if (!same_meta(g.value(grad).meta, g.value(values).meta)) continue;
    Attrs scatter_attrs = s.attrs;
    s.op = OpId::threshold_backward;
    s.inputs = {grad, values};
    s.attrs = t.attrs;
    g.value(s.outputs[0]).meta = g.value(grad).meta;
    t.op = OpId::max_pool2d_backward;
    t.inputs = {s.outputs[0], indices};
    t.attrs = scatter_attrs;
    ++changes;
    if (ctx.explain)
      r.notes.push_back(describe_node(g, t) + ": relu's mask taken on the pooled gradient before the scatter "
                        "(Note [Masking before the pool's scatter])");
  }
  return changes;
}

PassResult run_simplify(Graph& g, const PassContext& ctx) {
  PassResult r;
  r.changes += mask_before_pool_scatter(g, ctx, r);
  std::vector<bool> dead(g.nodes.size(), false);
  std::vector<bool> written = written_storage(g, storage_roots(g));
  Facts facts{g, written, ctx, r};
  ValueForwarding forward;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& n = g.nodes[i];
    forward.forward_inputs(n);
    int replacement = simplify_node(facts, n);
    if (replacement < 0) continue;
    forward.replace(n.outputs[0], replacement);
    dead[i] = true;
  }
  if (!r.changes) return r;
  forward.finish(g);
  g.compact(dead);
  return r;
}

}  // namespace

PassInfo simplify_pass() {
  return {"simplify",
          "algebraic simplification: x*1, x+0, neg(neg(x)), transpose and reshape chains, ...",
          {},
          run_simplify};
}

}  // namespace nabla::graph
