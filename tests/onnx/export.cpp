// ONNX export (graph/onnx/export.hpp): every op of the table is mapped or refused with a
// reason (Note [Every op mapped or refused]), and a graph of the IR text form comes
// out as the ModelProto it should, read back with libonnx's classes. Running the
// models in ONNX Runtime is tests/onnx/check_models.sh's.
#include <doctest/doctest.h>
#include <onnx/onnx_pb.h>

#include <set>

#include "graph/onnx/export.hpp"
#include "tests/passes/pooled_conv_text.hpp"

using namespace nabla;
using namespace nabla::graph;

namespace {

::onnx::ModelProto exported(const Graph& g, const BoundParams& params) {
  ::onnx::ModelProto model;
  REQUIRE(model.ParseFromString(onnx_model_bytes(g, params)));
  return model;
}

std::multiset<std::string> op_types(const ::onnx::ModelProto& m) {
  std::multiset<std::string> ops;
  for (const auto& n : m.graph().node()) ops.insert(n.op_type());
  return ops;
}

const char* const kMlp = R"(graph mlp(%w: param f32[3, 4], %b: param f32[3], %x: f32[2, 4], %c0: const wrapped f64[] = 0.5) {
  %4 = linear_relu(%x, %w, %b) : f32[2, 3] {
    body(%in0: f32[2, 4], %in1: f32[3, 4], %in2: f32[3])
    %3 = linear(%in0, %in1, %in2) : f32[2, 3]  # mlp.dsl:4:14
    %4 = relu(%3) : f32[2, 3]  # mlp.dsl:5:3
    yield %4
  }  # mlp.dsl:5:3
  %5 = mul(%4, %c0) : f32[2, 3]  # mlp.dsl:6:3
  return %5
}
)";

int max_pool_outputs(const ::onnx::ModelProto& m) {
  for (const auto& n : m.graph().node())
    if (n.op_type() == "MaxPool") return n.output_size();
  return -1;
}

}  // namespace

TEST_CASE("onnx: a fused node's output that nothing reads is left out of its body's ops") {
  BoundParams params{{"w", ones({2, 1, 1, 1})}, {"b", zeros({2})}};
  // The pooled convolution's indices unread: MaxPool computes none (as nabla does).
  ::onnx::ModelProto values_only = exported(parse_graph(nabla::testing::pooled_conv_text("%3")), params);
  CHECK(op_types(values_only).count("Conv") == 1);
  CHECK(max_pool_outputs(values_only) == 1);
  CHECK(op_types(values_only).count("Sub") == 0);
  // Returned, they are written (made plane-relative by a Sub, as max_pool2d's are).
  ::onnx::ModelProto with_indices = exported(parse_graph(nabla::testing::pooled_conv_text("%3, %4")), params);
  CHECK(max_pool_outputs(with_indices) == 2);
  CHECK(op_types(with_indices).count("Sub") == 1);
}

TEST_CASE("onnx: every op of the table is mapped or refused with a reason") {
  int mapped = 0;
  for (int k = 0; k < kNumOps; ++k) {
    OpId op = static_cast<OpId>(k);
    INFO(op_name(op));
    CHECK(onnx_mapped(op) == onnx_refusal(op).empty());
    mapped += onnx_mapped(op);
  }
  // The refusals are gradient ops, collectives, random draws, optimizer steps and a few without an
  // ONNX form (docs/onnx.md lists them; the gamma family, lgamma, digamma and polygamma, has no
  // ONNX operator): most of the table is mapped.
  CHECK(mapped >= kNumOps - 31);
}

TEST_CASE("onnx: a graph becomes an opset-17 model with typed inputs, initializers and its nodes' parts") {
  Graph g = parse_graph(kMlp);
  BoundParams params{{"w", ones({3, 4})}, {"b", zeros({3})}};
  ::onnx::ModelProto m = exported(g, params);
  CHECK(m.ir_version() == kOnnxIrVersion);
  REQUIRE(m.opset_import_size() == 1);
  CHECK(m.opset_import(0).version() == kOnnxOpset);
  const auto& graph = m.graph();
  REQUIRE(graph.input_size() == 1);  // parameters are initializers, not inputs
  CHECK(graph.input(0).name() == "x");
  const auto& type = graph.input(0).type().tensor_type();
  CHECK(type.elem_type() == ::onnx::TensorProto::FLOAT);
  REQUIRE(type.shape().dim_size() == 2);
  CHECK(type.shape().dim(1).dim_value() == 4);
  std::set<std::string> initializers;
  for (const auto& t : graph.initializer()) initializers.insert(t.name());
  CHECK(initializers.count("w") == 1);
  CHECK(initializers.count("c0") == 1);
  for (const auto& t : graph.initializer())
    if (t.name() == "w") CHECK(t.raw_data().size() == 12 * sizeof(float));
  // The epilogue node is written as its body's linear (Gemm) and relu; the wrapped
  // f64 number is cast to the f32 it multiplies.
  std::multiset<std::string> ops = op_types(m);
  CHECK(ops.count("Gemm") == 1);
  CHECK(ops.count("Relu") == 1);
  CHECK(ops.count("Cast") == 1);
  REQUIRE(graph.output_size() == 1);
  CHECK(graph.output(0).name() == "output");
  // Each node carries the DSL line it came from (Netron shows it).
  bool relu_line = false;
  for (const auto& n : graph.node()) relu_line |= n.op_type() == "Relu" && n.doc_string() == "mlp.dsl:5:3";
  CHECK(relu_line);
}

TEST_CASE("onnx: errors name the node and its DSL line") {
  Graph g = parse_graph(R"(graph f(%x: f32[4]) {
  %1 = cumprod(%x) {dim=0} : f32[4]  # f.dsl:2:7
  return %1
}
)");
  CHECK_THROWS_WITH_AS(onnx_model_bytes(g, {}), doctest::Contains("cumprod at f.dsl:2:7: cannot be written as ONNX"),
                       Error);
  Graph train = parse_graph(R"(graph f(%x: f32[4]) {
  %1, %2 = dropout(%x) {p=0.5, training=true} : f32[4], bool[4]  # f.dsl:3:1
  return %1
}
)");
  CHECK_THROWS_WITH_AS(onnx_model_bytes(train, {}), doctest::Contains("dropout at f.dsl:3:1: training mode"), Error);
  Graph with_param = parse_graph(kMlp);
  CHECK_THROWS_WITH_AS(onnx_model_bytes(with_param, {}), doctest::Contains("no tensor is bound to parameter %w"), Error);
}

TEST_CASE("onnx: an i16 input and result are INT16 (the IR text's i16 parsed back)") {
  Graph g = parse_graph(R"(graph pcm(%x: i16[4], %c0: const wrapped i64[] = 2) {
  %2 = mul(%x, %c0) : i16[4]  # pcm.dsl:2:3
  return %2
}
)");
  ::onnx::ModelProto m = exported(g, {});
  REQUIRE(m.graph().input_size() == 1);
  CHECK(m.graph().input(0).type().tensor_type().elem_type() == ::onnx::TensorProto::INT16);
  REQUIRE(m.graph().output_size() == 1);
  CHECK(m.graph().output(0).type().tensor_type().elem_type() == ::onnx::TensorProto::INT16);
}
