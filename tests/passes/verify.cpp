// The verifier: it catches what a broken pass leaves behind, and names the node, the
// reason and the pass.
#include <doctest/doctest.h>

#include "graph/ir.hpp"

using namespace nabla;
using namespace nabla::graph;

namespace {

TensorMeta f32(Shape sizes) { return {std::move(sizes), DType::f32}; }

std::string verify_error(const Graph& g, const std::string& after = "") {
  try {
    verify(g, after);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("a well-formed graph verifies") {
  Graph g;
  int x = g.add_input("x", ValueKind::input, f32({2, 3}));
  int y = g.nodes[g.add_node("relu", {x}, {}, {f32({2, 3})})].outputs[0];
  g.outputs = {y};
  CHECK(verify_error(g) == "(no error)");
}

TEST_CASE("the verifier catches a use before the definition") {
  Graph g;
  int x = g.add_input("x", ValueKind::input, f32({2}));
  g.add_node("relu", {2}, {}, {f32({2})});  // reads %2, which the next node defines
  g.add_node("neg", {x}, {}, {f32({2})});
  g.outputs = {1};
  CHECK(verify_error(g, "cse") == "graph verifier after pass 'cse': node 0 (relu): uses %2 before its definition");
}

TEST_CASE("the verifier catches a wrong output shape, from the op's shape rule") {
  Graph g = parse_graph(
      "graph g(%x: f32[2, 3]) {\n"
      "  %1 = sum(%x) {dims=[1]} : f32[3]  # m.dsl:2:5\n"
      "  return %1\n"
      "}\n");
  CHECK(verify_error(g) ==
        "graph verifier: node 0 (sum) at line 2 from m.dsl:2:5: output 0 is typed f32[3] but the op makes f32[2]");
}

TEST_CASE("the verifier catches an unknown value") {
  Graph g;
  int x = g.add_input("x", ValueKind::input, f32({2}));
  g.add_node("add", {x, 7}, {}, {f32({2})});
  g.outputs = {1};
  CHECK(verify_error(g) == "graph verifier: node 0 (add): uses value 7, which does not exist");
  g.nodes[0].inputs[1] = x;
  g.outputs = {9};
  CHECK(verify_error(g) == "graph verifier: graph: returns an undefined value");
}

TEST_CASE("the verifier catches a fused body that does not match its node") {
  Graph g = parse_graph(
      "graph g(%x: f32[2]) {\n"
      "  %1 = fused(%x) : f32[2] {\n"
      "    body(%in0: f32[3])\n"
      "    %1 = neg(%in0) : f32[3]\n"
      "    yield %1\n"
      "  }\n"
      "  return %1\n"
      "}\n");
  CHECK(verify_error(g) == "graph verifier: node 0 (fused) at line 2: body input 0 does not match the node's input");
}

TEST_CASE("the verifier catches a wrong number of inputs and an unknown attribute") {
  Graph g = parse_graph("graph g(%x: f32[2]) {\n  %1 = relu(%x, %x) : f32[2]\n  return %1\n}\n");
  CHECK(verify_error(g) == "graph verifier: node 0 (relu) at line 2: takes 1 inputs, has 2");
  g = parse_graph("graph g(%x: f32[2]) {\n  %1 = relu(%x) {alpha=0.5} : f32[2]\n  return %1\n}\n");
  CHECK(verify_error(g) == "graph verifier: node 0 (relu) at line 2: unknown attribute 'alpha' (relu takes none)");
}

TEST_CASE("the verifier refuses a required argument given as none, naming it") {
  // The shape rule of add used to read the missing tensor (found by review: the same
  // crash as the parser_eval fuzz finding, through the IR).
  Graph g = parse_graph("graph g(%x: f32[2, 3]) {\n  %2 = add(%x, none) : f32[2, 3]\n  return %2\n}\n");
  CHECK(verify_error(g) == "graph verifier: node 0 (add) at line 2: shape rule: add: argument 'other' is missing");
  g = parse_graph("graph g(%x: f32[4, 3], %w: f32[2, 3]) {\n  %2 = linear(%x, %w, none) : f32[4, 2]\n  return %2\n}\n");
  CHECK(verify_error(g) == "(no error)");  // bias is optional
}
