// The text of string literals, for the AST builder (ast_builder.cpp): escapes
// resolved, and the indentation of triple-quoted strings cleaned (clean_indentation,
// declared in ast_builder.hpp, is defined in string_literals.cpp). Errors are
// SyntaxErrors at the escape. Knows nothing of the parse tree.
#pragma once
#include <string>
#include <string_view>

#include "lang/ast_builder.hpp"

namespace nabla::lang {

// The text of a string literal with its escapes resolved (the grammar has checked
// their shapes). `literal` and `literal_text` are the literal's span and text, and raw
// starts `offset` bytes into that text; in f-string text (`fstring`) "{{" and "}}"
// stand for braces. \xHH is one byte (strings are bytes, as in Lua and
// Go); \u{H...} is a code point, written as UTF-8, so it must be one: a surrogate
// (U+D800 to U+DFFF) or a number past U+10FFFF is a syntax error at the escape.
std::string unescape_literal(const SourceSpan& literal, std::string_view literal_text, std::string_view raw,
                             size_t offset, bool fstring);

}  // namespace nabla::lang
