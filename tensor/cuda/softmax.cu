// CUDA kernels of softmax and log_softmax over one dim. The input is seen as a
// contiguous [outer, n, inner] block (reduce_layout; one dim never permutes, so
// the contiguous output has the same layout). Each slice is read three times: its max,
// the sum of exp(x - max), then the outputs; the max shift keeps exp from
// overflowing. Slices are arranged as in Note [CUDA reduction layout]: a contiguous
// slice (inner == 1) is walked by a warp, or by a whole block when long; strided
// slices put neighbouring slices on neighbouring threads, with threadIdx.y splitting
// the slice. 16-bit floats compute in f32.
#include <limits>

#include "tensor/cuda/kernels.hpp"
#include "tensor/cuda/reduce.cuh"

namespace nabla::cuda {

namespace {

// Slices of at least this many elements get a block each; shorter ones a warp.
constexpr int64_t kBlockPerSlice = 1024;

struct Slices {
  int64_t count;  // outer * inner
  int64_t n;      // the softmax dim's size
  int64_t inner;
};

template <class A>
struct MaxCombine {
  __device__ A operator()(A a, A b) const { return max_of(a, b); }
};
template <class A>
struct SumCombine {
  __device__ A operator()(A a, A b) const { return a + b; }
};

// The slice `slice` of this thread: its first element and the step between elements.
// Threads along `lane` (x for contiguous slices, y otherwise) share one slice.
struct SliceView {
  int64_t base, step;
  int lane, lanes;
  bool active;
};
__device__ __forceinline__ SliceView slice_of_thread(const Slices& s, bool contiguous) {
  SliceView v;
  int64_t slice = contiguous ? static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y
                             : static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  v.active = slice < s.count;
  v.base = (slice / s.inner) * s.n * s.inner + slice % s.inner;
  v.step = s.inner;
  v.lane = contiguous ? threadIdx.x : threadIdx.y;
  v.lanes = contiguous ? blockDim.x : blockDim.y;
  return v;
}

template <class A, class Combine>
__device__ __forceinline__ A combine_slice(A v, Combine c, bool contiguous, A* slots) {
  return contiguous ? reduce_across_x(v, c, slots) : reduce_across_y(v, c, slots);
}

template <class T>
__global__ void __launch_bounds__(kReduceThreads)
    softmax_kernel(const T* x, T* y, Slices s, bool contiguous, bool log) {
  using A = dcompute_t<T>;
  __shared__ A slots[kReduceThreads];
  SliceView v = slice_of_thread(s, contiguous);
  const int64_t n = v.active ? s.n : 0;  // inactive threads still join the block's combines
  A m = negative_infinity<A>();
  for (int64_t r = v.lane; r < n; r += v.lanes) m = max_of(m, load_as_compute(x + v.base + r * v.step));
  m = combine_slice(m, MaxCombine<A>{}, contiguous, slots);
  A total = A(0);
  for (int64_t r = v.lane; r < n; r += v.lanes) total += exp_of(load_as_compute(x + v.base + r * v.step) - m);
  total = combine_slice(total, SumCombine<A>{}, contiguous, slots);
  // A NaN anywhere makes total NaN and so every output of the slice, as on the CPU.
  const A shift = m + log_of(total), scale = A(1) / total;
  for (int64_t r = v.lane; r < n; r += v.lanes) {
    int64_t at = v.base + r * v.step;
    A xv = load_as_compute(x + at);
    y[at] = convert<T>(log ? xv - shift : exp_of(xv - m) * scale);
  }
}

template <bool Log>
void softmax_impl(const TensorList& in, const Attrs& attrs, TensorList& out) {
  const Tensor& y = out[0];
  if (y.numel() == 0) return;
  DeviceGuard guard(y.device().index);
  ReduceLayout l = reduce_layout(in[0], reduction_dims(in[0], {attrs.i("dim")}));
  Slices s{l.outer * l.inner, l.reduced, l.inner};
  bool contiguous = l.inner == 1;
  dim3 block;
  int64_t slices_per_block;
  if (contiguous) {
    int lanes = s.n >= kBlockPerSlice ? kReduceThreads : kWarpSize;
    slices_per_block = kReduceThreads / lanes;
    block = dim3(lanes, static_cast<unsigned>(slices_per_block));
  } else {
    int lanes = s.n >= 64 ? 8 : 1;  // split long strided slices over 8 threads
    slices_per_block = kReduceThreads / lanes;
    block = dim3(static_cast<unsigned>(slices_per_block), lanes);
  }
  int64_t blocks = (s.count + slices_per_block - 1) / slices_per_block;
  NABLA_CHECK(blocks <= std::numeric_limits<int32_t>::max(), "softmax: too many slices for one CUDA launch");
  visit_device_float(y.dtype(), Log ? "log_softmax" : "softmax", [&](auto tag) {
    using T = typename decltype(tag)::type;
    softmax_kernel<T><<<static_cast<unsigned>(blocks), block, 0, stream_for(y)>>>(
        static_cast<const T*>(l.data.raw_data()), device_data<T>(y), s, contiguous, Log);
  });
  NABLA_CUDA_LAUNCH_CHECK();
}

}  // namespace

void softmax(const TensorList& in, const Attrs& attrs, TensorList& out) { softmax_impl<false>(in, attrs, out); }
void log_softmax(const TensorList& in, const Attrs& attrs, TensorList& out) { softmax_impl<true>(in, attrs, out); }

}  // namespace nabla::cuda
