// The REPL's completion logic (interp/app/repl.hpp), without a terminal: which
// expression a '.' completes members of, and the candidates for names, members and
// commands; and what :help prints for a builtin (Interpreter::builtin_help).
// tests/repl/repl_pty_test.cpp drives the real binary.
#include <doctest/doctest.h>

#include <algorithm>
#include <span>

#include "interp/app/repl.hpp"
#include "interp/builtins/builtin_table.hpp"

using nabla::member_target;
using nabla::repl_completions;

namespace {
bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}
}  // namespace

TEST_CASE("member_target: the chain of names, attributes and indexing before a '.'") {
  CHECK(member_target("x.", 1) == "x");
  CHECK(member_target("m.fc1.", 5) == "m.fc1");
  CHECK(member_target("print(xs[0].", 11) == "xs[0]");
  CHECK(member_target("xs[i + 1].", 9) == "xs[i + 1]");
  CHECK(member_target("a + b.", 5) == "b");
  CHECK(member_target("f(x).", 4) == "");  // a call could have side effects
  CHECK(member_target("1.", 1) == "");     // a number
  CHECK(member_target("x].", 2) == "");    // unbalanced
}

TEST_CASE("repl_completions: globals and keywords, commands, members") {
  nabla::Interpreter interp;
  REQUIRE(interp.eval("let zeta = 1").ok);
  REQUIRE(interp.eval("let t = zeros([2])").ok);
  auto names = repl_completions(interp, "ze", 0);
  CHECK(contains(names, "zeta"));
  CHECK(contains(names, "print"));
  CHECK(contains(names, "while"));
  CHECK(std::is_sorted(names.begin(), names.end()));
  CHECK(contains(repl_completions(interp, ":he", 1), "help"));
  CHECK(contains(repl_completions(interp, ":gr", 1), "graph"));
  CHECK(contains(repl_completions(interp, ":pa", 1), "passes"));
  auto members = repl_completions(interp, "print(t.s", 8);
  CHECK(contains(members, "shape"));
  CHECK(contains(members, "sum"));
  CHECK(repl_completions(interp, "f(t).s", 5).empty());
}

TEST_CASE("repl_completions: a str, list or dict member completes to exactly its builtin table") {
  // Note [Builtin tables]: completion lists the rows that dispatch calls.
  nabla::Interpreter interp;
  REQUIRE(interp.eval("let s = \"abc\"\nlet xs = [1]\nlet d = {\"k\": 1}").ok);
  auto names_of = [](std::span<const nabla::interp::MethodEntry> rows) {
    std::vector<std::string> out;
    for (const auto& row : rows) out.push_back(row.name);
    std::sort(out.begin(), out.end());
    return out;
  };
  CHECK(repl_completions(interp, "s.", 2) == names_of(nabla::interp::container_methods(nabla::interp::Tag::Str)));
  CHECK(repl_completions(interp, "xs.", 3) == names_of(nabla::interp::container_methods(nabla::interp::Tag::List)));
  CHECK(repl_completions(interp, "d.", 2) == names_of(nabla::interp::container_methods(nabla::interp::Tag::Dict)));
}

TEST_CASE("builtin_help: the signature and doc of :help, from the builtin tables") {
  nabla::Interpreter interp;
  auto print = interp.builtin_help("print");
  REQUIRE(print.has_value());
  CHECK(print->signature == "print(*values, sep=\" \", end=\"\\n\", flush=false)");
  CHECK(print->doc.find("Example: print(") != std::string::npos);
  CHECK(interp.builtin_help("str.split")->signature == "str.split(sep=none)");
  CHECK(interp.builtin_help("math.sqrt")->signature == "math.sqrt(x)");
  CHECK(interp.builtin_help("model.parameters")->signature == "model.parameters()");
  CHECK(interp.builtin_help("relu")->signature == "relu(input)");
  CHECK(!interp.builtin_help("f32"));  // a value, not a function
  CHECK(!interp.builtin_help("nope"));
  REQUIRE(interp.eval("let len = 3").ok);
  CHECK(!interp.builtin_help("len"));  // the name no longer holds the builtin
}
