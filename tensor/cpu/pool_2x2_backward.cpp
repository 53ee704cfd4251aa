// The plain 2x2 max pool's gradient (2x2 windows, stride 2, no padding: the CNN's
// pool) on one planar f32 plane, in AVX-512 registers.
//
// Note [The pool's gradient by windows]
// max_pool2d_backward scatters: it zeroes the plane, then adds each window's gradient
// at its index, one scalar at a time (about eight instructions a window). For
// the plain 2x2 pool every index names one of its own window's four cells, and the
// windows tile the plane, so each cell gets at most one gradient. Here 16 windows at a
// time: their indices, as offsets in their windows (the 64-bit difference narrowed
// with saturation, so a wild index cannot alias a cell), select each gradient into
// one of four vectors (top-left, top-right, bottom-left, bottom-right); two
// interleaves give the two rows' 32 cells, stored whole, zeros included. No fill pass,
// no scalar stores. A gradient lands as 0 + g, as the scatter's does (so -0 becomes
// +0 there too, and the result is the scatter's bit for bit). An index outside its
// window (hand-written indices; the general op allows any cell of the plane) makes the
// plane decline, and the caller scatters it the general way. bench.py
// max_pool_backward (the CNN's first pool, [64, 32, 28, 28]): 0.118 -> 0.106 ms, about
// the 2-thread in-cache rate once the output's write-allocate reads are counted.
#include <algorithm>
#include <cstdint>

#include "tensor/cpu/avx512.hpp"
#include "tensor/cpu/fused.hpp"
#include "tensor/cpu/kernels.hpp"

namespace nabla::cpu {

#if defined(__x86_64__)

namespace {

constexpr int64_t kLanes = 16;

// The first `count` (<= 16) lanes.
NABLA_AVX512 inline __mmask16 first_lanes(int64_t count) {
  return count >= kLanes ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << count) - 1u);
}

// Row `row` of dx (W cells) from cells 2 pw0 .. 2 pw0 + 2 count - 1: lanes of `left`
// and `right` interleaved (left[0], right[0], left[1], ...).
NABLA_AVX512 inline void store_pairs(float* row, int64_t pw0, int64_t count, __m512 left, __m512 right) {
  const __m512i first_half = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const __m512i second_half = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  _mm512_mask_storeu_ps(row + 2 * pw0, first_lanes(2 * count), _mm512_permutex2var_ps(left, first_half, right));
  if (count > kLanes / 2)
    _mm512_mask_storeu_ps(row + 2 * pw0 + kLanes, first_lanes(2 * count - kLanes),
                          _mm512_permutex2var_ps(left, second_half, right));
}

// The gradients g in the lanes `where`, 0 elsewhere, each as 0 + g (the scatter's sum).
NABLA_AVX512 inline __m512 landed(__mmask16 where, __m512 g) {
  return _mm512_add_ps(_mm512_setzero_ps(), _mm512_maskz_mov_ps(where, g));
}

// Pooled row ph: dx rows 2 ph and 2 ph + 1, up to column 2 OW. Returns the lanes whose
// index was outside its window.
NABLA_AVX512 __mmask16 window_row(const float* grad, const int64_t* indices, int64_t ph, int64_t W, int64_t OW,
                                  float* dx) {
  const __m512i lane_first_cell = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i below = _mm512_set1_epi32(static_cast<int32_t>(W)), below_right = _mm512_set1_epi32(static_cast<int32_t>(W + 1));
  __mmask16 stray = 0;
  for (int64_t pw0 = 0; pw0 < OW; pw0 += kLanes) {
    const int64_t count = std::min(kLanes, OW - pw0);
    const __mmask16 lanes = first_lanes(count);
    const int64_t at = ph * OW + pw0;
    const __m512 g = _mm512_maskz_loadu_ps(lanes, grad + at);
    // Each lane's index less its window's first cell, 2 ph W + 2 (pw0 + lane); the
    // first cell fits 32 bits (the plane does: the caller checked).
    __m256i low = _mm512_cvtsepi64_epi32(_mm512_maskz_loadu_epi64(static_cast<__mmask8>(lanes), indices + at));
    __m256i high = _mm512_cvtsepi64_epi32(_mm512_maskz_loadu_epi64(static_cast<__mmask8>(lanes >> 8), indices + at + 8));
    __m512i first = _mm512_add_epi32(_mm512_set1_epi32(static_cast<int32_t>(2 * ph * W + 2 * pw0)), lane_first_cell);
    __m512i offset = _mm512_sub_epi32(_mm512_inserti64x4(_mm512_castsi256_si512(low), high, 1), first);
    __mmask16 top_left = _mm512_cmpeq_epi32_mask(offset, _mm512_setzero_si512());
    __mmask16 top_right = _mm512_cmpeq_epi32_mask(offset, _mm512_set1_epi32(1));
    __mmask16 bottom_left = _mm512_cmpeq_epi32_mask(offset, below);
    __mmask16 bottom_right = _mm512_cmpeq_epi32_mask(offset, below_right);
    stray |= static_cast<__mmask16>(lanes & ~(top_left | top_right | bottom_left | bottom_right));
    float* top = dx + 2 * ph * W;
    store_pairs(top, pw0, count, landed(top_left, g), landed(top_right, g));
    store_pairs(top + W, pw0, count, landed(bottom_left, g), landed(bottom_right, g));
  }
  return stray;
}

}  // namespace

bool max_pool_2x2_backward_plane(const float* grad, const int64_t* indices, int64_t H, int64_t W, float* dx) {
  const int64_t OH = H / 2, OW = W / 2;
  // Rows of fewer than 12 windows leave most lanes empty, and the scalar scatter was
  // faster there. Windows against scatter, 2 threads: OW 7 ([64, 64, 14, 14]) 93
  // against 64 us, OW 10 70 against 61; OW 12 85 against 107, OW 14 107 against 143,
  // OW 16 55 against 90.
  if (!blocked_activations() || OW < 12 || H * W >= (int64_t{1} << 31)) return false;
  __mmask16 stray = 0;
  for (int64_t ph = 0; ph < OH; ++ph) {
    stray |= window_row(grad, indices, ph, W, OW, dx);
    if (W % 2) dx[2 * ph * W + W - 1] = dx[(2 * ph + 1) * W + W - 1] = 0.0f;  // the last column, in no window
  }
  std::fill(dx + 2 * OH * W, dx + H * W, 0.0f);  // the last row, in no window
  return stray == 0;
}

#else

bool max_pool_2x2_backward_plane(const float*, const int64_t*, int64_t, int64_t, float*) { return false; }

#endif

}  // namespace nabla::cpu
