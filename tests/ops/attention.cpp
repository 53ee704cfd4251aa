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
