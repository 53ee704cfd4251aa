// The memory plan (passes/plan.cpp, graph/memory_plan.hpp) beyond the golden files:
// on random graphs no two buffers live at the same step share bytes and a planned
// run equals an unplanned one bit for bit; views keep their root's buffer live;
// in-place only where it is safe; graph outputs keep memory of their own; a pass that
// changes a planned graph is an error; the plan's text form and its checks.
#include <doctest/doctest.h>

#include <cstring>
#include <random>

#include "autograd/ops.hpp"
#include "graph/executor.hpp"
#include "graph/memory_plan.hpp"
#include "graph/pass_manager.hpp"
#include "tensor/random.hpp"
#include "viz/graphviz.hpp"

using namespace nabla;
using namespace nabla::graph;

namespace {

const TensorMeta kF32{{4, 4}, DType::f32};

int changes_of(const PipelineResult& r) {
  int n = 0;
  for (const PassRecord& rec : r.records) n += rec.changes;
  return n;
}

const MemoryPlan& plan_of(Graph& g) {
  run_pipeline(g, {"plan"});
  REQUIRE(g.plan);
  return *g.plan;
}

// Checked from the plan's buffers alone, without memory_plan_problem: two buffers
// whose bytes intersect are never live at one step, except where the later one
// takes over the earlier one's buffer at the step that earlier one ends.
std::string shared_while_live(const MemoryPlan& p) {
  for (const PlannedBuffer& a : p.buffers)
    for (const PlannedBuffer& b : p.buffers) {
      if (a.value >= b.value) continue;
      bool bytes_meet = a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes;
      bool live_together = a.first_step <= b.last_step && b.first_step <= a.last_step;
      bool in_place = (b.in_place_of == a.value && b.first_step == a.last_step) ||
                      (a.in_place_of == b.value && a.first_step == b.last_step);
      if (bytes_meet && live_together && !in_place)
        return "%" + std::to_string(a.value) + " and %" + std::to_string(b.value);
      if (a.offset + a.bytes > p.arena_bytes) return "%" + std::to_string(a.value) + " leaves the arena";
    }
  return "";
}

// The bytes of every output as doubles, compared bit for bit (NaN included).
bool same_bits(const TensorList& a, const TensorList& b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k) {
    std::vector<double> x = to_double_vector(a[k]), y = to_double_vector(b[k]);
    if (x.size() != y.size() || std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) != 0) return false;
  }
  return true;
}

TensorList run_unplanned(const Graph& g, const TensorList& args) {
  Graph copy = g;
  copy.plan = nullptr;
  return run_graph(copy, args);
}

// A random graph over f32[4, 4] values: elementwise ops, views (transpose, reshape),
// matmul, a reduction broadcast back, comparisons feeding where, fused nodes; each
// node reads random earlier values, and a few values besides the last are outputs.
Graph random_graph(std::mt19937& rng, int nodes) {
  Graph g;
  std::vector<int> f32s = {g.add_input("x", ValueKind::input, kF32), g.add_input("y", ValueKind::input, kF32),
                           g.add_input("w", ValueKind::param, kF32)};
  std::vector<int> bools;
  auto pick = [&](const std::vector<int>& from) { return from[rng() % from.size()]; };
  auto add = [&](const std::string& op, std::vector<int> ins, Attrs attrs = {}, TensorMeta meta = kF32) {
    int id = g.nodes[static_cast<size_t>(g.add_node(op, std::move(ins), std::move(attrs), {meta}))].outputs[0];
    (meta.dtype == DType::b8 ? bools : f32s).push_back(id);
    return id;
  };
  for (int i = 0; i < nodes; ++i) {
    switch (rng() % 9) {
      case 0: add(std::vector<const char*>{"relu", "tanh", "neg", "sigmoid"}[rng() % 4], {pick(f32s)}); break;
      case 1: add(std::vector<const char*>{"add", "mul", "sub", "maximum"}[rng() % 4], {pick(f32s), pick(f32s)}); break;
      case 2: add("transpose", {pick(f32s)}, {{"dim0", int64_t{0}}, {"dim1", int64_t{1}}}); break;
      case 3: add("reshape", {pick(f32s)}, {{"shape", std::vector<int64_t>{4, 4}}}); break;
      case 4: add("matmul", {pick(f32s), pick(f32s)}); break;
      case 5: {
        int s = g.nodes[static_cast<size_t>(g.add_node("sum", {pick(f32s)}, {{"dims", std::vector<int64_t>{1}}, {"keepdim", true}},
                                                       {{{4, 1}, DType::f32}}))].outputs[0];
        add("add", {s, pick(f32s)});
        break;
      }
      case 6: add("gt", {pick(f32s), pick(f32s)}, {}, {{4, 4}, DType::b8}); break;
      case 7:
        if (!bools.empty()) add("where", {pick(bools), pick(f32s), pick(f32s)});
        break;
      default: {
        auto body = std::make_shared<Graph>();
        int a = body->add_input("in0", ValueKind::input, kF32), b = body->add_input("in1", ValueKind::input, kF32);
        int m = body->nodes[static_cast<size_t>(body->add_node("mul", {a, b}, {}, {kF32}))].outputs[0];
        body->outputs = {body->nodes[static_cast<size_t>(body->add_node("tanh", {m}, {}, {kF32}))].outputs[0]};
        int id = add("fused", {pick(f32s), pick(f32s)});
        g.nodes[static_cast<size_t>(g.value(id).node)].body = body;
      }
    }
  }
  g.outputs = {f32s.back()};
  for (int k = 0; k < 2; ++k)
    if (rng() % 2) g.outputs.push_back(pick(f32s));
  return g;
}

TensorList random_args() { return {randn({4, 4}), randn({4, 4}), randn({4, 4})}; }

}  // namespace

TEST_CASE("on random graphs the plan never shares bytes between live buffers, and runs equal unplanned ones") {
  std::mt19937 rng(7);
  manual_seed(7);
  int in_place = 0, reused = 0;
  for (int trial = 0; trial < 200; ++trial) {
    CAPTURE(trial);
    Graph g = random_graph(rng, 4 + static_cast<int>(rng() % 30));
    run_pipeline(g, {"plan"});  // verifies the plan too (memory_plan_problem)
    if (!g.plan) continue;
    const MemoryPlan& p = *g.plan;
    INFO(print_graph(g));
    CHECK(shared_while_live(p) == "");
    CHECK(p.arena_bytes <= p.naive_bytes + kPlanAlignment * static_cast<int64_t>(p.slots.size()));
    CHECK(p.last_use_peak_bytes <= p.naive_bytes);
    in_place += p.in_place;
    reused += p.buffers.size() > p.slots.size();
    TensorList args = random_args();
    CHECK(same_bits(run_graph(g, args), run_unplanned(g, args)));
  }
  CHECK(in_place > 50);  // the cases above were exercised
  CHECK(reused > 50);
}

TEST_CASE("a view keeps its root's buffer live until the view's last reader") {
  Graph g = parse_graph(
      "graph g(%x: f32[4, 4]) {\n"
      "  %1 = exp(%x) : f32[4, 4]\n"
      "  %2 = reshape(%1) {shape=[16]} : f32[16]\n"
      "  %3 = neg(%x) : f32[4, 4]\n"
      "  %4 = tanh(%3) : f32[4, 4]\n"
      "  %5 = relu(%4) : f32[4, 4]\n"
      "  %6 = reshape(%5) {shape=[16]} : f32[16]\n"
      "  %7 = add(%2, %6) : f32[16]\n"
      "  return %7\n"
      "}\n");
  const MemoryPlan& p = plan_of(g);
  REQUIRE(p.find(1));
  CHECK(p.find(1)->last_step == 6);  // add reads the view %2 at step 6
  CHECK(p.find(2) == nullptr);       // a view has no buffer of its own
  // %3..%5 are live while %1 is, so none of them may share its bytes.
  for (int v : {3, 4, 5}) CHECK(p.find(v)->slot != p.find(1)->slot);
  CHECK(shared_while_live(p) == "");
}

TEST_CASE("in place only when the input dies at the node, is a buffer of its own and has the result's type") {
  auto in_place_of = [](const std::string& body, int value) {
    Graph g = parse_graph("graph g(%x: f32[4, 4]) {\n" + body + "}\n");
    const MemoryPlan& p = plan_of(g);
    return p.find(value) ? p.find(value)->in_place_of : -2;
  };
  // relu takes over exp's buffer, which dies there.
  CHECK(in_place_of("  %1 = exp(%x) : f32[4, 4]\n  %2 = relu(%1) : f32[4, 4]\n  %3 = neg(%2) : f32[4, 4]\n"
                    "  return %3\n", 2) == 1);
  // exp's result is read after relu.
  CHECK(in_place_of("  %1 = exp(%x) : f32[4, 4]\n  %2 = relu(%1) : f32[4, 4]\n  %3 = add(%1, %2) : f32[4, 4]\n"
                    "  return %3\n", 2) == -1);
  // ... or through a view after relu.
  CHECK(in_place_of("  %1 = exp(%x) : f32[4, 4]\n  %2 = transpose(%1) {dim0=0, dim1=1} : f32[4, 4]\n"
                    "  %3 = relu(%1) : f32[4, 4]\n  %4 = add(%2, %3) : f32[4, 4]\n  return %4\n", 3) == -1);
  // A graph input belongs to the caller.
  CHECK(in_place_of("  %1 = relu(%x) : f32[4, 4]\n  %2 = neg(%1) : f32[4, 4]\n  return %2\n", 1) == -1);
  // A view of the input is read by the same node.
  CHECK(in_place_of("  %1 = exp(%x) : f32[4, 4]\n  %2 = transpose(%1) {dim0=0, dim1=1} : f32[4, 4]\n"
                    "  %3 = add(%1, %2) : f32[4, 4]\n  %4 = neg(%3) : f32[4, 4]\n  return %4\n", 3) == -1);
  // Another dtype, another shape.
  CHECK(in_place_of("  %1 = exp(%x) : f32[4, 4]\n  %2 = to_dtype(%1) {dtype=f64} : f64[4, 4]\n"
                    "  %3 = neg(%2) : f64[4, 4]\n  return %3\n", 2) == -1);
  CHECK(in_place_of("  %1 = sum(%x) {dims=[1], keepdim=true} : f32[4, 1]\n  %2 = add(%1, %x) : f32[4, 4]\n"
                    "  %3 = neg(%2) : f32[4, 4]\n  return %3\n", 2) == -1);
  // Not elementwise: matmul reads whole rows and columns.
  CHECK(in_place_of("  %1 = exp(%x) : f32[4, 4]\n  %2 = matmul(%1, %x) : f32[4, 4]\n  %3 = neg(%2) : f32[4, 4]\n"
                    "  return %3\n", 2) == -1);
  // A graph output is not planned at all.
  CHECK(in_place_of("  %1 = exp(%x) : f32[4, 4]\n  %2 = relu(%1) : f32[4, 4]\n  return %2\n", 2) == -2);
}

TEST_CASE("graph outputs have memory of their own: a later run leaves an earlier run's results alone") {
  Graph g = parse_graph(
      "graph g(%x: f32[4, 4], %w: param f32[4, 4]) {\n"
      "  %2 = matmul(%x, %w) : f32[4, 4]\n"
      "  %3 = relu(%2) : f32[4, 4]\n"
      "  %4 = transpose(%3) {dim0=0, dim1=1} : f32[4, 4]\n"
      "  %5 = tanh(%3) : f32[4, 4]\n"
      "  %6 = mul(%5, %x) : f32[4, 4]\n"
      "  return %4, %6\n"
      "}\n");
  const MemoryPlan& p = plan_of(g);
  CHECK(p.find(3) == nullptr);  // its view %4 is an output: %3's storage is the caller's
  REQUIRE(p.find(5));
  Tensor w = randn({4, 4});
  TensorList first = run_graph(g, {randn({4, 4}), w});
  std::vector<std::vector<double>> kept = {to_double_vector(first[0]), to_double_vector(first[1])};
  run_graph(g, {randn({4, 4}), w});
  CHECK(to_double_vector(first[0]) == kept[0]);
  CHECK(to_double_vector(first[1]) == kept[1]);
  for (const Tensor& t : first) CHECK(t.storage()->nbytes < static_cast<size_t>(p.arena_bytes) + 64);
}

TEST_CASE("nodes with effects: batch_norm's running statistics and copy_ as without a plan") {
  std::string text =
      "graph g(%x: f32[8, 3], %w: param f32[3], %b: param f32[3], %rm: param f32[3], %rv: param f32[3]) {\n"
      "  %5 = sum(%x) {dims=[1]} : f32[8]\n"
      "  %6 = exp(%x) : f32[8, 3]\n"
      "  %7 = batch_norm(%6, %w, %b, %rm, %rv) {training=true} : f32[8, 3]\n"
      "  %8 = relu(%7) : f32[8, 3]\n"
      "  %9 = sum(%8) {dims=[0]} : f32[3]\n"
      "  copy_(%b, %9)\n"
      "  %10 = mul(%8, %x) : f32[8, 3]\n"
      "  return %10, %5\n"
      "}\n";
  Graph g = parse_graph(text);
  run_pipeline(g, {"plan"});
  REQUIRE(g.plan);
  TensorList args = {randn({8, 3}), randn({3}), randn({3}), zeros({3}), ones({3})};
  TensorList copies;
  for (const Tensor& a : args) copies.push_back(tensor_from(to_double_vector(a), a.sizes()));
  TensorList planned = run_graph(g, args);
  TensorList unplanned = run_unplanned(g, copies);
  CHECK(same_bits(planned, unplanned));
  CHECK(same_bits(args, copies));  // running statistics and the copy_ target alike
}

TEST_CASE("a fused node computes in place when it may; a node with a body but no kernel runs it into its buffer") {
  // `group` has no kernel: the executor runs its body and copies the result into the
  // planned buffer. It is not elementwise as far as the planner knows.
  std::string text =
      "graph g(%x: f32[4, 4], %y: f32[4, 4]) {\n"
      "  %2 = exp(%x) : f32[4, 4]\n"
      "  %3 = fused(%2, %y) : f32[4, 4] {\n"
      "    body(%in0: f32[4, 4], %in1: f32[4, 4])\n"
      "    %2 = mul(%in0, %in1) : f32[4, 4]\n"
      "    %3 = tanh(%2) : f32[4, 4]\n"
      "    yield %3\n"
      "  }\n"
      "  %4 = group(%3, %y) : f32[4, 4] {\n"
      "    body(%in0: f32[4, 4], %in1: f32[4, 4])\n"
      "    %2 = sub(%in0, %in1) : f32[4, 4]\n"
      "    yield %2\n"
      "  }\n"
      "  %5 = neg(%4) : f32[4, 4]\n"
      "  return %5\n"
      "}\n";
  Graph g = parse_graph(text);
  const MemoryPlan& p = plan_of(g);
  REQUIRE(p.find(3));
  CHECK(p.find(3)->in_place_of == 2);
  REQUIRE(p.find(4));
  CHECK(p.find(4)->in_place_of == -1);
  TensorList args = {randn({4, 4}), randn({4, 4})};
  CHECK(same_bits(run_graph(g, args), run_unplanned(g, args)));
  // A body whose result is not its last step: its kernel would overwrite the input
  // before the last step reads it.
  std::string late = text;
  std::string from = "    %3 = tanh(%2) : f32[4, 4]\n    yield %3\n";
  late.replace(late.find(from), from.size(), "    %3 = tanh(%2) : f32[4, 4]\n    %4 = neg(%in0) : f32[4, 4]\n    yield %3\n");
  Graph h = parse_graph(late);
  PipelineOptions explain;
  explain.explain = true;
  PipelineResult r = run_pipeline(h, {"plan"}, explain);
  CHECK(h.plan->find(3)->in_place_of == -1);
  bool noted = false;
  for (const std::string& note : r.records[0].notes) noted |= note == "%3 = fused: not in place: its body's result is not its last step";
  CHECK(noted);
}

TEST_CASE("plan is idempotent; a later pass that changes the planned graph is an error") {
  std::string text =
      "graph g(%x: f32[4, 4]) {\n"
      "  %1 = exp(%x) : f32[4, 4]\n"
      "  %2 = relu(%1) : f32[4, 4]\n"
      "  %3 = tanh(%x) : f32[4, 4]\n"
      "  %4 = neg(%2) : f32[4, 4]\n"
      "  return %4\n"
      "}\n";
  Graph g = parse_graph(text);
  CHECK(changes_of(run_pipeline(g, {"plan"})) == 3);
  std::string printed = print_graph(g);
  CHECK(changes_of(run_pipeline(g, {"plan", "cse"})) == 0);  // cse finds nothing: the plan still fits
  CHECK(print_graph(g) == printed);
  Graph h = parse_graph(text);
  CHECK_THROWS_WITH(run_pipeline(h, {"plan", "dce"}),
                    doctest::Contains("graph verifier after pass 'dce': graph: the memory plan does not fit the graph "
                                      "(plan must run last"));
  Graph k = parse_graph(text);
  CHECK(changes_of(run_pipeline(k, {"dce", "plan"})) == 3);  // dce drops tanh, plan places %1 and %2
}

TEST_CASE("the plan's text form round-trips; a plan that does not add up or does not fit is caught") {
  std::string text =
      "graph g(%x: f32[4, 4]) {\n"
      "  %1 = exp(%x) : f32[4, 4]\n"
      "  %2 = relu(%1) : f32[4, 4]\n"
      "  %3 = add(%1, %2) : f32[4, 4]\n"
      "  %4 = neg(%3) : f32[4, 4]\n"
      "  return %4\n"
      "}\n";
  Graph g = parse_graph(text);
  run_pipeline(g, {"plan"});
  std::string printed = print_graph(g);
  INFO(printed);
  // add takes over %1 (its first input that dies there); freeing after the last use
  // alone would need all three buffers at step 2.
  CHECK(printed.find("plan(arena=128, naive=192, last_use_peak=192, in_place=1) {\n"
                     "  slot 0: offset 0, 64 bytes\n"
                     "  slot 1: offset 64, 64 bytes\n"
                     "  %1: slot 0, 64 bytes, steps [0, 2]\n"
                     "  %2: slot 1, 64 bytes, steps [1, 2]\n"
                     "  %3: slot 0, 64 bytes, steps [2, 3], in place of %1\n"
                     "}\n") != std::string::npos);
  Graph back = parse_graph(printed);
  REQUIRE(back.plan);
  CHECK(*back.plan == *g.plan);
  CHECK(print_graph(back) == printed);
  verify(back);

  auto edited = [&](const std::string& from, const std::string& to) {
    std::string s = printed;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  auto parse_error = [](const std::string& s) {
    try {
      parse_graph(s);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  Graph bad_figure = parse_graph(edited("naive=192", "naive=200"));
  CHECK(print_graph(bad_figure) == edited("naive=192", "naive=200"));  // the parser reads, verify judges
  CHECK_THROWS_WITH(verify(bad_figure), doctest::Contains("it says naive=200, its buffers make 192"));
  CHECK(parse_error(edited("%3: slot 0", "%9: slot 0")) ==
        "13:4: the plan names %9, which the graph does not have");
  CHECK(parse_error(edited("slot 1: offset", "slot 2: offset")) == "10:8: expected slot 1, got '2'");
  // %2 into slot 0 while %1 lives there: parses, but does not verify.
  Graph bad = parse_graph(edited("%2: slot 1", "%2: slot 0"));
  CHECK_THROWS_WITH(verify(bad), doctest::Contains("%1 and %2 share slot 0 and are both live at step 1"));
  Graph wrong_steps = parse_graph(edited("steps [0, 2]", "steps [0, 1]"));  // (and the peak is off)
  CHECK_THROWS_WITH(verify(wrong_steps), doctest::Contains("%1 is live over steps [0, 2], the plan says [0, 1]"));
  Graph not_in_place = parse_graph(edited(", in place of %1", ", in place of %2"));
  CHECK_THROWS_WITH(verify(not_in_place), doctest::Contains("%3 in place of %2: that one is not a buffer of the same slot"));
  // The executor's own check: the graph's types changed after planning.
  Graph changed = g;
  changed.value(2).meta = {{2, 4}, DType::f32};
  CHECK_THROWS_WITH(run_graph(changed, {randn({4, 4})}), doctest::Contains("its memory plan does not fit the graph"));
}

TEST_CASE("the plan as viz draws it: in-place buffers share their slot's row, nothing overlaps") {
  Graph g = parse_graph(
      "graph g(%x: f32[4, 4]) {\n"
      "  %1 = exp(%x) : f32[4, 4]\n"
      "  %2 = relu(%1) : f32[4, 4]\n"
      "  %3 = matmul(%2, %x) : f32[4, 4]\n"
      "  %4 = neg(%3) : f32[4, 4]\n"
      "  return %4\n"
      "}\n");
  const MemoryPlan& p = plan_of(g);
  std::vector<graph::BufferUse> uses = plan_buffer_uses(g, p);
  REQUIRE(uses.size() == 3);
  CHECK(uses[1].label == "%2 relu (in place)");
  CHECK(uses[1].in_place);
  std::string dot = viz::memory_plan_dot(uses, plan_step_labels(g));
  CHECK(dot.find("overlap") == std::string::npos);
  CHECK(dot.find("%2 relu (in place)") != std::string::npos);
}
