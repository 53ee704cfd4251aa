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

// Throws SyntaxError.
std::unique_ptr<Program> build_ast(const tao::pegtl::parse_tree::node& root, std::shared_ptr<const SourceFile> file);

}  // namespace nabla::lang
