// The abstract syntax tree of the nabla language. Every node carries the span of
// the source it came from (errors point at it). Nodes are plain structs with a kind
// tag; the evaluator switches on the tag and static_casts (one dispatch point, no
// visitor boilerplate). Functions and models are shared_ptr so that closures keep
// their declarations (and so their source) alive after the program is gone.
// Knows nothing of values or tensors. The grammar is in docs/LANGUAGE.md.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lang/source.hpp"

namespace nabla::lang {

// ---- expressions ------------------------------------------------------------------

enum class ExprKind : uint8_t {
  None, Bool, Int, Float, String, FString, List, Tuple, Dict, Name, Attribute, Index, Slice, Ellipsis,
  Call, Unary, Binary, Logical, Conditional, Lambda, Comprehension
};

// Note [Deep expressions]
// Input can make an expression tree as deep as it is long without a single bracket:
// `a + a + ... + a` and `x.f().g()...` are left-nested chains, `- - - x` and
// `not not x` nest unary operators. The parser reads these chains with loops, not
// recursion (lang/grammar.hpp), and the recursion it does have (brackets, `**`,
// `else`, lambdas, f-string fields) is capped at kMaxNesting levels (lang/parser.hpp).
// So an expression tree is deep only along its chains, and every node records the
// length of the chain below it (`chain_length`) and the height of its subtree
// (`height`). Code that walks expressions recursively (the resolver, the evaluator)
// walks a long chain with a loop instead (first_operand), and asks
// stack_nearly_full() (Note [Stack depth]) at every tall node: below a node less than
// kTall high the recursion is short, so the hot path of small expressions pays one
// byte compare, not a stack check. Freeing never recurses: ExprDeleter frees a tree
// with a worklist.

struct Expr;
// The deleter of every owned expression: frees the node and, with a worklist, every
// node below it, so that a 10^6-deep tree is freed without a 10^6-deep recursion.
struct ExprDeleter {
  ExprDeleter() noexcept = default;
  template <class T>
  ExprDeleter(const std::default_delete<T>&) noexcept {}  // from std::make_unique<Node>()
  void operator()(Expr* e) const noexcept;
};
using ExprPtr = std::unique_ptr<Expr, ExprDeleter>;

struct Expr {
  explicit Expr(ExprKind k) : kind(k) {}
  virtual ~Expr() = default;
  ExprKind kind;
  // How many chain nodes (see first_operand) lie on the first-operand path from this
  // node down, this one included; 0 for a node that is not a chain link. Saturates
  // at kLongChain. See Note [Deep expressions].
  uint8_t chain_length = 0;
  // 1 + the greatest height of the operands evaluated with this node (for_each_operand;
  // a leaf is 1), saturated at 255.
  uint8_t height = 1;
  // The evaluator's cache of span.where() interned as an origin id (0 until first
  // evaluated; See Note [Interned origins] in tensor/origin.hpp). Fits in padding.
  mutable uint32_t origin_id = 0;
  SourceSpan span;
};

// A chain this long (or longer) is walked with a loop, not recursion.
inline constexpr uint8_t kLongChain = 64;
// A node this high (or higher) checks the stack before its operands are evaluated.
// Must not exceed kLongChain (a long chain is a tall node).
inline constexpr uint8_t kTall = 32;
static_assert(kTall <= kLongChain);

struct NoneLit : Expr { NoneLit() : Expr(ExprKind::None) {} };
struct BoolLit : Expr { BoolLit() : Expr(ExprKind::Bool) {} bool value = false; };
struct IntLit : Expr { IntLit() : Expr(ExprKind::Int) {} int64_t value = 0; };
struct FloatLit : Expr { FloatLit() : Expr(ExprKind::Float) {} double value = 0; };
struct StringLit : Expr {
  StringLit() : Expr(ExprKind::String) {}
  std::string value;  // escapes resolved
  // The evaluator's str value of this literal, made at its first evaluation and shared
  // by every later one (Note [Interned string literals] in interp/eval/evaluator.cpp).
  mutable std::shared_ptr<void> interned;
};

// f"loss {loss:.4f} at {step}": literal text parts and replacement fields.
struct FString : Expr {
  FString() : Expr(ExprKind::FString) {}
  struct Part {
    std::string text;         // literal text (when expr is null)
    ExprPtr expr;             // a replacement field
    std::string format_spec;  // after ':' (Python's mini-language: ".4f", ">8", "d", ...)
  };
  std::vector<Part> parts;
};

struct ListLit : Expr { ListLit() : Expr(ExprKind::List) {} std::vector<ExprPtr> items; };
struct TupleLit : Expr { TupleLit() : Expr(ExprKind::Tuple) {} std::vector<ExprPtr> items; };
// {k: v, **m}: an unpacked mapping m is held as keys[i] = m with values[i] null.
struct DictLit : Expr {
  DictLit() : Expr(ExprKind::Dict) {}
  std::vector<ExprPtr> keys, values;
  bool unpacks(size_t i) const { return values[i] == nullptr; }
};

struct Name : Expr {
  Name() : Expr(ExprKind::Name) {}
  std::string id;
  // Filled by the evaluator's resolver, if it has one: where the variable lives.
  int32_t depth = -1, slot = -1;
};

struct Attribute : Expr { Attribute() : Expr(ExprKind::Attribute) {} ExprPtr object; std::string name; };

// x[i, 1:3, ..., None]: items are expressions, Slice, Ellipsis or None (new axis).
struct Index : Expr { Index() : Expr(ExprKind::Index) {} ExprPtr object; std::vector<ExprPtr> items; };
struct Slice : Expr { Slice() : Expr(ExprKind::Slice) {} ExprPtr start, stop, step; };  // each may be null
struct EllipsisLit : Expr { EllipsisLit() : Expr(ExprKind::Ellipsis) {} };

struct Arg {
  std::string name;  // empty for a positional argument
  bool splat = false;  // *value: the items of a list or tuple, as positional arguments
  ExprPtr value;
  SourceSpan span;
};
struct Call : Expr { Call() : Expr(ExprKind::Call) {} ExprPtr callee; std::vector<Arg> args; };

enum class UnaryOp : uint8_t { Neg, Pos, Not, Invert };
struct Unary : Expr { Unary() : Expr(ExprKind::Unary) {} UnaryOp op = UnaryOp::Neg; ExprPtr operand; };

enum class BinaryOp : uint8_t {
  Add, Sub, Mul, Div, FloorDiv, Mod, Pow, MatMul, BitAnd, BitXor, BitOr, Eq, Ne, Lt, Le, Gt, Ge, In, NotIn, Is, IsNot };
struct Binary : Expr { Binary() : Expr(ExprKind::Binary) {} BinaryOp op = BinaryOp::Add; ExprPtr lhs, rhs; };

enum class LogicalOp : uint8_t { And, Or };
struct Logical : Expr { Logical() : Expr(ExprKind::Logical) {} LogicalOp op = LogicalOp::And; ExprPtr lhs, rhs; };

// `a if cond else b`
struct Conditional : Expr {
  Conditional() : Expr(ExprKind::Conditional) {}
  ExprPtr cond, then_value, else_value;
};

const char* op_symbol(BinaryOp op);  // "+", "@", "==", "not in", ...
const char* op_symbol(UnaryOp op);

// ---- statements -------------------------------------------------------------------

enum class StmtKind : uint8_t {
  Expr, Let, Assign, AugAssign, If, While, For, Break, Continue, Return, Fn, Model, Buffer, Import, Context, Test
};

struct Stmt {
  explicit Stmt(StmtKind k) : kind(k) {}
  virtual ~Stmt() = default;
  StmtKind kind;
  SourceSpan span;
};
using StmtPtr = std::unique_ptr<Stmt>;

struct Block {
  std::vector<StmtPtr> stmts;
  SourceSpan span;
};

// A binding target of let and for: a name, or a tuple of patterns ("(x, (y, z))").
struct Pattern {
  std::string name;  // empty for a tuple pattern
  std::vector<Pattern> items;
  SourceSpan span;
  bool is_tuple() const { return name.empty(); }
};

struct Param {
  std::string name;
  ExprPtr default_value;  // null when required
  bool variadic = false;  // *name: the extra positional arguments, as a tuple
  SourceSpan span;
};

// A function: `fn name(params) = expr`, `fn name(params) { block }`, a lambda
// `fn(params) = expr`, or a method of a model (name(params) = expr / { block }).
struct FnDecl {
  std::string name;  // "" for a lambda
  std::vector<Param> params;
  ExprPtr expr_body;  // set for the `= expr` form
  Block block_body;   // otherwise
  std::string doc;    // the docstring: a string literal as the block's first statement (not kept in the block)
  SourceSpan span;
  bool is_static = false;  // a model's `static` method: no self
};

struct Lambda : Expr { Lambda() : Expr(ExprKind::Lambda) {} std::shared_ptr<FnDecl> decl; };

// [x * 2 for x in xs if x > 0] and {k: v for (k, v) in pairs}: the element (a dict's
// key and value) made once for each binding the clauses produce, in order. A clause
// is a loop (`for target in expr`) or a filter (`if expr`); the loop variables are
// the comprehension's own, as in Python (they do not leak into the enclosing scope).
struct ComprehensionClause {
  Pattern target;  // a loop's; unused by a filter
  ExprPtr expr;    // the loop's iterable, or the filter's condition
  bool is_filter() const { return target.name.empty() && target.items.empty(); }
};
struct Comprehension : Expr {
  Comprehension() : Expr(ExprKind::Comprehension) {}
  ExprPtr element;  // a list's item, or a dict's key
  ExprPtr value;    // a dict's value; null for a list
  std::vector<ComprehensionClause> clauses;  // the first is always a loop
};

// ---- walking expressions (Note [Deep expressions]) ----------------------------------

// The child of a chain link that is evaluated first and continues the chain: the
// operand of a unary operator, the left side of a binary or logical operator, the
// object of an attribute or an index, the callee of a call (for a method call
// `x.f(...)`, the object x: the attribute itself is not evaluated on its own). Null
// for any other node.
const Expr* first_operand(const Expr& e);
// Sets e.chain_length and e.height from its operands' (the AST builder calls it on
// every node it makes, after its operands).
void measure(Expr& e);

// Calls f(const Expr&) on each operand that evaluating e evaluates with it (a lambda's
// parameter defaults, not its body, which runs in a call of its own), left to right.
template <class F>
void for_each_operand(const Expr& e, F&& f) {
  auto each = [&](const std::vector<ExprPtr>& v) {
    for (const auto& x : v) f(*x);
  };
  switch (e.kind) {
    case ExprKind::FString:
      for (const auto& p : static_cast<const FString&>(e).parts)
        if (p.expr) f(*p.expr);
      break;
    case ExprKind::List: each(static_cast<const ListLit&>(e).items); break;
    case ExprKind::Tuple: each(static_cast<const TupleLit&>(e).items); break;
    case ExprKind::Dict: {
      auto& d = static_cast<const DictLit&>(e);
      for (size_t k = 0; k < d.keys.size(); ++k) {
        f(*d.keys[k]);
        if (!d.unpacks(k)) f(*d.values[k]);
      }
      break;
    }
    case ExprKind::Attribute: f(*static_cast<const Attribute&>(e).object); break;
    case ExprKind::Index:
      f(*static_cast<const Index&>(e).object);
      each(static_cast<const Index&>(e).items);
      break;
    case ExprKind::Slice: {
      auto& s = static_cast<const Slice&>(e);
      for (const Expr* x : {s.start.get(), s.stop.get(), s.step.get()})
        if (x) f(*x);
      break;
    }
    case ExprKind::Call:
      f(*static_cast<const Call&>(e).callee);
      for (const auto& a : static_cast<const Call&>(e).args) f(*a.value);
      break;
    case ExprKind::Unary: f(*static_cast<const Unary&>(e).operand); break;
    case ExprKind::Binary:
      f(*static_cast<const Binary&>(e).lhs);
      f(*static_cast<const Binary&>(e).rhs);
      break;
    case ExprKind::Logical:
      f(*static_cast<const Logical&>(e).lhs);
      f(*static_cast<const Logical&>(e).rhs);
      break;
    case ExprKind::Conditional: {
      auto& c = static_cast<const Conditional&>(e);
      f(*c.then_value);
      f(*c.cond);
      f(*c.else_value);
      break;
    }
    case ExprKind::Lambda:
      for (const auto& p : static_cast<const Lambda&>(e).decl->params)
        if (p.default_value) f(*p.default_value);
      break;
    case ExprKind::Comprehension: {
      auto& c = static_cast<const Comprehension&>(e);
      for (const auto& clause : c.clauses) f(*clause.expr);
      f(*c.element);
      if (c.value) f(*c.value);
      break;
    }
    default: break;
  }
}

struct ExprStmt : Stmt { ExprStmt() : Stmt(StmtKind::Expr) {} ExprPtr expr; };
struct LetStmt : Stmt { LetStmt() : Stmt(StmtKind::Let) {} Pattern target; ExprPtr value; };
// target is a Name, Attribute, Index, or a TupleLit of those.
struct AssignStmt : Stmt { AssignStmt() : Stmt(StmtKind::Assign) {} ExprPtr target, value; };
struct AugAssignStmt : Stmt {
  AugAssignStmt() : Stmt(StmtKind::AugAssign) {}
  BinaryOp op = BinaryOp::Add;
  ExprPtr target, value;
};
// if / elif ... / else: conds[i] guards blocks[i]; else_block may be empty.
struct IfStmt : Stmt {
  IfStmt() : Stmt(StmtKind::If) {}
  std::vector<ExprPtr> conds;
  std::vector<Block> blocks;
  std::optional<Block> else_block;
};
struct WhileStmt : Stmt { WhileStmt() : Stmt(StmtKind::While) {} ExprPtr cond; Block body; };
struct ForStmt : Stmt { ForStmt() : Stmt(StmtKind::For) {} Pattern target; ExprPtr iterable; Block body; };
struct BreakStmt : Stmt { BreakStmt() : Stmt(StmtKind::Break) {} };
struct ContinueStmt : Stmt { ContinueStmt() : Stmt(StmtKind::Continue) {} };
struct ReturnStmt : Stmt { ReturnStmt() : Stmt(StmtKind::Return) {} ExprPtr value; };  // value may be null
struct FnStmt : Stmt { FnStmt() : Stmt(StmtKind::Fn) {} std::shared_ptr<FnDecl> decl; };

// model Name(params) { fields and methods } — the body runs as the constructor:
// `name = expr` makes a field (a submodule, a parameter if it is a tensor that
// requires grad, else a plain attribute), `buffer name = expr` a buffer, `let` a
// constructor-local variable; `name(params) = expr` / `{...}` define methods.
// `function Name { forward(ctx, ...) {...} backward(ctx, ...) {...} }` is a custom
// differentiable function: a ModelDecl with is_function set and no params.
struct ModelDecl {
  std::string name;
  std::vector<Param> params;
  Block body;  // fields, buffers, lets and other statements, in order
  std::vector<std::shared_ptr<FnDecl>> methods;
  std::string doc;  // the docstring: a string literal as the body's first member (not kept in the body)
  bool is_function = false;
  SourceSpan span;
};
struct ModelStmt : Stmt { ModelStmt() : Stmt(StmtKind::Model) {} std::shared_ptr<ModelDecl> decl; };
// Inside a model body: `buffer name = expr` (fields use AssignStmt to a Name).
struct BufferStmt : Stmt { BufferStmt() : Stmt(StmtKind::Buffer) {} std::string name; ExprPtr value; };

// import nn / import nn as n / import "path/other.dsl" as other
struct ImportStmt : Stmt {
  ImportStmt() : Stmt(StmtKind::Import) {}
  std::string module;  // a stdlib name, or a path when is_path
  std::string alias;   // the name bound (defaults to the module name or file stem)
  bool is_path = false;
};

// no_grad { ... }, enable_grad { ... }, detect_anomaly { ... }, and later
// profile / autocast(dtype=bf16) { ... }: a keyword, optional arguments, a block.
struct ContextStmt : Stmt {
  ContextStmt() : Stmt(StmtKind::Context) {}
  std::string keyword;
  std::vector<Arg> args;
  Block body;
};

// test "name" { ... }: run by `nabla test PATH`, skipped by a plain run.
struct TestStmt : Stmt { TestStmt() : Stmt(StmtKind::Test) {} std::string name; Block body; };

struct Program {
  std::shared_ptr<const SourceFile> file;
  std::vector<StmtPtr> stmts;
};

}  // namespace nabla::lang
