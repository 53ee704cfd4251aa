// Reductions on the device: warp and block combining helpers, and the one generic
// reduction kernel that every reducing op (sum, max, var, logsumexp, the class losses)
// instantiates with its own "reduce op". Only .cu files include this.
//
// Note [CUDA reduction layout]
// A reduction sees its input as a contiguous [outer, reduced, inner] block (the
// layout of tensor/layout.hpp, as on the CPU: a strided input, or one reduced over dims that are
// not a consecutive run, is first copied once with the reduced dims moved last).
// Output i = o * inner + j reduces x[o, :, j]. Two thread arrangements cover it:
// - rows (inner == 1): each output's run is contiguous, so the threads along x of a
//   block walk one row together (coalesced) and combine with warp shuffles, then
//   across the row's warps through shared memory; threads along y take other rows.
// - columns (inner > 1): neighbouring outputs are neighbouring addresses, so the
//   threads along x take neighbouring outputs (coalesced) and the threads along y
//   split the reduced extent, combined through shared memory.
// When the outputs alone do not fill the GPU (a full reduction, a few long rows),
// grid.y splits the reduced extent into chunks: each block writes a partial state,
// and a second launch of the same kernel combines the partials of each output and
// stores it. Every combination happens in a fixed order, so results do not depend on
// timing (no atomics).
//
// A reduce op is a small struct passed by value to the kernel:
//   using State = ...;                            // trivially copyable, size % 4 == 0
//   State identity() const;                       // the state of no elements
//   State load(int64_t offset, int64_t r) const;  // element at `offset`, position r
//   State combine(State a, State b) const;        // commutative
//   void store(int64_t i, State s) const;         // writes output i
#pragma once
#include <cstring>
#include <type_traits>

#include "tensor/cuda/common.cuh"
#include "tensor/layout.hpp"

namespace nabla::cuda {

constexpr unsigned kFullWarpMask = 0xffffffffu;

// ---------------------------------------------------------------------------
// Device math named apart from the op kernels of kernels.hpp (exp, log, max, ...):
// inside namespace nabla::cuda an unqualified exp(x) would find the kernel.

__device__ __forceinline__ float exp_of(float v) { return ::expf(v); }
__device__ __forceinline__ double exp_of(double v) { return ::exp(v); }
__device__ __forceinline__ float log_of(float v) { return ::logf(v); }
__device__ __forceinline__ double log_of(double v) { return ::log(v); }
__device__ __forceinline__ float log1p_of(float v) { return ::log1pf(v); }
__device__ __forceinline__ double log1p_of(double v) { return ::log1p(v); }

// The larger of a and b, ignoring a NaN (the other one wins).
__device__ __forceinline__ float max_of(float a, float b) { return ::fmaxf(a, b); }
__device__ __forceinline__ double max_of(double a, double b) { return ::fmax(a, b); }

template <class T>
__device__ __forceinline__ T negative_infinity() {
  return -static_cast<T>(INFINITY);
}

// ---------------------------------------------------------------------------
// Device-side checks. A value check on the device cannot throw, and reading a flag
// back would synchronise every call; so, as PyTorch's device asserts do, a failed
// check prints what failed and stops the kernel (__trap). The error ("unspecified
// launch failure") surfaces at the next synchronising call, and the context cannot
// run more work after it, which is why the rows' shape rules check all they can on
// the host first. (__assert_fail would say "device-side assert triggered", but glibc
// declares it only without NDEBUG, so the host pass of nvcc cannot see it.)

// Prints which value of which op is out of range, then traps.
__device__ __noinline__ inline void fail_index_check(const char* op, int64_t value, int64_t size) {
  printf("nabla (CUDA): %s: index %lld is out of bounds for size %lld\n", op, static_cast<long long>(value),
         static_cast<long long>(size));
  __trap();
}
__device__ __forceinline__ void check_index(const char* op, int64_t value, int64_t size) {
  if (value < 0 || value >= size) fail_index_check(op, value, size);
}

// ---------------------------------------------------------------------------
// Warp and block combining. All threads of the block must call these (no early
// returns before them): they shuffle across full warps and synchronise the block.

// `v` from lane (lane ^ mask), for any trivially copyable state (moved as 32-bit words).
template <class T>
__device__ __forceinline__ T shuffle_xor(const T& v, int mask) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, int64_t> ||
                std::is_same_v<T, int>) {
    return __shfl_xor_sync(kFullWarpMask, v, mask);
  } else if constexpr (std::is_integral_v<T> && sizeof(T) < 4) {
    // i8, u8 and bool travel widened to a 32-bit word.
    return static_cast<T>(__shfl_xor_sync(kFullWarpMask, static_cast<int>(v), mask));
  } else {
    static_assert(sizeof(T) % 4 == 0, "shuffle_xor: a state must be a whole number of 32-bit words");
    constexpr int kWords = sizeof(T) / 4;
    unsigned words[kWords];
    memcpy(words, &v, sizeof(T));
#pragma unroll
    for (int k = 0; k < kWords; ++k) words[k] = __shfl_xor_sync(kFullWarpMask, words[k], mask);
    T out;
    memcpy(&out, words, sizeof(T));
    return out;
  }
}

// Every lane gets the combination of all 32 lanes' values (butterfly: with a
// commutative combine every lane computes the same bits).
template <class T, class Combine>
__device__ __forceinline__ T warp_allreduce(T v, Combine combine) {
#pragma unroll
  for (int mask = kWarpSize / 2; mask > 0; mask >>= 1) v = combine(v, shuffle_xor(v, mask));
  return v;
}

// Combines `v` over the threads of a block row (same threadIdx.y); every thread of the
// row gets the result. blockDim.x must be a multiple of 32; `slots` is shared memory
// for one value per warp of the block (at most 32).
template <class T, class Combine>
__device__ T reduce_across_x(T v, Combine combine, T* slots) {
  v = warp_allreduce(v, combine);
  const int warps_per_row = blockDim.x / kWarpSize;
  if (warps_per_row == 1) return v;  // the same for the whole block: no divergent barrier
  const int first = threadIdx.y * warps_per_row;
  if (threadIdx.x % kWarpSize == 0) slots[first + threadIdx.x / kWarpSize] = v;
  __syncthreads();
  T total = slots[first];
  for (int k = 1; k < warps_per_row; ++k) total = combine(total, slots[first + k]);
  __syncthreads();  // the slots may be reused by the next call
  return total;
}

// Combines `v` over the threads of a block column (same threadIdx.x); every thread of
// the column gets the result. `slots` is shared memory for one value per thread.
template <class T, class Combine>
__device__ T reduce_across_y(T v, Combine combine, T* slots) {
  if (blockDim.y == 1) return v;
  slots[threadIdx.y * blockDim.x + threadIdx.x] = v;
  __syncthreads();
  T total = slots[threadIdx.x];
  for (unsigned k = 1; k < blockDim.y; ++k) total = combine(total, slots[k * blockDim.x + threadIdx.x]);
  __syncthreads();
  return total;
}

// ---------------------------------------------------------------------------
// The generic reduction (see Note [CUDA reduction layout]).

// The input as a contiguous [outer, reduced, inner] block on its device: ReduceLayout
// and reduce_layout of tensor/layout.hpp, shared with the CPU kernels.

constexpr int kReduceThreads = 256;  // threads per block of every reduction launch

struct ReduceArgs {
  int64_t outputs = 0;  // outer * inner
  int64_t reduced = 0;  // the extent each output combines (the partials' count in a second pass)
  int64_t inner = 1;
  int64_t chunk = 0;   // positions of the reduced extent per grid.y block
  int64_t splits = 1;  // grid.y; above 1 the blocks write partial states
  bool rows = true;
};

// One output's share of the reduced positions [r0, r1) for this block and thread,
// folded into a state; then combined across the block and stored (or written as a
// partial). FromPartials: the input is the partial states [outputs, reduced].
template <class Op, bool FromPartials>
__global__ void __launch_bounds__(kReduceThreads)
    reduce_kernel(Op op, ReduceArgs a, const typename Op::State* partials_in, typename Op::State* partials_out) {
  using State = typename Op::State;
  __shared__ State slots[kReduceThreads];
  const int64_t out = a.rows ? static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y
                             : static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int lane = a.rows ? threadIdx.x : threadIdx.y;
  const int lanes = a.rows ? blockDim.x : blockDim.y;
  const int64_t r0 = static_cast<int64_t>(blockIdx.y) * a.chunk;
  const int64_t r1 = r0 + a.chunk < a.reduced ? r0 + a.chunk : a.reduced;
  State s = op.identity();
  if (out < a.outputs) {
    if constexpr (FromPartials) {
      for (int64_t r = r0 + lane; r < r1; r += lanes) s = op.combine(s, partials_in[out * a.reduced + r]);
    } else {
      const int64_t base = (out / a.inner) * a.reduced * a.inner + out % a.inner;
      for (int64_t r = r0 + lane; r < r1; r += lanes) s = op.combine(s, op.load(base + r * a.inner, r));
    }
  }
  auto combine = [&](const State& x, const State& y) { return op.combine(x, y); };
  s = a.rows ? reduce_across_x(s, combine, slots) : reduce_across_y(s, combine, slots);
  if (lane != 0 || out >= a.outputs) return;
  if (a.splits > 1)
    partials_out[out * a.splits + blockIdx.y] = s;
  else
    op.store(out, s);
}

// The number of multiprocessors of `device` (cached: the query costs a driver call).
int multiprocessor_count(int device);

// Block and grid shapes for `outputs` reductions of `reduced` positions each; may
// split the reduced extent over grid.y (allow_split) when the outputs are too few.
struct ReducePlan {
  ReduceArgs args;
  dim3 block, grid;
};
ReducePlan plan_reduce(int64_t outputs, int64_t reduced, int64_t inner, int device, bool allow_split);

// Runs `op` over the [outputs / inner, reduced, inner] layout on `device`'s current
// stream: one launch, or two when the reduced extent is split.
template <class Op>
void launch_reduce(const Op& op, int64_t outputs, int64_t reduced, int64_t inner, const Device& device) {
  using State = typename Op::State;
  if (outputs == 0) return;
  cudaStream_t stream = stream_of(device.index);
  ReducePlan first = plan_reduce(outputs, reduced, inner, device.index, true);
  if (first.args.splits == 1) {
    reduce_kernel<Op, false><<<first.grid, first.block, 0, stream>>>(op, first.args, nullptr, nullptr);
    NABLA_CUDA_LAUNCH_CHECK();
    return;
  }
  // Partial states, [outputs, splits], from the caching allocator (stream-ordered).
  int64_t count = outputs * first.args.splits;
  Tensor partials = empty(Shape{count * static_cast<int64_t>(sizeof(State))}, DType::b8, device);
  auto* states = static_cast<State*>(partials.raw_data());
  reduce_kernel<Op, false><<<first.grid, first.block, 0, stream>>>(op, first.args, nullptr, states);
  NABLA_CUDA_LAUNCH_CHECK();
  ReducePlan second = plan_reduce(outputs, first.args.splits, 1, device.index, false);
  reduce_kernel<Op, true><<<second.grid, second.block, 0, stream>>>(op, second.args, states, nullptr);
  NABLA_CUDA_LAUNCH_CHECK();
}

// ---------------------------------------------------------------------------
// Log-sum-exp as a mergeable state: total = sum * exp(max), with max the largest
// non-NaN value seen (-inf for none). Rescaling skips equal maxima, so that infinite
// maxima never meet as inf - inf: all -inf gives -inf, any +inf gives +inf, a NaN
// element makes sum NaN, and no elements give log(0) = -inf (the CPU's results).

template <class A>
struct LogSumExpState {
  A max;
  A sum;
};

template <class A>
__device__ __forceinline__ LogSumExpState<A> lse_identity() {
  return {negative_infinity<A>(), A(0)};
}
template <class A>
__device__ __forceinline__ LogSumExpState<A> lse_of(A v) {
  if (v != v) return {negative_infinity<A>(), v};
  return {v, A(1)};
}
template <class A>
__device__ __forceinline__ A lse_rescale(A sum, A from, A to) {
  return from == to ? sum : sum * exp_of(from - to);
}
template <class A>
__device__ __forceinline__ LogSumExpState<A> lse_combine(LogSumExpState<A> a, LogSumExpState<A> b) {
  A m = a.max > b.max ? a.max : b.max;
  return {m, lse_rescale(a.sum, a.max, m) + lse_rescale(b.sum, b.max, m)};
}
template <class A>
__device__ __forceinline__ A lse_value(LogSumExpState<A> s) {
  return log_of(s.sum) + s.max;
}

}  // namespace nabla::cuda
