#include "lang/source.hpp"

#include <algorithm>

namespace nabla::lang {

namespace {
// Start of line `line_number` (1-based) by a scan from the top, or npos.
size_t scan_line_start(const std::string& text, uint32_t line_number) {
  size_t start = 0;
  for (uint32_t l = 1; l < line_number; ++l) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) return std::string::npos;
    start = nl + 1;
  }
  return start;
}
}  // namespace

std::string_view SourceFile::line_view(uint32_t line_number) const {
  if (line_number == 0) return {};
  size_t start = std::string::npos, end = std::string::npos;
  if (line_index.cell) {
    auto& cell = *line_index.cell;
    std::call_once(cell.built, [&] {
      cell.starts.push_back(0);
      for (size_t i = text.find('\n'); i != std::string::npos; i = text.find('\n', i + 1))
        cell.starts.push_back(i + 1);
    });
    if (line_number <= cell.starts.size()) start = cell.starts[line_number - 1];
    if (line_number < cell.starts.size()) end = cell.starts[line_number] - 1;  // its '\n'
  } else {
    start = scan_line_start(text, line_number);  // a moved-from file
    if (start != std::string::npos) end = text.find('\n', start);
  }
  if (start == std::string::npos || start > text.size()) return {};
  std::string_view s(text.data() + start, (end == std::string::npos ? text.size() : end) - start);
  if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
  return s;
}

std::string SourceFile::line(uint32_t line_number) const { return std::string(line_view(line_number)); }

std::string SourceSpan::where() const {
  if (!valid()) return "<unknown>";
  return file->name + ":" + std::to_string(line) + ":" + std::to_string(col);
}

std::string SourceSpan::text(size_t max_chars) const {
  if (!valid()) return "";
  std::string out;
  for (uint32_t l = line; l <= std::max(line, end_line) && out.size() <= max_chars; ++l) {
    std::string_view s = file->line_view(l);
    size_t from = l == line ? std::min<size_t>(col - 1, s.size()) : 0;
    size_t to = l == end_line ? std::min<size_t>(end_col - 1, s.size()) : s.size();
    // Stops one past max_chars: enough to know that "..." is due.
    for (size_t i = from; i < to && out.size() <= max_chars; ++i) {
      bool space = s[i] == ' ' || s[i] == '\t';
      if (space && (out.empty() || out.back() == ' ')) continue;
      out += space ? ' ' : s[i];
    }
    if (l != end_line && !out.empty() && out.back() != ' ') out += ' ';
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (out.size() > max_chars) out = out.substr(0, max_chars) + "...";
  return out;
}

// Note [Echoed lines]
// An error shows its source line and a caret under the column. A line of megabytes
// (a 10 MB literal, a generated expression) would be echoed whole, with a caret line
// as long, so a line longer than kMaxEchoedLine is shown as a window of
// kMaxEchoedLine / 2 bytes before the column and as many after, cut at UTF-8
// character boundaries and marked "..." where it was cut; the caret stays under the
// column and its "~~~" ends with the window. Lines up to kMaxEchoedLine are echoed
// exactly as before (the golden tests in tests/lang/*.dsl pin that format).

namespace {
bool utf8_continuation(char c) { return (static_cast<unsigned char>(c) & 0xc0) == 0x80; }

// The code point of the UTF-8 sequence at s[k], or -1 where none starts (a stray byte).
int32_t code_point_at(std::string_view s, size_t k) {
  const auto b = static_cast<unsigned char>(s[k]);
  if (b < 0x80) return b;
  const size_t n = (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || k + n > s.size()) return -1;
  int32_t c = b & (0x7F >> n);
  for (size_t j = 1; j < n; ++j) {
    if (!utf8_continuation(s[k + j])) return -1;
    c = (c << 6) | (static_cast<unsigned char>(s[k + j]) & 0x3F);
  }
  return c;
}

// Terminal columns of a code point: 2 for East Asian wide and fullwidth ones (CJK,
// Hangul, fullwidth forms, most emoji), 1 for the others.
int columns_of(int32_t c) {
  return (c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0x303E) || (c >= 0x3041 && c <= 0xA4CF) ||
                 (c >= 0xAC00 && c <= 0xD7A3) || (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFE30 && c <= 0xFE4F) ||
                 (c >= 0xFF00 && c <= 0xFF60) || (c >= 0xFFE0 && c <= 0xFFE6) || (c >= 0x1F300 && c <= 0x1F64F) ||
                 (c >= 0x1F900 && c <= 0x1F9FF) || (c >= 0x20000 && c <= 0x3FFFD)
             ? 2
             : 1;
}

// Note [Carets under UTF-8]
// A column is a byte offset, but a terminal shows a character of 2 to 4 bytes in one
// or two columns: a caret padded with one space per byte stood right of the code it
// points at (`print("éééé", 1 + "a")` put it 4 columns late) and its "~~~" ran past
// it. The padding and the underline are counted in the terminal's columns instead:
// continuation bytes add none, wide characters two; a tab stays a tab.
void pad_to(std::string& out, std::string_view line, size_t from, size_t to) {
  for (size_t c = from; c < to; ++c) {
    if (line[c] == '\t') out += '\t';
    else if (!utf8_continuation(line[c])) out.append(columns_of(code_point_at(line, c)), ' ');
  }
}

size_t columns_between(std::string_view line, size_t from, size_t to) {
  size_t n = 0;
  for (size_t c = from; c < to; ++c)
    if (!utf8_continuation(line[c])) n += columns_of(code_point_at(line, c));
  return n;
}

// Note [Control characters in an echoed line]
// An error echoes its source line to a terminal, where an escape byte in it (a hostile
// file's "\x1b]2;...\x07") is a command to the terminal, not text. Control characters
// other than tab show as U+FFFD, one column wide, as the caret's padding counts them.
void append_shown(std::string& out, std::string_view text) {
  for (char ch : text) {
    const auto b = static_cast<unsigned char>(ch);
    if ((b < 0x20 && b != '\t') || b == 0x7f) out += "\xEF\xBF\xBD";
    else out += ch;
  }
}

// The bytes [from, to) of `line` that an error at byte `col0` shows.
void echo_window(std::string_view line, size_t col0, size_t* from, size_t* to) {
  *from = 0;
  *to = line.size();
  if (line.size() <= kMaxEchoedLine) return;
  constexpr size_t half = kMaxEchoedLine / 2;
  size_t c = std::min(col0, line.size());
  *from = c > half ? c - half : 0;
  *to = std::min(line.size(), c + half);
  while (*from > 0 && *from < line.size() && utf8_continuation(line[*from])) --*from;
  while (*to < line.size() && utf8_continuation(line[*to])) ++*to;
}
}  // namespace

// A message quotes values (`repr(x)` of a list nested a million deep is megabytes);
// past this many characters it is cut, saying how long it was.
constexpr size_t kMaxMessage = 10000;

// Note [NUL bytes in a message]
// A message quotes the user's strings (`fail("a\0b")`, a path, a dict key), and every
// printer of a report takes it as a C string: a NUL byte in it ended the report there,
// so the user saw "error: a" with neither the source line nor the caret. It is shown
// as the escape `\0` the user would write instead. (An Error thrown below the
// interpreter is cut at its what() first: tensor/file_kind.hpp's path_for_message
// escapes the paths the file layer quotes; lang and tensor share no code.)
static std::string with_visible_nuls(std::string text) {
  for (size_t at = text.find('\0'); at != std::string::npos; at = text.find('\0', at + 2)) text.replace(at, 1, "\\0");
  return text;
}

std::string format_error(const SourceSpan& span, const std::string& full_message) {
  std::string message = with_visible_nuls(clip_for_message(full_message, kMaxMessage));
  if (!span.valid()) return "error: " + message;
  std::string out = span.where() + ": error: " + message + "\n";
  std::string_view line = span.file->line_view(span.line);
  size_t col0 = span.col - 1;  // the column as a byte offset
  size_t from = 0, to = 0;
  echo_window(line, col0, &from, &to);
  const char* cut_before = from > 0 ? "..." : "";
  out += "  ";
  out += cut_before;
  append_shown(out, line.substr(from, to - from));
  if (to < line.size()) out += "...";
  out += "\n  ";
  out += std::string(from > 0 ? 3 : 0, ' ');
  // Tabs stay tabs so the caret lines up under them (Note [Carets under UTF-8]).
  pad_to(out, line, from, std::min(col0, to));
  out += '^';
  if (span.end_line == span.line && span.end_col > span.col + 1) {
    size_t end0 = span.end_col - 1;  // one past the span's last byte
    size_t shown_end = std::min(end0, to);
    size_t columns = col0 < shown_end ? columns_between(line, col0, shown_end) : 0;
    if (end0 > to) columns += 1;  // up to one past the shown text
    if (columns > 1) out += std::string(columns - 1, '~');
  }
  return out;
}

std::string clip_for_message(std::string_view text, size_t max_chars) {
  if (text.size() <= max_chars) return std::string(text);
  size_t keep = max_chars;
  while (keep > 0 && utf8_continuation(text[keep])) --keep;
  return std::string(text.substr(0, keep)) + "...(" + std::to_string(text.size()) + " characters)";
}

}  // namespace nabla::lang
