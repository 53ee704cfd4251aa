// Memory figures and summaries per device, one way for every device: the CPU's caching
// allocator (tensor/allocator.hpp) and each GPU's (tensor/cuda/caching_allocator.hpp).
// The language's memory_allocated(device), memory_summary(device), cuda.* and the
// REPL's :mem all come here. Reads the allocators; allocates no tensors.
#pragma once
#include <cstddef>
#include <string>

#include "tensor/device.hpp"

namespace nabla {

// PyTorch's names: bytes handed out to tensors (rounded as the allocator rounds), the
// peak of that since the last reset, and bytes held from the system (the cache too);
// and the number of allocations made so far (served from the cache or not), which
// tells whether a loop allocates at all.
struct MemoryFigures {
  size_t allocated = 0;
  size_t peak_allocated = 0;
  size_t reserved = 0;
  size_t allocations = 0;
};

MemoryFigures memory_figures(const Device& device);
void reset_peak_memory_stats(const Device& device);

// A few lines: the device, allocated / peak / reserved, the cache's statistics, then
// the `top` largest live allocations, each with the DSL expression (file:line:col)
// that made it, and a line summing the rest.
std::string memory_summary(const Device& device, size_t top = 10);

}  // namespace nabla
