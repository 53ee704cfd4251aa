// Origins (tensor/origin.hpp) and what the CPU allocator records with them: each live
// block's origin, listed by live_blocks() and memory_summary().
#include <doctest/doctest.h>

#include <algorithm>

#include "tensor/allocator.hpp"
#include "tensor/memory_stats.hpp"
#include "tensor/origin.hpp"
#include "tensor/tensor.hpp"

using namespace nabla;

namespace {
bool has_block(const std::vector<LiveBlock>& blocks, size_t bytes, size_t requested, OriginId origin) {
  return std::any_of(blocks.begin(), blocks.end(), [&](const LiveBlock& b) {
    return b.bytes == bytes && b.requested == requested && b.origin == origin;
  });
}
}  // namespace

TEST_CASE("an origin is interned once and keeps its text") {
  OriginId a = intern_origin("memory_test.dsl:1:1");
  CHECK(a != 0);
  CHECK(intern_origin("memory_test.dsl:1:1") == a);
  CHECK(intern_origin("memory_test.dsl:2:1") != a);
  CHECK(origin_text(a) == "memory_test.dsl:1:1");
  CHECK(origin_text(0).empty());
  CHECK(intern_origin("") == 0);
  set_current_origin("memory_test.dsl:1:1");
  CHECK(current_origin_id() == a);
  CHECK(current_origin() == "memory_test.dsl:1:1");
  set_current_origin_id(0);
  CHECK(current_origin().empty());
}

TEST_CASE("the CPU allocator lists each live block with its origin until it is freed") {
  CpuAllocator& alloc = CpuAllocator::instance();
  OriginId origin = intern_origin("memory_test.dsl:3:5");
  void* p = alloc.allocate(5000, origin);
  CHECK(reinterpret_cast<uintptr_t>(p) % 64 == 0);  // the header keeps the alignment
  CHECK(has_block(alloc.live_blocks(), 5120, 5000, origin));
  alloc.deallocate(p, 5000);
  CHECK_FALSE(has_block(alloc.live_blocks(), 5120, 5000, origin));
  void* q = alloc.allocate(5000, 0);  // the cached block, now with no origin
  CHECK(q == p);
  CHECK(has_block(alloc.live_blocks(), 5120, 5000, 0));
  alloc.deallocate(q, 5000);
}

TEST_CASE("memory_summary shows the expression of an origin, the outermost at one place") {
  OriginId id = intern_origin("memory_test.dsl:9:5");
  note_origin_expression(id, "w");
  note_origin_expression(id, "w @ x.T");
  note_origin_expression(id, "w @ x");  // an inner expression at the same place
  CHECK(origin_expression(id) == "w @ x.T");
  set_current_origin_id(id);
  Tensor big = empty({1024, 1024});
  set_current_origin_id(0);
  std::string summary = memory_summary(cpu_device(), 1);
  CHECK(summary.find("    4.00 MiB  memory_test.dsl:9:5  w @ x.T\n") != std::string::npos);
}

TEST_CASE("memory_summary names the origin of a live tensor") {
  set_current_origin("memory_test.dsl:7:9");
  Tensor big = empty({1024, 1024});  // 4 MiB: the largest block here
  set_current_origin_id(0);
  std::string summary = memory_summary(cpu_device(), 1);
  CHECK(summary.rfind("cpu\n  allocated ", 0) == 0);
  CHECK(summary.find("  largest live tensors:\n    4.00 MiB  memory_test.dsl:7:9\n") != std::string::npos);
  MemoryFigures before = memory_figures(cpu_device());
  big = Tensor();
  CHECK(memory_figures(cpu_device()).allocated == before.allocated - 4194304);
}
