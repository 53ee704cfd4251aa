// The parser: PEGTL grammar (lang/grammar.hpp) to a parse tree, then to the AST
// (lang/ast.hpp) with a span on every node. Syntax errors are formatted with
// format_error: "file:line:col: error: expected ...", the line and a caret; an
// unclosed delimiter names its opener ("expected ')' to close '(' at 3:7").
#pragma once
#include <memory>
#include <optional>
#include <string>

#include "lang/ast.hpp"

namespace nabla::lang {

struct ParseResult {
  std::unique_ptr<Program> program;  // null on error
  std::optional<std::string> error;  // the formatted message
  SourceSpan error_span;
  // The input ended inside an open bracket, string or block: the REPL asks for
  // another line instead of reporting the error.
  bool incomplete = false;
};

ParseResult parse(std::shared_ptr<const SourceFile> file);

// Whether s is a name of the language, by the grammar's own rule: letters, digits and
// '_', not starting with a digit, not a reserved word (what `x.name` can read back).
bool is_name(const std::string& s);

// Nesting deeper than this is a syntax error, never a stack overflow: brackets and
// blocks (counted by a scan before parsing), and expressions inside expressions
// (brackets, `**`, `else`, lambda bodies, f-string fields; counted while parsing).
// Flat chains (a + b + ..., x.f().g()..., - - x) do not nest and have no limit.
// See Note [Deep expressions] in lang/ast.hpp.
constexpr int kMaxNesting = 200;

}  // namespace nabla::lang
