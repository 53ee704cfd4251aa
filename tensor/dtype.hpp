// Element types of tensors: the enum, its names and sizes, the 16-bit float
// storage types, type promotion, and the helpers that turn a runtime DType into a
// compile-time C++ type for kernels. Knows nothing of tensors themselves.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "tensor/error.hpp"

namespace nabla {

// i8 and u8 hold quantized values (docs/quantization.md): integers like i32 and i64
// for every kernel, with casts from floats that wrap as PyTorch's do (quantize_*
// clamps instead).
//
// Note [The i16 dtype]
// i16 is PyTorch's int16 (torch.short): 16-bit PCM audio, and where u8 meets i8 in
// promotion (before it, u8 with i8 gave i32). It is an integer like i32 for every
// kernel: arithmetic wraps at 16 bits, sums and cumsums widen to i64, an index or a
// class target must still be i64 or i32 (PyTorch's indices are long). It came last in
// the enum, so that the numbers of the dtypes before it keep their meaning.
enum class DType : uint8_t { f32, f64, f16, bf16, i64, i32, b8, i8, u8, i16 };
constexpr int kNumDTypes = 10;
static_assert(static_cast<int>(DType::i16) + 1 == kNumDTypes, "kNumDTypes out of line with DType");

// IEEE binary16 storage. Arithmetic goes through float: kernels load, compute in
// f32 and round back on store.
struct Half {
  uint16_t bits = 0;
  Half() = default;
  Half(float f) : bits(from_float(f)) {}
  operator float() const { return to_float(bits); }
  static uint16_t from_float(float f);
  static float to_float(uint16_t h);
};

// bfloat16: the top half of an f32, rounded to nearest even.
struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  BFloat16(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) {
      bits = 0x7fc0;  // NaN stays a (quiet) NaN
    } else {
      u += 0x7fffu + ((u >> 16) & 1u);
      bits = static_cast<uint16_t>(u >> 16);
    }
  }
  operator float() const {
    uint32_t u = static_cast<uint32_t>(bits) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
};

inline size_t dtype_size(DType t) {
  switch (t) {
    case DType::f32: return 4;
    case DType::f64: return 8;
    case DType::f16: return 2;
    case DType::bf16: return 2;
    case DType::i64: return 8;
    case DType::i32: return 4;
    case DType::b8: return 1;
    case DType::i8: return 1;
    case DType::u8: return 1;
    case DType::i16: return 2;
  }
  return 0;
}

const char* dtype_name(DType t);           // "f32", "f64", ..., "bool"
bool dtype_from_name(const std::string& name, DType* out);
inline bool is_floating(DType t) {
  return t == DType::f32 || t == DType::f64 || t == DType::f16 || t == DType::bf16;
}
inline bool is_integral(DType t) {
  return t == DType::i64 || t == DType::i32 || t == DType::i8 || t == DType::u8 || t == DType::i16;
}
// The integer types an index or a class target may have (the kernels widen to i64).
inline bool is_index_type(DType t) { return t == DType::i64 || t == DType::i32; }
inline bool is_half(DType t) { return t == DType::f16 || t == DType::bf16; }

// Category used by promotion: bool < integer < floating.
inline int dtype_category(DType t) { return t == DType::b8 ? 0 : is_integral(t) ? 1 : 2; }

// The smallest type both a and b convert to without losing their category
// (PyTorch's promote_types): f16 with bf16 gives f32, ints with floats give the float.
DType promote_types(DType a, DType b);

// Whether an in-place op may write a result of dtype `from` into a tensor of dtype
// `to` (PyTorch's canCast): never into a lower category (a float into an int, an int
// into a bool), which would truncate without a word.
inline bool can_cast(DType from, DType to) { return dtype_category(from) <= dtype_category(to); }

template <class T> struct dtype_of;
template <> struct dtype_of<float> { static constexpr DType value = DType::f32; };
template <> struct dtype_of<double> { static constexpr DType value = DType::f64; };
template <> struct dtype_of<Half> { static constexpr DType value = DType::f16; };
template <> struct dtype_of<BFloat16> { static constexpr DType value = DType::bf16; };
template <> struct dtype_of<int64_t> { static constexpr DType value = DType::i64; };
template <> struct dtype_of<int32_t> { static constexpr DType value = DType::i32; };
template <> struct dtype_of<bool> { static constexpr DType value = DType::b8; };
template <> struct dtype_of<int8_t> { static constexpr DType value = DType::i8; };
template <> struct dtype_of<uint8_t> { static constexpr DType value = DType::u8; };
template <> struct dtype_of<int16_t> { static constexpr DType value = DType::i16; };

// The type a kernel computes in: 16-bit floats compute in float.
template <class T> struct compute_type { using type = T; };
template <> struct compute_type<Half> { using type = float; };
template <> struct compute_type<BFloat16> { using type = float; };
template <class T> using compute_t = typename compute_type<T>::type;

template <class T> struct TypeTag { using type = T; };

// v (a value of any element type, or its compute type) converted to T's compute type
// as a cast does, with every float-to-integer case defined (a plain cast of a value
// out of the target's range is undefined behaviour; an ir_parse fuzz finding was an
// i64 constant of 4.4e54). Floats go through i64: narrower types wrap, so 300.0 -> u8
// is 44 as in PyTorch; NaN and values outside i64 give INT64_MIN (its low bits for
// narrower types), as x86's conversion and PyTorch's i64 cast do. PyTorch on x86 gives
// INT32_MIN for i32/i16 values outside i32, where nabla wraps. quantize_* clamps
// instead (docs/quantization.md).
template <class T, class V>
inline compute_t<T> element_cast(V v) {
  constexpr bool int_target = std::is_integral_v<T> && !std::is_same_v<T, bool>;
  if constexpr (int_target && std::is_floating_point_v<V>) {
    double d = static_cast<double>(v);
    return static_cast<T>(d >= -0x1p63 && d < 0x1p63 ? static_cast<int64_t>(d) : INT64_MIN);
  } else {
    return static_cast<compute_t<T>>(v);
  }
}

// visit_dtype(dt, [&](auto tag) { using T = typename decltype(tag)::type; ... })
template <class F>
decltype(auto) visit_dtype(DType t, F&& f) {
  switch (t) {
    case DType::f32: return f(TypeTag<float>{});
    case DType::f64: return f(TypeTag<double>{});
    case DType::f16: return f(TypeTag<Half>{});
    case DType::bf16: return f(TypeTag<BFloat16>{});
    case DType::i64: return f(TypeTag<int64_t>{});
    case DType::i32: return f(TypeTag<int32_t>{});
    case DType::b8: return f(TypeTag<bool>{});
    case DType::i8: return f(TypeTag<int8_t>{});
    case DType::u8: return f(TypeTag<uint8_t>{});
    case DType::i16: return f(TypeTag<int16_t>{});
  }
  throw Error("visit_dtype: unknown dtype");
}

// Kernels that only make sense for f32/f64 (the 16-bit floats reach them through
// f32, see Note [Half through f32] in dispatch.cpp).
template <class F>
decltype(auto) visit_float(DType t, const char* op, F&& f) {
  switch (t) {
    case DType::f32: return f(TypeTag<float>{});
    case DType::f64: return f(TypeTag<double>{});
    default: throw Error(std::string(op) + ": expected a floating tensor (f32 or f64), got " + dtype_name(t));
  }
}

}  // namespace nabla
