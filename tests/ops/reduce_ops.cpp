// Reduction rows beyond the sweep's reference cases: tie rules of the gradients,
// non-finite results (which the JSON references cannot hold), error messages, and
// tensors large enough to take the kernels' OpenMP and strided paths.
#include <doctest/doctest.h>

#include <cmath>

#include "autograd/engine.hpp"
#include "autograd/ops.hpp"
#include "tensor/random.hpp"

using namespace nabla;

namespace {

Tensor f64(const std::vector<double>& v, const Shape& s) { return tensor_from(v, s, DType::f64); }
std::vector<double> values(const Tensor& t) { return to_double_vector(t); }
Tensor grad_of(const Tensor& y, const Tensor& x) { return grad({y}, {x})[0]; }

}  // namespace

TEST_CASE("max/min of all elements split the gradient evenly among ties") {
  Tensor x = f64({1, 3, 3, 2, 3, 0}, {2, 3}).set_requires_grad(true);
  CHECK(values(grad_of(max(x), x)) == std::vector<double>{0, 1.0 / 3, 1.0 / 3, 0, 1.0 / 3, 0});
  Tensor z = f64({0, 5, 0}, {3}).set_requires_grad(true);
  CHECK(values(grad_of(min(z), z)) == std::vector<double>{0.5, 0, 0.5});
}

TEST_CASE("max/min along a dim return the first index of a tie and send it the whole gradient") {
  Tensor x = f64({1, 4, 4, 2, 2, 0}, {2, 3}).set_requires_grad(true);
  auto [v, i] = max(x, 1);
  CHECK(values(v) == std::vector<double>{4, 2});
  CHECK(values(i) == std::vector<double>{1, 0});
  CHECK(i.dtype() == DType::i64);
  CHECK_FALSE(i.requires_grad());
  CHECK(values(grad_of(sum(v), x)) == std::vector<double>{0, 1, 0, 1, 0, 0});
  auto [mv, mi] = min(x, 0, true);
  CHECK(mv.sizes() == Shape{1, 3});
  CHECK(values(mi) == std::vector<double>{0, 1, 1});
}

TEST_CASE("NaN propagates through max/min and argmax picks the first NaN") {
  Tensor x = f64({1, NAN, 3, NAN}, {4});
  CHECK(std::isnan(max(x).item()));
  CHECK(std::isnan(min(x).item()));
  CHECK(argmax(x).item() == 1);
  CHECK(argmin(x).item() == 1);
}

TEST_CASE("reductions of 0-dim and empty tensors") {
  Tensor s = scalar_tensor(2.5, DType::f64);
  CHECK(max(s).item() == 2.5);
  CHECK(argmax(s, -1, true).sizes() == Shape{});
  CHECK(softmax(s, 0).item() == 1.0);
  CHECK(log_softmax(s, -1).item() == 0.0);
  CHECK(std::isnan(var(s).item()));  // N - correction = 0
  CHECK(nabla::std(s, {0}, 0).item() == 0.0);
  CHECK(std::isinf(var(f64({1, 2}, {2}), {}, 3).item()));  // divisor max(0, N - correction) = 0
  CHECK(std::isnan(var(zeros({0}, DType::f64)).item()));
  Tensor lse = logsumexp(zeros({0, 3}, DType::f64), {0});
  CHECK(values(lse) == std::vector<double>(3, -INFINITY));
  CHECK(max(zeros({0, 3}), 1).first.sizes() == Shape{0});
  CHECK(argmax(zeros({2, 0}), 0).sizes() == Shape{0});
}

TEST_CASE("logsumexp keeps infinities without NaN") {
  CHECK(logsumexp(f64({-INFINITY, -INFINITY}, {2}), {0}).item() == -INFINITY);
  CHECK(logsumexp(f64({INFINITY, 1}, {2}), {0}).item() == INFINITY);
  CHECK(logsumexp(f64({1000, 1000}, {2}), {0}).item() == doctest::Approx(1000 + std::log(2.0)));
}

TEST_CASE("errors name the op, the argument and the shape") {
  CHECK_THROWS_WITH_AS(max(zeros({0, 3})),
                       "max: cannot reduce an empty tensor of shape [0, 3] (give a dim to reduce over a non-empty one)",
                       Error);
  CHECK_THROWS_WITH(min(zeros({0})),
                    "min: cannot reduce an empty tensor of shape [0] (give a dim to reduce over a non-empty one)");
  CHECK_THROWS_WITH(max(zeros({0, 3}), 0),
                    "max_dim: cannot reduce over dim 0 of size 0 of argument 'input' of shape [0, 3]");
  CHECK_THROWS_WITH(argmin(zeros({2, 0}), -1),
                    "argmin: cannot reduce over dim 1 of size 0 of argument 'input' of shape [2, 0]");
  CHECK_THROWS_WITH(argmax(zeros({0})),
                    "argmax: cannot reduce an empty tensor of shape [0] (give a dim to reduce over a non-empty one)");
  CHECK_THROWS_WITH(max(zeros({2, 3}), 2),
                    "max_dim: dim 2 is out of range for a tensor of 2 dimensions (expected a dim in [-2, 1])");
  CHECK_THROWS_WITH(softmax(zeros({2}), -2),
                    "softmax: dim -2 is out of range for a tensor of 1 dimension (expected a dim in [-1, 0])");
  Tensor ints = zeros({3}, DType::i64);
  CHECK_THROWS_WITH(var(ints), "var: argument 'input' must be a floating tensor, got i64");
  CHECK_THROWS_WITH(nabla::std(ints), "std: argument 'input' must be a floating tensor, got i64");
  CHECK_THROWS_WITH(softmax(ints, 0), "softmax: argument 'input' must be a floating tensor, got i64");
  CHECK_THROWS_WITH(log_softmax(ints, 0), "log_softmax: argument 'input' must be a floating tensor, got i64");
  CHECK(logsumexp(ints, {0}).dtype() == DType::f32);  // promoted, as in PyTorch
}

TEST_CASE("16-bit inputs reduce through f32 and keep their dtype") {
  Tensor h = tensor_from({1, 2, 3, 4}, {2, 2}, DType::f16);
  CHECK(max(h).dtype() == DType::f16);
  CHECK(max(h).item() == 4);
  CHECK(softmax(h, 1).dtype() == DType::f16);
  CHECK(var(h, {1}).dtype() == DType::f16);
  CHECK(values(argmax(tensor_from({1, 3, 2}, {3}, DType::bf16))) == std::vector<double>{1});
}

// Naive references on [a, b, c] inputs big enough for the parallel paths.
TEST_CASE("large inputs agree with direct loops over every layout") {
  manual_seed(7);
  const int64_t a = 64, b = 33, c = 40;  // 84480 elements: above the OpenMP threshold
  Tensor x = randn({a, b, c}, DType::f64);
  auto v = values(x);
  auto at = [&](int64_t i, int64_t j, int64_t k) { return v[(i * b + j) * c + k]; };

  // Over the middle dim: inner > 1.
  auto sm = values(softmax(x, 1));
  auto amax = values(argmax(x, 1));
  auto sd = values(nabla::std(x, {1}));
  auto lse = values(logsumexp(x, {1}));
  for (int64_t i = 0; i < a; i += 7)
    for (int64_t k = 0; k < c; k += 3) {
      double m = -INFINITY, total = 0, mean = 0, ss = 0;
      int64_t arg = 0;
      for (int64_t j = 0; j < b; ++j) {
        if (at(i, j, k) > m) m = at(i, j, k), arg = j;
        mean += at(i, j, k) / b;
      }
      for (int64_t j = 0; j < b; ++j) {
        total += std::exp(at(i, j, k) - m);
        ss += (at(i, j, k) - mean) * (at(i, j, k) - mean);
      }
      CHECK(amax[i * c + k] == arg);
      CHECK(lse[i * c + k] == doctest::Approx(m + std::log(total)).epsilon(1e-12));
      CHECK(sd[i * c + k] == doctest::Approx(std::sqrt(ss / (b - 1))).epsilon(1e-12));
      for (int64_t j = 0; j < b; ++j)
        CHECK(sm[(i * b + j) * c + k] == doctest::Approx(std::exp(at(i, j, k) - m) / total).epsilon(1e-12));
    }

  // Over the last dim (inner == 1) and over two non-adjacent dims (a permuted copy).
  auto ls = values(log_softmax(x, -1));
  auto mn = values(min(x, 2).first);
  for (int64_t i = 0; i < a; i += 5)
    for (int64_t j = 0; j < b; j += 4) {
      double m = -INFINITY, lo = INFINITY, total = 0;
      for (int64_t k = 0; k < c; ++k) m = std::max(m, at(i, j, k)), lo = std::min(lo, at(i, j, k));
      for (int64_t k = 0; k < c; ++k) total += std::exp(at(i, j, k) - m);
      CHECK(mn[i * b + j] == lo);
      for (int64_t k = 0; k < c; k += 9)
        CHECK(ls[(i * b + j) * c + k] == doctest::Approx(at(i, j, k) - m - std::log(total)).epsilon(1e-12));
    }
  auto vr = values(var(x, {0, 2}, 0));
  for (int64_t j = 0; j < b; ++j) {
    double mean = 0, ss = 0;
    for (int64_t i = 0; i < a; ++i)
      for (int64_t k = 0; k < c; ++k) mean += at(i, j, k) / (a * c);
    for (int64_t i = 0; i < a; ++i)
      for (int64_t k = 0; k < c; ++k) ss += (at(i, j, k) - mean) * (at(i, j, k) - mean);
    CHECK(vr[j] == doctest::Approx(ss / (a * c)).epsilon(1e-12));
  }
  CHECK(max(x).item() == *std::max_element(v.begin(), v.end()));
  CHECK(argmin(x).item() == std::min_element(v.begin(), v.end()) - v.begin());
}

TEST_CASE("softmax in f32 does not overflow on large logits") {
  Tensor x = tensor_from({1000, 1001, 1002}, {3}, DType::f32);
  auto y = values(softmax(x, 0));
  CHECK(y[2] == doctest::Approx(0.6652409).epsilon(1e-5));
  auto l = values(log_softmax(x, 0));
  CHECK(l[0] == doctest::Approx(-2.4076059).epsilon(1e-5));
}
