// graph_dot: one SVG node per IR node, graph input and output, styled by role;
// one edge per use; a fused node as a cluster with its body inside.
#include <doctest/doctest.h>

#include "graphs.hpp"
#include "svg.hpp"
#include "viz/graphviz.hpp"

using namespace nabla;
using graph::Graph;
using viz_test::Svg;

TEST_CASE("graph_dot draws inputs, params, constants, ops and outputs apart") {
  if (!viz_test::can_render()) return;
  Svg svg(viz::render_data(viz::graph_dot(viz_test::small_mlp()), "svg"));
  CHECK(svg.count("node") == 7);  // 3 graph inputs, 3 ops, 1 output
  CHECK(svg.count("edge") == 6);  // linear 2 (bias absent), relu 1, mul 2, output 1
  CHECK(svg.count("clust") == 0);
  CHECK(svg.titled("v0").has_class("input"));
  CHECK(svg.titled("v1").has_class("param"));
  CHECK(svg.titled("v2").has_class("const"));
  CHECK(svg.titled("out0").has_class("output"));
  CHECK(svg.count_class("node", "op") == 3);

  CHECK(svg.titled("v0").texts == std::vector<std::string>{"%x", "f32[2, 3]"});
  CHECK(svg.titled("v1").texts == std::vector<std::string>{"%w", "param f32[4, 3]"});
  CHECK(svg.titled("v2").texts == std::vector<std::string>{"%half", "const f32[]", "= 0.5"});
  CHECK(svg.titled("n0").texts == std::vector<std::string>{"%3 = linear", "f32[2, 4]", "mlp.dsl:4:14"});
  CHECK(svg.titled("n2").texts == std::vector<std::string>{"%5 = mul", "f32[2, 4]", "mlp.dsl:6:1"});
  for (const char* e : {"v0->n0", "v1->n0", "n0->n1", "n1->n2", "v2->n2", "n2->out0"}) CHECK(svg.has_title(e));
}

TEST_CASE("graph_dot shows attributes, and labels edges of multi-output nodes") {
  Graph g;
  int x = g.add_input("x", graph::ValueKind::input, viz_test::f32({2, 3}));
  int n = g.add_node("max_dim", {x}, {{"dim", int64_t{1}}, {"keepdim", false}},
                     {viz_test::f32({2}), TensorMeta{{2}, DType::i64}});
  g.outputs = {g.nodes[n].outputs[0], g.nodes[n].outputs[1]};
  graph::verify(g);
  if (!viz_test::can_render()) return;
  Svg svg(viz::render_data(viz::graph_dot(g), "svg"));
  CHECK(svg.titled("n0").texts ==
        std::vector<std::string>{"%1, %2 = max_dim", "dim=1, keepdim=false", "f32[2]", "i64[2]"});
  CHECK(svg.count("edge") == 3);
  CHECK(svg.titled("n0->out0").texts == std::vector<std::string>{"%1"});
  CHECK(svg.titled("n0->out1").texts == std::vector<std::string>{"%2"});
  CHECK(svg.titled("v0->n0").texts.empty());
}

TEST_CASE("a fused node is a cluster with its absorbed ops and its body inside") {
  if (!viz_test::can_render()) return;
  Svg svg(viz::render_data(viz::graph_dot(viz_test::with_fused()), "svg"));
  REQUIRE(svg.count("clust") == 1);
  const viz_test::SvgGroup& cluster = svg.titled("cluster_n1");
  CHECK(cluster.has_class("fused"));
  CHECK(cluster.texts ==
        std::vector<std::string>{"%3 = fused", "f32[4]", "absorbed:", "mul at f.dsl:2:5", "relu at f.dsl:2:1"});

  // x, c, exp, the body's mul and relu, neg, output: the fused node has no box.
  CHECK(svg.count("node") == 7);
  CHECK_FALSE(svg.has_title("n1"));
  CHECK(svg.titled("n1_n0").texts == std::vector<std::string>{"%2 = mul", "f32[4]", "f.dsl:2:5"});
  CHECK(svg.titled("n1_n1").has_class("op"));
  // Edges cross the cluster: producers outside feed the body, the body feeds neg.
  CHECK(svg.count("edge") == 6);
  for (const char* e : {"v0->n0", "n0->n1_n0", "v1->n1_n0", "n1_n0->n1_n1", "n1_n1->n2", "n2->out0"})
    CHECK(svg.has_title(e));
}

TEST_CASE("graph-level ops without a body are styled apart from table ops") {
  Graph g;
  int x = g.add_input("x", graph::ValueKind::input, viz_test::f32({4}));
  int n = g.add_node("conv2d_act", {x}, {}, {viz_test::f32({4})});
  g.outputs = {g.nodes[n].outputs[0]};
  if (!viz_test::can_render()) return;
  Svg svg(viz::render_data(viz::graph_dot(g), "svg"));
  CHECK(svg.titled("n0").has_class("graph_op"));
  CHECK_FALSE(svg.titled("n0").has_class("op"));
}

TEST_CASE("labels with DOT and HTML specials are drawn as written") {
  Graph g;
  g.name = "odd \"name\"";
  int x = g.add_input("x", graph::ValueKind::input, viz_test::f32({1}));
  int n = g.add_node("relu", {x}, {}, {viz_test::f32({1})}, "C:\\dir\\<a&b>.dsl:1:2");
  g.outputs = {g.nodes[n].outputs[0]};
  if (!viz_test::can_render()) return;
  Svg svg(viz::render_data(viz::graph_dot(g), "svg"));
  CHECK(svg.titled("n0").texts.back() == "C:\\dir\\<a&b>.dsl:1:2");
}

// Note [Drawing budget]: every step of a 3000-step chain reads %x, so drawing it all
// would ask dot for millions of virtual nodes (minutes, gigabytes). The drawing keeps
// the nodes nearest the output, says so in its title, and marks where it cut.
TEST_CASE("a large graph is drawn in part: the nodes nearest the outputs, within the layout budget") {
  Graph g;
  g.name = "loop";
  int x = g.add_input("x", graph::ValueKind::input, viz_test::f32({4}));
  int t = x;
  for (int i = 0; i < 3000; ++i) t = g.nodes[g.add_node("mul", {t, x}, {}, {viz_test::f32({4})})].outputs[0];
  g.outputs = {t};
  std::string dot = viz::graph_dot(g);
  CHECK(dot.find("nodes nearest the outputs, of 3001; the rest would take Graphviz too long") != std::string::npos);
  CHECK(dot.find("inputs from nodes not drawn") != std::string::npos);
  if (!viz_test::can_render()) return;
  Svg svg(viz::render_data(dot, "svg"));
  CHECK(svg.count("node") > 10);
  CHECK(svg.count("node") < 200);  // each drawn step's edge from %x spans all ranks above it
  CHECK(svg.has_title("n2999->out0"));
}

TEST_CASE("a graph within the budget is drawn whole, dead nodes included") {
  Graph g = viz_test::small_mlp();
  g.add_node("neg", {g.inputs[0]}, {}, {viz_test::f32({2, 3})});  // read by no output
  std::string dot = viz::graph_dot(g);
  CHECK(dot.find("nodes nearest") == std::string::npos);
  CHECK(dot.find("\"n3\" [") != std::string::npos);
}

TEST_CASE("a control-flow node's regions are dashed clusters labelled with the region and its DSL line") {
  Graph g = graph::parse_graph(R"(graph gate(%x: f32[4, 3], %c0: const f32[] = 0.0) {
  %2 = sum(%x) : f32[]
  %3 = gt(%2, %c0) : bool[]
  %4 = cond(%3, %x) : f32[4, 3] {
    then(%x: f32[4, 3])
    %1 = relu(%x) : f32[4, 3]  # gate.dsl:4:9
    yield %1
  } {
    else(%x: f32[4, 3])
    %1 = neg(%x) : f32[4, 3]  # gate.dsl:6:9
    yield %1
  }  # gate.dsl:3:3
  return %4
}
)");
  graph::verify(g);
  std::string dot = viz::graph_dot(g);
  CHECK(dot.find("subgraph \"cluster_n2_r0\"") != std::string::npos);
  CHECK(dot.find("subgraph \"cluster_n2_r1\"") != std::string::npos);
  CHECK(dot.find("then of cond") != std::string::npos);
  CHECK(dot.find("else of cond") != std::string::npos);
  CHECK(dot.find("gate.dsl:3:3") != std::string::npos);
  CHECK(dot.find("gate.dsl:6:9") != std::string::npos);  // the region's own nodes, with their lines
  if (!viz_test::can_render()) return;
  Svg svg(viz::render_data(dot, "svg"));
  CHECK(svg.count("clust") == 2);
  CHECK(svg.titled("cluster_n2_r0").has_class("region"));
}
