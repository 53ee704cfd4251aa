// See interp/test_watchdog.hpp.
#include "interp/test_watchdog.hpp"

namespace nabla::interp {

TestWatchdog::TestWatchdog(Evaluator& ev, double seconds) : ev_(ev), limit_(seconds) {
  ev_.timeout_s = seconds;
  if (seconds > 0) thread_ = std::thread([this] { watch(); });
}

TestWatchdog::~TestWatchdog() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void TestWatchdog::arm() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    deadline_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(limit_);
    fired_ = false;
  }
  cv_.notify_all();
}

void TestWatchdog::disarm() {
  if (!thread_.joinable()) return;
  std::lock_guard<std::mutex> lock(mu_);
  deadline_.reset();
  if (fired_ && ev_.timed_out.exchange(false)) ev_.interrupt_flag.store(false);
  fired_ = false;
}

void TestWatchdog::watch() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    if (!deadline_) {
      cv_.wait(lock);
    } else if (Clock::now() >= *deadline_) {
      deadline_.reset();
      fired_ = true;
      ev_.timed_out.store(true);  // before the flag: throw_interrupt reads it after seeing the flag
      ev_.interrupt_flag.store(true);
    } else {
      cv_.wait_until(lock, *deadline_);
    }
  }
}

}  // namespace nabla::interp
