// The progress bar of data.Progress (see progress.hpp).
#include "interp/app/progress.hpp"

#include <cmath>
#include <cstdio>

namespace nabla::interp {

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  auto s = static_cast<int64_t>(std::llround(seconds));
  char buf[48];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", static_cast<long long>(s / 3600),
                  static_cast<long long>(s / 60 % 60), static_cast<long long>(s % 60));
  else
    std::snprintf(buf, sizeof buf, "%lld:%02lld", static_cast<long long>(s / 60), static_cast<long long>(s % 60));
  return buf;
}

std::string format_rate(double r) {
  char buf[48];
  if (!std::isfinite(r) || r <= 0) return "? it/s";
  if (r >= 1) std::snprintf(buf, sizeof buf, "%.1f it/s", r);
  else std::snprintf(buf, sizeof buf, "%.2f s/it", 1.0 / r);
  return buf;
}

static std::string loss_text(std::optional<double> loss) {
  if (!loss) return "";
  char buf[48];
  std::snprintf(buf, sizeof buf, "loss %.4f", *loss);
  return buf;
}

std::string format_progress_line(const std::string& desc, int64_t n, int64_t total, double elapsed_s,
                                 std::optional<double> mean_loss, int bar_width, bool finished) {
  std::string line = desc.empty() ? "" : desc + "  ";
  double rate = elapsed_s > 0 && n > 0 ? static_cast<double>(n) / elapsed_s : 0;
  if (total > 0) {
    line += std::to_string(n) + "/" + std::to_string(total) + " [";
    double frac = std::min(1.0, static_cast<double>(n) / static_cast<double>(total));
    int full = static_cast<int>(frac * bar_width);
    for (int k = 0; k < bar_width; ++k) line += k < full ? '=' : k == full ? '>' : '.';
    line += "] " + format_rate(rate);
    if (finished) line += " in " + format_duration(elapsed_s);
    else line += " ETA " + (rate > 0 ? format_duration(static_cast<double>(total - n) / rate) : std::string("?"));
  } else {
    line += std::to_string(n) + " " + format_rate(rate) + " " + format_duration(elapsed_s);
  }
  if (mean_loss) {
    line += ' ';
    line += loss_text(mean_loss);
  }
  return line;
}

std::string format_progress_summary(const std::string& desc, int64_t n, int64_t total, double elapsed_s,
                                    std::optional<double> mean_loss) {
  std::string line = desc.empty() ? "" : desc + ": ";
  line += std::to_string(n);
  if (total > 0) {
    line += '/';
    line += std::to_string(total);
  }
  double rate = elapsed_s > 0 && n > 0 ? static_cast<double>(n) / elapsed_s : 0;
  line += " in " + format_duration(elapsed_s) + " (" + format_rate(rate) + ")";
  if (mean_loss) {
    line += ", ";
    line += loss_text(mean_loss);
  }
  return line;
}

ProgressBar::ProgressBar(std::string desc, int64_t total, bool tty, std::function<void(const std::string&)> out)
    : desc_(std::move(desc)), total_(total), tty_(tty), out_(std::move(out)), start_(Clock::now()), last_draw_(start_) {
  if (tty_) draw();
}

double ProgressBar::elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

std::optional<double> ProgressBar::mean_loss() {
  if (take_deferred_) {
    auto [sum, count] = take_deferred_();
    loss_sum_ += sum;
    loss_count_ += count;
  }
  if (loss_count_ == 0) return std::nullopt;
  return loss_sum_ / static_cast<double>(loss_count_);
}

void ProgressBar::update(int64_t steps, std::optional<double> loss) {
  n_ += steps;
  if (loss) {
    loss_sum_ += *loss;
    ++loss_count_;
  }
  if (!tty_ || closed_) return;
  auto now = Clock::now();
  // Redraw at most ten times a second, and always at the last step.
  if (std::chrono::duration<double>(now - last_draw_).count() >= 0.1 || n_ == total_) draw();
}

void ProgressBar::draw(bool finished) {
  last_draw_ = Clock::now();
  std::string line = format_progress_line(desc_, n_, total_, elapsed(), mean_loss(), 24, finished);
  std::string pad = line.size() < last_len_ ? std::string(last_len_ - line.size(), ' ') : "";
  last_len_ = line.size();
  out_("\r" + line + pad);
}

void ProgressBar::close() {
  if (closed_) return;
  closed_ = true;
  if (tty_) {
    draw(true);
    out_("\n");
  } else {
    out_(format_progress_summary(desc_, n_, total_, elapsed(), mean_loss()) + "\n");
  }
}

}  // namespace nabla::interp
