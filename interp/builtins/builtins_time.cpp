// The native `time` module (`import time`): Python's clocks (perf_counter and
// monotonic for timing, process_time and thread_time for CPU time, time since the
// epoch; each with an `_ns` twin giving integer nanoseconds) and sleep(seconds),
// which the sandbox refuses. The table at the end is this family's (Note [Builtin tables]).
#include <algorithm>
#include <chrono>
#include <thread>

#include <time.h>

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

// A POSIX clock's reading in nanoseconds: steady (perf_counter, monotonic), the
// process's or the thread's CPU time, or the wall clock since the epoch.
int64_t clock_ns(clockid_t clock) {
  timespec ts{};
  ::clock_gettime(clock, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// Python's pair of forms of one clock: name() in seconds (a float), name_ns() in
// integer nanoseconds.
#define NABLA_CLOCK(name, clock)                                         \
  Value name##_builtin(Evaluator&, CallArgs& a) {                        \
    bind(#name, a, {}, 0);                                               \
    return Value::number(static_cast<double>(clock_ns(clock)) / 1e9);    \
  }                                                                      \
  Value name##_ns_builtin(Evaluator&, CallArgs& a) {                     \
    bind(#name "_ns", a, {}, 0);                                         \
    return Value::integer(clock_ns(clock));                              \
  }
NABLA_CLOCK(perf_counter, CLOCK_MONOTONIC)
NABLA_CLOCK(monotonic, CLOCK_MONOTONIC)
NABLA_CLOCK(process_time, CLOCK_PROCESS_CPUTIME_ID)
NABLA_CLOCK(thread_time, CLOCK_THREAD_CPUTIME_ID)
NABLA_CLOCK(time, CLOCK_REALTIME)
#undef NABLA_CLOCK

Value sleep_builtin(Evaluator& ev, CallArgs& a) {
  ev.check_sandbox("time.sleep()");
  Bound b = bind("sleep", a, {"seconds"}, 1);
  double s = as_num(b[0], "sleep(): seconds");
  if (!(s >= 0)) fail("sleep(): seconds must be a non-negative number, got " + float_repr(s));
  sleep_interruptibly(ev, s);
  return Value();
}


const BuiltinEntry kTimeFunctions[] = {
    {"perf_counter", perf_counter_builtin, "perf_counter()",
     "Seconds on a monotonic clock, for timing (only differences mean anything). Example: let t0 = time.perf_counter()"},
    {"perf_counter_ns", perf_counter_ns_builtin, "perf_counter_ns()",
     "perf_counter() in integer nanoseconds. Example: let t0 = time.perf_counter_ns()"},
    {"monotonic", monotonic_builtin, "monotonic()",
     "Seconds on a clock that never goes back (only differences mean anything). Example: time.monotonic()"},
    {"monotonic_ns", monotonic_ns_builtin, "monotonic_ns()",
     "monotonic() in integer nanoseconds. Example: time.monotonic_ns()"},
    {"process_time", process_time_builtin, "process_time()",
     "CPU seconds used by this process, every thread's (sleep not counted). Example: let c0 = time.process_time()"},
    {"process_time_ns", process_time_ns_builtin, "process_time_ns()",
     "process_time() in integer nanoseconds. Example: time.process_time_ns()"},
    {"thread_time", thread_time_builtin, "thread_time()",
     "CPU seconds used by the thread running the program. Example: time.thread_time()"},
    {"thread_time_ns", thread_time_ns_builtin, "thread_time_ns()",
     "thread_time() in integer nanoseconds. Example: time.thread_time_ns()"},
    {"sleep", sleep_builtin, "sleep(seconds)",
     "Waits that many seconds (Ctrl-C ends the wait; refused in sandbox mode). Example: time.sleep(0.5)"},
    {"time", time_builtin, "time()", "Seconds since the Unix epoch, as a float. Example: time.time()"},
    {"time_ns", time_ns_builtin, "time_ns()",
     "time() in integer nanoseconds. Example: time.time_ns()"},
};

}  // namespace

const BuiltinLibrary kTimeLibrary = {"time", "time", kTimeFunctions, nullptr};

}  // namespace nabla::interp
