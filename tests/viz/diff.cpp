// diff_dot: a pass's before and after side by side, nodes matched by (op, origin,
// input and output types); what only `before` has is "removed", what only `after`
// has is "added".
#include <doctest/doctest.h>

#include "graph/pass_manager.hpp"
#include "graphs.hpp"
#include "svg.hpp"
#include "viz/graphviz.hpp"

using namespace nabla;
using graph::Graph;
using viz_test::f32;
using viz_test::Svg;

namespace {

// small_mlp with a dead exp(%x) between linear and relu, so that dce's compaction
// renumbers the values after it: matching must not depend on value ids.
Graph mlp_with_dead_node() {
  Graph g = viz_test::small_mlp();
  Graph out;
  out.name = g.name;
  int x = out.add_input("x", graph::ValueKind::input, f32({2, 3}));
  int w = out.add_input("w", graph::ValueKind::param, f32({4, 3}));
  int half = out.add_constant(scalar_tensor(0.5), "half");
  int h = out.nodes[out.add_node("linear", {x, w, -1}, {}, {f32({2, 4})}, "mlp.dsl:4:14")].outputs[0];
  out.add_node("exp", {x}, {}, {f32({2, 3})}, "mlp.dsl:4:30");
  int r = out.nodes[out.add_node("relu", {h}, {}, {f32({2, 4})}, "mlp.dsl:5:3")].outputs[0];
  out.outputs = {out.nodes[out.add_node("mul", {r, half}, {}, {f32({2, 4})}, "mlp.dsl:6:1")].outputs[0]};
  graph::verify(out);
  return out;
}

}  // namespace

TEST_CASE("diff_dot after dce: the dead node is removed, nothing is added") {
  Graph before = mlp_with_dead_node();
  Graph after = before;
  graph::run_pipeline(after, graph::parse_pipeline("dce"));
  REQUIRE(after.nodes.size() == 3);

  if (!viz_test::can_render()) return;
  std::string svg_text = viz::render_data(viz::diff_dot(before, after, "dce"), "svg");
  Svg svg(svg_text);
  CHECK(svg_text.find("before and after dce: 1 removed, 0 added") != std::string::npos);
  CHECK(svg.count("clust") == 2);
  CHECK(svg.titled("cluster_before").texts == std::vector<std::string>{"before dce"});
  CHECK(svg.titled("cluster_after").texts == std::vector<std::string>{"after dce"});
  // before: 3 inputs, 4 ops, 1 output; after: 3 inputs, 3 ops, 1 output.
  CHECK(svg.count("node") == 8 + 7);
  CHECK(svg.count_class("node", "removed") == 1);
  CHECK(svg.count_class("node", "added") == 0);
  CHECK(svg.titled("b_n1").has_class("removed"));
  CHECK(svg.titled("b_n1").texts.front() == "%4 = exp");
  // The same relu is %5 before and %4 after, and still matched.
  CHECK(svg.titled("b_n2").texts.front() == "%5 = relu");
  CHECK(svg.titled("a_n1").texts.front() == "%4 = relu");
  CHECK_FALSE(svg.titled("a_n1").has_class("added"));
  CHECK(svg.count("edge") == 7 + 6);
}

TEST_CASE("diff_dot marks added nodes, constants and fused clusters") {
  Graph before = viz_test::with_fused();
  // "before" of a fusion: exp, mul, relu, neg unfused.
  Graph unfused;
  int x = unfused.add_input("x", graph::ValueKind::input, f32({4}));
  int c = unfused.add_constant(scalar_tensor(2.0), "c");
  int e = unfused.nodes[unfused.add_node("exp", {x}, {}, {f32({4})}, "f.dsl:1:1")].outputs[0];
  int m = unfused.nodes[unfused.add_node("mul", {e, c}, {}, {f32({4})}, "f.dsl:2:5")].outputs[0];
  int r = unfused.nodes[unfused.add_node("relu", {m}, {}, {f32({4})}, "f.dsl:2:1")].outputs[0];
  unfused.outputs = {unfused.nodes[unfused.add_node("neg", {r}, {}, {f32({4})}, "f.dsl:3:1")].outputs[0]};
  // The fused graph also gained a constant nobody had before.
  Graph fused = before;
  fused.add_constant(scalar_tensor(1.0), "one");

  if (!viz_test::can_render()) return;
  Svg svg(viz::render_data(viz::diff_dot(unfused, fused, "fuse"), "svg"));
  CHECK(svg.count("clust") == 3);  // before, after, and the fused node
  CHECK(svg.titled("cluster_a_n1").has_class("fused"));
  CHECK(svg.titled("cluster_a_n1").has_class("added"));
  // mul and relu left the top level: removed; inside the new cluster nothing is marked.
  CHECK(svg.titled("b_n1").has_class("removed"));
  CHECK(svg.titled("b_n2").has_class("removed"));
  CHECK(svg.count_class("node", "removed") == 2);
  CHECK_FALSE(svg.titled("a_n1_n0").has_class("added"));
  CHECK(svg.titled("a_v5").has_class("const"));  // value 5: added after the nodes
  CHECK(svg.titled("a_v5").has_class("added"));
  CHECK(svg.count_class("node", "added") == 1);
  CHECK_FALSE(svg.titled("b_n0").has_class("removed"));  // exp is on both sides
}
