// The cells a kernel ran, for history_request (Jupyter's console and the notebook's
// "history" search). Kept in memory for the process: a restart starts a new one.
// Not xeus 2.4's in-memory manager: its replies have the session and line as
// strings and, with output=true, four items per entry, both against the protocol
// (entries are [session, line, input] or [session, line, [input, output]]); and
// xeus 2.4 stores every cell at line 1 (it reads the line from the request, which
// has none), so the kernel tells the history each cell's execution count.
#pragma once
#include <string>
#include <vector>

#include "xeus/xhistory_manager.hpp"

namespace nabla::jupyter {

class SessionHistory : public xeus::xhistory_manager {
 public:
  // The execution count of the cell that runs now: the line it is stored at.
  void set_current_line(int line) { current_line_ = line; }

  struct Entry {
    int session;
    int line;
    std::string input, output;
  };

 private:
  void configure_impl() override {}
  void store_inputs_impl(int session, int line, const std::string& input, const std::string& output) override;
  nl::json get_tail_impl(int n, bool raw, bool output) const override;
  nl::json get_range_impl(int session, int start, int stop, bool raw, bool output) const override;
  nl::json search_impl(const std::string& pattern, bool raw, bool output, int n, bool unique) const override;

  std::vector<Entry> entries_;
  int current_line_ = 0;
};

}  // namespace nabla::jupyter
