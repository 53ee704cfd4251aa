// bias_activation (epilogue.hpp): the bias add and the activation that follow a GEMM
// or a convolution when the library call did not apply them, in one pass over the
// output, computing in float for 16-bit outputs as the other kernels do.
#include <cmath>
#include <limits>

#include "tensor/cuda/common.cuh"
#include "tensor/cuda/epilogue.hpp"
#include "tensor/scalar_ops.hpp"

namespace nabla::cuda {

namespace {

using cpu::Activation;

// The op table's scalar functions (tensor/scalar_ops.hpp) in float or double.
template <class C>
__device__ __forceinline__ C activate(C v, Activation act) {
  switch (act) {
#define NABLA_ACTIVATE(name) \
  case Activation::name:     \
    return scalar::name(v);
    NABLA_EPILOGUE_ACTIVATIONS(NABLA_ACTIVATE)
#undef NABLA_ACTIVATE
    case Activation::none:
      break;
  }
  return v;
}

// Index is uint32_t when the output has fewer than 2^31 elements: the channel of
// every element takes a division, and a 64-bit one costs several times more
// instructions than a 32-bit one (as PyTorch's 32-bit indexing).
template <class T, class Index>
__global__ void bias_activation_kernel(T* y, const T* bias, int64_t bias_stride, Index channels, Index inner, Index n,
                                       Activation act) {
  const Index step = static_cast<Index>(blockDim.x) * gridDim.x;
  for (Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    dcompute_t<T> v = load_as_compute(y + i);
    if (bias) v += load_as_compute(bias + static_cast<int64_t>((i / inner) % channels) * bias_stride);
    y[i] = convert<T>(activate(v, act));
  }
}

template <class T, class Index>
void launch_bias_activation(T* y, const T* bias, int64_t bias_stride, int64_t channels, int64_t inner, int64_t n,
                            Activation act, cudaStream_t stream) {
  bias_activation_kernel<T, Index><<<blocks_for(n), kThreads, 0, stream>>>(
      y, bias, bias_stride, static_cast<Index>(channels), static_cast<Index>(inner), static_cast<Index>(n), act);
}

}  // namespace

void bias_activation(const Tensor& y, const Tensor& bias, int64_t inner, Activation act) {
  int64_t n = y.numel();
  if (n == 0 || (!bias.defined() && act == Activation::none)) return;
  NABLA_CHECK(!bias.defined() || bias.dtype() == y.dtype(), std::string("bias_activation: expected a bias of dtype ") +
                                                                dtype_name(y.dtype()) + ", got " +
                                                                dtype_name(bias.dtype()));
  DeviceGuard guard(y.device().index);
  cudaStream_t stream = stream_for(y);
  visit_device_float(y.dtype(), cpu::activation_name(act), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* b = bias.defined() ? device_data<const T>(bias) : nullptr;
    int64_t stride = bias.defined() ? bias.strides()[0] : 0, channels = bias.defined() ? bias.numel() : 1;
    if (n <= std::numeric_limits<int32_t>::max())
      launch_bias_activation<T, uint32_t>(device_data<T>(y), b, stride, channels, inner, n, act, stream);
    else
      launch_bias_activation<T, int64_t>(device_data<T>(y), b, stride, channels, inner, n, act, stream);
  });
  NABLA_CUDA_LAUNCH_CHECK();
}

}  // namespace nabla::cuda
