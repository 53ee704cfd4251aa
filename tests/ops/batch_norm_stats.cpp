// batch_norm's side effect, which the sweep (outputs only) does not see: in training
// the running statistics move toward the batch mean and the UNBIASED batch variance
// by `momentum`, in place (bumping their version); in eval they stay.
#include <doctest/doctest.h>

#include <cmath>

#include "autograd/ops.hpp"
#include "tensor/random.hpp"

using namespace nabla;

TEST_CASE("batch_norm training updates running stats in place; eval leaves them") {
  manual_seed(3);
  int64_t n = 4, c = 3, hw = 5;
  Tensor x = randn({n, c, hw}, DType::f64);
  Tensor running_mean = tensor_from({0.5, -1.0, 2.0}, {c}, DType::f64);
  Tensor running_var = tensor_from({1.0, 2.0, 0.5}, {c}, DType::f64);
  auto rm0 = to_double_vector(running_mean), rv0 = to_double_vector(running_var);
  uint32_t version = running_mean.version();
  double momentum = 0.25;
  batch_norm(x, Tensor(), Tensor(), running_mean, running_var, true, momentum, 1e-5);
  CHECK(running_mean.version() == version + 1);
  auto xs = to_double_vector(x);
  auto rm = to_double_vector(running_mean), rv = to_double_vector(running_var);
  for (int64_t ch = 0; ch < c; ++ch) {
    double s = 0, ss = 0;
    int64_t count = n * hw;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t k = 0; k < hw; ++k) s += xs[(i * c + ch) * hw + k];
    double batch_mean = s / count;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t k = 0; k < hw; ++k) ss += std::pow(xs[(i * c + ch) * hw + k] - batch_mean, 2);
    double unbiased_var = ss / (count - 1);
    CHECK(rm[ch] == doctest::Approx((1 - momentum) * rm0[ch] + momentum * batch_mean));
    CHECK(rv[ch] == doctest::Approx((1 - momentum) * rv0[ch] + momentum * unbiased_var));
  }
  batch_norm(x, Tensor(), Tensor(), running_mean, running_var, false, momentum, 1e-5);
  CHECK(to_double_vector(running_mean) == rm);
  CHECK(to_double_vector(running_var) == rv);
}
