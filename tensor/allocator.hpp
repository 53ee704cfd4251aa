// The caching CPU allocator: freed blocks go back to a per-size-class cache and are
// reused by the next request of that class, so a training loop stops calling malloc
// after its first step. Statistics follow PyTorch's names.
// Thread-safe; it must not know about tensors (storage.hpp owns blocks).
#pragma once
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace nabla {

struct AllocatorStats {
  size_t allocated = 0;       // bytes in blocks handed out now (rounded to size class)
  size_t peak_allocated = 0;  // high-water mark of `allocated` since the last reset_peak
  size_t reserved = 0;        // allocated + cached bytes held from the system
  size_t allocations = 0;     // number of allocate() calls
  size_t cache_hits = 0;      // allocate() calls served from the cache
};

class CpuAllocator {
 public:
  static CpuAllocator& instance();

  void* allocate(size_t nbytes);
  void deallocate(void* ptr, size_t nbytes);
  AllocatorStats stats();
  void reset_peak();
  void empty_cache();  // return every cached block to the system

  // Requests round up to a size class: 64-byte steps below 4 KiB, then four classes
  // per power of two, so rounding wastes at most 25%.
  static size_t size_class(size_t nbytes);

 private:
  std::mutex mutex_;
  std::unordered_map<size_t, std::vector<void*>> cache_;
  AllocatorStats stats_;
  size_t cached_bytes_ = 0;
};

}  // namespace nabla
