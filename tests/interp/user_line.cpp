// Errors and op origins at the user's line (Note [User line] in
// interp/eval/evaluator_trace.cpp): where an error raised inside the standard library
// is shown, what counts as library code, Interpreter::set_full_trace, and the origins
// the profiler sees either way. The goldens of tests/lang/errors_userline.dsl and
// tests/graph/test_module_paths.dsl cover the layers one by one.
#include <fstream>
#include <string>

#include "helpers.hpp"
#include "temp_dir.hpp"

using nabla::testing::Session;
using nabla::testing::TempDir;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

const char* const kBadLinear = "import nn\nlet m = nn.Linear(3, 4)\nlet y = m(randn(2, 5))";

}  // namespace

TEST_CASE("user line: a library error is shown at the user's call, library frames marked") {
  Session s;
  std::string e = s.error(kBadLinear);
  CHECK(first_line(e).rfind("t.dsl:3:9: error: linear: argument 'input' of shape [2, 5]", 0) == 0);
  CHECK(contains(e, "\n  let y = m(randn(2, 5))\n          ^~~~~~~~~~~~~~\n"));
  CHECK(contains(e, " in Linear.forward() [library]\n  at t.dsl:3:9 in <module>"));
  CHECK(!contains(e, "t.dsl:3:9 in <module> [library]"));
}

TEST_CASE("user line: set_full_trace shows the library's line, and reset keeps it") {
  Session s;
  CHECK_FALSE(s.interp.full_trace());
  s.interp.set_full_trace(true);
  s.interp.reset();
  CHECK(s.interp.full_trace());
  std::string e = s.error(kBadLinear);
  CHECK(first_line(e).rfind("<stdlib>/_nn_basic.dsl:", 0) == 0);
  CHECK(contains(e, " in Linear.forward() [library]\n  at t.dsl:3:9 in <module>"));
  s.interp.set_full_trace(false);
  CHECK(first_line(s.error(kBadLinear)).rfind("t.dsl:3:9: error: linear", 0) == 0);
}

TEST_CASE("user line: an error in user code that the library called stays where it is") {
  Session s;
  std::string e = s.error(
      "import nn\nmodel Bad() { forward(x) = undefined_thing }\nlet m = nn.Sequential([Bad()])\nm(ones([1]))");
  CHECK(first_line(e).rfind("t.dsl:2:28: error: undefined name 'undefined_thing'", 0) == 0);
  CHECK(contains(e, "  at t.dsl:2:28 in Bad.forward()\n  at <stdlib>/_nn_containers.dsl:"));
  CHECK(contains(e, " in Sequential.forward() [library]\n  at t.dsl:4:1 in <module>"));
}

TEST_CASE("user line: a file imported by path is the user's code, not the library's") {
  TempDir dir;
  std::ofstream(dir.file("helpers.dsl")) << "fn bad(x) = x @ ones([3, 3])\n";
  Session s;
  std::string e = s.error("import \"" + dir.file("helpers.dsl") + "\" as h\nh.bad(ones([2, 2]))");
  CHECK(first_line(e).rfind(dir.file("helpers.dsl") + ":1:13: error: matmul", 0) == 0);
  CHECK(!contains(e, "[library]"));
}

TEST_CASE("user line: the profiler gets the module path, or the library's line under full trace") {
  const char* program =
      "import nn\nmodel Net() {\n  fc1 = nn.Linear(2, 2)\n  forward(x) = fc1(x)\n}\nlet net = Net()\n"
      "profile(print=false) { net(ones([1, 2])) }\nlet ev = []\n"
      "for e in last_profile().events() { if e[\"name\"] == \"linear\" { ev.append(e) } }\n";
  Session s;
  s.run(program);
  CHECK(s.run("print(ev[0][\"line\"], '|', ev[0][\"source\"])") == "fc1 (t.dsl:4:16) | fc1 (t.dsl:4:16)\n");
  Session full;
  full.interp.set_full_trace(true);
  full.run(program);
  std::string printed = full.run("print(ev[0][\"line\"], '|', ev[0][\"source\"])");
  CHECK(printed.rfind("t.dsl:4:16 | <stdlib>/_nn_basic.dsl:", 0) == 0);
}

TEST_CASE("user line: a model's method calling itself a thousand times deep still names its layer") {
  Session s;
  s.run(
      "import nn\nmodel Deep() {\n  lin = nn.Linear(2, 2)\n"
      "  down(x, n) = lin(x) if n == 0 else self.down(x, n - 1)\n  forward(x) = self.down(x, 900)\n}\n"
      "let ir = compile(Deep(), ones([1, 2])).ir()");
  CHECK(contains(s.run("print(ir)"), "# lin (t.dsl:4:16)\n"));
}
