// The passes beyond what the golden files show: registration and pipelines, the
// folding size limit, folding with the real kernels (pool constants, autocast and
// grad mode left out), and explain notes only when asked.
#include <doctest/doctest.h>

#include "autograd/grad_mode.hpp"
#include "autograd/ops.hpp"
#include "graph/pass_manager.hpp"

using namespace nabla;
using namespace nabla::graph;

namespace {

int changes_of(const PipelineResult& r) {
  int n = 0;
  for (const PassRecord& rec : r.records) n += rec.changes;
  return n;
}

// A graph of one expand of a scalar constant to `shape`.
Graph expand_graph(const std::vector<int64_t>& shape) {
  Graph g;
  int s = g.add_constant(scalar_tensor(1.5));
  g.add_node("expand", {s}, {{"shape", shape}}, {{Shape(shape.begin(), shape.end()), DType::f32}});
  g.outputs = {g.nodes[0].outputs[0]};
  return g;
}

}  // namespace

TEST_CASE("passes are registered in pipeline order and pipelines name them") {
  std::vector<std::string> names;
  for (const PassInfo& p : all_passes()) names.push_back(p.name);
  CHECK(names == std::vector<std::string>{"infer", "unroll", "fold", "simplify", "cse", "licm", "dce", "reshard", "fold_bn",
                                          "lower_quant", "fuse_epilogue", "fuse", "fuse_optimizer", "block_layout", "plan"});
  // Captured graphs are typed already: the default pipeline starts at unroll.
  CHECK(default_pipeline() == std::vector<std::string>(names.begin() + 1, names.end()));
  CHECK(parse_pipeline(" cse, dce ,fold") == std::vector<std::string>{"cse", "dce", "fold"});
  CHECK_THROWS_WITH(parse_pipeline("fold,nope"), "unknown pass 'nope' (passes: infer, unroll, fold, simplify, cse, licm, dce, reshard, fold_bn, lower_quant, fuse_epilogue, fuse, fuse_optimizer, block_layout, plan, or default)");
}

TEST_CASE("fold folds results up to 2^20 elements and no larger") {
  Graph at_limit = expand_graph({1024, 1024});
  CHECK(changes_of(run_pipeline(at_limit, {"fold"})) == 1);
  REQUIRE(at_limit.nodes.empty());
  const Tensor& folded = at_limit.constants.at(at_limit.value(at_limit.outputs[0]).name);
  CHECK(folded.numel() == 1 << 20);
  CHECK(folded.is_contiguous());
  CHECK(print_graph(at_limit).find("const f32[1024, 1024] = <pool>") != std::string::npos);

  Graph above = expand_graph({1024, 1025});
  PipelineOptions explain;
  explain.explain = true;
  PipelineResult r = run_pipeline(above, {"fold"}, explain);
  CHECK(changes_of(r) == 0);
  CHECK(above.nodes.size() == 1);
  REQUIRE(r.records[0].notes.size() == 1);
  CHECK(r.records[0].notes[0].find("more than the folding limit") != std::string::npos);
  CHECK(run_pipeline(above, {"fold"}).records[0].notes.empty());  // notes only when explaining
}

TEST_CASE("fold computes with the real kernels, on constants from the pool") {
  Tensor a = tensor_from({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18}, {3, 6});
  Tensor b = tensor_from({1, 0, -1, 2, 0, 1, 1, 1, 0, 0, 2, 2, 1, 0, 0, 3, 1, 1}, {6, 3});
  std::string text =
      "graph g(%a: const f32[3, 6] = <pool>, %b: const f32[6, 3] = <pool>) {\n"
      "  %2 = matmul(%a, %b) : f32[3, 3]\n"
      "  %3 = softmax(%2) {dim=1} : f32[3, 3]\n"
      "  return %3\n"
      "}\n";
  Graph g = parse_graph(text, {{"a", a}, {"b", b}});
  CHECK(changes_of(run_pipeline(g, {"fold", "dce"})) == 2);
  CHECK(g.nodes.empty());
  CHECK(g.inputs.size() == 1);  // a and b went with the nodes that read them
  Tensor expected = softmax(matmul(a, b), 1);
  CHECK(to_double_vector(g.constants.at(g.value(g.outputs[0]).name)) == to_double_vector(expected));
}

TEST_CASE("fold runs kernels with grad recording and autocast off") {
  Graph g;
  Tensor w = tensor_from({1, 2, 3, 4}, {2, 2});
  w.set_requires_grad(true);
  int a = g.add_constant(w);
  g.add_node("matmul", {a, a}, {}, {{{2, 2}, DType::f32}});
  g.outputs = {g.nodes[0].outputs[0]};
  AutocastGuard region(DType::bf16);  // matmul lowers to bf16 in a region; the graph says f32
  CHECK(changes_of(run_pipeline(g, {"fold"})) == 1);
  const Tensor& folded = g.constants.at(g.value(g.outputs[0]).name);
  CHECK(folded.dtype() == DType::f32);
  CHECK(!folded.requires_grad());
  CHECK(to_double_vector(folded) == std::vector<double>{7, 10, 15, 22});
}

TEST_CASE("every pass leaves a graph it cannot improve unchanged") {
  Graph g = parse_graph(
      "graph g(%x: f32[2, 3], %w: param f32[4, 3]) {\n"
      "  %2 = linear(%x, %w, none) : f32[2, 4]\n"
      "  %3 = softmax(%2) {dim=1} : f32[2, 4]\n"
      "  return %3\n"
      "}\n");
  std::string before = print_graph(g);
  for (const PassInfo& p : all_passes()) {
    if (p.name == "plan") continue;  // it plans any graph with an intermediate (tests/passes/plan.cpp)
    CAPTURE(p.name);
    CHECK(changes_of(run_pipeline(g, {p.name})) == 0);
    CHECK(print_graph(g) == before);
  }
}
