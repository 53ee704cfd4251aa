// The device caching allocator. See caching_allocator.hpp for what it is for and
// docs/cuda.md for the rules; PyTorch's c10/cuda/CUDACachingAllocator.cpp is the model.
//
// Note [Block states]: every Block is in exactly one place. `allocated`: in live_,
// handed out. `pending_free`: freed, but streams named by record_stream may still use
// it; pending_events_ holds one event per such stream, and the block is released when
// the last completes. `free`: in its pool (small_pool_ or large_pool_), merged with any
// free neighbour, so two free blocks are never adjacent within a segment. A segment is
// the list of blocks linked by prev/next; it is whole (returnable to the device) when
// one free block has neither.
#include "tensor/cuda/caching_allocator.hpp"

#include <algorithm>
#include <cstdio>

#include "tensor/error.hpp"
#include "tensor/origin.hpp"

namespace nabla::cuda {

struct CachingAllocator::Block {
  char* address = nullptr;
  size_t size = 0;
  StreamId stream = 0;
  bool small = false;  // which pool; a segment's blocks all share it
  Block* prev = nullptr;
  Block* next = nullptr;
  BlockInfo::State state = BlockInfo::State::free;
  int pending_events = 0;
  std::vector<StreamId> stream_uses;  // other streams that used it (record_stream)
  std::string tag;                    // who asked for it, while allocated
};

namespace {
constexpr size_t kMaxTagLength = 160;
constexpr size_t kLargestShown = 5;  // live allocations listed by an OOM message
// Beyond this a request cannot be rounded without overflow; no device has it anyway.
constexpr size_t kMaxRequest = size_t(1) << 60;

std::string address_text(const void* ptr) {
  char text[32];
  std::snprintf(text, sizeof text, "%p", ptr);
  return text;
}
}  // namespace

std::string format_bytes(size_t nbytes) {
  static const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  if (nbytes < 1024) return std::to_string(nbytes) + " B";
  double value = double(nbytes) / 1024;
  int unit = 0;
  while (value >= 1024 && unit < 3) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.2f %s", value, units[unit]);
  return text;
}

bool CachingAllocator::BlockOrder::operator()(const Block* a, const Block* b) const {
  if (a->stream != b->stream) return a->stream < b->stream;
  if (a->size != b->size) return a->size < b->size;
  return std::uintptr_t(a->address) < std::uintptr_t(b->address);
}

CachingAllocator::CachingAllocator(std::unique_ptr<DeviceBackend> backend) : backend_(std::move(backend)) {}

CachingAllocator::~CachingAllocator() {
  try {
    synchronize_and_process_events();
    release_cached_segments();
  } catch (...) {  // a destructor must not throw; a device that fails now is going away
  }
  // What is left belongs to segments with live blocks: their memory stays with the
  // caller (freeing it under a live tensor would be worse than the leak).
  for (Block* block : small_pool_) delete block;
  for (Block* block : large_pool_) delete block;
  for (auto& [ptr, block] : live_) delete block;
}

size_t CachingAllocator::round_size(size_t nbytes) {
  if (nbytes < kMinBlockSize) return kMinBlockSize;
  return (nbytes + kMinBlockSize - 1) / kMinBlockSize * kMinBlockSize;
}

size_t CachingAllocator::segment_size(size_t rounded) {
  if (is_small(rounded)) return kSmallBuffer;
  if (rounded < kMinLargeAlloc) return kLargeBuffer;
  return (rounded + kRoundLarge - 1) / kRoundLarge * kRoundLarge;
}

void* CachingAllocator::allocate(size_t nbytes, StreamId stream, const std::string& tag) {
  if (nbytes == 0) return nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  if (nbytes > kMaxRequest) {
    ++stats_.ooms;
    throw Error(out_of_memory_message(nbytes, nbytes));
  }
  size_t size = round_size(nbytes);
  process_events();
  Block* block = find_free_block(size, stream);
  if (!block) block = new_segment(size, stream);
  if (!block) {
    // The device is full: give back every unused segment (after waiting for pending
    // frees), then try once more, from the pool first.
    ++stats_.alloc_retries;
    synchronize_and_process_events();
    release_cached_segments();
    block = find_free_block(size, stream);
    if (!block) block = new_segment(size, stream);
    if (!block) {
      ++stats_.ooms;
      throw Error(out_of_memory_message(nbytes, segment_size(size)));
    }
  }
  block = split(block, size);
  block->state = BlockInfo::State::allocated;
  block->tag = tag.size() <= kMaxTagLength ? tag : tag.substr(0, kMaxTagLength) + "...";
  live_[block->address] = block;
  stats_.allocated += block->size;
  stats_.peak_allocated = std::max(stats_.peak_allocated, stats_.allocated);
  ++stats_.allocations;
  return block->address;
}

// The smallest free block of the right pool and stream that holds `size` bytes,
// taken out of its pool; nullptr when there is none.
CachingAllocator::Block* CachingAllocator::find_free_block(size_t size, StreamId stream) {
  Pool& pool = pool_for(is_small(size));
  Block key;
  key.stream = stream;
  key.size = size;
  auto it = pool.lower_bound(&key);
  if (it == pool.end() || (*it)->stream != stream) return nullptr;
  Block* block = *it;
  pool.erase(it);
  ++stats_.cache_hits;
  return block;
}

// A fresh segment for a request of `size` rounded bytes, as one free block that is in
// no pool yet; nullptr when the device has no room.
CachingAllocator::Block* CachingAllocator::new_segment(size_t size, StreamId stream) {
  size_t bytes = segment_size(size);
  void* ptr = backend_->raw_malloc(bytes);
  if (!ptr) return nullptr;
  ++stats_.segment_mallocs;
  ++stats_.segments;
  stats_.reserved += bytes;
  stats_.peak_reserved = std::max(stats_.peak_reserved, stats_.reserved);
  Block* block = new Block;
  block->address = static_cast<char*>(ptr);
  block->size = bytes;
  block->stream = stream;
  block->small = is_small(size);
  return block;
}

// Cuts `size` bytes off the front of a free block when the rest is worth keeping: a
// small-pool rest of one minimum block, a large-pool rest of more than 1 MiB (smaller
// rests stay inside the allocation, as in PyTorch, so the large pool does not fill
// with slivers). The rest goes to the pool.
CachingAllocator::Block* CachingAllocator::split(Block* block, size_t size) {
  size_t rest_size = block->size - size;
  bool worth_keeping = block->small ? rest_size >= kMinBlockSize : rest_size > kSmallSize;
  if (!worth_keeping) return block;
  Block* rest = new Block;
  rest->address = block->address + size;
  rest->size = rest_size;
  rest->stream = block->stream;
  rest->small = block->small;
  rest->prev = block;
  rest->next = block->next;
  if (rest->next) rest->next->prev = rest;
  block->next = rest;
  block->size = size;
  pool_for(rest->small).insert(rest);
  return block;
}

void CachingAllocator::free(void* ptr) {
  if (!ptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = live_.find(ptr);
  NABLA_CHECK(it != live_.end(), "CUDA caching allocator: free of " + address_text(ptr) + " on " +
                                     backend_->device_name() + ", which it did not allocate (or freed already)");
  Block* block = it->second;
  live_.erase(it);
  stats_.allocated -= block->size;
  ++stats_.frees;
  block->tag.clear();
  if (block->stream_uses.empty()) {
    release_block(block);
    return;
  }
  block->state = BlockInfo::State::pending_free;
  stats_.pending_free += block->size;
  for (StreamId stream : block->stream_uses) {
    pending_events_.push_back({backend_->record_event(stream), block});
    ++block->pending_events;
  }
  block->stream_uses.clear();
}

void CachingAllocator::record_stream(void* ptr, StreamId stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = live_.find(ptr);
  NABLA_CHECK(it != live_.end(), "CUDA caching allocator: record_stream of " + address_text(ptr) + " on " +
                                     backend_->device_name() + ", which is not a live allocation");
  Block* block = it->second;
  if (stream == block->stream) return;
  auto& uses = block->stream_uses;
  if (std::find(uses.begin(), uses.end(), stream) == uses.end()) uses.push_back(stream);
}

// Back into its pool, merged with its free neighbours. See Note [Block states].
void CachingAllocator::release_block(Block* block) {
  block->state = BlockInfo::State::free;
  if (block->prev && block->prev->state == BlockInfo::State::free) merge_into(block, block->prev);
  if (block->next && block->next->state == BlockInfo::State::free) merge_into(block, block->next);
  pool_for(block->small).insert(block);
}

// `neighbour` (free, in its pool) joins `block` (in no pool) and is deleted.
void CachingAllocator::merge_into(Block* block, Block* neighbour) {
  pool_for(neighbour->small).erase(neighbour);
  if (neighbour == block->prev) {
    block->address = neighbour->address;
    block->prev = neighbour->prev;
    if (block->prev) block->prev->next = block;
  } else {
    block->next = neighbour->next;
    if (block->next) block->next->prev = block;
  }
  block->size += neighbour->size;
  delete neighbour;
}

// Releases the pending blocks whose streams have all finished with them.
void CachingAllocator::process_events() {
  for (size_t i = 0; i < pending_events_.size();) {
    PendingEvent pending = pending_events_[i];
    if (!backend_->event_completed(pending.event)) {
      ++i;
      continue;
    }
    backend_->destroy_event(pending.event);
    pending_events_[i] = pending_events_.back();
    pending_events_.pop_back();
    if (--pending.block->pending_events == 0) {
      stats_.pending_free -= pending.block->size;
      release_block(pending.block);
    }
  }
}

void CachingAllocator::synchronize_and_process_events() {
  for (PendingEvent& pending : pending_events_) backend_->synchronize_event(pending.event);
  process_events();
}

// Gives every whole free segment back to the device.
void CachingAllocator::release_cached_segments() {
  for (Pool* pool : {&small_pool_, &large_pool_}) {
    for (auto it = pool->begin(); it != pool->end();) {
      Block* block = *it;
      if (block->prev || block->next) {
        ++it;
        continue;
      }
      backend_->raw_free(block->address);
      stats_.reserved -= block->size;
      --stats_.segments;
      ++stats_.segment_frees;
      it = pool->erase(it);
      delete block;
    }
  }
}

void CachingAllocator::empty_cache() {
  std::lock_guard<std::mutex> lock(mutex_);
  synchronize_and_process_events();
  release_cached_segments();
}

CachingAllocatorStats CachingAllocator::stats() {
  std::lock_guard<std::mutex> lock(mutex_);
  CachingAllocatorStats result = stats_;
  for (const Pool* pool : {&small_pool_, &large_pool_})
    for (const Block* block : *pool)
      if (block->prev || block->next) {
        result.inactive_split += block->size;
        ++result.inactive_split_blocks;
      }
  return result;
}

void CachingAllocator::reset_peak() {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.peak_allocated = stats_.allocated;
  stats_.peak_reserved = stats_.reserved;
}

std::vector<SegmentInfo> CachingAllocator::snapshot() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<const Block*> heads;
  auto note = [&](const Block* block) {
    if (!block->prev) heads.push_back(block);
  };
  for (const Pool* pool : {&small_pool_, &large_pool_})
    for (const Block* block : *pool) note(block);
  for (auto& [ptr, block] : live_) note(block);
  for (const PendingEvent& pending : pending_events_)
    if (std::find(heads.begin(), heads.end(), pending.block) == heads.end()) note(pending.block);
  std::sort(heads.begin(), heads.end(),
            [](const Block* a, const Block* b) { return std::uintptr_t(a->address) < std::uintptr_t(b->address); });
  std::vector<SegmentInfo> segments;
  for (const Block* head : heads) {
    SegmentInfo segment{std::uintptr_t(head->address), 0, head->small, {}};
    for (const Block* block = head; block; block = block->next) {
      segment.size += block->size;
      segment.blocks.push_back({std::uintptr_t(block->address), block->size, block->state, block->stream, block->tag});
    }
    segments.push_back(std::move(segment));
  }
  return segments;
}

// " at mlp.dsl:12:9 x @ w": where a block was asked for (its tag, the origin of the
// DSL line) and the expression that the interpreter noted for that place, if any.
namespace {
std::string describe_tag(const std::string& tag) {
  if (tag.empty()) return " (untagged)";
  std::string expression = origin_expression(intern_origin(tag));
  return " at " + tag + (expression.empty() ? "" : " " + expression);
}
}  // namespace

// "CUDA out of memory: tried to allocate 2.00 GiB on cuda:0 (1.20 GiB free of
// 80.00 GiB; nabla holds 78.10 GiB reserved, 76.00 GiB allocated). Largest live
// tensors: 8.00 GiB at mlp.dsl:12:9 x @ w, ..."
std::string CachingAllocator::out_of_memory_message(size_t nbytes, size_t segment) {
  DeviceMemoryInfo info = backend_->memory_info();
  std::string message = "CUDA out of memory: tried to allocate " + format_bytes(nbytes);
  if (segment > round_size(nbytes)) message += " (in a new " + format_bytes(segment) + " segment)";
  message += " on " + backend_->device_name() + " (" + format_bytes(info.free) + " free of " +
             format_bytes(info.total) + "; nabla holds " + format_bytes(stats_.reserved) + " reserved, " +
             format_bytes(stats_.allocated) + " allocated).";
  std::vector<const Block*> live;
  for (auto& [ptr, block] : live_) live.push_back(block);
  if (live.empty()) return message + " No live tensors: the memory is held outside this allocator.";
  std::sort(live.begin(), live.end(), [](const Block* a, const Block* b) {
    return a->size != b->size ? a->size > b->size : std::uintptr_t(a->address) < std::uintptr_t(b->address);
  });
  message += " Largest live tensors: ";
  size_t shown = std::min(live.size(), kLargestShown);
  for (size_t i = 0; i < shown; ++i) {
    const Block* block = live[i];
    message += (i ? ", " : "") + format_bytes(block->size) + describe_tag(block->tag);
  }
  if (live.size() > shown) {
    size_t rest = 0;
    for (size_t i = shown; i < live.size(); ++i) rest += live[i]->size;
    message += "; " + std::to_string(live.size() - shown) + " more holding " + format_bytes(rest);
  }
  return message + ".";
}

}  // namespace nabla::cuda
