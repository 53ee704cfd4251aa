// Issue 25: the verifier checks every node against what it claims to be (Note
// [Verified nodes], graph/verify.cpp), and IR constants must fit their dtype (Note
// [IR constants], graph/ir_text.hpp). Golden cases of the same are the
// tests/passes/golden/verify_*.ir files (# ERROR: lines).
#include <doctest/doctest.h>

#include <cmath>

#include "graph/executor.hpp"
#include "graph/ir.hpp"
#include "tests/passes/verify_error.hpp"

using namespace nabla;
using namespace nabla::graph;

namespace {

using nabla::testing::verify_error;

// The graph "graph g(<params>) { <body> }" with one line per node.
std::string graph_text(const std::string& params, const std::string& body, const std::string& ret) {
  return "graph g(" + params + ") {\n" + body + "  return " + ret + "\n}\n";
}

std::string constant_error(const std::string& type, const std::string& value) {
  return verify_error(graph_text("%c: const " + type + " = " + value, "", "%c"));
}

Tensor constant_of(const std::string& type, const std::string& value) {
  return parse_graph(graph_text("%c: const " + type + " = " + value, "", "%c")).constants.at("c");
}

}  // namespace

TEST_CASE("an unknown op is refused, with its line") {
  CHECK(verify_error(graph_text("%x: f32[2]", "  %1 = relu(%x) : f32[2]\n  %2 = frob(%1) : f32[2]\n", "%2")) ==
        "graph verifier: node 1 (frob) at line 3: unknown op 'frob' (not an op of the table, nor a graph-level op: "
        "copy_, fused, linear_<activation>, conv2d_<activation>, or a node with a body)");
  // A statement (no outputs) with an unknown op, too.
  CHECK(verify_error(graph_text("%x: f32[2]", "  frob_(%x)\n", "%x")).find("unknown op 'frob_'") != std::string::npos);
  // fused and the epilogue ops need their body.
  CHECK(verify_error(graph_text("%x: f32[2]", "  %1 = fused(%x) : f32[2]\n", "%1"))
            .find("node 0 (fused) at line 2: fused needs a body") != std::string::npos);
  CHECK(verify_error(graph_text("%x: f32[2, 3], %w: f32[4, 3]", "  %1 = linear_relu(%x, %w) : f32[2, 4]\n", "%1"))
            .find("linear_relu needs a body") != std::string::npos);
}

TEST_CASE("copy_ is checked: two inputs, a parameter target, shapes that broadcast") {
  std::string params = "%x: f32[3], %p: param f32[2, 3], %s: f32[]";
  CHECK(verify_error(graph_text(params, "  copy_(%p, %x)\n", "%p")) == "(no error)");  // broadcast over rows
  CHECK(verify_error(graph_text(params, "  copy_(%p, %s)\n", "%p")) == "(no error)");
  CHECK(verify_error(graph_text("%x: f32[4], %p: param f32[2, 3]", "  copy_(%p, %x)\n", "%p")) ==
        "graph verifier: node 0 (copy_) at line 2: copy_ of f32[4] into f32[2, 3]: the shapes do not broadcast");
  CHECK(verify_error(graph_text("%x: f32[2, 2, 3], %p: param f32[2, 3]", "  copy_(%p, %x)\n", "%p"))
            .find("the shapes do not broadcast") != std::string::npos);
  CHECK(verify_error(graph_text(params, "  copy_(%p)\n", "%p")).find("takes 2 inputs, has 1") != std::string::npos);
  CHECK(verify_error(graph_text(params, "  copy_(%p, none)\n", "%p")).find("an input is none") != std::string::npos);
  CHECK(verify_error(graph_text(params, "  copy_(%x, %x)\n", "%p"))
            .find("copy_ writes into a parameter or buffer, but %x is not one") != std::string::npos);
  CHECK(verify_error(graph_text(params, "  copy_(%p, %x) {n=1}\n", "%p"))
            .find("copy_ takes no attributes, has n=1") != std::string::npos);
  CHECK(verify_error(graph_text(params, "  %3 = copy_(%p, %x) : f32[2, 3]\n", "%3"))
            .find("makes 0 outputs, has 1") != std::string::npos);
}

TEST_CASE("attributes are checked by name, kind and presence") {
  std::string x = "%x: f32[2, 3]";
  CHECK(verify_error(graph_text(x, "  %1 = transpose(%x) {dim0=0, dim1=true} : f32[3, 2]\n", "%1")) == "(no error)");
  CHECK(verify_error(graph_text(x, "  %1 = transpose(%x) {dim0=0, dim1=[1]} : f32[3, 2]\n", "%1")) ==
        "graph verifier: node 0 (transpose) at line 2: attribute 'dim1' must be an int, got [1]");
  CHECK(verify_error(graph_text(x, "  %1 = transpose(%x) {dim0=0, dim1=f32} : f32[3, 2]\n", "%1"))
            .find("attribute 'dim1' must be an int, got f32") != std::string::npos);
  CHECK(verify_error(graph_text(x, "  %1 = transpose(%x) {dim0=0} : f32[3, 2]\n", "%1"))
            .find("the required attribute 'dim1' is missing") != std::string::npos);
  CHECK(verify_error(graph_text(x, "  %1 = transpose(%x) {dim0=0, dim1=none} : f32[3, 2]\n", "%1"))
            .find("attribute 'dim1' must be an int, got none") != std::string::npos);
  CHECK(verify_error(graph_text(x, "  %1 = clamp(%x) {min=none, max=1} : f32[2, 3]\n", "%1")) == "(no error)");
  CHECK(verify_error(graph_text(x, "  %1 = clamp(%x) {min=true} : f32[2, 3]\n", "%1"))
            .find("attribute 'min' must be a number, got true") != std::string::npos);
  CHECK(verify_error(graph_text(x, "  %1 = sum(%x) {dims=1} : f32[2]\n", "%1"))
            .find("attribute 'dims' must be a list of ints, got 1") != std::string::npos);
  CHECK(verify_error(graph_text(x, "  %1 = relu(%x) {inplace=true} : f32[2, 3]\n", "%1"))
            .find("unknown attribute 'inplace' (relu takes none)") != std::string::npos);
}

TEST_CASE("a table op with a body, and a body whose nodes are wrong, are refused") {
  CHECK(verify_error(graph_text("%x: f32[2]",
                                "  %1 = relu(%x) : f32[2] {\n    body(%in0: f32[2])\n    %1 = relu(%in0) : f32[2]\n"
                                "    yield %1\n  }\n",
                                "%1"))
            == "graph verifier: node 0 (relu) at line 2: relu is an op of the table, which has no body");
  std::string bad_body = graph_text("%x: f32[2]",
                                    "  %1 = fused(%x) : f32[2] {\n    body(%in0: f32[2])\n    %1 = frob(%in0) : f32[2]\n"
                                    "    yield %1\n  }\n",
                                    "%1");
  CHECK(verify_error(bad_body) ==
        "graph verifier: in the body of node 0 (fused) at line 2: node 0 (frob) at line 4: unknown op 'frob' (not an op "
        "of the table, nor a graph-level op: copy_, fused, linear_<activation>, conv2d_<activation>, or a node with a "
        "body)");
  std::string epilogue = graph_text("%x: f32[2, 3], %w: f32[4, 3]",
                                    "  %1 = linear_relu(%x, %w) : f32[2, 4] {\n    body(%in0: f32[2, 3], %in1: f32[4, 3])\n"
                                    "    %2 = linear(%in0, %in1, none) : f32[2, 4]\n    %3 = tanh(%2) : f32[2, 4]\n"
                                    "    yield %3\n  }\n",
                                    "%1");
  CHECK(verify_error(epilogue).find("its body must be linear and then relu of its result") != std::string::npos);
}

TEST_CASE("a fused body that is not elementwise runs op by op") {
  Graph g = parse_graph(graph_text("%x: f32[2, 2]",
                                   "  %1 = fused(%x) : f32[2, 2] {\n    body(%in0: f32[2, 2])\n"
                                   "    %1 = matmul(%in0, %in0) : f32[2, 2]\n    yield %1\n  }\n",
                                   "%1"));
  verify(g);
  Tensor x = tensor_from({1, 2, 3, 4}, {2, 2});
  Tensor y = run_graph(g, {x}).at(0);
  CHECK(y.data<float>()[0] == 7);
  CHECK(y.data<float>()[3] == 22);
}

TEST_CASE("integer constants fit their dtype, exactly (Note [IR constants])") {
  CHECK(constant_error("i8[2]", "[1, 1000]") == "1:31: the i8 constant '1000' is out of its range (-128 to 127)");
  CHECK(constant_error("i8[]", "-129").find("the i8 constant '-129' is out of its range (-128 to 127)") != std::string::npos);
  CHECK(constant_of("i8[2]", "[-128, 127]").data<int8_t>()[0] == -128);
  CHECK(constant_error("u8[]", "256").find("the u8 constant '256' is out of its range (0 to 255)") != std::string::npos);
  CHECK(constant_error("u8[]", "-1").find("out of its range (0 to 255)") != std::string::npos);
  CHECK(constant_error("i32[]", "2147483648").find("out of its range (-2147483648 to 2147483647)") != std::string::npos);
  CHECK(constant_of("i32[]", "-2147483648").data<int32_t>()[0] == INT32_MIN);
  CHECK(constant_error("i64[]", "9223372036854775808").find("out of the range of an int (i64)") != std::string::npos);
  // Past 2^53 an i64 used to go through a double and change.
  CHECK(constant_of("i64[]", "9007199254740993").data<int64_t>()[0] == 9007199254740993);
  CHECK(constant_of("i64[]", "-9223372036854775808").data<int64_t>()[0] == INT64_MIN);
  // and print back exactly
  std::string text = graph_text("%c: const i64[3] = [9007199254740993, 9223372036854775807, -9223372036854775808]", "", "%c");
  CHECK(print_graph(parse_graph(text)) == text);
  CHECK(constant_of("i32[]", "3.0").data<int32_t>()[0] == 3);  // the liberty of hand-written files
  CHECK(constant_error("i32[]", "3.5").find("the i32 constant '3.5' is not an integer") != std::string::npos);
  CHECK(constant_error("i64[]", "nan").find("is not an integer") != std::string::npos);
  CHECK(constant_error("i64[]", "inf").find("is not an integer") != std::string::npos);
  CHECK(constant_error("i8[]", "1e3").find("the i8 constant '1e3' is out of its range") != std::string::npos);
  CHECK(constant_error("bool[]", "1").find("expected true or false") != std::string::npos);
  CHECK(static_cast<const uint8_t*>(constant_of("bool[2]", "[true, false]").raw_data())[0] == 1);
}

TEST_CASE("float constants do not round to inf unless they say so") {
  CHECK(constant_error("f16[]", "65520").find("the f16 constant '65520' is out of its range (largest finite value 65504)") !=
        std::string::npos);
  CHECK(constant_of("f16[]", "65504").dtype() == DType::f16);
  CHECK(constant_error("bf16[]", "1e39").find("the bf16 constant '1e39' is out of its range") != std::string::npos);
  CHECK(constant_error("f32[]", "1e39").find("the f32 constant '1e39' is out of its range") != std::string::npos);
  CHECK(constant_error("f64[]", "1e999").find("the f64 constant '1e999' is out of its range") != std::string::npos);
  CHECK(constant_error("f32[]", "-1e39").find("out of its range") != std::string::npos);
  CHECK(std::isinf(constant_of("f16[]", "-inf").item()));
  CHECK(std::isnan(constant_of("f32[]", "nan").item()));
  CHECK(constant_of("f32[]", "1e-50").item() == 0);  // underflow to zero is no overflow
}

TEST_CASE("constants whose tensor does not match their type, and sizes that overflow") {
  Graph g = parse_graph(graph_text("%c: const f32[2] = [1, 2]", "", "%c"));
  g.constants["c"] = ones({3});
  CHECK_THROWS_WITH_AS(verify(g), "graph verifier: graph: constant %c is typed f32[2] but its tensor is f32[3]", Error);
  CHECK(verify_error(graph_text("%x: f32[4294967296, 4294967296]", "", "%x"))
            .find("the sizes multiply past the largest int") != std::string::npos);
  CHECK(verify_error(graph_text("%c: const f32[3] = [1, 2, 3, 4, 5]", "", "%c")).find("expected 3 values for %c") !=
        std::string::npos);
}
