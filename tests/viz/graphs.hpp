// Small IR graphs that the viz tests draw, built with Graph::add_input/add_node the
// way capture would, and checked by the verifier so they are real IR.
#pragma once
#include <memory>

#include "graph/ir.hpp"

namespace viz_test {

using nabla::DType;
using nabla::TensorMeta;
using nabla::graph::Graph;
using nabla::graph::ValueKind;

inline TensorMeta f32(nabla::Shape sizes) { return TensorMeta{std::move(sizes), DType::f32}; }

// graph mlp(%x: f32[2, 3], %w: param f32[4, 3], %half: const f32[] = 0.5) {
//   %3 = linear(%x, %w, none) : f32[2, 4]   # mlp.dsl:4:14
//   %4 = relu(%3) : f32[2, 4]               # mlp.dsl:5:3
//   %5 = mul(%4, %half) : f32[2, 4]         # mlp.dsl:6:1
//   return %5
// }
inline Graph small_mlp() {
  Graph g;
  g.name = "mlp";
  int x = g.add_input("x", ValueKind::input, f32({2, 3}));
  int w = g.add_input("w", ValueKind::param, f32({4, 3}));
  int half = g.add_constant(nabla::scalar_tensor(0.5), "half");
  int linear = g.add_node("linear", {x, w, -1}, {}, {f32({2, 4})}, "mlp.dsl:4:14");
  int relu = g.add_node("relu", {g.nodes[linear].outputs[0]}, {}, {f32({2, 4})}, "mlp.dsl:5:3");
  int mul = g.add_node("mul", {g.nodes[relu].outputs[0], half}, {}, {f32({2, 4})}, "mlp.dsl:6:1");
  g.outputs = {g.nodes[mul].outputs[0]};
  nabla::graph::verify(g);
  return g;
}

// graph fused(%x: f32[4], %c: const f32[] = 2.0) {
//   %2 = exp(%x) : f32[4]                          # f.dsl:1:1
//   %3 = fused(%2, %c) : f32[4] {                  # absorbed mul and relu
//     body(%in0: f32[4], %in1: f32[])
//     %2 = mul(%in0, %in1) : f32[4]
//     %3 = relu(%2) : f32[4]
//     yield %3
//   }
//   %4 = neg(%3) : f32[4]                          # f.dsl:3:1
//   return %4
// }
inline Graph with_fused() {
  Graph g;
  g.name = "fused";
  int x = g.add_input("x", ValueKind::input, f32({4}));
  int c = g.add_constant(nabla::scalar_tensor(2.0), "c");
  int e = g.nodes[g.add_node("exp", {x}, {}, {f32({4})}, "f.dsl:1:1")].outputs[0];

  auto body = std::make_shared<Graph>();
  body->name = "body";
  int in0 = body->add_input("in0", ValueKind::input, f32({4}));
  int in1 = body->add_input("in1", ValueKind::input, f32({}));
  int m = body->nodes[body->add_node("mul", {in0, in1}, {}, {f32({4})}, "f.dsl:2:5")].outputs[0];
  int r = body->nodes[body->add_node("relu", {m}, {}, {f32({4})}, "f.dsl:2:1")].outputs[0];
  body->outputs = {r};

  int fused = g.add_node("fused", {e, c}, {}, {f32({4})});
  g.nodes[fused].body = body;
  g.nodes[fused].absorbed = {"mul at f.dsl:2:5", "relu at f.dsl:2:1"};
  int n = g.nodes[g.add_node("neg", {g.nodes[fused].outputs[0]}, {}, {f32({4})}, "f.dsl:3:1")].outputs[0];
  g.outputs = {n};
  nabla::graph::verify(g);
  return g;
}

}  // namespace viz_test
