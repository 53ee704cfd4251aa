// The second half of parsing: the PEGTL parse tree (rules selected in parser.cpp)
// becomes the AST, with a span on every node. Checks that the grammar cannot
// express (assignment targets, argument order, duplicate parameters) are
// SyntaxErrors here. Knows nothing of values or tensors.
#pragma once
#include <memory>
#include <string>
#include <tao/pegtl/contrib/parse_tree.hpp>

#include "lang/ast.hpp"

namespace nabla::lang {

// A syntax error found while building the AST (the grammar accepted the text).
struct SyntaxError {
  SourceSpan span;
  std::string message;
};

// A triple-quoted string's text with its indentation cleaned as Python's
// inspect.cleandoc does: the first line's leading blanks and the common indentation
// of the others removed, blank lines at both ends dropped (tabs count as one blank:
// they are not expanded). Applied to the source text, before escapes are resolved.
std::string clean_indentation(const std::string& text);

// Throws SyntaxError.
std::unique_ptr<Program> build_ast(const tao::pegtl::parse_tree::node& root, std::shared_ptr<const SourceFile> file);

}  // namespace nabla::lang
