// Source text and positions. Every AST node carries a SourceSpan; every error the
// user sees is formatted here: "file:line:col: error: message", the source line and
// a caret under the column. Knows nothing of tensors or values.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace nabla::lang {

// One file (or REPL entry, or -e string) held for the whole session, so spans can
// point into it after parsing. `text` must not change once a line has been asked for
// (the line index is built on the first request).
struct SourceFile {
  std::string name;  // "train.dsl", "<repl:3>", "<-e>"
  std::string text;
  // The standard library's code, not the user's: an error raised while it runs is
  // shown at the user's line that called into it, and its ops carry that line
  // (Note [User line] in interp/eval/evaluator_trace.cpp).
  bool library = false;
  std::string line(uint32_t line_number) const;  // 1-based, without the newline
  // The same without a copy (empty past the last line); valid while the file lives.
  std::string_view line_view(uint32_t line_number) const;

  // Where each line starts, built once on first use, so that finding a line costs
  // O(1) and not a scan from the top (every expression that runs an op asks for its
  // line once: a scan made long files quadratic). A copy of the file starts a new,
  // empty index. Internal to source.cpp.
  struct LineIndex {
    LineIndex() : cell(std::make_unique<Cell>()) {}
    LineIndex(const LineIndex&) : LineIndex() {}
    LineIndex(LineIndex&&) noexcept = default;
    LineIndex& operator=(const LineIndex&) { cell = std::make_unique<Cell>(); return *this; }
    LineIndex& operator=(LineIndex&&) noexcept = default;
    struct Cell {
      std::once_flag built;
      std::vector<size_t> starts;
    };
    std::unique_ptr<Cell> cell;
  };
  LineIndex line_index;
};

// 1-based line and column of the first character, and of one past the last.
struct SourceSpan {
  std::shared_ptr<const SourceFile> file;
  uint32_t line = 0, col = 0;
  uint32_t end_line = 0, end_col = 0;
  bool valid() const { return file != nullptr && line > 0; }
  std::string where() const;  // "train.dsl:12:5"
  // The spanned source text on one line (line breaks and runs of spaces become one
  // space), cut to `max_chars` with "..." after. Costs O(max_chars), not O(span).
  std::string text(size_t max_chars = 60) const;
};

// "file:line:col: error: message\n<source line>\n<spaces>^" (caret under col; a
// span on one line gets ^~~~ over its width). A line longer than kMaxEchoedLine
// bytes is shown as a window of it around the column, with "..." where it was cut,
// and the caret's ~~~ stops at the window's end. See Note [Echoed lines].
std::string format_error(const SourceSpan& span, const std::string& message);

inline constexpr size_t kMaxEchoedLine = 160;

// `text` for an error message: whole when short, else its first bytes, "...", and
// how long it was ("123456789012...(10000000 characters)").
std::string clip_for_message(std::string_view text, size_t max_chars = 40);

}  // namespace nabla::lang
