// The engine: accumulation, retain_graph, create_graph to third order, grad() with
// allow_unused, no_grad, detach, hooks, retain_grad, in-place writes and version
// counters (anomaly mode: anomaly.cpp).
#include <doctest/doctest.h>

#include <cmath>

#include "autograd/engine.hpp"
#include "autograd/grad_mode.hpp"
#include "autograd/ops.hpp"
#include "autograd/gradcheck.hpp"

using namespace nabla;

namespace {
Tensor leaf(std::vector<double> v, Shape s) { return tensor_from(v, s, DType::f64).set_requires_grad(true); }
std::vector<double> values(const Tensor& t) { return to_double_vector(t); }
}  // namespace

TEST_CASE("gradients accumulate into .grad across backward calls") {
  Tensor x = leaf({1, 2, 3}, {3});
  backward(sum(x * x));
  CHECK(values(x.grad()) == std::vector<double>{2, 4, 6});
  backward(sum(x * 3.0));
  CHECK(values(x.grad()) == std::vector<double>{5, 7, 9});
  CHECK(x.grad().requires_grad() == false);
}

TEST_CASE("a tensor used twice gets the sum of both paths") {
  Tensor x = leaf({2}, {1});
  Tensor y = x * x + exp(x) * x;  // d/dx = 2x + e^x + x e^x
  backward(sum(y));
  double e = std::exp(2.0);
  CHECK(values(x.grad())[0] == doctest::Approx(4 + e + 2 * e));
}

TEST_CASE("backward twice needs retain_graph, and says so") {
  Tensor x = leaf({1, 2}, {2});
  Tensor y = sum(exp(x));
  backward(y, Tensor(), true);
  backward(y);  // the first call kept the graph
  CHECK(values(x.grad())[0] == doctest::Approx(2 * std::exp(1.0)));
  CHECK_THROWS_WITH_AS(backward(y), doctest::Contains("retain_graph=true"), Error);
}

TEST_CASE("create_graph gives derivatives of any order") {
  Tensor x = leaf({0.3, -0.7}, {2});
  Tensor y = sum(tanh(x));
  Tensor d1 = grad({y}, {x}, {}, std::nullopt, true)[0];              // 1 - t^2
  Tensor d2 = grad({sum(d1)}, {x}, {}, std::nullopt, true)[0];        // -2 t (1 - t^2)
  Tensor d3 = grad({sum(d2)}, {x})[0];                                // -2 (1 - t^2)(1 - 3 t^2)
  for (int i = 0; i < 2; ++i) {
    double t = std::tanh(values(x)[i]);
    CHECK(values(d1)[i] == doctest::Approx(1 - t * t));
    CHECK(values(d2)[i] == doctest::Approx(-2 * t * (1 - t * t)));
    CHECK(values(d3)[i] == doctest::Approx(-2 * (1 - t * t) * (1 - 3 * t * t)));
  }
  CHECK_FALSE(x.grad().defined());  // grad() never writes .grad
}

TEST_CASE("grad: unused inputs need allow_unused; grad_outputs weight the outputs") {
  Tensor x = leaf({1, 2}, {2}), z = leaf({5}, {1});
  Tensor y = x * 3.0;
  CHECK_THROWS_WITH(grad({y}, {x, z}, {ones({2}, DType::f64)}, true),
                    doctest::Contains("input 1 was not used to compute the outputs"));
  TensorList g = grad({y}, {x, z}, {tensor_from({1, 10}, {2}, DType::f64)}, true, false, true);
  CHECK(values(g[0]) == std::vector<double>{3, 30});
  CHECK_FALSE(g[1].defined());
  CHECK_THROWS_WITH(grad({y}, {x}), doctest::Contains("a gradient can be implied only for one-element outputs"));
}

TEST_CASE("no_grad records nothing; detach cuts history") {
  Tensor x = leaf({1, 2}, {2});
  {
    NoGradGuard guard;
    Tensor y = x * 2.0;
    CHECK_FALSE(y.requires_grad());
  }
  Tensor d = detach(x * 2.0);
  CHECK_FALSE(d.requires_grad());
  CHECK(d.storage() != nullptr);
  CHECK_THROWS_WITH(backward(sum(d)), doctest::Contains("does not require grad"));
}

TEST_CASE("tensor hooks see and may replace the gradient; handles remove them") {
  Tensor x = leaf({1, 2}, {2});
  Tensor y = x * 2.0;
  std::vector<double> seen;
  register_hook(y, [&](const Tensor& g) {
    seen = values(g);
    return g * 10.0;
  });
  HookHandle h = register_hook(x, [](const Tensor& g) { return g + 1.0; });
  backward(sum(y));
  CHECK(seen == std::vector<double>{1, 1});
  CHECK(values(x.grad()) == std::vector<double>{21, 21});
  remove_hook(h);
  x.set_grad(Tensor());
  backward(sum(x * 2.0));
  CHECK(values(x.grad()) == std::vector<double>{2, 2});
}

TEST_CASE("retain_grad keeps the gradient of a non-leaf") {
  Tensor x = leaf({1, 2}, {2});
  Tensor y = x * 3.0;
  retain_grad(y);
  backward(sum(y * y));
  CHECK(values(y.grad()) == std::vector<double>{6, 12});
}

TEST_CASE("an in-place change to a saved tensor is an error naming the op") {
  Tensor x = leaf({1, 2}, {2});
  Tensor y = x * 1.0;
  Tensor z = exp(y);   // saves its output z
  Tensor w = y * x;    // saves y (input 0) and x
  Tensor one = ones({2}, DType::f64);
  add_(y, one);        // y is now version 1
  CHECK_THROWS_WITH_AS(backward(sum(w)),
                       "backward of 'mul': input 0 was saved at version 0 but has been modified by an in-place "
                       "operation since (now version 1); use an out-of-place op or clone it first",
                       Error);
  (void)z;
}

TEST_CASE("in-place ops on non-leaves are differentiable; on leaves they are errors") {
  Tensor x = leaf({1, 2}, {2});
  Tensor y = x * 2.0;
  mul_(y, x);  // y = 2x * x
  backward(sum(y));
  CHECK(values(x.grad()) == std::vector<double>{4, 8});
  CHECK_THROWS_WITH(add_(x, ones({2}, DType::f64)), doctest::Contains("a leaf tensor that requires grad"));
  {
    NoGradGuard guard;  // optimizers update leaves like this
    add_(x, ones({2}, DType::f64));
  }
  CHECK(values(x) == std::vector<double>{2, 3});
  Tensor v = slice(x * 1.0, 0, 0, 1);
  CHECK_THROWS_WITH(zero_(v), doctest::Contains("view of a tensor that requires grad"));
}

TEST_CASE("copy_ routes the gradient to the source") {
  Tensor src = leaf({3}, {1});
  Tensor dst = zeros({2}, DType::f64);
  copy_(dst, src);  // broadcast [1] -> [2]
  backward(sum(dst * tensor_from({1, 2}, {2}, DType::f64)));
  CHECK(values(src.grad()) == std::vector<double>{3});
}

TEST_CASE("the node origin names the DSL location in errors") {
  set_current_origin("train.dsl:3:9");
  Tensor x = leaf({1}, {1});
  Tensor y = exp(x);
  set_current_origin("");
  add_(y, ones({1}, DType::f64));
  CHECK_THROWS_WITH(backward(sum(y)), doctest::Contains("(op called at train.dsl:3:9)"));
}

TEST_CASE("gradcheck helpers work on a composite function") {
  GradcheckFn f = [](const TensorList& in) { return TensorList{matmul(tanh(in[0]), in[1]) / (sum(in[1] * in[1]) + 1.0)}; };
  TensorList inputs = {tensor_from({0.1, -0.2, 0.3, 0.4, 0.5, -0.6}, {2, 3}, DType::f64),
                       tensor_from({0.3, 0.1, -0.4, 0.2, 0.5, 0.7}, {3, 2}, DType::f64)};
  CHECK(gradcheck(f, inputs, {0, 1}).ok);
  CHECK(gradgradcheck(f, inputs, {0, 1}).ok);
  // And it catches a wrong gradient: a hook that doubles it.
  GradcheckFn wrong = [](const TensorList& in) {
    Tensor y = in[0] * 1.0;
    if (y.requires_grad()) register_hook(y, [](const Tensor& g) { return g * 2.0; });
    return TensorList{y};
  };
  CHECK_FALSE(gradcheck(wrong, {inputs[0]}, {0}).ok);
}

// A number argument (a wrapped f64: x ** (1/3), atan2(x, 3.0)) keeps f64 precision in
// the gradient: two numbers combined in a backward rule once computed in the default
// f32, and these gradients were good to 7 digits only.
TEST_CASE("gradients with a number argument are exact in f64") {
  const double c = 1.0 / 3.0;
  Tensor x = tensor_from({0.3, 1.7, 2.2}, {3}, DType::f64).set_requires_grad(true);
  Tensor gp = grad({sum(pow(x, c))}, {x})[0];
  Tensor ga = grad({sum(atan2(x, wrapped_scalar(c)))}, {x})[0];
  Tensor gb = grad({sum(atan2(wrapped_scalar(c), x))}, {x})[0];
  for (int64_t i = 0; i < 3; ++i) {
    const double v = static_cast<const double*>(x.raw_data())[i];
    CHECK(static_cast<const double*>(gp.raw_data())[i] == doctest::Approx(c * std::pow(v, c - 1)).epsilon(1e-14));
    CHECK(static_cast<const double*>(ga.raw_data())[i] == doctest::Approx(c / (v * v + c * c)).epsilon(1e-14));
    CHECK(static_cast<const double*>(gb.raw_data())[i] == doctest::Approx(-c / (v * v + c * c)).epsilon(1e-14));
  }
}
