// A progress bar for training loops (data.Progress in the language). On a terminal
// it redraws one line in place: count/total, a bar, the rate, the ETA and the mean of
// the losses the script reported. When stdout is not a terminal it prints nothing per
// step and one summary line when closed (one line per epoch in a log file).
#pragma once
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace nabla::interp {

// "0:07", "12:34", "1:02:03" (negative or non-finite: "?").
std::string format_duration(double seconds);
// "45.2 it/s" at one step a second or more, else "2.50 s/it"; "? it/s" before any step.
std::string format_rate(double steps_per_second);
// The terminal line: "epoch 1  312/938 [=======>......] 45.2 it/s ETA 0:14 loss 0.4321".
// total <= 0: unknown (no bar, no ETA). mean_loss: none until the script reports one.
// finished: the closing redraw, with the time taken ("in 0:21") in place of the ETA.
std::string format_progress_line(const std::string& desc, int64_t n, int64_t total, double elapsed_s,
                                 std::optional<double> mean_loss, int bar_width = 24, bool finished = false);
// The line a closed bar leaves: "epoch 1: 938/938 in 0:21 (45.2 it/s), loss 0.4321".
std::string format_progress_summary(const std::string& desc, int64_t n, int64_t total, double elapsed_s,
                                    std::optional<double> mean_loss);

class ProgressBar {
 public:
  using Clock = std::chrono::steady_clock;
  // tty: whether to redraw a line per step (the caller decides, usually isatty(1)).
  ProgressBar(std::string desc, int64_t total, bool tty, std::function<void(const std::string&)> out);
  void update(int64_t steps, std::optional<double> loss);
  // Losses that live on a GPU are summed there by the caller; `take` hands over that
  // sum and its count (and resets them). The bar calls it only when it shows or
  // returns the mean, so a training loop does not wait for the device every step.
  void set_deferred_losses(std::function<std::pair<double, int64_t>()> take) { take_deferred_ = std::move(take); }
  // Prints the summary (non-terminal) or the final line and a newline (terminal); once.
  void close();
  bool closed() const { return closed_; }
  int64_t count() const { return n_; }
  std::optional<double> mean_loss();
  double elapsed() const;

 private:
  void draw(bool finished = false);
  std::string desc_;
  int64_t total_;
  bool tty_;
  std::function<void(const std::string&)> out_;
  int64_t n_ = 0;
  double loss_sum_ = 0;
  int64_t loss_count_ = 0;
  std::function<std::pair<double, int64_t>()> take_deferred_;
  bool closed_ = false;
  Clock::time_point start_, last_draw_;
  size_t last_len_ = 0;
};

}  // namespace nabla::interp
