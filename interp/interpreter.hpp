// The embedding API (DESIGN.md seam 7): what the REPL, the script runner, `nabla
// test` and the C++ test suites use. An Interpreter holds one global environment;
// eval() runs source text in it and keeps every binding, also after an error.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tensor/tensor.hpp"

namespace nabla {

// What went wrong, formatted for the user: "file:line:col: error: message", the
// source line, a caret, then the call trace ("  at train.dsl:12:5 in step()").
struct EvalError {
  enum class Kind { syntax, runtime } kind = Kind::runtime;
  std::string message;  // the whole formatted text
};

struct EvalResult {
  bool ok = true;
  std::optional<EvalError> error;
  // The printed form of the last expression statement's value (the REPL echoes
  // it); empty when the input ended with a non-expression or the value was none.
  std::string echo;
};

// Results of test blocks (`nabla test`).
struct TestReport {
  int passed = 0, failed = 0;
  std::vector<std::string> failures;  // each formatted with its location
};

class Interpreter {
 public:
  Interpreter();
  ~Interpreter();
  Interpreter(const Interpreter&) = delete;
  Interpreter& operator=(const Interpreter&) = delete;

  // Runs `source` (named `name` in errors: "<repl:3>", "<-e>", a path). Test blocks
  // are skipped unless run_tests was called for the file.
  EvalResult eval(const std::string& source, const std::string& name = "<string>");
  EvalResult eval_file(const std::string& path);
  // Runs the file's top level, then every `test "name" { ... }` block in it.
  TestReport run_tests(const std::string& path);

  // Read back values of globals.
  bool has(const std::string& name) const;
  std::optional<Tensor> tensor(const std::string& name) const;
  std::optional<double> number(const std::string& name) const;  // int, float or bool
  std::optional<std::string> str(const std::string& name) const;  // the printed form of any value
  std::vector<std::string> global_names() const;  // user globals and builtins
  // Names of the members of the value `expr` evaluates to (completion after '.').
  std::vector<std::string> member_names(const std::string& expr);

  // Where print() writes (stdout by default): tests capture it.
  void set_output(std::function<void(const std::string&)> sink);
  // Ask a running eval to stop at the next statement or loop iteration (signal-safe:
  // it only sets a flag); the eval fails with "interrupted".
  void interrupt();
  // Arguments of `nabla FILE.dsl args...`, visible as `args` in the language.
  void set_args(const std::vector<std::string>& args);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace nabla
