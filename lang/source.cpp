#include "lang/source.hpp"

#include <algorithm>

namespace nabla::lang {

std::string SourceFile::line(uint32_t line_number) const {
  size_t start = 0;
  for (uint32_t l = 1; l < line_number; ++l) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) return "";
    start = nl + 1;
  }
  size_t end = text.find('\n', start);
  std::string s = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
  if (!s.empty() && s.back() == '\r') s.pop_back();
  return s;
}

std::string SourceSpan::where() const {
  if (!valid()) return "<unknown>";
  return file->name + ":" + std::to_string(line) + ":" + std::to_string(col);
}

std::string SourceSpan::text(size_t max_chars) const {
  if (!valid()) return "";
  std::string out;
  for (uint32_t l = line; l <= std::max(line, end_line); ++l) {
    std::string s = file->line(l);
    size_t from = l == line ? std::min<size_t>(col - 1, s.size()) : 0;
    size_t to = l == end_line ? std::min<size_t>(end_col - 1, s.size()) : s.size();
    for (size_t i = from; i < to; ++i) {
      bool space = s[i] == ' ' || s[i] == '\t';
      if (space && (out.empty() || out.back() == ' ')) continue;
      out += space ? ' ' : s[i];
    }
    if (l != end_line && !out.empty() && out.back() != ' ') out += ' ';
    if (out.size() > max_chars) break;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (out.size() > max_chars) out = out.substr(0, max_chars) + "...";
  return out;
}

std::string format_error(const SourceSpan& span, const std::string& message) {
  if (!span.valid()) return "error: " + message;
  std::string out = span.where() + ": error: " + message + "\n";
  std::string text = span.file->line(span.line);
  out += "  " + text + "\n  ";
  // Tabs stay tabs so the caret lines up under them.
  for (uint32_t c = 1; c < span.col && c - 1 < text.size(); ++c) out += text[c - 1] == '\t' ? '\t' : ' ';
  out += '^';
  if (span.end_line == span.line && span.end_col > span.col + 1)
    out += std::string(std::min<size_t>(span.end_col - span.col - 1, text.size() + 1 - span.col), '~');
  return out;
}

}  // namespace nabla::lang
