// Memory statistics of the CPU caching allocator as builtins (PyTorch's names):
// memory_allocated(), max_memory_allocated(), memory_reserved(),
// reset_peak_memory_stats(). Reads tensor/allocator.hpp; touches nothing else.
#include "interp/builtins_internal.hpp"
#include "tensor/allocator.hpp"

namespace nabla::interp {

namespace {

Value stat(CallArgs& a, const char* name, size_t AllocatorStats::*field) {
  bind(name, a, {}, 0);
  return Value::integer(static_cast<int64_t>(CpuAllocator::instance().stats().*field));
}

}  // namespace

void install_memory_builtins(Evaluator& ev) {
  install_function(ev, "memory_allocated",
                   [](Evaluator&, CallArgs& a) { return stat(a, "memory_allocated", &AllocatorStats::allocated); });
  install_function(ev, "max_memory_allocated", [](Evaluator&, CallArgs& a) {
    return stat(a, "max_memory_allocated", &AllocatorStats::peak_allocated);
  });
  install_function(ev, "memory_reserved",
                   [](Evaluator&, CallArgs& a) { return stat(a, "memory_reserved", &AllocatorStats::reserved); });
  install_function(ev, "reset_peak_memory_stats", [](Evaluator&, CallArgs& a) {
    bind("reset_peak_memory_stats", a, {}, 0);
    CpuAllocator::instance().reset_peak();
    return Value();
  });
}

}  // namespace nabla::interp
