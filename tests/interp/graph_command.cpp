// Interpreter::graph, behind `nabla graph` and the REPL's `:graph`: which entries it
// accepts (a graph module, a call with example inputs, a name with --inputs or
// NAME_inputs), the --inputs spec, and errors that leave the session usable.
// tests/cli/cli_test.sh runs the command itself; tests/repl/repl_pty_test.cpp the REPL.
#include <fstream>

#include "helpers.hpp"
#include "temp_dir.hpp"

using nabla::GraphRequest;
using nabla::GraphResult;
using nabla::testing::Session;

namespace {

const char* const kModels =
    "import nn\n"
    "manual_seed(0)\n"
    "let mlp = nn.Sequential([nn.Linear(6, 5), nn.ReLU(), nn.Linear(5, 10)])\n"
    "let mlp_inputs = [randn([2, 6])]\n"
    "fn step(x, y) = cross_entropy(mlp(x), y)\n"
    "fn twice(x) = x * 1.0 + x * 1.0\n"
    "fn constant() = ones([2]) * 3.0\n"
    "let n = 3\n";

GraphResult graph(Session& s, const std::string& entry, const std::string& passes = "default") {
  GraphRequest r;
  r.entry = entry;
  r.passes = passes;
  return s.interp.graph(r);
}

std::string error_of(const GraphResult& g) { return g.ok ? "(no error)" : g.error->message; }

}  // namespace

TEST_CASE("graph: a name with NAME_inputs, a call, --inputs, no inputs at all") {
  Session s;
  s.run(kModels);
  GraphResult g = graph(s, "mlp");  // default: what it holds changes as passes are added
  REQUIRE_MESSAGE(g.ok, error_of(g));
  CHECK(g.heading.find("graph module 'Sequential' (inference): 3 nodes captured, ") == 0);
  CHECK(g.report.find("unroll") == 0);  // the default pipeline's first pass
  CHECK(g.report.find("dce") != std::string::npos);
  CHECK(g.ir.find("%x: f32[2, 6]") != std::string::npos);

  g = graph(s, "twice(randn([4]))", "simplify,cse,dce");
  REQUIRE_MESSAGE(g.ok, error_of(g));
  CHECK(g.heading == "graph module 'twice' (inference): 3 nodes captured, 1 after passes");
  CHECK(g.ir.find("add(%x, %x)") != std::string::npos);

  GraphRequest r;
  r.entry = "step";
  r.inputs = "f32[4,6], i64[4]";
  r.train = true;
  r.passes = "default";
  g = s.interp.graph(r);
  REQUIRE_MESSAGE(g.ok, error_of(g));
  CHECK(g.heading.find("'step' (train)") != std::string::npos);
  CHECK(g.ir.find("%y: i64[4]") != std::string::npos);

  g = graph(s, "constant", "");
  REQUIRE_MESSAGE(g.ok, error_of(g));
  CHECK(g.report.empty());
}

TEST_CASE("graph: a graph module keeps its passes unless asked to re-optimize") {
  Session s;
  s.run(kModels);
  s.run("let gm = compile(twice, randn([3]))");
  GraphRequest r;
  r.entry = "gm";
  r.passes = "default";
  r.reoptimize = false;
  GraphResult g = s.interp.graph(r);
  REQUIRE_MESSAGE(g.ok, error_of(g));
  CHECK(g.report.empty());
  CHECK(g.heading == "graph module 'twice' (inference): 3 nodes captured, 3 after passes");
  s.run("gm.optimize('simplify')");
  g = s.interp.graph(r);
  CHECK(g.report.find("simplify") == 0);
  r.reoptimize = true;
  r.explain = true;
  g = s.interp.graph(r);
  CHECK(g.report.find("unroll") == 0);
  CHECK(g.explain.find("guards:") != std::string::npos);
}

TEST_CASE("graph: renders as gm.render does, before and after a pass too") {
  Session s;
  s.run(kModels);
  nabla::testing::TempDir dir("nabla_graph_command");
  GraphRequest r;
  r.entry = "twice(randn([4]))";
  r.passes = "default";
  r.out = dir.file("g.dot");
  GraphResult g = s.interp.graph(r);
  REQUIRE_MESSAGE(g.ok, error_of(g));
  std::ifstream f(r.out);
  std::string dot((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  CHECK(dot.find("add") != std::string::npos);
  r.before_after = "simplify";
  r.out = dir.file("diff.dot");
  g = s.interp.graph(r);
  REQUIRE_MESSAGE(g.ok, error_of(g));
  std::ifstream d(r.out);
  std::string diff((std::istreambuf_iterator<char>(d)), std::istreambuf_iterator<char>());
  CHECK(diff.find("removed") != std::string::npos);
}

TEST_CASE("graph: errors are one message each, and the session goes on") {
  Session s;
  s.run(kModels);
  CHECK(error_of(graph(s, "nope")) == "<graph>:1:1: error: undefined name 'nope'\n  nope\n  ^~~~");
  CHECK(error_of(graph(s, "n")) == "error: graph: 'n' is not a model, a function or a graph module (its type is int)");
  CHECK(error_of(graph(s, "step")).find("error: graph: 'step' needs example inputs: call it with them, step(x)") == 0);
  CHECK(error_of(graph(s, "mlp", "fold,nope")).find("error: unknown pass 'nope' (passes: ") == 0);
  CHECK(error_of(graph(s, "twice(x=randn([2]))")) ==
        "error: graph: the example inputs of 'twice(x=randn([2]))' must be positional arguments");
  CHECK(error_of(graph(s, "let q = 1")).find("error: graph: expected an expression") == 0);
  // A shape error inside the capture points at the model's line and ends at the entry.
  std::string shape = error_of(graph(s, "mlp(randn([2, 7]))"));
  CHECK(shape.find("linear: argument 'input' of shape [2, 7]") != std::string::npos);
  CHECK(shape.find("at <graph>:1:1 in <module>") != std::string::npos);
  GraphRequest r;
  r.entry = "mlp";
  r.out = "/no/such/folder/g.svg";
  CHECK(error_of(s.interp.graph(r)).find("error: render: cannot write '/no/such/folder/g.svg'") == 0);
  CHECK(s.run("print(n + 1)") == "4\n");
}

TEST_CASE("parse_input_spec and example_inputs") {
  auto specs = nabla::parse_input_spec("f32[64,1,28,28], i64[64],bool[2],f64[]");
  REQUIRE(specs.size() == 4);
  CHECK(specs[0].shape == std::vector<int64_t>{64, 1, 28, 28});
  CHECK(specs[1].dtype == nabla::DType::i64);
  CHECK(specs[3].shape.empty());
  auto ts = nabla::example_inputs(specs);
  CHECK(ts[0].dtype() == nabla::DType::f32);
  CHECK(ts[1].dtype() == nabla::DType::i64);
  auto message = [](const std::string& spec) {
    try {
      nabla::parse_input_spec(spec);
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  CHECK(message("f33[2]") == "bad --inputs 'f33[2]': unknown dtype 'f33' (f32, f64, f16, bf16, i64, i32, i16, i8, u8 or bool)");
  CHECK(message("f32[2,x]").find("bad --inputs 'f32[2,x]': expected a size (a whole number) at 'x]'") == 0);
  // a size of too many digits is named at the number, not at the ']' after it
  CHECK(message("f32[99999999999999999999]").find("a size has at most 12 digits at '99999999999999999999]'") !=
        std::string::npos);
  CHECK(message("f32[2]i64[2]").find("expected ',' between inputs at 'i64[2]'") != std::string::npos);
  CHECK(message("f32").find("expected '[' at the end") != std::string::npos);
  CHECK(message("").find("expected a dtype") != std::string::npos);
}

TEST_CASE("describe_passes lists every pass and the default pipeline") {
  std::string d = nabla::describe_passes();
  for (const char* p : {"fold", "simplify", "cse", "dce"}) CHECK(d.find(std::string("\n") + p + " ") != std::string::npos);
  CHECK(d.find("default pipeline: unroll,fold,simplify,cse,licm,dce") != std::string::npos);
}
