// Row of scaled_dot_product_attention: softmax(q k^T * scale + mask) v over the last
// two dims, batch dims broadcast, as PyTorch's: an attn_mask (bool or additive) or a
// causal mask, dropout on the weights, grouped-query attention. The CPU kernel
// (tensor/cpu/attention.cpp) never holds more than one block of the score matrix;
// the backward rule recomputes the attention weights with ops of the table, a bounded
// number of heads at a time (Note [Attention backward memory]), so that it is itself
// differentiable (grad of grad).
#include <cmath>
#include <limits>

#include "autograd/cost.hpp"
#include "autograd/ops/common.hpp"

namespace nabla {

namespace {

constexpr const char* kOp = "scaled_dot_product_attention";

Shape batch_of(const Tensor& t) { return Shape(t.sizes().begin(), t.sizes().end() - 2); }

void check_qkv(const Tensor& q, const Tensor& k, const Tensor& v) {
  check_floating(kOp, "query", q);
  check_floating(kOp, "key", k);
  check_floating(kOp, "value", v);
  if (k.dtype() != q.dtype() || v.dtype() != q.dtype())
    throw Error(std::string(kOp) + ": expected 'query', 'key' and 'value' to have the same dtype, got " +
                dtype_name(q.dtype()) + ", " + dtype_name(k.dtype()) + " and " + dtype_name(v.dtype()));
  for (auto [t, n] : {std::pair<const Tensor*, const char*>{&q, "query"}, {&k, "key"}, {&v, "value"}})
    if (t->dim() < 2)
      throw Error(std::string(kOp) + ": argument '" + n + "' must have at least 2 dims [..., seq, features], got shape " +
                  t->shape_str());
  int64_t E = q.sizes().back(), Ek = k.sizes().back();
  if (E != Ek)
    throw Error(std::string(kOp) + ": argument 'key' of shape " + k.shape_str() + " has " + std::to_string(Ek) +
                " features but argument 'query' of shape " + q.shape_str() + " has " + std::to_string(E));
  int64_t S = k.sizes()[k.dim() - 2], Sv = v.sizes()[v.dim() - 2];
  if (S != Sv)
    throw Error(std::string(kOp) + ": argument 'value' of shape " + v.shape_str() + " has " + std::to_string(Sv) +
                " positions but argument 'key' of shape " + k.shape_str() + " has " + std::to_string(S));
}

// With enable_gqa: the heads (dim -3) of query must be a multiple of those of key and
// value, which must agree (Note [Grouped-query attention] in tensor/layout.hpp).
int64_t check_gqa(const Tensor& q, const Tensor& k, const Tensor& v) {
  for (auto [t, n] : {std::pair<const Tensor*, const char*>{&q, "query"}, {&k, "key"}, {&v, "value"}})
    if (t->dim() < 3)
      throw Error(std::string(kOp) + ": with enable_gqa, argument '" + n +
                  "' must have a heads dim [..., heads, seq, features], got shape " + t->shape_str());
  int64_t hq = q.sizes()[q.dim() - 3], hk = k.sizes()[k.dim() - 3], hv = v.sizes()[v.dim() - 3];
  if (hk != hv)
    throw Error(std::string(kOp) + ": with enable_gqa, 'key' of shape " + k.shape_str() + " and 'value' of shape " +
                v.shape_str() + " must have the same number of heads (dim -3), got " + std::to_string(hk) + " and " +
                std::to_string(hv));
  if (hk == 0 || hq % hk != 0)
    throw Error(std::string(kOp) + ": with enable_gqa, the query's heads (" + std::to_string(hq) + ", shape " +
                q.shape_str() + ") must be a multiple of the key's and value's (" + std::to_string(hk) + ", shape " +
                k.shape_str() + ")");
  return hq / hk;
}

// The scores' shape [batch..., L, S]: the batch dims of query, key and value broadcast
// (key and value taken with query's heads under grouped-query attention).
// Whether t has fewer heads (dim -3) than q, a divisor of q's: grouped-query attention.
bool fewer_heads(const Tensor& t, const Tensor& q) {
  if (q.dim() < 3 || t.dim() < 3) return false;
  int64_t hq = q.sizes()[q.dim() - 3], ht = t.sizes()[t.dim() - 3];
  return ht > 0 && ht < hq && hq % ht == 0;
}

// `batch` broadcast with the batch dims `b` of argument `name` (shape t); the error
// shows both batch shapes and the full ones.
Shape broadcast_batch(const Shape& batch, const Tensor& q, const Shape& b, const Tensor& t, const char* name) {
  try {
    return broadcast_shapes(kOp, batch, b, "query", name);
  } catch (const Error&) {
    throw Error(std::string(kOp) + ": the batch dims " + shape_str(b) + " of '" + name + "' (shape " + t.shape_str() +
                ") cannot be broadcast with the batch dims " + shape_str(batch) + " of 'query' (shape " +
                q.shape_str() + ")" +
                (fewer_heads(t, q) ? "; for fewer key/value heads than query heads pass enable_gqa=true" : ""));
  }
}

Shape scores_shape(const Tensor& q, const Tensor& k, const Tensor& v, int64_t groups) {
  Shape kb = batch_of(k), vb = batch_of(v);
  if (groups > 1) kb.back() = vb.back() = q.sizes()[q.dim() - 3];
  Shape batch = broadcast_batch(batch_of(q), q, kb, k, "key");
  batch = broadcast_batch(batch, q, vb, v, "value");
  batch.push_back(q.sizes()[q.dim() - 2]);
  batch.push_back(k.sizes()[k.dim() - 2]);
  return batch;
}

// attn_mask: bool (true: the query attends to the key) or an additive float of
// query's dtype, broadcast to the scores' shape.
void check_mask(const Tensor& mask, const Tensor& q, const Shape& scores, bool causal) {
  if (!mask.defined()) return;
  if (causal)
    throw Error(std::string(kOp) + ": give attn_mask or is_causal=true, not both (got attn_mask of shape " +
                mask.shape_str() + ")");
  if (mask.dtype() != DType::b8 && mask.dtype() != q.dtype())
    throw Error(std::string(kOp) + ": argument 'attn_mask' must be bool or of the query's dtype " +
                dtype_name(q.dtype()) + ", got " + dtype_name(mask.dtype()) + " (shape " + mask.shape_str() + ")");
  bool fits = mask.dim() <= static_cast<int64_t>(scores.size());
  for (int64_t d = 1; fits && d <= mask.dim(); ++d) {
    int64_t m = mask.sizes()[mask.dim() - d], s = scores[scores.size() - d];
    fits = m == s || m == 1;
  }
  if (!fits)
    throw Error(std::string(kOp) + ": argument 'attn_mask' of shape " + mask.shape_str() +
                " cannot be broadcast to the attention scores' shape " + shape_str(scores) +
                " [batch..., query positions, key positions]");
}

std::vector<TensorMeta> infer_sdpa(const TensorList& in, const Attrs& a) {
  const Tensor &q = in[0], &k = in[1], &v = in[2], &mask = in[3];
  check_qkv(q, k, v);
  if (!a.is_none("scale") && !std::isfinite(a.f("scale")))
    throw Error(std::string(kOp) + ": scale must be a finite number, got " + number_str(a.f("scale")));
  double p = a.f("dropout_p");
  if (!(p >= 0.0 && p <= 1.0))
    throw Error(std::string(kOp) + ": dropout_p must be between 0 and 1, got " + number_str(p));
  int64_t groups = a.b("enable_gqa") ? check_gqa(q, k, v) : 1;
  Shape scores = scores_shape(q, k, v, groups);
  check_mask(mask, q, scores, a.b("is_causal"));
  Shape out = scores;
  out.back() = v.sizes().back();  // [batch..., L, Ev]
  // The dropout keep-mask (the backward's only record of which weights were dropped):
  // empty without dropout.
  Shape keep = p > 0.0 ? scores : Shape{0};
  return {{out, q.dtype()}, {keep, DType::b8}};
}

double sdpa_scale(const Attrs& a, int64_t E) {
  return a.is_none("scale") ? 1.0 / std::sqrt(static_cast<double>(E)) : a.f("scale");
}

// The operands of one attention as the backward rule sees them: under grouped-query
// attention query, mask, keep-mask and output gradient split their heads into
// [kv heads, group] and key and value gain a unit group dim, so that plain
// broadcasting pairs each query head with its key/value head (the ops' version of
// gqa_view in tensor/layout.hpp).
struct AttentionOperands {
  Tensor q, k, v, mask, keep, g;
};

Tensor split_heads(const Tensor& t, int64_t heads, int64_t groups) {
  if (!t.defined() || t.dim() < 3) return t;
  int64_t at = t.dim() - 2;
  if (t.sizes()[at - 1] != heads) return unsqueeze(t, at);
  IntList shape(t.sizes().begin(), t.sizes().end());
  shape[at - 1] = heads / groups;
  shape.insert(shape.begin() + at, groups);
  return reshape(t, shape);
}

AttentionOperands grouped(AttentionOperands x, int64_t groups) {
  if (groups == 1) return x;
  int64_t heads = x.q.sizes()[x.q.dim() - 3];
  for (Tensor* t : {&x.q, &x.mask, &x.keep, &x.g}) *t = split_heads(*t, heads, groups);
  x.k = unsqueeze(x.k, x.k.dim() - 2);
  x.v = unsqueeze(x.v, x.v.dim() - 2);
  return x;
}

// The attention weights p = softmax(q k^T * scale + mask) with ops of the table (the
// score matrix of these operands is materialized; the caller bounds its size).
Tensor attention_weights(const AttentionOperands& x, double scale, bool causal) {
  Tensor s = matmul(x.q, transpose(x.k, -1, -2)) * scale;
  Tensor neg_inf = full({}, -std::numeric_limits<double>::infinity(), s.dtype());
  if (causal) {
    int64_t L = x.q.sizes()[x.q.dim() - 2], S = x.k.sizes()[x.k.dim() - 2];
    // Query i sees keys j <= i: keep = col <= row, from aranges.
    Tensor rows = reshape(arange(L, DType::i64, s.device()), {L, 1});
    Tensor cols = reshape(arange(S, DType::i64, s.device()), {1, S});
    s = where(le(cols, rows), s, neg_inf);
  }
  if (x.mask.defined()) s = x.mask.dtype() == DType::b8 ? where(x.mask, s, neg_inf) : s + x.mask;
  // A row that sees no key (every score -inf) attends to nothing: 0, as the kernels
  // (PyTorch's _safe_softmax). Its scores become 0 before the softmax, so that neither
  // the weights nor their gradient are 0/0.
  Tensor none_visible = eq(sum(to_dtype(ne(s, neg_inf), DType::i64), {-1}, true), full({}, 0.0, DType::i64, s.device()));
  Tensor p = softmax(where(none_visible, zeros({}, s.dtype(), s.device()), s), -1);
  return where(none_visible, zeros({}, s.dtype(), s.device()), p);
}

struct AttentionGrads {
  Tensor q, k, v, mask;
};

// With p the weights, d = keep / (1 - dropout_p) the dropout (1 without) and g the
// output gradient (out = (p*d) v):
//   dv = (p*d)^T g,  dp = (g v^T) * d,  ds = p * (dp - sum(dp * p, -1)),
//   dq = ds k * scale,  dk = ds^T q * scale,  dmask = ds (an additive float mask)
// (masked entries have p = 0, so ds is 0 there without a second mask). The results
// have the operands' broadcast batch shape.
AttentionGrads attention_grads(const AttentionOperands& x, double scale, bool causal, double dropout_scale,
                               const bool need[4]) {
  Tensor p = attention_weights(x, scale, causal);
  Tensor d = x.keep.defined() ? to_dtype(x.keep, p.dtype()) * dropout_scale : Tensor();
  AttentionGrads r;
  if (need[2]) r.v = matmul(transpose(d.defined() ? p * d : p, -1, -2), x.g);
  if (need[0] || need[1] || need[3]) {
    Tensor dp = matmul(x.g, transpose(x.v, -1, -2));
    if (d.defined()) dp = dp * d;
    Tensor ds = p * (dp - sum(dp * p, {-1}, true));
    if (need[0]) r.q = matmul(ds, x.k) * scale;
    if (need[1]) r.k = matmul(transpose(ds, -1, -2), x.q) * scale;
    if (need[3]) r.mask = ds;
  }
  return r;
}

// Note [Attention backward memory]
// The backward holds the score-sized matrices (p, dp, ds: each [L, S] per head) of a
// bounded number of heads at a time: when all of them would pass kScoreBudget
// elements, the batch dims are cut into pieces (the first dim first, then the next
// inside each piece) whose scores fit, and the pieces' gradients are joined with cat.
// Each piece is still ops of the table, so the rule stays differentiable.
constexpr int64_t kScoreBudget = int64_t{1} << 22;

// x[dim] restricted to [lo, hi) where x has that dim (size > 1); a broadcast (size 1)
// or absent dim is shared by every piece. Operands are aligned to `rank` dims.
Tensor piece(const Tensor& t, int64_t dim, int64_t lo, int64_t hi) {
  if (!t.defined() || t.sizes()[dim] == 1) return t;
  return slice(t, dim, lo, hi);
}

Tensor join(const std::vector<Tensor>& parts, int64_t dim) {
  if (!parts.front().defined()) return Tensor();
  return parts.size() == 1 ? parts.front() : cat(parts, dim);
}

AttentionGrads chunked_grads(const AttentionOperands& x, const Shape& scores, int64_t dim, double scale, bool causal,
                             double dropout_scale, const bool need[4]) {
  int64_t batch_dims = static_cast<int64_t>(scores.size()) - 2;
  int64_t per_index = 1;  // score elements per index of `dim`
  for (int64_t d = dim + 1; d < static_cast<int64_t>(scores.size()); ++d) per_index *= scores[d];
  if (dim >= batch_dims || shape_numel(scores) <= kScoreBudget)
    return attention_grads(x, scale, causal, dropout_scale, need);
  int64_t step = std::max<int64_t>(1, kScoreBudget / std::max<int64_t>(per_index, 1));
  std::vector<Tensor> q, k, v, m;
  for (int64_t lo = 0; lo < scores[dim]; lo += step) {
    int64_t hi = std::min(scores[dim], lo + step);
    AttentionOperands p{piece(x.q, dim, lo, hi),    piece(x.k, dim, lo, hi),    piece(x.v, dim, lo, hi),
                        piece(x.mask, dim, lo, hi), piece(x.keep, dim, lo, hi), piece(x.g, dim, lo, hi)};
    Shape sub = scores;
    sub[dim] = hi - lo;
    AttentionGrads r = chunked_grads(p, sub, dim + 1, scale, causal, dropout_scale, need);
    q.push_back(r.q);
    k.push_back(r.k);
    v.push_back(r.v);
    m.push_back(r.mask);
  }
  return {join(q, dim), join(k, dim), join(v, dim), join(m, dim)};
}

// Prepends unit dims so that t has `rank` dims (undefined stays undefined).
Tensor aligned(const Tensor& t, int64_t rank) {
  if (!t.defined() || t.dim() >= rank) return t;
  IntList shape(static_cast<size_t>(rank - t.dim()), 1);
  shape.insert(shape.end(), t.sizes().begin(), t.sizes().end());
  return reshape(t, shape);
}

Tensor grad_for(const Tensor& g, const Shape& grouped_shape, const Shape& input_shape) {
  if (!g.defined()) return g;
  return reshape(reduce_to_shape(g, grouped_shape), IntList(input_shape.begin(), input_shape.end()));
}

TensorList backward_sdpa(BackwardContext& c) {
  const Attrs& a = c.attrs();
  bool causal = a.b("is_causal");
  double dropout_p = a.f("dropout_p");
  AttentionOperands in{c.input(0), c.input(1), c.input(2), c.input(3), Tensor(), c.grad()};
  if (dropout_p > 0.0) in.keep = c.output(1);
  double scale = sdpa_scale(a, in.q.sizes().back());
  double dropout_scale = dropout_p < 1.0 ? 1.0 / (1.0 - dropout_p) : 0.0;
  int64_t groups = a.b("enable_gqa") ? in.q.sizes()[in.q.dim() - 3] / in.k.sizes()[in.k.dim() - 3] : 1;
  AttentionOperands x = grouped(in, groups);
  // The grouped scores' shape (the output gradient's, with S keys), and every
  // operand aligned to its rank for chunking.
  Shape scores = x.g.sizes();
  scores.back() = x.k.sizes()[x.k.dim() - 2];
  int64_t rank = static_cast<int64_t>(scores.size());
  Shape grouped_shapes[4];
  for (int i = 0; i < 4; ++i) {
    Tensor* t = i == 0 ? &x.q : i == 1 ? &x.k : i == 2 ? &x.v : &x.mask;
    if (t->defined()) grouped_shapes[i] = aligned(*t, rank).sizes();
  }
  for (Tensor* t : {&x.q, &x.k, &x.v, &x.mask, &x.keep, &x.g}) *t = aligned(*t, rank);
  bool need[4] = {c.needs_grad(0), c.needs_grad(1), c.needs_grad(2), in.mask.defined() && c.needs_grad(3)};
  AttentionGrads r = chunked_grads(x, scores, 0, scale, causal, dropout_scale, need);
  return {grad_for(r.q, grouped_shapes[0], c.input_shape(0)), grad_for(r.k, grouped_shapes[1], c.input_shape(1)),
          grad_for(r.v, grouped_shapes[2], c.input_shape(2)), grad_for(r.mask, grouped_shapes[3], c.input_shape(3))};
}

// FLOPs: the two GEMMs as torch.utils.flop_counter counts them, 2*B*L*S*E for
// q k^T and 2*B*L*S*Ev for p v (B: the broadcast batch), plus 6 per score (the
// scale, and a softmax: max, subtract, exp, sum, divide), one more per score for a
// mask and two for dropout; a causal mask is not subtracted (the kernel skips no
// work it is charged for). Bytes: the inputs and outputs: the kernel never holds the
// whole [L, S] score matrix.
OpCost cost_sdpa(const TensorList& in, const Attrs& a, const TensorList& out) {
  const Shape& q = in[0].sizes();
  double L = static_cast<double>(q[q.size() - 2]), E = static_cast<double>(q.back());
  double S = static_cast<double>(in[1].sizes()[in[1].dim() - 2]), Ev = static_cast<double>(in[2].sizes().back());
  double batch = L * Ev > 0 ? cost_numel(out[0]) / (L * Ev) : 0.0;
  double scores = batch * L * S;
  double per_score = 6.0 + (in[3].defined() ? 1.0 : 0.0) + (a.f("dropout_p") > 0.0 ? 2.0 : 0.0);
  return {2.0 * scores * E + 2.0 * scores * Ev + per_score * scores, io_bytes(in, out)};
}

}  // namespace

void register_attention_ops(std::vector<OpDef>& t) {
  // The backward bounds the score matrices it holds: Note [Attention backward memory].
  row(t, OpId::scaled_dot_product_attention) = {
      .num_inputs = 4,
      .num_outputs = 2,
      .attrs = {attr_optional("dropout_p", AttrKind::number, 0.0),
                attr_optional("is_causal", AttrKind::boolean, false),
                attr_optional("scale", AttrKind::number, NoneAttr{}),
                attr_optional("enable_gqa", AttrKind::boolean, false)},
      .infer = infer_sdpa,
      .cpu = cpu::scaled_dot_product_attention,
      .backward = backward_sdpa,
      .saves = {0b1111, 0b10},
      .nondiff_outputs = 0b10,
      .optional_inputs = 0b1000};
  row(t, OpId::scaled_dot_product_attention).cost = cost_sdpa;
  name_inputs(t, {{OpId::scaled_dot_product_attention, {"query", "key", "value", "attn_mask"}}});
  // What :help prints for each op of this family; tests/interp/op_docs.cpp runs every example.
  document_ops(t, {{OpId::scaled_dot_product_attention,
                    "softmax(query @ key^T * scale + attn_mask) @ value over the last two dims with batch dims "
                    "broadcast, as torch.nn.functional.scaled_dot_product_attention: a bool attn_mask is true where "
                    "attention is allowed, is_causal hides later positions, enable_gqa lets key and value have fewer "
                    "heads (dim -3); a query that sees no key gets 0, as PyTorch's. "
                    "Example: scaled_dot_product_attention(randn(1, 2, 4, 8), randn(1, 2, 4, 8), randn(1, 2, 4, 8), "
                    "is_causal=true)"}});
}

Tensor scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionOptions& o) {
  return call(OpId::scaled_dot_product_attention, {q, k, v, o.attn_mask},
              {{"dropout_p", o.dropout_p},
               {"is_causal", o.is_causal},
               {"scale", o.scale ? AttrValue(*o.scale) : AttrValue(NoneAttr{})},
               {"enable_gqa", o.enable_gqa}})[0];
}

Tensor scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v, bool is_causal,
                                    std::optional<double> scale) {
  return scaled_dot_product_attention(q, k, v, AttentionOptions{.is_causal = is_causal, .scale = scale});
}

}  // namespace nabla
