// CPU kernels of max_pool2d, avg_pool2d, avg_pool2d_backward, the adaptive pools and
// the 1-D pools (the 2-D ones on a unit height; max_pool2d_backward is in
// max_pool_backward.cpp): plain loops over
// (plane, output row), OpenMP across them. Window rules follow PyTorch's CPU kernels
// exactly (which padded cells count, which index wins a tie, NaN propagation), since
// the reference cases compare against them.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <type_traits>
#include <vector>

#ifdef __AVX2__
#include <immintrin.h>
#endif

#include "tensor/cpu/conv_geometry.hpp"
#include "tensor/cpu/copy.hpp"
#include "tensor/cpu/fused.hpp"
#include "tensor/cpu/kernels.hpp"
#include "tensor/cpu/parallel.hpp"
#include "tensor/cpu/transpose8.hpp"

namespace nabla::cpu {

namespace {

// Calls body(plane, oh) for every output row, in parallel when there is enough work.
template <class Body>
void for_rows(const PoolGeometry& g, int64_t work_per_row, Body&& body) {
  int64_t rows = g.planes * g.OH;
  parallel_for(
      0, rows, rows * work_per_row,
      [&](int64_t lo, int64_t hi) {
        for (int64_t r = lo; r < hi; ++r) body(r / g.OH, r % g.OH);
      });
}

// As PyTorch: each window starts at -inf on its first in-range cell, takes strictly
// greater values (the first of equal maxima wins), and lets a NaN win. Integer windows
// (u8, i8: quantized activations) start at the type's lowest value, so a window of
// lowest values keeps its first cell too.
template <class T>
T lowest_for_max() {
  if constexpr (std::numeric_limits<T>::has_infinity) return -std::numeric_limits<T>::infinity();
  else return std::numeric_limits<T>::lowest();
}

// `idx` null: an inference graph reads no indices (OpDef::optional_outputs), so none
// are computed or stored; the values are the same.
template <class T>
void max_pool(const T* x, T* y, int64_t* idx, const PoolGeometry& g) {
  // Locals, not g's fields: stores to idx (int64_t) could alias those, forcing reloads.
  const int64_t W = g.W, dh = g.dilation.h, dw = g.dilation.w;
  for_rows(g, g.OW * g.kernel.h * g.kernel.w, [&](int64_t plane, int64_t oh) {
    const T* in = x + plane * g.H * W;
    int64_t h_start = oh * g.stride.h - g.pad.h;
    int64_t h0 = first_tap(h_start, dh), h1 = std::min(h_start + (g.kernel.h - 1) * dh + 1, g.H);
    for (int64_t ow = 0; ow < g.OW; ++ow) {
      int64_t w_start = ow * g.stride.w - g.pad.w;
      int64_t w0 = first_tap(w_start, dw), w1 = std::min(w_start + (g.kernel.w - 1) * dw + 1, W);
      int64_t best = h0 * W + w0;
      T best_val = lowest_for_max<T>();
      // Branch-free (selects, not jumps): on real data the comparison is
      // unpredictable, and mispredictions cost more than the reads.
      for (int64_t ih = h0; ih < h1; ih += dh)
        for (int64_t iw = w0; iw < w1; iw += dw) {
          T v = in[ih * W + iw];
          bool take = (v > best_val) | (v != v);  // v != v: NaN
          best_val = take ? v : best_val;
          best = take ? ih * W + iw : best;
        }
      int64_t o = (plane * g.OH + oh) * g.OW + ow;
      y[o] = best_val;
      if (idx) idx[o] = best;
    }
  });
}

// The CNN's usual pool (2x2 window, stride 2, no padding or dilation, no partial
// window): each output row reads two whole input rows, with no clipping, so the
// window is four straight-line selects. Same rules as max_pool: the first cell
// starts the window, a strictly greater value or any NaN takes over.
}  // namespace

bool is_plain_2x2(const PoolGeometry& g) {
  return g.kernel.h == 2 && g.kernel.w == 2 && g.stride.h == 2 && g.stride.w == 2 && g.pad.h == 0 && g.pad.w == 0 &&
         g.dilation.h == 1 && g.dilation.w == 1 && g.OH == g.H / 2 && g.OW == g.W / 2;
}

// 8x8 transposes, the last columns of a row through a masked store.
void write_planar(const float* tile, int64_t OW, int64_t block, int64_t count, float* out, int64_t channel_stride) {
  int64_t i = 0;
#ifdef __AVX2__
  for (; i + 8 <= count; i += 8)
    for (int64_t ow = 0; ow < OW; ow += 8) {
      __m256 r[8];
      for (int k = 0; k < 8; ++k) r[k] = _mm256_loadu_ps(tile + (ow + k) * block + i);
      transpose8(r);
      int64_t cols = std::min<int64_t>(8, OW - ow);
      __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(cols)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
      for (int j = 0; j < 8; ++j) _mm256_maskstore_ps(out + (i + j) * channel_stride + ow, mask, r[j]);
    }
#endif
  for (; i < count; ++i)
    for (int64_t ow = 0; ow < OW; ++ow) out[i * channel_stride + ow] = tile[ow * block + i];
}

namespace {

// The window maxima of one output row of a channel block: tile[ow * block + i] for
// channel i of the block, from input rows r0 and r1 (each [W][block]); with `codes`,
// also each window's code (Note [Window codes]) in the same place.
void blocked_window_max(const float* r0, const float* r1, int64_t OW, int64_t block, float* tile,
                        uint8_t* codes = nullptr) {
  for (int64_t ow = 0; ow < OW; ++ow) {
    const float* cells[4] = {r0 + 2 * ow * block, r0 + (2 * ow + 1) * block, r1 + 2 * ow * block,
                             r1 + (2 * ow + 1) * block};
    float* t = tile + ow * block;
    int64_t i = 0;
#ifdef __AVX2__
    for (; i + 8 <= block; i += 8) {
      __m256 best = _mm256_loadu_ps(cells[0] + i);
      __m256i code = _mm256_setzero_si256();  // the winner's cell
      for (int k = 1; k < 4; ++k) {
        __m256 v = _mm256_loadu_ps(cells[k] + i);
        __m256 take = _mm256_or_ps(_mm256_cmp_ps(v, best, _CMP_GT_OQ), _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
        best = _mm256_blendv_ps(best, v, take);
        code = _mm256_blendv_epi8(code, _mm256_set1_epi32(k), _mm256_castps_si256(take));
      }
      _mm256_storeu_ps(t + i, best);
      if (!codes) continue;
      __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(code), _mm256_extracti128_si256(code, 1));
      _mm_storel_epi64(reinterpret_cast<__m128i*>(codes + ow * block + i), _mm_packus_epi16(words, words));
    }
#endif
    for (; i < block; ++i) {
      float best = cells[0][i];
      uint8_t code = 0;
      for (uint8_t k = 1; k < 4; ++k) {
        float v = cells[k][i];
        bool take = (v > best) | (v != v);
        best = take ? v : best;
        code = take ? k : code;
      }
      t[i] = best;
      if (codes) codes[ow * block + i] = code;
    }
  }
}

}  // namespace

namespace {

// Copies between planar [N, C, H, W] f32 or i64 and nChw16c: to_blocked, or back.
void copy_blocked16(const Tensor& planar, void* blocked, bool to_blocked) {
  const Shape& s = planar.sizes();
  int64_t N = s[0], C = s[1], HW = s[2] * s[3];
  auto copy = [&](auto* flat, auto* block) {
    for (int64_t n = 0; n < N; ++n)
      for (int64_t c = 0; c < C; ++c)
        for (int64_t p = 0; p < HW; ++p) {
          auto& b = block[((n * (C / 16) + c / 16) * HW + p) * 16 + c % 16];
          auto& f = flat[(n * C + c) * HW + p];
          if (to_blocked) b = f; else f = b;
        }
  };
  if (planar.dtype() == DType::i64)
    return copy(static_cast<int64_t*>(planar.raw_data()), static_cast<int64_t*>(blocked));
  copy(static_cast<float*>(planar.raw_data()), static_cast<float*>(blocked));
}

}  // namespace

// A planar f32 or i64 [N, C, H, W] (C a multiple of 16) into nChw16c at `to`: where a
// pooled result that hands on blocked was pooled planar (another pool, another
// layout).
void write_blocked16(const Tensor& planar, void* to) { copy_blocked16(contiguous_raw(planar), to, true); }

void read_blocked16(const void* from, const Tensor& planar) {
  copy_blocked16(planar, const_cast<void*>(from), false);
}

uint8_t* window_codes(const Tensor& indices) { return static_cast<uint8_t*>(indices.raw_data()); }

namespace {

// Calls f(planar flat index, its window's first cell, its code's byte) for every
// window of planar indices [N, C, OH, OW] and their nChw16c codes at `codes`.
template <class F>
void for_window_codes(const Tensor& planar_indices, int64_t W, uint8_t* codes, F&& f) {
  const Shape& s = planar_indices.sizes();
  const int64_t N = s[0], C = s[1], OH = s[2], OW = s[3];
  int64_t* flat = static_cast<int64_t*>(planar_indices.raw_data());
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow)
          f(flat[((n * C + c) * OH + oh) * OW + ow], 2 * oh * W + 2 * ow,
            codes[(((n * (C / 16) + c / 16) * OH + oh) * OW + ow) * 16 + c % 16]);
}

}  // namespace

void write_window_codes16(const Tensor& planar_indices, int64_t W, uint8_t* to) {
  for_window_codes(contiguous_raw(planar_indices), W, to, [W](int64_t index, int64_t first, uint8_t& code) {
    const int64_t offset = index - first;
    code = offset == 0 ? 0 : offset == 1 ? 1 : offset == W ? 2 : offset == W + 1 ? 3 : 0xff;
  });
}

void read_window_codes16(const uint8_t* from, int64_t W, const Tensor& planar_indices) {
  for_window_codes(planar_indices, W, const_cast<uint8_t*>(from), [W](int64_t& index, int64_t first, uint8_t code) {
    index = code > 3 ? -1 : first + (code >> 1) * W + (code & 1);
  });
}

// One output row of one channel block at a time: the windows' maxima over the block's
// channels at once (contiguous, so they vectorize), into a [OW][block] tile, then
// transposed into the channels' planar rows. The rules of max_pool_2x2: the first
// cell starts, a strictly greater value or a NaN takes over. Window codes only with
// blocked_out (Note [Window codes]), laid out as y.
void max_pool_2x2_channel_blocked(const float* x, float* y, int64_t N, int64_t C, int64_t H, int64_t W,
                                  int64_t block, bool blocked_out, uint8_t* codes) {
  const int64_t OH = H / 2, OW = W / 2, blocks = (C + block - 1) / block;
  PoolGeometry rows_of{};  // for_rows's split: "planes" of (image, channel block)
  rows_of.planes = N * blocks;
  rows_of.OH = OH;
  for_rows(rows_of, OW * block * 4, [=](int64_t plane, int64_t oh) {
    thread_local std::vector<float> tile;
    tile.resize(static_cast<size_t>((OW + 7) / 8 * 8 * block));
    const float* r0 = x + (plane * H + 2 * oh) * W * block;
    if (blocked_out) {  // the tile is the output row itself
      int64_t at = (plane * OH + oh) * OW * block;
      blocked_window_max(r0, r0 + W * block, OW, block, y + at, codes ? codes + at : nullptr);
      return;
    }
    blocked_window_max(r0, r0 + W * block, OW, block, tile.data());
    const int64_t n = plane / blocks, first = plane % blocks * block;
    write_planar(tile.data(), OW, block, std::min(block, C - first), y + ((n * C + first) * OH + oh) * OW, OH * OW);
  });
}

namespace {

#ifdef __AVX2__
// 16 windows of a u8 or i8 row pair at once (the int8 CNN's pools): each 16-bit lane
// holds one window's top-left (even byte) or top-right (odd byte) cell, widened
// (zero- or sign-extended), so signed 16-bit compares order both types. The same
// rule as the scalar loop: a strictly greater cell takes over, in the order 0, 1,
// W, W + 1. `top` and `bottom` hold the 32 cells of windows ow .. ow + 15.
template <class T>
void max_pool_2x2_int8_block(const T* top_cells, const T* bottom_cells, T* y_out, int64_t* idx_out, int64_t W,
                             int64_t first_index) {
  static_assert(sizeof(T) == 1);
  constexpr bool is_signed = std::is_signed_v<T>;
  auto even = [](__m256i v) {
    return is_signed ? _mm256_srai_epi16(_mm256_slli_epi16(v, 8), 8) : _mm256_and_si256(v, _mm256_set1_epi16(0xFF));
  };
  auto odd = [](__m256i v) { return is_signed ? _mm256_srai_epi16(v, 8) : _mm256_srli_epi16(v, 8); };
  __m256i top = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(top_cells));
  __m256i bottom = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bottom_cells));
  __m256i best = even(top), code = _mm256_setzero_si256();  // code: 0, 1, 2 (W), 3 (W + 1)
  auto consider = [&](__m256i v, int16_t c) {
    __m256i take = _mm256_cmpgt_epi16(v, best);
    best = _mm256_blendv_epi8(best, v, take);
    code = _mm256_blendv_epi8(code, _mm256_set1_epi16(c), take);
  };
  consider(odd(top), 1);
  consider(even(bottom), 2);
  consider(odd(bottom), 3);
  // 16 lanes of 16 bits to 16 bytes (packs works within 128-bit halves: reorder).
  __m256i packed = is_signed ? _mm256_packs_epi16(best, best) : _mm256_packus_epi16(best, best);
  packed = _mm256_permute4x64_epi64(packed, 0b11011000);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(y_out), _mm256_castsi256_si128(packed));
  if (!idx_out) return;
  // Indices: first_index + 2 * k + (code & 1) + (code >> 1) * W, 4 at a time.
  alignas(32) int16_t codes[16];
  _mm256_store_si256(reinterpret_cast<__m256i*>(codes), code);
  const __m256i W64 = _mm256_set1_epi64x(W), one64 = _mm256_set1_epi64x(1);
  for (int k = 0; k < 16; k += 4) {
    __m256i c = _mm256_cvtepu16_epi64(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(codes + k)));
    __m256i base = _mm256_add_epi64(_mm256_set1_epi64x(first_index + 2 * k), _mm256_set_epi64x(6, 4, 2, 0));
    __m256i below = _mm256_sub_epi64(_mm256_setzero_si256(), _mm256_srli_epi64(c, 1));  // 0 or all ones
    __m256i at = _mm256_add_epi64(base, _mm256_add_epi64(_mm256_and_si256(c, one64), _mm256_and_si256(below, W64)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(idx_out + k), at);
  }
}

// The first n of 8 lanes (0..8) as a mask for maskload and maskstore.
inline __m256i first_lanes(int n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// 8 f32 windows at once: the cells of windows ow .. ow + 7 (16 of the top row, 16 of
// the bottom) split into even and odd columns, then the scalar loop's comparisons
// (strictly greater, or a NaN) lane by lane, so both paths give the same values and
// indices. The scalar loop cost the CNN's max pools more than its convolutions. The
// last windows of a row (`valid` < 8: the CNN's rows are 14 and 7 windows) load and
// store through masks, never past the row.
inline void max_pool_2x2_f32_block(const float* top_cells, const float* bottom_cells, float* y_out, int64_t* idx_out,
                                   int64_t W, int64_t first_index, int valid = 8) {
  const __m256i lo_mask = first_lanes(2 * valid), hi_mask = first_lanes(2 * valid - 8);
  auto split = [&](const float* p, __m256* even, __m256* odd) {
    __m256 lo = valid == 8 ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, lo_mask);
    __m256 hi = valid == 8 ? _mm256_loadu_ps(p + 8) : _mm256_maskload_ps(p + 8, hi_mask);
    // shuffle_ps works within 128-bit halves: [0 2 8 10 | 4 6 12 14], put back in order.
    auto in_order = [](__m256 v) { return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(v), 0b11011000)); };
    *even = in_order(_mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0)));
    *odd = in_order(_mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(3, 1, 3, 1)));
  };
  __m256 top_even, top_odd, bottom_even, bottom_odd;
  split(top_cells, &top_even, &top_odd);
  split(bottom_cells, &bottom_even, &bottom_odd);
  __m256 best = top_even;
  __m256 code = _mm256_setzero_ps();  // the lanes hold 0, 1, 2 (W), 3 (W + 1) as int32 bits
  auto consider = [&](__m256 v, int32_t c) {
    __m256 take = _mm256_or_ps(_mm256_cmp_ps(v, best, _CMP_GT_OQ), _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    best = _mm256_blendv_ps(best, v, take);
    code = _mm256_blendv_ps(code, _mm256_castsi256_ps(_mm256_set1_epi32(c)), take);
  };
  consider(top_odd, 1);
  consider(bottom_even, 2);
  consider(bottom_odd, 3);
  if (valid == 8) _mm256_storeu_ps(y_out, best);
  else _mm256_maskstore_ps(y_out, first_lanes(valid), best);
  if (!idx_out) return;
  // Indices: first_index + 2 * k + (code & 1) + (code >> 1) * W, 4 at a time.
  __m256i codes = _mm256_castps_si256(code);
  const __m256i W64 = _mm256_set1_epi64x(W), one64 = _mm256_set1_epi64x(1);
  for (int half = 0; half < 2; ++half) {
    int lanes = std::min(std::max(valid - 4 * half, 0), 4);
    if (lanes == 0) break;
    __m256i c = _mm256_cvtepi32_epi64(half ? _mm256_extracti128_si256(codes, 1) : _mm256_castsi256_si128(codes));
    __m256i base = _mm256_add_epi64(_mm256_set1_epi64x(first_index + 8 * half), _mm256_set_epi64x(6, 4, 2, 0));
    __m256i below = _mm256_sub_epi64(_mm256_setzero_si256(), _mm256_srli_epi64(c, 1));  // 0 or all ones
    __m256i at = _mm256_add_epi64(base, _mm256_add_epi64(_mm256_and_si256(c, one64), _mm256_and_si256(below, W64)));
    auto* to = reinterpret_cast<long long*>(idx_out + 4 * half);
    if (lanes == 4) _mm256_storeu_si256(reinterpret_cast<__m256i*>(to), at);
    else _mm256_maskstore_epi64(to, _mm256_cvtepi32_epi64(_mm_cmpgt_epi32(_mm_set1_epi32(lanes), _mm_setr_epi32(0, 1, 2, 3))), at);
  }
}

// A whole f32 output row: blocks of 8 windows, the last few through masks.
inline void max_pool_2x2_f32_row(const float* r0, const float* r1, float* y_row, int64_t* idx_row, int64_t OW,
                                 int64_t W, int64_t row_start) {
  for (int64_t ow = 0; ow < OW; ow += 8)
    max_pool_2x2_f32_block(r0 + 2 * ow, r1 + 2 * ow, y_row + ow, idx_row ? idx_row + ow : nullptr, W,
                           row_start + 2 * ow, static_cast<int>(std::min<int64_t>(8, OW - ow)));
}

// A whole u8 or i8 output row: blocks of kWindows (16) windows, then the last few
// through buffers (reading past the row could leave the tensor).
template <int kWindows, class T, class Block>
void max_pool_2x2_row(const T* r0, const T* r1, T* y_row, int64_t* idx_row, int64_t OW, int64_t W, int64_t row_start,
                      Block block) {
  int64_t ow = 0;
  for (; ow + kWindows <= OW; ow += kWindows)
    block(r0 + 2 * ow, r1 + 2 * ow, y_row + ow, idx_row ? idx_row + ow : nullptr, W, row_start + 2 * ow);
  if (ow == OW) return;
  const size_t rest = static_cast<size_t>(OW - ow);
  T top[2 * kWindows] = {}, bottom[2 * kWindows] = {}, y_rest[kWindows];
  int64_t idx_rest[kWindows];
  std::memcpy(top, r0 + 2 * ow, 2 * rest * sizeof(T));
  std::memcpy(bottom, r1 + 2 * ow, 2 * rest * sizeof(T));
  block(top, bottom, y_rest, idx_row ? idx_rest : nullptr, W, row_start + 2 * ow);
  std::memcpy(y_row + ow, y_rest, rest * sizeof(T));
  if (idx_row) std::memcpy(idx_row + ow, idx_rest, rest * sizeof(int64_t));
}
#endif

template <class T>
void max_pool_2x2(const T* x, T* y, int64_t* idx, const PoolGeometry& g) {
  const int64_t W = g.W, OW = g.OW, OH = g.OH, plane_size = g.H * g.W;
  // Captured by value: stores through idx (int64_t*) could alias captured references,
  // which would reload every size from memory after each store.
  for_rows(g, OW * 4, [=](int64_t plane, int64_t oh) {
    const T* r0 = x + plane * plane_size + 2 * oh * W;
    const T* r1 = r0 + W;
    T* y_row = y + (plane * OH + oh) * OW;
    int64_t* idx_row = idx ? idx + (plane * OH + oh) * OW : nullptr;
    const int64_t row_start = 2 * oh * W;
#ifdef __AVX2__
    if constexpr (sizeof(T) == 1)
      return max_pool_2x2_row<16>(r0, r1, y_row, idx_row, OW, W, row_start, max_pool_2x2_int8_block<T>);
    if constexpr (std::is_same_v<T, float>)
      return max_pool_2x2_f32_row(r0, r1, y_row, idx_row, OW, W, row_start);
#endif
    for (int64_t ow = 0; ow < OW; ++ow) {
      // The cell offsets within the window: 0, 1 (top row), W, W + 1 (bottom row).
      T best_val = r0[2 * ow];
      int64_t best = 0;
      // Masks, not selects: GCC turned `take ? offset : best` into a branch, which
      // real data mispredicts (it cost 3x).
      auto consider = [&](T v, int64_t offset) {
        bool take = (v > best_val) | (v != v);  // v != v: NaN
        best_val = take ? v : best_val;
        best ^= (best ^ offset) & -static_cast<int64_t>(take);
      };
      consider(r0[2 * ow + 1], 1);
      consider(r1[2 * ow], W);
      consider(r1[2 * ow + 1], W + 1);
      y_row[ow] = best_val;
      if (idx_row) idx_row[ow] = row_start + 2 * ow + best;
    }
  });
}

template <class T>
void avg_pool(const T* x, T* y, const PoolGeometry& g, bool count_include_pad) {
  for_rows(g, g.OW * g.kernel.h * g.kernel.w, [&](int64_t plane, int64_t oh) {
    const T* in = x + plane * g.H * g.W;
    for (int64_t ow = 0; ow < g.OW; ++ow) {
      AvgWindow win = avg_window(g, oh, ow, count_include_pad);
      T total = 0;
      for (int64_t ih = win.h0; ih < win.h1; ++ih)
        for (int64_t iw = win.w0; iw < win.w1; ++iw) total += in[ih * g.W + iw];
      y[(plane * g.OH + oh) * g.OW + ow] = win.divisor ? total / static_cast<T>(win.divisor) : T(0);
    }
  });
}

// The adjoint of avg_pool: each output's gradient spreads evenly over its window.
// Windows overlap across output rows, so the parallel split is by plane only.
template <class T>
void avg_pool_backward(const T* gy, T* dx, const PoolGeometry& g, bool count_include_pad) {
  int64_t work = g.planes * g.OH * g.OW * g.kernel.h * g.kernel.w;
  parallel_for(
      0, g.planes, work,
      [&](int64_t lo, int64_t hi) {
        for (int64_t plane = lo; plane < hi; ++plane) {
          T* out = dx + plane * g.H * g.W;
          std::fill(out, out + g.H * g.W, T(0));
          for (int64_t oh = 0; oh < g.OH; ++oh)
            for (int64_t ow = 0; ow < g.OW; ++ow) {
              AvgWindow win = avg_window(g, oh, ow, count_include_pad);
              if (!win.divisor) continue;
              T share = gy[(plane * g.OH + oh) * g.OW + ow] / static_cast<T>(win.divisor);
              for (int64_t ih = win.h0; ih < win.h1; ++ih)
                for (int64_t iw = win.w0; iw < win.w1; ++iw) out[ih * g.W + iw] += share;
            }
        }
      });
}

}  // namespace

void max_pool2d(const TensorList& in, const Attrs& attrs, TensorList& out) {
  PoolGeometry g = pool_geometry(in[0].sizes(), attrs, "max_pool2d");
  if (out[0].numel() == 0) return;
  Tensor x = contiguous_raw(in[0]);
  int64_t* idx = out[1].defined() ? static_cast<int64_t*>(out[1].raw_data()) : nullptr;
  auto run = [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x_data = static_cast<const T*>(x.raw_data());
    T* y_data = static_cast<T*>(out[0].raw_data());
    if (is_plain_2x2(g)) return max_pool_2x2(x_data, y_data, idx, g);
    max_pool(x_data, y_data, idx, g);
  };
  // u8 and i8: quantized activations, whose max pool is the quantized max pool (the
  // quantization is monotone, so it commutes with max; passes/lower_quant.cpp).
  if (out[0].dtype() == DType::u8) return run(TypeTag<uint8_t>{});
  if (out[0].dtype() == DType::i8) return run(TypeTag<int8_t>{});
  visit_float(out[0].dtype(), "max_pool2d", run);
}

void avg_pool2d(const TensorList& in, const Attrs& attrs, TensorList& out) {
  PoolGeometry g = pool_geometry(in[0].sizes(), attrs, "avg_pool2d");
  if (out[0].numel() == 0) return;
  Tensor x = contiguous_raw(in[0]);
  visit_float(out[0].dtype(), "avg_pool2d", [&](auto tag) {
    using T = typename decltype(tag)::type;
    avg_pool(static_cast<const T*>(x.raw_data()), static_cast<T*>(out[0].raw_data()), g, attrs.b("count_include_pad"));
  });
}

// in: grad [N, C, OH, OW]; out: the input's gradient, shaped by attribute input_shape.
void avg_pool2d_backward(const TensorList& in, const Attrs& attrs, TensorList& out) {
  const Tensor& dx = out[0];
  PoolGeometry g = pool_geometry(dx.sizes(), attrs, "avg_pool2d_backward");
  if (dx.numel() == 0) return;
  Tensor gy = contiguous_raw(in[0]);
  visit_float(dx.dtype(), "avg_pool2d_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    avg_pool_backward(static_cast<const T*>(gy.raw_data()), static_cast<T*>(dx.raw_data()), g,
                      attrs.b("count_include_pad"));
  });
}

void max_pool1d(const TensorList& in, const Attrs& attrs, TensorList& out) {
  on_unit_height<max_pool2d>(in, attrs, out, "max_pool1d");
}

void avg_pool1d(const TensorList& in, const Attrs& attrs, TensorList& out) {
  on_unit_height<avg_pool2d>(in, attrs, out, "avg_pool1d");
}

namespace {

// Calls body(plane, oh, h0, h1) for every output row of an adaptive pool.
template <class Body>
void for_adaptive_rows(const AdaptiveGeometry& g, Body&& body) {
  int64_t rows = g.planes * g.OH;
  int64_t window = (g.H / std::max<int64_t>(g.OH, 1) + 1) * (g.W / std::max<int64_t>(g.OW, 1) + 1);
  parallel_for(
      0, rows, rows * g.OW * window,
      [&](int64_t lo, int64_t hi) {
        for (int64_t r = lo; r < hi; ++r) {
          int64_t oh = r % g.OH;
          body(r / g.OH, oh, adaptive_start(oh, g.H, g.OH), adaptive_end(oh, g.H, g.OH));
        }
      });
}

template <class T>
void adaptive_avg(const T* x, T* y, const AdaptiveGeometry& g) {
  for_adaptive_rows(g, [&](int64_t plane, int64_t oh, int64_t h0, int64_t h1) {
    const T* in = x + plane * g.H * g.W;
    for (int64_t ow = 0; ow < g.OW; ++ow) {
      int64_t w0 = adaptive_start(ow, g.W, g.OW), w1 = adaptive_end(ow, g.W, g.OW);
      T total = 0;
      for (int64_t ih = h0; ih < h1; ++ih)
        for (int64_t iw = w0; iw < w1; ++iw) total += in[ih * g.W + iw];
      y[(plane * g.OH + oh) * g.OW + ow] = total / static_cast<T>((h1 - h0) * (w1 - w0));
    }
  });
}

// The max_pool rules: the first of equal maxima wins, a NaN wins; indices flat over
// each H*W plane.
template <class T>
void adaptive_max(const T* x, T* y, int64_t* idx, const AdaptiveGeometry& g) {
  for_adaptive_rows(g, [&](int64_t plane, int64_t oh, int64_t h0, int64_t h1) {
    const T* in = x + plane * g.H * g.W;
    for (int64_t ow = 0; ow < g.OW; ++ow) {
      int64_t w0 = adaptive_start(ow, g.W, g.OW), w1 = adaptive_end(ow, g.W, g.OW);
      int64_t best = h0 * g.W + w0;
      T best_val = lowest_for_max<T>();
      for (int64_t ih = h0; ih < h1; ++ih)
        for (int64_t iw = w0; iw < w1; ++iw) {
          T v = in[ih * g.W + iw];
          bool take = (v > best_val) | (v != v);
          best_val = take ? v : best_val;
          best = take ? ih * g.W + iw : best;
        }
      int64_t o = (plane * g.OH + oh) * g.OW + ow;
      y[o] = best_val;
      idx[o] = best;
    }
  });
}

}  // namespace

void adaptive_avg_pool2d(const TensorList& in, const Attrs& attrs, TensorList& out) {
  AdaptiveGeometry g = adaptive_geometry(in[0].sizes(), attrs, "adaptive_avg_pool2d");
  if (out[0].numel() == 0) return;
  Tensor x = contiguous_raw(in[0]);
  visit_float(out[0].dtype(), "adaptive_avg_pool2d", [&](auto tag) {
    using T = typename decltype(tag)::type;
    adaptive_avg(static_cast<const T*>(x.raw_data()), static_cast<T*>(out[0].raw_data()), g);
  });
}

void adaptive_avg_pool1d(const TensorList& in, const Attrs& attrs, TensorList& out) {
  on_unit_height<adaptive_avg_pool2d>(in, attrs, out, "adaptive_avg_pool1d");
}

void adaptive_max_pool2d(const TensorList& in, const Attrs& attrs, TensorList& out) {
  AdaptiveGeometry g = adaptive_geometry(in[0].sizes(), attrs, "adaptive_max_pool2d");
  if (out[0].numel() == 0) return;
  Tensor x = contiguous_raw(in[0]);
  visit_float(out[0].dtype(), "adaptive_max_pool2d", [&](auto tag) {
    using T = typename decltype(tag)::type;
    adaptive_max(static_cast<const T*>(x.raw_data()), static_cast<T*>(out[0].raw_data()),
                 static_cast<int64_t*>(out[1].raw_data()), g);
  });
}

}  // namespace nabla::cpu
