// Runs a test's code on a thread with a stack of a chosen size, for the checks that
// deep structures are built, walked and freed within the default 8 MiB stack or less
// (issue 25; Note [Stack depth] in lang/stack_depth.hpp). What the code throws is
// rethrown on the caller's thread.
#pragma once
#include <pthread.h>

#include <cstddef>
#include <exception>
#include <functional>
#include <stdexcept>
#include <string>

namespace nabla::testing {

inline void run_with_stack(size_t stack_bytes, const std::function<void()>& fn) {
  struct Call {
    const std::function<void()>* fn;
    std::exception_ptr error;
  } call{&fn, nullptr};
  auto body = [](void* p) -> void* {
    auto* c = static_cast<Call*>(p);
    try {
      (*c->fn)();
    } catch (...) {
      c->error = std::current_exception();
    }
    return nullptr;
  };
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, stack_bytes);
  pthread_t thread;
  int started = pthread_create(&thread, &attr, body, &call);
  pthread_attr_destroy(&attr);
  if (started != 0) throw std::runtime_error("run_with_stack: no thread could be started");
  pthread_join(thread, nullptr);
  if (call.error) std::rethrow_exception(call.error);
}

// The message of what fn threw on such a thread ("exception" when it had none), or
// "" when it threw nothing.
inline std::string error_with_stack(size_t stack_bytes, const std::function<void()>& fn) {
  try {
    run_with_stack(stack_bytes, fn);
  } catch (const std::exception& e) {
    return *e.what() ? e.what() : "exception";
  }
  return "";
}

}  // namespace nabla::testing
