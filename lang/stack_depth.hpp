// How much of this thread's native stack is left. Recursive code that hostile input
// can drive deep (the parser, the AST builder, the evaluator, repr and comparison of
// nested values) asks `stack_nearly_full()` at each level and stops with an error
// instead of overflowing the stack. See Note [Stack depth].
//
// Note [Stack depth]
// A recursion limit counted in calls (the evaluator's 1000 frames) does not bound
// the stack: one DSL call can nest a 1000-deep expression, each level of which is
// several C++ frames, and the frames' sizes differ between builds (ASan's are several
// times larger). So the guard measures the real thing: the distance from the current
// frame to the lowest address of this thread's stack (pthread_getattr_np, read once
// per thread), and refuses to go deeper when less than kStackReserve bytes are left.
// The reserve leaves room for what runs below the deepest checked frame (an op's
// kernel, BLAS, error formatting, a destructor chain). The check is two loads and a
// compare, cheap enough for every evaluated expression.
#pragma once
#include <cstddef>
#include <cstdint>

namespace nabla::lang {

// Bytes kept free below the deepest frame that passes the check (the default 8 MiB
// main stack then holds about 7.5 MiB of nesting).
inline constexpr size_t kStackReserve = 512 * 1024;

namespace detail {
// The lowest usable address of this thread's stack, plus kStackReserve; computed on
// a thread's first check.
uintptr_t stack_limit_slow();
inline thread_local uintptr_t t_stack_limit = 0;

// The stack pointer, read without making the caller keep a frame pointer
// (__builtin_frame_address(0) does: three more instructions in every call of a hot
// recursive function such as the evaluator's eval, measured at 10% of a scalar loop).
inline uintptr_t stack_pointer() {
#if defined(__x86_64__)
  uintptr_t sp;
  asm("mov %%rsp, %0" : "=r"(sp));
  return sp;
#elif defined(__aarch64__)
  uintptr_t sp;
  asm("mov %0, sp" : "=r"(sp));
  return sp;
#else
  return reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
#endif
}
}  // namespace detail

// True when the frame that asks is within kStackReserve bytes of the end of its
// thread's stack: the caller must not recurse further.
inline bool stack_nearly_full() {
  uintptr_t limit = detail::t_stack_limit;
  if (limit == 0) limit = detail::stack_limit_slow();
  return detail::stack_pointer() < limit;
}

// Bytes between the calling frame and the end of its thread's stack (for messages
// and tests).
size_t stack_bytes_left();

}  // namespace nabla::lang
