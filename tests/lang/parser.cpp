// The parser: grammar sanity (PEGTL's analyze), precedence and shapes of the AST,
// spans, and the exact text of syntax errors.
#include <doctest/doctest.h>

#include <tao/pegtl/contrib/analyze.hpp>

#include "lang/grammar.hpp"
#include "lang/parser.hpp"
#include "parse_text.hpp"

using namespace nabla::lang;

namespace {

std::string dump_pattern(const Pattern& p) {
  if (!p.is_tuple()) return p.name;
  std::string s = "(";
  for (size_t k = 0; k < p.items.size(); ++k) s += (k ? " " : "") + dump_pattern(p.items[k]);
  return s + ")";
}

std::string dump(const Expr& e);

std::string dump_list(const std::vector<ExprPtr>& items) {
  std::string s;
  for (const auto& i : items) s += " " + dump(*i);
  return s;
}

// A compact S-expression of an expression, to check trees in one string.
std::string dump(const Expr& e) {
  switch (e.kind) {
    case ExprKind::None: return "none";
    case ExprKind::Bool: return static_cast<const BoolLit&>(e).value ? "true" : "false";
    case ExprKind::Int: return std::to_string(static_cast<const IntLit&>(e).value);
    case ExprKind::Float: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%g", static_cast<const FloatLit&>(e).value);
      return std::string(buf) + "f";
    }
    case ExprKind::String: return "\"" + static_cast<const StringLit&>(e).value + "\"";
    case ExprKind::FString: {
      std::string s = "(f";
      for (const auto& p : static_cast<const FString&>(e).parts)
        s += p.expr ? " {" + dump(*p.expr) + (p.format_spec.empty() ? "" : ":" + p.format_spec) + "}"
                    : " \"" + p.text + "\"";
      return s + ")";
    }
    case ExprKind::List: return "[" + dump_list(static_cast<const ListLit&>(e).items) + "]";
    case ExprKind::Tuple: return "(tuple" + dump_list(static_cast<const TupleLit&>(e).items) + ")";
    case ExprKind::Dict: {
      const auto& d = static_cast<const DictLit&>(e);
      std::string s = "{";
      for (size_t i = 0; i < d.keys.size(); ++i)
        s += d.unpacks(i) ? " **" + dump(*d.keys[i]) : " " + dump(*d.keys[i]) + ":" + dump(*d.values[i]);
      return s + "}";
    }
    case ExprKind::Name: return static_cast<const Name&>(e).id;
    case ExprKind::Attribute: {
      const auto& a = static_cast<const Attribute&>(e);
      return "(. " + dump(*a.object) + " " + a.name + ")";
    }
    case ExprKind::Index: {
      const auto& i = static_cast<const Index&>(e);
      return "(index " + dump(*i.object) + dump_list(i.items) + ")";
    }
    case ExprKind::Slice: {
      const auto& s = static_cast<const Slice&>(e);
      auto part = [](const ExprPtr& p) { return p ? dump(*p) : std::string("_"); };
      return "(slice " + part(s.start) + " " + part(s.stop) + " " + part(s.step) + ")";
    }
    case ExprKind::Ellipsis: return "...";
    case ExprKind::Call: {
      const auto& c = static_cast<const Call&>(e);
      std::string s = "(call " + dump(*c.callee);
      for (const auto& a : c.args) s += " " + (a.name.empty() ? "" : a.name + "=") + dump(*a.value);
      return s + ")";
    }
    case ExprKind::Unary: {
      const auto& u = static_cast<const Unary&>(e);
      return std::string("(") + op_symbol(u.op) + " " + dump(*u.operand) + ")";
    }
    case ExprKind::Binary: {
      const auto& b = static_cast<const Binary&>(e);
      return std::string("(") + op_symbol(b.op) + " " + dump(*b.lhs) + " " + dump(*b.rhs) + ")";
    }
    case ExprKind::Logical: {
      const auto& l = static_cast<const Logical&>(e);
      return std::string("(") + (l.op == LogicalOp::And ? "and" : "or") + " " + dump(*l.lhs) + " " + dump(*l.rhs) + ")";
    }
    case ExprKind::Conditional: {
      const auto& c = static_cast<const Conditional&>(e);
      return "(if " + dump(*c.cond) + " " + dump(*c.then_value) + " " + dump(*c.else_value) + ")";
    }
    case ExprKind::Lambda: {
      const auto& l = static_cast<const Lambda&>(e);
      std::string s = "(fn";
      for (const auto& p : l.decl->params) s += " " + p.name;
      return s + " " + (l.decl->expr_body ? dump(*l.decl->expr_body) : "{...}") + ")";
    }
    case ExprKind::Comprehension: {
      const auto& c = static_cast<const Comprehension&>(e);
      std::string s = "(comp " + dump(*c.element) + (c.value ? ":" + dump(*c.value) : "");
      for (const auto& clause : c.clauses)
        s += clause.is_filter() ? " (if " + dump(*clause.expr) + ")"
                                : " (for " + dump_pattern(clause.target) + " " + dump(*clause.expr) + ")";
      return s + ")";
    }
  }
  return "?";
}

// The expression of a one-statement program `text`.
std::string expr_of(const std::string& text) {
  ParseResult r = parse_text(text);
  REQUIRE_MESSAGE(r.program, (r.error ? *r.error : ""));
  REQUIRE(r.program->stmts.size() == 1);
  const Stmt& s = *r.program->stmts[0];
  REQUIRE(s.kind == StmtKind::Expr);
  return dump(*static_cast<const ExprStmt&>(s).expr);
}

std::string error_of(const std::string& text) {
  ParseResult r = parse_text(text);
  REQUIRE_FALSE(r.program);
  REQUIRE(r.error);
  return *r.error;
}

}  // namespace

TEST_CASE("the grammar has no rule that can loop without consuming input") {
  CHECK(tao::pegtl::analyze<grammar::program>(1) == 0);
}

TEST_CASE("operator precedence and associativity") {
  CHECK(expr_of("1 + 2 * 3 ** 2") == "(+ 1 (* 2 (** 3 2)))");
  CHECK(expr_of("2 ** 3 ** 2") == "(** 2 (** 3 2))");
  CHECK(expr_of("-x ** 2") == "(- (** x 2))");
  CHECK(expr_of("a - b - c") == "(- (- a b) c)");
  CHECK(expr_of("a @ b + c") == "(+ (@ a b) c)");
  CHECK(expr_of("a // b % c") == "(% (// a b) c)");
  CHECK(expr_of("not a == b and c or d") == "(or (and (not (== a b)) c) d)");
  CHECK(expr_of("x if c else y") == "(if c x y)");
  CHECK(expr_of("a < b + 1") == "(< a (+ b 1))");
  CHECK(expr_of("k not in d") == "(not in k d)");
  CHECK(expr_of("- - x") == "(- (- x))");
}

TEST_CASE("literals, collections, calls, indexing and attributes") {
  CHECK(expr_of("[1, 2.5, \"s\", true, none]") == "[ 1 2.5f \"s\" true none]");
  CHECK(expr_of("1_000 + 0x1f + 1e-3 + .5") == "(+ (+ (+ 1000 31) 0.001f) 0.5f)");
  CHECK(expr_of("(1,)") == "(tuple 1)");
  CHECK(expr_of("()") == "(tuple)");
  CHECK(expr_of("(1)") == "1");
  CHECK(expr_of("{\"a\": 1, 2: [3]}") == "{ \"a\":1 2:[ 3]}");
  CHECK(expr_of("f(x, lr=0.1)(y)") == "(call (call f x lr=0.1f) y)");
  CHECK(expr_of("m.fc1.weight.T") == "(. (. (. m fc1) weight) T)");
  CHECK(expr_of("x[:, 1:3, ::2, ..., -1, none]") ==
        "(index x (slice _ _ _) (slice 1 3 _) (slice _ _ 2) ... (- 1) none)");
  CHECK(expr_of("x[i][j]") == "(index (index x i) j)");
  CHECK(expr_of("fn(a, b=2) = a * b") == "(fn a b (* a b))");
  CHECK(expr_of("\"tab\\there \\u{e9}\"") == "\"tab\there \xc3\xa9\"");
  CHECK(expr_of("f\"loss {loss:.4f} at {{step}} {i + 1}\"") == "(f \"loss \" {loss:.4f} \" at {step} \" {(+ i 1)})");
}

TEST_CASE("calls and collections may span lines; newlines end statements") {
  ParseResult r = parse_text("let x = f(1,\n  2,\n  3\n)\nlet y = [\n 1,\n 2,\n]\nx + y\n");
  REQUIRE(r.program);
  CHECK(r.program->stmts.size() == 3);
  ParseResult s = parse_text("let a = 1; let b = 2  # comment\n\n\nprint(a)");
  REQUIRE(s.program);
  CHECK(s.program->stmts.size() == 3);
}

TEST_CASE("statements: let, assignment, control flow, functions, models, imports, blocks") {
  const char* text = R"(import nn
import "lib/util.dsl" as util
let (a, (b, c)) = (1, (2, 3))
a, b = b, a
x[0] += 1
fn f(x, y=2) = x * y
fn g(x) {
  if x > 0 { return x } elif x < 0 { return -x } else { return 0 }
}
for (i, v) in enumerate(xs) { if i == 2 { break } else { continue } }
while true { break }
model MLP(d_in, d_out=10) {
  let hidden = 32
  fc1 = nn.Linear(d_in, hidden)
  buffer steps = zeros([1])
  forward(x) = fc1(x)
  reset() { self.steps = zeros([1]) }
}
function Square {
  forward(ctx, x) { ctx.save(x); return x * x }
  backward(ctx, g) = 2 * ctx.saved[0] * g
}
no_grad { y = f(1) }
autocast(dtype=bf16) { y = f(2) }
test "adds" { expect(1 + 1 == 2) }
)";
  ParseResult r = parse_text(text);
  REQUIRE_MESSAGE(r.program, (r.error ? *r.error : ""));
  const auto& s = r.program->stmts;
  REQUIRE(s.size() == 14);
  CHECK(s[0]->kind == StmtKind::Import);
  auto& imp = static_cast<const ImportStmt&>(*s[1]);
  CHECK(imp.is_path);
  CHECK(imp.alias == "util");
  auto& let = static_cast<const LetStmt&>(*s[2]);
  CHECK(let.target.items.size() == 2);
  CHECK(let.target.items[1].items[1].name == "c");
  CHECK(s[3]->kind == StmtKind::Assign);
  CHECK(static_cast<const AugAssignStmt&>(*s[4]).op == BinaryOp::Add);
  auto& f = static_cast<const FnStmt&>(*s[5]);
  CHECK(f.decl->params.size() == 2);
  CHECK(f.decl->params[1].default_value != nullptr);
  auto& g = static_cast<const FnStmt&>(*s[6]);
  auto& branch = static_cast<const IfStmt&>(*g.decl->block_body.stmts[0]);
  CHECK(branch.conds.size() == 2);
  CHECK(branch.else_block.has_value());
  auto& model = static_cast<const ModelStmt&>(*s[9]);
  CHECK(model.decl->name == "MLP");
  CHECK(model.decl->params.size() == 2);
  CHECK(model.decl->body.stmts.size() == 3);
  CHECK(model.decl->body.stmts[2]->kind == StmtKind::Buffer);
  auto& buffer = static_cast<const BufferStmt&>(*model.decl->body.stmts[2]);
  CHECK(buffer.name == "steps");
  CHECK(dump(*buffer.value) == "(call zeros [ 1])");
  CHECK(model.decl->methods.size() == 2);
  CHECK(static_cast<const ModelStmt&>(*s[10]).decl->is_function);
  auto& ctx = static_cast<const ContextStmt&>(*s[12]);
  CHECK(ctx.keyword == "autocast");
  CHECK(ctx.args.size() == 1);
  CHECK(static_cast<const TestStmt&>(*s[13]).name == "adds");
}

TEST_CASE("spans give the line and column of every node") {
  ParseResult r = parse_text("let x = 1\n  let y = x +\n    foo(2)");
  REQUIRE(r.program);
  auto& let = static_cast<const LetStmt&>(*r.program->stmts[1]);
  CHECK(let.span.line == 2);
  CHECK(let.span.col == 3);
  auto& sum = static_cast<const Binary&>(*let.value);
  CHECK(sum.rhs->span.line == 3);
  CHECK(sum.rhs->span.col == 5);
  CHECK(sum.rhs->span.where() == "t.dsl:3:5");
}

TEST_CASE("an expression's span covers its parentheses; text() gives it on one line") {
  ParseResult r = parse_text("let a = 2 * (b @\n   c.T)\nlet d = (e  +  f).exp()\nlet g = (h)");
  REQUIRE(r.program);
  auto value = [&](size_t i) -> const Expr& { return *static_cast<const LetStmt&>(*r.program->stmts[i]).value; };
  CHECK(value(0).span.text() == "2 * (b @ c.T)");
  CHECK(value(1).span.where() == "t.dsl:3:9");
  CHECK(value(1).span.text() == "(e + f).exp()");
  CHECK(value(1).span.text(6) == "(e + f...");
  CHECK(value(2).kind == ExprKind::Name);  // "(h)" is h, not a tuple
  CHECK(value(2).span.text() == "(h)");
}

TEST_CASE("syntax errors say what was expected, with the line and a caret") {
  CHECK(error_of("let x = (1 + 2\nlet y = 3") ==
        "t.dsl:1:15: error: expected ')' to close '(' at 1:9\n  let x = (1 + 2\n                ^");
  CHECK(error_of("f(1, [2, 3)") == "t.dsl:1:11: error: expected ']' to close '[' at 1:6\n  f(1, [2, 3)\n            ^");
  CHECK(error_of("let = 5") == "t.dsl:1:5: error: expected a name or a parenthesised tuple of names\n  let = 5\n      ^");
  CHECK(error_of("if x > 1\n  y = 2") == "t.dsl:1:9: error: expected '{' to start the block\n  if x > 1\n          ^");
  CHECK(error_of("let x = 1 2") ==
        "t.dsl:1:11: error: expected a newline or ';' after the statement\n  let x = 1 2\n            ^");
  CHECK(error_of("x = 1 +") == "t.dsl:1:8: error: expected an expression after the operator\n  x = 1 +\n         ^");
  CHECK(error_of("s = \"abc\\q\"") ==
        "t.dsl:1:10: error: unknown escape sequence (expected \\n, \\t, \\r, \\0, \\\\, \\\", \\', \\{, \\}, \\xHH or "
        "\\u{HHHH})\n  s = \"abc\\q\"\n           ^");
  CHECK(error_of("s = \"abc") == "t.dsl:1:9: error: expected '\"' to close the string started at 1:5\n  s = \"abc\n          ^");
  CHECK(error_of("f(1) = 2") == "t.dsl:1:1: error: cannot assign to a function call\n  f(1) = 2\n  ^~~~");
  CHECK(error_of("f(a=1, 2)") == "t.dsl:1:8: error: positional argument after keyword arguments\n  f(a=1, 2)\n         ^");
  CHECK(error_of("fn f(a, a) = 1") == "t.dsl:1:9: error: parameter 'a' appears twice\n  fn f(a, a) = 1\n          ^");
  CHECK(error_of("x.") == "t.dsl:1:3: error: expected a name after '.'\n  x.\n    ^");
  CHECK(error_of("for i xs { }") == "t.dsl:1:7: error: expected 'in' after the loop variable\n  for i xs { }\n        ^");
  CHECK(error_of(")") == "t.dsl:1:1: error: expected a statement\n  )\n  ^");
  CHECK(error_of("buffer b = 1") ==
        "t.dsl:1:1: error: 'buffer' declares a model's buffer; it is only allowed in a model body\n  buffer b = 1\n  ^~~~~~~~~~~~");
}

TEST_CASE("list and dict comprehensions: clauses in order, tuple targets, filters read as filters") {
  CHECK(expr_of("[x * 2 for x in xs]") == "(comp (* x 2) (for x xs))");
  CHECK(expr_of("[x for x in xs if x > 0 if x < 9]") == "(comp x (for x xs) (if (> x 0)) (if (< x 9)))");
  CHECK(expr_of("[(i, j) for i in a for j in f(i)]") == "(comp (tuple i j) (for i a) (for j (call f i)))");
  CHECK(expr_of("[k for k, v in d.items()]") == "(comp k (for (k v) (call (. d items))))");
  CHECK(expr_of("[a for (a, (b, c)) in t]") == "(comp a (for (a (b c)) t))");
  CHECK(expr_of("[x if c else y for x in xs]") == "(comp (if c x y) (for x xs))");
  CHECK(expr_of("{k: v for k, v in d.items() if v}") == "(comp k:v (for (k v) (call (. d items))) (if v))");
  CHECK(expr_of("[\n  x\n  for x in xs\n  if x\n]") == "(comp x (for x xs) (if x))");
  CHECK(expr_of("[[y for y in x] for x in xs]") == "(comp (comp y (for y x)) (for x xs))");
  // A list is still a list, and a nested one is read once per level.
  CHECK(expr_of("[a, b, c]") == "[ a b c]");
  CHECK(parse_text("x = " + std::string(150, '[') + "1 for z in y" + std::string(150, ']')).program);
}

TEST_CASE("a comprehension's syntax errors say what was expected") {
  CHECK(error_of("[x for in xs]") ==
        "t.dsl:1:8: error: expected a name or a parenthesised tuple of names\n  [x for in xs]\n         ^");
  CHECK(error_of("[x for x xs]") ==
        "t.dsl:1:10: error: expected 'in' after the loop variable\n  [x for x xs]\n           ^");
  CHECK(error_of("[x for x in]") ==
        "t.dsl:1:12: error: expected what to iterate after 'in'\n  [x for x in]\n             ^");
  CHECK(error_of("[x for x in xs if]") ==
        "t.dsl:1:18: error: expected a condition after 'if'\n  [x for x in xs if]\n                   ^");
  CHECK(error_of("[x for x in xs") ==
        "t.dsl:1:15: error: expected ']' to close '[' at 1:1\n  [x for x in xs\n                ^");
  CHECK(error_of("{k: v for k in}") ==
        "t.dsl:1:15: error: expected what to iterate after 'in'\n  {k: v for k in}\n                ^");
}

TEST_CASE("Python habits get a one-line hint naming nabla's form") {
  auto first_line = [](const std::string& text) {
    std::string e = error_of(text);
    return e.substr(0, e.find('\n'));
  };
  CHECK(first_line("def f(x):") == "t.dsl:1:1: error: 'def' is Python's; nabla defines a function with "
                                   "'fn name(params) { ... }' or 'fn name(params) = expr'");
  CHECK(first_line("let f = lambda x: x") ==
        "t.dsl:1:9: error: 'lambda' is Python's; nabla writes an anonymous function as 'fn(x) = x + 1'");
  CHECK(first_line("if x:") ==
        "t.dsl:1:5: error: expected '{' to start the block (nabla writes blocks in braces, not after ':')");
  CHECK(first_line("y = a && b") == "t.dsl:1:7: error: '&&' is not an operator here; write 'and'");
  CHECK(first_line("y = None") == "t.dsl:1:5: error: 'None' is Python's spelling; nabla writes 'none'");
  CHECK(first_line("s = f(1, x for x in xs)") == "t.dsl:1:12: error: a generator expression must be a call's only argument, "
                                                 "sum(x for x in xs), or in parentheses of its own; or make it a list "
                                                 "comprehension: [x for x in xs]");
  CHECK(first_line("s = sum(x for x in xs, 1)") == "t.dsl:1:22: error: a generator expression must be a call's only argument, "
                                                   "sum(x for x in xs), or in parentheses of its own; or make it a list "
                                                   "comprehension: [x for x in xs]");
  CHECK(first_line("@no_grad()\nfn f(x) = x") ==
        "t.dsl:1:1: error: decorators are Python's; nabla has none: for @torch.no_grad() put the body in 'no_grad { ... }', "
        "for @staticmethod write 'static name(params) = ...' in the model, or wrap by hand: 'let f2 = wrapper(f)'");
  CHECK(parse_text("let y = a @ b").program);  // matmul is not a decorator
  CHECK(first_line("assert x.shape == (2, 3), \"why\"") ==
        "t.dsl:1:1: error: assert is a function in nabla, not Python's statement: write assert(cond) or "
        "assert(cond, \"message\")");
  CHECK(parse_text("assert(x > 0, \"why\")\nlet assert2 = 1").program);
  // Note [A generator as a call's argument]
  CHECK(parse_text("s = sum(x * x for x in xs if x > 0)").program);
  CHECK(parse_text("s = sorted((x for x in xs), reverse=true)").program);
  // `lambda` stays a name where no parameter follows it.
  CHECK(parse_text("let lambda = 0.5\nlambda * 2").program);
  CHECK(parse_text("y = a != b").program);
}

TEST_CASE("an input that stops early is incomplete (the REPL asks for more)") {
  CHECK(parse_text("fn f(x) {\n  let y = x").incomplete);
  CHECK(parse_text("let x = [1,\n").incomplete);
  CHECK(parse_text("let x = 1 +  ").incomplete);
  CHECK_FALSE(parse_text("let x = 1 1").incomplete);
  CHECK_FALSE(parse_text("let x = )").incomplete);
}

TEST_CASE("deep nesting is a syntax error, not a crash") {
  std::string deep(5000, '(');
  std::string err = error_of("x = " + deep + "1");
  CHECK(err.find("brackets nest deeper than 200 levels") != std::string::npos);
  std::string ok = "x = " + std::string(150, '[') + "1" + std::string(150, ']');
  CHECK(parse_text(ok).program);
}
