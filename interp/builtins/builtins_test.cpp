// The test builtins: expect, expect_close and expect_error. Inside a test block a
// failure is recorded (with the calling line) and the block goes on; outside one it
// is an error. Running test blocks is interpreter.cpp's. The table at the end is
// this family's (Note [Builtin tables]).
#include <atomic>
#include <cmath>

#include "interp/builtins/builtins_internal.hpp"

namespace nabla::interp {

namespace {

void record_failure(Evaluator& ev, const std::string& message) {
  if (!ev.tests.active) fail(message);
  std::string where = ev.current_span ? lang::format_error(*ev.current_span, message) : "error: " + message;
  ev.tests.failures.push_back(where);
  ++ev.tests.failed_in_block;
}

Value expect_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("expect", a, {"cond", "msg"}, 1);
  if (!ev.truth(b[0])) record_failure(ev, "expectation failed" + (b.has(1) ? ": " + str(b[1]) : std::string()));
  return Value();
}

Value expect_close_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("expect_close", a, {"actual", "expected", "rtol", "atol", "msg"}, 2);
  double rtol = b.has(2) ? as_num(b[2], "expect_close(): rtol") : 1e-5;
  double atol = b.has(3) ? as_num(b[3], "expect_close(): atol") : 1e-8;
  auto values = [](const Value& v) -> std::pair<std::vector<double>, std::string> {
    if (v.tag == Tag::Tensor) return {to_double_vector(v.t), v.t.shape_str()};
    if (v.is_num()) return {{v.as_double()}, "[]"};
    if (v.tag == Tag::List || v.tag == Tag::Tuple) {
      Tensor t = tensor_from_value(v, DType::f64);
      return {to_double_vector(t), t.shape_str()};
    }
    fail(std::string("expect_close(): expected a tensor or a number, got ") + type_name(v));
  };
  auto [x, xs] = values(b[0]);
  auto [y, ys] = values(b[1]);
  std::string suffix = b.has(4) ? " (" + str(b[4]) + ")" : "";
  if (x.size() != y.size() && y.size() != 1) {
    record_failure(ev, "expect_close failed: shapes differ: " + xs + " vs " + ys + suffix);
    return Value();
  }
  for (size_t k = 0; k < x.size(); ++k) {
    double e = y.size() == 1 ? y[0] : y[k];
    bool ok = std::fabs(x[k] - e) <= atol + rtol * std::fabs(e) || (std::isnan(x[k]) && std::isnan(e)) || x[k] == e;
    if (!ok) {
      record_failure(ev, "expect_close failed at element " + std::to_string(k) + ": " + float_repr(x[k]) + " vs " +
                             float_repr(e) + " (rtol=" + float_repr(rtol) + ", atol=" + float_repr(atol) + ")" + suffix);
      return Value();
    }
  }
  return Value();
}

// Runs expect_error's code: a function (called with no arguments) or a str of code,
// which sees the test block's locals (Evaluator::eval_source).
void run_expected_error_code(Evaluator& ev, const Value& code) {
  if (code.tag == Tag::Str) {
    // Each run is its own source ("<expect_error:3>"): origins are interned by place, and
    // one name for all would give an allocation error the text of another run's code.
    static std::atomic<uint64_t> runs{0};
    std::string name = "<expect_error:" + std::to_string(++runs) + ">";
    ev.eval_source(code.as<StrObj>()->s, name, ev.current_module(), false);
    return;
  }
  CallArgs none;
  ev.call_value(code, none);
}

Value expect_error_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("expect_error", a, {"code", "message"}, 1);
  if (b[0].tag != Tag::Str && !is_callable_value(b[0]))
    fail(std::string("expect_error(): 'code' must be a function or a str of code, got ") + type_name(b[0]));
  std::string part = b.has(1) ? str(b[1]) : "";
  const lang::SourceSpan* span = ev.current_span;
  try {
    run_expected_error_code(ev, b[0]);
  } catch (LangError& e) {
    if (e.interrupted) throw;
    ev.current_span = span;
    if (e.message.find(part) == std::string::npos)
      record_failure(ev, "expect_error: the error '" + e.message + "' does not contain '" + part + "'");
    return Value();
  }
  ev.current_span = span;
  record_failure(ev, "expect_error: no error was raised" + (part.empty() ? std::string() : " (expected '" + part + "')"));
  return Value();
}

const BuiltinEntry kTestBuiltins[] = {
    {"expect", expect_builtin, "expect(cond, msg=none)",
     "Records a failure (in a test block; an error outside one) unless cond is truthy. Example: expect(len([1, 2, 3]) "
     "== 3)"},
    {"expect_close", expect_close_builtin, "expect_close(actual, expected, rtol=1e-05, atol=1e-08, msg=none)",
     "Records a failure unless every element is within atol + rtol * |expected|. Example: "
     "expect_close(sqrt(tensor([1.0, 4.0])), [1.0, 2.0])"},
    {"expect_error", expect_error_builtin, "expect_error(code, message=\"\")",
     "Records a failure unless running code (a function of no arguments, or a str of code that sees "
     "the test block's locals) raises an error containing message. "
     "Example: expect_error(fn() = ones(2) + ones(3), \"shape\"); expect_error(\"1 / 0\", \"division by zero\")"},
};

}  // namespace

const BuiltinLibrary kTestLibrary = {"test", nullptr, kTestBuiltins, nullptr};

}  // namespace nabla::interp
