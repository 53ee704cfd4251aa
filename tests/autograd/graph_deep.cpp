// Deep autograd graphs (issue 25): chains as long as a training loop are freed,
// walked and differentiated without a C++ frame per node, on the default 8 MiB stack
// (Note [Iterative graph release] in tensor/tensor.hpp, Note [Iterative graph walks]
// in autograd/engine.cpp). Each case runs on a thread whose stack is exactly 8 MiB,
// so it does not depend on the ulimit of whoever runs the tests; a recursion per
// node would overflow it (the freeing recursion did at ~10^5 nodes).
//
// The long chains use StepNode, the leanest differentiable node (one edge, one
// output meta: ~290 bytes a node, so 10^7 of them take ~2.9 GB; measured on the
// shared 2-core machine: build 3.6 s, backward 6 s, free 0.7 s). The op-table chains
// (whose nodes save tensors and attributes, ~600 bytes and more) are 2 * 10^5 deep,
// twice the depth whose freeing overflowed.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <functional>

#include "autograd/anomaly.hpp"
#include "autograd/engine.hpp"
#include "autograd/grad_mode.hpp"
#include "autograd/node.hpp"
#include "autograd/ops.hpp"
#include "autograd/profiler.hpp"
#include "stack_thread.hpp"
#include "viz/graphviz.hpp"

using namespace nabla;

namespace {

// The default main-thread stack (ulimit -s 8192).
void on_default_stack(const std::function<void()>& fn) { nabla::testing::run_with_stack(size_t(8) << 20, fn); }

constexpr int64_t kLong = 10'000'000;  // the target for chains
constexpr int64_t kOps = 200'000;      // op-table chains (twice what overflowed when freed)
constexpr int64_t kWalk = 100'000;     // op-table chains walked (a frame per node would overflow)

// Prints how long a phase took (visible with doctest's -s).
struct Timer {
  std::string what;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  ~Timer() {
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    MESSAGE(what << ": " << s << " s");
  }
};

Tensor step(const Tensor& x);

// step(x) is x, recorded as a node of its own whose backward is step(g), so that
// with create_graph the backward of a chain of steps records another chain.
struct StepNode : Node {
  TensorList apply(TensorList&& grads) override { return {step(grads[0])}; }
  std::string name() const override { return "StepBackward"; }
};

Tensor step(const Tensor& x) {
  Tensor y = make_view(x, x.sizes(), x.strides(), x.offset());
  if (!grad_enabled() || !x.requires_grad()) return y;
  auto node = std::make_shared<StepNode>();
  node->next_edges = {gradient_edge(x)};
  node->output_metas = {{x.sizes(), x.dtype(), x.device()}};
  AutogradMeta& meta = y.impl()->autograd_meta();
  meta.requires_grad = true;
  meta.grad_fn = std::move(node);
  return y;
}

Tensor steps(Tensor x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x = step(x);
  return x;
}

Tensor leaf(double v) { return full({1}, v, DType::f64).set_requires_grad(true); }
double value(const Tensor& t) { return t.item(); }

// The length of the grad_fn chain behind t, walking first edges (iteratively).
int64_t depth(const Tensor& t) {
  int64_t n = 0;
  for (const Node* node = t.grad_fn().get(); node && !node->next_edges.empty(); node = node->next_edges[0].fn.get())
    ++n;
  return n;
}

}  // namespace

TEST_CASE("a 10^7-node chain: backward with retain_graph, then freed") {
  on_default_stack([] {
    Tensor x = leaf(1);
    Tensor y;
    {
      Timer t{"build 10^7 steps"};
      y = steps(x, kLong);
    }
    CHECK(depth(y) == kLong);
    {
      Timer t{"backward through 10^7 steps"};
      backward(y, Tensor(), /*retain_graph=*/true);
    }
    CHECK(value(x.grad()) == 1);
    Timer t{"free 10^7 steps"};
    y = Tensor();
  });
}

// The gradient chain lives beside the chain it came from: 10^7 nodes in all.
TEST_CASE("create_graph through a 5 * 10^6-node chain records a gradient chain as long, which grad differentiates") {
  on_default_stack([] {
    Tensor x = leaf(1), v = leaf(3);
    Tensor g;
    {
      Tensor y = steps(x, kLong / 2);
      Timer t{"grad with create_graph through 5 * 10^6 steps"};
      g = grad({y}, {x}, {v}, std::nullopt, /*create_graph=*/true)[0];
    }  // y's chain is freed here; g's own chain runs from g back to v
    CHECK(value(g) == 3);
    CHECK(depth(g) == kLong / 2);
    Timer t{"grad of the gradient chain"};
    CHECK(value(grad({g}, {v})[0]) == 1);
  });
}

TEST_CASE("chains of op-table nodes are freed iteratively, whatever holds them") {
  on_default_stack([] {
    Tensor w = leaf(2);
    SUBCASE("through next_edges (total = total + w)") {
      Tensor total = zeros({1}, DType::f64);
      for (int64_t i = 0; i < kOps; ++i) total = total + w;
      CHECK(value(total) == 2 * kOps);
    }
    SUBCASE("through saved inputs and outputs (y = exp(y * w), each saving the last)") {
      Tensor y = full({1}, 0.0, DType::f64);
      for (int64_t i = 0; i < kOps; ++i) y = exp(y * w) * 0.0;
      CHECK(value(y) == 0);
    }
    SUBCASE("through views of views") {
      Tensor y = zeros({2, 3}, DType::f64) + w;
      for (int64_t i = 0; i < kOps; ++i) y = (i % 2 == 0) ? reshape(y, {3, 2}) : transpose(y, 0, 1);
      CHECK(y.impl()->is_view);
    }
    SUBCASE("through CopyBackward (repeated in-place writes)") {
      Tensor y = zeros({1}, DType::f64) * w;
      for (int64_t i = 0; i < kOps; ++i) add_(y, w);
      CHECK(value(y) == 2 * kOps);
      CHECK(y.grad_fn()->name() == "CopyBackward");
    }
    SUBCASE("through .grad holding a gradient graph (create_graph)") {
      Tensor x = leaf(1), c = full({1}, 1.0, DType::f64);  // c needs no gradient: x.grad alone holds the chain
      {
        Tensor y = x;
        for (int64_t i = 0; i < kOps; ++i) y = y * c;
        backward(y, /*grad=*/leaf(1), false, /*create_graph=*/true);  // the gradient chain starts at that leaf
      }
      CHECK(depth(x.grad()) >= kOps);  // x.grad's history is a chain of kOps muls
    }
    SUBCASE("through leaf hooks only (each leaf's hook holds the leaf before)") {
      Tensor prev = leaf(0);
      for (int64_t i = 0; i < kOps; ++i) {
        Tensor next = leaf(double(i));
        register_hook(next, [prev](const Tensor&) { return Tensor(); });
        prev = next;
      }
    }
    SUBCASE("through hooks that capture tensors") {
      Tensor prev = leaf(0);
      for (int64_t i = 0; i < kOps; ++i) {
        Tensor next = leaf(double(i));
        register_hook(next, [prev](const Tensor&) { return Tensor(); });  // a leaf hook holds the last leaf
        Tensor y = next * 1.0;
        register_hook(y, [next](const Tensor&) { return Tensor(); });  // a node hook holds it too
        prev = y;
      }
    }
  });
}

TEST_CASE("every walk over a deep graph is iterative: grad, anomaly mode, hooks, profiler, drawing") {
  on_default_stack([] {
    Tensor w = leaf(2);
    Tensor x = leaf(1);
    Tensor y = x;
    for (int64_t i = 0; i < kWalk; ++i) y = y * 1.0;
    SUBCASE("grad with allow_unused (the walk that finds which nodes lead to an input)") {
      TensorList g = grad({y}, {x, w}, {}, std::nullopt, false, /*allow_unused=*/true);
      CHECK(value(g[0]) == 1);
      CHECK_FALSE(g[1].defined());
    }
    SUBCASE("retain_graph: backward twice") {
      backward(y, Tensor(), /*retain_graph=*/true);
      backward(y);
      CHECK(value(x.grad()) == 2);
    }
    SUBCASE("anomaly mode") {
      AnomalyGuard anomaly;
      backward(y);
      CHECK(value(x.grad()) == 1);
    }
    SUBCASE("a hook on every tensor of the chain") {
      int64_t calls = 0;
      Tensor z = x;
      for (int64_t i = 0; i < kWalk; ++i) {
        z = z * 1.0;
        register_hook(z, [&calls](const Tensor&) {
          ++calls;
          return Tensor();
        });
      }
      backward(z);
      CHECK(calls == kWalk);
    }
    SUBCASE("the profiler") {
      Profiler p;
      {
        ProfilerActivation active(&p);
        backward(y);
      }
      CHECK(p.events().size() > size_t(kWalk));
    }
    SUBCASE("drawing the graph") {
      std::string dot = viz::autograd_dot(y);  // only what Graphviz lays out quickly (Note [Autograd drawing budget])
      CHECK(dot.find("nodes nearest the outputs") != std::string::npos);
      CHECK(dot.size() < 1'000'000);
    }
  });
}
