// Gradients that come from the user are fitted to the tensor they flow into, or
// rejected naming the node and both shapes (Note [Gradient validation] in
// autograd/grad_validation.cpp): grad_outputs, tensor hooks on leaves and non-leaves,
// and the results of a backward rule the op table did not write. The language's side
// is tests/hardening/regress/graph_*hook*.dsl and graph_grad_dtype.dsl.
#include <doctest/doctest.h>

#include "autograd/engine.hpp"
#include "autograd/node.hpp"
#include "autograd/ops.hpp"

using namespace nabla;

namespace {

Tensor leaf(std::vector<double> v, DType dtype = DType::f32) {
  return tensor_from(v, {int64_t(v.size())}, dtype).set_requires_grad(true);
}
Tensor ints(std::vector<double> v) { return tensor_from(v, {int64_t(v.size())}, DType::i64); }
std::vector<double> values(const Tensor& t) { return to_double_vector(t); }

// A node whose backward returns whatever the test gives it, as a custom function's
// backward may: y = custom(x) is x, with this rule.
struct GivenGradient : Node {
  Tensor given;
  TensorList apply(TensorList&&) override { return {given}; }
  std::string name() const override { return "GivenBackward"; }
};

Tensor with_rule(const Tensor& x, const Tensor& given) {
  Tensor y = make_view(x, x.sizes(), x.strides(), x.offset());
  auto node = std::make_shared<GivenGradient>();
  node->given = given;
  node->next_edges = {gradient_edge(x)};
  node->output_metas = {{x.sizes(), x.dtype(), x.device()}};
  AutogradMeta& meta = y.impl()->autograd_meta();
  meta.requires_grad = true;
  meta.grad_fn = node;
  return y;
}

}  // namespace

TEST_CASE("grad_outputs of another dtype are cast to the output's dtype") {
  Tensor x = leaf({1, 2, 3});
  Tensor y = x + 1.0;  // add passes the gradient through: an i64 seed used to reach x.grad
  TensorList g = grad({y}, {x}, {ints({1, 2, 3})}, true);
  CHECK(g[0].dtype() == DType::f32);
  CHECK(values(g[0]) == std::vector<double>{1, 2, 3});
  backward(y, ints({1, 1, 1}));
  CHECK(x.grad().dtype() == DType::f32);
  Tensor z = leaf({2}, DType::f64);
  backward(z * 3.0, tensor_from({1}, {1}, DType::f32));
  CHECK(z.grad().dtype() == DType::f64);
}

TEST_CASE("grad_outputs of another shape are an error") {
  Tensor x = leaf({1, 2, 3});
  CHECK_THROWS_WITH(backward(x * 2.0, ones({1})), "backward: grad_output 0 has shape [1] but the output has shape [3]");
}

TEST_CASE("hooks returning another dtype are cast, on non-leaves and on leaves") {
  Tensor x = leaf({1, 2});
  Tensor y = x * 3.0;
  register_hook(y, [](const Tensor&) { return ints({5, 5}); });
  Tensor seen;
  register_hook(x, [&seen](const Tensor& g) {
    seen = g;  // the next hook sees the cast gradient
    return ints({7, 7});
  });
  register_hook(x, [&seen](const Tensor& g) {
    CHECK(g.dtype() == DType::f32);
    return Tensor();
  });
  backward(sum(y));
  CHECK(seen.dtype() == DType::f32);
  CHECK(values(seen) == std::vector<double>{15, 15});
  CHECK(x.grad().dtype() == DType::f32);
  CHECK(values(x.grad()) == std::vector<double>{7, 7});
}

TEST_CASE("a hook that changes the shape is an error naming the tensor and both shapes") {
  Tensor x = leaf({1, 2, 3});
  Tensor y = x * 2.0;
  register_hook(y, [](const Tensor&) { return ones({1}); });  // broadcastable, still refused
  CHECK_THROWS_WITH(backward(sum(y)),
                    "a hook on a tensor of shape [3] (output 0 of MulBackward) returned a gradient of shape [1]; a "
                    "hook must return a gradient of the tensor's shape");
  Tensor z = leaf({1, 2});
  register_hook(z, [](const Tensor&) { return ones({2, 2}); });
  CHECK_THROWS_WITH(backward(sum(z * 2.0)),
                    "a hook on a leaf tensor of shape [2] returned a gradient of shape [2, 2]; a hook must return a "
                    "gradient of the tensor's shape");
}

TEST_CASE("a rule's result is cast, summed over broadcast dims, or refused") {
  Tensor x = leaf({1, 2});
  SUBCASE("another dtype") {
    backward(sum(with_rule(x, ints({4, 5}))));
    CHECK(x.grad().dtype() == DType::f32);
    CHECK(values(x.grad()) == std::vector<double>{4, 5});
  }
  SUBCASE("broadcast over the input") {
    backward(sum(with_rule(x, ones({3, 2}, DType::f64))));
    CHECK(x.grad().dtype() == DType::f32);
    CHECK(values(x.grad()) == std::vector<double>{3, 3});
  }
  SUBCASE("a shape the input does not broadcast to") {
    CHECK_THROWS_WITH(backward(sum(with_rule(x, ones({3})))),
                      "GivenBackward returned a gradient of shape [3] for input 0, whose shape is [2] (a gradient "
                      "must have the input's shape, or one the input broadcasts to)");
  }
  SUBCASE("same element count, other shape: not reshaped") {
    CHECK_THROWS(backward(sum(with_rule(x, ones({2, 1})))));
  }
}

TEST_CASE("the cast is an op: create_graph differentiates through it") {
  Tensor x = leaf({2}, DType::f64);
  Tensor v = tensor_from({3}, {1}, DType::f32).set_requires_grad(true);
  Tensor g = grad({x * x}, {x}, {v}, std::nullopt, /*create_graph=*/true)[0];  // 2 x v, v cast to f64
  CHECK(g.dtype() == DType::f64);
  CHECK(values(g) == std::vector<double>{12});
  TensorList second = grad({g}, {x, v});
  CHECK(values(second[0]) == std::vector<double>{6});
  CHECK(second[1].dtype() == DType::f32);
  CHECK(values(second[1]) == std::vector<double>{4});
}
