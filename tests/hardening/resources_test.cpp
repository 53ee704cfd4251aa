// Resource limits (issue 10): an allocation larger than memory is an error naming the
// op, the bytes and what is available, and the session goes on (Note [CPU out of
// memory]); runaway loops and deep recursion stop on an interrupt with their
// location; a huge tensor prints summarized.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "interp/helpers.hpp"
#include "tensor/allocator.hpp"
#include "tensor/system_memory.hpp"

using namespace nabla;
using nabla::testing::Session;

TEST_CASE("hardening: available memory is MemAvailable + SwapFree, capped by a cgroup limit") {
  const std::string meminfo =
      "MemTotal:       16000000 kB\nMemFree:         1000000 kB\nMemAvailable:    8000000 kB\n"
      "SwapTotal:       2000000 kB\nSwapFree:        1000000 kB\n";
  SystemMemory m = system_memory_from(meminfo, 0, 0, 0);
  CHECK(m.known);
  CHECK(m.available == size_t(9000000) * 1024);
  CHECK(m.total == size_t(18000000) * 1024);
  // A container limited to 4 GB using 3 GB, 1 GB of which is reclaimable page cache.
  size_t GB = size_t(1) << 30;
  m = system_memory_from(meminfo, 4 * GB, 3 * GB, 1 * GB);
  CHECK(m.total == 4 * GB);
  CHECK(m.available == 2 * GB);
  // A limit above the machine changes nothing; no /proc/meminfo means unknown.
  CHECK(system_memory_from(meminfo, size_t(1) << 62, GB, 0).available == size_t(9000000) * 1024);
  CHECK_FALSE(system_memory_from("", 0, 0, 0).known);
  CHECK(system_memory().known);  // this is Linux
}

TEST_CASE("hardening: an allocation larger than memory is an error, and nothing is held after it") {
  SystemMemory m = system_memory();
  REQUIRE(m.known);
  CpuAllocator& a = CpuAllocator::instance();
  size_t before = a.stats().allocated;
  size_t too_much = m.available + (size_t(1) << 30);  // more than there is, whatever overcommit says
  std::string message = "no error";
  try {
    a.deallocate(a.allocate(too_much), too_much);
  } catch (const Error& e) {
    message = e.what();
  }
  CHECK(message.find("out of memory: tried to allocate ") == 0);
  CHECK(message.find("(" + std::to_string(too_much) + " bytes) on the CPU") != std::string::npos);
  CHECK(a.stats().allocated == before);
}

TEST_CASE("hardening: out of memory in the language names the op, the bytes and what is free; the session goes on") {
  Session s;
  s.run("let kept = tensor([1.0, 2.0])");
  std::string err = s.error("let x = zeros([1000000, 1000000])");
  CHECK(err.find("t.dsl:1:9: error: out of memory: tried to allocate 3.64 TiB (4000000000000 bytes) on the CPU for "
                 "'zeros([1000000, 1000000])' (") == 0);
  CHECK(err.find(" available of ") != std::string::npos);
  CHECK(err.find("; nabla holds ") != std::string::npos);
  // An op of the table says its name first (the dispatcher adds it).
  err = s.error("let y = ones([2000000, 1]) * ones([1, 2000000])");
  CHECK(err.find("t.dsl:1:9: error: mul: out of memory: tried to allocate 14.55 TiB (16000000000000 bytes) on the "
                 "CPU for 'ones([2000000, 1]) * ones([1, 2000000])'") == 0);
  CHECK(s.run("print(kept.sum().item())") == "3.0\n");
  CHECK(s.run("print(zeros([1000]).shape)") == "(1000,)\n");
}

TEST_CASE("hardening: an interrupt stops a runaway loop and a deep recursion with its location") {
  Session s;
  s.run("let kept = 41");
  auto interrupt_after = [&](int ms) {
    return std::thread([&s, ms] {
      std::this_thread::sleep_for(std::chrono::milliseconds(ms));
      s.interp.interrupt();
    });
  };
  std::thread t = interrupt_after(100);
  std::string err = s.error("let i = 0\nwhile true { i = i + 1 }");
  t.join();
  CHECK(err.find("t.dsl:2:") == 0);
  CHECK(err.find("error: interrupted") != std::string::npos);
  // A recursion that runs long without going deep (fib(40) takes minutes).
  s.run("fn fib(n) {\n  if n < 2 { return n }\n  return fib(n - 1) + fib(n - 2)\n}");
  t = interrupt_after(100);
  err = s.error("fib(40)");
  t.join();
  CHECK(err.find("error: interrupted") != std::string::npos);
  CHECK(err.find("in fib()") != std::string::npos);
  CHECK(s.run("print(kept + 1)") == "42\n");
  // Recursion without end stops at the depth limit.
  err = s.error("fn down(n) = down(n + 1)\ndown(0)");
  CHECK(err.find("t.dsl:1:14: error: maximum recursion depth exceeded") == 0);
  CHECK(s.run("print(kept)") == "41\n");
}

TEST_CASE("hardening: a huge tensor prints summarized, like PyTorch") {
  Session s;
  s.run("let big = arange(10000000)");  // as PyTorch prints torch.arange(10000000)
  CHECK(s.run("print(big)") == "tensor([      0,       1,       2,  ..., 9999997, 9999998, 9999999])\n");
  // As PyTorch 1.13 prints torch.zeros([10000, 1000]).
  CHECK(s.run("print(zeros([10000, 1000]))") ==
        "tensor([[0., 0., 0.,  ..., 0., 0., 0.],\n"
        "        [0., 0., 0.,  ..., 0., 0., 0.],\n"
        "        [0., 0., 0.,  ..., 0., 0., 0.],\n"
        "        ...,\n"
        "        [0., 0., 0.,  ..., 0., 0., 0.],\n"
        "        [0., 0., 0.,  ..., 0., 0., 0.],\n"
        "        [0., 0., 0.,  ..., 0., 0., 0.]])\n");
}
