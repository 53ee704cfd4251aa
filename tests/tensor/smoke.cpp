#include <doctest/doctest.h>

#include "autograd/engine.hpp"
#include "autograd/ops.hpp"

using namespace nabla;

TEST_CASE("add broadcasts and backward reaches both leaves") {
  Tensor a = tensor_from({1, 2, 3, 4, 5, 6}, {2, 3}, DType::f64).set_requires_grad(true);
  Tensor b = tensor_from({10, 20, 30}, {3}, DType::f64).set_requires_grad(true);
  Tensor y = sum(a * b + a);
  CHECK(y.item() == doctest::Approx(1 * 11 + 2 * 21 + 3 * 31 + 4 * 11 + 5 * 21 + 6 * 31));
  backward(y);
  CHECK(to_double_vector(a.grad()) == std::vector<double>{11, 21, 31, 11, 21, 31});
  CHECK(to_double_vector(b.grad()) == std::vector<double>{5, 7, 9});
}
