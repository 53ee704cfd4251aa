// Dropout's random behaviour, which the op sweep cannot compare with PyTorch: the
// mask follows the seed, drops about a fraction p, keeps the mean, and eval mode or
// p == 0 is the identity.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>

#include "autograd/engine.hpp"
#include "autograd/ops.hpp"
#include "tensor/random.hpp"

using namespace nabla;

namespace {

// (y, mask) of the dropout row.
TensorList dropout_outputs(const Tensor& x, double p, bool training) {
  return call(OpId::dropout, {x}, {{"p", p}, {"training", training}});
}

double fraction_of_zeros(const Tensor& t) {
  int64_t zeros = 0;
  for (double v : to_double_vector(t)) zeros += v == 0.0;
  return static_cast<double>(zeros) / static_cast<double>(t.numel());
}

double mean_of(const Tensor& t) {
  double s = 0;
  for (double v : to_double_vector(t)) s += v;
  return s / static_cast<double>(t.numel());
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("dropout: the same seed gives the same mask, another seed another") {
  Tensor x = ones({1000}, DType::f32);
  manual_seed(7);
  auto first = to_double_vector(dropout_outputs(x, 0.5, true)[1]);
  manual_seed(7);
  auto again = to_double_vector(dropout_outputs(x, 0.5, true)[1]);
  manual_seed(8);
  auto other = to_double_vector(dropout_outputs(x, 0.5, true)[1]);
  CHECK(first == again);
  CHECK(first != other);
  // Consecutive calls draw fresh masks.
  manual_seed(7);
  dropout_outputs(x, 0.5, true);
  CHECK(to_double_vector(dropout_outputs(x, 0.5, true)[1]) != first);
}

TEST_CASE("dropout: drops a fraction p, scales the rest by 1 / (1 - p), keeps the mean") {
  manual_seed(1);
  Tensor x = ones({100000}, DType::f64);
  for (double p : {0.1, 0.3, 0.5, 0.9}) {
    CAPTURE(p);
    TensorList out = dropout_outputs(x, p, true);
    // The fraction's standard deviation is sqrt(p (1 - p) / 1e5) < 0.0016.
    CHECK(std::abs(fraction_of_zeros(out[0]) - p) < 0.01);
    for (double v : to_double_vector(out[0])) {
      if (v != 0.0) {
        CHECK(v == doctest::Approx(1.0 / (1.0 - p)));
        break;
      }
    }
    CHECK(to_double_vector(out[0]) == to_double_vector(mul(out[1], wrapped_scalar(1.0 / (1.0 - p)))));
    CHECK(std::abs(mean_of(out[0]) - 1.0) < 0.05);
  }
}

TEST_CASE("dropout: eval mode and p = 0 are the identity; p = 1 gives zeros") {
  Tensor x = tensor_from({1, -2, 3, 4.5}, {2, 2}, DType::f32);
  for (auto [p, training] : {std::pair{0.5, false}, std::pair{0.0, true}, std::pair{1.0, false}}) {
    TensorList out = dropout_outputs(x, p, training);
    CHECK(to_double_vector(out[0]) == to_double_vector(x));
    CHECK(to_double_vector(out[1]) == std::vector<double>(4, 1.0));
  }
  TensorList all = dropout_outputs(x, 1.0, true);
  CHECK(to_double_vector(all[0]) == std::vector<double>(4, 0.0));
  CHECK(to_double_vector(all[1]) == std::vector<double>(4, 0.0));
  CHECK(dropout(x, 0.5, false).dtype() == DType::f32);
}

TEST_CASE("dropout: p outside [0, 1] is an error naming p") {
  Tensor x = ones({3});
  for (auto [p, shown] : {std::pair{-0.1, "-0.1"}, std::pair{1.5, "1.5"}}) {
    std::string msg = error_of([&] { dropout(x, p); });
    CAPTURE(msg);
    CHECK(msg.find("dropout") != std::string::npos);
    CHECK(msg.find("between 0 and 1") != std::string::npos);
    CHECK(msg.find(shown) != std::string::npos);
  }
}

TEST_CASE("dropout: the gradient is the mask scaled by 1 / (1 - p), in eval mode 1") {
  manual_seed(3);
  Tensor x = ones({200}, DType::f64).set_requires_grad(true);
  TensorList out = dropout_outputs(x, 0.25, true);
  CHECK_FALSE(out[1].requires_grad());
  backward(sum(out[0]));
  CHECK(to_double_vector(x.grad()) == to_double_vector(mul(out[1], wrapped_scalar(1.0 / 0.75))));

  Tensor z = ones({5}, DType::f64).set_requires_grad(true);
  backward(sum(dropout(z, 0.25, false)));
  CHECK(to_double_vector(z.grad()) == std::vector<double>(5, 1.0));
}

TEST_CASE("dropout: 16-bit inputs give 16-bit outputs") {
  manual_seed(5);
  TensorList out = dropout_outputs(ones({64}, DType::f16), 0.5, true);
  CHECK(out[0].dtype() == DType::f16);
  CHECK(out[1].dtype() == DType::f16);
  CHECK(to_double_vector(out[0]) == to_double_vector(mul(out[1], wrapped_scalar(2.0))));
}
