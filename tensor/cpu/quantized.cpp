// CPU kernels of the quantization rows (autograd/ops/quant.cpp): quantize and
// dequantize per tensor and per channel, fake quantization with its mask, the int8
// linear rows, and the helpers of quantized.hpp. Rounding and clamping follow
// Note [Affine quantization] in quantized.hpp.
#include "tensor/cpu/quantized.hpp"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "tensor/cpu/copy.hpp"
#include "tensor/cpu/kernels.hpp"
#include "tensor/cpu/parallel.hpp"

namespace nabla::cpu {

namespace {

// PyTorch's SMALL_SCALE_THRESHOLD: smaller scales are raised to it (and the range widened).
constexpr float kSmallScale = 6.1e-5f;

// The integer range of a quantized dtype.
void dtype_range(DType t, int64_t* lo, int64_t* hi) {
  switch (t) {
    case DType::u8: *lo = 0, *hi = 255; return;
    case DType::i8: *lo = -128, *hi = 127; return;
    case DType::i32: *lo = std::numeric_limits<int32_t>::min(), *hi = std::numeric_limits<int32_t>::max(); return;
    default: throw Error(std::string("quantize: expected a dtype of u8, i8 or i32, got ") + dtype_name(t));
  }
}

// Calls f(TypeTag<Q>) for the quantized dtypes.
template <class F>
void visit_quantized(DType t, F&& f) {
  switch (t) {
    case DType::u8: return f(TypeTag<uint8_t>{});
    case DType::i8: return f(TypeTag<int8_t>{});
    case DType::i32: return f(TypeTag<int32_t>{});
    default: throw Error(std::string("quantized data must be u8, i8 or i32, got ") + dtype_name(t));
  }
}

// clamp(nearbyint(x * inv_scale) + zero_point, lo, hi), clamped before rounding (the
// same result: lo - zero_point and hi - zero_point are integers), so that NaN and
// values beyond the int64 range stay defined (NaN goes to lo, as x86's conversion
// to int32 does in fbgemm).
template <class X>
inline int64_t quantize_value(X x, X inv_scale, int64_t zero_point, int64_t lo, int64_t hi) {
  X t = x * inv_scale;
  X tlo = static_cast<X>(lo - zero_point), thi = static_cast<X>(hi - zero_point);
  if (!(t >= tlo)) t = tlo;
  if (t > thi) t = thi;
  return static_cast<int64_t>(std::nearbyint(t)) + zero_point;
}

// A tensor seen as [outer, channels, inner] around `axis` (contiguous).
struct ChannelView {
  int64_t outer = 1, channels = 1, inner = 1;
};
ChannelView channel_view(const Tensor& t, int64_t axis) {
  ChannelView v;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (d < axis) v.outer *= t.sizes()[d];
    if (d > axis) v.inner *= t.sizes()[d];
  }
  v.channels = t.dim() == 0 ? 1 : t.sizes()[axis];
  return v;
}

std::vector<double> values_f64(const Tensor& t) { return to_double_vector(t); }
std::vector<int64_t> values_i64(const Tensor& t) {
  std::vector<double> d = to_double_vector(t);
  return std::vector<int64_t>(d.begin(), d.end());
}

// Runs f(i, c) for every element i of a [outer, channels, inner] view with its channel c.
template <class F>
void for_each_channel(const ChannelView& v, int64_t numel, F&& f) {
  parallel_for(0, v.outer * v.channels, numel, [&](int64_t lo, int64_t hi) {
    for (int64_t oc = lo; oc < hi; ++oc) {
      int64_t c = oc % v.channels;
      for (int64_t j = 0; j < v.inner; ++j) f(oc * v.inner + j, c);
    }
  });
}

// Per-tensor and per-channel quantization differ only in where (scale, zero_point)
// come from: per_channel(c) gives channel c's.
struct ChannelParams {
  std::vector<double> scales;
  std::vector<int64_t> zero_points;
};

ChannelParams channel_params(const Tensor& scales, const Tensor& zero_points, const char* op) {
  ChannelParams p{values_f64(scales), values_i64(zero_points)};
  for (size_t c = 0; c < p.scales.size(); ++c)
    if (!(p.scales[c] > 0) || !std::isfinite(p.scales[c]))
      throw Error(std::string(op) + ": argument 'scales' must hold positive finite values, element " +
                  std::to_string(c) + " is " + std::to_string(p.scales[c]));
  return p;
}

template <class X, class Q>
void quantize_loop(const Tensor& x, const Tensor& q, const ChannelView& v, const ChannelParams& p, DType qt) {
  int64_t lo, hi;
  dtype_range(qt, &lo, &hi);
  const X* in = static_cast<const X*>(x.raw_data());
  Q* out = static_cast<Q*>(q.raw_data());
  std::vector<X> inv(p.scales.size());
  // 1 / scale in f32, as fbgemm computes it (Note [Affine quantization]).
  for (size_t c = 0; c < inv.size(); ++c) inv[c] = static_cast<X>(1.0f / static_cast<float>(p.scales[c]));
  for_each_channel(v, x.numel(), [&](int64_t i, int64_t c) {
    out[i] = static_cast<Q>(quantize_value<X>(in[i], inv[c], p.zero_points[c], lo, hi));
  });
}

void quantize_any(const Tensor& input, const Tensor& q, const ChannelView& v, const ChannelParams& p) {
  DType xt = input.dtype() == DType::f64 ? DType::f64 : DType::f32;
  Tensor x = contiguous_raw(as_dtype(input, xt));
  visit_float(xt, "quantize", [&](auto xtag) {
    using X = typename decltype(xtag)::type;
    visit_quantized(q.dtype(), [&](auto qtag) {
      using Q = typename decltype(qtag)::type;
      quantize_loop<X, Q>(x, q, v, p, q.dtype());
    });
  });
}

// out = (q - zero_point) * scale, computed in double and rounded once to out's dtype
// (PyTorch's per-channel dequantize; its per-tensor one on x86 multiplies in f32,
// which can differ in the last bit).
void dequantize_any(const Tensor& input, const Tensor& out, const ChannelView& v, const ChannelParams& p) {
  Tensor q = contiguous_raw(input);
  visit_float(out.dtype(), "dequantize", [&](auto otag) {
    using O = typename decltype(otag)::type;
    visit_quantized(q.dtype(), [&](auto qtag) {
      using Q = typename decltype(qtag)::type;
      const Q* in = static_cast<const Q*>(q.raw_data());
      O* o = static_cast<O*>(out.raw_data());
      for_each_channel(v, q.numel(), [&](int64_t i, int64_t c) {
        o[i] = static_cast<O>((static_cast<double>(in[i]) - static_cast<double>(p.zero_points[c])) * p.scales[c]);
      });
    });
  });
}

// PyTorch's fake quantization with its mask (fake_quantize_*_cachemask): the value
// quantized and dequantized in x's dtype, and whether it rounded inside [qmin, qmax].
void fake_quantize_any(const Tensor& input, const Attrs& a, TensorList& out, const ChannelView& v,
                       const ChannelParams& p) {
  int64_t qmin = a.i("quant_min"), qmax = a.i("quant_max");
  Tensor x = contiguous_raw(input);
  bool* mask = static_cast<bool*>(out[1].raw_data());
  visit_float(x.dtype(), "fake_quantize", [&](auto tag) {
    using X = typename decltype(tag)::type;
    const X* in = static_cast<const X*>(x.raw_data());
    X* o = static_cast<X*>(out[0].raw_data());
    std::vector<X> inv(p.scales.size()), scale(p.scales.size());
    for (size_t c = 0; c < inv.size(); ++c) {
      float s = static_cast<float>(p.scales[c]);  // PyTorch takes the scale as f32
      scale[c] = static_cast<X>(s);
      inv[c] = static_cast<X>(1.0f / s);
    }
    // The unclamped integer, clamped only to stay defined: far outside [qmin, qmax].
    int64_t wide_lo = qmin - (int64_t(1) << 40), wide_hi = qmax + (int64_t(1) << 40);
    for_each_channel(v, x.numel(), [&](int64_t i, int64_t c) {
      int64_t zp = p.zero_points[c];
      int64_t qv = quantize_value<X>(in[i], inv[c], zp, wide_lo, wide_hi);
      mask[i] = qmin <= qv && qv <= qmax;
      o[i] = static_cast<X>(std::clamp(qv, qmin, qmax) - zp) * scale[c];
    });
  });
}

ChannelParams tensor_params(const Attrs& a) {
  return {{a.f("scale")}, {a.i("zero_point")}};
}

// [rows, K] views of a linear's input and output.
Tensor rows_view(const Tensor& t, int64_t cols) {
  int64_t rows = cols ? t.numel() / cols : 0;
  return make_view(t, {rows, cols}, {cols, 1}, t.offset());
}

// The epilogue of the int8 rows (Note [Int8 epilogue]) from their attributes:
// input_scale, and output_scale, output_zero_point and relu where the row has them.
Int8Epilogue epilogue_of(const Attrs& a, const Tensor& weight_scales, const Tensor& bias) {
  Int8Epilogue e;
  e.input_scale = static_cast<float>(a.f("input_scale"));
  e.weight_scale = contiguous_raw(as_dtype(weight_scales, DType::f32));
  if (bias.defined()) e.bias = contiguous_raw(as_dtype(bias, DType::f32));
  e.relu = a.b("relu");
  e.output_scale = static_cast<float>(a.f("output_scale"));
  e.output_zero_point = static_cast<int32_t>(a.i("output_zero_point"));
  return e;
}

}  // namespace

QuantParams choose_quant_params(float min, float max, int32_t qmin, int32_t qmax, bool reduce_range) {
  if (reduce_range) {
    qmin /= 2;
    qmax /= 2;
  }
  min = std::min(min, 0.0f);
  max = std::max(max, 0.0f);
  double scale = (static_cast<double>(max) - min) / (qmax - qmin);
  if (static_cast<float>(scale) == 0.0f || std::isinf(1.0f / static_cast<float>(scale))) scale = 0.1;
  if (scale < kSmallScale) {
    float original = static_cast<float>(scale);
    scale = kSmallScale;
    if (min == 0.0f) {
      max = kSmallScale * (qmax - qmin);
    } else if (max == 0.0f) {
      min = -kSmallScale * (qmax - qmin);
    } else {
      float amplifier = kSmallScale / original;
      min *= amplifier;
      max *= amplifier;
    }
  }
  // The zero point from whichever end adds the smaller terms (less rounding error).
  double from_min = qmin - min / scale, from_max = qmax - max / scale;
  double error_min = std::abs(qmin) + std::abs(min / scale), error_max = std::abs(qmax) + std::abs(max / scale);
  double initial = error_min < error_max ? from_min : from_max;
  int32_t zero_point = initial < qmin   ? qmin
                       : initial > qmax ? qmax
                                        : static_cast<int32_t>(std::nearbyint(initial));
  return {static_cast<float>(scale), zero_point};
}

void min_max_f32(const float* p, int64_t n, float* min, float* max) {
  int64_t i = 0;
  float lo = INFINITY, hi = -INFINITY;
#ifdef __AVX2__
  // Four independent accumulators: one would wait on min_ps's latency every step.
  __m256 vlo[4], vhi[4];
  for (int k = 0; k < 4; ++k) vlo[k] = _mm256_set1_ps(INFINITY), vhi[k] = _mm256_set1_ps(-INFINITY);
  for (; i + 32 <= n; i += 32)
    for (int k = 0; k < 4; ++k) {
      __m256 v = _mm256_loadu_ps(p + i + 8 * k);
      vlo[k] = _mm256_min_ps(vlo[k], v);
      vhi[k] = _mm256_max_ps(vhi[k], v);
    }
  alignas(32) float l[8], h[8];
  _mm256_store_ps(l, _mm256_min_ps(_mm256_min_ps(vlo[0], vlo[1]), _mm256_min_ps(vlo[2], vlo[3])));
  _mm256_store_ps(h, _mm256_max_ps(_mm256_max_ps(vhi[0], vhi[1]), _mm256_max_ps(vhi[2], vhi[3])));
  for (int k = 0; k < 8; ++k) lo = std::min(lo, l[k]), hi = std::max(hi, h[k]);
#endif
  for (; i < n; ++i) lo = std::min(lo, p[i]), hi = std::max(hi, p[i]);
  *min = lo;
  *max = hi;
}

namespace {

// 32 floats of `in` quantized into 32 bytes of `out` (AVX2): scale, clamp to
// [tlo, thi] (NaN goes to tlo: max_ps returns its second operand for a NaN), round
// half to even (cvtps_epi32 under the default rounding mode), add the zero point,
// then pack 32-bit to 8-bit (the values already fit, so the packs do not saturate).
#ifdef __AVX2__
template <bool is_unsigned>
inline void quantize_32(const float* in, void* out, __m256 inv, __m256 tlo, __m256 thi, __m256i zp) {
  __m256i q[4];
  for (int k = 0; k < 4; ++k) {
    __m256 v = _mm256_mul_ps(_mm256_loadu_ps(in + 8 * k), inv);
    v = _mm256_min_ps(_mm256_max_ps(v, tlo), thi);
    q[k] = _mm256_add_epi32(_mm256_cvtps_epi32(v), zp);
  }
  __m256i a = _mm256_packs_epi32(q[0], q[1]), b = _mm256_packs_epi32(q[2], q[3]);
  __m256i bytes = is_unsigned ? _mm256_packus_epi16(a, b) : _mm256_packs_epi16(a, b);
  // The packs work within 128-bit lanes: put the 4-byte groups back in order.
  bytes = _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
  _mm256_storeu_si256(static_cast<__m256i*>(out), bytes);
}
#endif

template <class Q>
void quantize_f32_to(const float* in, Q* out, int64_t n, QuantParams qp, int64_t lo, int64_t hi) {
  float inv = 1.0f / qp.scale;
  float tlo = static_cast<float>(lo - qp.zero_point), thi = static_cast<float>(hi - qp.zero_point);
  int64_t i = 0;
#ifdef __AVX2__
  __m256 vinv = _mm256_set1_ps(inv), vlo = _mm256_set1_ps(tlo), vhi = _mm256_set1_ps(thi);
  __m256i vzp = _mm256_set1_epi32(qp.zero_point);
  for (; i + 32 <= n; i += 32) quantize_32<std::is_same_v<Q, uint8_t>>(in + i, out + i, vinv, vlo, vhi, vzp);
#endif
  for (; i < n; ++i) {
    float t = std::min(std::max(tlo, in[i] * inv), thi);  // NaN goes to tlo
    out[i] = static_cast<Q>(static_cast<int32_t>(std::nearbyint(t)) + qp.zero_point);
  }
}

}  // namespace

void quantize_f32(const float* x, uint8_t* q, int64_t n, QuantParams p) { quantize_f32_to(x, q, n, p, 0, 255); }

void quantize_f32(const Tensor& x, QuantParams qp, const Tensor& q) {
  int64_t lo, hi;
  dtype_range(q.dtype(), &lo, &hi);
  const float* in = static_cast<const float*>(x.raw_data());
  if (q.dtype() == DType::u8) return quantize_f32_to(in, static_cast<uint8_t*>(q.raw_data()), x.numel(), qp, lo, hi);
  if (q.dtype() == DType::i8) return quantize_f32_to(in, static_cast<int8_t*>(q.raw_data()), x.numel(), qp, lo, hi);
  throw Error(std::string("quantize_f32: expected u8 or i8, got ") + dtype_name(q.dtype()));
}

// ---- kernels of the rows -------------------------------------------------------------

void quantize_per_tensor(const TensorList& in, const Attrs& a, TensorList& out) {
  bool fast = in[0].dtype() == DType::f32 && (out[0].dtype() == DType::u8 || out[0].dtype() == DType::i8);
  if (fast) {  // the vectorized loop of dynamic quantization, with the same results
    QuantParams qp{static_cast<float>(a.f("scale")), static_cast<int32_t>(a.i("zero_point"))};
    return quantize_f32(contiguous_raw(in[0]), qp, out[0]);
  }
  quantize_any(in[0], out[0], ChannelView{1, 1, in[0].numel()}, tensor_params(a));
}

void quantize_per_channel(const TensorList& in, const Attrs& a, TensorList& out) {
  int64_t axis = wrap_dim(a.i("axis"), in[0].dim(), "quantize_per_channel");
  quantize_any(in[0], out[0], channel_view(in[0], axis), channel_params(in[1], in[2], "quantize_per_channel"));
}

void dequantize_per_tensor(const TensorList& in, const Attrs& a, TensorList& out) {
  dequantize_any(in[0], out[0], ChannelView{1, 1, in[0].numel()}, tensor_params(a));
}

void dequantize_per_channel(const TensorList& in, const Attrs& a, TensorList& out) {
  int64_t axis = wrap_dim(a.i("axis"), in[0].dim(), "dequantize_per_channel");
  dequantize_any(in[0], out[0], channel_view(in[0], axis), channel_params(in[1], in[2], "dequantize_per_channel"));
}

void fake_quantize_per_tensor(const TensorList& in, const Attrs& a, TensorList& out) {
  fake_quantize_any(in[0], a, out, ChannelView{1, 1, in[0].numel()}, tensor_params(a));
}

void fake_quantize_per_channel(const TensorList& in, const Attrs& a, TensorList& out) {
  int64_t axis = wrap_dim(a.i("axis"), in[0].dim(), "fake_quantize_per_channel");
  fake_quantize_any(in[0], a, out, channel_view(in[0], axis),
                    channel_params(in[1], in[2], "fake_quantize_per_channel"));
}

void quantized_linear(const TensorList& in, const Attrs& a, TensorList& out) {
  int64_t K = in[1].sizes()[1], N = in[1].sizes()[0];
  int32_t zero_point = static_cast<int32_t>(a.i("input_zero_point"));
  int8_linear(rows_view(contiguous_raw(in[0]), K), zero_point, contiguous_raw(in[1]), epilogue_of(a, in[2], in[3]),
              rows_view(out[0], N));
}

void quantized_conv2d(const TensorList& in, const Attrs& a, TensorList& out) {
  ConvGeometry g = conv_geometry(in[0].sizes(), in[1].sizes(), a, "quantized_conv2d");
  int32_t zero_point = static_cast<int32_t>(a.i("input_zero_point"));
  int8_conv2d(contiguous_raw(in[0]), zero_point, contiguous_raw(in[1]), g, epilogue_of(a, in[2], in[3]), out[0]);
}

// PyTorch's quantized::linear_dynamic: the batch's min and max choose the activation's
// scale and zero point (u8), the activation is quantized, then the int8 GEMM.
void dynamic_quantized_linear(const TensorList& in, const Attrs& a, TensorList& out) {
  int64_t K = in[1].sizes()[1], N = in[1].sizes()[0];
  Tensor x = contiguous_raw(as_dtype(in[0], DType::f32));
  Tensor bias = in[3].defined() ? contiguous_raw(as_dtype(in[3], DType::f32)) : Tensor();
  dynamic_int8_linear(rows_view(x, K), contiguous_raw(in[1]), contiguous_raw(as_dtype(in[2], DType::f32)), bias,
                      a.b("reduce_range"), rows_view(out[0], N));
}

}  // namespace nabla::cpu
