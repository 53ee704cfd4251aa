#include "tensor/memory_stats.hpp"

#include <algorithm>
#include <vector>

#include "tensor/allocator.hpp"
#include "tensor/cuda/caching_allocator.hpp"
#include "tensor/cuda/cuda_runtime.hpp"
#include "tensor/origin.hpp"

namespace nabla {

namespace {

using cuda::format_bytes;

struct Live {
  size_t bytes;
  OriginId origin;
};

// The header lines of the CPU allocator, and its live blocks.
std::string cpu_lines(std::vector<Live>& live) {
  CpuAllocator& alloc = CpuAllocator::instance();
  AllocatorStats s = alloc.stats();
  for (const LiveBlock& b : alloc.live_blocks()) live.push_back({b.bytes, b.origin});
  std::string out = "cpu\n";
  out += "  allocated " + format_bytes(s.allocated) + " (peak " + format_bytes(s.peak_allocated) + "), reserved " +
         format_bytes(s.reserved) + ", in " + std::to_string(live.size()) + " live blocks\n";
  out += "  cached " + format_bytes(s.reserved - s.allocated) + "; " + std::to_string(s.allocations) +
         " allocations, " + std::to_string(s.cache_hits) + " served from the cache\n";
  return out;
}

// The header lines of a GPU's caching allocator, and its live blocks.
std::string cuda_lines(int device, std::vector<Live>& live) {
  cuda::CachingAllocator& alloc = cuda::device_allocator(device);
  cuda::CachingAllocatorStats s = alloc.stats();
  for (const cuda::SegmentInfo& seg : alloc.snapshot())
    for (const cuda::BlockInfo& blk : seg.blocks)
      if (blk.state == cuda::BlockInfo::State::allocated) live.push_back({blk.size, intern_origin(blk.tag)});
  std::string out = "cuda:" + std::to_string(device) + " (" + cuda::device_name(device) + ")\n";
  out += "  allocated " + format_bytes(s.allocated) + " (peak " + format_bytes(s.peak_allocated) + "), reserved " +
         format_bytes(s.reserved) + " (peak " + format_bytes(s.peak_reserved) + "), in " + std::to_string(s.segments) +
         " segments\n";
  out += "  unused inside segments " + format_bytes(s.unallocated()) + ", of which in split blocks " +
         format_bytes(s.inactive_split) + "; " + std::to_string(s.allocations) + " allocations, " +
         std::to_string(s.cache_hits) + " served from the cache\n";
  return out;
}

// "file:line:col  expression", or "(no line)".
std::string describe_origin(OriginId id) {
  if (id == 0) return "(no line)";
  std::string expression = origin_expression(id);
  return expression.empty() ? origin_text(id) : origin_text(id) + "  " + expression;
}

// The largest `top` live allocations, one a line, then the rest summed.
std::string largest(std::vector<Live>& live, size_t top) {
  if (live.empty()) return "  no live tensors\n";
  if (top == 0) {
    size_t total = 0;
    for (const Live& l : live) total += l.bytes;
    return "  " + std::to_string(live.size()) + " live tensors holding " + format_bytes(total) + "\n";
  }
  std::stable_sort(live.begin(), live.end(), [](const Live& x, const Live& y) { return x.bytes > y.bytes; });
  std::string out = "  largest live tensors:\n";
  size_t shown = std::min(top, live.size());
  for (size_t k = 0; k < shown; ++k) out += "    " + format_bytes(live[k].bytes) + "  " + describe_origin(live[k].origin) + "\n";
  if (shown == live.size()) return out;
  size_t rest = 0;
  for (size_t k = shown; k < live.size(); ++k) rest += live[k].bytes;
  return out + "    and " + std::to_string(live.size() - shown) + " more holding " + format_bytes(rest) + "\n";
}

}  // namespace

MemoryFigures memory_figures(const Device& device) {
  if (device.kind == DeviceKind::cpu) {
    AllocatorStats s = CpuAllocator::instance().stats();
    return {s.allocated, s.peak_allocated, s.reserved, s.allocations};
  }
  cuda::CachingAllocatorStats s = cuda::device_allocator(device.index).stats();
  return {s.allocated, s.peak_allocated, s.reserved, s.allocations};
}

void reset_peak_memory_stats(const Device& device) {
  if (device.kind == DeviceKind::cpu) return CpuAllocator::instance().reset_peak();
  cuda::device_allocator(device.index).reset_peak();
}

std::string memory_summary(const Device& device, size_t top) {
  std::vector<Live> live;
  std::string out = device.kind == DeviceKind::cpu ? cpu_lines(live) : cuda_lines(device.index, live);
  return out + largest(live, top);
}

}  // namespace nabla
