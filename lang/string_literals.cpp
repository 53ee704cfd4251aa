// String literals' text: escapes resolved, f-string braces, UTF-8 for \u{...}, and the
// indentation of triple-quoted strings (see lang/string_literals.hpp).
#include "lang/string_literals.hpp"
#include "lang/utf8_text.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace nabla::lang {

namespace {

// The span of the escape at byte offset + i of the literal (a triple-quoted string may
// put it lines below the literal's start).
SourceSpan escape_span(const SourceSpan& literal, std::string_view literal_text, size_t offset, size_t i, size_t len) {
  SourceSpan sp = literal;
  std::string_view before = literal_text.substr(0, offset + i);
  size_t newline = before.rfind('\n');
  if (newline == std::string_view::npos) {
    sp.col += static_cast<uint32_t>(offset + i);
  } else {
    sp.line += static_cast<uint32_t>(std::count(before.begin(), before.end(), '\n'));
    sp.col = static_cast<uint32_t>(before.size() - newline);
  }
  sp.end_line = sp.line;
  sp.end_col = sp.col + static_cast<uint32_t>(len);
  return sp;
}


}  // namespace

std::string unescape_literal(const SourceSpan& literal, std::string_view literal_text, std::string_view raw,
                             size_t offset, bool fstring) {
  std::string out;
  for (size_t i = 0; i < raw.size(); ++i) {
    if (fstring && (raw[i] == '{' || raw[i] == '}') && i + 1 < raw.size() && raw[i + 1] == raw[i]) {
      out += raw[i++];
      continue;
    }
    if (raw[i] != '\\') {
      out += raw[i];
      continue;
    }
    size_t at = i;
    char c = raw[++i];
    switch (c) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case '0': out += '\0'; break;
      case 'x': {
        out += static_cast<char>(std::stoi(std::string(raw.substr(i + 1, 2)), nullptr, 16));
        i += 2;
        break;
      }
      case 'u': {
        size_t close = raw.find('}', i);
        std::string_view digits = raw.substr(i + 2, close - i - 2);
        uint32_t cp = static_cast<uint32_t>(std::stoul(std::string(digits), nullptr, 16));
        std::string escape(raw.substr(at, close + 1 - at));
        if (cp > 0x10ffff)
          throw SyntaxError{escape_span(literal, literal_text, offset, at, close + 1 - at),
                            escape + " is past the last Unicode code point (U+10FFFF)"};
        if (cp >= 0xd800 && cp <= 0xdfff)
          throw SyntaxError{escape_span(literal, literal_text, offset, at, close + 1 - at),
                            escape + " is a UTF-16 surrogate, not a character (U+D800 to U+DFFF have no UTF-8 form)"};
        out += utf8_encode(cp);
        i = close;
        break;
      }
      default:
        out += c;  // \\ \" \' \{ \}
    }
  }
  return out;
}

std::string clean_indentation(const std::string& text) {
  std::vector<std::string> lines;
  for (size_t start = 0;;) {
    size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  auto indent = [](const std::string& l) { return l.find_first_not_of(" \t\r"); };
  size_t margin = std::string::npos;  // the least indentation of the lines after the first, blank ones aside
  for (size_t k = 1; k < lines.size(); ++k)
    if (indent(lines[k]) != std::string::npos) margin = std::min(margin, indent(lines[k]));
  lines[0].erase(0, std::min(indent(lines[0]), lines[0].size()));
  for (size_t k = 1; k < lines.size() && margin != std::string::npos; ++k)
    lines[k].erase(0, std::min(margin, lines[k].size()));
  auto blank = [&](const std::string& l) { return indent(l) == std::string::npos; };
  while (!lines.empty() && blank(lines.back())) lines.pop_back();
  size_t first = 0;
  while (first < lines.size() && blank(lines[first])) ++first;
  std::string out;
  for (size_t k = first; k < lines.size(); ++k) {
    if (k > first) out += '\n';
    out += lines[k];
  }
  return out;
}

}  // namespace nabla::lang
