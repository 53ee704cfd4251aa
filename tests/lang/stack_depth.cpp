// The stack guard (lang/stack_depth.hpp, Note [Stack depth]): a recursion that asks
// at each level stops with the reserve still free, on the main thread and on a
// thread with a small stack of its own.
#include <doctest/doctest.h>

#include "lang/stack_depth.hpp"
#include "stack_thread.hpp"

using namespace nabla::lang;

namespace {

// Recurses until the guard says stop; returns the depth reached. The volatile
// buffer gives each level a real frame.
[[gnu::noinline]] int recurse_until_full(int depth) {
  volatile char frame[256];
  frame[0] = 1;
  if (stack_nearly_full()) return depth;
  int reached = recurse_until_full(depth + 1);
  return reached + frame[0] - 1;  // frame is read after the call: no tail call
}

}  // namespace

TEST_CASE("the stack guard stops a deep recursion with the reserve left") {
  int depth = recurse_until_full(0);
  CHECK(depth > 1000);  // a real stack holds many frames before the reserve
  CHECK(stack_bytes_left() > kStackReserve);
  CHECK_FALSE(stack_nearly_full());
}

TEST_CASE("the stack guard measures each thread's own stack") {
  int depth = 0, kib_left = 0;
  nabla::testing::run_with_stack(2u << 20, [&] {  // 2 MiB: 1.5 MiB above the reserve
    depth = recurse_until_full(0);
    kib_left = static_cast<int>(stack_bytes_left() / 1024);
  });
  CHECK(depth > 100);
  CHECK(depth < 2 * 1024 * 1024 / 256);  // it stopped inside the 2 MiB
  CHECK(kib_left > 0);
}
