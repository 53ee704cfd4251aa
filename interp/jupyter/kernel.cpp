// `nabla kernel -f CONNECTION_FILE`: xeus's kernel (ZeroMQ server, message signing)
// around a KernelInterpreter and a SessionHistory.
#include "interp/jupyter/kernel.hpp"

#include <pthread.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <thread>

#include "interp/app/repl.hpp"
#include "interp/jupyter/connection_file.hpp"
#include "interp/jupyter/history.hpp"
#include "interp/jupyter/kernel_interpreter.hpp"
#include "xeus/xdebugger.hpp"
#include "xeus/xkernel.hpp"
#include "xeus/xserver_zmq.hpp"
#include "zmq.hpp"

namespace nabla::jupyter {

namespace {

// Note [Kernel interrupts]
// The kernelspec says interrupt_mode "signal": the client interrupts with SIGINT.
// The REPL's handler (install_sigint_handler) stops the running cell through
// Interpreter::interrupt, inside the InterruptScope of each execute request. But a
// signal that lands in a thread blocked in ZeroMQ makes that call fail with EINTR,
// and xeus 2.4 does not catch it there (xserver_zmq's poll): the kernel would
// die. So every thread blocks SIGINT (the mask is inherited, so it is set before
// xeus and ZeroMQ start theirs) except one that only waits for it, where the
// handler runs.
void route_sigint_to_one_thread() {
  install_sigint_handler();
  sigset_t sigint;
  sigemptyset(&sigint);
  sigaddset(&sigint, SIGINT);
  pthread_sigmask(SIG_BLOCK, &sigint, nullptr);
  std::thread([sigint] {
    pthread_sigmask(SIG_UNBLOCK, &sigint, nullptr);
    for (;;) pause();
  }).detach();
}

const char* const kKernelUsage =
    "usage: nabla kernel -f CONNECTION_FILE (Jupyter starts it through the kernelspec "
    "that `nabla jupyter install` writes)";

}  // namespace

int run_kernel_command(Interpreter& interp, const std::vector<std::string>& args) {
  if (args.size() != 2 || (args[0] != "-f" && args[0] != "--connection-file")) {
    std::fprintf(stderr, "nabla: %s\n", kKernelUsage);
    return 2;
  }
  xeus::xconfiguration config;
  try {
    config = read_connection_file(args[1]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nabla kernel: %s\n", e.what());
    return 2;
  }
  route_sigint_to_one_thread();
  auto context = xeus::make_context<zmq::context_t>();
  auto history = std::make_unique<SessionHistory>();
  auto kernel_interpreter = std::make_unique<KernelInterpreter>(interp, *history);
  // Output that is not UTF-8 (print of a str holding bytes, a native library's
  // stderr) is sent with U+FFFD in place of its bad bytes: xeus's default, strict,
  // would throw while sending and lose the message, the reply included.
  xeus::xkernel kernel(config, xeus::get_user_name(), std::move(context), std::move(kernel_interpreter),
                       xeus::make_xserver_zmq, std::move(history), nullptr, xeus::make_null_debugger,
                       nl::json::object(), nl::json::error_handler_t::replace);
  kernel.start();  // returns only by exiting the process after a shutdown request
  return 0;
}

}  // namespace nabla::jupyter
