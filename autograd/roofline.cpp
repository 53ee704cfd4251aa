// Measures the roofline (autograd/roofline.hpp) with the op table's kernels.
#include "autograd/roofline.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
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

}  // namespace

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
