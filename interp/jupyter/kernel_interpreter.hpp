// The xeus interpreter of nabla's kernel: each request of the Jupyter protocol
// (execute, complete, inspect, is_complete, kernel_info, shutdown) answered from
// one nabla::Interpreter session, which keeps every binding across cells, also
// after a cell fails or is interrupted. xeus (xkernel_core) calls these on its
// shell thread; the interpreter runs the code on its own worker while that thread
// waits, and prints, displays and the fd captures publish through one mutex.
#pragma once
#include <mutex>
#include <string>

#include "interp/interpreter.hpp"
#include "interp/jupyter/history.hpp"
#include "xeus/xinterpreter.hpp"

namespace nabla::jupyter {

class KernelInterpreter : public xeus::xinterpreter {
 public:
  KernelInterpreter(Interpreter& interp, SessionHistory& history) : interp_(interp), history_(history) {}

 private:
  void configure_impl() override;
  nl::json execute_request_impl(int execution_count, const std::string& code, bool silent, bool store_history,
                                nl::json user_expressions, bool allow_stdin) override;
  nl::json complete_request_impl(const std::string& code, int cursor_pos) override;
  nl::json inspect_request_impl(const std::string& code, int cursor_pos, int detail_level) override;
  nl::json is_complete_request_impl(const std::string& code) override;
  nl::json kernel_info_request_impl() override;
  void shutdown_request_impl() override;

  // A stream message ("stdout", "stderr"); dropped for a silent cell.
  void publish_text(const char* stream, const std::string& text);
  // display_data, or update_display_data for a progress bar's redraw.
  void publish_display(const DisplayData& d);
  nl::json error_reply(const EvalError& error, bool silent);

  Interpreter& interp_;
  SessionHistory& history_;
  std::mutex publish_mutex_;  // the worker's prints and displays, the fd captures' readers
  bool silent_ = false;       // the running cell's: nothing goes to iopub
};

}  // namespace nabla::jupyter
