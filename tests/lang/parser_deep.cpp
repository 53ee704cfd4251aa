// Deep and long input to the parser (issue 25, Note [Deep expressions] in
// lang/ast.hpp): nesting without brackets stops at kMaxNesting levels with an error
// at the level that was one too many; flat chains of 10^6 terms parse, and their
// trees are freed without recursion; a thread with a small stack gets an error, not
// a crash; x[y[z[...]]] parses in linear time.
#include <doctest/doctest.h>

#include <chrono>
#include <functional>

#include "lang/parser.hpp"
#include "parse_text.hpp"
#include "lang/stack_depth.hpp"
#include "stack_thread.hpp"

using namespace nabla::lang;

namespace {

std::string repeat(const std::string& s, size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

// The first line of the error, or "" when it parsed.
std::string first_error_line(const std::string& text) {
  ParseResult r = parse_text(text);
  if (r.program) return "";
  return r.error->substr(0, r.error->find('\n'));
}

// Runs f on a thread of its own with a stack of `bytes`.
void on_thread_with_stack(size_t bytes, const std::function<void()>& f) { nabla::testing::run_with_stack(bytes, f); }

// Depth of the first-operand chain below e (the AST's left spine).
size_t spine(const Expr& e) {
  size_t n = 0;
  for (const Expr* x = first_operand(e); x; x = first_operand(*x)) ++n;
  return n;
}

const Expr& let_value(const Program& p) { return *static_cast<const LetStmt&>(*p.stmts.at(0)).value; }

}  // namespace

TEST_CASE("nesting without brackets stops at 200 levels, at the level one too many") {
  struct Case {
    std::string level;  // one or two levels of nesting, repeated
    std::string inner, close;
    size_t ok, deep;    // repetitions that parse, and that do not
    uint32_t col;       // where the level one too many starts
  };
  // The outermost expression is level 0 (it starts at column 9).
  const Case cases[] = {
      {"2 ** ", "2", "", 200, 5000, 9 + 201 * 5},
      {"1 if c else ", "2", "", 200, 5000, 9 + 201 * 12},
      {"fn(x) = ", "1", "", 200, 5000, 9 + 201 * 8},
      {"2 ** -", "2", "", 200, 5000, 9 + 200 * 6 + 5},  // the operand starts at '-'
      {"(2 ** ", "2", ")", 100, 150, 9 + 100 * 6 + 1},  // two levels each: '(' and '**'
  };
  for (const auto& c : cases) {
    CAPTURE(c.level);
    auto text = [&](size_t n) { return "let x = " + repeat(c.level, n) + c.inner + repeat(c.close, n); };
    CHECK(first_error_line(text(c.ok)) == "");
    CHECK(first_error_line(text(c.ok + 1)) != "");
    CHECK(first_error_line(text(c.deep)) ==
          "t.dsl:1:" + std::to_string(c.col) + ": error: expressions nest deeper than 200 levels");
  }
  // An f-string field is an expression inside one: its nesting counts too.
  std::string f = "let x = " + repeat("f\"{", 300) + "1" + repeat("}\"", 300);
  CHECK(first_error_line(f).find("nest deeper than 200 levels") != std::string::npos);
}

TEST_CASE("flat chains of 10^6 terms parse into a left spine, freed without recursion") {
  // 10^6 terms for the sum; the other chains at 2 * 10^5 keep the test within seconds.
  const size_t n = 1000000, m = 200000;
  struct Case {
    std::string text;
    size_t links;
  };
  const Case cases[] = {
      {"let x = a" + repeat(" + a", n - 1), n - 1},  {"let x = " + repeat("- ", m) + "1", m},
      {"let x = " + repeat("not ", m) + "true", m}, {"let x = s" + repeat(".f()", m), m},
      {"let x = a" + repeat("[0]", m), m},           {"let x = a" + repeat(" and a", m), m},
  };
  for (const auto& c : cases) {
    CAPTURE(c.text.substr(0, 20));
    ParseResult r = parse_text(c.text);
    REQUIRE(r.program);
    CHECK(spine(let_value(*r.program)) == c.links);
    CHECK(let_value(*r.program).chain_length == kLongChain);
    // Freed on a thread whose stack holds a few thousand frames at most: a recursive
    // destructor would need a million.
    std::shared_ptr<Program> prog(std::move(r.program));
    on_thread_with_stack(256 * 1024, [&] { prog.reset(); });
    CHECK(prog == nullptr);
  }
}

TEST_CASE("heights and chain lengths of small expressions") {
  ParseResult r = parse_text("let x = a + b * c");
  REQUIRE(r.program);
  const Expr& e = let_value(*r.program);
  CHECK(e.height == 3);  // + over * over leaves
  CHECK(e.chain_length == 1);
  ParseResult s = parse_text("let x = s.f(1).g[2]");
  REQUIRE(s.program);
  CHECK(let_value(*s.program).chain_length == 3);  // [2], .g, .f(1) (the method call is one link)
}

TEST_CASE("with the stack nearly full the parser stops with an error, not a crash") {
  // 200 levels is within the count but more than this thread's stack holds above the
  // guard's reserve; the guard must stop it first.
  std::string deep = "let x = " + std::string(200, '(') + "1" + std::string(200, ')');
  ParseResult r;
  on_thread_with_stack(kStackReserve + 64 * 1024, [&] { r = parse_text(deep); });
  REQUIRE_FALSE(r.program);
  CHECK(r.error->find("error: expressions nest too deeply (the parser's stack is full)") != std::string::npos);
  // The same text on an ordinary stack parses.
  CHECK(parse_text(deep).program);
}

TEST_CASE("x[y[z[...]]] reads each level once (it took 2^depth)") {
  std::string text = "let v = " + repeat("x[", 150) + "0" + std::string(150, ']');
  auto start = std::chrono::steady_clock::now();
  ParseResult r = parse_text(text);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(r.program);
  CHECK(seconds < 5);
  // Slices still parse, with any of their bounds.
  for (const char* ok : {"x[1:2]", "x[:]", "x[::2]", "x[1:]", "x[:, 0]", "x[a[1]:a[2]:a[3]]", "x[1:2:]"})
    CHECK_MESSAGE(parse_text(std::string("let v = ") + ok).program, ok);
}

TEST_CASE("comparisons do not chain: the error is at the second operator") {
  CHECK(first_error_line("let b = 1 < 2 < 3") ==
        "t.dsl:1:15: error: comparisons do not chain (write 'a < b and b < c', or bracket one of them)");
  CHECK(first_error_line("let b = x == y in z").find("comparisons do not chain") != std::string::npos);
  CHECK(first_error_line("let b = (1 < 2) < 3") == "");
  CHECK(first_error_line("let b = 1 if a < b else 2") == "");
}
