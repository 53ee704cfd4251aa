// The PEGTL grammar of the nabla language. A prose comment above each rule says
// what it matches; docs/LANGUAGE.md gives the same grammar for users. Rules whose
// name starts with `expect_` are commitments: once the parser reaches them the
// input can only be this, so their failure is a syntax error with the message of
// lang/parser.cpp's error table (PEGTL's must_if). Everything else backtracks.
//
// Newlines end statements. Inside brackets, and after a binary operator, comma or
// opening bracket, newlines are plain whitespace, so long calls and lists can span
// lines.
#pragma once
#include <tao/pegtl.hpp>

#include "lang/stack_depth.hpp"

namespace nabla::lang::grammar {

namespace p = tao::pegtl;

// ---- nesting ----------------------------------------------------------------------

// The parser's state: how deeply the expressions being read nest.
struct Nesting {
  int depth = 0;
  int limit = 0;     // the most levels allowed (kMaxNesting)
  int brackets = 0;  // how many ( [ { the expression being read is inside
};

// Rule, one nesting level deeper: the grammar's recursion (an expression inside
// brackets, `**`'s right side, `else`'s, a lambda's body, an f-string field) goes
// through here, and past `limit` levels, or with the native stack nearly full, the
// parse stops with an error at the start of the level that was one too many. The
// chains the grammar reads with loops (a + b + ..., x.f().g()..., - - x) do not
// nest. See Note [Deep expressions] in lang/ast.hpp.
template <typename Rule>
struct nested {
  using rule_t = typename p::seq<Rule>::rule_t;  // analyze<> sees seq<Rule>
  using subs_t = p::type_list<Rule>;

  template <p::apply_mode A, p::rewind_mode M, template <typename...> class Action,
            template <typename...> class Control, typename ParseInput, typename... States>
  static bool match(ParseInput& in, Nesting& nesting, States&&... st) {
    if (nesting.depth >= nesting.limit)
      throw p::parse_error("expressions nest deeper than " + std::to_string(nesting.limit - 1) + " levels", in);
    if (stack_nearly_full()) throw p::parse_error("expressions nest too deeply (the parser's stack is full)", in);
    ++nesting.depth;
    struct Leave {
      Nesting& n;
      ~Leave() { --n.depth; }
    } leave{nesting};
    return Control<Rule>::template match<A, M, Action, Control>(in, nesting, st...);
  }
};

// ---- whitespace and comments ----------------------------------------------------

// Note [Line breaks inside brackets]
// As in Python, a line break inside ( ), [ ] or { } does not end the statement
// anywhere, also before an operator, a call, an index or `.name`, which PEP 8 asks
// for: `loss = (recon\n        + beta * kl)`, `(x\n  .sum())`. Outside brackets a line
// break still ends the statement, so `a\n-b` stays two statements. The bracketed
// parts of expressions go through `bracketed`, which counts the depth, and the space
// before an operator or a postfix is `op_ws`: wsnl inside brackets, ws outside.
template <typename Rule>
struct bracketed {
  using rule_t = typename p::seq<Rule>::rule_t;
  using subs_t = p::type_list<Rule>;

  template <p::apply_mode A, p::rewind_mode M, template <typename...> class Action,
            template <typename...> class Control, typename ParseInput, typename... States>
  static bool match(ParseInput& in, Nesting& nesting, States&&... st) {
    ++nesting.brackets;
    struct Leave {
      Nesting& n;
      ~Leave() { --n.brackets; }
    } leave{nesting};
    return Control<Rule>::template match<A, M, Action, Control>(in, nesting, st...);
  }
};

// A comment runs from '#' to the end of the line.
struct comment : p::seq<p::one<'#'>, p::until<p::at<p::eolf>>> {};
// A backslash at the end of a line joins it with the next.
struct line_join : p::seq<p::one<'\\'>, p::star<p::blank>, p::eol> {};
// Spaces within a line (and comments, and joined lines).
struct ws : p::star<p::sor<p::blank, line_join, comment>> {};
// Spaces including newlines: inside brackets and after operators.
struct wsnl : p::star<p::sor<p::space, comment>> {};
// Before an operator or a postfix: Note [Line breaks inside brackets].
struct op_ws {
  using rule_t = typename p::sor<wsnl, ws>::rule_t;
  using subs_t = p::type_list<wsnl, ws>;

  template <p::apply_mode A, p::rewind_mode M, template <typename...> class Action,
            template <typename...> class Control, typename ParseInput, typename... States>
  static bool match(ParseInput& in, Nesting& nesting, States&&... st) {
    if (nesting.brackets > 0) return Control<wsnl>::template match<A, M, Action, Control>(in, nesting, st...);
    return Control<ws>::template match<A, M, Action, Control>(in, nesting, st...);
  }
};

// ---- identifiers and keywords ---------------------------------------------------

struct kw_let : TAO_PEGTL_KEYWORD("let") {};
struct kw_fn : TAO_PEGTL_KEYWORD("fn") {};
struct kw_model : TAO_PEGTL_KEYWORD("model") {};
struct kw_function : TAO_PEGTL_KEYWORD("function") {};
struct kw_buffer : TAO_PEGTL_KEYWORD("buffer") {};
struct kw_static : TAO_PEGTL_KEYWORD("static") {};
struct kw_if : TAO_PEGTL_KEYWORD("if") {};
struct kw_elif : TAO_PEGTL_KEYWORD("elif") {};
struct kw_else : TAO_PEGTL_KEYWORD("else") {};
struct kw_while : TAO_PEGTL_KEYWORD("while") {};
struct kw_for : TAO_PEGTL_KEYWORD("for") {};
struct kw_in : TAO_PEGTL_KEYWORD("in") {};
struct kw_break : TAO_PEGTL_KEYWORD("break") {};
struct kw_continue : TAO_PEGTL_KEYWORD("continue") {};
struct kw_return : TAO_PEGTL_KEYWORD("return") {};
struct kw_import : TAO_PEGTL_KEYWORD("import") {};
struct kw_as : TAO_PEGTL_KEYWORD("as") {};
struct kw_true : TAO_PEGTL_KEYWORD("true") {};
struct kw_false : TAO_PEGTL_KEYWORD("false") {};
struct kw_none : TAO_PEGTL_KEYWORD("none") {};
struct kw_and : TAO_PEGTL_KEYWORD("and") {};
struct kw_or : TAO_PEGTL_KEYWORD("or") {};
struct kw_not : TAO_PEGTL_KEYWORD("not") {};
struct kw_test : TAO_PEGTL_KEYWORD("test") {};
// `is` is an operator but not reserved (Python's identity test; a name `is` still parses).
struct kw_is : TAO_PEGTL_KEYWORD("is") {};

// Reserved words cannot be names.
struct keyword : p::sor<kw_let, kw_fn, kw_if, kw_elif, kw_else, kw_while, kw_for,
                        kw_in, kw_break, kw_continue, kw_return, kw_import, kw_as, kw_true, kw_false, kw_none,
                        kw_and, kw_or, kw_not> {};
// A name: letters, digits and '_', not starting with a digit, not a keyword.
struct identifier : p::seq<p::not_at<keyword>, p::identifier> {};

// ---- literals -----------------------------------------------------------------

struct digits : p::plus<p::sor<p::digit, p::seq<p::one<'_'>, p::at<p::digit>>>> {};
struct exponent : p::seq<p::one<'e', 'E'>, p::opt<p::one<'+', '-'>>, digits> {};
// 1.5, 1., .5, 1e-3, 2.5e10 (a float has a '.' or an exponent).
struct float_lit : p::sor<p::seq<digits, p::one<'.'>, p::not_at<p::one<'.'>>, p::not_at<p::identifier_first>,
                                 p::opt<digits>, p::opt<exponent>>,
                          p::seq<p::one<'.'>, digits, p::opt<exponent>>, p::seq<digits, exponent>> {};
// 42, 1_000_000, 0x1f
struct int_lit : p::sor<p::seq<p::one<'0'>, p::one<'x', 'X'>, p::plus<p::xdigit>>, digits> {};

// A backslash escape: \n \t \r \0 \\ \" \' \{ \} \xHH \u{HHHH}.
struct escape : p::seq<p::one<'\\'>, p::sor<p::one<'n', 't', 'r', '0', '\\', '"', '\'', '{', '}'>,
                                           p::seq<p::one<'x'>, p::xdigit, p::xdigit>,
                                           p::seq<p::one<'u'>, p::one<'{'>, p::rep_min_max<1, 6, p::xdigit>,
                                                  p::one<'}'>>>> {};
struct expect_escape : escape {};
template <char Q>
struct string_char : p::sor<p::seq<p::at<p::one<'\\'>>, expect_escape>, p::not_one<Q, '\n', '\\'>> {};
struct expect_dquote : p::one<'"'> {};
struct expect_squote : p::one<'\''> {};
// "text" or 'text' on one line.
struct string_lit : p::sor<p::seq<p::one<'"'>, p::star<string_char<'"'>>, expect_dquote>,
                           p::seq<p::one<'\''>, p::star<string_char<'\''>>, expect_squote>> {};

// """text""" or '''text''': may span lines, with the escapes of "text"; the AST
// builder cleans the indentation as Python's inspect.cleandoc does (docstrings).
template <char Q>
struct triple_quote : p::string<Q, Q, Q> {};
template <char Q>
struct triple_char : p::sor<p::seq<p::at<p::one<'\\'>>, expect_escape>,
                            p::seq<p::not_at<triple_quote<Q>>, p::not_one<'\\'>>> {};
struct expect_triple_dquote : triple_quote<'"'> {};
struct expect_triple_squote : triple_quote<'\''> {};
struct triple_string_lit : p::sor<p::seq<triple_quote<'"'>, p::star<triple_char<'"'>>, expect_triple_dquote>,
                                  p::seq<triple_quote<'\''>, p::star<triple_char<'\''>>, expect_triple_squote>> {};

struct expression;
// Literal text of an f-string: anything but a quote, a brace or a newline; '{{' and
// '}}' stand for braces.
struct fstring_text : p::plus<p::sor<p::seq<p::at<p::one<'\\'>>, expect_escape>, p::string<'{', '{'>,
                                     p::string<'}', '}'>, p::not_one<'"', '{', '}', '\n', '\\'>>> {};
// After ':' in a replacement field: Python's format mini-language ("8.3f", ">10"). A
// '{' there would open a nested field (f"{x:>{w}}"), which nabla does not have: said so
// at the '{', where the parse went on to a confusing "expected '\"'" at the string's end.
struct err_nested_spec : p::failure {};
struct format_spec : p::seq<p::star<p::not_one<'}', '\n', '"', '{'>>, p::opt<p::at<p::one<'{'>>, err_nested_spec>> {};
struct expect_fstring_close : p::one<'}'> {};
struct err_field_expr : p::failure {};
struct expect_field_expr : p::sor<p::seq<expression>, err_field_expr> {};
// Python's {x!r} and {x=} after the expression, named rather than "expected '}'".
struct err_fstring_conversion : p::failure {};
struct err_fstring_self_doc : p::failure {};
struct fstring_python_forms : p::opt<p::sor<p::seq<p::at<p::one<'!'>>, err_fstring_conversion>,
                                            p::seq<p::at<p::one<'='>>, err_fstring_self_doc>>> {};
// {expr} or {expr:spec} inside an f-string.
struct fstring_field : p::seq<p::one<'{'>, wsnl, expect_field_expr, wsnl, fstring_python_forms,
                              p::opt<p::one<':'>, format_spec>, expect_fstring_close> {};
// f"loss {loss:.4f} after {step} steps"
struct fstring_lit : p::seq<p::one<'f'>, p::one<'"'>, p::star<p::sor<fstring_text, fstring_field>>, expect_dquote> {};

struct true_lit : kw_true {};
struct false_lit : kw_false {};
struct none_lit : kw_none {};
struct ellipsis : p::string<'.', '.', '.'> {};

// ---- Python habits --------------------------------------------------------------
// Spellings from Python (and C) that are not nabla's. Each is recognised where it
// starts and fails there at once with a one-line hint naming nabla's form
// (lang/parser.cpp's error table), instead of a generic error a few tokens later.
// Only spellings that can never be valid nabla are caught: `lambda` stays a name
// (`let lambda = 0.5`) unless a parameter or ':' follows it.

// `True`, `False`, `None`: nabla's constants are lower case.
struct err_py_true : p::failure {};
struct err_py_false : p::failure {};
struct err_py_none : p::failure {};
struct py_constant : p::sor<p::seq<p::at<TAO_PEGTL_KEYWORD("True")>, err_py_true>,
                            p::seq<p::at<TAO_PEGTL_KEYWORD("False")>, err_py_false>,
                            p::seq<p::at<TAO_PEGTL_KEYWORD("None")>, err_py_none>> {};
// lambda x: x + 1
struct err_py_lambda : p::failure {};
struct py_lambda : p::seq<TAO_PEGTL_KEYWORD("lambda"), ws, p::sor<p::identifier_first, p::one<':'>>> {};
// !x (but not !=)
struct err_py_not : p::failure {};
struct py_not : p::seq<p::one<'!'>, p::not_at<p::one<'='>>> {};
// Where an atom may start.
struct py_atom_habit : p::sor<p::seq<p::at<py_lambda>, err_py_lambda>, p::seq<p::at<py_not>, err_py_not>,
                              py_constant> {};

// a << b, a >> b: no bit shifts.
struct err_py_shift : p::failure {};
struct no_shift : p::sor<p::not_at<ws, p::sor<p::string<'<', '<'>, p::string<'>', '>'>>>,
                         p::seq<ws, err_py_shift>> {};
// a && b, a || b: after a whole or_expr, where nothing else may follow.
struct err_py_and : p::failure {};
struct err_py_or : p::failure {};
struct no_c_logic : p::sor<p::not_at<ws, p::sor<p::string<'&', '&'>, p::string<'|', '|'>>>,
                           p::seq<ws, p::sor<p::seq<p::at<p::one<'&'>>, err_py_and>, err_py_or>>> {};

// def f(x):, class Net:, with no_grad:, from nn import Linear: where a statement starts.
struct err_py_def : p::failure {};
struct err_py_class : p::failure {};
struct err_py_with : p::failure {};
struct err_py_from : p::failure {};
template <typename Word>
struct py_word_then_name : p::seq<Word, ws, p::identifier_first> {};
// @torch.no_grad() or @staticmethod above a function: Python's decorators.
struct err_py_decorator : p::failure {};
// assert x.shape == (2, 3), "why": Python's assert statement (nabla's assert is a call;
// `assert (c) ...` with a parenthesis is Note [assert is a call]'s, in ast_builder.cpp).
struct err_py_assert : p::failure {};
struct py_assert_statement
    : p::seq<TAO_PEGTL_KEYWORD("assert"), p::plus<p::blank>, p::not_at<p::one<'(', '=', '.', ',', ')', '[', '#'>>,
             p::not_at<p::eolf>> {};
struct py_statement_habit
    : p::sor<p::seq<p::at<p::one<'@'>, p::identifier_first>, err_py_decorator>,
             p::seq<p::at<py_assert_statement>, err_py_assert>,
             p::seq<p::at<py_word_then_name<TAO_PEGTL_KEYWORD("def")>>, err_py_def>,
             p::seq<p::at<py_word_then_name<TAO_PEGTL_KEYWORD("class")>>, err_py_class>,
             p::seq<p::at<py_word_then_name<TAO_PEGTL_KEYWORD("with")>>, err_py_with>,
             p::seq<p::at<py_word_then_name<TAO_PEGTL_KEYWORD("from")>>, err_py_from>> {};

// f(a, x for x in xs): a generator expression beside other arguments; comprehensions
// are list and dict ones, f(x for x in xs) and (x for x in xs).
struct err_py_generator : p::failure {};
struct no_generator : p::sor<p::not_at<TAO_PEGTL_KEYWORD("for")>, err_py_generator> {};
// f(x for x in xs, 1): a generator argument with others after it.
struct no_generator_sibling : p::sor<p::not_at<p::one<','>>, err_py_generator> {};

// if x: / for i in xs: / fn f(x): / model M: (blocks are braces) and `else if`.
struct err_py_colon_block : p::failure {};
struct py_colon_block : p::seq<p::at<p::one<':'>>, err_py_colon_block> {};
struct err_py_else_if : p::failure {};

// ---- expressions ----------------------------------------------------------------

struct err_expression : p::failure {};
struct expect_expression : p::sor<p::seq<expression>, err_expression> {};
struct expect_rparen : p::one<')'> {};
struct expect_rbracket : p::one<']'> {};
struct expect_rbrace : p::one<'}'> {};
struct expect_colon : p::one<':'> {};

// ( ), (x), (x,), (x, y): a parenthesised expression or a tuple.
struct trailing_comma : p::one<','> {};
struct comp_clauses;
struct paren_rest : p::seq<p::star<p::one<','>, wsnl, expression, wsnl>, p::opt<trailing_comma, wsnl>> {};
// (x for x in xs): a parenthesised generator reads as a list comprehension, as a call's
// only argument does (Note [A generator as a call's argument], below).
struct paren_items : p::seq<expression, wsnl, p::sor<p::seq<comp_clauses, no_generator_sibling>, paren_rest>> {};
struct paren_expr : p::seq<p::one<'('>, wsnl, bracketed<p::opt<paren_items>>, no_generator, expect_rparen> {};
// ---- comprehensions
// The clauses after a comprehension's first expression: `for TARGET in xs`, then more
// loops and `if cond` filters. The iterables and conditions are or_exprs, as in
// Python, so that `for x in xs if c` reads `if c` as a filter, not as the start of a
// conditional expression. The first expression is read once, and then either
// clauses or more items follow: trying a comprehension first and a plain list after
// it would read nested lists twice per level.
struct or_expr;
struct expect_for_target;
struct expect_in;
struct err_comp_iterable : p::failure {};
struct expect_comp_iterable : p::sor<p::seq<or_expr>, err_comp_iterable> {};
struct err_comp_condition : p::failure {};
struct expect_comp_condition : p::sor<p::seq<or_expr>, err_comp_condition> {};
struct comp_for : p::seq<kw_for, ws, expect_for_target, ws, expect_in, wsnl, expect_comp_iterable> {};
struct comp_if : p::seq<kw_if, ws, expect_comp_condition> {};
struct comp_clauses : p::seq<comp_for, wsnl, p::star<p::sor<comp_for, comp_if>, wsnl>> {};
// [a, b, c] or [x * 2 for x in xs if x > 0]
struct list_rest : p::seq<p::star<p::one<','>, wsnl, expression, wsnl>, p::opt<p::one<','>, wsnl>> {};
struct list_items : p::seq<expression, wsnl, p::sor<comp_clauses, list_rest>> {};
struct list_lit : p::seq<p::one<'['>, wsnl, bracketed<p::opt<list_items>>, expect_rbracket> {};
// {"a": 1, "b": 2} or {k: v * 2 for (k, v) in pairs}
struct dict_entry : p::seq<expression, wsnl, expect_colon, wsnl, expect_expression> {};
// {**params, **buffers}: a mapping's items unpacked in place (Python's dict display)
struct dict_unpack : p::seq<p::two<'*'>, ws, expect_expression> {};
struct dict_item : p::sor<dict_unpack, dict_entry> {};
struct dict_rest : p::seq<p::star<p::one<','>, wsnl, dict_item, wsnl>, p::opt<p::one<','>, wsnl>> {};
struct dict_items : p::seq<dict_item, wsnl, p::sor<comp_clauses, dict_rest>> {};
struct dict_lit : p::seq<p::one<'{'>, wsnl, bracketed<p::opt<dict_items>>, expect_rbrace> {};

// A parameter with an optional default: lr=0.01; or *rest, which collects the extra
// positional arguments into a tuple (the parameters after it are keyword-only).
struct param_default : p::seq<p::one<'='>, p::not_at<p::one<'='>>, wsnl, expect_expression> {};
struct param_star : p::one<'*'> {};
struct param : p::seq<p::opt<param_star, ws>, identifier, ws, p::opt<param_default>> {};
struct param_list : p::seq<param, wsnl, p::star<p::one<','>, wsnl, param, wsnl>, p::opt<p::one<','>, wsnl>> {};
struct params : p::seq<p::one<'('>, wsnl, p::opt<param_list>, p::one<')'>> {};
struct err_params : p::failure {};
struct expect_params : p::sor<p::seq<p::one<'('>, wsnl, p::opt<param_list>, expect_rparen>, err_params> {};
// fn(x, y) = x * y : an anonymous function.
struct expect_equals_body : p::one<'='> {};
struct lambda : p::seq<kw_fn, ws, p::at<p::one<'('>>, expect_params, ws, expect_equals_body, wsnl,
                       expect_expression> {};

// The smallest expressions.
struct atom : p::sor<fstring_lit, float_lit, int_lit, triple_string_lit, string_lit, true_lit, false_lit, none_lit, lambda,
                     py_atom_habit, identifier, paren_expr, list_lit, dict_lit, ellipsis> {};

// f(a, b, lr=0.1): positional then keyword arguments; f(*xs) passes a list's or a
// tuple's items as positional arguments.
struct keyword_arg : p::seq<identifier, ws, p::one<'='>, p::not_at<p::one<'='>>, wsnl, expect_expression> {};
struct splat_arg : p::seq<p::one<'*'>, ws, expect_expression> {};
struct argument : p::sor<keyword_arg, splat_arg, expression> {};
struct arg_rest : p::seq<p::star<p::one<','>, wsnl, argument, wsnl>, p::opt<p::one<','>, wsnl>> {};
// Note [A generator as a call's argument]
// Python's sum(x for x in xs) passes a lazy generator; nabla has no generators, and
// every builtin that takes an iterable (sum, any, all, max, min, list, tuple, sorted,
// dict, str.join) gives the same result from a list, so a generator that is a call's
// only argument, or a parenthesised one, (x for x in xs), is read as the list
// comprehension [x for x in xs]. The difference shows only for side effects in the
// element, an endless iterable, or next() on it, which training programs'
// sum(p.numel() for p in m.parameters()) and any(...) do not have. Where Python
// needs the generator parenthesised (f(a, x for x in xs)) it stays an error that
// says to write a list comprehension.
// As with list_items, a call's first argument is read once and then either clauses or
// more arguments follow.
struct arg_list : p::seq<argument, wsnl, p::sor<p::seq<comp_clauses, no_generator_sibling>, arg_rest>> {};
struct call_suffix : p::seq<p::one<'('>, wsnl, bracketed<p::opt<arg_list>>, no_generator, expect_rparen> {};
// x[i], x[1:3], x[:, ::2], x[..., -1], x[None]
// The expression before ':' is read once: were a slice tried first and an index
// after it failed, x[y[z[...]]] would read each level twice, 2^depth in all.
struct slice_start : p::seq<expression> {};
struct slice_stop : p::seq<expression> {};
struct slice_step : p::seq<expression> {};
struct slice_colon : p::one<':'> {};
struct slice_rest : p::seq<slice_colon, wsnl, p::opt<slice_stop, wsnl>, p::opt<p::one<':'>, wsnl, p::opt<slice_step, wsnl>>> {};
struct index_item : p::sor<p::seq<slice_start, wsnl, p::opt<slice_rest>>, slice_rest> {};
struct index_items : p::seq<index_item, wsnl, p::star<p::one<','>, wsnl, index_item, wsnl>, p::opt<p::one<','>, wsnl>> {};
struct err_index_items : p::failure {};
struct expect_index_items : p::sor<p::seq<index_items>, err_index_items> {};
struct index_suffix : p::seq<p::one<'['>, wsnl, bracketed<expect_index_items>, expect_rbracket> {};
// x.name
struct err_member : p::failure {};
struct expect_member : p::sor<p::seq<identifier>, err_member> {};
struct attribute_suffix : p::seq<p::one<'.'>, p::not_at<p::one<'.'>>, wsnl, expect_member> {};
// An atom followed by calls, indexing and attribute access, left to right.
struct postfix : p::seq<atom, p::star<op_ws, p::sor<call_suffix, index_suffix, attribute_suffix>>> {};

// Operators, from the tightest, as Python's: ** (right to left), unary - + ~, * / //
// % @, + -, & (bitwise and), ^, |, comparisons, not, and, or, then `a if cond else b`.
struct op_pow : p::string<'*', '*'> {};
struct unary_op : p::sor<p::one<'-'>, p::one<'+'>, p::one<'~'>> {};
struct unary;
struct expect_operand;
struct err_operand : p::failure {};
// The right side of `**`, which nests (2 ** 2 ** 2 is 2 ** (2 ** 2)).
struct expect_power_operand : p::sor<p::seq<nested<unary>>, err_operand> {};
struct power : p::seq<postfix, p::opt<op_ws, op_pow, wsnl, expect_power_operand>> {};
struct unary : p::seq<p::star<unary_op, ws>, power> {};
struct expect_operand : p::sor<p::seq<unary>, err_operand> {};
// (never the start of an augmented assignment: `x //= 2` is not x // (= 2))
struct op_mul : p::sor<p::seq<p::string<'/', '/'>, p::not_at<p::one<'='>>>, p::seq<p::one<'*'>, p::not_at<p::one<'*', '='>>>,
                       p::seq<p::one<'/'>, p::not_at<p::one<'/', '='>>>, p::seq<p::one<'%', '@'>, p::not_at<p::one<'='>>>> {};
struct term : p::seq<unary, p::star<op_ws, op_mul, wsnl, expect_operand>> {};
struct op_add : p::seq<p::one<'+', '-'>, p::not_at<p::one<'='>>> {};
struct err_term : p::failure {};
struct expect_term : p::sor<p::seq<term>, err_term> {};
struct arith : p::seq<term, p::star<op_ws, op_add, wsnl, expect_term>> {};
struct op_not_in : p::seq<kw_not, ws, kw_in> {};
struct op_is : p::seq<kw_is, p::opt<ws, kw_not>> {};  // `is` and `is not`
struct op_cmp : p::sor<p::string<'=', '='>, p::string<'!', '='>, p::string<'<', '='>, p::string<'>', '='>,
                       p::one<'<'>, p::one<'>'>, op_not_in, kw_in, op_is> {};
struct err_arith : p::failure {};
// a < b < c is not Python's chain: an error at the second operator, not a confusing
// "expected ')'".
struct err_chained_cmp : p::failure {};
struct no_chained_cmp : p::sor<p::not_at<op_ws, op_cmp>, p::seq<op_ws, err_chained_cmp>> {};
// & ^ | (not && or ||, which no_c_logic names, nor &= ^= |=, augmented assignments):
// bitwise on ints, elementwise logic on bool tensors.
struct op_bitand : p::seq<p::one<'&'>, p::not_at<p::one<'&', '='>>> {};
struct op_bitxor : p::seq<p::one<'^'>, p::not_at<p::one<'='>>> {};
struct op_bitor : p::seq<p::one<'|'>, p::not_at<p::one<'|', '='>>> {};
struct err_bit_operand : p::failure {};
struct expect_shift_free : p::sor<p::seq<arith, no_shift>, err_bit_operand> {};
struct bitand_expr : p::seq<arith, no_shift, p::star<op_ws, op_bitand, wsnl, expect_shift_free>> {};
struct expect_bitand : p::sor<p::seq<bitand_expr>, err_bit_operand> {};
struct bitxor_expr : p::seq<bitand_expr, p::star<op_ws, op_bitxor, wsnl, expect_bitand>> {};
struct expect_bitxor : p::sor<p::seq<bitxor_expr>, err_bit_operand> {};
struct bitor_expr : p::seq<bitxor_expr, p::star<op_ws, op_bitor, wsnl, expect_bitxor>> {};
struct expect_bitor : p::sor<p::seq<bitor_expr>, err_arith> {};
struct comparison : p::seq<bitor_expr, p::opt<op_ws, op_cmp, wsnl, expect_bitor, no_chained_cmp>> {};
struct not_op : kw_not {};
struct not_expr : p::seq<p::star<not_op, ws>, comparison> {};
struct op_and : kw_and {};
struct err_not_expr : p::failure {};
struct expect_not_expr : p::sor<p::seq<not_expr>, err_not_expr> {};
struct and_expr : p::seq<not_expr, p::star<op_ws, op_and, wsnl, expect_not_expr>> {};
struct op_or : kw_or {};
struct err_and_expr : p::failure {};
struct expect_and_expr : p::sor<p::seq<and_expr>, err_and_expr> {};
struct or_expr : p::seq<and_expr, p::star<op_ws, op_or, wsnl, expect_and_expr>, no_c_logic> {};
struct expect_else : kw_else {};
struct conditional : p::seq<or_expr, p::opt<op_ws, kw_if, op_ws, or_expr, op_ws, expect_else, wsnl, expect_expression>> {};
// Every expression is one nesting level (brackets, `else`, lambda bodies and f-string
// fields all hold expressions).
struct expression : p::seq<nested<conditional>> {};

// ---- statements -----------------------------------------------------------------

struct statement;
// What may follow a statement: ';', a newline, or the end of the block or file.
struct stmt_end : p::sor<p::one<';'>, p::eol, p::at<p::one<'}'>>, p::eof> {};
struct expect_stmt_end : p::seq<stmt_end> {};
struct statements : p::star<wsnl, statement, ws, expect_stmt_end> {};
// { statements }
struct block : p::seq<p::one<'{'>, wsnl, statements, wsnl, expect_rbrace> {};
struct err_block : p::failure {};
struct expect_block : p::sor<p::seq<p::at<p::one<'{'>>, block>, py_colon_block, err_block> {};

// A binding target: x, or (a, (b, c)).
struct pattern;
struct tuple_pattern : p::seq<p::one<'('>, wsnl, pattern, wsnl, p::star<p::one<','>, wsnl, pattern, wsnl>,
                              p::opt<p::one<','>, wsnl>, expect_rparen> {};
struct pattern : p::sor<identifier, tuple_pattern> {};
struct err_pattern : p::failure {};
struct expect_pattern : p::sor<p::seq<pattern>, err_pattern> {};
// A loop's target (of `for` and of comprehensions): a pattern, or patterns separated
// by commas, which unpack a tuple as a parenthesised pattern does (`for k, v in ...`).
struct for_target : p::seq<pattern, p::star<ws, p::one<','>, wsnl, expect_pattern>> {};
struct expect_for_target : p::sor<p::seq<for_target>, err_pattern> {};

struct expect_equals : p::one<'='> {};
// let x = 1 / let (a, b) = pair
struct let_stmt : p::seq<kw_let, ws, expect_pattern, ws, expect_equals, wsnl, expect_expression> {};

struct err_name : p::failure {};
struct expect_name : p::sor<p::seq<identifier>, err_name> {};
// fn name(params) = expr, or fn name(params) { ... }
struct fn_body : p::sor<p::seq<p::one<'='>, wsnl, expect_expression>, expect_block> {};
struct err_fn_body : p::failure {};
struct expect_fn_body : p::sor<p::seq<fn_body>, err_fn_body> {};
struct fn_stmt : p::seq<kw_fn, ws, p::not_at<p::one<'('>>, expect_name, ws, expect_params, ws, expect_fn_body> {};

// Inside a model: name(params) = expr / { ... } defines a method.
struct method_def : p::seq<identifier, ws, params, ws, p::at<p::one<'=', '{'>>, p::not_at<p::string<'=', '='>>,
                           expect_fn_body> {};
// static name(params) = expr / { ... }: a method with no self, called on the class or
// an instance (Python's @staticmethod).
struct static_method : p::seq<kw_static, ws, method_def> {};
// buffer running_mean = zeros([c])
struct buffer_stmt : p::seq<kw_buffer, ws, p::at<p::identifier_first>, expect_name, ws, expect_equals, wsnl,
                           expect_expression> {};
struct model_member : p::sor<static_method, method_def, buffer_stmt, statement> {};
struct model_members : p::star<wsnl, model_member, ws, expect_stmt_end> {};
struct model_body : p::seq<p::one<'{'>, wsnl, model_members, wsnl, expect_rbrace> {};
struct err_model_body : p::failure {};
struct expect_model_body : p::sor<p::seq<p::at<p::one<'{'>>, model_body>, py_colon_block, err_model_body> {};
// model MLP(d_in, d_out) { fc = nn.Linear(d_in, d_out); forward(x) = fc(x) }
// `model` and `function` start a declaration only when a name follows, so both stay
// usable as variable names (`let model = MLP(4, 2)`).
struct model_stmt : p::seq<kw_model, ws, p::at<p::identifier_first>, expect_name, ws, p::opt<expect_params, ws>,
                           expect_model_body> {};
// function Square { forward(ctx, x) {...} backward(ctx, g) {...} }
struct function_stmt : p::seq<kw_function, ws, p::at<p::identifier_first>, expect_name, ws, expect_model_body> {};

struct err_condition : p::failure {};
struct expect_condition : p::sor<p::seq<expression>, err_condition> {};
struct elif_clause : p::seq<wsnl, kw_elif, ws, expect_condition, ws, expect_block> {};
struct else_clause : p::seq<wsnl, kw_else, ws, p::sor<p::seq<p::at<kw_if>, err_py_else_if>, expect_block>> {};
// if c { } elif d { } else { }
struct if_stmt : p::seq<kw_if, ws, expect_condition, ws, expect_block, p::star<elif_clause>, p::opt<else_clause>> {};
// while c { }
struct while_stmt : p::seq<kw_while, ws, expect_condition, ws, expect_block> {};
struct expect_in : kw_in {};
// for x in xs { } / for (x, y) in pairs { } / for k, v in d.items() { }
struct for_stmt : p::seq<kw_for, ws, expect_for_target, ws, expect_in, ws, expect_expression, ws, expect_block> {};
struct break_stmt : kw_break {};
struct continue_stmt : kw_continue {};
// return / return x / return a, b
struct expression_list;
struct return_stmt : p::seq<kw_return, ws, p::opt<expression_list>> {};

// import nn / import nn as n / import "other.dsl" as other
struct module_path : p::seq<identifier, p::star<p::one<'.'>, identifier>> {};
struct import_alias : p::seq<ws, kw_as, ws, expect_name> {};
struct err_module : p::failure {};
struct expect_module : p::sor<p::sor<string_lit, module_path>, err_module> {};
struct import_stmt : p::seq<kw_import, ws, expect_module, p::opt<import_alias>> {};

// no_grad { } and the other context blocks: a name, optional arguments, a block.
struct context_name : p::sor<TAO_PEGTL_KEYWORD("no_grad"), TAO_PEGTL_KEYWORD("enable_grad"),
                             TAO_PEGTL_KEYWORD("detect_anomaly"), TAO_PEGTL_KEYWORD("profile"),
                             TAO_PEGTL_KEYWORD("autocast"), TAO_PEGTL_KEYWORD("no_sync")> {};
struct context_stmt : p::seq<context_name, ws, p::opt<call_suffix, ws>, p::at<p::one<'{'>>, block> {};

// test "name" { ... }
struct err_test_name : p::failure {};
struct expect_test_name : p::sor<p::seq<string_lit>, err_test_name> {};
struct test_stmt : p::seq<kw_test, ws, p::at<p::one<'"', '\'', '{'>>, expect_test_name, ws, expect_block> {};

// a, b (a bare tuple) where a statement allows it.
struct expression_list : p::seq<expression, p::star<ws, p::one<','>, wsnl, expression>> {};
// x = v, x.a = v, x[i] = v, a, b = b, a, x += v, or a bare expression.
struct op_assign : p::seq<p::one<'='>, p::not_at<p::one<'='>>> {};
struct op_aug : p::sor<p::string<'*', '*', '='>, p::string<'/', '/', '='>, p::string<'+', '='>,
                       p::string<'-', '='>, p::string<'*', '='>, p::string<'/', '='>, p::string<'%', '='>,
                       p::string<'@', '='>, p::string<'&', '='>, p::string<'^', '='>, p::string<'|', '='>> {};
struct err_expression_list : p::failure {};
struct expect_expression_list : p::sor<p::seq<expression_list>, err_expression_list> {};
struct assign_tail : p::seq<ws, op_assign, wsnl, expect_expression_list> {};
struct aug_tail : p::seq<ws, op_aug, wsnl, expect_expression> {};
struct expr_stmt : p::seq<expression_list, p::opt<p::sor<assign_tail, aug_tail>>> {};

struct statement : p::sor<let_stmt, fn_stmt, model_stmt, function_stmt, if_stmt, while_stmt, for_stmt, break_stmt,
                          continue_stmt, return_stmt, import_stmt, context_stmt, test_stmt, buffer_stmt,
                          py_statement_habit, expr_stmt> {};

struct expect_end : p::seq<p::eof> {};
// A whole file (or REPL entry).
struct program : p::seq<wsnl, statements, wsnl, expect_end> {};

}  // namespace nabla::lang::grammar
