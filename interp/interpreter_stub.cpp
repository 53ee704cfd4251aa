// TEMPORARY stand-in for the evaluator (branch `eval`), so that the CLI, the REPL and
// their tests can be built and driven before it lands. It understands a tiny subset:
// `let NAME = VALUE`, a bare NAME (echoes its value), `print(NAME or VALUE)`,
// `while true {}` (loops until interrupt()), and echoes anything else. Delete this
// file (and interp/parser_stub.cpp) when the real interpreter is merged.
#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "interp/interpreter.hpp"
#include "lang/source.hpp"

namespace nabla {

struct Interpreter::Impl {
  std::map<std::string, std::string> vars;
  std::function<void(const std::string&)> out = [](const std::string& s) { std::fputs(s.c_str(), stdout); };
  std::atomic<bool> stop{false};
  std::vector<std::string> args;
};

namespace {

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t\r\n"), b = s.find_last_not_of(" \t\r\n");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

bool is_name(const std::string& s) {
  if (s.empty() || !(std::isalpha((unsigned char)s[0]) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum((unsigned char)c) || c == '_')) return false;
  return true;
}

EvalError error_at(const std::shared_ptr<const lang::SourceFile>& file, uint32_t line, const std::string& msg) {
  lang::SourceSpan span{file, line, 1, line, 1};
  return EvalError{EvalError::Kind::runtime, lang::format_error(span, msg)};
}

}  // namespace

Interpreter::Interpreter() : impl_(std::make_unique<Impl>()) {}
Interpreter::~Interpreter() = default;

EvalResult Interpreter::eval(const std::string& source, const std::string& name) {
  impl_->stop = false;
  auto file = std::make_shared<lang::SourceFile>(lang::SourceFile{name, source});
  EvalResult result;
  std::istringstream in(source);
  std::string raw;
  uint32_t line = 0;
  auto value_of = [&](const std::string& e, std::string& v) {
    if (!is_name(e)) return v = e, true;
    auto it = impl_->vars.find(e);
    if (it == impl_->vars.end()) {
      result.ok = false;
      result.error = error_at(file, line, "undefined name '" + e + "'");
      return false;
    }
    return v = it->second, true;
  };
  while (std::getline(in, raw)) {
    ++line;
    // Lines with an open bracket join the next one (a statement across lines).
    auto open = [](const std::string& t) { return std::count(t.begin(), t.end(), '[') + std::count(t.begin(), t.end(), '(') > std::count(t.begin(), t.end(), ']') + std::count(t.begin(), t.end(), ')'); };
    for (std::string more; open(raw) && std::getline(in, more); ++line) raw += " " + trim(more);
    std::string s = trim(raw), v;
    result.echo.clear();
    if (s.empty() || s[0] == '#') continue;
    if (s == "while true {}") {
      while (!impl_->stop) {
      }
      result.ok = false;
      result.error = error_at(file, line, "interrupted");
      return result;
    }
    if (s.rfind("let ", 0) == 0 && s.find('=') != std::string::npos) {
      size_t eq = s.find('=');
      if (!value_of(trim(s.substr(eq + 1)), v)) return result;
      impl_->vars[trim(s.substr(4, eq - 4))] = v;
    } else if (s.rfind("print(", 0) == 0 && s.back() == ')') {
      if (!value_of(trim(s.substr(6, s.size() - 7)), v)) return result;
      impl_->out(v + "\n");
    } else if (is_name(s)) {
      if (!value_of(s, v)) return result;
      result.echo = v;
    } else {
      result.echo = s;
    }
  }
  return result;
}

EvalResult Interpreter::eval_file(const std::string& path) {
  std::ifstream f(path);
  if (!f) return EvalResult{false, EvalError{EvalError::Kind::runtime, "error: cannot open '" + path + "'"}, ""};
  std::stringstream ss;
  ss << f.rdbuf();
  return eval(ss.str(), path);
}

TestReport Interpreter::run_tests(const std::string& path) {
  TestReport report;
  EvalResult r = eval_file(path);
  if (r.ok) ++report.passed;
  else ++report.failed, report.failures.push_back(r.error->message);
  return report;
}

bool Interpreter::has(const std::string& name) const { return impl_->vars.count(name) > 0; }
std::optional<Tensor> Interpreter::tensor(const std::string&) const { return std::nullopt; }
std::optional<double> Interpreter::number(const std::string& name) const {
  auto it = impl_->vars.find(name);
  if (it == impl_->vars.end()) return std::nullopt;
  return std::strtod(it->second.c_str(), nullptr);
}
std::optional<std::string> Interpreter::str(const std::string& name) const {
  auto it = impl_->vars.find(name);
  if (it == impl_->vars.end()) return std::nullopt;
  return it->second;
}
std::vector<std::string> Interpreter::global_names() const {
  std::vector<std::string> names{"print", "range", "randn", "zeros", "grad", "len"};
  for (const auto& [k, v] : impl_->vars) names.push_back(k);
  return names;
}
std::vector<std::string> Interpreter::member_names(const std::string& expr) {
  if (!impl_->vars.count(expr)) return {};
  return {"backward", "grad", "shape", "sum", "size"};
}
void Interpreter::set_output(std::function<void(const std::string&)> sink) { impl_->out = std::move(sink); }
void Interpreter::interrupt() { impl_->stop = true; }
void Interpreter::set_args(const std::vector<std::string>& args) { impl_->args = args; }

}  // namespace nabla
