// The scalar function of each elementwise op (tensor/op_list.hpp), written once for
// every path that computes it: the CPU kernels (tensor/cpu/elementwise.cpp), the CPU
// fused loops and epilogues (fused.cpp, epilogue.cpp), their CUDA counterparts
// (tensor/cuda/elementwise.cu, fused.cu, epilogue.cu), and the fused kernels that
// NVRTC compiles at run time (tensor/cuda/fused_codegen.cpp), which get this file's
// text. So a fused chain computes exactly what the unfused ops compute, on either
// device.
//
// T is the compute type: float or double (f16/bf16 compute as float), or an integer
// type for NABLA_INTEGER_UNARY_OPS and the binary ops. The few library functions the
// ops need come from `math` below, the only part that differs by device: on the CPU
// the vectorisable f32 exp/tanh/sigmoid of vec_math.hpp and the C library's others,
// in CUDA code the device library's (expf for float, exp for double). Always inlined:
// a call inside a kernel loop would stop it from vectorising.
//
// Under NVRTC (__CUDACC_RTC__) there is no C++ library: this file includes nothing
// then, declares the few type traits it uses itself, and leaves out the parametric
// ops' attributes (scalar_attrs), which only the host reads.
#pragma once
#ifdef __CUDACC_RTC__
namespace std {
template <class A, class B>
inline constexpr bool is_same_v = false;
template <class A>
inline constexpr bool is_same_v<A, A> = true;
template <class T>
struct is_integral {
  static constexpr bool value = is_same_v<T, bool> || is_same_v<T, char> || is_same_v<T, signed char> ||
                                is_same_v<T, unsigned char> || is_same_v<T, short> || is_same_v<T, unsigned short> ||
                                is_same_v<T, int> || is_same_v<T, unsigned> || is_same_v<T, long> ||
                                is_same_v<T, unsigned long> || is_same_v<T, long long> ||
                                is_same_v<T, unsigned long long>;
};
template <class T>
inline constexpr bool is_integral_v = is_integral<T>::value;
template <class T>
struct is_signed {
  static constexpr bool value = T(-1) < T(0);
};
template <class T>
inline constexpr bool is_signed_v = is_signed<T>::value;
template <class T>
inline constexpr bool is_unsigned_v = is_integral_v<T> && !is_signed_v<T>;
template <class T>
struct make_unsigned;
template <> struct make_unsigned<int> { using type = unsigned; };
template <> struct make_unsigned<long> { using type = unsigned long; };
template <> struct make_unsigned<long long> { using type = unsigned long long; };
template <class T>
using make_unsigned_t = typename make_unsigned<T>::type;
}  // namespace std
#else
#include <array>
#include <cmath>
#include <type_traits>

#include "tensor/attrs.hpp"
#include "tensor/op_list.hpp"
#endif

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
NABLA_DEVICE_MATH(lgamma)
NABLA_DEVICE_MATH(floor)
NABLA_DEVICE_MATH(ceil)
NABLA_DEVICE_MATH(trunc)
NABLA_DEVICE_MATH(rint)
#undef NABLA_DEVICE_MATH
#define NABLA_DEVICE_MATH2(name)            \
  template <class T>                        \
  NABLA_SCALAR_FN T name(T x, T y) {        \
    if constexpr (std::is_same_v<T, float>) \
      return ::name##f(x, y);               \
    else                                    \
      return ::name(x, y);                  \
  }
NABLA_DEVICE_MATH2(pow)
NABLA_DEVICE_MATH2(fmod)
NABLA_DEVICE_MATH2(atan2)
#undef NABLA_DEVICE_MATH2
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
NABLA_HOST_MATH(lgamma, std)
NABLA_HOST_MATH(floor, std)
NABLA_HOST_MATH(ceil, std)
NABLA_HOST_MATH(trunc, std)
NABLA_HOST_MATH(rint, std)  // half to even in the default rounding mode
#undef NABLA_HOST_MATH
#define NABLA_HOST_MATH2(name)       \
  template <class T>                 \
  NABLA_SCALAR_FN T name(T x, T y) { \
    return std::name(x, y);          \
  }
NABLA_HOST_MATH2(pow)
NABLA_HOST_MATH2(fmod)
NABLA_HOST_MATH2(atan2)
#undef NABLA_HOST_MATH2
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
// A float's through 0 - v at v <= 0, so that abs(-0.0) is +0.0 as PyTorch's (it
// was -0.0: copysign(-0.0, 1.0) came out -0.0); a NaN stays NaN.
NABLA_SCALAR abs(T v) {
  if constexpr (std::is_unsigned_v<T>)  // u8, bool: nothing negative (and no warning)
    return v;
  else if constexpr (std::is_integral_v<T>)
    return v < 0 ? neg(v) : v;
  else
    return v <= T(0) ? T(0) - v : v;
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
// relu keeps a NaN (and -0.0), as PyTorch's relu; a relu fused into oneDNN's epilogue
// takes a NaN to 0 (Note [A NaN through relu]).
NABLA_SCALAR relu(T v) {
  if constexpr (std::is_unsigned_v<T>)
    return v;
  else
    return v < 0 ? T(0) : v;
}
NABLA_SCALAR gelu(T v) { return T(0.5) * v * (T(1) + math::erf(v * T(0.70710678118654752440))); }  // erf form
NABLA_SCALAR silu(T v) { return v * math::sigmoid(v); }
NABLA_SCALAR erf(T v) { return math::erf(v); }
// log(1 + x) and e^x - 1 without the cancellation near 0 of the plain forms.
NABLA_SCALAR log1p(T v) { return math::log1p(v); }
NABLA_SCALAR expm1(T v) { return math::expm1(v); }
NABLA_SCALAR lgamma(T v) { return math::lgamma(v); }
// Rounding: an integer is already whole. round is half to even, as PyTorch's.
#define NABLA_ROUNDING(name, library)    \
  NABLA_SCALAR name(T v) {               \
    if constexpr (std::is_integral_v<T>) \
      return v;                          \
    else                                 \
      return math::library(v);           \
  }
NABLA_ROUNDING(floor, floor)
NABLA_ROUNDING(ceil, ceil)
NABLA_ROUNDING(round, rint)
NABLA_ROUNDING(trunc, trunc)
#undef NABLA_ROUNDING
// The forms of PyTorch's CPU kernels, operation for operation.
NABLA_SCALAR hardswish(T v) {
  T r6 = v + T(3);
  r6 = r6 > T(0) ? r6 : T(0);
  r6 = r6 < T(6) ? r6 : T(6);
  return v * r6 / T(6);
}
NABLA_SCALAR mish(T v) { return v * math::tanh(math::log1p(math::exp(v))); }

// Note [The gamma family's series]
// lgamma is the device's and the C library's. digamma, trigamma and the Hurwitz zeta
// (polygamma of order n >= 2) have no library function on either device, so they
// are PyTorch's own series (aten/src/ATen/native/Math.h, from Cephes): a recurrence
// up to x >= 10 (digamma) or 6 more terms (trigamma), then the asymptotic series, and
// the reflection formula below 0 (digamma) or 0.5 (trigamma). Written with `math`
// only, so the CPU, CUDA and NVRTC compile the same text and agree with PyTorch at
// the poles: digamma(0) = -inf with the sign of -0 reversed, a negative integer NaN.
NABLA_SCALAR digamma(T x) {
  const T pi = T(3.14159265358979323846);
  if (x == T(0)) return x < T(0) || T(1) / x < T(0) ? T(1) / T(0) : -T(1) / T(0);  // copysign(inf, -x)
  T reflected = T(0);
  if (x < T(0)) {
    if (x == math::trunc(x)) return T(0) / T(0);  // a pole: NaN, as PyTorch
    // digamma(1 - x) - pi / tan(pi x), tan(pi r) of x's fractional part r for accuracy
    T r = x - math::trunc(x);
    reflected = -pi * math::cos(pi * r) / math::sin(pi * r);
    x = T(1) - x;
  }
  T result = reflected;
  while (x < T(10)) {
    result -= T(1) / x;
    x += T(1);
  }
  if (x == T(10)) return result + T(2.25175258906672110764);  // digamma(10)
  T y = T(0);
  if (x < T(1.0e17)) {
    T z = T(1) / (x * x);
    // polevl(z, A, 6), A from the highest power
    T p = T(8.33333333333333333333E-2);
    p = p * z + T(-2.10927960927960927961E-2);
    p = p * z + T(7.57575757575757575758E-3);
    p = p * z + T(-4.16666666666666666667E-3);
    p = p * z + T(3.96825396825396825397E-3);
    p = p * z + T(-8.33333333333333333333E-3);
    p = p * z + T(8.33333333333333333333E-2);
    y = z * p;
  }
  return result + math::log(x) - T(0.5) / x - y;
}
// The first derivative of digamma.
NABLA_SCALAR trigamma(T x) {
  const T pi = T(3.14159265358979323846);
  T sign = T(1), result = T(0);
  if (x < T(0.5)) {
    sign = T(-1);
    T s = math::sin(pi * x);
    result -= pi * pi / (s * s);
    x = T(1) - x;
  }
  for (int i = 0; i < 6; ++i) {
    result += T(1) / (x * x);
    x += T(1);
  }
  const T ixx = T(1) / (x * x);
  result += (T(1) + T(1) / (T(2) * x) + ixx * (T(1) / T(6) - ixx * (T(1) / T(30) - ixx * (T(1) / T(42))))) / x;
  return sign * result;
}
// The Hurwitz zeta function sum_k (k + q)^-s (Cephes' zeta, as PyTorch's).
NABLA_SCALAR hurwitz_zeta(T s, T q) {
  const T machep = T(1.11022302462515654042E-16);
  const T bernoulli[12] = {T(12.0), T(-720.0), T(30240.0), T(-1209600.0), T(47900160.0), T(-1.8924375803183791606e9),
                           T(7.47242496e10), T(-2.950130727918164224e12), T(1.1646782814350067249e14),
                           T(-4.5979787224074726105e15), T(1.8152105401943546773e17), T(-7.1661652561756670113e18)};
  if (s == T(1)) return T(1) / T(0);
  if (s < T(1)) return T(0) / T(0);
  if (q <= T(0)) {
    if (q == math::floor(q)) return T(1) / T(0);
    if (s != math::floor(s)) return T(0) / T(0);
  }
  T sum = math::pow(q, -s), a = q, b = T(0);
  int i = 0;
  while (i < 9 || a <= T(9)) {
    i += 1;
    a += T(1);
    b = math::pow(a, -s);
    sum += b;
    if (-machep * sum < b && b < machep * sum) return sum;
  }
  const T w = a;
  sum += b * w / (s - T(1));
  sum -= T(0.5) * b;
  a = T(1);
  T k = T(0);
  for (int j = 0; j < 12; ++j) {
    a *= s + k;
    b /= w;
    T t = a * b / bernoulli[j];
    sum = sum + t;
    t = t / sum;
    if ((t < T(0) ? -t : t) < machep) return sum;
    k += T(1);
    a *= s + k;
    b /= w;
    k += T(1);
  }
  return sum;
}

// ---------------------------------------------------------------------------
// Unary with scalar attributes (NABLA_PARAMETRIC_UNARY_OPS)

#ifndef __CUDACC_RTC__
// Note [Scalar attributes of unary ops]
// A parametric op's scalar function takes the value and two numbers a and b, its
// attributes in the order scalar_attrs lists them (an op with one ignores b). The
// same list gives the op's row its attributes (names, defaults) and gives every
// path the numbers from a row's Attrs (scalar_attr_values): the CPU and CUDA
// kernels, and the fused loops, whose steps carry them (ElementwiseStep::attr), so a
// new parametric op needs no code outside this file, its list entry and its row.
struct ScalarAttr {
  const char* name = nullptr;  // nullptr: no attribute in this place
  double default_value = 0;
  // The default is none, which the scalar function reads as default_value (logit's
  // eps: none, read as -1, is no clamping, as PyTorch reads a negative eps).
  bool default_none = false;
};
using ScalarAttrList = std::array<ScalarAttr, 2>;

constexpr ScalarAttrList scalar_attrs(OpId id) {
  switch (id) {
    case OpId::softplus:
      return {{{"beta", 1.0}, {"threshold", 20.0}}};
    case OpId::elu:
      return {{{"alpha", 1.0}}};
    case OpId::leaky_relu:
      return {{{"negative_slope", 0.01}}};
    case OpId::hardtanh:
      return {{{"min_val", -1.0}, {"max_val", 1.0}}};
    case OpId::logit:
      return {{{"eps", -1.0, true}}};
    case OpId::polygamma:
      return {{{"n", 0.0}}};
    default:
      return {};
  }
}

// The numbers a parametric op computes with, from its attributes (the defaults for
// those `attrs` lacks; none read as the default value).
inline std::array<double, 2> scalar_attr_values(OpId id, const Attrs& attrs) {
  std::array<double, 2> values{};
  ScalarAttrList list = scalar_attrs(id);
  for (size_t k = 0; k < list.size(); ++k) {
    const ScalarAttr& spec = list[k];
    if (!spec.name) continue;
    bool given = attrs.has(spec.name) && !attrs.is_none(spec.name);
    values[k] = given ? attrs.f(spec.name) : spec.default_value;
  }
  return values;
}
#endif  // __CUDACC_RTC__

// log(1 + e^(beta x)) / beta, or x itself where beta x passes threshold.
NABLA_SCALAR softplus(T v, T beta, T threshold) {
  return v * beta > threshold ? v : math::log1p(math::exp(v * beta)) / beta;
}
NABLA_SCALAR elu(T v, T alpha, T) { return v > T(0) ? v : alpha * math::expm1(v); }
NABLA_SCALAR leaky_relu(T v, T negative_slope, T) { return v > T(0) ? v : v * negative_slope; }
NABLA_SCALAR hardtanh(T v, T min_val, T max_val) { return v < min_val ? min_val : v > max_val ? max_val : v; }
// log(x / (1 - x)), x first clamped to [eps, 1 - eps] unless eps is negative.
NABLA_SCALAR logit(T v, T eps, T) {
  if (eps >= T(0)) v = v < eps ? eps : v > T(1) - eps ? T(1) - eps : v;
  return math::log(v / (T(1) - v));
}
// The n-th derivative of digamma (Note [The gamma family's series]): digamma and
// trigamma for n = 0 and 1, else (-1)^(n+1) n! zeta(n + 1, x). The row's shape rule
// refuses a negative or fractional n.
NABLA_SCALAR polygamma(T v, T n, T) {
  if (n == T(0)) return digamma(v);
  if (n == T(1)) return trigamma(v);
  const int order = static_cast<int>(n);
  const T sign = order % 2 ? T(1) : T(-1);
  return sign * math::exp(math::lgamma(n + T(1))) * hurwitz_zeta(n + T(1), v);
}

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
// x ** 2 (a squared error, a norm) as one multiply, as PyTorch's kernel does, and
// x ** 1 (the square's gradient, 2 * x ** 1) as x: the library pow is a call per
// element, 6x slower on the whole op, and may round the square 1 ulp off.
NABLA_SCALAR pow(T x, T y) { return y == T(2) ? x * x : y == T(1) ? x : math::pow(x, y); }
// NaN wins, as in PyTorch.
NABLA_SCALAR maximum(T x, T y) { return (x != x || x > y) ? x : y; }
NABLA_SCALAR minimum(T x, T y) { return (x != x || x < y) ? x : y; }
// The remainder with the divisor's sign (Python's %, PyTorch's remainder). Integer
// y != 0 here (the kernel checks first); x % -1 is 0 without computing INT_MIN % -1,
// which traps.
NABLA_SCALAR remainder(T x, T y) {
  if constexpr (std::is_same_v<T, bool>) {
    return false;  // the shape rule refuses bool; y is true here, and x % 1 is 0
  } else if constexpr (std::is_integral_v<T>) {
    if constexpr (std::is_signed_v<T>)
      if (y == T(-1)) return T(0);
    T r = static_cast<T>(x % y);
    if constexpr (std::is_signed_v<T>)
      if (r != 0 && ((r < 0) != (y < 0))) r = static_cast<T>(r + y);
    return r;
  } else {
    T r = math::fmod(x, y);
    return r != T(0) && ((r < T(0)) != (y < T(0))) ? r + y : r;
  }
}
NABLA_SCALAR atan2(T x, T y) { return math::atan2(x, y); }
// log(e^x + e^y) without overflow: the larger plus log1p(e^-|x - y|); two equal
// infinities give themselves (their difference would be NaN; x - x is not 0 only for
// an infinity once x == y has ruled out NaN). An integer T (a direct call of the CPU
// kernel; the shape rule makes the result a float) computes in double.
NABLA_SCALAR logaddexp(T x, T y) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(logaddexp<double>(x, y));
  } else {
    if (x == y && x - x != T(0)) return x;
    T larger = x > y ? x : y;
    return larger + math::log1p(math::exp(-abs(x - y)));
  }
}

// ---------------------------------------------------------------------------
// threshold_backward: relu's gradient, PyTorch's threshold_backward: 0 where x is at
// most the threshold, else g (a NaN x passes g; a select, so a NaN g at x <= threshold
// gives 0, not NaN * 0).
NABLA_SCALAR threshold_backward(T g, T x, T threshold) { return x <= threshold ? T(0) : g; }

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
