// The values of IR constants: see Note [IR constants] in ir_text.hpp.
#include <cmath>
#include <limits>

#include "graph/ir_text.hpp"

namespace nabla::graph {

namespace {

std::pair<int64_t, int64_t> int_range(DType dtype) {
  switch (dtype) {
    case DType::i32: return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
    case DType::i16: return {std::numeric_limits<int16_t>::min(), std::numeric_limits<int16_t>::max()};
    case DType::i8: return {-128, 127};
    case DType::u8: return {0, 255};
    default: return {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
  }
}

// d as the dtype stores it (inf past its largest finite value).
double rounded_to(DType dtype, double d) {
  switch (dtype) {
    case DType::f32: return static_cast<float>(d);
    case DType::f16: return static_cast<float>(Half(static_cast<float>(d)));
    case DType::bf16: return static_cast<float>(BFloat16(static_cast<float>(d)));
    default: return d;
  }
}

const char* largest_finite(DType dtype) {
  switch (dtype) {
    case DType::f32: return "3.4028235e+38";
    case DType::f16: return "65504";
    case DType::bf16: return "3.3895314e+38";
    default: return "1.7976931348623157e+308";
  }
}

std::string named(DType dtype, const std::string& text) {
  return std::string("the ") + dtype_name(dtype) + " constant '" + text + "'";
}

}  // namespace

std::string constant_from_int(DType dtype, int64_t value, const std::string& text, ConstantElement* out) {
  if (is_floating(dtype)) return constant_from_double(dtype, static_cast<double>(value), text, out);
  auto [lo, hi] = int_range(dtype);
  if (value < lo || value > hi)
    return named(dtype, text) + " is out of its range (" + std::to_string(lo) + " to " + std::to_string(hi) + ")";
  out->i = value;
  return "";
}

std::string constant_from_double(DType dtype, double value, const std::string& text, ConstantElement* out) {
  if (is_floating(dtype)) {
    bool says_inf = text.find("inf") != std::string::npos;  // "1e999" reads as inf too, but says otherwise
    if (!says_inf && std::isinf(rounded_to(dtype, value)))
      return named(dtype, text) + " is out of its range (largest finite value " + largest_finite(dtype) +
             "); write inf for an infinity";
    out->d = value;
    return "";
  }
  bool integral = std::isfinite(value) && std::nearbyint(value) == value && value >= -0x1p63 && value < 0x1p63;
  if (!integral) return named(dtype, text) + " is not an integer";
  return constant_from_int(dtype, static_cast<int64_t>(value), text, out);
}

Tensor constant_tensor(const std::vector<ConstantElement>& xs, const TensorMeta& meta) {
  if (is_floating(meta.dtype)) {
    std::vector<double> ds;
    ds.reserve(xs.size());
    for (const ConstantElement& x : xs) ds.push_back(x.d);
    return tensor_from(ds, meta.sizes, meta.dtype);
  }
  Tensor t = empty(meta.sizes, meta.dtype);
  for (size_t k = 0; k < xs.size(); ++k) {
    int64_t v = xs[k].i;
    switch (meta.dtype) {
      case DType::i64: t.data<int64_t>()[k] = v; break;
      case DType::i32: t.data<int32_t>()[k] = static_cast<int32_t>(v); break;
      case DType::i16: t.data<int16_t>()[k] = static_cast<int16_t>(v); break;
      case DType::i8: t.data<int8_t>()[k] = static_cast<int8_t>(v); break;
      default: static_cast<uint8_t*>(t.raw_data())[k] = static_cast<uint8_t>(v); break;  // u8, bool
    }
  }
  return t;
}

}  // namespace nabla::graph
