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
#include <type_traits>

#include "tensor/cpu/int8_primitive.hpp"
#include "tensor/cpu/transpose8.hpp"

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

// relu, then f32 or u8 (clamp(nearbyint(v * (1 / output_scale)) + zero_point, 0, 255):
// clamped before rounding, the same since the bounds are integers). A NaN (from a NaN
// bias) becomes 0 under relu and the lowest value when requantized, as in Finish8.
inline void finish(float v, const EpiloguePointers& e, void* out, int64_t i) {
  if (e.relu && !(v > 0.0f)) v = 0.0f;
  if (e.output_scale <= 0) {
    static_cast<float*>(out)[i] = v;
    return;
  }
  float lo = static_cast<float>(-e.output_zero_point), hi = static_cast<float>(255 - e.output_zero_point);
  float t = std::min(std::max(lo, v * (1.0f / e.output_scale)), hi);
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
};
inline ChannelBlock channel_block(const EpiloguePointers& e, int64_t c) {
  __m256 scale = rounded(_mm256_mul_ps(_mm256_set1_ps(e.input_scale), _mm256_loadu_ps(e.weight_scale + c)));
  return {scale, e.bias ? _mm256_loadu_ps(e.bias + c) : _mm256_setzero_ps()};
}

// float(sum) * scale + bias for 8 channels (adding a zero bias changes nothing: the
// product is never -0 where it matters, since -0 + 0 = +0 is still zero).
inline __m256 affine8(const int32_t* sums, const ChannelBlock& b) {
  __m256 v = rounded(_mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(sums))),
                                   b.scale));
  return _mm256_add_ps(v, b.bias);
}

// finish() for 8 elements, its constants in registers; Out is float or uint8_t.
// cvtps_epi32 rounds half to even (the default rounding mode), as nearbyint does;
// max_ps(v, x) gives x for a NaN v.
template <class Out, bool kRelu>
struct Finish8 {
  __m256 inv_output_scale, lo, hi;
  __m256i zero_point;

  explicit Finish8(const EpiloguePointers& e)
      : inv_output_scale(_mm256_set1_ps(1.0f / e.output_scale)),
        lo(_mm256_set1_ps(static_cast<float>(-e.output_zero_point))),
        hi(_mm256_set1_ps(static_cast<float>(255 - e.output_zero_point))),
        zero_point(_mm256_set1_epi32(e.output_zero_point)) {}

  __m256 relu(__m256 v) const { return kRelu ? _mm256_max_ps(v, _mm256_setzero_ps()) : v; }

  // The u8 values as 8 int32 in [0, 255].
  __m256i quantized(__m256 v) const {
    __m256 t = _mm256_min_ps(_mm256_max_ps(_mm256_mul_ps(relu(v), inv_output_scale), lo), hi);
    return _mm256_add_epi32(_mm256_cvtps_epi32(t), zero_point);
  }

  void operator()(__m256 v, Out* out) const {
    if constexpr (std::is_same_v<Out, float>) {
      _mm256_storeu_ps(out, relu(v));
    } else {
      __m256i q = quantized(v);
      __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));  // values fit
      _mm_storel_epi64(reinterpret_cast<__m128i*>(out), _mm_packus_epi16(words, words));
    }
  }
};

// The start of each block of 8 along n >= 8 values: 0, 8, ..., and n - 8 for the
// last, which overlaps its neighbour when 8 does not divide n (its values are
// written twice, the same both times) rather than leaving a scalar tail.
template <class F>
void for_blocks_of_8(int64_t n, F&& f) {
  for (int64_t i = 0; i + 8 <= n; i += 8) f(i);
  if (n % 8) f(n - 8);
}

// The vector part of epilogue_rows (channels >= 8).
template <class Out, bool kRelu>
void rows8(const int32_t* sums, int64_t rows, int64_t channels, const EpiloguePointers& e, Out* out) {
  Finish8<Out, kRelu> finish(e);
  for (int64_t r = 0; r < rows; ++r)
    for_blocks_of_8(channels, [&](int64_t c) {
      finish(affine8(sums + r * channels + c, channel_block(e, c)), out + r * channels + c);
    });
}

// The scale and bias of channel blocks [0, c8) (up to 512 channels kept in an array).
class ChannelBlocks {
 public:
  ChannelBlocks(const EpiloguePointers& e, int64_t c8) : e_(e) {
    for (int64_t c = 0; c < std::min(c8, 8 * kMax); c += 8) cached_[c / 8] = channel_block(e, c);
  }
  ChannelBlock operator()(int64_t c) const { return c < 8 * kMax ? cached_[c / 8] : channel_block(e_, c); }

 private:
  static constexpr int64_t kMax = 64;
  const EpiloguePointers& e_;
  ChannelBlock cached_[kMax];
};

// Bytes 0-7 of v to a, bytes 8-15 to b: both through _mm_storel_epi64, an unaligned
// store. (_mm_storeh_pd stores through a double*, which must be 8-byte aligned, and
// an output row of the u8 tensor need not be: UBSan's finding in the stdlib tests.)
inline void store_halves(__m128i v, uint8_t* a, uint8_t* b) {
  _mm_storel_epi64(reinterpret_cast<__m128i*>(a), v);
  _mm_storel_epi64(reinterpret_cast<__m128i*>(b), _mm_unpackhi_epi64(v, v));
}

// One 8 x 8 block to u8: the 8 positions' rows of 8 channels are requantized, packed
// to bytes (rows 0-3 in one register, 4-7 in another: per 128-bit lane, channels 0-3
// then 4-7 of each row) and transposed as bytes (a shuffle within each 4 x 4 group,
// then interleaving the two registers' dwords): each channel's 8 positions are then 8
// consecutive bytes. Twelve shuffles for 64 values, where transposing the floats
// first and packing each channel's 8 took 48.
inline void block_to_u8(const __m256i q[8], uint8_t* out, int64_t positions) {
  const __m256i to_columns = _mm256_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15,  //
                                              0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  __m256i rows03 = _mm256_packus_epi16(_mm256_packs_epi32(q[0], q[1]), _mm256_packs_epi32(q[2], q[3]));
  __m256i rows47 = _mm256_packus_epi16(_mm256_packs_epi32(q[4], q[5]), _mm256_packs_epi32(q[6], q[7]));
  rows03 = _mm256_shuffle_epi8(rows03, to_columns);
  rows47 = _mm256_shuffle_epi8(rows47, to_columns);
  __m256i c0145 = _mm256_unpacklo_epi32(rows03, rows47), c2367 = _mm256_unpackhi_epi32(rows03, rows47);
  auto row = [&](int k) { return out + k * positions; };
  store_halves(_mm256_castsi256_si128(c0145), row(0), row(1));
  store_halves(_mm256_castsi256_si128(c2367), row(2), row(3));
  store_halves(_mm256_extracti128_si256(c0145, 1), row(4), row(5));
  store_halves(_mm256_extracti128_si256(c2367, 1), row(6), row(7));
}

// The vector part of epilogue_nhwc_to_nchw (positions and channels >= 8): 8 x 8
// blocks, positions outer so that the sums are read in order; the 8 output rows of
// a block's channels stay in cache from one block of positions to the next.
template <class Out, bool kRelu>
void blocks8(const int32_t* sums, int64_t positions, int64_t channels, const EpiloguePointers& e, Out* out) {
  Finish8<Out, kRelu> finish(e);
  ChannelBlocks blocks(e, channels / 8 * 8);
  for_blocks_of_8(positions, [&](int64_t p) {
    for_blocks_of_8(channels, [&](int64_t c) {
      ChannelBlock b = c % 8 == 0 ? blocks(c) : channel_block(e, c);
      if constexpr (std::is_same_v<Out, float>) {
        __m256 block[8];
        for (int j = 0; j < 8; ++j) block[j] = affine8(sums + (p + j) * channels + c, b);
        transpose8(block);
        for (int k = 0; k < 8; ++k) finish(block[k], out + (c + k) * positions + p);
      } else {
        __m256i q[8];
        for (int j = 0; j < 8; ++j) q[j] = finish.quantized(affine8(sums + (p + j) * channels + c, b));
        block_to_u8(q, out + c * positions + p, positions);
      }
    });
  });
}

// Calls f(Out*, relu tag) with e's output type and relu as compile-time choices.
template <class F>
void dispatch(const EpiloguePointers& e, void* out, F&& f) {
  bool u8 = e.output_scale > 0;
  if (u8 && e.relu) return f(static_cast<uint8_t*>(out), std::true_type{});
  if (u8) return f(static_cast<uint8_t*>(out), std::false_type{});
  if (e.relu) return f(static_cast<float*>(out), std::true_type{});
  f(static_cast<float*>(out), std::false_type{});
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
#ifdef __AVX2__
  if (channels >= 8) {
    return dispatch(e, out, [&](auto* o, auto relu) {
      rows8<std::remove_pointer_t<decltype(o)>, decltype(relu)::value>(sums, rows, channels, e, o);
    });
  }
#endif
  for (int64_t i = 0; i < rows * channels; ++i) finish(affine(sums[i], e, i % channels), e, out, i);
}

void epilogue_nhwc_to_nchw(const int32_t* sums, int64_t positions, int64_t channels, const EpiloguePointers& e,
                           void* out) {
#ifdef __AVX2__
  if (positions >= 8 && channels >= 8) {
    return dispatch(e, out, [&](auto* o, auto relu) {
      blocks8<std::remove_pointer_t<decltype(o)>, decltype(relu)::value>(sums, positions, channels, e, o);
    });
  }
#endif
  for (int64_t p = 0; p < positions; ++p)
    for (int64_t c = 0; c < channels; ++c) finish(affine(sums[p * channels + c], e, c), e, out, c * positions + p);
}

}  // namespace nabla::cpu::int8
