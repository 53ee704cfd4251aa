// The REPL's completion logic (interp/app/repl.hpp), without a terminal: which
// expression a '.' completes members of, and the candidates for names, members and
// commands. tests/repl/repl_pty_test.cpp drives the real binary.
#include <doctest/doctest.h>

#include <algorithm>

#include "interp/app/repl.hpp"

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
