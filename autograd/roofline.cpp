// Measures the roofline (autograd/roofline.hpp) with the op table's kernels.
#include "autograd/roofline.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>

#include "autograd/grad_mode.hpp"
#include "autograd/ops.hpp"
#include "autograd/trace.hpp"
#include "tensor/cuda/cuda_runtime.hpp"

namespace nabla {

namespace {

constexpr int64_t kMatmulSize = 1024;                 // 2 GFLOP per product
constexpr int64_t kStreamElements = 8 * 1024 * 1024;  // 32 MiB of f32 in, 32 MiB out: 64 MiB moved
constexpr int kRepeats = 3;

// Runs the op calls of a measurement without observers, gradients or autocast.
class QuietOps {
 public:
  QuietOps() : observer_(set_op_observer(nullptr)), autocast_(autocast_dtype()) { set_autocast_dtype(std::nullopt); }
  ~QuietOps() {
    set_autocast_dtype(autocast_);
    set_op_observer(observer_);
  }

 private:
  OpObserver* observer_;
  std::optional<DType> autocast_;
  NoGradGuard no_grad_;
};

void wait_for(const Device& d) {
  if (d.kind == DeviceKind::cuda) cuda::synchronize(d.index);
}

// The best time of kRepeats calls of f, after one call that warms caches, the
// allocator and (for oneDNN) the primitive cache.
template <class F>
double best_seconds(const Device& d, F&& f) {
  f();
  wait_for(d);
  double best = INFINITY;
  for (int i = 0; i < kRepeats; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    wait_for(d);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

Roofline measure(const Device& d) {
  QuietOps quiet;
  auto t0 = std::chrono::steady_clock::now();
  Roofline r;
  r.device = d;
  Tensor a = full({kMatmulSize, kMatmulSize}, 0.5, DType::f32, d),
         b = full({kMatmulSize, kMatmulSize}, 0.25, DType::f32, d);
  double gemm = best_seconds(d, [&] { matmul(a, b); });
  r.peak_flops = 2.0 * std::pow(static_cast<double>(kMatmulSize), 3) / gemm;
  // A unary op streams one operand in and one out (a copy with a sign flip), so only
  // one operand needs filling (filling is most of the measurement's time).
  Tensor x = full({kStreamElements}, 1.0, DType::f32, d);
  double stream = best_seconds(d, [&] { neg(x); });
  r.peak_bandwidth = 2.0 * static_cast<double>(kStreamElements) * 4.0 / stream;  // a read and a write
  r.measure_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

// Note [Copy bandwidth]
// A memory-bound op's target is the rate at which this machine copies memory, so that
// is measured directly, not through an op: a memcpy (the library's tuned one) on every
// thread of the team, each over its own slice, so both cores stream at once. Each
// buffer is larger than the last-level cache (twice what sysconf reports), so the
// copy runs at the memory's rate, not the cache's; it is capped at kMaxCopyBuffer (a
// VM may report its host's whole L3, here 480 MiB, of which it gets a share) and
// halved if the memory is not there. Bytes count a read and a write per byte copied,
// as the cost rules count an op's bytes. The pages are touched by the thread that
// copies them, before timing, so first-touch faults are not measured.
constexpr size_t kMinCopyBuffer = size_t{64} << 20, kMaxCopyBuffer = size_t{256} << 20;

size_t copy_buffer_bytes() {
  long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (llc <= 0) llc = sysconf(_SC_LEVEL2_CACHE_SIZE);
  size_t want = llc > 0 ? 2 * static_cast<size_t>(llc) : kMinCopyBuffer;
  return std::clamp(want, kMinCopyBuffer, kMaxCopyBuffer);
}

using Buffer = std::unique_ptr<char, decltype(&std::free)>;
Buffer page_aligned(size_t bytes) { return Buffer(static_cast<char*>(std::aligned_alloc(4096, bytes)), &std::free); }

// f(lo, hi) on every thread of the team, over page-aligned slices covering [0, bytes).
template <class F>
void on_each_slice(size_t bytes, F&& f) {
#pragma omp parallel
  {
    size_t nt = static_cast<size_t>(omp_get_num_threads()), t = static_cast<size_t>(omp_get_thread_num());
    size_t slice = (bytes / nt + 4095) / 4096 * 4096;
    size_t lo = std::min(bytes, t * slice), hi = std::min(bytes, lo + slice);
    if (lo < hi) f(lo, hi);
  }
}

double measure_copy_bandwidth() {
  for (size_t bytes = copy_buffer_bytes(); bytes >= kMinCopyBuffer / 4; bytes /= 2) {
    Buffer src = page_aligned(bytes), dst = page_aligned(bytes);
    if (!src || !dst) continue;
    on_each_slice(bytes, [&](size_t lo, size_t hi) {  // first touch by the thread that copies the slice
      std::memset(src.get() + lo, 1, hi - lo);
      std::memset(dst.get() + lo, 0, hi - lo);
    });
    double best = best_seconds(cpu_device(), [&] {
      on_each_slice(bytes, [&](size_t lo, size_t hi) { std::memcpy(dst.get() + lo, src.get() + lo, hi - lo); });
    });
    return 2.0 * static_cast<double>(bytes) / best;
  }
  return 0.0;  // no memory for even the smallest buffers: the BW% column shows "-"
}

}  // namespace

double machine_copy_bandwidth() {
  static const double measured = measure_copy_bandwidth();  // once per process, thread-safe
  return measured;
}

const Roofline& machine_roofline(const Device& device) {
  static std::mutex mutex;
  static std::map<std::pair<int, int>, Roofline> measured;  // by (kind, index)
  std::lock_guard<std::mutex> lock(mutex);
  auto key = std::make_pair(static_cast<int>(device.kind), device.index);
  auto it = measured.find(key);
  if (it == measured.end()) it = measured.emplace(key, measure(device)).first;
  return it->second;
}

RooflineEstimate roofline_estimate(const OpCost& cost, const Roofline& roof) {
  RooflineEstimate e;
  e.intensity = cost.bytes > 0 ? cost.flops / cost.bytes : 0.0;
  // An op that moves no bytes (a view) is neither: call it memory-bound only if it moves some.
  e.memory_bound = cost.bytes > 0 && e.intensity < roof.ridge();
  double compute = roof.peak_flops > 0 ? cost.flops / roof.peak_flops : 0.0;
  double memory = roof.peak_bandwidth > 0 ? cost.bytes / roof.peak_bandwidth : 0.0;
  e.seconds = std::max(compute, memory);
  return e;
}

std::string si_figure(double value, const std::string& unit) {
  static const char* const kPrefixes[] = {"", "K", "M", "G", "T", "P"};
  int p = 0;
  while (std::fabs(value) >= 1000.0 && p < 5) value /= 1000.0, ++p;
  char buf[48];
  if (p == 0 && value == std::floor(value))
    std::snprintf(buf, sizeof buf, "%.0f %s", value, unit.c_str());
  else
    std::snprintf(buf, sizeof buf, "%.3g %s%s", value, kPrefixes[p], unit.c_str());
  return buf;
}

std::string duration_figure(double seconds) {
  char buf[32];
  if (seconds >= 1.0)
    std::snprintf(buf, sizeof buf, "%.3g s", seconds);
  else if (seconds >= 1e-3)
    std::snprintf(buf, sizeof buf, "%.3g ms", seconds * 1e3);
  else if (seconds >= 1e-6)
    std::snprintf(buf, sizeof buf, "%.3g us", seconds * 1e6);
  else
    std::snprintf(buf, sizeof buf, "%.3g ns", seconds * 1e9);
  return buf;
}

}  // namespace nabla
