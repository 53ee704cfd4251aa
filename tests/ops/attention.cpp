// scaled_dot_product_attention's blocked CPU kernel on cases large enough to use
// several query and key blocks (64 x 64), against the same formula composed from ops
// of the table (softmax(q k^T * scale + mask) v, computed in f64). The op sweep covers
// the small PyTorch-made cases and the gradient checks.
#include <doctest/doctest.h>

#include "ops/compare.hpp"

#include <cmath>
#include <limits>

#include "autograd/engine.hpp"
#include "autograd/ops.hpp"
#include "tensor/memory_stats.hpp"
#include "tensor/random.hpp"

using namespace nabla;
using nabla::testing::max_abs_diff;

namespace {

Tensor composed(const Tensor& q, const Tensor& k, const Tensor& v, bool causal, double scale) {
  Tensor s = matmul(q, transpose(k, -1, -2)) * scale;
  if (causal) {
    int64_t L = q.sizes()[q.dim() - 2], S = k.sizes()[k.dim() - 2];
    Tensor keep = le(reshape(arange(S), {1, S}), reshape(arange(L), {L, 1}));
    s = where(keep, s, full({}, -std::numeric_limits<double>::infinity(), s.dtype()));
  }
  return matmul(softmax(s, -1), v);
}

void check_against_ops(const Shape& qs, const Shape& ks, const Shape& vs, bool causal) {
  Tensor q = randn(qs), k = randn(ks), v = randn(vs);
  double scale = 1.0 / std::sqrt(static_cast<double>(qs.back()));
  Tensor got = scaled_dot_product_attention(q, k, v, causal);
  Tensor want = composed(to_dtype(q, DType::f64), to_dtype(k, DType::f64), to_dtype(v, DType::f64), causal, scale);
  CHECK(got.dtype() == DType::f32);
  CHECK(got.sizes() == want.sizes());
  CHECK(max_abs_diff(got, want) < 1e-5);
}

}  // namespace

TEST_CASE("sdpa: the blocked kernel equals the composed formula on several blocks") {
  manual_seed(7);
  for (bool causal : {false, true}) {
    CAPTURE(causal);
    check_against_ops({200, 32}, {200, 32}, {200, 32}, causal);
    check_against_ops({2, 3, 200, 32}, {2, 3, 200, 32}, {2, 3, 200, 16}, causal);
    // Unequal lengths, block edges not on 64, broadcast batch.
    check_against_ops({2, 130, 32}, {1, 200, 32}, {2, 200, 24}, causal);
    check_against_ops({201, 8}, {65, 8}, {65, 8}, causal);
  }
}

// Logits of a few hundred: f32 rounding of the scores alone (1e-7 relative) moves the
// output by ~1e-5, so this compares to 1e-4; the online softmax must not overflow.
TEST_CASE("sdpa: a custom scale and large logits stay finite") {
  manual_seed(8);
  Tensor q = randn({100, 16}), k = randn({150, 16}), v = randn({150, 4});
  Tensor got = scaled_dot_product_attention(q, k, v, true, 20.0);
  Tensor want = composed(to_dtype(q, DType::f64), to_dtype(k, DType::f64), to_dtype(v, DType::f64), true, 20.0);
  CHECK(max_abs_diff(got, want) < 1e-4);
  Tensor small = scaled_dot_product_attention(q, k, v, false, 0.05);
  CHECK(max_abs_diff(small, composed(to_dtype(q, DType::f64), to_dtype(k, DType::f64), to_dtype(v, DType::f64), false,
                                     0.05)) < 1e-5);
}

TEST_CASE("sdpa: gradients on a multi-block case equal the composed formula's") {
  manual_seed(9);
  for (bool causal : {false, true}) {
    CAPTURE(causal);
    Tensor q = randn({130, 8}, DType::f64), k = randn({100, 8}, DType::f64), v = randn({100, 4}, DType::f64);
    Tensor w = randn({130, 4}, DType::f64);
    TensorList xs{q.set_requires_grad(true), k.set_requires_grad(true), v.set_requires_grad(true)};
    TensorList a = grad({sum(scaled_dot_product_attention(q, k, v, causal) * w)}, xs);
    TensorList b = grad({sum(composed(q, k, v, causal, 1.0 / std::sqrt(8.0)) * w)}, xs);
    for (size_t i = 0; i < 3; ++i) CHECK(max_abs_diff(a[i], b[i]) < 1e-10);
  }
}

namespace {

// The composed formula with PyTorch's attn_mask (bool: attend where true; float: added)
// and grouped-query attention (key/value heads repeat_interleave'd up to the query's).
Tensor composed_masked(const Tensor& q, Tensor k, Tensor v, const Tensor& mask, int64_t groups) {
  if (groups > 1) {
    auto repeat_heads = [&](const Tensor& t) {
      IntList s(t.sizes().begin(), t.sizes().end());
      IntList grouped = s;
      grouped.insert(grouped.end() - 2, groups);
      IntList wide = s;
      wide[wide.size() - 3] *= groups;
      return reshape(expand(unsqueeze(t, t.dim() - 2), grouped), wide);
    };
    k = repeat_heads(k);
    v = repeat_heads(v);
  }
  Tensor s = matmul(q, transpose(k, -1, -2)) * (1.0 / std::sqrt(static_cast<double>(q.sizes().back())));
  s = mask.dtype() == DType::b8 ? where(mask, s, full({}, -std::numeric_limits<double>::infinity(), s.dtype()))
                                : s + mask;
  return matmul(softmax(s, -1), v);
}

}  // namespace

// Note [Attention backward memory]: past kScoreBudget score elements the backward
// works on pieces of the batch and head dims. The pieces' gradients must join into
// the whole's, and the backward must hold far less than the whole score matrix's
// temporaries (the unchunked rule holds p, dp, dp * p and ds at once: 4 of them).
TEST_CASE("sdpa: the chunked backward equals the composed gradients and bounds its memory") {
  manual_seed(10);
  int64_t H = 16, Hk = 4, L = 1024, E = 8;
  Tensor q = randn({1, H, L, E}), k = randn({1, Hk, L, E}), v = randn({1, Hk, L, E});
  Tensor mask = gt(randn({1, 1, 1, L}), full({}, -1.0));  // a key-padding style mask
  Tensor w = randn({1, H, L, E});
  TensorList xs{q.set_requires_grad(true), k.set_requires_grad(true), v.set_requires_grad(true)};
  AttentionOptions options{.attn_mask = mask, .enable_gqa = true};
  Tensor loss = sum(scaled_dot_product_attention(q, k, v, options) * w);
  size_t before = memory_figures(cpu_device()).allocated;
  reset_peak_memory_stats(cpu_device());
  TensorList a = grad({loss}, xs);
  double peak = static_cast<double>(memory_figures(cpu_device()).peak_allocated - before);
  double score_matrix = static_cast<double>(H * L * L * 4);
  MESSAGE("backward peak " << peak / 1e6 << " MB; the whole score matrix is " << score_matrix / 1e6 << " MB");
  CHECK(peak < 2.0 * score_matrix);
  TensorList b = grad({sum(composed_masked(q, k, v, mask, H / Hk) * w)}, xs);
  for (size_t i = 0; i < 3; ++i) CHECK(max_abs_diff(a[i], b[i]) < 1e-4);
}

// A query row that sees no key (every score masked to -inf) attends to nothing: its
// output and every gradient through it are 0, as PyTorch's SDPA (its _safe_softmax,
// since 2.5), where softmax would be 0/0. Left-padded causal batches have such rows.
// A NaN score still makes its row NaN, and no keys at all give zeros.
TEST_CASE("sdpa: a row that sees no key is 0, with zero gradients; a NaN row stays NaN") {
  manual_seed(9);
  for (int64_t S : {5, 130}) {  // one key block, and several
    CAPTURE(S);
    Tensor q = randn({2, 4, 8}, DType::f64).set_requires_grad(true), k = randn({2, S, 8}, DType::f64).set_requires_grad(true);
    Tensor v = randn({2, S, 3}, DType::f64).set_requires_grad(true);
    Tensor keep = ones({2, 4, S}, DType::b8);
    for (int64_t j = 0; j < S; ++j) static_cast<bool*>(keep.raw_data())[1 * S + j] = false;  // batch 0, row 1: none
    AttentionOptions opt;
    opt.attn_mask = keep;
    Tensor out = scaled_dot_product_attention(q, k, v, opt);
    const double* o = static_cast<const double*>(out.raw_data());
    for (int64_t c = 0; c < 3; ++c) CHECK(o[1 * 3 + c] == 0.0);
    CHECK(std::isfinite(o[0]));
    TensorList g = grad({sum(out * out)}, {q, k, v});
    for (const Tensor& t : g)
      for (double x : to_double_vector(t)) CHECK(std::isfinite(x));
    for (int64_t c = 0; c < 8; ++c) CHECK(static_cast<const double*>(g[0].raw_data())[1 * 8 + c] == 0.0);
    // The same row with a NaN query: NaN, not 0.
    Tensor qn = randn({2, 4, 8}, DType::f64);
    static_cast<double*>(qn.raw_data())[2 * 8] = std::nan("");
    Tensor nan_out = scaled_dot_product_attention(qn, detach(k), detach(v), opt);
    CHECK(std::isnan(static_cast<const double*>(nan_out.raw_data())[2 * 3]));
  }
  Tensor none = scaled_dot_product_attention(randn({3, 4}), zeros({0, 4}), zeros({0, 2}));
  CHECK(max_abs_diff(none, zeros({3, 2})) == 0.0);
}
