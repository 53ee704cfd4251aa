// The IR text form (docs/DESIGN.md seam 5): graphs built with the Graph API print, parse
// and print again to the same text; parse errors name the line and column.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <random>

#include "graph/ir.hpp"

using namespace nabla;
using namespace nabla::graph;

namespace {

TensorMeta f32(Shape sizes) { return {std::move(sizes), DType::f32}; }

std::string round_trip(const Graph& g) { return print_graph(parse_graph(print_graph(g), g.constants)); }

std::string parse_error(const std::string& text, const std::map<std::string, Tensor>& pool = {}) {
  try {
    parse_graph(text, pool);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// x -> linear -> relu -> max_pool2d (two outputs) -> a fused node with a body that
// multiplies by a constant of its own; origins on some nodes.
Graph small_model() {
  Graph g;
  g.name = "mlp";
  int x = g.add_input("x", ValueKind::input, f32({2, 1, 4, 4}));
  int w = g.add_input("fc1.weight", ValueKind::param, f32({4, 4}));
  int half = g.add_constant(scalar_tensor(0.5));
  int lin = g.nodes[g.add_node("linear", {x, w, -1}, {}, {f32({2, 1, 4, 4})}, "mlp.dsl:4:14")].outputs[0];
  int act = g.nodes[g.add_node("relu", {lin}, {}, {f32({2, 1, 4, 4})})].outputs[0];
  Attrs pool_attrs{
      {"kernel_size", std::vector<int64_t>{2, 2}}, {"stride", std::vector<int64_t>{2, 2}}, {"ceil_mode", false}};
  const graph::Node& pool = g.nodes[g.add_node("max_pool2d", {act}, pool_attrs,
                                               {f32({2, 1, 2, 2}), {{2, 1, 2, 2}, DType::i64}}, "mlp.dsl:5:3")];
  int pooled = pool.outputs[0];
  auto body = std::make_shared<Graph>();
  int in0 = body->add_input("in0", ValueKind::input, f32({2, 1, 2, 2}));
  int in1 = body->add_input("in1", ValueKind::input, f32({}));
  int m = body->nodes[body->add_node("mul", {in0, in1}, {}, {f32({2, 1, 2, 2})})].outputs[0];
  body->add_node("neg", {in1}, {}, {f32({})});
  body->outputs = {m};
  int fused_node = g.add_node("fused", {pooled, half}, {}, {f32({2, 1, 2, 2})}, "mlp.dsl:6:1");
  g.nodes[static_cast<size_t>(fused_node)].body = body;
  g.outputs = {g.nodes[static_cast<size_t>(fused_node)].outputs[0], pool.outputs[1]};
  return g;
}

}  // namespace

TEST_CASE("a graph with params, constants, two-output nodes and a fused body round-trips") {
  Graph g = small_model();
  std::string text = print_graph(g);
  CHECK(text.find("%fc1.weight: param f32[4, 4]") != std::string::npos);
  CHECK(text.find("%c0: const f32[] = 0.5") != std::string::npos);
  CHECK(text.find("body(%in0: f32[2, 1, 2, 2], %in1: f32[])") != std::string::npos);
  CHECK(text.find("}  # mlp.dsl:6:1") != std::string::npos);
  Graph back = parse_graph(text);
  CHECK(print_graph(back) == text);
  verify(back);
  CHECK(back.name == "mlp");
  CHECK(back.value(back.inputs[1]).kind == ValueKind::param);
  CHECK(back.value(back.inputs[2]).kind == ValueKind::constant);
  CHECK(back.constants.at("c0").item() == 0.5);
  REQUIRE(back.nodes.size() == 4);
  CHECK(back.nodes[0].inputs[2] == -1);
  CHECK(back.nodes[0].origin == "mlp.dsl:4:14");
  CHECK(back.nodes[2].attrs.ints("kernel_size") == std::vector<int64_t>{2, 2});
  CHECK(back.nodes[2].attrs.b("ceil_mode") == false);
  REQUIRE(back.nodes[3].body);
  CHECK(back.nodes[3].body->nodes.size() == 2);
  CHECK(back.nodes[3].body->nodes[1].op == OpId::neg);
}

TEST_CASE("attribute values of every kind round-trip") {
  Graph g;
  int x = g.add_input("x", ValueKind::input, f32({3}));
  double nan = std::nan("");
  Attrs a{{"i", int64_t{-7}},
          {"big", int64_t{1} << 62},
          {"f", 1e-05},
          {"tenth", 0.1},
          {"neg0", -0.0},
          {"inf", HUGE_VAL},
          {"ninf", -HUGE_VAL},
          {"nan", nan},
          {"whole", 3.0},
          {"huge", 1e300},
          {"t", true},
          {"l", std::vector<int64_t>{1, -2}},
          {"empty", std::vector<int64_t>{}},
          {"d", DType::bf16},
          {"b8", DType::b8},
          {"n", NoneAttr{}}};
  g.add_node("custom_op", {x, -1}, a, {f32({3})});
  g.outputs = {g.nodes[0].outputs[0]};
  std::string text = print_graph(g);
  CHECK(text.find("{i=-7, big=4611686018427387904, f=1e-05, tenth=0.1, neg0=-0.0, inf=inf, ninf=-inf, nan=nan, "
                  "whole=3.0, huge=1e+300, t=true, l=[1, -2], empty=[], d=bf16, b8=bool, n=none}") !=
        std::string::npos);
  Graph back = parse_graph(text);
  CHECK(print_graph(back) == text);
  const Attrs& b = back.nodes[0].attrs;
  CHECK(std::holds_alternative<double>(b.value("whole")));
  CHECK(std::holds_alternative<int64_t>(b.value("i")));
  CHECK(std::signbit(b.f("neg0")));
  CHECK(std::isnan(b.f("nan")));
  CHECK(b.dtype("d") == DType::bf16);
}

TEST_CASE("constants of every dtype, inline and from the pool, round-trip") {
  Graph g;
  g.add_constant(tensor_from({1, -2, 3}, {3}, DType::i64), "ints");
  g.add_constant(tensor_from({1, 0}, {2}, DType::b8), "mask");
  g.add_constant(tensor_from({0.5, -1.25}, {1, 2}, DType::f16), "h");
  g.add_constant(scalar_tensor(0.1, DType::f64), "tenth");
  g.add_constant(scalar_tensor(std::nan(""), DType::f32), "undefined");
  g.add_constant(full({4, 5}, 0.25), "big");  // 20 elements: printed as <pool>
  std::string text = print_graph(g);
  CHECK(text.find("%ints: const i64[3] = [1, -2, 3]") != std::string::npos);
  CHECK(text.find("%mask: const bool[2] = [true, false]") != std::string::npos);
  CHECK(text.find("%h: const f16[1, 2] = [0.5, -1.25]") != std::string::npos);
  CHECK(text.find("%big: const f32[4, 5] = <pool>") != std::string::npos);
  CHECK(round_trip(g) == text);
  Graph back = parse_graph(text, g.constants);
  CHECK(back.constants.at("big").is_same(g.constants.at("big")));
  CHECK(back.constants.at("h").dtype() == DType::f16);
  CHECK(parse_error(text) == "1:203: constant %big is <pool>, but the pool has no tensor named 'big'");
  CHECK(parse_error(text, {{"big", full({5, 4}, 0.25)}}) ==
        "1:203: constant %big is typed f32[4, 5], but the pool's tensor is f32[5, 4]");
}

TEST_CASE("hand-written constants may use ints for float dtypes") {
  Graph g = parse_graph("graph g(%a: const f32[2] = [1, 2.5], %b: const f64[] = -3) {\n  return %a, %b\n}\n");
  CHECK(to_double_vector(g.constants.at("a")) == std::vector<double>{1, 2.5});
  CHECK(g.constants.at("b").item() == -3);
}

TEST_CASE("a constant added after nodes keeps the numbers of the values printed after it") {
  // Values are then not numbered inputs first; the parser gives op values the numbers
  // their text shows, so the text still round-trips.
  Graph g;
  int x = g.add_input("x", ValueKind::input, f32({2}));
  int a = g.nodes[g.add_node("neg", {x}, {}, {f32({2})})].outputs[0];
  int c = g.add_constant(tensor_from({1, 2}, {2}));
  int b = g.nodes[g.add_node("add", {a, c}, {}, {f32({2})})].outputs[0];
  g.outputs = {b};
  std::string text = print_graph(g);
  CHECK(text.find("%3 = add(%1, %c0)") != std::string::npos);
  Graph back = parse_graph(text);
  CHECK(print_graph(back) == text);
  verify(back);
}

TEST_CASE("a numbering gap left by a pass that did not compact round-trips") {
  Graph g;
  int x = g.add_input("x", ValueKind::input, f32({2}));
  g.add_node("neg", {x}, {}, {f32({2})});
  int r = g.nodes[g.add_node("relu", {x}, {}, {f32({2})})].outputs[0];
  g.outputs = {r};
  g.nodes.erase(g.nodes.begin());  // value %1 is now defined by no node
  g.value(r).node = 0;
  std::string text = print_graph(g);
  CHECK(text.find("%2 = relu(%x)") != std::string::npos);
  Graph back = parse_graph(text);
  CHECK(back.values.size() == 3);
  CHECK(print_graph(back) == text);
  verify(back);
}

TEST_CASE("named op values, statements (nodes without outputs, with attributes or a body) round-trip") {
  std::string text =
      "graph g() {\n"
      "  %h = some_op() : f32[]\n"
      "  copy_(%h, %h) {k=1}  # x.dsl:1:1\n"
      "  sink(%h) {\n"
      "    body(%in0: f32[])\n"
      "    yield\n"
      "  }\n"
      "  return\n"
      "}\n";
  Graph g = parse_graph(text);
  CHECK(g.value(g.nodes[0].outputs[0]).name == "h");
  CHECK(g.nodes[1].outputs.empty());
  CHECK(g.nodes[1].attrs.i("k") == 1);
  CHECK(g.nodes[1].origin == "x.dsl:1:1");
  CHECK(g.nodes[2].body);
  CHECK(print_graph(g) == text);
}

TEST_CASE("comment lines are skipped; an origin keeps its text") {
  std::string text =
      "# a comment before the graph\n"
      "graph g(%x: f32[2]) {\n"
      "  # a comment line\n"
      "  %1 = relu(%x) : f32[2]  #   spaced # origin\n"
      "  # CHECK: relu\n"
      "  return %1\n"
      "}\n";
  Graph g = parse_graph(text);
  CHECK(g.nodes[0].origin == "  spaced # origin");
  CHECK(g.nodes.size() == 1);
}

TEST_CASE("%07 is a name, not the number 7; CRLF line ends are read") {
  std::string text =
      "graph g(%x: f32[2]) {\n"
      "  %07 = relu(%x) : f32[2]\n"
      "  %7 = neg(%07) : f32[2]\n"
      "  return %7\n"
      "}\n";
  Graph g = parse_graph(text);
  CHECK(g.value(g.nodes[0].outputs[0]).name == "07");
  CHECK(g.nodes[1].outputs[0] == 7);
  CHECK(print_graph(g) == text);
  verify(g);
  Graph crlf = parse_graph("graph g(%x: f32[2]) {\r\n  %1 = relu(%x) : f32[2]  # a.dsl:1:1\r\n  return %1\r\n}\r\n");
  CHECK(crlf.nodes[0].origin == "a.dsl:1:1");
  CHECK(parse_error("graph g(%x: f32[2]) {\n  %12345678 = relu(%x) : f32[2]\n  return\n}") ==
        "2:4: value number %12345678 is too large (at most 9999999)");
}

TEST_CASE("parse errors name the line and column, what was expected and what was found") {
  const std::string head = "graph g(%x: f32[2]) {\n";
  CHECK(parse_error("grph g() {\n}") == "1:1: expected 'graph', got 'grph'");
  CHECK(parse_error(head + "  %1 = relu(%x : f32[2]\n  return %1\n}") == "2:16: expected ')', got ':'");
  CHECK(parse_error(head + "  %1 = relu(%y) : f32[2]\n  return %1\n}") ==
        "2:14: unknown value %y (not defined before this use)");
  CHECK(parse_error(head + "  %1 = relu(%x) : f33[2]\n  return %1\n}") ==
        "2:19: expected a dtype (f32, f64, f16, bf16, i64, i32, i16, i8, u8, bool), got 'f33'");
  CHECK(parse_error(head + "  %1 = relu(%x) : f32[2.5]\n  return %1\n}") ==
        "2:23: expected a size (an int >= 0), got '2.5'");
  CHECK(parse_error(head + "  %1 = sum(%x) {dims=maybe} : f32[]\n  return %1\n}") ==
        "2:22: expected an attribute value (an int, a number, true, false, [ints], a dtype or none), got 'maybe'");
  CHECK(parse_error(head + "  %1 = sum(%x) {dims=[1.5]} : f32[]\n  return %1\n}") ==
        "2:23: expected an int, got '1.5'");
  CHECK(parse_error(head + "  %1 = sum(%x) {k=1, k=2} : f32[]\n  return %1\n}") ==
        "2:22: attribute 'k' is given twice");
  CHECK(parse_error(head + "  %1 = relu(%x) : f32[2]\n  %1 = relu(%x) : f32[2]\n  return %1\n}") ==
        "3:4: %1 is defined twice");
  CHECK(parse_error(head + "  %1, %2 = relu(%x) : f32[2]\n  return %1\n}") ==
        "2:29: expected ', ' and the type of output 2 (of 2), got end of line");
  CHECK(parse_error(head + "  relu(%x)\n}") == "3:1: expected a node or 'return', got '}'");
  CHECK(parse_error(head + "  %1 relu(%x) : f32[2]\n}") == "2:6: expected '=', got 'relu'");
  CHECK(parse_error(head + "  = relu(%x)\n}") == "2:3: expected a node or 'return', got '='");
  CHECK(parse_error(head + "  return %x\n}\nextra") == "4:1: expected end of input, got 'extra'");
  CHECK(parse_error(head + "  return %x\n") == "3:1: expected '}', got end of input");
  CHECK(parse_error("graph g(%c: const f32[2] = [1]) {\n  return\n}") ==
        "1:28: expected 2 values for %c: f32[2], got 1");
  CHECK(parse_error("graph g(%c: const f32[] = [1]) {\n  return\n}") ==
        "1:27: expected one value for %c: f32[], got a list");
  CHECK(parse_error("graph g(%c: const bool[] = 1) {\n  return\n}") == "1:28: expected true or false, got '1'");
  CHECK(parse_error("graph g(%c: const f32[] = 1x) {\n  return\n}") == "1:27: expected a number, got '1x'");
}

namespace {

// Random graphs for the round-trip property: every dtype, attribute kind, inline and
// pooled constants added between nodes (so values are not numbered inputs first),
// multi-output nodes, absent inputs, origins, and fused bodies.
struct RandomGraphs {
  std::mt19937 rng{20240611};

  int below(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); }
  double any_double() {
    static const double specials[] = {0.0, -0.0, 1.0, 0.1, 1e-05, HUGE_VAL, -HUGE_VAL, std::nan("")};
    if (below(3) == 0) return specials[below(8)];
    return std::uniform_real_distribution<double>(-1, 1)(rng) * std::pow(10.0, below(40) - 20);
  }
  AttrValue any_attr() {
    switch (below(6)) {
      case 0:
        return int64_t{below(2000) - 1000};
      case 1:
        return any_double();
      case 2:
        return below(2) == 0;
      case 3:
        return std::vector<int64_t>(static_cast<size_t>(below(4)), int64_t{below(9) - 4});
      case 4:
        return static_cast<DType>(below(kNumDTypes));
      default:
        return NoneAttr{};
    }
  }
  TensorMeta any_meta() {
    Shape sizes;
    for (int d = below(4); d > 0; --d) sizes.push_back(below(6));
    return {sizes, static_cast<DType>(below(kNumDTypes))};
  }
  Tensor any_constant() {
    TensorMeta m = any_meta();
    std::vector<double> xs(static_cast<size_t>(shape_numel(m.sizes)));
    for (double& x : xs) x = is_floating(m.dtype) ? any_double() : below(2000) - 1000;
    if (m.dtype == DType::b8)
      for (double& x : xs) x = x > 0;
    return tensor_from(xs, m.sizes, m.dtype);
  }

  // Bodies get no constants: their pool names would clash with the outer graph's
  // (parse_graph takes one pool), and a verified body has none anyway.
  void add_nodes(Graph& g, int count, bool constants) {
    for (int k = 0; k < count; ++k) {
      if (constants && below(4) == 0) g.add_constant(any_constant());
      std::vector<int> ins;
      for (int i = g.values.empty() ? 0 : below(4); i > 0; --i)
        ins.push_back(below(5) == 0 ? -1 : below(static_cast<int>(g.values.size())));
      Attrs attrs;
      for (int i = below(3); i > 0; --i) attrs.set("a" + std::to_string(i), any_attr());
      std::vector<TensorMeta> outs(static_cast<size_t>(below(3)));  // none: a statement (copy_)
      for (TensorMeta& m : outs) m = any_meta();
      std::string origin = below(2) ? "" : "m.dsl:" + std::to_string(below(50)) + ":1 # and more";
      int n = g.add_node(below(2) ? "relu" : "some_op", ins, attrs, outs, origin);
      if (below(6) == 0) g.nodes[static_cast<size_t>(n)].body = std::make_shared<Graph>(graph(0));
    }
  }

  Graph graph(int depth) {
    Graph g;
    const char* names[] = {"x", "fc1.weight", "layers[0].w", "h_2", "y"};
    for (int i = 0; i < 5; ++i)
      if (below(2)) g.add_input(names[i], below(2) ? ValueKind::input : ValueKind::param, any_meta());
    add_nodes(g, 1 + below(depth == 0 ? 3 : 8), depth > 0);
    for (int i = g.values.empty() ? 0 : below(3); i > 0; --i)
      g.outputs.push_back(below(static_cast<int>(g.values.size())));
    return g;
  }
};

// A graph's constants and its bodies' constants, by name (the pool parse_graph reads).
void collect_pool(const Graph& g, std::map<std::string, Tensor>& pool) {
  for (const auto& [name, t] : g.constants) pool[name] = t;
  for (const graph::Node& n : g.nodes)
    if (n.body) collect_pool(*n.body, pool);
}

}  // namespace

TEST_CASE("random graphs round-trip through the text form") {
  RandomGraphs random;
  for (int i = 0; i < 300; ++i) {
    Graph g = random.graph(1);
    std::string text = print_graph(g);
    CAPTURE(text);
    std::map<std::string, Tensor> pool;
    collect_pool(g, pool);
    CHECK(print_graph(parse_graph(text, pool)) == text);
  }
}
