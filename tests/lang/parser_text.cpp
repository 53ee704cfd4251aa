// Text in and out of the parser (issue 25): \u{...} escapes that are not characters
// are syntax errors at the escape, in every kind of literal; a long line's error echo
// is a window of the line (Note [Echoed lines] in lang/source.cpp) while ordinary
// lines keep their exact format; span text costs O(its cap), not O(the line).
#include <doctest/doctest.h>

#include <chrono>

#include "lang/parser.hpp"
#include "parse_text.hpp"

using namespace nabla::lang;

namespace {

std::string error_of(const std::string& text) {
  ParseResult r = parse_text(text);
  REQUIRE_FALSE(r.program);
  return *r.error;
}

std::string string_value(const std::string& literal) {
  ParseResult r = parse_text("let s = " + literal);
  REQUIRE_MESSAGE(r.program, literal);
  const Expr& e = *static_cast<const LetStmt&>(*r.program->stmts.at(0)).value;
  REQUIRE(e.kind == ExprKind::String);
  return static_cast<const StringLit&>(e).value;
}

bool valid_utf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return false;
    i += n;
  }
  return true;
}

SourceSpan span_on(const std::shared_ptr<SourceFile>& file, uint32_t line, uint32_t col, uint32_t end_col) {
  SourceSpan s;
  s.file = file;
  s.line = s.end_line = line;
  s.col = col;
  s.end_col = end_col;
  return s;
}

}  // namespace

TEST_CASE("\\u{...} escapes that are not characters are errors at the escape") {
  CHECK(error_of("let s = \"ab\\u{D800}\"") ==
        "t.dsl:1:12: error: \\u{D800} is a UTF-16 surrogate, not a character (U+D800 to U+DFFF have no UTF-8 form)\n"
        "  let s = \"ab\\u{D800}\"\n"
        "             ^~~~~~~~");
  CHECK(error_of("let s = 'x\\u{110000}'") ==
        "t.dsl:1:11: error: \\u{110000} is past the last Unicode code point (U+10FFFF)\n"
        "  let s = 'x\\u{110000}'\n"
        "            ^~~~~~~~~~");
  // Every surrogate, both ends, with leading zeros; every literal that takes escapes.
  for (const char* bad : {"\\u{d800}", "\\u{DFFF}", "\\u{0DBFF}", "\\u{00dc00}", "\\u{FFFFFF}", "\\u{110000}"}) {
    CAPTURE(bad);
    std::string b(bad);
    for (const std::string& text : {"let s = \"" + b + "\"", "let s = '" + b + "'", "let s = f\"{1}" + b + "\"",
                                    "test \"" + b + "\" { }", "import \"" + b + ".dsl\" as m"}) {
      CAPTURE(text);
      std::string err = error_of(text);
      CHECK(err.find(b + " is ") != std::string::npos);
      // The caret is under the backslash.
      size_t col = text.find('\\') + 1;
      CHECK(err.find("t.dsl:1:" + std::to_string(col) + ": error:") == 0);
    }
  }
}

TEST_CASE("valid escapes make the bytes they say, and valid UTF-8 where they are characters") {
  CHECK(string_value("\"\\u{41}\\u{E9}\\u{20AC}\\u{1F600}\"") == "A\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
  CHECK(string_value("\"\\u{D7FF}\\u{E000}\\u{FFFF}\\u{10FFFF}\"") ==
        "\xed\x9f\xbf\xee\x80\x80\xef\xbf\xbf\xf4\x8f\xbf\xbf");
  CHECK(valid_utf8(string_value("\"\\u{10FFFF}\\u{0}\\u{7F}\\u{80}\\u{7FF}\\u{800}\"")));
  CHECK(string_value("\"\\x41\\n\\t\\\\\\\"\"") == "A\n\t\\\"");
  CHECK(string_value("\"\\xff\"") == "\xff");  // \xHH is a byte (docs/LANGUAGE.md)
  // {{ and }} in f-string text, next to escapes.
  ParseResult r = parse_text("let s = f\"{{\\u{E9}}}{1}\"");
  REQUIRE(r.program);
  const auto& f = static_cast<const FString&>(*static_cast<const LetStmt&>(*r.program->stmts.at(0)).value);
  CHECK(f.parts.at(0).text == "{\xc3\xa9}");
}

TEST_CASE("an error on a huge line echoes a window of it, not the line") {
  std::string digits(10'000'000, '7');
  std::string err = error_of("let x = " + digits + "\n");
  CHECK(err.size() < 1000);
  CHECK(err ==
        "t.dsl:1:9: error: integer literal 7777777777777777777777777777777777777777...(10000000 characters) does "
        "not fit in 64 bits\n"
        "  let x = " + std::string(80, '7') + "...\n"
        "          ^" + std::string(80, '~'));
  // Far into the line: "..." on both sides, the caret under the column.
  std::string line = std::string(5000, 'a') + " = )" + std::string(5000, 'b');
  err = error_of(line);
  auto lines = [](const std::string& s) {
    std::vector<std::string> out;
    size_t start = 0;
    for (size_t nl; (nl = s.find('\n', start)) != std::string::npos; start = nl + 1) out.push_back(s.substr(start, nl - start));
    out.push_back(s.substr(start));
    return out;
  };
  auto parts = lines(err);
  REQUIRE(parts.size() == 3);
  CHECK(parts[0] == "t.dsl:1:5004: error: expected an expression after '='");
  CHECK(parts[1].substr(0, 5) == "  ...");
  CHECK(parts[1].substr(parts[1].size() - 3) == "...");
  CHECK(parts[1].size() == 2 + 3 + kMaxEchoedLine + 3);
  size_t caret = parts[2].find('^');
  CHECK(parts[1][caret] == ')');
  CHECK(parts[2].size() == caret + 1);
}

TEST_CASE("the echo window keeps UTF-8 characters whole and ordinary lines exact") {
  auto file = std::make_shared<SourceFile>();
  file->name = "u.dsl";
  std::string e_acute = "\xc3\xa9";
  std::string line;
  for (int i = 0; i < 300; ++i) line += e_acute;  // 600 bytes of 2-byte characters
  file->text = line + "\n" + "let x = 1\n";
  for (uint32_t col : {1u, 2u, 100u, 101u, 301u, 599u, 601u}) {
    CAPTURE(col);
    std::string out = format_error(span_on(file, 1, col, col + 7), "m");
    std::string echoed = out.substr(out.find('\n') + 1);
    echoed = echoed.substr(0, echoed.find('\n'));
    CHECK(valid_utf8(echoed));
    CHECK(echoed.size() <= 2 + 3 + kMaxEchoedLine + 2 + 3);
  }
  CHECK(format_error(span_on(file, 2, 5, 6), "bad") == "u.dsl:2:5: error: bad\n  let x = 1\n      ^");
  CHECK(format_error(span_on(file, 2, 5, 10), "bad") == "u.dsl:2:5: error: bad\n  let x = 1\n      ^~~~~");
  // A line exactly kMaxEchoedLine long is echoed whole.
  file->text = std::string(kMaxEchoedLine, 'z');
  auto f2 = std::make_shared<SourceFile>(*file);
  std::string out = format_error(span_on(f2, 1, kMaxEchoedLine, kMaxEchoedLine + 1), "m");
  CHECK(out == "u.dsl:1:" + std::to_string(kMaxEchoedLine) + ": error: m\n  " + f2->text + "\n  " +
                   std::string(kMaxEchoedLine - 1, ' ') + "^");
}

TEST_CASE("an echoed source line shows control characters as U+FFFD, the caret still under its column") {
  auto file = std::make_shared<SourceFile>();
  file->name = "c.dsl";
  file->text = "x = \x1b]2;owned\x07 + 1\n";
  std::string out = format_error(span_on(file, 1, 16, 17), "bad");
  CHECK(out.find('\x1b') == std::string::npos);
  CHECK(out.find('\x07') == std::string::npos);
  CHECK(out == "c.dsl:1:16: error: bad\n  x = \xEF\xBF\xBD]2;owned\xEF\xBF\xBD + 1\n                 ^");
}

TEST_CASE("span text costs O(its cap) on a huge line, and lines are found by index") {
  auto file = std::make_shared<SourceFile>();
  file->name = "big.dsl";
  std::string many;
  for (int i = 0; i < 200000; ++i) many += "x = x + 1\n";
  file->text = many + std::string(20'000'000, 'q');
  auto start = std::chrono::steady_clock::now();
  int wrong = 0;
  for (uint32_t k = 0; k < 20000; ++k) {
    SourceSpan wide = span_on(file, 200001, 1, 20'000'000);
    wrong += wide.text().size() != 63;  // 60 and "..."
    wrong += file->line_view(200000 - k * 7) != "x = x + 1";
  }
  CHECK(wrong == 0);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(seconds < 10);  // a copy of the 20 MB line per span: 400 GB of copying
  CHECK(span_on(file, 200001, 1, 20'000'000).text(10) == "qqqqqqqqqq...");
  CHECK(file->line(200002) == "");
  CHECK(file->line(0) == "");
}
