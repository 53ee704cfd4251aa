# The time module's clocks, as Python's: seconds as floats, nanoseconds as ints.
import time

test "each clock in seconds and in nanoseconds, the same reading" {
  let pairs = [(time.perf_counter, time.perf_counter_ns), (time.monotonic, time.monotonic_ns),
               (time.process_time, time.process_time_ns), (time.thread_time, time.thread_time_ns),
               (time.time, time.time_ns)]
  for (seconds, nanoseconds) in pairs {
    let s = seconds()
    let ns = nanoseconds()
    expect(type(s) == "float" and type(ns) == "int", "a float and an int")
    expect(ns / 1e9 >= s and ns / 1e9 - s < 1.0, "the same clock, read one after the other")
  }
}

test "CPU time advances with work, not with sleep" {
  let c0 = time.process_time()
  let t0 = time.thread_time()
  let s = 0
  for i in range(200000) { s = s + i }
  expect(time.process_time() > c0 and time.thread_time() > t0, "work counts")
  let c1 = time.process_time()
  let w1 = time.perf_counter()
  time.sleep(0.05)
  expect(time.perf_counter() - w1 >= 0.05, "the wall clock sees the sleep")
  expect(time.process_time() - c1 < 0.04, "CPU time does not")
  expect(abs(time.time() - time.time_ns() / 1e9) < 1.0, "time() is the epoch's")
  expect_error(fn() = time.process_time(1), "process_time() takes at most 0 arguments")
}
