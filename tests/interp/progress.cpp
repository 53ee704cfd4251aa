// The progress bar of the data module: the text of its lines (interp/app/progress.hpp).
#include "interp/app/progress.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace nabla::interp;

TEST_CASE("progress: durations and rates") {
  CHECK(format_duration(0) == "0:00");
  CHECK(format_duration(7.4) == "0:07");
  CHECK(format_duration(754) == "12:34");
  CHECK(format_duration(3723) == "1:02:03");
  CHECK(format_duration(-1) == "?");
  CHECK(format_rate(45.23) == "45.2 it/s");
  CHECK(format_rate(0.4) == "2.50 s/it");
  CHECK(format_rate(0) == "? it/s");
}

TEST_CASE("progress: the terminal line") {
  // 10 of 40 steps in 2 s: 5 it/s, 30 steps left: 6 s.
  CHECK(format_progress_line("epoch 1", 10, 40, 2.0, 0.43214, 8) ==
        "epoch 1  10/40 [==>.....] 5.0 it/s ETA 0:06 loss 0.4321");
  CHECK(format_progress_line("", 0, 4, 0.0, std::nullopt, 4) == "0/4 [>...] ? it/s ETA ?");
  CHECK(format_progress_line("e", 4, 4, 1.0, std::nullopt, 4) == "e  4/4 [====] 4.0 it/s ETA 0:00");
  CHECK(format_progress_line("e", 4, 4, 65.0, 0.5, 4, true) == "e  4/4 [====] 16.25 s/it in 1:05 loss 0.5000");
  // Unknown total: count, rate, elapsed.
  CHECK(format_progress_line("run", 30, 0, 10.0, std::nullopt) == "run  30 3.0 it/s 0:10");
}

TEST_CASE("progress: the summary line and the bar's output") {
  CHECK(format_progress_summary("epoch 2", 938, 938, 21.0, 0.25) == "epoch 2: 938/938 in 0:21 (44.7 it/s), loss 0.2500");
  std::vector<std::string> lines;
  ProgressBar off("epoch 3", 3, false, [&](const std::string& s) { lines.push_back(s); });
  off.update(1, 1.0);
  off.update(1, 2.0);
  off.update(1, std::nullopt);
  CHECK(lines.empty());  // nothing per step off a terminal
  CHECK(off.mean_loss() == doctest::Approx(1.5));
  off.close();
  off.close();
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].rfind("epoch 3: 3/3 in 0:00 (", 0) == 0);
  CHECK(lines[0].find("), loss 1.5000\n") != std::string::npos);

  std::vector<std::string> tty;
  ProgressBar on("e", 2, true, [&](const std::string& s) { tty.push_back(s); });
  on.update(1, std::nullopt);
  on.update(1, std::nullopt);  // the last step always redraws
  on.close();
  REQUIRE(tty.size() >= 3);
  CHECK(tty.front().rfind("\re  0/2 [", 0) == 0);
  CHECK(tty[tty.size() - 2].rfind("\re  2/2 [", 0) == 0);
  CHECK(tty[tty.size() - 2].find(" in 0:00") != std::string::npos);
  CHECK(tty.back() == "\n");
}
