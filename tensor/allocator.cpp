#include "tensor/allocator.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>

#include "tensor/cuda/caching_allocator.hpp"
#include "tensor/error.hpp"
#include "tensor/system_memory.hpp"

namespace nabla {

// Note [CPU block headers]
// Every block starts with a header of kAlignment bytes, and the caller gets the bytes
// after it (still 64-byte aligned). The header holds the size class, and while the
// block is handed out the requested size and the origin, with a `live` flag. The
// allocator keeps every block it holds from the system in `blocks_` (the header knows
// its index, so a block given back leaves it in O(1)), and live_blocks() walks that
// list. So the hot path (a cache hit and its free) only writes the block's own header,
// which sits next to the data: no list of live blocks is linked and unlinked (that
// touched a neighbour's header and cost ~8% on a 4-element add). The headers are
// bookkeeping: the statistics (allocated, reserved) count size classes only, as
// PyTorch's do.
struct CpuAllocator::Header {
  size_t size_class;
  size_t requested;
  size_t index;  // in blocks_
  OriginId origin;
  bool live;
};

// Note [CPU out of memory]
// Linux overcommits: a malloc of more than the machine can give often succeeds, and
// the process is killed by the OOM killer when it touches the pages, with no error
// and no REPL left. So a request of kCheckedBytes or more is first compared with what
// the system can still give (tensor/system_memory.hpp: MemAvailable + SwapFree, or
// less under a container's cgroup limit); one that would leave less than kHeadroom is
// refused with an Error, and the REPL goes on. A malloc that fails anyway (a request
// under the threshold, or memory taken by another process meanwhile) is the same
// Error, after the cache was given back. The message names the bytes asked, what is
// available, and the DSL expression that asked (its origin); dispatch adds the op.
namespace {
constexpr size_t kAlignment = 64;                    // a cache line, and AVX-512 friendly
constexpr size_t kMaxCachedBytes = size_t(2) << 30;  // beyond this, frees go to the system
// Reading /proc/meminfo costs ~20 us, nothing beside filling 64 MiB; smaller requests
// are left to malloc.
constexpr size_t kCheckedBytes = size_t(64) << 20;
constexpr size_t kHeadroom = size_t(256) << 20;  // for the rest of the process and the system
// Larger requests cannot be rounded to a size class without overflow; no machine has this.
constexpr size_t kLargestRequest = size_t(1) << 62;

// Whether the system can give `bytes` more and keep kHeadroom; true when unknown.
bool fits_in_system(size_t bytes, const SystemMemory& m) {
  return !m.known || (m.available > kHeadroom && bytes <= m.available - kHeadroom);
}
}  // namespace

std::string CpuAllocator::out_of_memory_message(size_t requested, OriginId origin, const SystemMemory& m,
                                                const std::string& what) {
  std::string expression = origin_expression(origin);
  std::string where = expression.empty() ? origin_text(origin) : expression;
  std::string message = "out of memory: tried to allocate " + cuda::format_bytes(requested) + " (" +
                        std::to_string(requested) + " bytes) on the CPU";
  if (!what.empty()) message += " for " + what;
  else if (!where.empty()) message += " for '" + where + "'";
  message += " (";
  if (m.known) message += cuda::format_bytes(m.available) + " available of " + cuda::format_bytes(m.total) + "; ";
  message += "nabla holds " + cuda::format_bytes(stats_.allocated) + " in tensors";
  return message + ")";
}

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

// Frees a block that is not live, and drops it from blocks_ (the last one takes its place).
void CpuAllocator::release_to_system(Header* h) {
  blocks_[h->index] = blocks_.back();
  blocks_[h->index]->index = h->index;
  blocks_.pop_back();
  stats_.reserved -= h->size_class;
  std::free(h);
}

// Throws the Error of Note [CPU out of memory].
void CpuAllocator::fail_out_of_memory(size_t requested, OriginId origin, const SystemMemory& m) {
  --stats_.allocations;
  throw Error(out_of_memory_message(requested, origin, m));
}

CpuAllocator::Header* CpuAllocator::system_block(size_t requested, size_t cls, OriginId origin) {
  if (cls >= kCheckedBytes) {
    SystemMemory m = system_memory();
    if (!fits_in_system(cls, m)) {
      empty_cache_locked();  // cached blocks count as used: give them back and look again
      m = system_memory();
      if (!fits_in_system(cls, m)) fail_out_of_memory(requested, origin, m);
    }
  }
  void* raw = std::aligned_alloc(kAlignment, cls + kAlignment);
  if (!raw) {
    empty_cache_locked();  // drop the cache and try once more before giving up
    raw = std::aligned_alloc(kAlignment, cls + kAlignment);
    if (!raw) fail_out_of_memory(requested, origin, system_memory());
  }
  stats_.reserved += cls;
  auto* h = static_cast<Header*>(raw);
  h->size_class = cls;
  h->index = blocks_.size();
  blocks_.push_back(h);
  return h;
}

void* CpuAllocator::allocate(size_t nbytes, OriginId origin) {
  static_assert(sizeof(Header) <= kAlignment, "the header must fit before the aligned bytes");
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.allocations;
  if (nbytes > kLargestRequest) [[unlikely]]
    fail_out_of_memory(nbytes, origin, system_memory());
  size_t cls = size_class(nbytes);
  if (limit_ && cls > limit_ - std::min(limit_, budget_in_use())) [[unlikely]] {
    --stats_.allocations;  // as fail_out_of_memory does: the allocation did not happen
    throw_over_limit(nbytes);
  }
  if (cls == 0) return nullptr;
  Header* h;
  auto it = cache_.find(cls);
  if (it != cache_.end() && !it->second.empty()) {  // the common case, kept inline
    h = it->second.back();
    it->second.pop_back();
    cached_bytes_ -= cls;
    ++stats_.cache_hits;
  } else {
    h = system_block(nbytes, cls, origin);
  }
  h->requested = nbytes;
  h->origin = origin;
  h->live = true;
  stats_.allocated += cls;
  if (stats_.allocated > stats_.peak_allocated) stats_.peak_allocated = stats_.allocated;
  return reinterpret_cast<char*>(h) + kAlignment;
}

void CpuAllocator::deallocate(void* ptr, size_t) {
  if (!ptr) return;
  auto* h = reinterpret_cast<Header*>(static_cast<char*>(ptr) - kAlignment);
  size_t cls = h->size_class;
  std::lock_guard<std::mutex> lock(mutex_);
  h->live = false;
  stats_.allocated -= cls;
  if (cached_bytes_ + cls > kMaxCachedBytes) return release_to_system(h);
  cache_[cls].push_back(h);
  cached_bytes_ += cls;
}

size_t CpuAllocator::set_limit(size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  has_limit_.store(bytes != 0);
  return std::exchange(limit_, bytes);
}

// Note [Host memory budget]
// Strings and lists (the interpreter's str, list and tuple) are not tensors and are
// not allocated here, but the memory budget counts them too:
//  - live: each str is charged its bytes when it is made and refunded when it goes,
//    each list or tuple the bytes of its items' array, again before an append or
//    extend grows it (interp/values/value.cpp keeps the books; container_methods.cpp grows).
//    add_host() keeps the total that host_bytes() reports; the budget of set_limit
//    counts it with the tensors (budget_in_use), and check_host_budget() is where a
//    new str or list meets the budget: past it, the budget's error, before it is made.
//  - ahead: a builtin about to build a big one from a count (repetition, join,
//    replace, the list of a range) calls check_host_request first, which also
//    compares it, from kCheckedBytes, with what the system can give. So `"ab" * 2**62`
//    or `[0] * 10**10` fails at once, instead of growing memory for a minute.
// The charge is an estimate: the str's bytes and the list's 24-byte slots, not the
// objects' headers, nor dicts. value.cpp passes small charges on in batches of 64 KiB
// per thread (an atomic add per str would cost 5% of a string-heavy loop), so the
// total may lag by that much.
void CpuAllocator::add_host(int64_t delta) noexcept { host_bytes_.fetch_add(delta, std::memory_order_relaxed); }

size_t CpuAllocator::host_bytes() const {
  return static_cast<size_t>(std::max<int64_t>(0, host_bytes_.load(std::memory_order_relaxed)));
}

void CpuAllocator::check_host_budget(size_t nbytes, const char* what) {
  if (!has_limit_.load(std::memory_order_relaxed)) [[likely]]
    return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (limit_ && nbytes > limit_ - std::min(limit_, budget_in_use())) throw_over_limit(nbytes, what);
}

void CpuAllocator::check_host_request(size_t count, size_t item_bytes, const std::string& what) {
  size_t nbytes;
  if (__builtin_mul_overflow(count, item_bytes, &nbytes) || nbytes > kLargestRequest)
    throw Error("out of memory: " + what + " needs " + std::to_string(count) + " x " + std::to_string(item_bytes) +
                " bytes, more than any machine has (2^62)");
  if (nbytes < kCheckedBytes && !has_limit_.load(std::memory_order_relaxed)) [[likely]]
    return;  // the common case (every str +) takes no lock
  std::lock_guard<std::mutex> lock(mutex_);
  if (limit_ && nbytes > limit_ - std::min(limit_, budget_in_use())) throw_over_limit(nbytes, what);
  if (nbytes < kCheckedBytes) return;
  SystemMemory m = system_memory();
  if (!fits_in_system(nbytes, m)) {
    empty_cache_locked();
    m = system_memory();
    if (!fits_in_system(nbytes, m))
      throw Error(out_of_memory_message(nbytes, 0, m, what));
  }
}

void CpuAllocator::throw_over_limit(size_t nbytes, const std::string& what) {
  size_t host = host_bytes();
  throw Error("memory budget of " + std::to_string(limit_) + " bytes exceeded: " + what + " needs " + std::to_string(nbytes) +
              " bytes and " + std::to_string(stats_.allocated) + " bytes are in use by tensors" +
              (host ? " and " + std::to_string(host) + " by strings and lists" : std::string()));
}

AllocatorStats CpuAllocator::stats() {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

std::vector<LiveBlock> CpuAllocator::live_blocks() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<LiveBlock> out;
  for (Header* h : blocks_)
    if (h->live) out.push_back({h->size_class, h->requested, h->origin});
  return out;
}

void CpuAllocator::reset_peak() {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.peak_allocated = stats_.allocated;
}

void CpuAllocator::empty_cache() {
  std::lock_guard<std::mutex> lock(mutex_);
  empty_cache_locked();
}

void CpuAllocator::empty_cache_locked() {
  for (auto& [size, blocks] : cache_)
    for (Header* h : blocks) release_to_system(h);
  cache_.clear();
  cached_bytes_ = 0;
}

}  // namespace nabla
