// Parse tree to AST (see lang/ast_builder.hpp).
#include "lang/ast_builder.hpp"

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <unordered_map>

#include "lang/grammar.hpp"
#include "lang/stack_depth.hpp"
#include "lang/string_literals.hpp"

namespace nabla::lang {

namespace g = grammar;
using Node = tao::pegtl::parse_tree::node;

namespace {

// Note [assert is a call]
// assert is the builtin function assert(cond, msg), not Python's statement, so a Python
// habit such as `assert (v - lo) % 3 == 0` parses as `assert(v - lo) % 3 == 0`: it
// asserts only the parenthesized part and then computes with assert's none result, and
// `assert (a == b), "why"` drops the message into a tuple. Both passed or failed for
// the wrong reason, silently. A statement whose leftmost operand is such a call, under
// an operator, a tuple or a conditional, is refused where the program is read.
const Call* assert_call_under_operator(const Expr& e) {
  const Expr* left = &e;
  bool under = false;
  for (;;) {
    if (left->kind == ExprKind::Binary) left = static_cast<const Binary*>(left)->lhs.get();
    else if (left->kind == ExprKind::Logical) left = static_cast<const Logical*>(left)->lhs.get();
    else if (left->kind == ExprKind::Conditional) left = static_cast<const Conditional*>(left)->then_value.get();
    else if (left->kind == ExprKind::Tuple && !static_cast<const TupleLit*>(left)->items.empty())
      left = static_cast<const TupleLit*>(left)->items.front().get();
    else break;
    under = true;
  }
  if (!under || left->kind != ExprKind::Call) return nullptr;
  const Expr& callee = *static_cast<const Call*>(left)->callee;
  if (callee.kind != ExprKind::Name || static_cast<const Name&>(callee).id != "assert") return nullptr;
  return static_cast<const Call*>(left);
}

class Converter {
 public:
  explicit Converter(std::shared_ptr<const SourceFile> file) : file_(std::move(file)) {}

  std::unique_ptr<Program> program(const Node& root) {
    auto prog = std::make_unique<Program>();
    prog->file = file_;
    std::unordered_map<std::string, uint32_t> test_lines;  // name -> line of the first test so named
    for (const auto& child : root.children) {
      prog->stmts.push_back(stmt(*child));
      const Stmt& s = *prog->stmts.back();
      if (s.kind != StmtKind::Test) continue;
      auto [first, inserted] = test_lines.emplace(static_cast<const TestStmt&>(s).name, s.span.line);
      // Names are unique in a file: `nabla test -k` and the reports name tests by them.
      if (!inserted)
        fail(*child, "duplicate test name \"" + clip_for_message(first->first) + "\": the first test so named is at line " +
                         std::to_string(first->second));
    }
    return prog;
  }

 private:
  template <class T>
  bool is(const Node& n) const {
    return n.is_type<T>();
  }

  SourceSpan span(const Node& n) const {
    SourceSpan s;
    s.file = file_;
    auto b = n.begin(), e = n.end();
    s.line = static_cast<uint32_t>(b.line);
    s.col = static_cast<uint32_t>(b.column);
    s.end_line = static_cast<uint32_t>(e.line);
    s.end_col = static_cast<uint32_t>(e.column);
    return s;
  }

  [[noreturn]] void fail(const Node& n, const std::string& message) const { throw SyntaxError{span(n), message}; }

  template <class T>
  std::unique_ptr<T> make(const Node& n) const {
    auto p = std::make_unique<T>();
    p->span = span(n);
    return p;
  }

  // -- expressions --

  // The parse tree nests only as deep as the grammar's capped recursion (lang/parser.hpp);
  // the guard is for a thread with a small stack.
  void check_stack(const Node& n) const {
    if (stack_nearly_full()) fail(n, "expression nests too deeply (the parser's stack is full)");
  }

  ExprPtr expr(const Node& n) {
    check_stack(n);
    ExprPtr e = expr_node(n);
    measure(*e);
    return e;
  }

  ExprPtr expr_node(const Node& n) {
    if (is<g::int_lit>(n)) return int_lit(n);
    if (is<g::float_lit>(n)) return float_lit(n);
    if (is<g::string_lit>(n)) {
      auto e = make<StringLit>(n);
      e->value = unescape(n, n.string_view().substr(1, n.string_view().size() - 2), 1, false);
      return e;
    }
    if (is<g::triple_string_lit>(n)) {
      auto e = make<StringLit>(n);
      // Escapes are checked where they stand (errors point at them), then resolved in
      // the cleaned text, so that an escaped \t or \n is kept as written.
      std::string_view raw = n.string_view().substr(3, n.string_view().size() - 6);
      unescape(n, raw, 3, false);
      e->value = unescape(n, clean_indentation(std::string(raw)), 3, false);
      return e;
    }
    if (is<g::fstring_lit>(n)) return fstring(n);
    if (is<g::true_lit>(n) || is<g::false_lit>(n)) {
      auto e = make<BoolLit>(n);
      e->value = is<g::true_lit>(n);
      return e;
    }
    if (is<g::none_lit>(n)) return make<NoneLit>(n);
    if (is<g::ellipsis>(n)) return make<EllipsisLit>(n);
    if (is<g::identifier>(n)) {
      auto e = make<Name>(n);
      e->id = n.string();
      return e;
    }
    if (is<g::paren_expr>(n) && n.children.size() == 1) return parenthesised(n);
    if (is<g::paren_expr>(n) && n.children.size() > 1 && is<g::comp_for>(*n.children[1]))
      return comprehension_of(n.children, span(n));
    if (is<g::paren_expr>(n) || is<g::expression_list>(n)) return tuple(n);
    if (is_comprehension(n)) return comprehension(n);
    if (is<g::list_lit>(n)) {
      auto e = make<ListLit>(n);
      for (const auto& c : n.children) e->items.push_back(expr(*c));
      return e;
    }
    if (is<g::dict_lit>(n)) {
      auto e = make<DictLit>(n);
      for (const auto& entry : n.children) {
        e->keys.push_back(expr(*entry->children.at(0)));
        e->values.push_back(is<g::dict_unpack>(*entry) ? nullptr : expr(*entry->children.at(1)));
      }
      return e;
    }
    if (is<g::lambda>(n)) {
      auto e = make<Lambda>(n);
      e->decl = function(n, "", 0);
      return e;
    }
    if (is<g::postfix>(n)) return postfix(n);
    if (is<g::power>(n)) return binary_chain(n);
    if (is<g::unary>(n)) return unary(n);
    if (is<g::term>(n) || is<g::arith>(n) || is<g::bitand_expr>(n) || is<g::bitxor_expr>(n) || is<g::bitor_expr>(n) ||
        is<g::comparison>(n))
      return binary_chain(n);
    if (is<g::not_expr>(n)) return unary(n);
    if (is<g::and_expr>(n) || is<g::or_expr>(n)) return logical_chain(n);
    if (is<g::conditional>(n)) {
      auto e = make<Conditional>(n);
      e->then_value = expr(*n.children.at(0));
      e->cond = expr(*n.children.at(1));
      e->else_value = expr(*n.children.at(2));
      return e;
    }
    fail(n, std::string("internal: unexpected parse node ") + std::string(n.type));
  }

  ExprPtr int_lit(const Node& n) {
    std::string text;
    for (char c : n.string_view())
      if (c != '_') text += c;
    auto e = make<IntLit>(n);
    int base = 10;
    const char* first = text.data();
    if (text.size() > 2 && (text[1] == 'x' || text[1] == 'X')) {
      base = 16;
      first += 2;
    }
    auto [ptr, ec] = std::from_chars(first, text.data() + text.size(), e->value, base);
    if (ec != std::errc()) fail(n, "integer literal " + clip_for_message(n.string_view()) + " does not fit in 64 bits");
    return e;
  }

  ExprPtr float_lit(const Node& n) {
    std::string text;
    for (char c : n.string_view())
      if (c != '_') text += c;
    auto e = make<FloatLit>(n);
    e->value = std::strtod(text.c_str(), nullptr);
    return e;
  }

  // The text of a string literal with its escapes resolved (lang/string_literals.hpp).
  std::string unescape(const Node& n, std::string_view raw, size_t offset, bool fstring) const {
    return unescape_literal(span(n), n.string_view(), raw, offset, fstring);
  }

  ExprPtr fstring(const Node& n) {
    auto e = make<FString>(n);
    for (const auto& part : n.children) {
      FString::Part p;
      if (is<g::fstring_text>(*part)) {
        p.text = unescape(*part, part->string_view(), 0, true);
      } else {
        p.expr = expr(*part->children.at(0));
        if (part->children.size() > 1) p.format_spec = part->children[1]->string();
      }
      e->parts.push_back(std::move(p));
    }
    return e;
  }

  // "(x)" is x, spanning its parentheses, so that expressions built on it ("(x).exp()",
  // "2 * (a + b)") span their whole text.
  ExprPtr parenthesised(const Node& n) {
    ExprPtr inner = expr(*n.children.at(0));
    inner->span = span(n);
    return inner;
  }

  ExprPtr tuple(const Node& n) {
    auto e = make<TupleLit>(n);
    for (const auto& c : n.children)
      if (!is<g::trailing_comma>(*c)) e->items.push_back(expr(*c));
    return e;
  }

  // atom (call | index | attribute)*, folded left to right.
  ExprPtr postfix(const Node& n) {
    ExprPtr result = expr(*n.children.at(0));
    for (size_t i = 1; i < n.children.size(); ++i) {
      const Node& s = *n.children[i];
      SourceSpan sp = result->span;
      SourceSpan end = span(s);
      sp.end_line = end.end_line;
      sp.end_col = end.end_col;
      if (is<g::call_suffix>(s)) {
        auto call = std::make_unique<Call>();
        call->span = sp;
        call->callee = std::move(result);
        call->args = arguments(s);
        measure(*call);
        result = std::move(call);
      } else if (is<g::index_suffix>(s)) {
        auto index = std::make_unique<Index>();
        index->span = sp;
        index->object = std::move(result);
        for (const auto& item : s.children) index->items.push_back(index_item(*item));
        measure(*index);
        result = std::move(index);
      } else {
        auto attr = std::make_unique<Attribute>();
        attr->span = sp;
        attr->object = std::move(result);
        attr->name = s.children.at(0)->string();
        measure(*attr);
        result = std::move(attr);
      }
    }
    return result;
  }

  std::vector<Arg> arguments(const Node& call_suffix) {
    std::vector<Arg> args;
    if (call_suffix.children.size() > 1 && is<g::comp_for>(*call_suffix.children[1])) {
      Arg a;
      a.value = generator_argument(call_suffix);
      a.span = a.value->span;
      args.push_back(std::move(a));
      return args;
    }
    bool keyword_seen = false;
    for (const auto& c : call_suffix.children) {
      Arg a;
      a.span = span(*c);
      if (is<g::keyword_arg>(*c)) {
        a.name = c->children.at(0)->string();
        for (const Arg& prev : args)
          if (prev.name == a.name) fail(*c, "keyword argument '" + a.name + "' is given twice");
        a.value = expr(*c->children.at(1));
        keyword_seen = true;
      } else {
        if (keyword_seen) fail(*c, "positional argument after keyword arguments");
        a.splat = is<g::splat_arg>(*c);
        a.value = expr(a.splat ? *c->children.at(0) : *c);
      }
      args.push_back(std::move(a));
    }
    return args;
  }

  // index_item: slice_start alone is an index; with slice_colon, a slice whose
  // bounds are the slice_start, slice_stop and slice_step that are there.
  ExprPtr index_item(const Node& n) {
    bool is_slice = false;
    for (const auto& part : n.children) is_slice |= is<g::slice_colon>(*part);
    if (!is_slice) return expr(*n.children.at(0)->children.at(0));
    auto s = make<Slice>(n);
    for (const auto& part : n.children) {
      if (is<g::slice_colon>(*part)) continue;
      ExprPtr bound = expr(*part->children.at(0));
      if (is<g::slice_start>(*part)) s->start = std::move(bound);
      if (is<g::slice_stop>(*part)) s->stop = std::move(bound);
      if (is<g::slice_step>(*part)) s->step = std::move(bound);
    }
    measure(*s);
    return s;
  }

  // unary_op* power, or not_op* comparison: the operators apply right to left.
  ExprPtr unary(const Node& n) {
    ExprPtr operand = expr(*n.children.back());
    for (size_t i = n.children.size() - 1; i-- > 0;) {
      const Node& op = *n.children[i];
      auto u = std::make_unique<Unary>();
      u->span = span(op);
      u->span.end_line = operand->span.end_line;
      u->span.end_col = operand->span.end_col;
      std::string_view text = op.string_view();
      u->op = text == "-" ? UnaryOp::Neg : text == "+" ? UnaryOp::Pos : text == "~" ? UnaryOp::Invert : UnaryOp::Not;
      u->operand = std::move(operand);
      measure(*u);
      operand = std::move(u);
    }
    return operand;
  }

  static BinaryOp binary_op(std::string_view t) {
    static const std::pair<std::string_view, BinaryOp> ops[] = {
        {"+", BinaryOp::Add},       {"-", BinaryOp::Sub}, {"*", BinaryOp::Mul},  {"/", BinaryOp::Div},
        {"//", BinaryOp::FloorDiv}, {"%", BinaryOp::Mod}, {"**", BinaryOp::Pow}, {"@", BinaryOp::MatMul},
        {"==", BinaryOp::Eq},       {"!=", BinaryOp::Ne}, {"<", BinaryOp::Lt},   {"<=", BinaryOp::Le},
        {">", BinaryOp::Gt},        {">=", BinaryOp::Ge}, {"in", BinaryOp::In},  {"&", BinaryOp::BitAnd},
        {"^", BinaryOp::BitXor},    {"|", BinaryOp::BitOr}};
    for (const auto& [text, op] : ops)
      if (t == text) return op;
    if (t == "is") return BinaryOp::Is;
    if (t.starts_with("is")) return BinaryOp::IsNot;  // "is not" (with any spacing)
    return BinaryOp::NotIn;                           // "not in" (with any spacing)
  }

  // operand (op operand)*: left associative, except ** whose chain the grammar
  // already nests to the right.
  ExprPtr binary_chain(const Node& n) {
    ExprPtr lhs = expr(*n.children.at(0));
    for (size_t i = 1; i + 1 < n.children.size(); i += 2) {
      auto b = std::make_unique<Binary>();
      b->op = binary_op(n.children[i]->string_view());
      b->rhs = expr(*n.children[i + 1]);
      b->span = lhs->span;
      b->span.end_line = b->rhs->span.end_line;
      b->span.end_col = b->rhs->span.end_col;
      b->lhs = std::move(lhs);
      measure(*b);
      lhs = std::move(b);
    }
    return lhs;
  }

  ExprPtr logical_chain(const Node& n) {
    ExprPtr lhs = expr(*n.children.at(0));
    for (size_t i = 1; i + 1 < n.children.size(); i += 2) {
      auto l = std::make_unique<Logical>();
      l->op = is<g::op_and>(*n.children[i]) ? LogicalOp::And : LogicalOp::Or;
      l->rhs = expr(*n.children[i + 1]);
      l->span = lhs->span;
      l->span.end_line = l->rhs->span.end_line;
      l->span.end_col = l->rhs->span.end_col;
      l->lhs = std::move(lhs);
      measure(*l);
      lhs = std::move(l);
    }
    return lhs;
  }

  // -- functions, parameters, patterns --

  // Appends the parameter node c to params, with Python's rules: names are unique, at
  // most one *rest, and before it a parameter without a default cannot follow one with
  // a default (after it every parameter is keyword-only, so any order is fine).
  void add_param(const Node& c, std::vector<Param>& params) {
    Param p;
    p.span = span(c);
    size_t k = 0;
    if (is<g::param_star>(*c.children.at(0))) {
      p.variadic = true;
      ++k;
    }
    p.name = c.children.at(k)->string();
    if (c.children.size() > k + 1) p.default_value = expr(*c.children[k + 1]->children.at(0));
    bool default_seen = false, star_seen = false;
    for (const Param& prev : params) {
      if (prev.name == p.name) fail(c, "parameter '" + p.name + "' appears twice");
      default_seen |= prev.default_value != nullptr;
      star_seen |= prev.variadic;
    }
    if (p.variadic && star_seen) fail(c, "only one *parameter is allowed");
    if (p.variadic && p.default_value) fail(c, "*" + p.name + " cannot have a default (it is always a tuple)");
    if (!p.variadic && !star_seen && !p.default_value && default_seen)
      fail(c, "parameter '" + p.name + "' without a default follows one with a default");
    params.push_back(std::move(p));
  }

  // A block's docstring: its first statement when that is a plain string literal,
  // taken out of the block (as in Python, it documents and does nothing).
  static std::string take_docstring(std::vector<StmtPtr>& stmts) {
    if (stmts.empty() || stmts.front()->kind != StmtKind::Expr) return "";
    const Expr& e = *static_cast<const ExprStmt&>(*stmts.front()).expr;
    if (e.kind != ExprKind::String) return "";
    std::string doc = static_cast<const StringLit&>(e).value;
    stmts.erase(stmts.begin());
    return doc;
  }

  // children[first..]: param* then the body (an expression or a block).
  std::shared_ptr<FnDecl> function(const Node& n, std::string name, size_t first) {
    auto decl = std::make_shared<FnDecl>();
    decl->name = std::move(name);
    decl->span = span(n);
    for (size_t i = first; i < n.children.size(); ++i) {
      const Node& c = *n.children[i];
      if (is<g::param>(c)) {
        add_param(c, decl->params);
      } else if (is<g::block>(c)) {
        decl->block_body = block(c);
        decl->doc = take_docstring(decl->block_body.stmts);
      } else {
        decl->expr_body = expr(c);
      }
    }
    return decl;
  }

  // A list or dict whose first item is followed by `for` clauses.
  bool is_comprehension(const Node& n) const {
    return (is<g::list_lit>(n) || is<g::dict_lit>(n)) && n.children.size() > 1 && is<g::comp_for>(*n.children[1]);
  }

  ExprPtr comprehension(const Node& n) {
    if (is<g::dict_unpack>(*n.children[0]))
      fail(*n.children[0], "a dict comprehension cannot unpack a mapping ('**'); write {k: v for (k, v) in m.items()}");
    return comprehension_of(n.children, span(n));
  }

  // f(x for x in xs): a list comprehension (Note [A generator as a call's argument], grammar.hpp)
  ExprPtr generator_argument(const Node& call_suffix) {
    const auto& parts = call_suffix.children;
    const Node& first = *parts.at(0);
    if (is<g::keyword_arg>(first) || is<g::splat_arg>(first))
      fail(first, "a generator expression must be the call's only argument, not a keyword or * argument: write a list comprehension [x for x in xs]");
    SourceSpan sp = span(first);
    const SourceSpan last = span(*parts.back());
    sp.end_line = last.end_line;
    sp.end_col = last.end_col;
    return comprehension_of(parts, sp);
  }

  ExprPtr comprehension_of(const std::vector<std::unique_ptr<Node>>& parts, const SourceSpan& sp) {
    auto e = std::make_unique<Comprehension>();
    e->span = sp;
    const Node& first = *parts[0];
    if (is<g::dict_entry>(first)) {
      e->element = expr(*first.children.at(0));
      e->value = expr(*first.children.at(1));
    } else {
      e->element = expr(first);
    }
    for (size_t k = 1; k < parts.size(); ++k) {
      const Node& c = *parts[k];
      ComprehensionClause clause;
      if (is<g::comp_for>(c)) clause.target = pattern(*c.children.at(0));
      clause.expr = expr(*c.children.back());
      e->clauses.push_back(std::move(clause));
    }
    return e;
  }

  Pattern pattern(const Node& n) {
    Pattern p;
    p.span = span(n);
    if (is<g::identifier>(n)) {
      p.name = n.string();
      return p;
    }
    if (is<g::for_target>(n) && n.children.size() == 1) return pattern(*n.children[0]);
    for (const auto& c : n.children) p.items.push_back(pattern(*c));
    return p;
  }

  // -- statements --

  Block block(const Node& n) {
    Block b;
    b.span = span(n);
    for (const auto& c : n.children) b.stmts.push_back(stmt(*c));
    return b;
  }

  StmtPtr stmt(const Node& n) {
    check_stack(n);
    if (is<g::expr_stmt>(n)) return expr_stmt(n);
    if (is<g::let_stmt>(n)) {
      auto s = make<LetStmt>(n);
      s->target = pattern(*n.children.at(0));
      s->value = expr(*n.children.at(1));
      return s;
    }
    if (is<g::fn_stmt>(n)) {
      auto s = make<FnStmt>(n);
      s->decl = function(n, n.children.at(0)->string(), 1);
      return s;
    }
    if (is<g::model_stmt>(n) || is<g::function_stmt>(n)) return model(n);
    if (is<g::if_stmt>(n)) return if_stmt(n);
    if (is<g::while_stmt>(n)) {
      auto s = make<WhileStmt>(n);
      s->cond = expr(*n.children.at(0));
      s->body = block(*n.children.at(1));
      return s;
    }
    if (is<g::for_stmt>(n)) {
      auto s = make<ForStmt>(n);
      s->target = pattern(*n.children.at(0));
      s->iterable = expr(*n.children.at(1));
      s->body = block(*n.children.at(2));
      return s;
    }
    if (is<g::break_stmt>(n)) return make<BreakStmt>(n);
    if (is<g::continue_stmt>(n)) return make<ContinueStmt>(n);
    if (is<g::return_stmt>(n)) {
      auto s = make<ReturnStmt>(n);
      if (!n.children.empty()) s->value = expr(*n.children[0]);
      return s;
    }
    if (is<g::import_stmt>(n)) return import_stmt(n);
    if (is<g::context_stmt>(n)) {
      auto s = make<ContextStmt>(n);
      s->keyword = n.children.at(0)->string();
      for (size_t i = 1; i < n.children.size(); ++i) {
        if (is<g::call_suffix>(*n.children[i]))
          s->args = arguments(*n.children[i]);
        else
          s->body = block(*n.children[i]);
      }
      return s;
    }
    if (is<g::test_stmt>(n)) {
      auto s = make<TestStmt>(n);
      const Node& name = *n.children.at(0);
      s->name = unescape(name, name.string_view().substr(1, name.string_view().size() - 2), 1, false);
      s->body = block(*n.children.at(1));
      return s;
    }
    if (is<g::buffer_stmt>(n)) fail(n, "'buffer' declares a model's buffer; it is only allowed in a model body");
    fail(n, std::string("internal: unexpected statement node ") + std::string(n.type));
  }

  // Checks that e can be assigned to: a name, an attribute, an index, or a tuple of those.
  void check_target(const Expr& e) const {
    switch (e.kind) {
      case ExprKind::Name:
      case ExprKind::Attribute:
      case ExprKind::Index:
        return;
      case ExprKind::Tuple:
        for (const auto& item : static_cast<const TupleLit&>(e).items) check_target(*item);
        return;
      case ExprKind::Call:
        throw SyntaxError{e.span, "cannot assign to a function call"};
      default:
        throw SyntaxError{e.span, "cannot assign to this expression (expected a name, an attribute or an index)"};
    }
  }

  StmtPtr expr_stmt(const Node& n) {
    ExprPtr first = expr(*n.children.at(0));
    if (n.children.size() == 1) {
      if (assert_call_under_operator(*first))  // Note [assert is a call]
        fail(n, "assert is a function here: this statement asserts only the parenthesized part right after 'assert' "
                "and uses its result; put the whole condition inside its parentheses, as assert(cond) or "
                "assert(cond, msg)");
      auto s = make<ExprStmt>(n);
      s->expr = std::move(first);
      return s;
    }
    const Node& tail = *n.children[1];
    check_target(*first);
    if (is<g::assign_tail>(tail)) {
      auto s = make<AssignStmt>(n);
      s->target = std::move(first);
      s->value = expr(*tail.children.at(0));
      return s;
    }
    if (first->kind == ExprKind::Tuple) throw SyntaxError{first->span, "augmented assignment needs a single target"};
    auto s = make<AugAssignStmt>(n);
    std::string_view op = tail.children.at(0)->string_view();
    s->op = binary_op(op.substr(0, op.size() - 1));
    s->target = std::move(first);
    s->value = expr(*tail.children.at(1));
    return s;
  }

  StmtPtr if_stmt(const Node& n) {
    auto s = make<IfStmt>(n);
    s->conds.push_back(expr(*n.children.at(0)));
    s->blocks.push_back(block(*n.children.at(1)));
    for (size_t i = 2; i < n.children.size(); ++i) {
      const Node& c = *n.children[i];
      if (is<g::elif_clause>(c)) {
        s->conds.push_back(expr(*c.children.at(0)));
        s->blocks.push_back(block(*c.children.at(1)));
      } else {
        s->else_block = block(*c.children.at(0));
      }
    }
    return s;
  }

  StmtPtr import_stmt(const Node& n) {
    auto s = make<ImportStmt>(n);
    const Node& target = *n.children.at(0);
    if (is<g::string_lit>(target)) {
      s->is_path = true;
      s->module = unescape(target, target.string_view().substr(1, target.string_view().size() - 2), 1, false);
      std::string stem = s->module.substr(s->module.find_last_of('/') + 1);
      s->alias = stem.substr(0, stem.find('.'));
    } else {
      s->module = target.string();
      s->alias = s->module.substr(s->module.find_last_of('.') + 1);
    }
    if (n.children.size() > 1) s->alias = n.children[1]->children.at(0)->string();
    if (s->is_path && n.children.size() == 1 && !is_identifier(s->alias))
      fail(target, "import of \"" + s->module + "\" needs 'as NAME' (its file name is not a valid name)");
    return s;
  }

  static bool is_identifier(const std::string& s) {
    if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
    for (char c : s)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
    return true;
  }

  StmtPtr model(const Node& n) {
    auto s = make<ModelStmt>(n);
    auto decl = std::make_shared<ModelDecl>();
    decl->name = n.children.at(0)->string();
    decl->is_function = is<g::function_stmt>(n);
    decl->span = span(n);
    for (size_t i = 1; i < n.children.size(); ++i) {
      const Node& c = *n.children[i];
      if (is<g::param>(c)) {
        add_param(c, decl->params);
        continue;
      }
      decl->body.span = span(c);  // the model_body
      for (const auto& member : c.children) {
        if (is<g::method_def>(*member)) {
          decl->methods.push_back(function(*member, member->children.at(0)->string(), 1));
        } else if (is<g::static_method>(*member)) {
          const Node& method = *member->children.at(0);
          decl->methods.push_back(function(method, method.children.at(0)->string(), 1));
          decl->methods.back()->is_static = true;
        } else if (is<g::buffer_stmt>(*member)) {
          auto b = make<BufferStmt>(*member);
          b->name = member->children.at(0)->string();
          b->value = expr(*member->children.at(1));
          decl->body.stmts.push_back(std::move(b));
        } else {
          decl->body.stmts.push_back(stmt(*member));
        }
        if (member == c.children.front()) decl->doc = take_docstring(decl->body.stmts);
      }
    }
    s->decl = std::move(decl);
    return s;
  }

  std::shared_ptr<const SourceFile> file_;
};

}  // namespace

std::unique_ptr<Program> build_ast(const Node& root, std::shared_ptr<const SourceFile> file) {
  return Converter(std::move(file)).program(root);
}

}  // namespace nabla::lang
