// The device caching allocator over a fake device: a ledger of segments with a
// capacity, injectable malloc failures, and events that complete when the test says
// so. No GPU is needed; the cudart backend is only built and linked.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <thread>

#include "tensor/cuda/caching_allocator.hpp"
#include "tensor/cuda/cuda_runtime.hpp"
#include "tensor/error.hpp"
#include "tensor/origin.hpp"

using namespace nabla;
using namespace nabla::cuda;

namespace {

constexpr size_t KiB = 1024, MiB = 1024 * KiB;

// What the fake device holds; the test keeps a pointer to it after the allocator
// takes the backend.
struct FakeDevice {
  size_t capacity = 0;
  size_t used = 0;
  std::map<std::uintptr_t, size_t> segments;  // address -> bytes
  std::uintptr_t next_address = std::uintptr_t(1) << 32;
  int fail_next_mallocs = 0;  // fail this many mallocs even when there is room
  int failed_mallocs = 0;
  struct Event {
    StreamId stream;
    bool completed;
  };
  std::map<std::uintptr_t, Event> events;  // live events by handle
  std::uintptr_t next_event = 1;
  int events_recorded = 0;
  int synchronizations = 0;

  void complete_events_on(StreamId stream) {
    for (auto& [handle, event] : events)
      if (event.stream == stream) event.completed = true;
  }
};

class FakeBackend : public DeviceBackend {
 public:
  explicit FakeBackend(std::shared_ptr<FakeDevice> device) : device_(std::move(device)) {}
  std::string device_name() const override { return "cuda:7"; }
  void* raw_malloc(size_t nbytes) override {
    if (device_->fail_next_mallocs > 0 || device_->used + nbytes > device_->capacity) {
      if (device_->fail_next_mallocs > 0) --device_->fail_next_mallocs;
      ++device_->failed_mallocs;
      return nullptr;
    }
    std::uintptr_t address = device_->next_address;
    device_->next_address += nbytes + 2 * MiB;  // a gap: segments are never adjacent
    device_->segments[address] = nbytes;
    device_->used += nbytes;
    return reinterpret_cast<void*>(address);
  }
  void raw_free(void* ptr) override {
    auto it = device_->segments.find(reinterpret_cast<std::uintptr_t>(ptr));
    REQUIRE(it != device_->segments.end());  // only whole segments come back
    device_->used -= it->second;
    device_->segments.erase(it);
  }
  EventHandle record_event(StreamId stream) override {
    ++device_->events_recorded;
    std::uintptr_t handle = device_->next_event++;
    device_->events[handle] = {stream, false};
    return reinterpret_cast<EventHandle>(handle);
  }
  bool event_completed(EventHandle event) override { return find(event).completed; }
  void synchronize_event(EventHandle event) override {
    ++device_->synchronizations;
    find(event).completed = true;
  }
  void destroy_event(EventHandle event) override { device_->events.erase(reinterpret_cast<std::uintptr_t>(event)); }
  DeviceMemoryInfo memory_info() override { return {device_->capacity - device_->used, device_->capacity}; }

 private:
  FakeDevice::Event& find(EventHandle event) {
    auto it = device_->events.find(reinterpret_cast<std::uintptr_t>(event));
    REQUIRE(it != device_->events.end());
    return it->second;
  }
  std::shared_ptr<FakeDevice> device_;
};

struct Fixture {
  std::shared_ptr<FakeDevice> device;
  std::unique_ptr<CachingAllocator> allocator;
  explicit Fixture(size_t capacity = 1024 * MiB) : device(std::make_shared<FakeDevice>()) {
    device->capacity = capacity;
    allocator = std::make_unique<CachingAllocator>(std::make_unique<FakeBackend>(device));
  }
};

std::uintptr_t address(const void* ptr) { return reinterpret_cast<std::uintptr_t>(ptr); }

}  // namespace

TEST_CASE("sizes round to 512 bytes; segments to 2 MiB, 20 MiB or a multiple of 2 MiB") {
  CHECK(CachingAllocator::round_size(1) == 512);
  CHECK(CachingAllocator::round_size(512) == 512);
  CHECK(CachingAllocator::round_size(513) == 1024);
  CHECK(CachingAllocator::round_size(1000000) == 1000448);
  CHECK(CachingAllocator::segment_size(512) == 2 * MiB);
  CHECK(CachingAllocator::segment_size(1 * MiB) == 2 * MiB);
  CHECK(CachingAllocator::segment_size(1 * MiB + 512) == 20 * MiB);
  CHECK(CachingAllocator::segment_size(10 * MiB - 512) == 20 * MiB);
  CHECK(CachingAllocator::segment_size(10 * MiB) == 10 * MiB);
  CHECK(CachingAllocator::segment_size(11 * MiB + 512) == 12 * MiB);
  CHECK(format_bytes(512) == "512 B");
  CHECK(format_bytes(1536) == "1.50 KiB");
  CHECK(format_bytes(size_t(80) << 30) == "80.00 GiB");

  Fixture f;
  void* p = f.allocator->allocate(1);
  CHECK(f.allocator->stats().allocated == 512);
  CHECK(f.allocator->stats().reserved == 2 * MiB);
  CHECK(f.allocator->allocate(0) == nullptr);
  f.allocator->free(p);
  f.allocator->free(nullptr);  // a no-op, as for std::free
  CHECK(f.allocator->stats().frees == 1);
}

TEST_CASE("a freed block is reused, and the smallest block that fits wins") {
  Fixture f;
  CachingAllocator& a = *f.allocator;
  void* p = a.allocate(4096);
  a.free(p);
  CHECK(a.allocate(4096) == p);
  CHECK(a.stats().cache_hits == 1);
  CHECK(a.stats().segment_mallocs == 1);

  // Large pool: a 30 MiB and a 12 MiB segment, both free. 11 MiB goes to the 12 MiB
  // one although the 30 MiB one comes first in address order; the 1 MiB rest is not
  // worth splitting off in the large pool, so the whole block is handed out.
  void* big = a.allocate(30 * MiB);
  void* fitting = a.allocate(12 * MiB);
  CHECK(address(big) < address(fitting));
  a.free(big);
  a.free(fitting);
  size_t allocated = a.stats().allocated;
  CHECK(a.allocate(11 * MiB) == fitting);
  CHECK(a.stats().allocated == allocated + 12 * MiB);
  CHECK(a.stats().segment_mallocs == 3);

  // Small pool: free holes of 8 KiB and 4 KiB in one segment; 3 KiB takes the 4 KiB.
  Fixture g;
  CachingAllocator& b = *g.allocator;
  void* hole8 = b.allocate(8 * KiB);
  void* wall1 = b.allocate(512);
  void* hole4 = b.allocate(4 * KiB);
  void* wall2 = b.allocate(512);
  b.free(hole8);
  b.free(hole4);
  CHECK(b.allocate(3 * KiB) == hole4);
  CHECK(b.allocate(5 * KiB) == hole8);
  CHECK(b.stats().segment_mallocs == 1);
  CHECK(wall1 != wall2);
}

TEST_CASE("blocks split off one segment and freed neighbours merge back") {
  Fixture f;
  CachingAllocator& a = *f.allocator;
  // Three blocks fill one 2 MiB small segment exactly.
  void* first = a.allocate(512 * KiB);
  void* middle = a.allocate(768 * KiB);
  void* last = a.allocate(768 * KiB);
  CHECK(address(middle) == address(first) + 512 * KiB);
  CHECK(address(last) == address(middle) + 768 * KiB);
  CHECK(a.stats().segment_mallocs == 1);
  a.free(middle);
  a.free(last);
  std::vector<SegmentInfo> segments = a.snapshot();
  REQUIRE(segments.size() == 1);
  REQUIRE(segments[0].blocks.size() == 2);  // the two freed blocks became one
  CHECK(segments[0].blocks[1].size == 1536 * KiB);
  CHECK(segments[0].blocks[1].state == BlockInfo::State::free);
  // 1 MiB fits neither freed block alone (768 KiB each), only the merged space.
  void* merged = a.allocate(1 * MiB);
  CHECK(merged == middle);
  CHECK(a.stats().segment_mallocs == 1);
  CHECK(a.snapshot()[0].blocks.size() == 3);  // first, merged, and a 512 KiB rest

  a.free(first);
  a.free(merged);
  segments = a.snapshot();
  REQUIRE(segments[0].blocks.size() == 1);
  CHECK(segments[0].blocks[0].size == 2 * MiB);
  a.empty_cache();
  CHECK(a.stats().reserved == 0);
  CHECK(a.stats().segment_frees == 1);
  CHECK(f.device->segments.empty());

  // Large pool: 5 MiB from a 20 MiB segment leaves a 15 MiB rest for the next one.
  void* x = a.allocate(5 * MiB);
  void* y = a.allocate(5 * MiB);
  CHECK(address(y) == address(x) + 5 * MiB);
  CHECK(a.stats().segment_mallocs == 2);
  CHECK(a.stats().reserved == 20 * MiB);
}

TEST_CASE("small requests and large requests never share a pool") {
  Fixture f;
  CachingAllocator& a = *f.allocator;
  void* small = a.allocate(512);
  // The small segment's free 2 MiB - 512 would hold 1.5 MiB, but that is a large request.
  void* large = a.allocate(1536 * KiB);
  CHECK(a.stats().segment_mallocs == 2);
  CHECK(a.stats().reserved == 22 * MiB);
  a.free(large);
  a.free(small);
  a.empty_cache();
  void* large_again = a.allocate(2 * MiB);
  a.free(large_again);
  void* small_again = a.allocate(4 * KiB);  // the free 20 MiB large segment is not used
  CHECK(a.stats().segment_mallocs == 4);
  std::vector<SegmentInfo> segments = a.snapshot();
  REQUIRE(segments.size() == 2);
  CHECK(segments[0].small_pool == false);
  CHECK(segments[1].small_pool == true);
  CHECK(segments[1].address == address(small_again));
}

TEST_CASE("a block is reused only on its stream, and after the streams that used it finish") {
  Fixture f;
  CachingAllocator& a = *f.allocator;
  const StreamId s1 = 1, s2 = 2, s3 = 3;
  void* on_s1 = a.allocate(4096, s1);
  a.free(on_s1);
  void* on_s2 = a.allocate(4096, s2);
  CHECK(on_s2 != on_s1);
  CHECK(a.stats().segment_mallocs == 2);
  CHECK(a.allocate(4096, s1) == on_s1);

  // Used on s2 and s3 as well: pending until both streams' events complete.
  void* shared = on_s1;
  a.record_stream(shared, s2);
  a.record_stream(shared, s3);
  a.record_stream(shared, s1);  // its own stream: nothing to wait for
  a.record_stream(shared, s2);  // twice: one event
  a.free(shared);
  CHECK(f.device->events_recorded == 2);
  CHECK(a.stats().pending_free == 4096);
  CHECK(a.stats().allocated == 4096);  // on_s2 only
  void* meanwhile = a.allocate(4096, s1);
  CHECK(meanwhile != shared);
  f.device->complete_events_on(s2);
  void* still = a.allocate(4096, s1);
  CHECK(still != shared);
  CHECK(a.stats().pending_free == 4096);
  f.device->complete_events_on(s3);
  CHECK(a.allocate(4096, s1) == shared);
  CHECK(a.stats().pending_free == 0);
  CHECK(f.device->events.empty());  // every event destroyed

  // empty_cache waits for pending frees rather than leaking them.
  a.record_stream(still, s2);
  a.free(still);
  CHECK(a.stats().pending_free == 4096);
  a.empty_cache();
  CHECK(f.device->synchronizations == 1);
  CHECK(a.stats().pending_free == 0);
  CHECK(f.device->events.empty());

  CHECK_THROWS_WITH_AS(a.record_stream(reinterpret_cast<void*>(16), s2),
                       doctest::Contains("record_stream of 0x10 on cuda:7, which is not a live allocation"),
                       nabla::Error);
  CHECK_THROWS_WITH_AS(a.free(reinterpret_cast<void*>(16)),
                       doctest::Contains("free of 0x10 on cuda:7, which it did not allocate (or freed already)"),
                       nabla::Error);
}

TEST_CASE("out of memory: the cache is emptied and the allocation retried, then a message") {
  Fixture f(64 * MiB);
  CachingAllocator& a = *f.allocator;
  void* weights = a.allocate(20 * MiB, 0, "mlp.dsl:12:9 x @ w");
  void* hidden = a.allocate(8 * MiB, 0, "mlp.dsl:13:5 relu(h)");  // in a 20 MiB segment
  void* cached = a.allocate(14 * MiB, 0, "mlp.dsl:14:1 temp");    // too big for hidden's 12 MiB rest
  a.free(cached);
  CHECK(f.device->used == 54 * MiB);
  // 16 MiB does not fit beside 54 MiB; dropping the cached 14 MiB segment makes room.
  void* grads = a.allocate(16 * MiB, 0, "mlp.dsl:20:3 grad(loss, w)");
  CHECK(a.stats().alloc_retries == 1);
  CHECK(a.stats().segment_frees == 1);
  CHECK(f.device->used == 56 * MiB);

  CHECK_THROWS_WITH_AS(a.allocate(30 * MiB, 0, "mlp.dsl:30:1 huge"),
                       "CUDA out of memory: tried to allocate 30.00 MiB on cuda:7 (8.00 MiB free of 64.00 MiB; "
                       "nabla holds 56.00 MiB reserved, 44.00 MiB allocated). Largest live tensors: 20.00 MiB at "
                       "mlp.dsl:12:9 x @ w, 16.00 MiB at mlp.dsl:20:3 grad(loss, w), 8.00 MiB at mlp.dsl:13:5 relu(h).",
                       nabla::Error);
  CachingAllocatorStats stats = a.stats();
  CHECK(stats.ooms == 1);
  CHECK(stats.alloc_retries == 2);
  CHECK(stats.allocated == 44 * MiB);  // nothing leaked by the failure
  // The 12 MiB rest of hidden's segment is an inactive split: the retry cannot return it.
  CHECK(stats.inactive_split == 12 * MiB);

  // A failure with room on the device (fragmentation in the driver): retried after
  // emptying the cache, and served.
  a.free(hidden);
  CHECK(a.stats().reserved == 56 * MiB);
  f.device->fail_next_mallocs = 1;
  void* retried = a.allocate(4 * KiB);
  CHECK(retried != nullptr);
  CHECK(a.stats().alloc_retries == 3);
  CHECK(a.stats().reserved == 36 * MiB + 2 * MiB);  // hidden's 20 MiB went back

  a.free(weights);
  a.free(grads);
  a.free(retried);
  CHECK(a.allocate(30 * MiB) != nullptr);  // the allocator still works
}

// Storage tags each block with the DSL place (current_origin()); the message adds the
// expression that the interpreter noted for that place.
TEST_CASE("the out-of-memory message shows the expression noted for a tag's place") {
  Fixture f(4 * MiB);
  CachingAllocator& a = *f.allocator;
  note_origin_expression(intern_origin("oom_test.dsl:7:11"), "zeros([256, 1024])");
  a.allocate(1 * MiB, 0, "oom_test.dsl:7:11");
  a.allocate(512 * KiB, 0, "oom_test.dsl:8:3");  // a place with no expression noted
  CHECK_THROWS_WITH_AS(a.allocate(8 * MiB), doctest::Contains("Largest live tensors: 1.00 MiB at oom_test.dsl:7:11 "
                                                              "zeros([256, 1024]), 512.00 KiB at oom_test.dsl:8:3."),
                       nabla::Error);
}

TEST_CASE("the out-of-memory message lists five live tensors and sums the rest") {
  Fixture f(10 * MiB);
  CachingAllocator& a = *f.allocator;
  for (int i = 1; i <= 7; ++i) a.allocate(size_t(i) * 64 * KiB, 0, i == 7 ? "" : "line " + std::to_string(i));
  CHECK_THROWS_WITH_AS(a.allocate(9 * MiB),
                       doctest::Contains("Largest live tensors: 448.00 KiB (untagged), "
                                         "384.00 KiB at line 6, 320.00 KiB at line 5, "
                                         "256.00 KiB at line 4, 192.00 KiB at line 3; "
                                         "2 more holding 192.00 KiB."),
                       nabla::Error);
  Fixture empty(4 * MiB);
  CHECK_THROWS_WITH_AS(empty.allocator->allocate(8 * MiB),
                       "CUDA out of memory: tried to allocate 8.00 MiB (in a new 20.00 MiB segment) on cuda:7 "
                       "(4.00 MiB free of 4.00 MiB; nabla holds 0 B reserved, 0 B allocated). No live tensors: "
                       "the memory is held outside this allocator.",
                       nabla::Error);
}

TEST_CASE("statistics: allocated, reserved, peaks, counts and fragmentation") {
  Fixture f;
  CachingAllocator& a = *f.allocator;
  std::vector<void*> blocks;
  for (int i = 0; i < 4; ++i) blocks.push_back(a.allocate(100 * KiB));  // 102400 is a multiple of 512
  CachingAllocatorStats s = a.stats();
  CHECK(s.allocated == 400 * KiB);
  CHECK(s.reserved == 2 * MiB);
  CHECK(s.segments == 1);
  CHECK(s.allocations == 4);
  CHECK(s.cache_hits == 3);  // the first made the segment; the rest came from its remainder
  CHECK(s.unallocated() == 2 * MiB - 400 * KiB);
  CHECK(s.inactive_split == 2 * MiB - 400 * KiB);  // the segment's free tail
  CHECK(s.inactive_split_blocks == 1);
  a.free(blocks[1]);  // a hole: a second inactive split block
  s = a.stats();
  CHECK(s.inactive_split_blocks == 2);
  CHECK(s.inactive_split == 2 * MiB - 300 * KiB);
  CHECK(s.peak_allocated == 400 * KiB);
  a.reset_peak();
  CHECK(a.stats().peak_allocated == 300 * KiB);
  void* big = a.allocate(50 * MiB);
  s = a.stats();
  CHECK(s.peak_reserved == 52 * MiB);
  CHECK(s.peak_allocated == 50 * MiB + 300 * KiB);
  a.free(big);
  a.empty_cache();  // the 50 MiB segment goes; the split small one stays
  s = a.stats();
  CHECK(s.reserved == 2 * MiB);
  CHECK(s.peak_reserved == 52 * MiB);
  CHECK(s.segment_frees == 1);
  CHECK(s.frees == 2);
  for (void* p : {blocks[0], blocks[2], blocks[3]}) a.free(p);
  s = a.stats();
  CHECK(s.inactive_split == 0);  // everything merged back into one whole segment
  CHECK(s.unallocated() == 2 * MiB);
  a.empty_cache();
  CHECK(a.stats().reserved == 0);
  CHECK(a.stats().segments == 0);
}

// Checks the allocator against the fake device and its own snapshot: segments tile,
// no two free blocks touch, live blocks do not overlap, and the numbers add up.
static void check_consistent(CachingAllocator& a, const FakeDevice& device,
                             const std::map<std::uintptr_t, size_t>& live_requests) {
  std::vector<SegmentInfo> segments = a.snapshot();
  CachingAllocatorStats stats = a.stats();
  size_t reserved = 0, allocated = 0, live_blocks = 0;
  std::vector<std::pair<std::uintptr_t, size_t>> live;
  REQUIRE(segments.size() == device.segments.size());
  for (const SegmentInfo& segment : segments) {
    auto owned = device.segments.find(segment.address);
    REQUIRE(owned != device.segments.end());
    REQUIRE(owned->second == segment.size);
    reserved += segment.size;
    std::uintptr_t cursor = segment.address;
    bool previous_free = false;
    for (const BlockInfo& block : segment.blocks) {
      REQUIRE(block.address == cursor);
      cursor += block.size;
      bool free = block.state == BlockInfo::State::free;
      REQUIRE_FALSE((free && previous_free));
      previous_free = free;
      if (block.state == BlockInfo::State::allocated) {
        allocated += block.size;
        ++live_blocks;
        live.push_back({block.address, block.size});
        auto request = live_requests.find(block.address);
        REQUIRE(request != live_requests.end());
        REQUIRE(block.size >= request->second);
      }
    }
    REQUIRE(cursor == segment.address + segment.size);
  }
  std::sort(live.begin(), live.end());
  for (size_t i = 1; i < live.size(); ++i) REQUIRE(live[i - 1].first + live[i - 1].second <= live[i].first);
  REQUIRE(live_blocks == live_requests.size());
  REQUIRE(stats.allocated == allocated);
  REQUIRE(stats.reserved == reserved);
  REQUIRE(stats.reserved == device.used);
  REQUIRE(stats.segments == segments.size());
  REQUIRE(stats.allocations - stats.frees == live_blocks);
  REQUIRE(stats.segment_mallocs - stats.segment_frees == stats.segments);
  REQUIRE(stats.peak_allocated >= stats.allocated);
}

TEST_CASE("randomized allocations and frees on several streams stay consistent") {
  Fixture f(128 * MiB);
  CachingAllocator& a = *f.allocator;
  std::mt19937_64 rng(42);
  std::map<std::uintptr_t, size_t> live;  // address -> requested bytes
  std::map<std::uintptr_t, StreamId> streams;
  int ooms = 0, pending_seen = 0;
  auto random_size = [&] {
    // Log-uniform from 1 B to 32 MiB: both pools, every segment rule.
    double exponent = std::uniform_real_distribution<double>(0, 25)(rng);
    return size_t(std::exp2(exponent));
  };
  for (int step = 0; step < 6000; ++step) {
    int action = int(rng() % 10);
    if (action < 5 || live.empty()) {
      size_t nbytes = random_size();
      StreamId stream = rng() % 3;
      try {
        void* p = a.allocate(nbytes, stream, "step " + std::to_string(step));
        REQUIRE(live.count(address(p)) == 0);
        live[address(p)] = nbytes;
        streams[address(p)] = stream;
      } catch (const nabla::Error& e) {
        ++ooms;
        REQUIRE(std::string(e.what()).rfind("CUDA out of memory: tried to allocate ", 0) == 0);
      }
    } else {
      auto it = std::next(live.begin(), long(rng() % live.size()));
      void* p = reinterpret_cast<void*>(it->first);
      if (action == 9) a.record_stream(p, rng() % 3);
      a.free(p);
      streams.erase(it->first);
      live.erase(it);
    }
    if (rng() % 4 == 0) f.device->complete_events_on(rng() % 3);
    if (step % 1000 == 999) a.empty_cache();
    if (a.stats().pending_free > 0) ++pending_seen;
    if (step % 20 == 0) check_consistent(a, *f.device, live);
  }
  check_consistent(a, *f.device, live);
  CachingAllocatorStats stats = a.stats();
  MESSAGE("randomized: " << stats.allocations << " allocations, " << stats.cache_hits << " cache hits, "
                         << stats.segment_mallocs << " segment mallocs, " << ooms << " out of memory");
  CHECK(stats.cache_hits > stats.segment_mallocs);  // the cache does its job
  CHECK(pending_seen > 0);                          // the stream path was exercised
  CHECK(ooms > 0);                                  // so was the out-of-memory path
  for (auto& [ptr, bytes] : live) a.free(reinterpret_cast<void*>(ptr));
  a.empty_cache();
  CHECK(a.stats().allocated == 0);
  CHECK(a.stats().reserved == 0);
  CHECK(f.device->segments.empty());
  CHECK(f.device->events.empty());
}

TEST_CASE("threads allocating and freeing at once leave the allocator consistent") {
  Fixture f;
  CachingAllocator& a = *f.allocator;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&a, t] {
      std::mt19937 rng(t);
      std::vector<void*> mine;
      for (int i = 0; i < 2000; ++i) {
        if (mine.empty() || rng() % 2) {
          mine.push_back(a.allocate(512 + rng() % (3 * MiB), StreamId(t)));
        } else {
          a.free(mine.back());
          mine.pop_back();
        }
      }
      for (void* p : mine) a.free(p);
    });
  for (std::thread& thread : threads) thread.join();
  CHECK(a.stats().allocated == 0);
  CHECK(a.stats().allocations == a.stats().frees);
  check_consistent(a, *f.device, {});
}

TEST_CASE("the per-device allocator needs a device") {
  if (device_count() > 0) {
    CachingAllocator& allocator = device_allocator(0);
    CHECK(&allocator == &device_allocator(0));
    void* p = allocator.allocate(1 * MiB, 0, "test");
    CHECK(p != nullptr);
    allocator.free(p);
    CHECK(allocator.stats().allocated == 0);
    return;
  }
  MESSAGE("no GPU here: device_allocator(0) must refuse");
  CHECK_THROWS_AS(device_allocator(0), nabla::Error);
}
