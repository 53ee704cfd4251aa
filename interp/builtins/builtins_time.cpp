// The native `time` module (`import time`): perf_counter() (monotonic seconds, for
// timing), time() (seconds since the epoch) and sleep(seconds), which the sandbox
// refuses. The table at the end is this family's (Note [Builtin tables]).
#include <algorithm>
#include <chrono>
#include <thread>

#include "interp/builtins/builtins_internal.hpp"

namespace nabla::interp {

namespace {

// Sleeps in slices of at most 20 ms, so that Ctrl-C ends a long sleep at once
// (Note [Interrupts] in interp/interpreter.cpp); `seconds` may be inf.
void sleep_interruptibly(Evaluator& ev, double seconds) {
  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  for (;;) {
    ev.check_interrupt();
    double left = seconds - std::chrono::duration<double>(Clock::now() - start).count();
    if (left <= 0) return;
    std::this_thread::sleep_for(std::chrono::duration<double>(std::min(left, 0.02)));
  }
}

Value perf_counter_builtin(Evaluator&, CallArgs& a) {
  bind("perf_counter", a, {}, 0);
  auto now = std::chrono::steady_clock::now().time_since_epoch();
  return Value::number(std::chrono::duration<double>(now).count());
}

Value sleep_builtin(Evaluator& ev, CallArgs& a) {
  ev.check_sandbox("time.sleep()");
  Bound b = bind("sleep", a, {"seconds"}, 1);
  double s = as_num(b[0], "sleep(): seconds");
  if (!(s >= 0)) fail("sleep(): seconds must be a non-negative number, got " + float_repr(s));
  sleep_interruptibly(ev, s);
  return Value();
}

Value time_builtin(Evaluator&, CallArgs& a) {
  bind("time", a, {}, 0);
  auto now = std::chrono::system_clock::now().time_since_epoch();
  return Value::number(std::chrono::duration<double>(now).count());
}

const BuiltinEntry kTimeFunctions[] = {
    {"perf_counter", perf_counter_builtin, "perf_counter()",
     "Seconds on a monotonic clock, for timing (only differences mean anything). Example: let t0 = time.perf_counter()"},
    {"sleep", sleep_builtin, "sleep(seconds)",
     "Waits that many seconds (Ctrl-C ends the wait; refused in sandbox mode). Example: time.sleep(0.5)"},
    {"time", time_builtin, "time()", "Seconds since the Unix epoch, as a float. Example: time.time()"},
};

}  // namespace

const BuiltinLibrary kTimeLibrary = {"time", "time", kTimeFunctions, nullptr};

}  // namespace nabla::interp
