// The scalar function of each elementwise op, shared by the op table's kernels
// (elementwise.cpp) and the fused loops (fused.cpp), so that a fused chain computes
// exactly what the unfused ops compute. Always inlined: a call inside a kernel loop
// would stop it from vectorising.
#pragma once
#include <cmath>
#include <type_traits>

#include "tensor/cpu/vec_math.hpp"

namespace nabla::cpu::scalar {

#define NABLA_SCALAR \
  template <class T> \
  inline __attribute__((always_inline)) T

// Note [Integer tensor arithmetic]
// Integer tensors wrap in two's complement, as PyTorch's CPU kernels do (int64 max + 1
// is int64 min). In C++ a signed overflow is undefined, so the int32 and int64 add,
// sub, mul, neg and abs go through the unsigned type, whose wrap is defined (the
// narrower ints compute in int and convert back, which is defined too). Division is
// elementwise.cpp's: a zero divisor is an error before the loop, and INT_MIN / -1,
// which traps (SIGFPE) on x86, wraps to INT_MIN.
template <class T>
constexpr bool kWrapping = std::is_integral_v<T> && std::is_signed_v<T> && sizeof(T) >= sizeof(int);
template <class T, class F>
inline __attribute__((always_inline)) T wrapping(T x, T y, F f) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(f(static_cast<U>(x), static_cast<U>(y)));
}

NABLA_SCALAR neg(T v) {
  if constexpr (kWrapping<T>)
    return wrapping(T(0), v, [](auto a, auto b) { return a - b; });
  else
    return -v;
}
NABLA_SCALAR exp(T v) { return vmath::exp(v); }
NABLA_SCALAR log(T v) { return std::log(v); }
NABLA_SCALAR sqrt(T v) { return std::sqrt(v); }
NABLA_SCALAR rsqrt(T v) { return T(1) / std::sqrt(v); }
NABLA_SCALAR abs(T v) { return v < 0 ? neg(v) : v; }
NABLA_SCALAR sign(T v) { return T((v > 0) - (v < 0)); }
NABLA_SCALAR sin(T v) { return std::sin(v); }
NABLA_SCALAR cos(T v) { return std::cos(v); }
NABLA_SCALAR tanh(T v) { return vmath::tanh(v); }
NABLA_SCALAR sigmoid(T v) { return vmath::sigmoid(v); }
NABLA_SCALAR relu(T v) { return v > 0 ? v : T(0); }
NABLA_SCALAR gelu(T v) { return T(0.5) * v * (T(1) + std::erf(v * T(M_SQRT1_2))); }
NABLA_SCALAR silu(T v) { return v * vmath::sigmoid(v); }
NABLA_SCALAR erf(T v) { return std::erf(v); }

NABLA_SCALAR add(T x, T y) {
  if constexpr (kWrapping<T>)
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
// Integer y != 0 here (elementwise.cpp checks first); INT_MIN / -1 wraps, not traps.
NABLA_SCALAR div(T x, T y) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>)
    return y == -1 ? neg(x) : static_cast<T>(x / y);
  else
    return x / y;
}
NABLA_SCALAR pow(T x, T y) { return std::pow(x, y); }
// NaN wins, as in PyTorch.
NABLA_SCALAR maximum(T x, T y) { return (x != x || x > y) ? x : y; }
NABLA_SCALAR minimum(T x, T y) { return (x != x || x < y) ? x : y; }

#undef NABLA_SCALAR

}  // namespace nabla::cpu::scalar
