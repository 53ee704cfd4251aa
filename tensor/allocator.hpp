// The caching CPU allocator: freed blocks go back to a per-size-class cache and are
// reused by the next request of that class, so a training loop stops calling malloc
// after its first step. Statistics follow PyTorch's names.
// Each live block records the origin (the DSL expression) that asked for it, so
// memory_summary can name the lines that hold memory (Note [CPU block headers]).
// Thread-safe; it must not know about tensors (storage.hpp owns blocks).
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "tensor/origin.hpp"
#include "tensor/system_memory.hpp"

namespace nabla {

struct AllocatorStats {
  size_t allocated = 0;       // bytes in blocks handed out now (rounded to size class)
  size_t peak_allocated = 0;  // high-water mark of `allocated` since the last reset_peak
  size_t reserved = 0;        // allocated + cached bytes held from the system
  size_t allocations = 0;     // number of allocate() calls
  size_t cache_hits = 0;      // allocate() calls served from the cache
};

// A block in use, as live_blocks() reports it.
struct LiveBlock {
  size_t bytes = 0;      // its size class (what `allocated` counts)
  size_t requested = 0;  // what the caller asked for
  OriginId origin = 0;   // the expression that asked (0: none known)
};

class CpuAllocator {
 public:
  static CpuAllocator& instance();

  // Throws nabla::Error when the system cannot give the bytes (Note [CPU out of memory]).
  void* allocate(size_t nbytes, OriginId origin = 0);
  void deallocate(void* ptr, size_t nbytes);
  AllocatorStats stats();
  std::vector<LiveBlock> live_blocks();  // every block handed out and not yet freed
  void reset_peak();
  void empty_cache();  // return every cached block to the system
  // A cap on `allocated` (0: none, the default): a request that would take it past
  // the cap throws nabla::Error ("memory budget of N bytes exceeded ...") before any
  // memory is taken. The interpreter's memory budget (Interpreter::set_limits,
  // `nabla --max-memory`) sets it while an eval runs. Returns the previous cap.
  size_t set_limit(size_t bytes);
  // The interpreter's strings and lists under the budget (Note [Host memory budget]).
  // check_host_request asks before a big one is built: throws the Errors allocate()
  // would for `count` items of `item_bytes` bytes, named `what` ("a str", "a list"),
  // and takes nothing. check_host_budget is its cheap form for a str or list about to
  // be made (the budget only). add_host counts the bytes of live ones (a negative
  // delta when they go); host_bytes is their total.
  void check_host_request(size_t count, size_t item_bytes, const std::string& what);
  void check_host_budget(size_t nbytes, const char* what);
  void add_host(int64_t delta) noexcept;
  size_t host_bytes() const;

  // Requests round up to a size class: 64-byte steps below 4 KiB, then four classes
  // per power of two, so rounding wastes at most 25%.
  static size_t size_class(size_t nbytes);

 private:
  struct Header;  // Note [CPU block headers] in allocator.cpp
  // A new block from the system (the cache had none); Note [CPU out of memory].
  Header* system_block(size_t requested, size_t cls, OriginId origin);
  [[noreturn]] void fail_out_of_memory(size_t requested, OriginId origin, const SystemMemory& m);
  std::string out_of_memory_message(size_t requested, OriginId origin, const SystemMemory& m,
                                    const std::string& what = "");
  void release_to_system(Header* h);
  void empty_cache_locked();

  std::mutex mutex_;
  std::unordered_map<size_t, std::vector<Header*>> cache_;
  std::vector<Header*> blocks_;  // every block held from the system, live or cached
  AllocatorStats stats_;
  size_t cached_bytes_ = 0;
  size_t limit_ = 0;  // set_limit
  std::atomic<bool> has_limit_{false};  // limit_ != 0, read without the lock by charge_host
  std::atomic<int64_t> host_bytes_{0};  // add_host's sum (below 0 for a moment across threads)
  size_t budget_in_use() const { return stats_.allocated + host_bytes(); }  // what the cap counts
  [[noreturn]] void throw_over_limit(size_t nbytes, const std::string& what = "a tensor");
};

}  // namespace nabla
