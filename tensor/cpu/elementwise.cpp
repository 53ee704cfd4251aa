// CPU kernels of the elementwise rows. Inputs arrive in any layout and are broadcast
// by the loop helper; a mixed-dtype input is first converted to the compute dtype
// the row's shape rule chose (the output's dtype, or the promoted input dtype for
// comparisons).
#include <cmath>
#include <type_traits>
#include <variant>

#include "tensor/cpu/copy.hpp"
#include "tensor/cpu/kernels.hpp"
#include "tensor/cpu/loops.hpp"
#include "tensor/layout.hpp"
#include "tensor/scalar_ops.hpp"

namespace nabla::cpu {

Tensor as_dtype(const Tensor& t, DType dt) { return t.dtype() == dt ? t : to_dtype_raw(t, dt); }

namespace {

// Whether an integer tensor holds a 0 (div's check of its divisor).
bool any_zero(const Tensor& t) {
  for (int64_t v : to_int64_vector(t))
    if (v == 0) return true;
  return false;
}

template <class F>
void float_unary(const char* name, const TensorList& in, TensorList& out, F f) {
  Tensor x = as_dtype(in[0], out[0].dtype());
  visit_float(out[0].dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    map1<T, T>(out[0], x, [&](T v) { return f(v); });
  });
}

// Ops that also make sense on integers (neg, abs, sign, relu).
template <class F>
void numeric_unary(const char* name, const TensorList& in, TensorList& out, F f) {
  Tensor x = as_dtype(in[0], out[0].dtype());
  visit_dtype(out[0].dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
      throw Error(std::string(name) + ": not defined for " + dtype_name(out[0].dtype()));
    else
      map1<T, T>(out[0], x, [&](T v) { return f(v); });
  });
}

template <class F>
void numeric_binary(const char* name, const TensorList& in, TensorList& out, F f) {
  DType dt = out[0].dtype();
  Tensor a = as_dtype(in[0], dt), b = as_dtype(in[1], dt);
  visit_dtype(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
      throw Error(std::string(name) + ": 16-bit floats compute through f32");
    else
      map2<T, T, T>(out[0], a, b, [&](T x, T y) { return static_cast<T>(f(x, y)); });
  });
}

// Comparisons compute in the inputs' result_type (a wrapped number does not widen:
// f32 > 0.1 compares in f32, as PyTorch does) and write bool.
template <class F>
void compare(const TensorList& in, TensorList& out, F f) {
  DType dt = result_type(in);
  Tensor a = as_dtype(in[0], dt), b = as_dtype(in[1], dt);
  visit_dtype(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    map2<bool, T, T>(out[0], a, b, [&](auto x, auto y) { return f(x, y); });
  });
}

}  // namespace

void contiguous(const TensorList& in, const Attrs&, TensorList& out) { copy_into(out[0], in[0]); }
void to_dtype(const TensorList& in, const Attrs&, TensorList& out) { copy_into(out[0], in[0]); }

// The adjoint of slice: zeros everywhere but the sliced positions, which get grad.
void slice_backward(const TensorList& in, const Attrs& attrs, TensorList& out) {
  fill_raw(out[0], 0.0);
  int64_t dim = wrap_dim(attrs.i("dim"), out[0].dim(), "slice_backward");
  copy_into(sliced_view(out[0], attrs, in[0].size(dim)), in[0]);
}

// The unary kernels: integer inputs keep their dtype for NABLA_INTEGER_UNARY_OPS,
// the others compute in the float dtype the shape rule chose.
#define NABLA_UNARY_KERNEL(name)                                   \
  void name(const TensorList& in, const Attrs&, TensorList& out) { \
    auto f = [](auto v) { return scalar::name(v); };               \
    if constexpr (keeps_integers(OpId::name))                      \
      numeric_unary(#name, in, out, f);                            \
    else                                                           \
      float_unary(#name, in, out, f);                              \
  }
NABLA_UNARY_OPS(NABLA_UNARY_KERNEL)
#undef NABLA_UNARY_KERNEL

// The parametric kernels: the attributes as numbers of the compute type (Note
// [Scalar attributes of unary ops] in tensor/scalar_ops.hpp).
#define NABLA_PARAMETRIC_UNARY_KERNEL(name)                                  \
  void name(const TensorList& in, const Attrs& attrs, TensorList& out) {     \
    std::array<double, 2> p = scalar::scalar_attr_values(OpId::name, attrs); \
    float_unary(#name, in, out, [p](auto v) {                                \
      using C = decltype(v);                                                 \
      return scalar::name(v, static_cast<C>(p[0]), static_cast<C>(p[1]));    \
    });                                                                      \
  }
NABLA_PARAMETRIC_UNARY_OPS(NABLA_PARAMETRIC_UNARY_KERNEL)
#undef NABLA_PARAMETRIC_UNARY_KERNEL

// The binary kernels compute in the output's dtype, the inputs' result type (div's
// and pow's shape rules make it a float; bool + bool is or, bool * bool and, in the
// scalar functions). An integer result of a dividing op (never from the language,
// whose / divides as floats, but a kernel must not trap whoever calls it) checks for
// a zero divisor first: PyTorch's ZeroDivisionError (Note [Integer tensor arithmetic]).
void check_integer_divisor(const char* name, const TensorList& in, const TensorList& out) {
  DType dt = out[0].dtype();
  if (!is_floating(dt) && dt != DType::b8 && any_zero(as_dtype(in[1], dt)))
    throw Error(std::string(name) + ": integer division by zero");
}
#define NABLA_BINARY_KERNEL(name)                                                             \
  void name(const TensorList& in, const Attrs&, TensorList& out) {                            \
    if constexpr (divides_by_second_input(OpId::name)) check_integer_divisor(#name, in, out); \
    numeric_binary(#name, in, out, [](auto x, auto y) { return scalar::name(x, y); });        \
  }
NABLA_BINARY_OPS(NABLA_BINARY_KERNEL)
#undef NABLA_BINARY_KERNEL

#define NABLA_COMPARE_KERNEL(name)                                       \
  void name(const TensorList& in, const Attrs&, TensorList& out) {       \
    compare(in, out, [](auto x, auto y) { return scalar::name(x, y); }); \
  }
NABLA_COMPARISON_OPS(NABLA_COMPARE_KERNEL)
#undef NABLA_COMPARE_KERNEL

void where(const TensorList& in, const Attrs&, TensorList& out) {
  DType dt = out[0].dtype();
  Tensor c = as_dtype(in[0], DType::b8), a = as_dtype(in[1], dt), b = as_dtype(in[2], dt);
  visit_dtype(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    // Branch-free: a mask of random signs (relu's backward) would mispredict half the time.
    map3<T, bool, T, T>(out[0], c, a, b, [](bool cond, auto x, auto y) {
      decltype(x) pick[2] = {y, x};
      return pick[cond];
    });
  });
}

// A clamp bound in the compute type C: an int bound of an integer tensor exactly
// (through a double, one past 2^53 rounded: clamp(x, min=2**62 + 2) clamped to 2^62).
template <class C>
static C clamp_bound(const Attrs& attrs, const char* name) {
  if constexpr (std::is_integral_v<C>) {
    if (const auto* exact = std::get_if<int64_t>(&attrs.value(name))) return static_cast<C>(*exact);
  }
  return static_cast<C>(attrs.f(name));
}

void clamp(const TensorList& in, const Attrs& attrs, TensorList& out) {
  bool has_min = !attrs.is_none("min"), has_max = !attrs.is_none("max");
  Tensor x = as_dtype(in[0], out[0].dtype());
  visit_dtype(out[0].dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    if constexpr (std::is_same_v<T, bool>) {
      throw Error("clamp: not defined for bool");
    } else {
      C l = has_min ? clamp_bound<C>(attrs, "min") : C{}, h = has_max ? clamp_bound<C>(attrs, "max") : C{};
      map1<T, T>(out[0], x, [&](C v) {
        if (has_min && v < l) v = l;
        if (has_max && v > h) v = h;
        return v;
      });
    }
  });
}

// relu's gradient in one loop, in the output's float dtype (the threshold converted
// to it, as clamp's bounds are).
void threshold_backward(const TensorList& in, const Attrs& attrs, TensorList& out) {
  DType dt = out[0].dtype();
  Tensor g = as_dtype(in[0], dt), x = as_dtype(in[1], dt);
  double threshold = attrs.f("threshold");
  visit_float(dt, "threshold_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T t = static_cast<T>(threshold);
    map2<T, T, T>(out[0], g, x, [t](T gv, T xv) { return scalar::threshold_backward(gv, xv, t); });
  });
}

}  // namespace nabla::cpu
