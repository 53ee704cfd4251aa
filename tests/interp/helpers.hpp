// Helpers of the interpreter suite: an Interpreter whose print output is captured.
#pragma once
#include <doctest/doctest.h>

#include <string>

#include "interp/interpreter.hpp"

namespace nabla::testing {

struct Session {
  Interpreter interp;
  std::string out;
  Session() {
    interp.set_output([this](const std::string& s) { out += s; });
  }
  // Runs code that must succeed; returns what it printed.
  std::string run(const std::string& code) {
    out.clear();
    EvalResult r = interp.eval(code, "t.dsl");
    if (!r.ok) FAIL_CHECK("unexpected error:\n" << r.error->message << "\nin:\n" << code);
    return out;
  }
  // Runs code that must fail; returns the formatted error.
  std::string error(const std::string& code) {
    out.clear();
    EvalResult r = interp.eval(code, "t.dsl");
    if (r.ok) {
      FAIL_CHECK("expected an error from:\n" << code);
      return "";
    }
    return r.error->message;
  }
  std::string echo(const std::string& code) {
    EvalResult r = interp.eval(code, "t.dsl");
    if (!r.ok) FAIL_CHECK("unexpected error:\n" << r.error->message);
    return r.echo;
  }
};

}  // namespace nabla::testing
