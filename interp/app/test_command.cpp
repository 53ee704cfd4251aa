// See interp/app/test_command.hpp.
#include "interp/app/test_command.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include "interp/app/repl.hpp"

namespace nabla {

namespace fs = std::filesystem;

// ---- arguments ----------------------------------------------------------------------

namespace {

// A positive number of seconds, or 0 (no limit); false when `text` is not one.
bool parse_seconds(const std::string& text, double* out) {
  try {
    size_t used = 0;
    double s = std::stod(text, &used);
    if (used != text.size() || !(s >= 0) || s > 1e9) return false;
    *out = s;
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

// Short flags, alone or together ("-v", "-vx"); false when `a` holds another letter.
bool take_short_flags(const std::string& a, TestCommand& cmd) {
  if (a.size() < 2 || a[0] != '-' || a[1] == '-') return false;
  if (a.find_first_not_of("vx", 1) != std::string::npos) return false;
  cmd.verbose |= a.find('v') != std::string::npos;
  cmd.stop_at_first_failure |= a.find('x') != std::string::npos;
  return true;
}

}  // namespace

std::string parse_test_args(const std::vector<std::string>& args, TestCommand& cmd) {
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i], value;
    bool has_value = false;
    if (size_t eq = a.find('='); a.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = a.substr(eq + 1), a = a.substr(0, eq), has_value = true;
    }
    auto take = [&](std::string* out) {
      if (!has_value && i + 1 >= args.size()) return a + " needs a value (see nabla --help)";
      *out = has_value ? value : args[++i];
      return std::string();
    };
    std::string error;
    if (a == "-k") error = take(&cmd.pattern);
    else if (a == "--verbose") cmd.verbose = true;
    else if (a == "--exitfirst") cmd.stop_at_first_failure = true;
    else if (a == "--collect-only") cmd.collect_only = true;
    else if (a == "--timeout") {
      if ((error = take(&value)).empty() && !parse_seconds(value, &cmd.timeout_s))
        error = "--timeout needs a number of seconds (0: no limit), got '" + value + "'";
    } else if (take_short_flags(a, cmd)) continue;
    else if (a.size() > 1 && a[0] == '-') error = "unknown option '" + a + "' for nabla test (see nabla --help)";
    else cmd.paths.push_back(a);
    if (!error.empty()) return error;
  }
  if (cmd.paths.empty()) return "`nabla test` needs a PATH (a .dsl file or a folder)";
  try {
    parse_name_filter(cmd.pattern);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

// ---- -k -------------------------------------------------------------------------------

namespace {

// A -k pattern, parsed:  or_expr := and_expr ('or' and_expr)*
//                        and_expr := not_expr ('and' not_expr)*
//                        not_expr := 'not' not_expr | '(' or_expr ')' | phrase
struct NameMatch {
  enum class Kind { phrase, negation, all_of, any_of } kind = Kind::phrase;
  std::string phrase;  // lower case
  std::vector<NameMatch> parts;

  bool matches(const std::string& lower_name) const {
    switch (kind) {
      case Kind::phrase: return lower_name.find(phrase) != std::string::npos;
      case Kind::negation: return !parts[0].matches(lower_name);
      case Kind::all_of:
        return std::all_of(parts.begin(), parts.end(), [&](const NameMatch& p) { return p.matches(lower_name); });
      case Kind::any_of:
        return std::any_of(parts.begin(), parts.end(), [&](const NameMatch& p) { return p.matches(lower_name); });
    }
    return false;
  }
};

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

class PatternParser {
 public:
  explicit PatternParser(const std::string& pattern) : pattern_(pattern) {
    for (size_t i = 0; i < pattern.size();) {
      char c = pattern[i];
      if (std::isspace(static_cast<unsigned char>(c))) ++i;
      else if (c == '(' || c == ')') tokens_.push_back(std::string(1, c)), ++i;
      else {
        size_t end = pattern.find_first_of(" \t\n()", i);
        if (end == std::string::npos) end = pattern.size();
        tokens_.push_back(pattern.substr(i, end - i));
        i = end;
      }
    }
  }

  NameMatch parse() {
    NameMatch m = or_expr();
    if (pos_ < tokens_.size()) error("unexpected '" + tokens_[pos_] + "'");
    return m;
  }

 private:
  static bool is_keyword(const std::string& t) { return t == "and" || t == "or" || t == "not"; }
  bool at(const char* t) const { return pos_ < tokens_.size() && tokens_[pos_] == t; }

  [[noreturn]] void error(const std::string& what) const {
    throw std::invalid_argument("-k '" + pattern_ + "': " + what +
                                " (a pattern is words combined with and, or, not and parentheses)");
  }

  NameMatch combine(NameMatch::Kind kind, const char* op, NameMatch (PatternParser::*operand)()) {
    NameMatch first = (this->*operand)();
    if (!at(op)) return first;
    NameMatch m;
    m.kind = kind;
    m.parts.push_back(std::move(first));
    while (at(op)) ++pos_, m.parts.push_back((this->*operand)());
    return m;
  }
  NameMatch or_expr() { return combine(NameMatch::Kind::any_of, "or", &PatternParser::and_expr); }
  NameMatch and_expr() { return combine(NameMatch::Kind::all_of, "and", &PatternParser::not_expr); }

  NameMatch not_expr() {
    if (pos_ >= tokens_.size()) error(pos_ == 0 ? "empty pattern" : "expected a word after '" + tokens_[pos_ - 1] + "'");
    if (at("not")) {
      ++pos_;
      NameMatch m;
      m.kind = NameMatch::Kind::negation;
      m.parts.push_back(not_expr());
      return m;
    }
    if (at("(")) {
      ++pos_;
      NameMatch m = or_expr();
      if (!at(")")) error("'(' without its ')'");
      ++pos_;
      return m;
    }
    if (at(")") || is_keyword(tokens_[pos_])) error("expected a word, found '" + tokens_[pos_] + "'");
    NameMatch m;  // a phrase: the words up to the next keyword or parenthesis
    m.phrase = lower(tokens_[pos_++]);
    while (pos_ < tokens_.size() && !is_keyword(tokens_[pos_]) && tokens_[pos_] != "(" && tokens_[pos_] != ")")
      m.phrase.append(" ").append(lower(tokens_[pos_++]));
    return m;
  }

  std::string pattern_;
  std::vector<std::string> tokens_;
  size_t pos_ = 0;
};

}  // namespace

std::function<bool(const std::string&)> parse_name_filter(const std::string& pattern) {
  if (pattern.find_first_not_of(" \t\n") == std::string::npos) return nullptr;
  auto match = std::make_shared<NameMatch>(PatternParser(pattern).parse());
  return [match](const std::string& name) { return match->matches(lower(name)); };
}

// ---- collecting ------------------------------------------------------------------------

bool is_test_file_name(const std::string& name) {
  auto ends_with = [&](const std::string& s) { return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0; };
  if (!ends_with(".dsl")) return false;
  return (name.rfind("test_", 0) == 0 && name.size() > 9) || (ends_with("_test.dsl") && name.size() > 9);
}

namespace {

void collect_folder(const fs::path& folder, std::vector<std::string>& found) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(folder, fs::directory_options::skip_permission_denied, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    std::string name = it->path().filename().string();
    if (it->is_directory(ec) && name[0] == '.') it.disable_recursion_pending();
    else if (it->is_regular_file(ec) && is_test_file_name(name)) found.push_back(it->path().string());
  }
}

}  // namespace

std::string collect_test_files(const std::vector<std::string>& paths, std::vector<std::string>& files) {
  for (const auto& path : paths) {
    std::error_code ec;
    if (!fs::exists(path, ec)) return "no such file or folder: '" + path + "'";
    if (!fs::is_directory(path, ec)) {
      files.push_back(path);
      continue;
    }
    std::vector<std::string> found;
    collect_folder(path, found);
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return "";
}

// ---- running ---------------------------------------------------------------------------

namespace {

std::string test_id(const std::string& file, const std::string& name) {
  return name.empty() ? file + " (top level)" : file + "::" + name;
}

// -v: "PASS file::name (0.012 s)", then a failure's messages.
void print_verbose(const std::string& file, const TestResult& r) {
  std::printf("%s %s (%.3f s)\n", r.passed ? "PASS" : "FAIL", test_id(file, r.name).c_str(), r.seconds);
  for (const auto& f : r.failures) std::printf("%s\n", f.c_str());
  std::fflush(stdout);
}

void print_failures(const TestResult& r) {
  std::string prefix = r.name.empty() ? "" : "test \"" + r.name + "\": ";
  for (const auto& f : r.failures) std::printf("FAIL %s%s\n", prefix.c_str(), f.c_str());
  std::fflush(stdout);
}

// --collect-only: each selected test as file::name, then the count.
int list_tests(const std::vector<std::string>& files, const std::function<bool(const std::string&)>& select) {
  int listed = 0, deselected = 0, errors = 0;
  for (const auto& file : files) {
    TestCollection c = collect_tests(file);
    if (!c.error.empty()) {
      std::printf("ERROR %s\n", c.error.c_str()), ++errors;
      continue;
    }
    for (const auto& name : c.names) {
      if (select && !select(name)) ++deselected;
      else std::printf("%s\n", test_id(file, name).c_str()), ++listed;
    }
  }
  std::printf("%d test%s in %zu file%s%s%s\n", listed, listed == 1 ? "" : "s", files.size(), files.size() == 1 ? "" : "s",
              deselected ? (", " + std::to_string(deselected) + " deselected").c_str() : "",
              errors ? (", " + std::to_string(errors) + " not collected").c_str() : "");
  return errors ? 2 : 0;
}

}  // namespace

int run_test_files(const TestCommand& cmd, const std::vector<std::string>& files,
                   const std::function<void(Interpreter&)>& configure) {
  TestOptions options;
  options.select = parse_name_filter(cmd.pattern);
  if (cmd.collect_only) return list_tests(files, options.select);
  options.timeout_s = cmd.timeout_s;
  options.stop_at_first_failure = cmd.stop_at_first_failure;
  TestReport total;
  for (size_t k = 0; k < files.size() && !total.interrupted && !total.stopped; ++k) {
    options.on_result = [&](const TestResult& r) { cmd.verbose ? print_verbose(files[k], r) : print_failures(r); };
    Interpreter interp;
    configure(interp);
    InterruptScope scope(interp);
    TestReport report = interp.run_tests(files[k], options);
    total.passed += report.passed, total.failed += report.failed, total.deselected += report.deselected;
    total.interrupted = report.interrupted, total.stopped = report.stopped;
  }
  if (total.stopped) std::printf("stopped at the first failure (-x)\n");
  std::printf("%d passed, %d failed%s%s\n", total.passed, total.failed,
              total.deselected ? (", " + std::to_string(total.deselected) + " deselected").c_str() : "",
              total.interrupted ? " (interrupted)" : "");
  std::fflush(stdout);
  return total.interrupted ? 130 : total.failed == 0 ? 0 : 1;
}

}  // namespace nabla
