// Row of scaled_dot_product_attention: softmax(q k^T * scale [+ causal mask]) v over
// the last two dims, batch dims broadcast. The CPU kernel (tensor/cpu/attention.cpp)
// never holds more than one block of the score matrix; the backward rule recomputes
// the attention weights with ops of the table, so it does materialize the whole
// [..., L, S] score matrix (once, for the backward only) — the price of a rule that
// is itself differentiable (grad of grad).
#include <cmath>
#include <limits>

#include "autograd/cost.hpp"
#include "autograd/ops/common.hpp"

namespace nabla {

namespace {

constexpr const char* kOp = "scaled_dot_product_attention";

Shape batch_of(const Tensor& t) { return Shape(t.sizes().begin(), t.sizes().end() - 2); }

std::vector<TensorMeta> infer_sdpa(const TensorList& in, const Attrs& a) {
  const Tensor &q = in[0], &k = in[1], &v = in[2];
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
  if (!a.is_none("scale") && !std::isfinite(a.f("scale")))
    throw Error(std::string(kOp) + ": scale must be a finite number, got " + number_str(a.f("scale")));
  Shape batch = broadcast_shapes(kOp, batch_of(q), batch_of(k), "query", "key");
  batch = broadcast_shapes(kOp, batch, batch_of(v), "query", "value");
  batch.push_back(q.sizes()[q.dim() - 2]);
  batch.push_back(v.sizes().back());
  return one(batch, q.dtype());
}

double sdpa_scale(const Attrs& a, int64_t E) {
  return a.is_none("scale") ? 1.0 / std::sqrt(static_cast<double>(E)) : a.f("scale");
}

// Recomputes the weights p = softmax(q k^T * scale, masked) with ops of the table; the
// score matrix [..., L, S] is materialized here (unlike in the forward kernel).
Tensor attention_weights(const Tensor& q, const Tensor& k, double scale, bool causal) {
  Tensor s = matmul(q, transpose(k, -1, -2)) * scale;
  if (causal) {
    int64_t L = q.sizes()[q.dim() - 2], S = k.sizes()[k.dim() - 2];
    // Query i sees keys j <= i: keep = col <= row, from aranges.
    Tensor rows = reshape(arange(L, DType::i64, s.device()), {L, 1});
    Tensor cols = reshape(arange(S, DType::i64, s.device()), {1, S});
    Tensor neg_inf = full({}, -std::numeric_limits<double>::infinity(), s.dtype());
    s = where(le(cols, rows), s, neg_inf);
  }
  return softmax(s, -1);
}

// With p the weights and g the output gradient:
//   dv = p^T g,  dp = g v^T,  ds = p * (dp - sum(dp * p, -1)),
//   dq = ds k * scale,  dk = ds^T q * scale
// (masked entries have p = 0, so ds is 0 there without a second mask).
TensorList backward_sdpa(BackwardContext& c) {
  Tensor q = c.input(0), k = c.input(1), v = c.input(2), g = c.grad();
  bool causal = c.attrs().b("is_causal");
  double scale = sdpa_scale(c.attrs(), q.sizes().back());
  Tensor p = attention_weights(q, k, scale, causal);
  Tensor gq, gk, gv;
  if (c.needs_grad(2)) gv = reduce_to_shape(matmul(transpose(p, -1, -2), g), c.input_shape(2));
  if (c.needs_grad(0) || c.needs_grad(1)) {
    Tensor dp = matmul(g, transpose(v, -1, -2));
    Tensor ds = p * (dp - sum(dp * p, {-1}, true));
    if (c.needs_grad(0)) gq = reduce_to_shape(matmul(ds, k) * scale, c.input_shape(0));
    if (c.needs_grad(1)) gk = reduce_to_shape(matmul(transpose(ds, -1, -2), q) * scale, c.input_shape(1));
  }
  return {gq, gk, gv};
}

// FLOPs: the two GEMMs as torch.utils.flop_counter counts them, 2*B*L*S*E for
// q k^T and 2*B*L*S*Ev for p v (B: the broadcast batch), plus 6 per score (the
// scale, and a softmax: max, subtract, exp, sum, divide); a causal mask is not
// subtracted (the kernel skips no work it is charged for). Bytes: q, k, v and the
// output: the kernel never holds the whole [L, S] score matrix.
OpCost cost_sdpa(const TensorList& in, const Attrs&, const TensorList& out) {
  const Shape& q = in[0].sizes();
  double L = static_cast<double>(q[q.size() - 2]), E = static_cast<double>(q.back());
  double S = static_cast<double>(in[1].sizes()[in[1].dim() - 2]), Ev = static_cast<double>(in[2].sizes().back());
  double batch = L * Ev > 0 ? cost_numel(out[0]) / (L * Ev) : 0.0;
  double scores = batch * L * S;
  return {2.0 * scores * E + 2.0 * scores * Ev + 6.0 * scores, io_bytes(in, out)};
}

}  // namespace

void register_attention_ops(std::vector<OpDef>& t) {
  // Note: the backward rule materializes the [..., L, S] score matrix (see above).
  row(t, OpId::scaled_dot_product_attention) = {
      .num_inputs = 3,
      .attrs = {attr_optional("is_causal", AttrKind::boolean, false),
                attr_optional("scale", AttrKind::number, NoneAttr{})},
      .infer = infer_sdpa,
      .cpu = cpu::scaled_dot_product_attention,
      .backward = backward_sdpa,
      .saves = {0b111, 0}};
  row(t, OpId::scaled_dot_product_attention).cost = cost_sdpa;
  name_inputs(t, {{OpId::scaled_dot_product_attention, {"query", "key", "value"}}});
}

Tensor scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v, bool is_causal,
                                    std::optional<double> scale) {
  return call1(OpId::scaled_dot_product_attention, {q, k, v},
               {{"is_causal", is_causal}, {"scale", scale ? AttrValue(*scale) : AttrValue(NoneAttr{})}});
}

}  // namespace nabla
