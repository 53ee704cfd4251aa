// Warp and block reductions for the kernels that give a row or a channel to one warp
// or one block (norm.cu, attention.cu). Only .cu files include this.
#pragma once
#include <cuda_runtime.h>

#include "tensor/cuda/common.cuh"

namespace nabla::cuda {

template <class T>
__device__ __forceinline__ T warp_sum(T v) {
#pragma unroll
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

template <class T>
__device__ __forceinline__ T warp_max(T v) {
#pragma unroll
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
    T other = __shfl_xor_sync(0xffffffffu, v, offset);
    v = other > v ? other : v;
  }
  return v;
}

// The sum of v over the block, returned to every thread. blockDim.x must be a multiple
// of 32 (at most 1024) and every thread of the block must call it; `scratch` holds 32
// values in shared memory and may be passed to the next call at once.
template <class T>
__device__ T block_sum(T v, T* scratch) {
  int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize, warps = blockDim.x / kWarpSize;
  v = warp_sum(v);
  __syncthreads();  // a previous call's readers are done with scratch
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = lane < warps ? scratch[lane] : T(0);
  return warp_sum(v);
}

}  // namespace nabla::cuda
