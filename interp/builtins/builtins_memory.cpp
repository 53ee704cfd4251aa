// Memory of a device as builtins, with PyTorch's names and a device argument ("cpu",
// the default, "cuda" or "cuda:N"): memory_allocated(device), max_memory_allocated,
// memory_reserved, memory_allocations, reset_peak_memory_stats (the reset_peak) and
// memory_summary(device, top=10), the text that the REPL's :mem prints. The `cuda`
// module's functions of the same names (builtins_cuda.cpp) share tensor/memory_stats.
// Reads tensor/memory_stats.hpp; touches nothing else.
#include "interp/builtins/builtins_internal.hpp"
#include "tensor/memory_stats.hpp"

namespace nabla::interp {

namespace {

// The device of optional argument `k` (the CPU when absent).
Device device_arg(const Bound& b, size_t k, const std::string& fname) {
  return b.has(k) ? as_device(b[k], fname + "(): device") : cpu_device();
}

// One figure of a device's memory, as an int of bytes.
Value figure(const std::string& name, size_t MemoryFigures::*field, CallArgs& a) {
  Bound b = bind(name, a, {"device"}, 0);
  return Value::integer(static_cast<int64_t>(memory_figures(device_arg(b, 0, name)).*field));
}
Value memory_allocated_builtin(Evaluator&, CallArgs& a) {
  return figure("memory_allocated", &MemoryFigures::allocated, a);
}
Value max_memory_allocated_builtin(Evaluator&, CallArgs& a) {
  return figure("max_memory_allocated", &MemoryFigures::peak_allocated, a);
}
Value memory_reserved_builtin(Evaluator&, CallArgs& a) { return figure("memory_reserved", &MemoryFigures::reserved, a); }
Value memory_allocations_builtin(Evaluator&, CallArgs& a) {
  return figure("memory_allocations", &MemoryFigures::allocations, a);
}

Value reset_peak_memory_stats_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("reset_peak_memory_stats", a, {"device"}, 0);
  reset_peak_memory_stats(device_arg(b, 0, "reset_peak_memory_stats"));
  return Value();
}

Value memory_summary_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("memory_summary", a, {"device", "top"}, 0);
  int64_t top = b.has(1) ? as_int(b[1], "memory_summary(): top") : 10;
  if (top < 0) fail("memory_summary(): top must be 0 or more, got " + std::to_string(top));
  return make_report(memory_summary(device_arg(b, 0, "memory_summary"), static_cast<size_t>(top)));
}

const BuiltinEntry kMemoryBuiltins[] = {
    {"memory_allocated", memory_allocated_builtin, "memory_allocated(device=\"cpu\")",
     "Bytes held by live tensors on a device. Example: memory_allocated(\"cpu\")"},
    {"max_memory_allocated", max_memory_allocated_builtin, "max_memory_allocated(device=\"cpu\")",
     "The most bytes live tensors held at once since the last reset_peak_memory_stats. Example: "
     "max_memory_allocated()"},
    {"memory_reserved", memory_reserved_builtin, "memory_reserved(device=\"cpu\")",
     "Bytes the device's allocator holds, live tensors and its cache. Example: memory_reserved()"},
    {"memory_allocations", memory_allocations_builtin, "memory_allocations(device=\"cpu\")",
     "How many allocations the device's allocator has made so far (from its cache or not): the difference over a "
     "loop says whether the loop allocates. Example: memory_allocations()"},
    {"reset_peak_memory_stats", reset_peak_memory_stats_builtin, "reset_peak_memory_stats(device=\"cpu\")",
     "Starts the peak figures again from what is live now. Example: reset_peak_memory_stats()"},
    {"memory_summary", memory_summary_builtin, "memory_summary(device=\"cpu\", top=10)",
     "A device's memory as text: its figures and the largest live tensors with their lines (the REPL's :mem). "
     "Example: print(memory_summary(top=5))"},
};

}  // namespace

const BuiltinLibrary kMemoryLibrary = {"memory", nullptr, kMemoryBuiltins, nullptr};

}  // namespace nabla::interp
