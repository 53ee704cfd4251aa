// Issue 26: a node holds what it computes as ids (Node::op, NodeKind, Node::epilogue),
// not as a name. The parser maps each name once (Node::named) and the printer spells
// it back (Node::name), so the text form is what it was, byte for byte; an unknown
// name still parses (as a custom node) and is still the verifier's error.
#include <doctest/doctest.h>

#include "graph/executor.hpp"
#include "graph/ir.hpp"
#include "tests/passes/pooled_conv_text.hpp"

using namespace nabla;
using namespace nabla::graph;

namespace {

// A table op, an epilogue node, a fused node, copy_ (a statement) and a custom node
// with a body, in the form print_graph writes.
const char* const kEveryKind =
    "graph g(%x: f32[2, 3], %w: param f32[4, 3], %b: param f32[4], %p: param f32[2, 4]) {\n"
    "  %4 = linear_relu(%x, %w, %b) : f32[2, 4] {\n"
    "    body(%in0: f32[2, 3], %in1: f32[4, 3], %in2: f32[4])\n"
    "    %3 = linear(%in0, %in1, %in2) : f32[2, 4]  # m.dsl:1:1\n"
    "    %4 = relu(%3) : f32[2, 4]  # m.dsl:2:1\n"
    "    yield %4\n"
    "  }  # m.dsl:2:1\n"
    "  %5 = fused(%4) : f32[2, 4] {\n"
    "    body(%in0: f32[2, 4])\n"
    "    %1 = neg(%in0) : f32[2, 4]\n"
    "    %2 = exp(%1) : f32[2, 4]\n"
    "    yield %2\n"
    "  }\n"
    "  %6 = tanh(%5) : f32[2, 4]  # m.dsl:3:1\n"
    "  copy_(%p, %6)\n"
    "  %7 = my_group(%6) : f32[2, 4] {\n"
    "    body(%in0: f32[2, 4])\n"
    "    %1 = sigmoid(%in0) : f32[2, 4]\n"
    "    yield %1\n"
    "  }\n"
    "  return %7\n"
    "}\n";

std::string verify_error(const Graph& g) {
  try {
    verify(g);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// A kernel registered for the custom op "test_twice_": y = 2x (f32, contiguous).
void twice(const graph::Node&, const TensorList& inputs, TensorList& outputs) {
  for (int64_t i = 0; i < inputs[0].numel(); ++i) outputs[0].data<float>()[i] = 2 * inputs[0].data<float>()[i];
}

}  // namespace

TEST_CASE("parsing maps each node's name to its kind and id, and printing gives the text back") {
  Graph g = parse_graph(kEveryKind);
  CHECK(print_graph(g) == kEveryKind);
  verify(g);
  REQUIRE(g.nodes.size() == 5);

  const graph::Node& epilogue = g.nodes[0];
  CHECK(epilogue.kind == NodeKind::epilogue);
  CHECK(epilogue.op == OpId::kCount);  // so that `n.op == OpId::linear` never holds for it
  CHECK(epilogue.epilogue.base == OpId::linear);
  CHECK(epilogue.epilogue.activation == OpId::relu);
  CHECK(epilogue.name() == "linear_relu");
  CHECK(Graph::table_op(epilogue) == nullptr);
  REQUIRE(epilogue.body);
  CHECK(epilogue.body->nodes[0].kind == NodeKind::table);
  CHECK(epilogue.body->nodes[0].op == OpId::linear);
  CHECK(epilogue.body->nodes[1].op == OpId::relu);

  CHECK(g.nodes[1].kind == NodeKind::fused);
  CHECK(g.nodes[1].op == OpId::kCount);
  CHECK(g.nodes[1].body->nodes[0].op == OpId::neg);

  CHECK(g.nodes[2].kind == NodeKind::table);
  CHECK(g.nodes[2].op == OpId::tanh);
  REQUIRE(Graph::table_op(g.nodes[2]));
  CHECK(Graph::table_op(g.nodes[2])->id == OpId::tanh);

  CHECK(g.nodes[3].kind == NodeKind::copy);
  CHECK(g.nodes[3].op == OpId::kCount);
  CHECK(g.nodes[3].outputs.empty());

  CHECK(g.nodes[4].kind == NodeKind::custom);
  CHECK(g.nodes[4].custom_name == "my_group");
  CHECK(g.nodes[4].name() == "my_group");
}

TEST_CASE("Node::named and Node::name are inverses, for every row and every epilogue") {
  for (const OpDef& row : op_table()) {
    graph::Node n = graph::Node::named(row.name);
    CHECK(n.kind == NodeKind::table);
    CHECK(n.op == row.id);
    CHECK(n.name() == row.name);
  }
  for (OpId base : {OpId::linear, OpId::conv2d})
    for (OpId act : {OpId::relu, OpId::gelu, OpId::tanh, OpId::sigmoid, OpId::silu}) {
      std::string name = std::string(op_name(base)) + "_" + op_name(act);
      graph::Node n = graph::Node::named(name);
      CHECK(n.kind == NodeKind::epilogue);
      CHECK(n.epilogue.base == base);
      CHECK(n.epilogue.activation == act);
      CHECK(n.name() == name);
    }
  CHECK(graph::Node::named("copy_").kind == NodeKind::copy);
  CHECK(graph::Node::named("fused").kind == NodeKind::fused);
  CHECK(graph::Node::named("max_pool2d").op == OpId::max_pool2d);  // a row with '_' is a row
  for (OpId act : {OpId::relu, OpId::gelu}) {  // a conv's epilogue may end in its max pool
    std::string name = std::string("conv2d_") + op_name(act) + "_max_pool2d";
    graph::Node n = graph::Node::named(name);
    CHECK(n.kind == NodeKind::epilogue);
    CHECK(n.epilogue.base == OpId::conv2d);
    CHECK(n.epilogue.activation == act);
    CHECK(n.epilogue.pool == OpId::max_pool2d);
    CHECK(n.name() == name);
  }
  CHECK(graph::Node::named("conv2d_relu").epilogue.pool == OpId::kCount);
  // Names that only look like an epilogue: no such activation, no such base, a pool
  // after linear, or a pool with no activation.
  for (const char* name : {"linear_none", "conv2d_act", "matmul_relu", "linear_", "frob", "linear_relu_max_pool2d",
                           "conv2d_max_pool2d", "conv2d_relu_avg_pool2d"}) {
    graph::Node n = graph::Node::named(name);
    CHECK(n.kind == NodeKind::custom);
    CHECK(n.op == OpId::kCount);
    CHECK(n.name() == name);
  }
}

TEST_CASE("an unknown op name parses, and the verifier and the executor refuse it as before") {
  // Unknown names were never parse errors: a custom node of that name, which the
  // verifier names with its line, and the executor cannot run.
  Graph g = parse_graph("graph g(%x: f32[2]) {\n  %1 = frob(%x) : f32[2]\n  return %1\n}\n");
  CHECK(g.nodes[0].kind == NodeKind::custom);
  CHECK(verify_error(g) ==
        "graph verifier: node 0 (frob) at line 2: unknown op 'frob' (not an op of the table, nor a graph-level op: "
        "copy_, fused, linear_<activation>, conv2d_<activation>, or a node with a body)");
  CHECK_THROWS_WITH(run_graph(g, {tensor_from({1, 2}, {2})}), "graph executor: no implementation of op 'frob'");
}

TEST_CASE("a custom op registered by name verifies and runs with its kernel") {
  register_graph_op("test_twice_", twice);
  Graph g = parse_graph("graph g(%x: f32[2]) {\n  %1 = test_twice_(%x) : f32[2]\n  return %1\n}\n");
  CHECK(verify_error(g) == "(no error)");
  Tensor y = run_graph(g, {tensor_from({1, 2}, {2})}).at(0);
  CHECK(y.data<float>()[0] == 2);
  CHECK(y.data<float>()[1] == 4);
}

TEST_CASE("conv2d_relu_max_pool2d reads back from its text and verifies; its body must end in the pool") {
  const std::string text = nabla::testing::pooled_conv_text("%3");
  Graph g = parse_graph(text);
  REQUIRE(g.nodes.size() == 1);
  CHECK(g.nodes[0].epilogue.pool == OpId::max_pool2d);
  CHECK(print_graph(g) == text);
  verify(g);
  // A body that computes something else than the name says is the verifier's error.
  Graph wrong = parse_graph(text);
  wrong.nodes[0].body->nodes[1].op = OpId::sigmoid;
  CHECK(verify_error(wrong).find("its body must be conv2d and then relu of its result, then max_pool2d of that") !=
        std::string::npos);
}
