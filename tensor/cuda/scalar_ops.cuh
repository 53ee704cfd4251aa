// The device scalar function of each elementwise op, and the load that converts an
// element of any dtype as it is read. Shared by the op table's kernels
// (elementwise.cu) and the fused programs (fused.cu), so that a fused chain computes
// exactly what the unfused ops compute. Mirrors tensor/cpu/scalar_ops.hpp op for op:
// T is the compute type (float for f16/bf16, the type itself otherwise); f32 calls
// CUDA's float functions (expf, ...), f64 the double ones.
//
// The names shadow the C library's (and the kernels' in nabla::cuda), so the CUDA
// math functions are always called qualified (::expf).
#pragma once
#include <type_traits>

#include "tensor/cuda/common.cuh"

namespace nabla::cuda::scalar {

template <class T>
constexpr bool kIsFloat = std::is_same_v<T, float>;

constexpr double kSqrtHalf = 0.70710678118654752440;  // M_SQRT1_2

#define NABLA_DEVICE_SCALAR \
  template <class T>        \
  __device__ __forceinline__ T

NABLA_DEVICE_SCALAR neg(T v) { return -v; }
NABLA_DEVICE_SCALAR exp(T v) {
  if constexpr (kIsFloat<T>)
    return ::expf(v);
  else
    return ::exp(v);
}
NABLA_DEVICE_SCALAR log(T v) {
  if constexpr (kIsFloat<T>)
    return ::logf(v);
  else
    return ::log(v);
}
NABLA_DEVICE_SCALAR sqrt(T v) {
  if constexpr (kIsFloat<T>)
    return ::sqrtf(v);
  else
    return ::sqrt(v);
}
// 1 / sqrt rather than rsqrtf (2 ulp): both roundings are exact IEEE ones, as on the CPU.
NABLA_DEVICE_SCALAR rsqrt(T v) { return T(1) / sqrt(v); }
NABLA_DEVICE_SCALAR abs(T v) {
  if constexpr (std::is_unsigned_v<T>)  // u8, bool: no negative values (and no warning)
    return v;
  else
    return v < 0 ? -v : v;
}
NABLA_DEVICE_SCALAR sign(T v) {
  if constexpr (std::is_unsigned_v<T>)
    return T(v > 0);
  else
    return T((v > 0) - (v < 0));
}
NABLA_DEVICE_SCALAR sin(T v) {
  if constexpr (kIsFloat<T>)
    return ::sinf(v);
  else
    return ::sin(v);
}
NABLA_DEVICE_SCALAR cos(T v) {
  if constexpr (kIsFloat<T>)
    return ::cosf(v);
  else
    return ::cos(v);
}
NABLA_DEVICE_SCALAR tanh(T v) {
  if constexpr (kIsFloat<T>)
    return ::tanhf(v);
  else
    return ::tanh(v);
}
// As tensor/cpu/vec_math.hpp: f32 as 1 / (1 + e^-x) (e^-x overflowing to inf gives
// exactly 0); f64 picks the form that cannot overflow.
NABLA_DEVICE_SCALAR sigmoid(T v) {
  if constexpr (kIsFloat<T>)
    return 1.0f / (1.0f + ::expf(-v));
  else
    return v >= 0 ? T(1) / (T(1) + ::exp(-v)) : ::exp(v) / (T(1) + ::exp(v));
}
NABLA_DEVICE_SCALAR relu(T v) { return v > 0 ? v : T(0); }
NABLA_DEVICE_SCALAR erf(T v) {
  if constexpr (kIsFloat<T>)
    return ::erff(v);
  else
    return ::erf(v);
}
NABLA_DEVICE_SCALAR gelu(T v) { return T(0.5) * v * (T(1) + erf(v * T(kSqrtHalf))); }
NABLA_DEVICE_SCALAR silu(T v) { return v * sigmoid(v); }

// bool + bool is logical or and bool * bool logical and, as on the CPU.
NABLA_DEVICE_SCALAR add(T x, T y) {
  if constexpr (std::is_same_v<T, bool>)
    return x || y;
  else
    return x + y;
}
NABLA_DEVICE_SCALAR sub(T x, T y) { return x - y; }
NABLA_DEVICE_SCALAR mul(T x, T y) {
  if constexpr (std::is_same_v<T, bool>)
    return x && y;
  else
    return x * y;
}
NABLA_DEVICE_SCALAR div(T x, T y) { return x / y; }
NABLA_DEVICE_SCALAR pow(T x, T y) {
  if constexpr (kIsFloat<T>)
    return ::powf(x, y);
  else
    return ::pow(x, y);
}
// NaN wins, as in PyTorch.
NABLA_DEVICE_SCALAR maximum(T x, T y) { return (x != x || x > y) ? x : y; }
NABLA_DEVICE_SCALAR minimum(T x, T y) { return (x != x || x < y) ? x : y; }

#undef NABLA_DEVICE_SCALAR

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
  }
  return C(0);
}

}  // namespace nabla::cuda::scalar
