// The CUDA kernels of the fused Adam and SGD steps (tensor/optim.hpp): one thread per element
// in a grid-stride loop, each applying the per-element update the CPU kernel applies
// (adam_update, compiled for both), on the parameter's current stream. The
// multi-tensor step passes up to kMaxTensorsPerLaunch parameters by value in one
// launch (blockIdx.y picks the parameter), so an optimizer step over a model is one
// launch per that many parameters instead of one per parameter.
#include <algorithm>

#include "tensor/cuda/common.cuh"
#include "tensor/cuda/kernels.hpp"
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

template <class T>
const T* optional_data(const Tensor& t) {
  return t.defined() ? device_data<const T>(t) : nullptr;
}

// ---- a group's rows in one launch (OptimizerRows: the rows adam_step_ and sgd_step_,
// one parameter each, and the graph's optimizer_steps node, a group) -------------------
// The step counts, hyperparameters and found_inf live on the device and are read there,
// so that a step recorded into a CUDA graph replays with the current count and the
// values a scheduler set, and skips itself on Inf/NaN without the host reading
// found_inf. Up to kMaxTensorsPerLaunch parameters per launch (blockIdx.y picks one),
// each block's first thread working out its parameter's constants from its step count
// and the group's hyper; the counts advance in one small kernel of their own on the
// same stream.

struct StepCounts {
  double* step[kMaxTensorsPerLaunch];
  int count;
};

__global__ void advance_steps(StepCounts s, const float* found_inf) {
  if (found_inf != nullptr && *found_inf != 0) return;
  if (static_cast<int>(threadIdx.x) < s.count) *s.step[threadIdx.x] += 1;
}

template <class T>
struct RowsLaunch {
  T* p[kMaxTensorsPerLaunch];
  const T* g[kMaxTensorsPerLaunch];
  T* state[kMaxTensorsPerLaunch];
  T* state2[kMaxTensorsPerLaunch];
  const double* step[kMaxTensorsPerLaunch];
  int64_t n[kMaxTensorsPerLaunch];
  const double* hyper;
  const float* found_inf;
  bool flag;
};

template <class T>
__global__ void adam_rows_kernel(RowsLaunch<T> a) {
  if (a.found_inf != nullptr && *a.found_inf != 0) return;
  const int k = blockIdx.y;
  __shared__ AdamConstants<T> c;
  if (threadIdx.x == 0) c = adam_constants<T>(adam_hyper_from(a.hyper, *a.step[k], a.flag));
  __syncthreads();
  NABLA_GRID_STRIDE_LOOP(i, a.n[k]) { adam_update(a.p[k], a.g[k], a.state[k], a.state2[k], i, c); }
}

template <class T>
__global__ void sgd_rows_kernel(RowsLaunch<T> a) {
  if (a.found_inf != nullptr && *a.found_inf != 0) return;
  const int k = blockIdx.y;
  __shared__ SgdConstants<T> c;
  __shared__ bool fresh;
  if (threadIdx.x == 0) {
    SgdHyper h = sgd_hyper_from(a.hyper, a.flag);
    if (a.state[k] == nullptr) h.momentum = 0;
    c = sgd_constants<T>(h);
    fresh = c.with_momentum && *a.step[k] == 0;
  }
  __syncthreads();
  NABLA_GRID_STRIDE_LOOP(i, a.n[k]) { sgd_update(a.p[k], a.g[k], a.state[k], i, fresh, c); }
}

// Rows [first, last): the launch's pointers, and its step counts.
template <class T>
RowsLaunch<T> rows_launch(const OptimizerRows& rows, size_t first, size_t last, StepCounts* counts, int64_t* most) {
  RowsLaunch<T> a{};
  *counts = StepCounts{};
  *most = 0;
  for (size_t k = first; k < last; ++k) {
    size_t j = k - first;
    a.p[j] = device_data<T>(rows.p[k]);
    a.g[j] = device_data<const T>(rows.g[k]);
    a.state[j] = rows.state[k].defined() ? device_data<T>(rows.state[k]) : nullptr;
    a.state2[j] = k < rows.state2.size() ? device_data<T>(rows.state2[k]) : nullptr;
    a.step[j] = rows.step[k].defined() ? device_data<const double>(rows.step[k]) : nullptr;
    if (rows.step[k].defined()) counts->step[counts->count++] = device_data<double>(rows.step[k]);
    a.n[j] = rows.p[k].numel();
    *most = std::max(*most, a.n[j]);
  }
  a.hyper = device_data<const double>(rows.hyper);
  a.found_inf = optional_data<float>(rows.found_inf);
  a.flag = rows.flag;
  return a;
}

template <class T, bool kAdam>
void launch_rows(const OptimizerRows& rows) {
  cudaStream_t stream = stream_for(rows.p[0]);
  const float* found = optional_data<float>(rows.found_inf);
  for (size_t first = 0; first < rows.p.size(); first += kMaxTensorsPerLaunch) {
    size_t last = std::min(rows.p.size(), first + kMaxTensorsPerLaunch);
    StepCounts counts;
    int64_t most = 0;
    RowsLaunch<T> a = rows_launch<T>(rows, first, last, &counts, &most);
    dim3 grid(blocks_for(std::max<int64_t>(most, 1)), static_cast<unsigned>(last - first));
    if (kAdam) {  // Adam's update reads the advanced count
      advance_steps<<<1, kMaxTensorsPerLaunch, 0, stream>>>(counts, found);
      adam_rows_kernel<T><<<grid, kThreads, 0, stream>>>(a);
    } else {  // SGD's reads whether it was 0
      sgd_rows_kernel<T><<<grid, kThreads, 0, stream>>>(a);
      if (counts.count > 0) advance_steps<<<1, kMaxTensorsPerLaunch, 0, stream>>>(counts, found);
    }
    NABLA_CUDA_LAUNCH_CHECK();
  }
}

}  // namespace

void adam_rows(const OptimizerRows& rows) {
  DeviceGuard guard(rows.p[0].device().index);
  if (rows.p[0].dtype() == DType::f32)
    launch_rows<float, true>(rows);
  else
    launch_rows<double, true>(rows);
}

void sgd_rows(const OptimizerRows& rows) {
  DeviceGuard guard(rows.p[0].device().index);
  if (rows.p[0].dtype() == DType::f32)
    launch_rows<float, false>(rows);
  else
    launch_rows<double, false>(rows);
}

// The rows adam_step_ and sgd_step_: a group of one (tensor/optim.hpp's adam_step_row),
// run by the launches above.
void adam_step_(const TensorList& in, const Attrs& a, TensorList&) { adam_step_row(in, a.b("decoupled")); }
void sgd_step_(const TensorList& in, const Attrs& a, TensorList&) { sgd_step_row(in, a.b("nesterov")); }

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
