// The roofline of this machine (docs/cost.md): peak FLOP/s and memory bandwidth,
// measured once per device and process on first use, through the op table's own
// kernels (an f32 matmul, an elementwise neg), so the figures are what nabla's ops
// reach here, not a datasheet's. With them, an op's cost (OpDef::cost) says whether
// it is compute- or memory-bound and how long it should take at best.
//
// Measuring runs ops: it suspends the op observer (capture, profiler), grad mode and
// autocast for its duration, so it can be called from anywhere except a kernel.
#pragma once
#include <string>

#include "autograd/op_table.hpp"
#include "tensor/device.hpp"

namespace nabla {

struct Roofline {
  Device device;
  double peak_flops = 0;       // FLOP/s: best of a few 1024x1024 f32 matmuls (2*n^3 each)
  double peak_bandwidth = 0;   // bytes/s: best of a few negs of a 32 MiB f32 tensor (64 MiB read + written)
  double measure_seconds = 0;  // what measuring took
  // FLOPs per byte above which an op is compute-bound.
  double ridge() const { return peak_bandwidth > 0 ? peak_flops / peak_bandwidth : 0.0; }
};

// The roofline of `device` (the CPU, or a CUDA device when one is there), measured
// on the first call for that device and cached; errors if the device is unusable.
const Roofline& machine_roofline(const Device& device = cpu_device());

// This machine's copy bandwidth in bytes/s (read + written), measured once per
// process on first use (Note [Copy bandwidth] in roofline.cpp): a memcpy on every
// thread over buffers larger than the last-level cache, the best of a few. What the
// profiler's BW% column divides by: a memory-bound op at 100% moves its bytes as
// fast as a copy of them from memory.
double machine_copy_bandwidth();

// Where an op sits on a roofline.
struct RooflineEstimate {
  double intensity = 0;       // FLOPs per byte (0 when the op moves no bytes)
  bool memory_bound = false;  // intensity below the ridge point
  double seconds = 0;         // max(flops / peak_flops, bytes / peak_bandwidth)
};
RooflineEstimate roofline_estimate(const OpCost& cost, const Roofline& roof);

// "12.3 GFLOP/s" style figures, for tables: SI prefixes, three significant digits.
std::string si_figure(double value, const std::string& unit);
// "1.23 ms", "45.6 us", "2.00 s".
std::string duration_figure(double seconds);

}  // namespace nabla
