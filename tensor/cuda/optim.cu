// The CUDA kernel of the fused Adam step (tensor/optim.hpp): one thread per element
// in a grid-stride loop, each applying the per-element update the CPU kernel applies
// (adam_update, compiled for both), on the parameter's current stream.
#include "tensor/cuda/common.cuh"
#include "tensor/optim.hpp"

namespace nabla::cuda {

namespace {

template <class T>
__global__ void adam_kernel(T* p, const T* g, T* m, T* v, int64_t n, AdamConstants<T> c) {
  NABLA_GRID_STRIDE_LOOP(i, n) { adam_update(p, g, m, v, i, c); }
}

template <class T>
void launch_adam(const Tensor& p, const Tensor& g, const Tensor& m, const Tensor& v, const AdamHyper& hyper) {
  int64_t n = p.numel();
  adam_kernel<T><<<blocks_for(n), kThreads, 0, stream_for(p)>>>(device_data<T>(p), device_data<const T>(g),
                                                                 device_data<T>(m), device_data<T>(v), n,
                                                                 adam_constants<T>(hyper));
  NABLA_CUDA_LAUNCH_CHECK();
}

}  // namespace

void adam_step(const Tensor& p, const Tensor& g, const Tensor& exp_avg, const Tensor& exp_avg_sq,
               const AdamHyper& hyper) {
  if (p.numel() == 0) return;
  DeviceGuard guard(p.device().index);
  if (p.dtype() == DType::f32)
    launch_adam<float>(p, g, exp_avg, exp_avg_sq, hyper);
  else
    launch_adam<double>(p, g, exp_avg, exp_avg_sq, hyper);
}

}  // namespace nabla::cuda
