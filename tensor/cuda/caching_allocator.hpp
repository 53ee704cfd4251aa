// The device caching allocator, in the manner of PyTorch's CUDACachingAllocator:
// device memory is taken from the driver in segments, cut into blocks, and a freed
// block goes back to a pool from which the next request of its stream is served, so a
// training loop stops calling cudaMalloc (which synchronises the device) after its
// first step. See docs/cuda.md for the rules (rounding, pools, splitting, streams, OOM).
//
// Plain C++, compiled in every build: it talks to the device only through
// DeviceBackend (cudart_backend.cu on a CUDA build, a fake in the tests), so all of its
// logic is tested without a GPU. It must not know about tensors or the language: a
// caller hands it a short tag (the DSL expression that asked for the memory) that the
// out-of-memory message repeats. Kept to C++17: nvcc compiles the cudart backend.
// Thread-safe: one mutex guards everything, backend calls included.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace nabla::cuda {

// A stream as the allocator sees it: an opaque id (a cudaStream_t's bits; 0 is the
// default stream). Blocks are reused only within the stream that allocated them.
using StreamId = std::uintptr_t;
using EventHandle = void*;  // a cudaEvent_t, or whatever the backend records

struct DeviceMemoryInfo {
  size_t free = 0;  // as the driver reports it (cudaMemGetInfo)
  size_t total = 0;
};

// What the allocator needs of a device. raw_malloc answers nullptr when the device is
// out of memory (and throws nabla::Error for any other failure); the event calls let
// a block that other streams used wait for their work before it is reused.
class DeviceBackend {
 public:
  virtual ~DeviceBackend() = default;
  virtual std::string device_name() const = 0;  // "cuda:0", for messages
  virtual void* raw_malloc(size_t nbytes) = 0;
  virtual void raw_free(void* ptr) = 0;
  virtual EventHandle record_event(StreamId stream) = 0;  // marks the work queued on stream so far
  virtual bool event_completed(EventHandle event) = 0;    // never blocks
  virtual void synchronize_event(EventHandle event) = 0;  // blocks until the event completes
  virtual void destroy_event(EventHandle event) = 0;
  virtual DeviceMemoryInfo memory_info() = 0;
};

// PyTorch's names where PyTorch has one (torch.cuda.memory_stats).
struct CachingAllocatorStats {
  size_t allocated = 0;       // bytes in blocks handed out now (rounded to 512)
  size_t peak_allocated = 0;  // high-water mark of `allocated` since reset_peak()
  size_t reserved = 0;        // bytes in segments taken from the device
  size_t peak_reserved = 0;   // high-water mark of `reserved` since reset_peak()
  size_t pending_free = 0;    // freed bytes waiting for other streams' events
  size_t inactive_split = 0;  // free bytes in segments that are partly in use: empty_cache cannot return them
  size_t inactive_split_blocks = 0;
  size_t segments = 0;         // segments held now
  size_t allocations = 0;      // allocate() calls that returned memory
  size_t frees = 0;            // free() calls of a live block
  size_t cache_hits = 0;       // allocations served from a pool without a new segment
  size_t segment_mallocs = 0;  // raw_malloc calls that succeeded
  size_t segment_frees = 0;    // segments given back to the device
  size_t alloc_retries = 0;    // raw_malloc failures answered by emptying the cache
  size_t ooms = 0;             // allocations that failed even after the retry
  // Reserved but not handed out: cached, pending, or inactive split bytes.
  size_t unallocated() const { return reserved - allocated; }
};

// A block of one segment as snapshot() reports it (tests, and later memory dumps).
struct BlockInfo {
  std::uintptr_t address = 0;
  size_t size = 0;
  enum class State { allocated, pending_free, free } state = State::free;
  StreamId stream = 0;
  std::string tag;
};
struct SegmentInfo {
  std::uintptr_t address = 0;
  size_t size = 0;
  bool small_pool = false;
  std::vector<BlockInfo> blocks;  // in address order; they tile the segment
};

class CachingAllocator {
 public:
  static constexpr size_t kMinBlockSize = 512;              // every size rounds up to this
  static constexpr size_t kSmallSize = size_t(1) << 20;     // requests up to 1 MiB use the small pool
  static constexpr size_t kSmallBuffer = size_t(2) << 20;   // small-pool segment size
  static constexpr size_t kLargeBuffer = size_t(20) << 20;  // segment for requests in (1, 10) MiB
  static constexpr size_t kMinLargeAlloc = size_t(10) << 20;
  static constexpr size_t kRoundLarge = size_t(2) << 20;  // larger segments round up to this

  explicit CachingAllocator(std::unique_ptr<DeviceBackend> backend);
  ~CachingAllocator();  // returns cached segments; live blocks are the caller's leak
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // nbytes on `stream`; nullptr for 0 bytes. Throws nabla::Error when the device is
  // out of memory even after the cache was emptied; the message names `tag`s.
  void* allocate(size_t nbytes, StreamId stream = 0, const std::string& tag = "");
  // Reusable at once on its own stream, or once the streams given to record_stream
  // have finished the work queued so far. Throws for a pointer it did not hand out.
  void free(void* ptr);
  // ptr is (about to be) used by work on `stream` as well as its own.
  void record_stream(void* ptr, StreamId stream);

  CachingAllocatorStats stats();
  void reset_peak();
  void empty_cache();  // waits for pending frees, then returns every unused segment
  std::vector<SegmentInfo> snapshot();
  DeviceBackend& backend() { return *backend_; }

  static size_t round_size(size_t nbytes);     // up to a multiple of 512
  static size_t segment_size(size_t rounded);  // what raw_malloc is asked for
  static bool is_small(size_t rounded) { return rounded <= kSmallSize; }

 private:
  struct Block;
  struct BlockOrder {  // (stream, size, address): best fit is a lower_bound
    bool operator()(const Block* a, const Block* b) const;
  };
  using Pool = std::set<Block*, BlockOrder>;

  Pool& pool_for(bool small) { return small ? small_pool_ : large_pool_; }
  Block* find_free_block(size_t size, StreamId stream);
  Block* new_segment(size_t size, StreamId stream);
  Block* split(Block* block, size_t size);
  void release_block(Block* block);  // back into its pool, merged with free neighbours
  void merge_into(Block* block, Block* neighbour);
  void process_events();
  void synchronize_and_process_events();
  void release_cached_segments();
  std::string out_of_memory_message(size_t nbytes, size_t segment);

  std::mutex mutex_;
  std::unique_ptr<DeviceBackend> backend_;
  Pool small_pool_;
  Pool large_pool_;
  std::unordered_map<void*, Block*> live_;  // allocated blocks by address
  struct PendingEvent {
    EventHandle event;
    Block* block;
  };
  std::vector<PendingEvent> pending_events_;
  CachingAllocatorStats stats_;
};

// "1.50 GiB", "512 B": the sizes the messages and docs print.
std::string format_bytes(size_t nbytes);

}  // namespace nabla::cuda
