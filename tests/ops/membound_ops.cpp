// The memory-bound kernels beyond the sweep's reference cases: relu's gradient as
// one threshold_backward (PyTorch's rule at the threshold and at NaN, on sizes that
// take both threads).
#include <doctest/doctest.h>

#include <cmath>

#include "autograd/engine.hpp"
#include "autograd/ops.hpp"
#include "ops/compare.hpp"
#include "tensor/random.hpp"

using namespace nabla;
using nabla::testing::max_abs_diff;

TEST_CASE("threshold_backward: 0 at and below the threshold, grad above and at a NaN input") {
  Tensor g = tensor_from({1, 2, 3, 4, NAN}, {5}, DType::f64);
  Tensor x = tensor_from({-1, 0, NAN, 1, -2}, {5}, DType::f64);
  std::vector<double> got = to_double_vector(threshold_backward(g, x, 0.0));
  CHECK(got[0] == 0);
  CHECK(got[1] == 0);
  CHECK(got[2] == 3);  // x <= 0 is false for a NaN x, as in PyTorch
  CHECK(got[3] == 4);
  CHECK(got[4] == 0);  // a select, not a product: a NaN grad masked out gives 0
  CHECK(to_double_vector(threshold_backward(g, x, -1.5))[0] == 1);
}

TEST_CASE("relu's backward is threshold_backward on its result, on one thread and on both") {
  manual_seed(32);
  for (int64_t n : {int64_t{7}, int64_t{1} << 20}) {
    for (DType t : {DType::f32, DType::f64}) {
      Tensor x = randn({n}, t).set_requires_grad(true);
      Tensor g = randn({n}, t);
      Tensor y = relu(x);
      Tensor dx = grad({y}, {x}, {g}).at(0);
      Tensor want = where(gt(x, wrapped_scalar(0.0)), g, wrapped_scalar(0.0));
      CHECK(max_abs_diff(dx, want) == 0);
    }
  }
}
