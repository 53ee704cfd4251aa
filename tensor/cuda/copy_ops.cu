// CUDA kernels of the copying rows (contiguous, to_dtype, slice_backward) and of
// dropout. The copying rows are the CPU kernels over the device's strided copy and
// fill (tensor/cuda/transfer.cu), which handle every layout and dtype.
//
// Note [Dropout on CUDA]
// The same seed must give the same mask on both devices, so that a model trained
// with manual_seed behaves the same on the CPU and on a GPU (and so that tests can
// compare them). The CPU kernel (tensor/cpu/norm.cpp) takes one draw from the
// global generator per call and gets element i's uniform as a SplitMix64 hash of
// (seed, i). That hash is pure integer arithmetic and an exact conversion to double,
// so the device computes it bit for bit: the host takes the same single draw, in
// the same order (random_bits, only when dropping with p < 1), and each thread hashes
// its own index. Nothing crosses the bus and the host loops over nothing. Both
// kernels call the one uniform_at of tensor/random.hpp (host and device), so they
// cannot drift apart (tests/tensor/cuda_elementwise.cpp compares the masks).
#include "tensor/cpu/copy.hpp"
#include "tensor/cuda/common.cuh"
#include "tensor/cuda/kernels.hpp"
#include "tensor/layout.hpp"
#include "tensor/random.hpp"

namespace nabla::cuda {

#define NABLA_KERNEL(name) void name(const TensorList& in, const Attrs& attrs, TensorList& out)

NABLA_KERNEL(contiguous) { cuda::copy_into(out[0], in[0]); }
NABLA_KERNEL(to_dtype) { cuda::copy_into(out[0], in[0]); }

// The adjoint of slice: zeros everywhere but the sliced positions, which get grad.
NABLA_KERNEL(slice_backward) {
  cuda::fill(out[0], 0.0);
  int64_t dim = wrap_dim(attrs.i("dim"), out[0].dim(), "slice_backward");
  cuda::copy_into(sliced_view(out[0], attrs, in[0].size(dim)), in[0]);
}

namespace {

struct DropoutParams {
  bool active;  // training and p > 0
  double p, scale;
  uint64_t seed;
};

// y = x * mask * scale and the 0/1 mask, with the CPU kernel's expressions (the
// product in double, rounded once to T).
template <class T>
__global__ void dropout_kernel(const T* x, T* y, T* mask, int64_t n, DropoutParams d) {
  NABLA_GRID_STRIDE_LOOP(i, n) {
    bool keep = !d.active || (d.p < 1.0 && uniform_at(d.seed, static_cast<uint64_t>(i)) >= d.p);
    mask[i] = static_cast<T>(keep ? 1 : 0);
    y[i] = keep ? static_cast<T>(d.active ? x[i] * d.scale : x[i]) : static_cast<T>(0);
  }
}

}  // namespace

// Outputs y and the 0/1 mask, both of x's dtype (f32 or f64: registered without
// half_native, so 16-bit inputs compute through f32 as on the CPU).
NABLA_KERNEL(dropout) {
  Tensor x = contiguous_raw(in[0]);
  DropoutParams d;
  d.p = attrs.f("p");
  d.active = attrs.b("training") && d.p > 0.0;
  // p == 1 drops everything: the scale is never used, so no division by zero.
  d.scale = d.p < 1.0 ? 1.0 / (1.0 - d.p) : 0.0;
  d.seed = d.active && d.p < 1.0 ? random_bits() : 0;  // before any early return, as on the CPU
  int64_t n = x.numel();
  if (n == 0) return;
  DeviceGuard guard(out[0].device().index);
  cudaStream_t stream = stream_for(out[0]);
  visit_float(x.dtype(), "dropout", [&](auto tag) {
    using T = typename decltype(tag)::type;
    dropout_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(device_data<const T>(x), device_data<T>(out[0]),
                                                              device_data<T>(out[1]), n, d);
  });
  NABLA_CUDA_LAUNCH_CHECK();
}

#undef NABLA_KERNEL

}  // namespace nabla::cuda
