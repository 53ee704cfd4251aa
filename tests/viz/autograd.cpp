// autograd_dot: the eager backward graph of a tensor, from its grad_fn down to the
// AccumulateGrad of its leaves, including the graph of a gradient made with
// create_graph=true.
#include <doctest/doctest.h>

#include <algorithm>

#include "autograd/engine.hpp"
#include "autograd/ops.hpp"
#include "svg.hpp"
#include "viz/graphviz.hpp"

using namespace nabla;
using viz_test::Svg;

namespace {

Tensor leaf3() { return tensor_from({1, 2, 3}, {3}, DType::f64).set_requires_grad(true); }

// The bold first line of every backward node, in the order the SVG lists them.
std::vector<std::string> node_names(const Svg& svg, const std::string& css_class) {
  std::vector<std::string> names;
  for (const auto& g : svg.of_kind("node"))
    if (g.has_class(css_class)) names.push_back(g.texts.front());
  return names;
}

}  // namespace

TEST_CASE("autograd_dot of sum(x * x): root, SumBackward, MulBackward, AccumulateGrad") {
  Tensor x = leaf3();
  Tensor y = sum(x * x);
  if (!viz_test::can_render()) return;
  Svg svg(viz::render_data(viz::autograd_dot(y), "svg"));
  CHECK(svg.count("node") == 4);
  CHECK(svg.titled("t0").has_class("root"));
  CHECK(svg.titled("t0").texts == std::vector<std::string>{"tensor 0", "f64[]"});
  CHECK(svg.titled("f0").texts.front() == "SumBackward");
  CHECK(svg.titled("f1").texts == std::vector<std::string>{"MulBackward", "f64[3]"});
  CHECK(svg.titled("f2").has_class("leaf"));
  CHECK(svg.titled("f2").texts == std::vector<std::string>{"AccumulateGrad", "f64[3]"});
  // root -> sum -> mul, then mul's two inputs both reach x's accumulator.
  CHECK(svg.count("edge") == 4);
  int into_leaf = 0;
  for (const auto& e : svg.of_kind("edge")) into_leaf += e.title == "f1->f2";
  CHECK(into_leaf == 2);
}

TEST_CASE("autograd_dot of a gradient made with create_graph draws its own graph") {
  Tensor x = leaf3();
  Tensor y = sum(x * x);
  Tensor dx = grad({y}, {x}, {}, std::nullopt, /*create_graph=*/true)[0];  // 2x, differentiable
  REQUIRE(dx.grad_fn());
  if (!viz_test::can_render()) return;
  Svg svg(viz::render_data(viz::autograd_dot(dx), "svg"));
  std::vector<std::string> fns = node_names(svg, "fn");
  // d(x*x)/dx = g*x + g*x: the backward rule of mul made of ops, summed by add.
  CHECK(fns.front() == "AddBackward");
  CHECK(std::count(fns.begin(), fns.end(), "MulBackward") == 2);
  CHECK(node_names(svg, "leaf") == std::vector<std::string>{"AccumulateGrad"});

}

TEST_CASE("autograd_dot of a second derivative (grad of grad, create_graph twice)") {
  Tensor x = leaf3();
  Tensor y = sum(x * x * x);
  Tensor d1 = grad({y}, {x}, {}, std::nullopt, true)[0];        // 3x^2
  Tensor d2 = grad({sum(d1)}, {x}, {}, std::nullopt, true)[0];  // 6x, still differentiable
  REQUIRE(d2.grad_fn());
  if (!viz_test::can_render()) return;
  Svg svg(viz::render_data(viz::autograd_dot(d2), "svg"));
  std::vector<std::string> fns = node_names(svg, "fn");
  CHECK(std::count(fns.begin(), fns.end(), "MulBackward") >= 2);
  CHECK(node_names(svg, "leaf") == std::vector<std::string>{"AccumulateGrad"});
  // Everything drawn hangs off the root: at least one edge into each node but it.
  CHECK(svg.count("edge") >= svg.count("node") - 1);
}

TEST_CASE("autograd_dot marks nodes whose saved tensors backward freed, and draws several roots") {
  Tensor x = leaf3();
  Tensor y = sum(exp(x));
  backward(y);  // no retain_graph: ExpBackward's saved output is freed
  Tensor z = sum(x * 2.0);
  if (!viz_test::can_render()) return;
  Svg svg(viz::render_data(viz::autograd_dot(std::vector<Tensor>{y, z, x}), "svg"));
  CHECK(svg.count_class("node", "root") == 3);
  CHECK(svg.titled("t2").texts == std::vector<std::string>{"tensor 2", "f64[3]", "leaf"});
  CHECK(svg.count_class("node", "freed") >= 1);
  // Both roots reach the one accumulator of x.
  CHECK(svg.count_class("node", "leaf") == 1);
}
