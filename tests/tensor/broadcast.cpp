// Broadcasting and type promotion follow PyTorch, and their errors name the op, the
// argument and both shapes.
#include <doctest/doctest.h>

#include <cmath>

#include "autograd/ops.hpp"

using namespace nabla;

TEST_CASE("broadcasting lines shapes up from the right") {
  CHECK(add(zeros({4, 1, 3}), zeros({2, 1})).sizes() == Shape{4, 2, 3});
  CHECK(add(zeros({}), zeros({2, 3})).sizes() == Shape{2, 3});
  CHECK(mul(zeros({0, 1}), zeros({1, 5})).sizes() == Shape{0, 5});
  CHECK(where(ones({3, 1}, DType::b8), zeros({1, 2}), zeros({})).sizes() == Shape{3, 2});
}

TEST_CASE("a broadcast mismatch names the op, the arguments and the shapes") {
  CHECK_THROWS_WITH_AS(add(zeros({2, 3}), zeros({4})),
                       "add: argument 'other' of shape [4] cannot be broadcast with argument 'self' of shape [2, 3] "
                       "(dim -1: 3 vs 4)",
                       Error);
  CHECK_THROWS_WITH(matmul(zeros({2, 3}), zeros({4, 5})),
                    "matmul: argument 'other' of shape [4, 5] has 4 rows but argument 'self' of shape [2, 3] has 3 columns");
}

TEST_CASE("type promotion: categories, 0-dim tensors and wrapped numbers") {
  Tensor i = tensor_from({1, 2}, {2}, DType::i64);
  Tensor f = tensor_from({1, 2}, {2}, DType::f32);
  Tensor d = tensor_from({1, 2}, {2}, DType::f64);
  CHECK(add(i, f).dtype() == DType::f32);
  CHECK(add(f, d).dtype() == DType::f64);
  CHECK(add(f, scalar_tensor(1, DType::f64)).dtype() == DType::f32);  // 0-dim of the same category: no widening
  CHECK(add(i, scalar_tensor(1, DType::f64)).dtype() == DType::f64);  // 0-dim of a higher category wins
  CHECK((i * 2.5).dtype() == DType::f32);                              // a wrapped float gives the default float
  CHECK((f * 2.5).dtype() == DType::f32);
  CHECK(to_double_vector(i * 2.5) == std::vector<double>{2.5, 5});
  CHECK(div(i, i).dtype() == DType::f32);  // true division
  CHECK(add(tensor_from({1}, {1}, DType::f16), tensor_from({1}, {1}, DType::bf16)).dtype() == DType::f32);
  CHECK(gt(i, f).dtype() == DType::b8);
}

TEST_CASE("comparisons compute in the inputs' result_type, as PyTorch does") {
  // f32(0.1) is 0.100000001 as a double: compared in f64 it would be greater than 0.1.
  Tensor f = tensor_from({0.1}, {1}, DType::f32);
  CHECK(to_double_vector(gt(f, wrapped_scalar(0.1))) == std::vector<double>{0});  // in f32
  CHECK(to_double_vector(eq(f, wrapped_scalar(0.1))) == std::vector<double>{1});
  CHECK(to_double_vector(gt(f, scalar_tensor(0.1, DType::f64))) == std::vector<double>{0});  // 0-dim: no widening
  CHECK(to_double_vector(gt(f, tensor_from({0.1}, {1}, DType::f64))) == std::vector<double>{1});  // in f64
}

TEST_CASE("16-bit floats compute through f32 and round on store") {
  Tensor h = tensor_from({1.0, 2.0, 3.0}, {3}, DType::f16);
  Tensor y = exp(h);
  CHECK(y.dtype() == DType::f16);
  auto v = to_double_vector(y);
  CHECK(v[1] == doctest::Approx(7.389).epsilon(1e-3));
  Tensor b = tensor_from({1.0, 2.0}, {2}, DType::bf16);
  CHECK(to_double_vector(mul(b, b)) == std::vector<double>{1, 4});
  CHECK(sum(b).dtype() == DType::bf16);
}

TEST_CASE("half and bfloat16 conversions round to nearest even") {
  CHECK(static_cast<float>(Half(1.0f)) == 1.0f);
  CHECK(static_cast<float>(Half(65504.0f)) == 65504.0f);
  CHECK(std::isinf(static_cast<float>(Half(70000.0f))));
  CHECK(static_cast<float>(Half(1e-7f)) == doctest::Approx(1.19e-7).epsilon(0.01));  // subnormal
  CHECK(static_cast<float>(BFloat16(1.00390625f)) == 1.0f);  // halfway: rounds to even
  CHECK(std::isnan(static_cast<float>(BFloat16(std::nanf("")))));
}
