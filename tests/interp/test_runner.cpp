// The test runner's parts below the command line (interp/app/test_command.hpp,
// Interpreter::run_tests with TestOptions): -k patterns, which file names a folder
// contributes, selection, -x and the time limit. tests/cli/test_runner_test.sh drives
// the same through `nabla test`.
#include <chrono>
#include <fstream>
#include <stdexcept>
#include <string>

#include "helpers.hpp"
#include "interp/app/test_command.hpp"
#include "temp_dir.hpp"

namespace {

bool selects(const std::string& pattern, const std::string& name) { return nabla::parse_name_filter(pattern)(name); }

std::string pattern_error(const std::string& pattern) {
  try {
    nabla::parse_name_filter(pattern);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("test runner: -k matches words of the name, ignoring case, with and, or, not") {
  CHECK(nabla::parse_name_filter("") == nullptr);
  CHECK(selects("linear", "Linear forward"));
  CHECK_FALSE(selects("conv", "linear forward"));
  CHECK(selects("zero grad", "adam zero grad keeps state"));  // words side by side: one phrase
  CHECK_FALSE(selects("grad zero", "adam zero grad keeps state"));
  CHECK(selects("adam and not sgd", "adam step"));
  CHECK_FALSE(selects("adam and not step", "adam step"));
  CHECK(selects("sgd or adam", "adam step"));
  CHECK(selects("not (sgd or rmsprop) and step", "adam step"));
  CHECK_FALSE(selects("not (sgd or adam)", "adam step"));
  CHECK(selects("a or b and c", "a"));  // and binds tighter than or
  CHECK_FALSE(selects("(a or b) and c", "a"));
}

TEST_CASE("test runner: a bad -k pattern says what was expected") {
  CHECK(pattern_error("a and").find("-k 'a and': expected a word after 'and'") == 0);
  CHECK(pattern_error("(a or b").find("'(' without its ')'") != std::string::npos);
  CHECK(pattern_error("a )").find("unexpected ')'") != std::string::npos);
  CHECK(pattern_error("or a").find("expected a word, found 'or'") != std::string::npos);
}

TEST_CASE("test runner: folders contribute test_*.dsl and *_test.dsl files") {
  CHECK(nabla::is_test_file_name("test_layers.dsl"));
  CHECK(nabla::is_test_file_name("layers_test.dsl"));
  CHECK_FALSE(nabla::is_test_file_name("layers.dsl"));
  CHECK_FALSE(nabla::is_test_file_name("errors_syntax.dsl"));
  CHECK_FALSE(nabla::is_test_file_name("test_layers.py"));
  CHECK_FALSE(nabla::is_test_file_name("tests_debug_profile.dsl"));  // the fuzz corpus' names
  CHECK_FALSE(nabla::is_test_file_name("test_.dsl"));
}

TEST_CASE("test runner: selection, -x and the time limit through run_tests") {
  nabla::testing::TempDir dir;
  std::string path = (dir.path() / "test_t.dsl").string();
  std::ofstream(path) << "test \"first passes\" { expect(true) }\n"
                         "test \"second fails\" { expect(false) }\n"
                         "test \"third spins\" { while true {} }\n"
                         "test \"fourth passes\" { expect(true) }\n";
  std::vector<std::string> seen;
  nabla::TestOptions options;
  options.on_result = [&](const nabla::TestResult& r) { seen.push_back(r.name + (r.passed ? ":pass" : ":fail")); };
  options.select = nabla::parse_name_filter("passes or fails");
  {
    nabla::Interpreter interp;
    nabla::TestReport r = interp.run_tests(path, options);
    CHECK(r.passed == 2);
    CHECK(r.failed == 1);
    CHECK(r.deselected == 1);
    CHECK(seen == std::vector<std::string>{"first passes:pass", "second fails:fail", "fourth passes:pass"});
  }
  seen.clear();
  options.stop_at_first_failure = true;
  {
    nabla::Interpreter interp;
    nabla::TestReport r = interp.run_tests(path, options);
    CHECK(r.stopped);
    CHECK(seen == std::vector<std::string>{"first passes:pass", "second fails:fail"});
  }
  seen.clear();
  options = nabla::TestOptions{};
  options.timeout_s = 0.2;
  options.on_result = [&](const nabla::TestResult& r) {
    seen.push_back(r.name + (r.timed_out ? ":timed out" : r.passed ? ":pass" : ":fail"));
  };
  auto start = std::chrono::steady_clock::now();
  nabla::Interpreter interp;
  nabla::TestReport r = interp.run_tests(path, options);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
  CHECK_FALSE(r.interrupted);
  CHECK(seen == std::vector<std::string>{"first passes:pass", "second fails:fail", "third spins:timed out",
                                         "fourth passes:pass"});
  REQUIRE(r.failures.size() == 2);
  CHECK(r.failures[1].find("test \"third spins\": " + path + ":3:22: error: timed out after 0.2 s") == 0);
  // The interpreter is usable after a timeout, with no stop request left over.
  CHECK(interp.eval("let after = 1", "t.dsl").ok);
}
