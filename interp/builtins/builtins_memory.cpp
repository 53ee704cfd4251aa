// Memory of a device as builtins, with PyTorch's names and a device argument ("cpu",
// the default, "cuda" or "cuda:N"): memory_allocated(device), max_memory_allocated,
// memory_reserved, reset_peak_memory_stats (the reset_peak) and
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

Fn stat_of(const std::string& name, size_t MemoryFigures::*field) {
  return [name, field](Evaluator&, CallArgs& a) {
    Bound b = bind(name, a, {"device"}, 0);
    return Value::integer(static_cast<int64_t>(memory_figures(device_arg(b, 0, name)).*field));
  };
}

}  // namespace

void install_memory_builtins(Evaluator& ev) {
  install_function(ev, "memory_allocated", stat_of("memory_allocated", &MemoryFigures::allocated));
  install_function(ev, "max_memory_allocated", stat_of("max_memory_allocated", &MemoryFigures::peak_allocated));
  install_function(ev, "memory_reserved", stat_of("memory_reserved", &MemoryFigures::reserved));
  install_function(ev, "reset_peak_memory_stats", [](Evaluator&, CallArgs& a) {
    Bound b = bind("reset_peak_memory_stats", a, {"device"}, 0);
    reset_peak_memory_stats(device_arg(b, 0, "reset_peak_memory_stats"));
    return Value();
  });
  install_function(ev, "memory_summary", [](Evaluator&, CallArgs& a) {
    Bound b = bind("memory_summary", a, {"device", "top"}, 0);
    int64_t top = b.has(1) ? as_int(b[1], "memory_summary(): top") : 10;
    if (top < 0) fail("memory_summary(): top must be 0 or more, got " + std::to_string(top));
    return make_str(memory_summary(device_arg(b, 0, "memory_summary"), static_cast<size_t>(top)));
  });
}

}  // namespace nabla::interp
