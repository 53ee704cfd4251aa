// The time limit of `nabla test --timeout S` (Interpreter::run_tests): a thread that,
// when a test block has run S seconds, asks the evaluator to stop the way Ctrl-C does
// (Note [Interrupts] in interp/interpreter.cpp), so the block ends at its next
// statement, loop iteration or call with "timed out after S s" and the next block
// runs. The process is never killed, and a long native op (one huge matmul) ends
// before the block stops, as with Ctrl-C.
#pragma once
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "interp/eval/evaluator.hpp"

namespace nabla::interp {

class TestWatchdog {
 public:
  // seconds <= 0: never fires (no thread is started).
  TestWatchdog(Evaluator& ev, double seconds);
  ~TestWatchdog();
  TestWatchdog(const TestWatchdog&) = delete;
  TestWatchdog& operator=(const TestWatchdog&) = delete;

  // The clock starts for the block about to run.
  void arm();
  // The block has ended. A limit that fired after the block's last check asked for a
  // stop that no one took: that request is withdrawn, so the next block starts clean.
  void disarm();

 private:
  using Clock = std::chrono::steady_clock;
  void watch();

  Evaluator& ev_;
  std::chrono::duration<double> limit_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::optional<Clock::time_point> deadline_;
  bool fired_ = false, stop_ = false;
  std::thread thread_;
};

}  // namespace nabla::interp
