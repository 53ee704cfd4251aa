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
