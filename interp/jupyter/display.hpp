// The kernel's side of the display seam (Note [Display] in interp/builtins/display.hpp):
// what the interpreter sends (DisplayData, EvalResult::images) as Jupyter's
// MIME bundles, and the fd capture that turns what native code writes to stdout and
// stderr during a cell into stream messages.
#pragma once
#include <functional>
#include <string>
#include <thread>

#include "interp/interpreter.hpp"
#include "nlohmann/json.hpp"

namespace nabla::jupyter {

// RFC 4648 base64 (with padding): how Jupyter carries binary data such as PNG in JSON.
std::string base64(const std::string& bytes);

// A bundle as a display_data / execute_result "data" dict: text types as they are,
// image/png base64-encoded.
nlohmann::json mime_json(const MimeBundle& bundle);

// While alive, what the process writes to file descriptor `fd` (1 or 2: printf in a
// native op, a library's warning on stderr) goes to `sink`, in the chunks read, from
// a reader thread; the destructor puts `fd` back and delivers the rest before it returns.
class FdCapture {
 public:
  FdCapture(int fd, std::function<void(const std::string&)> sink);
  ~FdCapture();
  FdCapture(const FdCapture&) = delete;
  FdCapture& operator=(const FdCapture&) = delete;

 private:
  void deliver(const std::string& text);

  int fd_;
  int saved_ = -1;  // the original of fd_, -1 when capturing could not start
  int read_end_ = -1;
  std::function<void(const std::string&)> sink_;
  std::thread reader_;
};

}  // namespace nabla::jupyter
