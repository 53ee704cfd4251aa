#include "tensor/allocator.hpp"

#include <cstdlib>
#include <string>

#include "tensor/error.hpp"

namespace nabla {

namespace {
constexpr size_t kAlignment = 64;            // a cache line, and AVX-512 friendly
constexpr size_t kMaxCachedBytes = size_t(2) << 30;  // beyond this, frees go to the system
}  // namespace

CpuAllocator& CpuAllocator::instance() {
  static CpuAllocator* allocator = new CpuAllocator();  // never destroyed: tensors may outlive statics
  return *allocator;
}

size_t CpuAllocator::size_class(size_t nbytes) {
  if (nbytes == 0) return 0;
  if (nbytes <= 4096) return (nbytes + 63) & ~size_t(63);
  size_t pow2 = size_t(1) << (63 - __builtin_clzll(nbytes));  // largest power of two <= nbytes
  size_t step = pow2 / 4;
  return (nbytes + step - 1) / step * step;
}

void* CpuAllocator::allocate(size_t nbytes) {
  size_t cls = size_class(nbytes);
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.allocations;
  if (cls == 0) return nullptr;
  void* ptr = nullptr;
  auto it = cache_.find(cls);
  if (it != cache_.end() && !it->second.empty()) {
    ptr = it->second.back();
    it->second.pop_back();
    cached_bytes_ -= cls;
    ++stats_.cache_hits;
  } else {
    ptr = std::aligned_alloc(kAlignment, cls);
    if (!ptr) {
      // Drop the cache and try once more before giving up.
      for (auto& [size, blocks] : cache_)
        for (void* b : blocks) std::free(b);
      stats_.reserved -= cached_bytes_;
      cached_bytes_ = 0;
      cache_.clear();
      ptr = std::aligned_alloc(kAlignment, cls);
      if (!ptr) {
        --stats_.allocations;
        throw Error("out of memory: could not allocate " + std::to_string(cls) + " bytes on the CPU (" +
                    std::to_string(stats_.allocated) + " bytes are in use by tensors)");
      }
    }
    stats_.reserved += cls;
  }
  stats_.allocated += cls;
  if (stats_.allocated > stats_.peak_allocated) stats_.peak_allocated = stats_.allocated;
  return ptr;
}

void CpuAllocator::deallocate(void* ptr, size_t nbytes) {
  if (!ptr) return;
  size_t cls = size_class(nbytes);
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.allocated -= cls;
  if (cached_bytes_ + cls > kMaxCachedBytes) {
    std::free(ptr);
    stats_.reserved -= cls;
    return;
  }
  cache_[cls].push_back(ptr);
  cached_bytes_ += cls;
}

AllocatorStats CpuAllocator::stats() {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void CpuAllocator::reset_peak() {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.peak_allocated = stats_.allocated;
}

void CpuAllocator::empty_cache() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [size, blocks] : cache_)
    for (void* b : blocks) std::free(b);
  cache_.clear();
  stats_.reserved -= cached_bytes_;
  cached_bytes_ = 0;
}

}  // namespace nabla
