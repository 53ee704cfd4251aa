// Control-flow nodes run (graph/control_flow_exec.cpp): the golden graphs of
// tests/passes/golden/control_flow_*.ir, executed, against the same loop written with
// eager ops. Their text, round trips and verifier errors are the golden files' checks.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "autograd/ops.hpp"
#include "graph/executor.hpp"
#include "graph/ir.hpp"
#include "tensor/random.hpp"

using namespace nabla;
using namespace nabla::graph;

namespace {

Graph golden_graph(const std::string& name) {
  std::ifstream in(std::string(NABLA_TEST_DATA) + "/passes/golden/" + name);
  std::stringstream s;
  s << in.rdbuf();
  Graph g = parse_graph(s.str());
  verify(g);
  return g;
}

Tensor op(OpId id, const TensorList& ins) { return call(id, ins, {})[0]; }

double max_abs_diff(const Tensor& a, const Tensor& b) {
  REQUIRE(a.sizes() == b.sizes());
  std::vector<double> x = to_double_vector(a), y = to_double_vector(b);
  double d = 0;
  for (size_t i = 0; i < x.size(); ++i) d = std::max(d, std::abs(x[i] - y[i]));
  return d;
}

// The RNN step of control_flow_scan.ir, eagerly.
Tensor rnn_step(const Tensor& w, const Tensor& h, const Tensor& x) {
  return op(OpId::tanh, {matmul(h, w) + x}) * 0.5;
}

}  // namespace

TEST_CASE("a scan runs its body once per row, carrying state and stacking outputs") {
  Graph g = golden_graph("control_flow_scan.ir");
  Tensor h0 = randn({2, 3}), xs = randn({5, 2, 3}), w = randn({3, 3});
  TensorList out = run_graph(g, {h0, xs, w});
  Tensor h = h0;
  for (int64_t k = 0; k < 5; ++k) {
    h = rnn_step(w, h, select(xs, 0, k));
    CHECK(max_abs_diff(select(out[1], 0, k), h) < 1e-6);
  }
  CHECK(max_abs_diff(out[0], h) < 1e-6);
}

TEST_CASE("a reverse scan runs its steps from the last row, and row k is still step k's") {
  Graph g = golden_graph("control_flow_scan.ir");
  g.nodes[0].attrs.set("reverse", true);
  verify(g);
  CHECK(print_graph(g).find("{carried=1, scanned=1, length=5, reverse=true}") != std::string::npos);
  CHECK(print_graph(parse_graph(print_graph(g))) == print_graph(g));
  Tensor h0 = randn({2, 3}), xs = randn({5, 2, 3}), w = randn({3, 3});
  TensorList out = run_graph(g, {h0, xs, w});
  Tensor h = h0;
  for (int64_t k = 4; k >= 0; --k) {
    h = rnn_step(w, h, select(xs, 0, k));
    CHECK(max_abs_diff(select(out[1], 0, k), h) < 1e-6);
  }
  CHECK(max_abs_diff(out[0], h) < 1e-6);
}

TEST_CASE("a cond runs the region its predicate selects") {
  Graph g = golden_graph("control_flow_cond.ir");
  Tensor x = randn({4, 3});
  Tensor positive = op(OpId::abs, {x}), negative = -op(OpId::abs, {x});
  Tensor r = op(OpId::relu, {positive});
  CHECK(max_abs_diff(run_graph(g, {positive})[0], r * r) == 0);
  CHECK(max_abs_diff(run_graph(g, {negative})[0], negative) == 0);
}

TEST_CASE("a while_loop runs its body until its cond region yields false") {
  Graph g = golden_graph("control_flow_while.ir");
  Tensor x0 = scalar_tensor(1.0, DType::f64);
  for (double a : {2.0, 9.0, 0.25}) {
    Tensor root = run_graph(g, {x0, scalar_tensor(a, DType::f64)})[0];
    CHECK(std::abs(root.item() * root.item() - a) <= 1e-6);
    CHECK(std::abs(root.item() - std::sqrt(a)) < 1e-6);
  }
  // Already converged: the body never runs, the carried value comes back unchanged.
  CHECK(run_graph(g, {scalar_tensor(3.0, DType::f64), scalar_tensor(9.0, DType::f64)})[0].item() == 3.0);
}

TEST_CASE("a scan of length 0 returns its initial carry and empty stacks") {
  Graph g = parse_graph(R"(graph g(%h0: f32[3], %xs: f32[0, 3]) {
  %2, %3 = scan(%h0, %xs) {carried=1, scanned=1, length=0} : f32[3], f32[0, 3] {
    body(%h: f32[3], %x: f32[3])
    %2 = add(%h, %x) : f32[3]
    yield %2, %2
  }
  return %2, %3
}
)");
  verify(g);
  Tensor h0 = randn({3});
  TensorList out = run_graph(g, {h0, empty({0, 3})});
  CHECK(max_abs_diff(out[0], h0) == 0);
  CHECK(out[1].sizes() == Shape{0, 3});
}

TEST_CASE("a while_loop with a recorded trip count stacks its carries and refuses another count") {
  Graph g = golden_graph("control_flow_while_trips.ir");
  Tensor x0 = tensor_from({4.0, 2.0}, {2}, DType::f64);  // sums 6, 3, 1.5, then 0.75: 3 trips
  TensorList out = run_graph(g, {x0});
  CHECK(to_double_vector(out[0]) == std::vector<double>{0.5, 0.25});
  CHECK(to_double_vector(out[1]) == std::vector<double>{4.0, 2.0, 2.0, 1.0, 1.0, 0.5});
  auto message = [&](const Tensor& x) {
    try {
      run_graph(g, {x});
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(message(tensor_from({8.0, 4.0}, {2}, DType::f64)).find("while_loop at halve.dsl:3:3: the loop runs more than 3 "
                                                               "iterations, but its gradient was recorded over 3") !=
        std::string::npos);
  CHECK(message(tensor_from({2.0, 1.0}, {2}, DType::f64)).find("the loop ran 2 iterations") != std::string::npos);
}

TEST_CASE("a scan with stack_carries returns the carry each step received") {
  Graph g = golden_graph("control_flow_scan_stack_carries.ir");
  Tensor h0 = randn({3}), xs = randn({4, 3});
  TensorList out = run_graph(g, {h0, xs});
  Tensor h = h0;
  for (int64_t k = 0; k < 4; ++k) {
    CHECK(max_abs_diff(select(out[2], 0, k), h) == 0);
    h = h + select(xs, 0, k);
  }
  CHECK(max_abs_diff(out[0], h) == 0);
}
