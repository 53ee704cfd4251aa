// Ctrl-C is never lost (issue 25, item 8; Note [Interrupts] in
// interp/interpreter.cpp), and f-string format specs follow Python's mini-language.
// The interrupts here are deterministic: the output sink (what print() calls) asks for
// the interrupt, so it arrives in the middle of a statement's native work, as a
// Ctrl-C during a long matmul does. tests/hardening/interrupt.sh sends real SIGINTs.
#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "helpers.hpp"
#include "temp_dir.hpp"

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// An interpreter whose print() interrupts it while `armed`.
struct InterruptingSession {
  nabla::Interpreter interp;
  bool armed = true;
  std::string out;
  InterruptingSession() {
    interp.set_output([this](const std::string& s) {
      out += s;
      if (armed) interp.interrupt();
    });
  }
};

}  // namespace

TEST_CASE("interrupt: one during the last statement's native work is reported there") {
  InterruptingSession s;
  nabla::EvalResult r = s.interp.eval("let kept = 41\nprint(kept)", "t.dsl");
  REQUIRE(!r.ok);
  CHECK(r.error->interrupted);
  CHECK(r.error->message.rfind("t.dsl:2:1: error: interrupted", 0) == 0);
  // Not the last statement: the next one does not run.
  r = s.interp.eval("print(1)\nlet after = 1", "t.dsl");
  CHECK(r.error->interrupted);
  CHECK(r.error->message.rfind("t.dsl:1:1: error: interrupted", 0) == 0);
  s.armed = false;
  CHECK(!s.interp.has("after"));
  // The state stays, and the next eval is not interrupted by a stale request.
  r = s.interp.eval("print(kept + 1)", "t.dsl");
  CHECK(r.ok);
  CHECK(s.out.substr(s.out.size() - 3) == "42\n");
  // A REPL entry that is one expression: the interrupt wins over the echo.
  s.armed = true;
  r = s.interp.eval("print(2)", "<repl:1>");
  CHECK(r.error->interrupted);
  CHECK(r.echo.empty());
}

TEST_CASE("interrupt: inside a function, a module and a test block") {
  InterruptingSession s;
  nabla::EvalResult r = s.interp.eval("fn f() {\n  print(1)\n  return 2\n}\nlet v = f()", "t.dsl");
  CHECK(r.error->interrupted);
  CHECK(contains(r.error->message, "error: interrupted"));
  nabla::testing::TempDir dir;
  std::string path = (dir.path() / "blocks.dsl").string();
  std::ofstream(path) << "test \"first\" { print(1) }\ntest \"second\" { expect(false) }\n";
  nabla::TestReport report = s.interp.run_tests(path);
  CHECK(report.interrupted);
  CHECK(report.failed == 1);
  REQUIRE(report.failures.size() == 1);
  CHECK_MESSAGE(contains(report.failures[0], "blocks.dsl:1:16: error: interrupted"), report.failures[0]);
}

TEST_CASE("interrupt: time.sleep stops at once") {
  nabla::testing::Session s;
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    s.interp.interrupt();
  });
  auto start = std::chrono::steady_clock::now();
  std::string e = s.error("import time\ntime.sleep(30)");
  t.join();
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
  CHECK(contains(e, "t.dsl:2:1: error: interrupted"));
  CHECK(contains(s.error("import time\ntime.sleep(-1)"), "sleep(): seconds must be a non-negative number, got -1"));
}

TEST_CASE("format: specs as Python's format() prints them") {
  nabla::testing::Session s;
  // (value, spec, CPython 3.11's format(value, spec)).
  struct Case {
    const char *value, *spec, *want;
  };
  const Case cases[] = {
      {"-5", "#x", "-0x5"},        {"-5", "#o", "-0o5"},
      {"-5", "#b", "-0b101"},      {"-255", "#X", "-0XFF"},
      {"-5", "x", "-5"},           {"255", "#010x", "0x000000ff"},
      {"-1", "#08b", "-0b00001"},  {"(-9223372036854775807 - 1)", "#x", "-0x8000000000000000"},
      {"(-9223372036854775807 - 1)", ",", "-9,223,372,036,854,775,808"},
      {"1234", "010,", "00,001,234"}, {"-1234", "010,", "-0,001,234"},
      {"1234567", "_x", "12_d687"}, {"5", "<05", "50000"},
      {"5", "^05", "00500"},        {"-5", "=+8", "-      5"},
      {"65", "c", "A"},             {"233", "c", "\xC3\xA9"},
      {"true", ">6", "     1"},     {"true", "d", "1"},
      {"'ab'", "05", "ab000"},      {"'x'", "*^6", "**x***"},
      {"'h\xC3\xA9llo'", "^9", "  h\xC3\xA9llo  "}, {"'h\xC3\xA9llo'", ".2", "h\xC3\xA9"},
      {"'x'", "\xC3\xA9>3", "\xC3\xA9\xC3\xA9x"},
      {"-0.0", "f", "-0.000000"},  {"-0.0", "z.1f", "0.0"},
      {"-0.0001", "z.1f", "0.0"},  {"1.0", ".3", "1.0"},
      {"123.0", ".3", "1.23e+02"}, {"1.5", ".0", "2e+00"},
      {"1.0", ".3g", "1"},         {"1e16", "#", "1.e+16"},
      {"1234.5", "#.0f", "1234."}, {"1.0", "#g", "1.00000"},
      {"5", "f", "5.000000"},      {"5", "%", "500.000000%"},
      {"12345.678", ",.2f", "12,345.68"}, {"1234567.0", ",", "1,234,567.0"},
      {"123456789.0", "_", "123_456_789.0"}, {"math.inf", "%", "inf%"},
      {"math.inf", "010", "0000000inf"}, {"math.inf", "F", "INF"},
      {"math.nan", "+", "+nan"},   {"-math.nan", "f", "nan"},
      {"1.0", "n", "1"},           {"1000", "n", "1000"},
      {"0.0001", "g", "0.0001"},   {"-3.5", "+.2e", "-3.50e+00"},
      {"1e-7", "", "1e-07"},       {"2.5", ".0f", "2"},
  };
  for (const Case& c : cases) {
    std::string code = "import math\nprint(f\"{" + std::string(c.value) + ":" + c.spec + "}|\")";
    CHECK_MESSAGE(s.run(code) == std::string(c.want) + "|\n", c.value << " :" << c.spec);
  }
  // Python's ValueErrors are errors that name the spec.
  const Case errors[] = {
      {"5", ".2", "a precision is not allowed with an int"},
      {"5.0", "x", "'x' needs an int, got float"},
      {"'a'", "+", "a sign is not allowed with a str"},
      {"'a'", "=5", "'=' alignment is not allowed with a str"},
      {"'a'", ",", "',' is not allowed with a str"},
      {"'a'", "d", "needs a number, got str"},
      {"5", ",x", "',' is not allowed with 'x'"},
      {"65", "+c", "a sign is not allowed with 'c'"},
      {"-1", "c", "'c' needs a code point in [0, 0x10FFFF], got -1"},
      {"5", "z", "'z' is not allowed with an int"},
      {"5", "s", "unknown format code 's' for a number"},
      {"1.0", ",n", "',' is not allowed with 'n'"},
      {"5", "1000001", "the width is larger than 1000000"},
  };
  for (const Case& c : errors) {
    std::string e = s.error("print(f\"{" + std::string(c.value) + ":" + c.spec + "}\")");
    if (std::string(c.want).rfind("unknown format code", 0) != 0)  // as tests/lang/errors_runtime.dsl has it
      CHECK_MESSAGE(contains(e, std::string("format spec '") + c.spec + "'"), e);
    CHECK_MESSAGE(contains(e, c.want), e);
  }
}
