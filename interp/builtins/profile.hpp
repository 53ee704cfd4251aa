// Profiling from the language: `profile(sort=, group=, rows=, trace=, print=) { ... }`,
// the REPL's `:prof stmt` and `last_profile()` (builtins_profile.cpp), on the op
// profiler of autograd/profiler.hpp.
#pragma once
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "interp/values/value.hpp"

namespace nabla::interp {

class Evaluator;

struct ProfileOptions {
  std::string sort = "time";  // a column of profile_sort_columns()
  std::string group = "op";   // "op" or "line"
  int64_t rows = 20;          // rows of the printed table (0: all)
  std::string trace;          // a Chrome trace is written here when not empty
  bool print = true;          // print the table when the block ends
};

// profile(...)'s keyword arguments; an unknown one or a bad value is an error naming it.
ProfileOptions profile_options(const std::vector<std::pair<std::string, Value>>& kw);

// Runs body under a new profiler on this thread, keeps it as the evaluator's last
// profile (also when body fails: what ran until then), then, when body succeeded,
// writes the trace and prints the table as the options say.
void run_profiled(Evaluator& ev, const ProfileOptions& options, const std::function<void()>& body);

}  // namespace nabla::interp
