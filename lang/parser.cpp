// The parser: the PEGTL grammar builds a parse tree of the selected rules below, then
// build_ast (lang/ast_builder.cpp) turns it into the AST with a span on every node.
// Syntax errors come from the error table (one message per `expect_` rule); an
// unclosed bracket or string names its opener, found by a scan of the text.
#include "lang/parser.hpp"

#include <cctype>
#include <tao/pegtl/contrib/parse_tree.hpp>

#include "lang/ast_builder.hpp"
#include "lang/grammar.hpp"

namespace nabla::lang {

namespace g = grammar;
namespace pegtl = tao::pegtl;

namespace {

// ---- the error table -------------------------------------------------------------

template <typename>
inline constexpr const char* error_message = nullptr;
template <>
inline constexpr auto error_message<g::expect_rparen> = "expected ')'";
template <>
inline constexpr auto error_message<g::expect_rbracket> = "expected ']'";
template <>
inline constexpr auto error_message<g::expect_rbrace> = "expected '}'";
template <>
inline constexpr auto error_message<g::expect_dquote> = "expected '\"'";
template <>
inline constexpr auto error_message<g::expect_squote> = "expected \"'\"";
template <>
inline constexpr auto error_message<g::expect_triple_dquote> = "expected '\"\"\"'";
template <>
inline constexpr auto error_message<g::expect_triple_squote> = "expected \"'''\"";
template <>
inline constexpr auto error_message<g::expect_escape> =
    "unknown escape sequence (expected \\n, \\t, \\r, \\0, \\\\, \\\", \\', \\{, \\}, \\xHH or \\u{HHHH})";
template <>
inline constexpr auto error_message<g::expect_fstring_close> = "expected '}' to close the f-string field";
template <>
inline constexpr auto error_message<g::err_field_expr> = "expected an expression inside '{}'";
template <>
inline constexpr auto error_message<g::err_nested_spec> =
    "a format spec cannot hold a nested field ('{' inside '{x:...}'): write the spec out, as in {x:>10}";
template <>
inline constexpr auto error_message<g::err_fstring_conversion> =
    "f-string conversions (!r, !s) are not supported: write {repr(x)} or {str(x)}";
template <>
inline constexpr auto error_message<g::err_fstring_self_doc> =
    "'=' after an f-string expression (Python's {x=}) is not supported: write x={x}";
template <>
inline constexpr auto error_message<g::err_expression> = "expected an expression";
template <>
inline constexpr auto error_message<g::err_operand> = "expected an expression after the operator";
template <>
inline constexpr auto error_message<g::err_term> = "expected an expression after the operator";
template <>
inline constexpr auto error_message<g::err_arith> = "expected an expression after the comparison";
template <>
inline constexpr auto error_message<g::err_bit_operand> = "expected an expression after the operator";
template <>
inline constexpr auto error_message<g::err_chained_cmp> =
    "comparisons do not chain (write 'a < b and b < c', or bracket one of them)";
template <>
inline constexpr auto error_message<g::err_not_expr> = "expected an expression after 'and'";
template <>
inline constexpr auto error_message<g::err_and_expr> = "expected an expression after 'or'";
template <>
inline constexpr auto error_message<g::expect_colon> = "expected ':' after the dict key";
template <>
inline constexpr auto error_message<g::err_index_items> = "expected an index or a slice";
template <>
inline constexpr auto error_message<g::err_member> = "expected a name after '.'";
template <>
inline constexpr auto error_message<g::expect_equals_body> = "expected '=' and the body of the function";
template <>
inline constexpr auto error_message<g::expect_else> = "expected 'else' in the conditional expression";
template <>
inline constexpr auto error_message<g::err_pattern> = "expected a name or a parenthesised tuple of names";
template <>
inline constexpr auto error_message<g::expect_equals> = "expected '='";
template <>
inline constexpr auto error_message<g::err_name> = "expected a name";
template <>
inline constexpr auto error_message<g::err_params> = "expected '(' and the parameters";
template <>
inline constexpr auto error_message<g::err_fn_body> = "expected '=' or '{' to start the function body";
template <>
inline constexpr auto error_message<g::err_model_body> = "expected '{' to start the body";
template <>
inline constexpr auto error_message<g::err_condition> = "expected a condition";
template <>
inline constexpr auto error_message<g::err_block> = "expected '{' to start the block";
template <>
inline constexpr auto error_message<g::expect_in> = "expected 'in' after the loop variable";
template <>
inline constexpr auto error_message<g::err_module> = "expected a module name or a quoted path";
template <>
inline constexpr auto error_message<g::err_test_name> = "expected the test's name as a string";
template <>
inline constexpr auto error_message<g::expect_stmt_end> = "expected a newline or ';' after the statement";
template <>
inline constexpr auto error_message<g::expect_end> = "expected a statement";
template <>
inline constexpr auto error_message<g::err_comp_iterable> = "expected what to iterate after 'in'";
template <>
inline constexpr auto error_message<g::err_comp_condition> = "expected a condition after 'if'";
template <>
inline constexpr auto error_message<g::err_expression_list> = "expected an expression after '='";

// Python habits (grammar.hpp): one line naming nabla's form.
template <>
inline constexpr auto error_message<g::err_py_true> = "'True' is Python's spelling; nabla writes 'true'";
template <>
inline constexpr auto error_message<g::err_py_false> = "'False' is Python's spelling; nabla writes 'false'";
template <>
inline constexpr auto error_message<g::err_py_none> = "'None' is Python's spelling; nabla writes 'none'";
template <>
inline constexpr auto error_message<g::err_py_lambda> =
    "'lambda' is Python's; nabla writes an anonymous function as 'fn(x) = x + 1'";
template <>
inline constexpr auto error_message<g::err_py_not> = "'!' is not an operator here; write 'not x'";
template <>
inline constexpr auto error_message<g::err_py_shift> =
    "'<<' and '>>' are not operators here (no bit shifts; write 2 ** n for a power of two)";
template <>
inline constexpr auto error_message<g::err_py_and> = "'&&' is not an operator here; write 'and'";
template <>
inline constexpr auto error_message<g::err_py_or> = "'||' is not an operator here; write 'or'";
template <>
inline constexpr auto error_message<g::err_py_assert> =
    "assert is a function in nabla, not Python's statement: write assert(cond) or assert(cond, \"message\")";
template <>
inline constexpr auto error_message<g::err_py_decorator> =
    "decorators are Python's; nabla has none: for @torch.no_grad() put the body in 'no_grad { ... }', for "
    "@staticmethod write 'static name(params) = ...' in the model, or wrap by hand: 'let f2 = wrapper(f)'";
template <>
inline constexpr auto error_message<g::err_py_def> =
    "'def' is Python's; nabla defines a function with 'fn name(params) { ... }' or 'fn name(params) = expr'";
template <>
inline constexpr auto error_message<g::err_py_class> =
    "'class' is Python's; nabla declares a model with 'model Name(params) { ... }'";
template <>
inline constexpr auto error_message<g::err_py_with> =
    "'with' is Python's; nabla writes a context block without it: 'no_grad { ... }'";
template <>
inline constexpr auto error_message<g::err_py_from> =
    "'from ... import' is Python's; nabla imports the module ('import nn') and names its members ('nn.Linear')";
template <>
inline constexpr auto error_message<g::err_py_colon_block> =
    "expected '{' to start the block (nabla writes blocks in braces, not after ':')";
template <>
inline constexpr auto error_message<g::err_py_generator> =
    "a generator expression must be a call's only argument, sum(x for x in xs), or in parentheses of its own; "
    "or make it a list comprehension: [x for x in xs]";
template <>
inline constexpr auto error_message<g::err_py_else_if> = "'else if' is written 'elif' in nabla";

struct error_table {
  template <typename Rule>
  static constexpr auto message = error_message<Rule>;
};
template <typename Rule>
using control = pegtl::must_if<error_table>::control<Rule>;

// ---- which rules become parse-tree nodes ---------------------------------------

template <typename Rule>
using selector = pegtl::parse_tree::selector<
    Rule,
    pegtl::parse_tree::store_content::on<
        g::identifier, g::float_lit, g::int_lit, g::string_lit, g::triple_string_lit, g::fstring_lit, g::fstring_text, g::fstring_field,
        g::format_spec, g::true_lit, g::false_lit, g::none_lit, g::ellipsis, g::trailing_comma, g::list_lit,
        g::dict_lit, g::dict_entry, g::dict_unpack, g::lambda, g::param, g::param_star, g::param_default, g::call_suffix, g::keyword_arg,
        g::splat_arg,
        g::index_suffix, g::index_item, g::slice_colon, g::slice_start, g::slice_stop, g::slice_step, g::attribute_suffix, g::unary_op,
        g::op_pow, g::op_mul, g::op_add, g::op_bitand, g::op_bitxor, g::op_bitor, g::op_cmp, g::not_op, g::op_and, g::op_or, g::let_stmt, g::fn_stmt,
        g::model_stmt, g::function_stmt, g::method_def, g::static_method, g::buffer_stmt, g::model_body, g::if_stmt, g::elif_clause,
        g::else_clause, g::while_stmt, g::for_stmt, g::break_stmt, g::continue_stmt, g::return_stmt, g::import_stmt,
        g::module_path, g::import_alias, g::context_stmt, g::context_name, g::test_stmt, g::expr_stmt, g::assign_tail,
        g::aug_tail, g::op_aug, g::block, g::tuple_pattern, g::paren_expr, g::for_target, g::comp_for, g::comp_if>,
    // paren_expr is not folded: "(x)" keeps its parentheses in the span (ast_builder.cpp).
    pegtl::parse_tree::fold_one::on<g::postfix, g::power, g::unary, g::term, g::arith, g::bitand_expr,
                                    g::bitxor_expr, g::bitor_expr, g::comparison,
                                    g::not_expr, g::and_expr, g::or_expr, g::conditional, g::expression_list>>;

// ---- openers of unclosed brackets and strings ------------------------------------

// Scans text[0, end) the way the grammar reads brackets (skipping strings and
// comments) and returns the position of the innermost bracket or string still open.
struct Opener {
  char ch = 0;
  uint32_t line = 0, col = 0;
};

std::vector<Opener> open_brackets(const std::string& text, size_t end, int* max_depth, Opener* deepest) {
  std::vector<Opener> stack;
  uint32_t line = 1, col = 1;
  char in_string = 0;
  bool triple = false;  // in a """...""" or '''...''' string, which spans lines
  Opener string_start;
  auto triple_at = [&](size_t i, char q) { return i + 2 < text.size() && text[i + 1] == q && text[i + 2] == q; };
  for (size_t i = 0; i < end && i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i, ++col;
      } else if (c == in_string && (!triple || triple_at(i, c))) {
        if (triple) i += 2, col += 2;
        in_string = 0;
      } else if (c == '\n' && !triple) {
        in_string = 0;  // strings end at the line; the grammar reports it there
      }
    } else if (c == '#') {
      while (i + 1 < end && text[i + 1] != '\n') ++i, ++col;
    } else if (c == '"' || c == '\'') {
      in_string = c;
      triple = triple_at(i, c);
      string_start = {c, line, col};
      if (triple) i += 2, col += 2;
    } else if (c == '(' || c == '[' || c == '{') {
      stack.push_back({c, line, col});
      if (static_cast<int>(stack.size()) > *max_depth) {
        *max_depth = static_cast<int>(stack.size());
        *deepest = stack.back();
      }
    } else if ((c == ')' || c == ']' || c == '}') && !stack.empty()) {
      stack.pop_back();
    }
    if (c == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  if (in_string) stack.push_back(string_start);
  return stack;
}

std::string at_position(const Opener& o) { return std::to_string(o.line) + ":" + std::to_string(o.col); }

// "expected ')'" becomes "expected ')' to close '(' at 3:7".
std::string name_opener(const std::string& message, const std::string& text, size_t byte) {
  int depth = 0;
  Opener deepest;
  auto stack = open_brackets(text, byte, &depth, &deepest);
  if (stack.empty()) return message;
  const Opener& o = stack.back();
  bool closes = (message == "expected ')'" && o.ch == '(') || (message == "expected ']'" && o.ch == '[') ||
                (message == "expected '}'" && o.ch == '{');
  if (closes) return message + " to close '" + o.ch + "' at " + at_position(o);
  bool closes_string = message == "expected '\"'" || message == "expected \"'\"" ||
                       message == "expected '\"\"\"'" || message == "expected \"'''\"";
  if (closes_string && (o.ch == '"' || o.ch == '\''))
    return message + " to close the string started at " + at_position(o);
  return message;
}

// A missing closing bracket is reported right after the last token before it,
// not on the next line where the parser noticed.
void closer_position(const std::string& text, size_t byte, uint32_t* line, uint32_t* col) {
  size_t end = byte;
  while (end > 0 && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  if (end == byte) return;
  uint32_t l = 1, c = 1;
  for (size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++l;
      c = 1;
    } else {
      ++c;
    }
  }
  *line = l;
  *col = c;
}

}  // namespace

bool is_name(const std::string& s) {
  pegtl::memory_input in(s.data(), s.size(), "name");
  return pegtl::parse<pegtl::seq<g::identifier, pegtl::eof>>(in);
}

ParseResult parse(std::shared_ptr<const SourceFile> file) {
  ParseResult result;
  const std::string& text = file->text;
  auto report = [&](uint32_t line, uint32_t col, const std::string& message, bool at_end) {
    result.error_span.file = file;
    result.error_span.line = line;
    result.error_span.col = col;
    result.error = format_error(result.error_span, message);
    result.incomplete = at_end;
  };
  // Too deep a nesting is refused before the (recursive) parser sees it.
  int depth = 0;
  Opener deepest;
  open_brackets(text, text.size(), &depth, &deepest);
  if (depth > kMaxNesting) {
    report(deepest.line, deepest.col, "brackets nest deeper than " + std::to_string(kMaxNesting) + " levels", false);
    return result;
  }
  try {
    pegtl::memory_input in(text.data(), text.size(), file->name);
    g::Nesting nesting;
    nesting.limit = kMaxNesting + 1;  // the outermost expression is level 0
    auto root = pegtl::parse_tree::parse<g::program, selector, pegtl::nothing, control>(in, nesting);
    if (!root) {
      report(1, 1, "expected a statement", false);
      return result;
    }
    result.program = build_ast(*root, file);
  } catch (const pegtl::parse_error& e) {
    const auto& pos = e.positions().front();
    // Only whitespace after the error: the input stopped too early.
    size_t rest = pos.byte;
    while (rest < text.size() && std::isspace(static_cast<unsigned char>(text[rest]))) ++rest;
    bool at_end = rest >= text.size();
    std::string message(e.message());
    uint32_t line = static_cast<uint32_t>(pos.line), col = static_cast<uint32_t>(pos.column);
    if (message == "expected ')'" || message == "expected ']'" || message == "expected '}'")
      closer_position(text, pos.byte, &line, &col);
    // A one-line string left open is wrong for good: the next line cannot close
    // it, so the REPL must not read that line as this entry's rest.
    bool one_line = message == "expected '\"'" || message == "expected \"'\"";
    report(line, col, name_opener(message, text, pos.byte), at_end && !one_line);
  } catch (const SyntaxError& e) {
    result.error_span = e.span;
    result.error = format_error(e.span, e.message);
  }
  return result;
}

}  // namespace nabla::lang
