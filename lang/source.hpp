// Source text and positions. Every AST node carries a SourceSpan; every error the
// user sees is formatted here: "file:line:col: error: message", the source line and
// a caret under the column. Knows nothing of tensors or values.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace nabla::lang {

// One file (or REPL entry, or -e string) held for the whole session, so spans can
// point into it after parsing.
struct SourceFile {
  std::string name;  // "train.dsl", "<repl:3>", "<-e>"
  std::string text;
  std::string line(uint32_t line_number) const;  // 1-based, without the newline
};

// 1-based line and column of the first character, and of one past the last.
struct SourceSpan {
  std::shared_ptr<const SourceFile> file;
  uint32_t line = 0, col = 0;
  uint32_t end_line = 0, end_col = 0;
  bool valid() const { return file != nullptr && line > 0; }
  std::string where() const;  // "train.dsl:12:5"
  // The spanned source text on one line (line breaks and runs of spaces become one
  // space), cut to `max_chars` with "..." after.
  std::string text(size_t max_chars = 60) const;
};

// "file:line:col: error: message\n<source line>\n<spaces>^" (caret under col; a
// span on one line gets ^~~~ over its width).
std::string format_error(const SourceSpan& span, const std::string& message);

}  // namespace nabla::lang
