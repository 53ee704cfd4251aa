// The language tests itself: each tests/lang/*.dsl file runs through the embedding
// API (Interpreter::eval, output captured with set_output) and what it printed and
// the error it raised are compared with comments in the file:
//
//   print(1 + 2)        # expect: 3                    a line of output, in order
//   lossx               # expect error: tests/lang/f.dsl:3:1: error: undefined name 'lossx'
//   let = 1             # expect syntax error: tests/lang/f.dsl:9:5: error: expected a name
//                       # expect error line:   at tests/lang/f.dsl:7:3 in f()
//
// `expect error` is the exact first line of a runtime error, `expect syntax error`
// of a syntax error; `expect error line` is a further line of the message (the
// source line, the caret, a trace line), in order, matched exactly. Output must
// match the expect lines exactly, no more and no fewer.
//
// A line starting with `# ---` starts a new case; each case runs alone in a fresh
// Interpreter, with the earlier cases' lines blanked so that line numbers are those
// of the file. `# case: name` names a case in reports. Files are named by their path
// relative to the repository root (the runner's first argument), so error texts read
// "tests/lang/errors_runtime.dsl:12:5: error: ...".
//
// Usage: golden_runner REPO_ROOT [FILE.dsl ...]  (default: every tests/lang/*.dsl)
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "interp/interpreter.hpp"

namespace {

namespace fs = std::filesystem;

struct Case {
  std::string file, name;
  size_t first_line = 0, end_line = 0;  // 1-based, [first_line, end_line)
  std::vector<std::string> output;
  std::optional<std::string> error;
  bool syntax = false;
  std::vector<std::string> error_lines;
};

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    if (!l.empty() && l.back() == '\r') l.pop_back();
    lines.push_back(l);
  }
  return lines;
}

// Reads one line's `# expect...` or `# case:` comment into the case.
void read_expectation(const std::string& line, Case& c) {
  size_t at = line.find("# expect");
  if (at != std::string::npos) {
    std::string rest = line.substr(at + 8);
    auto take = [&](const char* marker) {
      size_t n = std::char_traits<char>::length(marker);
      return rest.compare(0, n, marker) == 0 ? std::optional<std::string>(rest.substr(n)) : std::nullopt;
    };
    if (auto s = take(" error line: ")) c.error_lines.push_back(*s);
    else if (auto s = take(" syntax error: ")) c.error = *s, c.syntax = true;
    else if (auto s = take(" error: ")) c.error = *s;
    else if (auto s = take(": ")) c.output.push_back(*s);
    else if (rest == ":") c.output.push_back("");
    return;
  }
  if (line.rfind("# case: ", 0) == 0) c.name = line.substr(8);
}

std::vector<Case> read_cases(const std::string& file, const std::vector<std::string>& lines) {
  std::vector<Case> cases;
  Case c{file};
  c.first_line = 1;
  for (size_t i = 0; i <= lines.size(); ++i) {
    if (i == lines.size() || lines[i].rfind("# ---", 0) == 0) {
      c.end_line = i + 1;
      cases.push_back(c);
      c = Case{file};
      c.first_line = i + 2;
      continue;
    }
    read_expectation(lines[i], c);
  }
  return cases;
}

// The case's lines at their places in the file: earlier lines blank, later ones
// left out (so "end of input" errors point at the case's end).
std::string source_of(const Case& c, const std::vector<std::string>& lines) {
  std::string text;
  for (size_t i = 1; i < c.end_line && i <= lines.size(); ++i) text += (i >= c.first_line ? lines[i - 1] : "") + "\n";
  return text;
}

std::string quoted_lines(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += "    | " + l + "\n";
  return s.empty() ? "    (nothing)\n" : s;
}

// What is wrong with a case's run, or "" when it passed.
std::string check(const Case& c, const std::vector<std::string>& out, const nabla::EvalResult& r) {
  std::string why;
  if (out != c.output)
    why += "  output differs\n  expected:\n" + quoted_lines(c.output) + "  got:\n" + quoted_lines(out);
  if (!c.error) {
    if (!r.ok) why += "  unexpected error:\n" + quoted_lines(split_lines(r.error ? r.error->message : "?"));
    return why;
  }
  if (r.ok) return why + "  expected an error, but it ran to the end\n    | " + *c.error + "\n";
  std::vector<std::string> msg = split_lines(r.error->message);
  bool is_syntax = r.error->kind == nabla::EvalError::Kind::syntax;
  if (msg.empty() || msg[0] != *c.error || is_syntax != c.syntax)
    why += std::string("  expected ") + (c.syntax ? "syntax" : "runtime") + " error:\n    | " + *c.error +
           "\n  got " + (is_syntax ? "syntax" : "runtime") + " error:\n" + quoted_lines(msg);
  size_t from = 1;
  for (const auto& want : c.error_lines) {
    auto it = std::find(msg.begin() + std::min(from, msg.size()), msg.end(), want);
    if (it == msg.end()) {
      why += "  error message lacks the line:\n    | " + want + "\n  message:\n" + quoted_lines(msg);
      break;
    }
    from = static_cast<size_t>(it - msg.begin()) + 1;
  }
  return why;
}

bool has_code(const Case& c, const std::vector<std::string>& lines) {
  for (size_t i = c.first_line; i < c.end_line && i <= lines.size(); ++i) {
    const std::string& l = lines[i - 1];
    size_t p = l.find_first_not_of(" \t");
    if (p != std::string::npos && l[p] != '#') return true;
  }
  return false;
}

struct Totals {
  int cases = 0, error_cases = 0, failed = 0;
};

void run_file(const std::string& file, Totals& totals) {
  std::ifstream in(file);
  std::stringstream ss;
  ss << in.rdbuf();
  std::vector<std::string> lines = split_lines(ss.str());
  for (const Case& c : read_cases(file, lines)) {
    if (!has_code(c, lines)) continue;
    ++totals.cases;
    totals.error_cases += c.error.has_value();
    std::string printed;
    nabla::Interpreter interp;
    interp.set_output([&](const std::string& s) { printed += s; });
    nabla::EvalResult r = interp.eval(source_of(c, lines), file);
    std::string why = check(c, split_lines(printed), r);
    if (why.empty()) continue;
    ++totals.failed;
    std::printf("FAIL %s:%zu%s\n%s", file.c_str(), c.first_line, c.name.empty() ? "" : (" (" + c.name + ")").c_str(),
                why.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: golden_runner REPO_ROOT [FILE.dsl ...]\n");
    return 2;
  }
  if (chdir(argv[1]) != 0) return std::perror(argv[1]), 2;
  std::vector<std::string> files(argv + 2, argv + argc);
  if (files.empty()) {
    for (const auto& e : fs::directory_iterator("tests/lang"))
      if (e.path().extension() == ".dsl") files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
  }
  Totals totals;
  for (const auto& f : files) run_file(f, totals);
  std::printf("golden: %d cases (%d error cases) in %zu files: %d passed, %d failed\n", totals.cases,
              totals.error_cases, files.size(), totals.cases - totals.failed, totals.failed);
  return totals.failed == 0 ? 0 : 1;
}
