// The CUDA kernels of the fused Adam and SGD steps (tensor/optim.hpp): one thread per element
// in a grid-stride loop, each applying the per-element update the CPU kernel applies
// (adam_update, compiled for both), on the parameter's current stream. The
// multi-tensor step passes up to kMaxTensorsPerLaunch parameters by value in one
// launch (blockIdx.y picks the parameter), so an optimizer step over a model is one
// launch per that many parameters instead of one per parameter.
#include <algorithm>

#include "tensor/cuda/common.cuh"
#include "tensor/optim.hpp"

namespace nabla::cuda {

namespace {

constexpr int kMaxTensorsPerLaunch = 16;  // keeps the kernel's arguments well under 4 KiB

// The pointers, sizes and constants of one launch's parameters.
template <class T>
struct AdamLaunch {
  T* p[kMaxTensorsPerLaunch];
  const T* g[kMaxTensorsPerLaunch];
  T* m[kMaxTensorsPerLaunch];
  T* v[kMaxTensorsPerLaunch];
  int64_t n[kMaxTensorsPerLaunch];
  AdamConstants<T> c[kMaxTensorsPerLaunch];
};

template <class T>
__global__ void adam_multi_kernel(AdamLaunch<T> a) {
  const int k = blockIdx.y;
  NABLA_GRID_STRIDE_LOOP(i, a.n[k]) { adam_update(a.p[k], a.g[k], a.m[k], a.v[k], i, a.c[k]); }
}

// Parameters [first, last) of args in one launch.
template <class T>
void launch_adam_multi(const AdamMultiArgs& args, const AdamHyper& hyper, size_t first, size_t last) {
  AdamLaunch<T> a{};
  int64_t most = 0;
  for (size_t k = first; k < last; ++k) {
    size_t j = k - first;
    a.p[j] = device_data<T>(args.p[k]);
    a.g[j] = device_data<const T>(args.g[k]);
    a.m[j] = device_data<T>(args.exp_avg[k]);
    a.v[j] = device_data<T>(args.exp_avg_sq[k]);
    a.n[j] = args.p[k].numel();
    AdamHyper h = hyper;
    h.step = args.steps[k];
    a.c[j] = adam_constants<T>(h);
    most = std::max(most, a.n[j]);
  }
  dim3 grid(blocks_for(most), static_cast<unsigned>(last - first));
  adam_multi_kernel<T><<<grid, kThreads, 0, stream_for(args.p[first])>>>(a);
  NABLA_CUDA_LAUNCH_CHECK();
}

template <class T>
void launch_adam_multi_all(const AdamMultiArgs& args, const AdamHyper& hyper) {
  for (size_t first = 0; first < args.p.size(); first += kMaxTensorsPerLaunch)
    launch_adam_multi<T>(args, hyper, first, std::min(args.p.size(), first + kMaxTensorsPerLaunch));
}

// SGD: the same launch shape, one set of constants for every parameter.
template <class T>
struct SgdLaunch {
  T* p[kMaxTensorsPerLaunch];
  const T* g[kMaxTensorsPerLaunch];
  T* buf[kMaxTensorsPerLaunch];
  int64_t n[kMaxTensorsPerLaunch];
  bool fresh[kMaxTensorsPerLaunch];
  SgdConstants<T> c;
};

template <class T>
__global__ void sgd_multi_kernel(SgdLaunch<T> a) {
  const int k = blockIdx.y;
  NABLA_GRID_STRIDE_LOOP(i, a.n[k]) { sgd_update(a.p[k], a.g[k], a.buf[k], i, a.fresh[k], a.c); }
}

template <class T>
void launch_sgd_multi(const SgdMultiArgs& args, const SgdHyper& hyper, size_t first, size_t last) {
  SgdLaunch<T> a{};
  a.c = sgd_constants<T>(hyper);
  int64_t most = 0;
  for (size_t k = first; k < last; ++k) {
    size_t j = k - first;
    a.p[j] = device_data<T>(args.p[k]);
    a.g[j] = device_data<const T>(args.g[k]);
    a.buf[j] = a.c.with_momentum ? device_data<T>(args.momentum_buffer[k]) : nullptr;
    a.fresh[j] = a.c.with_momentum && args.fresh[k];
    a.n[j] = args.p[k].numel();
    most = std::max(most, a.n[j]);
  }
  dim3 grid(blocks_for(most), static_cast<unsigned>(last - first));
  sgd_multi_kernel<T><<<grid, kThreads, 0, stream_for(args.p[first])>>>(a);
  NABLA_CUDA_LAUNCH_CHECK();
}

template <class T>
void launch_sgd_multi_all(const SgdMultiArgs& args, const SgdHyper& hyper) {
  for (size_t first = 0; first < args.p.size(); first += kMaxTensorsPerLaunch)
    launch_sgd_multi<T>(args, hyper, first, std::min(args.p.size(), first + kMaxTensorsPerLaunch));
}

}  // namespace

void sgd_step_multi(const SgdMultiArgs& args, const SgdHyper& hyper) {
  if (args.p.empty()) return;
  DeviceGuard guard(args.p[0].device().index);
  if (args.p[0].dtype() == DType::f32)
    launch_sgd_multi_all<float>(args, hyper);
  else
    launch_sgd_multi_all<double>(args, hyper);
}

void adam_step_multi(const AdamMultiArgs& args, const AdamHyper& hyper) {
  if (args.p.empty()) return;
  DeviceGuard guard(args.p[0].device().index);
  if (args.p[0].dtype() == DType::f32)
    launch_adam_multi_all<float>(args, hyper);
  else
    launch_adam_multi_all<double>(args, hyper);
}

// One parameter: the multi-tensor kernel over a list of one.
void adam_step(const Tensor& p, const Tensor& g, const Tensor& exp_avg, const Tensor& exp_avg_sq,
               const AdamHyper& hyper) {
  if (p.numel() == 0) return;
  adam_step_multi({{p}, {g}, {exp_avg}, {exp_avg_sq}, {hyper.step}}, hyper);
}

}  // namespace nabla::cuda
