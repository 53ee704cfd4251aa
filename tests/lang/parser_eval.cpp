// Evaluating long chains and deep expressions (issue 25, Note [Deep expressions] in
// lang/ast.hpp): a chain of kLongChain links or more runs through the evaluator's
// loop (eval_chain), which must give what the recursive path gives: left to right,
// short-circuits, errors located at the failing link; the stack guard's error leaves
// the interpreter usable.
#include <doctest/doctest.h>

#include "interp/helpers.hpp"
#include "lang/ast.hpp"

using nabla::testing::Session;

namespace {

std::string repeat(const std::string& s, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

}  // namespace

TEST_CASE("a long chain evaluates as its short form does") {
  Session s;
  const size_t n = 3 * nabla::lang::kLongChain;
  // Left associative: 1000 - 1 - 1 ... is not 1000 - (1 - (1 ...)).
  CHECK(s.run("print(1000" + repeat(" - 1", n) + ")") == std::to_string(1000 - n) + "\n");
  CHECK(s.run("print(100.0" + repeat(" - 0.5", n) + ")") == "4.0\n");  // n is 192
  CHECK(s.run("print(\"a\"" + repeat(" + \"b\"", n) + " == \"a\" + \"" + std::string(n, 'b') + "\")") == "true\n");
  // Short-circuits: the undefined names after a false `and` / a true `or` never run.
  CHECK(s.run("print(true" + repeat(" and true", n) + " and false" + repeat(" and nope", n) + ")") == "false\n");
  CHECK(s.run("print(false" + repeat(" or false", n) + " or 7" + repeat(" or nope", n) + ")") == "7\n");
  CHECK(s.run("print(" + repeat("not ", n) + "true)") == (n % 2 ? "false\n" : "true\n"));
  CHECK(s.run("print(" + repeat("- ", n + 1) + "5)") == (n % 2 ? "5\n" : "-5\n"));
  // Calls, methods, attributes and indexing along one chain.
  s.run("let d = {\"k\": [1, 2, 3]}\nfn id(x) = x");
  CHECK(s.run("print(d[\"k\"]" + repeat(".copy()", n) + "[2])") == "3\n");
  CHECK(s.run("print(id" + repeat("(id)", n) + "(4))") == "4\n");
  CHECK(s.run("let t = ones([2, 3])\nprint(t" + repeat(".T", n + 1) + ".shape)") == "(3, 2)\n");
}

TEST_CASE("an error in a long chain is located at the failing link") {
  Session s;
  const size_t n = 2 * nabla::lang::kLongChain;
  // The link that fails (adding the string) spans from the chain's start.
  std::string code = "let x = 1" + repeat(" + 1", n) + " + \"s\"" + repeat(" + 1", n);
  std::string err = s.error(code);
  CHECK(err.find("t.dsl:1:9: error:") == 0);
  CHECK(err.find("+") != std::string::npos);
  // A failing method call deep in a chain: the caret spans the chain up to that call.
  err = s.error("let y = \"a\"" + repeat(".upper()", n) + ".nope()" + repeat(".upper()", n));
  CHECK(err.find("t.dsl:1:9: error:") == 0);
  CHECK(err.find("nope") != std::string::npos);
  // The session goes on.
  CHECK(s.run("print(1 + 1)") == "2\n");
}

TEST_CASE("deep expressions inside deep recursion stop with the stack guard's error") {
  Session s;
  // Lists nested 150 deep, 62 unary minuses at each level: each call nests about
  // 9,000 expression levels, none of them a long chain; the calls never end.
  std::string body = "k(n + 1)";
  for (int i = 0; i < 150; ++i) body = repeat("- ", 62) + "[" + body + "][0]";
  std::string err = s.error("fn k(n) = " + body + "\nk(0)");
  CHECK(err.find("maximum recursion depth exceeded: the native stack is full (") != std::string::npos);
  CHECK(err.find("in k()") != std::string::npos);
  // The interpreter is still usable, and a recursion within the limits still works.
  CHECK(s.run("fn f(n) = 0 if n == 0 else 1 + f(n - 1)\nprint(f(900))") == "900\n");
}
