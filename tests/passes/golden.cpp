// Golden tests of the passes: each tests/passes/golden/<name>.ir is an input graph in
// the IR text form, with directives in comment lines:
//
//   # RUN: cse,dce          the pipeline (parse_pipeline syntax), once, first line
//   # CHECK: text           a line of the printed result contains `text`
//   # CHECK-NOT: text       no line between the neighbouring CHECK matches contains it
//   # NOTE: text            some explanation note of the run contains `text`
//   # ERROR: text           reading and verifying the file (and the pipeline, if
//                           any) fails with an error that contains `text`: a
//                           verifier golden case (no RUN line needed)
//
// Like LLVM's FileCheck, but simpler: the printed graph is split into lines; each
// CHECK, in file order, matches the first line at or after the line below the
// previous CHECK's match (so two CHECKs never match one line); a CHECK-NOT covers the
// lines from there up to (not including) the next CHECK's match, or to the end when no
// CHECK follows. Other '#' lines are comments (the parser skips them).
//
// Besides the checks, every file asserts: the result reads back to the same text, and
// a second run of the pipeline on the result makes 0 changes and prints it
// unchanged (every pass is idempotent). Adding a case: drop a new .ir file in golden/.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "graph/pass_manager.hpp"

using namespace nabla;
using namespace nabla::graph;

namespace {

struct Directive {
  std::string kind;  // "CHECK", "CHECK-NOT", "NOTE"
  std::string text;
  int line = 0;  // in the .ir file
};

struct GoldenCase {
  std::string pipeline;
  std::vector<Directive> directives;
};

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The directives of a file: "# KIND: text" at the start of a line (after spaces).
GoldenCase read_directives(const std::string& text) {
  GoldenCase c;
  std::vector<std::string> lines = split_lines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string line = lines[i].substr(std::min(lines[i].size(), lines[i].find_first_not_of(" \t")));
    for (const char* kind : {"RUN", "CHECK", "CHECK-NOT", "NOTE", "ERROR"}) {
      std::string prefix = std::string("# ") + kind + ":";
      if (line.rfind(prefix, 0) != 0) continue;
      std::string rest = line.substr(prefix.size());
      rest = rest.substr(std::min(rest.size(), rest.find_first_not_of(' ')));
      if (std::string(kind) == "RUN")
        c.pipeline = rest;
      else
        c.directives.push_back({kind, rest, static_cast<int>(i + 1)});
    }
  }
  return c;
}

// The first failing directive as "file line N: CHECK: text ...", or "".
std::string match_checks(const std::vector<Directive>& directives, const std::vector<std::string>& out) {
  size_t from = 0;
  std::vector<const Directive*> pending_nots;
  auto contains = [&](size_t line, const Directive& d) { return out[line].find(d.text) != std::string::npos; };
  auto check_nots = [&](size_t until) -> std::string {
    for (const Directive* d : pending_nots)
      for (size_t k = from; k < until; ++k)
        if (contains(k, *d))
          return "line " + std::to_string(d->line) + ": CHECK-NOT: " + d->text + " found in: " + out[k];
    pending_nots.clear();
    return "";
  };
  for (const Directive& d : directives) {
    if (d.kind == "CHECK-NOT") pending_nots.push_back(&d);
    if (d.kind != "CHECK") continue;
    size_t at = from;
    while (at < out.size() && !contains(at, d)) ++at;
    if (at == out.size()) return "line " + std::to_string(d.line) + ": CHECK: " + d.text + " not found";
    if (std::string e = check_nots(at); !e.empty()) return e;
    from = at + 1;
  }
  return check_nots(out.size());
}

std::string match_notes(const std::vector<Directive>& directives, const std::vector<PassRecord>& records) {
  for (const Directive& d : directives) {
    if (d.kind != "NOTE") continue;
    bool found = false;
    for (const PassRecord& r : records)
      for (const std::string& note : r.notes) found = found || note.find(d.text) != std::string::npos;
    if (!found) return "line " + std::to_string(d.line) + ": NOTE: " + d.text + " not among the notes";
  }
  return "";
}

int total_changes(const std::vector<PassRecord>& records) {
  int n = 0;
  for (const PassRecord& r : records) n += r.changes;
  return n;
}

// An ERROR case: the text must be refused, by the parser, the verifier or the pipeline,
// with every ERROR line's text in the message.
void run_error_file(const GoldenCase& c, const std::string& text) {
  std::string error = "(no error)";
  try {
    Graph g = parse_graph(text);
    verify(g);
    if (!c.pipeline.empty()) run_pipeline(g, parse_pipeline(c.pipeline), {});
  } catch (const Error& e) {
    error = e.what();
  }
  INFO("error: " << error);
  for (const Directive& d : c.directives)
    if (d.kind == "ERROR") CHECK_MESSAGE(error.find(d.text) != std::string::npos, "line " << d.line << ": ERROR: " << d.text);
}

void run_golden_file(const std::filesystem::path& path) {
  std::string text = read_text(path);
  GoldenCase c = read_directives(text);
  for (const Directive& d : c.directives)
    if (d.kind == "ERROR") return run_error_file(c, text);
  REQUIRE_MESSAGE(!c.pipeline.empty(), "no '# RUN: <pipeline>' line");
  Graph g = parse_graph(text);
  PipelineOptions opt;
  opt.explain = true;
  PipelineResult first = run_pipeline(g, parse_pipeline(c.pipeline), opt);
  std::string printed = print_graph(g);
  INFO("pipeline result:\n" << printed << format_records(first.records));
  CHECK(match_checks(c.directives, split_lines(printed)) == "");
  CHECK(match_notes(c.directives, first.records) == "");
  CHECK(print_graph(parse_graph(printed, g.constants)) == printed);
  PipelineResult second = run_pipeline(g, parse_pipeline(c.pipeline), opt);
  CHECK_MESSAGE(total_changes(second.records) == 0, "second run:\n" << format_records(second.records));
  CHECK(print_graph(g) == printed);
}

std::vector<std::filesystem::path> golden_files() {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(std::string(NABLA_TEST_DATA) + "/passes/golden"))
    if (e.path().extension() == ".ir") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

TEST_CASE("golden pass files") {
  std::vector<std::filesystem::path> files = golden_files();
  REQUIRE(files.size() >= 5);
  for (const auto& path : files) {
    SUBCASE(path.filename().string().c_str()) {
      INFO("file: " << path.string());
      try {
        run_golden_file(path);
      } catch (const std::exception& e) {
        FAIL(path.filename().string() << ": " << e.what());
      }
    }
  }
}

TEST_CASE("the golden checker's matching rules") {
  std::vector<std::string> out = {"a = relu(x)", "b = neg(a)", "return b"};
  auto check = [&](std::vector<Directive> ds) { return match_checks(ds, out); };
  CHECK(check({{"CHECK", "relu"}, {"CHECK", "neg"}, {"CHECK", "return"}}) == "");
  CHECK(check({{"CHECK", "neg"}, {"CHECK", "relu"}}) != "");   // order matters
  CHECK(check({{"CHECK", "relu"}, {"CHECK", "relu"}}) != "");  // one line, one match
  CHECK(check({{"CHECK", "relu"}, {"CHECK-NOT", "neg"}, {"CHECK", "return"}}) != "");
  CHECK(check({{"CHECK", "neg"}, {"CHECK-NOT", "relu"}}) == "");  // relu is before the range
  CHECK(check({{"CHECK-NOT", "neg"}, {"CHECK", "relu"}}) == "");  // range ends at relu's line
  CHECK(check({{"CHECK-NOT", "tanh"}}) == "");
  CHECK(check({{"CHECK-NOT", "return"}}) != "");
}
