// The scalar function of each elementwise op (tensor/op_list.hpp), written once for
// every path that computes it: the CPU kernels (tensor/cpu/elementwise.cpp), the CPU
// fused loops and epilogues (fused.cpp, epilogue.cpp), and their CUDA counterparts
// (tensor/cuda/elementwise.cu, fused.cu, epilogue.cu). So a fused chain computes
// exactly what the unfused ops compute, on either device.
//
// T is the compute type: float or double (f16/bf16 compute as float), or an integer
// type for NABLA_INTEGER_UNARY_OPS and the binary ops. The few library functions the
// ops need come from `math` below, the only part that differs by device: on the CPU
// the vectorisable f32 exp/tanh/sigmoid of vec_math.hpp and the C library's others,
// in CUDA code the device library's (expf for float, exp for double). Always inlined:
// a call inside a kernel loop would stop it from vectorising.
#pragma once
#include <cmath>
#include <type_traits>

#ifdef __CUDACC__
#define NABLA_SCALAR_FN __host__ __device__ __forceinline__
#else
#include "tensor/cpu/vec_math.hpp"
#define NABLA_SCALAR_FN inline __attribute__((always_inline))
#endif

namespace nabla::scalar {

namespace math {

#ifdef __CUDACC__
// The device library's function for the compute type (::expf for float).
#define NABLA_DEVICE_MATH(name)             \
  template <class T>                        \
  NABLA_SCALAR_FN T name(T v) {             \
    if constexpr (std::is_same_v<T, float>) \
      return ::name##f(v);                  \
    else                                    \
      return ::name(v);                     \
  }
NABLA_DEVICE_MATH(exp)
NABLA_DEVICE_MATH(log)
NABLA_DEVICE_MATH(sqrt)
NABLA_DEVICE_MATH(sin)
NABLA_DEVICE_MATH(cos)
NABLA_DEVICE_MATH(tanh)
NABLA_DEVICE_MATH(erf)
NABLA_DEVICE_MATH(log1p)
NABLA_DEVICE_MATH(expm1)
#undef NABLA_DEVICE_MATH
template <class T>
NABLA_SCALAR_FN T pow(T x, T y) {
  if constexpr (std::is_same_v<T, float>)
    return ::powf(x, y);
  else
    return ::pow(x, y);
}
// As vec_math.hpp: f32 as 1 / (1 + e^-x) (e^-x overflowing to inf gives exactly 0);
// f64 picks the form that cannot overflow.
template <class T>
NABLA_SCALAR_FN T sigmoid(T v) {
  if constexpr (std::is_same_v<T, float>)
    return 1.0f / (1.0f + ::expf(-v));
  else
    return v >= 0 ? T(1) / (T(1) + ::exp(-v)) : ::exp(v) / (T(1) + ::exp(v));
}
#else
// The CPU's: the vectorisable f32 forms of vec_math.hpp where it has them, the C
// library's otherwise.
#define NABLA_HOST_MATH(name, library) \
  template <class T>                   \
  NABLA_SCALAR_FN T name(T v) {        \
    return library::name(v);           \
  }
NABLA_HOST_MATH(exp, cpu::vmath)
NABLA_HOST_MATH(tanh, cpu::vmath)
NABLA_HOST_MATH(sigmoid, cpu::vmath)
NABLA_HOST_MATH(log, std)
NABLA_HOST_MATH(sqrt, std)
NABLA_HOST_MATH(sin, std)
NABLA_HOST_MATH(cos, std)
NABLA_HOST_MATH(erf, std)
NABLA_HOST_MATH(log1p, std)
NABLA_HOST_MATH(expm1, std)
#undef NABLA_HOST_MATH
template <class T>
NABLA_SCALAR_FN T pow(T x, T y) {
  return std::pow(x, y);
}
#endif

}  // namespace math

// Note [Integer tensor arithmetic]
// Integer tensors wrap in two's complement, as PyTorch's kernels do (int64 max + 1 is
// int64 min). In C++ a signed overflow is undefined, so the int32 and int64 add, sub,
// mul, neg and abs go through the unsigned type, whose wrap is defined (the narrower
// ints compute in int and convert back, which is defined too). Division: a zero
// divisor is an error before the loop (tensor/cpu/elementwise.cpp), and
// INT_MIN / -1, which traps (SIGFPE) on x86, wraps to INT_MIN.
template <class T>
constexpr bool kWrapping = std::is_integral<T>::value&& std::is_signed<T>::value && sizeof(T) >= sizeof(int);
template <class T, class F>
NABLA_SCALAR_FN T wrapping(T x, T y, F f) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(f(static_cast<U>(x), static_cast<U>(y)));
}

#define NABLA_SCALAR \
  template <class T> \
  NABLA_SCALAR_FN T

// ---------------------------------------------------------------------------
// Unary (NABLA_UNARY_OPS)

NABLA_SCALAR neg(T v) {
  if constexpr (kWrapping<T>)
    return wrapping(T(0), v, [](auto a, auto b) { return a - b; });
  else
    return -v;
}
NABLA_SCALAR exp(T v) { return math::exp(v); }
NABLA_SCALAR log(T v) { return math::log(v); }
NABLA_SCALAR sqrt(T v) { return math::sqrt(v); }
// 1 / sqrt rather than a reciprocal square root instruction: both roundings are exact
// IEEE ones, so the devices agree.
NABLA_SCALAR rsqrt(T v) { return T(1) / math::sqrt(v); }
NABLA_SCALAR abs(T v) {
  if constexpr (std::is_unsigned_v<T>)  // u8, bool: nothing negative (and no warning)
    return v;
  else
    return v < 0 ? neg(v) : v;
}
NABLA_SCALAR sign(T v) {
  if constexpr (std::is_unsigned_v<T>)
    return T(v > 0);
  else
    return T((v > 0) - (v < 0));
}
NABLA_SCALAR sin(T v) { return math::sin(v); }
NABLA_SCALAR cos(T v) { return math::cos(v); }
NABLA_SCALAR tanh(T v) { return math::tanh(v); }
NABLA_SCALAR sigmoid(T v) { return math::sigmoid(v); }
NABLA_SCALAR relu(T v) { return v > 0 ? v : T(0); }                                                // NaN gives 0
NABLA_SCALAR gelu(T v) { return T(0.5) * v * (T(1) + math::erf(v * T(0.70710678118654752440))); }  // erf form
NABLA_SCALAR silu(T v) { return v * math::sigmoid(v); }
NABLA_SCALAR erf(T v) { return math::erf(v); }
// log(1 + x) and e^x - 1 without the cancellation near 0 of the plain forms.
NABLA_SCALAR log1p(T v) { return math::log1p(v); }
NABLA_SCALAR expm1(T v) { return math::expm1(v); }

// ---------------------------------------------------------------------------
// Binary (NABLA_BINARY_OPS). bool + bool is logical or and bool * bool logical and,
// as in PyTorch.

NABLA_SCALAR add(T x, T y) {
  if constexpr (std::is_same_v<T, bool>)
    return x || y;
  else if constexpr (kWrapping<T>)
    return wrapping(x, y, [](auto a, auto b) { return a + b; });
  else
    return x + y;
}
NABLA_SCALAR sub(T x, T y) {
  if constexpr (kWrapping<T>)
    return wrapping(x, y, [](auto a, auto b) { return a - b; });
  else
    return x - y;
}
NABLA_SCALAR mul(T x, T y) {
  if constexpr (std::is_same_v<T, bool>)
    return x && y;
  else if constexpr (kWrapping<T>)
    return wrapping(x, y, [](auto a, auto b) { return a * b; });
  else
    return x * y;
}
// Integer y != 0 here (the kernel checks first); INT_MIN / -1 wraps, not traps.
NABLA_SCALAR div(T x, T y) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>)
    return y == -1 ? neg(x) : static_cast<T>(x / y);
  else
    return x / y;
}
NABLA_SCALAR pow(T x, T y) { return math::pow(x, y); }
// NaN wins, as in PyTorch.
NABLA_SCALAR maximum(T x, T y) { return (x != x || x > y) ? x : y; }
NABLA_SCALAR minimum(T x, T y) { return (x != x || x < y) ? x : y; }

#undef NABLA_SCALAR

// ---------------------------------------------------------------------------
// Comparisons (NABLA_COMPARISON_OPS)

#define NABLA_COMPARISON(name, op)      \
  template <class T>                    \
  NABLA_SCALAR_FN bool name(T x, T y) { \
    return x op y;                      \
  }
NABLA_COMPARISON(eq, ==)
NABLA_COMPARISON(ne, !=)
NABLA_COMPARISON(lt, <)
NABLA_COMPARISON(le, <=)
NABLA_COMPARISON(gt, >)
NABLA_COMPARISON(ge, >=)
#undef NABLA_COMPARISON

}  // namespace nabla::scalar
