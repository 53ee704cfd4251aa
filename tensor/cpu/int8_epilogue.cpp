// The epilogue of the int8 linear and convolution (Note [Int8 epilogue] in
// quantized.hpp): s32 sums to f32, or to requantized u8, per output channel.
//
// The per-channel part (scale, bias) runs along a row of channels; the rest (relu,
// requantization) is the same for every element. A linear's output is already rows
// of channels. A convolution's sums come from oneDNN in NHWC and its output is NCHW:
// blocks of 8 positions x 8 channels are scaled along the channels, transposed in
// registers, and stored as 8 channels x 8 positions, so the one pass that reads the
// sums also writes the output in nabla's layout.
#include <immintrin.h>

#include <algorithm>
#include <cmath>

#include "tensor/cpu/int8_primitive.hpp"

namespace nabla::cpu::int8 {

namespace {

// Keeps the compiler from fusing the multiply into the following add (GCC contracts
// a * b + c into an FMA by default in GNU mode): the product is rounded to f32 before
// the bias is added, as PyTorch computes it, so requantized outputs round the same.
inline float rounded(float v) {
  asm("" : "+x"(v));
  return v;
}

// v = float(sum) * (input_scale * weight_scale[c]) + bias[c] for one element.
inline float affine(int32_t sum, const EpiloguePointers& e, int64_t c) {
  float v = rounded(static_cast<float>(sum) * rounded(e.input_scale * e.weight_scale[c]));
  return e.bias ? v + e.bias[c] : v;
}

// relu, then f32 or u8 (clamp(nearbyint(v / output_scale) + zero_point, 0, 255):
// clamped before rounding, the same since the bounds are integers). A NaN (from a NaN
// bias) becomes 0 under relu and the lowest value when requantized, as in finish8.
inline void finish(float v, const EpiloguePointers& e, void* out, int64_t i) {
  if (e.relu && !(v > 0.0f)) v = 0.0f;
  if (e.output_scale <= 0) {
    static_cast<float*>(out)[i] = v;
    return;
  }
  float lo = static_cast<float>(-e.output_zero_point), hi = static_cast<float>(255 - e.output_zero_point);
  float t = std::min(std::max(lo, v / e.output_scale), hi);
  static_cast<uint8_t*>(out)[i] = static_cast<uint8_t>(static_cast<int32_t>(std::nearbyint(t)) + e.output_zero_point);
}

#ifdef __AVX2__
inline __m256 rounded(__m256 v) {
  asm("" : "+x"(v));
  return v;
}

// The per-channel scale and bias of channels [c, c + 8).
struct ChannelBlock {
  __m256 scale, bias;
  bool has_bias;
};
inline ChannelBlock channel_block(const EpiloguePointers& e, int64_t c) {
  __m256 scale = rounded(_mm256_mul_ps(_mm256_set1_ps(e.input_scale), _mm256_loadu_ps(e.weight_scale + c)));
  return {scale, e.bias ? _mm256_loadu_ps(e.bias + c) : _mm256_setzero_ps(), e.bias != nullptr};
}

inline __m256 affine8(const int32_t* sums, const ChannelBlock& b) {
  __m256 v = rounded(_mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(sums))),
                                   b.scale));
  return b.has_bias ? _mm256_add_ps(v, b.bias) : v;
}

// finish() for 8 elements stored at out + i. cvtps_epi32 rounds half to even (the
// default rounding mode), as nearbyint does; max_ps(v, lo) gives lo for a NaN v.
inline void finish8(__m256 v, const EpiloguePointers& e, void* out, int64_t i) {
  if (e.relu) v = _mm256_max_ps(v, _mm256_setzero_ps());
  if (e.output_scale <= 0) return _mm256_storeu_ps(static_cast<float*>(out) + i, v);
  __m256 lo = _mm256_set1_ps(static_cast<float>(-e.output_zero_point));
  __m256 hi = _mm256_set1_ps(static_cast<float>(255 - e.output_zero_point));
  __m256 t = _mm256_min_ps(_mm256_max_ps(_mm256_div_ps(v, _mm256_set1_ps(e.output_scale)), lo), hi);
  __m256i q = _mm256_add_epi32(_mm256_cvtps_epi32(t), _mm256_set1_epi32(e.output_zero_point));
  __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));  // values fit
  _mm_storel_epi64(reinterpret_cast<__m128i*>(static_cast<uint8_t*>(out) + i), _mm_packus_epi16(words, words));
}

// r[j][k] -> r[k][j] for an 8 x 8 block of floats.
inline void transpose8(__m256 r[8]) {
  __m256 t[8], s[8];
  for (int j = 0; j < 8; j += 2) {
    t[j] = _mm256_unpacklo_ps(r[j], r[j + 1]);
    t[j + 1] = _mm256_unpackhi_ps(r[j], r[j + 1]);
  }
  for (int j = 0; j < 8; j += 4) {
    s[j] = _mm256_shuffle_ps(t[j], t[j + 2], _MM_SHUFFLE(1, 0, 1, 0));
    s[j + 1] = _mm256_shuffle_ps(t[j], t[j + 2], _MM_SHUFFLE(3, 2, 3, 2));
    s[j + 2] = _mm256_shuffle_ps(t[j + 1], t[j + 3], _MM_SHUFFLE(1, 0, 1, 0));
    s[j + 3] = _mm256_shuffle_ps(t[j + 1], t[j + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int j = 0; j < 4; ++j) {
    r[j] = _mm256_permute2f128_ps(s[j], s[j + 4], 0x20);
    r[j + 4] = _mm256_permute2f128_ps(s[j], s[j + 4], 0x31);
  }
}
#endif

}  // namespace

EpiloguePointers pointers(const Int8Epilogue& e) {
  NABLA_CHECK(e.weight_scale.dtype() == DType::f32 && e.weight_scale.is_contiguous(),
              "int8 epilogue: expected contiguous f32 weight scales");
  NABLA_CHECK(!e.bias.defined() || (e.bias.dtype() == DType::f32 && e.bias.is_contiguous() &&
                                    e.bias.numel() == e.weight_scale.numel()),
              "int8 epilogue: expected a contiguous f32 bias with one value per output channel");
  return {e.input_scale,
          static_cast<const float*>(e.weight_scale.raw_data()),
          e.bias.defined() ? static_cast<const float*>(e.bias.raw_data()) : nullptr,
          e.relu,
          e.output_scale,
          e.output_zero_point};
}

void epilogue_rows(const int32_t* sums, int64_t rows, int64_t channels, const EpiloguePointers& e, void* out) {
  for (int64_t r = 0; r < rows; ++r) {
    int64_t c = 0, base = r * channels;
#ifdef __AVX2__
    for (; c + 8 <= channels; c += 8) finish8(affine8(sums + base + c, channel_block(e, c)), e, out, base + c);
#endif
    for (; c < channels; ++c) finish(affine(sums[base + c], e, c), e, out, base + c);
  }
}

void epilogue_nhwc_to_nchw(const int32_t* sums, int64_t positions, int64_t channels, const EpiloguePointers& e,
                           void* out) {
  int64_t p8 = 0, c8 = 0;  // the positions and channels the 8 x 8 blocks cover
#ifdef __AVX2__
  p8 = positions / 8 * 8, c8 = channels / 8 * 8;
  for (int64_t c = 0; c < c8; c += 8) {
    ChannelBlock b = channel_block(e, c);
    for (int64_t p = 0; p < p8; p += 8) {
      __m256 block[8];
      for (int j = 0; j < 8; ++j) block[j] = affine8(sums + (p + j) * channels + c, b);
      transpose8(block);
      for (int k = 0; k < 8; ++k) finish8(block[k], e, out, (c + k) * positions + p);
    }
  }
#endif
  // The rest: positions past the blocks (all channels), channels past them (the
  // blocks' positions).
  for (int64_t p = p8; p < positions; ++p)
    for (int64_t c = 0; c < channels; ++c) finish(affine(sums[p * channels + c], e, c), e, out, c * positions + p);
  for (int64_t c = c8; c < channels; ++c)
    for (int64_t p = 0; p < p8; ++p) finish(affine(sums[p * channels + c], e, c), e, out, c * positions + p);
}

}  // namespace nabla::cpu::int8
