#include "lang/stack_depth.hpp"

#include <pthread.h>
#include <sys/resource.h>

namespace nabla::lang {

namespace {
// The lowest address of this thread's stack. For the main thread glibc reports the
// stack as the rlimit allows it to grow (8 MiB by default); an unlimited rlimit is
// taken as 8 MiB below the current frame, which errs on the safe side.
uintptr_t stack_low_end() {
  uintptr_t here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  pthread_attr_t attr;
  void* addr = nullptr;
  size_t size = 0;
  bool known = pthread_getattr_np(pthread_self(), &attr) == 0;
  if (known) {
    known = pthread_attr_getstack(&attr, &addr, &size) == 0;
    pthread_attr_destroy(&attr);
  }
  constexpr size_t kFallback = 8u << 20;
  if (!known || size == 0 || size > (1ull << 40)) return here > kFallback ? here - kFallback : 0;
  return reinterpret_cast<uintptr_t>(addr);
}
}  // namespace

uintptr_t detail::stack_limit_slow() {
  t_stack_limit = stack_low_end() + kStackReserve;
  return t_stack_limit;
}

size_t stack_bytes_left() {
  uintptr_t limit = detail::t_stack_limit;
  if (limit == 0) limit = detail::stack_limit_slow();
  uintptr_t low = limit - kStackReserve;
  uintptr_t here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  return here > low ? here - low : 0;
}

}  // namespace nabla::lang
