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

NABLA_SCALAR neg(T v) { return -v; }
NABLA_SCALAR exp(T v) { return vmath::exp(v); }
NABLA_SCALAR log(T v) { return std::log(v); }
NABLA_SCALAR sqrt(T v) { return std::sqrt(v); }
NABLA_SCALAR rsqrt(T v) { return T(1) / std::sqrt(v); }
NABLA_SCALAR abs(T v) { return v < 0 ? -v : v; }
NABLA_SCALAR sign(T v) { return T((v > 0) - (v < 0)); }
NABLA_SCALAR sin(T v) { return std::sin(v); }
NABLA_SCALAR cos(T v) { return std::cos(v); }
NABLA_SCALAR tanh(T v) { return vmath::tanh(v); }
NABLA_SCALAR sigmoid(T v) { return vmath::sigmoid(v); }
NABLA_SCALAR relu(T v) { return v > 0 ? v : T(0); }
NABLA_SCALAR gelu(T v) { return T(0.5) * v * (T(1) + std::erf(v * T(M_SQRT1_2))); }
NABLA_SCALAR silu(T v) { return v * vmath::sigmoid(v); }
NABLA_SCALAR erf(T v) { return std::erf(v); }

NABLA_SCALAR add(T x, T y) { return x + y; }
NABLA_SCALAR sub(T x, T y) { return x - y; }
NABLA_SCALAR mul(T x, T y) {
  if constexpr (std::is_same_v<T, bool>)
    return x && y;
  else
    return x * y;
}
NABLA_SCALAR div(T x, T y) { return x / y; }
NABLA_SCALAR pow(T x, T y) { return std::pow(x, y); }
// NaN wins, as in PyTorch.
NABLA_SCALAR maximum(T x, T y) { return (x != x || x > y) ? x : y; }
NABLA_SCALAR minimum(T x, T y) { return (x != x || x < y) ? x : y; }

#undef NABLA_SCALAR

}  // namespace nabla::cpu::scalar
