// What every CUDA kernel file shares: error checks, the current stream, device element
// types for nabla's dtypes, launch shapes for grid-stride loops, and the offset
// calculator that turns a linear output index into each operand's element offset
// (strided and broadcast operands, no copies). Only .cu files include this.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

#include "tensor/cuda/cuda_runtime.hpp"
#include "tensor/error.hpp"
#include "tensor/tensor.hpp"

namespace nabla::cuda {

// Throws nabla::Error naming the call and CUDA's message (runtime.cu).
void check(cudaError_t status, const char* what);
// Counts one wait of the host for the device (host_waits(); runtime.cu); every
// synchronizing call of the backend makes it.
void count_host_wait();
#define NABLA_CUDA_CHECK(expr) ::nabla::cuda::check((expr), #expr)
// After a kernel launch: a bad launch configuration shows up here, not later.
#define NABLA_CUDA_LAUNCH_CHECK() ::nabla::cuda::check(cudaGetLastError(), "kernel launch")

// The current stream of the current device, as a cudaStream_t.
inline cudaStream_t stream_of(int device) { return reinterpret_cast<cudaStream_t>(current_stream(device)); }
inline cudaStream_t stream_for(const Tensor& t) { return stream_of(t.device().index); }

// Makes `device` current for a scope (cudart state is per thread). Restores the
// previous device only when it switched: every kernel launch makes one of these.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    NABLA_CUDA_CHECK(cudaGetDevice(&previous_));
    if (previous_ != device) {
      NABLA_CUDA_CHECK(cudaSetDevice(device));
      switched_ = true;
    }
  }
  ~DeviceGuard() {
    if (switched_) cudaSetDevice(previous_);
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = 0;
  bool switched_ = false;
};

// Lanes of a warp, for the reductions' shuffles.
constexpr int kWarpSize = 32;

// ---------------------------------------------------------------------------
// Element types. Half and BFloat16 hold the same bits as __half and __nv_bfloat16;
// kernels load 16-bit floats, compute in float and round on store, as the CPU does.

template <class T>
struct device_type {
  using type = T;
};
template <>
struct device_type<Half> {
  using type = __half;
};
template <>
struct device_type<BFloat16> {
  using type = __nv_bfloat16;
};
template <class T>
using device_t = typename device_type<T>::type;

template <class T>
struct device_compute {
  using type = T;
};
template <>
struct device_compute<__half> {
  using type = float;
};
template <>
struct device_compute<__nv_bfloat16> {
  using type = float;
};
template <class T>
using dcompute_t = typename device_compute<T>::type;

template <class T>
__device__ __forceinline__ dcompute_t<T> load_as_compute(const T* p) {
  return static_cast<dcompute_t<T>>(*p);
}
template <>
__device__ __forceinline__ float load_as_compute(const __half* p) {
  return __half2float(*p);
}
template <>
__device__ __forceinline__ float load_as_compute(const __nv_bfloat16* p) {
  return __bfloat162float(*p);
}

// Converts between any two device element types (through float for 16-bit floats),
// as the CPU's element_cast (tensor/dtype.hpp): floats going to i16, i8 or u8 go
// through i64, so out-of-range values wrap modulo 2^16 or 256 (the GPU's own
// conversion saturates).
template <class To, class From>
__host__ __device__ __forceinline__ To convert(From v) {
  constexpr bool small_int =
      std::is_same_v<To, int8_t> || std::is_same_v<To, uint8_t> || std::is_same_v<To, int16_t>;
  if constexpr (std::is_same_v<From, __half>) {
    return convert<To>(__half2float(v));
  } else if constexpr (std::is_same_v<From, __nv_bfloat16>) {
    return convert<To>(__bfloat162float(v));
  } else if constexpr (std::is_same_v<To, __half>) {
    return __float2half(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, __nv_bfloat16>) {
    return __float2bfloat16(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (small_int && std::is_floating_point_v<From>) {
    return static_cast<To>(static_cast<int64_t>(v));
  } else {
    return static_cast<To>(v);
  }
}

// visit_device_dtype(dt, [&](auto tag) { using T = typename decltype(tag)::type; ... })
// with T the device element type (__half for f16, __nv_bfloat16 for bf16).
template <class F>
decltype(auto) visit_device_dtype(DType t, F&& f) {
  switch (t) {
    case DType::f32:
      return f(TypeTag<float>{});
    case DType::f64:
      return f(TypeTag<double>{});
    case DType::f16:
      return f(TypeTag<__half>{});
    case DType::bf16:
      return f(TypeTag<__nv_bfloat16>{});
    case DType::i64:
      return f(TypeTag<int64_t>{});
    case DType::i32:
      return f(TypeTag<int32_t>{});
    case DType::b8:
      return f(TypeTag<bool>{});
    case DType::i8:
      return f(TypeTag<int8_t>{});
    case DType::u8:
      return f(TypeTag<uint8_t>{});
    case DType::i16:
      return f(TypeTag<int16_t>{});
  }
  throw Error("visit_device_dtype: unknown dtype");
}

// The floating types only (f32, f64, f16, bf16); `op` names the caller in the error.
template <class F>
decltype(auto) visit_device_float(DType t, const char* op, F&& f) {
  switch (t) {
    case DType::f32:
      return f(TypeTag<float>{});
    case DType::f64:
      return f(TypeTag<double>{});
    case DType::f16:
      return f(TypeTag<__half>{});
    case DType::bf16:
      return f(TypeTag<__nv_bfloat16>{});
    default:
      throw Error(std::string(op) + ": expected a floating tensor, got " + dtype_name(t));
  }
}

template <class T>
T* device_data(const Tensor& t) {
  return static_cast<T*>(t.raw_data());
}

// ---------------------------------------------------------------------------
// Launch shapes. Grid-stride loops: a kernel covers n elements with at most
// kMaxBlocks blocks of kThreads threads, each thread striding by the grid's size.

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 65535;
inline unsigned blocks_for(int64_t n, int threads = kThreads) {
  return static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>((n + threads - 1) / threads, kMaxBlocks)));
}

#define NABLA_GRID_STRIDE_LOOP(i, n)                                                     \
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(blockDim.x) * gridDim.x)

// ---------------------------------------------------------------------------
// Offsets of N operands for a linear index into an output shape. Operands are
// broadcast to the output's shape (stride 0 on broadcast dims); dims are coalesced
// where every operand allows, so a contiguous elementwise op has one dim.

constexpr int kMaxDims = 12;

template <int N>
struct OffsetCalculator {
  int dims = 0;
  int64_t sizes[kMaxDims];       // innermost first
  int64_t strides[N][kMaxDims];  // in elements, innermost first

  __host__ __device__ __forceinline__ void offsets(int64_t linear, int64_t (&out)[N]) const {
#pragma unroll
    for (int k = 0; k < N; ++k) out[k] = 0;
    for (int d = 0; d < dims; ++d) {
      int64_t size = sizes[d];
      int64_t idx = linear % size;
      linear /= size;
#pragma unroll
      for (int k = 0; k < N; ++k) out[k] += idx * strides[k][d];
    }
  }
};

// `operands[k]` broadcast to `shape` (each must broadcast to it; checked by the op's
// shape rule before a kernel runs). Throws beyond kMaxDims dims after coalescing.
template <int N>
OffsetCalculator<N> make_offset_calculator(const Shape& shape, const std::array<const Tensor*, N>& operands) {
  int nd = static_cast<int>(shape.size());
  // Innermost first; broadcast dims get stride 0.
  int64_t sizes[64];
  int64_t strides[N][64];
  NABLA_CHECK(nd <= 64, "CUDA kernels: tensors of more than 64 dims are not supported");
  for (int d = 0; d < nd; ++d) {
    int src_d = nd - 1 - d;
    sizes[d] = shape[src_d];
    for (int k = 0; k < N; ++k) {
      const Tensor& t = *operands[k];
      int td = static_cast<int>(t.dim()) - 1 - d;
      strides[k][d] = (td >= 0 && t.sizes()[td] != 1) ? t.strides()[td] : 0;
    }
  }
  // Coalesce dim d+1 into d where, for every operand, stride[d+1] == stride[d]*size[d].
  OffsetCalculator<N> calc;
  int out = 0;
  for (int d = 0; d < nd; ++d) {
    if (sizes[d] == 1) continue;
    if (out > 0) {
      bool merge = true;
      for (int k = 0; k < N; ++k)
        if (strides[k][d] != calc.strides[k][out - 1] * calc.sizes[out - 1]) merge = false;
      if (merge) {
        calc.sizes[out - 1] *= sizes[d];
        continue;
      }
    }
    NABLA_CHECK(out < kMaxDims, "CUDA kernels: more than " + std::to_string(kMaxDims) +
                                    " dims that cannot be merged; make the tensor contiguous first");
    calc.sizes[out] = sizes[d];
    for (int k = 0; k < N; ++k) calc.strides[k][out] = strides[k][d];
    ++out;
  }
  calc.dims = out;
  return calc;
}

// Element `offset` of `data`, a tensor of dtype `dtype`, converted to C as the CPU's
// as_dtype converts (16-bit floats through float, bool as 0 or 1, nonzero as true).
// The switch is the same for every thread of a launch, so it costs a few uniform
// branches, not divergence; in exchange the kernels are instantiated once per
// compute type rather than once per combination of input dtypes.
template <class C>
__device__ __forceinline__ C load_converted(const void* data, DType dtype, int64_t offset) {
  switch (dtype) {
    case DType::f32:
      return convert<C>(static_cast<const float*>(data)[offset]);
    case DType::f64:
      return convert<C>(static_cast<const double*>(data)[offset]);
    case DType::f16:
      return convert<C>(static_cast<const __half*>(data)[offset]);
    case DType::bf16:
      return convert<C>(static_cast<const __nv_bfloat16*>(data)[offset]);
    case DType::i64:
      return convert<C>(static_cast<const int64_t*>(data)[offset]);
    case DType::i32:
      return convert<C>(static_cast<const int32_t*>(data)[offset]);
    case DType::b8:
      return convert<C>(static_cast<const bool*>(data)[offset]);
    case DType::i8:
      return convert<C>(static_cast<const int8_t*>(data)[offset]);
    case DType::u8:
      return convert<C>(static_cast<const uint8_t*>(data)[offset]);
    case DType::i16:
      return convert<C>(static_cast<const int16_t*>(data)[offset]);
  }
  return C(0);
}

}  // namespace nabla::cuda
