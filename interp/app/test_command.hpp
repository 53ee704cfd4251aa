// `nabla test [OPTIONS] PATH...`, the language's test runner, with what pytest users
// expect: -k PATTERN, -v, -x, --timeout S and --collect-only. Folders are searched for
// test_*.dsl and *_test.dsl files; a file named on the command line runs whatever its
// name. Each file runs in a fresh interpreter (Interpreter::run_tests).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "interp/interpreter.hpp"

namespace nabla {

struct TestCommand {
  std::vector<std::string> paths;
  std::string pattern;  // -k: see parse_name_filter
  bool verbose = false;               // -v: each test's name, PASS or FAIL, and time
  bool stop_at_first_failure = false; // -x
  bool collect_only = false;          // --collect-only: list the tests, run none
  double timeout_s = 60;              // --timeout S per test; 0: none
};

// Reads the arguments after "test"; "" when they are fine, else the message.
std::string parse_test_args(const std::vector<std::string>& args, TestCommand& cmd);

// -k PATTERN as pytest's simple form: words matched as substrings of the test name,
// ignoring case, combined with `and`, `or`, `not` and parentheses; words next to each
// other are one phrase ("linear forward and not cuda"). An empty pattern selects
// every test. Throws std::invalid_argument with the message for a bad pattern.
std::function<bool(const std::string&)> parse_name_filter(const std::string& pattern);

// Whether a file found in a folder is a test file: test_*.dsl or *_test.dsl.
bool is_test_file_name(const std::string& file_name);

// The files to run: each path that is a file, and the test files under each folder
// (recursively, sorted; folders starting with '.' are skipped). "" when every path
// exists, else the message.
std::string collect_test_files(const std::vector<std::string>& paths, std::vector<std::string>& files);

// Runs (or with collect_only lists) the tests of `files`, printing as it goes and
// the summary last; returns the exit status (0, 1 when a test failed, 2 when a file
// cannot be collected, 130 when Ctrl-C stopped the run). `configure` applies the
// command line's options (limits, --full-trace) to each file's fresh interpreter.
int run_test_files(const TestCommand& cmd, const std::vector<std::string>& files,
                   const std::function<void(Interpreter&)>& configure);

}  // namespace nabla
