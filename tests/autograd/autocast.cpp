// Autocast regions (Note [Autocast] in autograd/dispatch.cpp): `lower` rows run in the
// region's dtype, `f32` rows in f32, others unchanged; gradients flow back in each
// input's own dtype; outside a region nothing changes.
#include <doctest/doctest.h>

#include "autograd/engine.hpp"
#include "autograd/grad_mode.hpp"
#include "autograd/ops.hpp"
#include "tensor/random.hpp"

using namespace nabla;

TEST_CASE("autocast lowers products, keeps losses in f32, and restores on exit") {
  manual_seed(5);
  Tensor x = randn({4, 8}).set_requires_grad(true);
  Tensor w = randn({3, 8}).set_requires_grad(true);
  Tensor target = tensor_from({0, 1, 2, 0}, {4}, DType::i64);
  {
    AutocastGuard region(DType::bf16);
    CHECK(autocast_dtype() == DType::bf16);
    Tensor y = linear(x, w);
    CHECK(y.dtype() == DType::bf16);
    CHECK(softmax(y, 1).dtype() == DType::f32);
    CHECK(exp(y).dtype() == DType::bf16);  // keep: runs in its input's dtype
    Tensor loss = cross_entropy(y, target);
    CHECK(loss.dtype() == DType::f32);
    backward(loss);
  }
  CHECK_FALSE(autocast_dtype().has_value());
  CHECK(x.grad().dtype() == DType::f32);
  CHECK(w.grad().dtype() == DType::f32);
  CHECK(linear(x, w).dtype() == DType::f32);
  // f64 inputs are left alone, as in PyTorch.
  AutocastGuard region(DType::f16);
  CHECK(matmul(ones({2, 2}, DType::f64), ones({2, 2}, DType::f64)).dtype() == DType::f64);
  CHECK(matmul(ones({2, 2}), ones({2, 2})).dtype() == DType::f16);
}

TEST_CASE("autocast: batch_norm updates 16-bit running statistics in place") {
  // A model moved to bf16 keeps bf16 running stats; the f32 policy of batch_norm must
  // not hand the kernel f32 copies of them (their update would be lost).
  manual_seed(6);
  Tensor x = randn({8, 3, 4, 4}, DType::bf16);
  Tensor weight = ones({3}, DType::bf16), bias = zeros({3}, DType::bf16);
  Tensor running_mean = zeros({3}, DType::bf16), running_var = ones({3}, DType::bf16);
  Tensor y;
  {
    AutocastGuard region(DType::bf16);
    y = batch_norm(x, weight, bias, running_mean, running_var, /*training=*/true, 0.5, 1e-5);
  }
  CHECK(y.dtype() == DType::f32);
  // momentum 0.5: the new running mean is half the batch mean of each channel, and
  // the running variance moves from 1 toward the batch's (unbiased) variance.
  Tensor wide = to_dtype(x, DType::f32);
  std::vector<double> batch_mean = to_double_vector(mean(wide, {0, 2, 3}));
  std::vector<double> batch_var = to_double_vector(var(wide, {0, 2, 3}));
  std::vector<double> updated_mean = to_double_vector(running_mean), updated_var = to_double_vector(running_var);
  CHECK(running_mean.dtype() == DType::bf16);
  for (int c = 0; c < 3; ++c) {
    CHECK(updated_mean[c] == doctest::Approx(0.5 * batch_mean[c]).epsilon(1e-2).scale(1e-2));
    CHECK(updated_var[c] == doctest::Approx(0.5 + 0.5 * batch_var[c]).epsilon(1e-2));
  }
}
