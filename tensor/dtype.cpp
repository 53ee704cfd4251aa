#include "tensor/dtype.hpp"

namespace nabla {

uint16_t Half::from_float(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t abs = x & 0x7fffffffu;
  if (abs > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);  // NaN
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow to inf
  if (abs < 0x38800000u) {  // subnormal half (or zero): shift mantissa with rounding
    if (abs < 0x33000000u) return static_cast<uint16_t>(sign);
    uint32_t exp = abs >> 23;
    uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    uint32_t shift = 126 - exp;  // 113 - exp + 13
    uint32_t half_mant = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half_mant & 1u))) ++half_mant;
    return static_cast<uint16_t>(sign | half_mant);
  }
  uint32_t rounded = abs + 0xfffu + ((abs >> 13) & 1u);  // round to nearest even
  return static_cast<uint16_t>(sign | ((rounded - 0x38000000u) >> 13));
}

float Half::to_float(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t out;
  if (exp == 0) {
    if (mant == 0) {
      out = sign;
    } else {  // subnormal: normalize
      exp = 113;
      while ((mant & 0x400u) == 0) {
        mant <<= 1;
        --exp;
      }
      mant &= 0x3ffu;
      out = sign | (exp << 23) | (mant << 13);
    }
  } else if (exp == 31) {
    out = sign | 0x7f800000u | (mant << 13);
  } else {
    out = sign | ((exp + 112) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &out, 4);
  return f;
}

const char* dtype_name(DType t) {
  switch (t) {
    case DType::f32: return "f32";
    case DType::f64: return "f64";
    case DType::f16: return "f16";
    case DType::bf16: return "bf16";
    case DType::i64: return "i64";
    case DType::i32: return "i32";
    case DType::b8: return "bool";
    case DType::i8: return "i8";
    case DType::u8: return "u8";
    case DType::i16: return "i16";
  }
  return "?";
}

bool dtype_from_name(const std::string& name, DType* out) {
  for (int i = 0; i < kNumDTypes; ++i) {
    DType t = static_cast<DType>(i);
    if (name == dtype_name(t)) {
      *out = t;
      return true;
    }
  }
  return false;
}

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  int ca = dtype_category(a), cb = dtype_category(b);
  if (ca != cb) return ca > cb ? a : b;
  if (ca == 1) {
    // The wider integer; i8 with u8 meets at i16 as in PyTorch (neither holds the other).
    if ((a == DType::i8 && b == DType::u8) || (a == DType::u8 && b == DType::i8)) return DType::i16;
    return dtype_size(a) >= dtype_size(b) ? a : b;
  }
  // Two different floats: the wider one, and f16 with bf16 meets at f32.
  if (a == DType::f64 || b == DType::f64) return DType::f64;
  return DType::f32;
}

}  // namespace nabla
