// The CPU kernel of the max pools' gradient, max_pool2d_backward (max_pool1d's too, on
// a unit height): each pooled gradient scattered to its index, plane by plane, with
// nChw16c on either side where a graph's block_layout asks for it (the plain 2x2
// pool's nChw16c indices as window codes, window_codes=true: Note [Window codes] in
// kernels.hpp); the plain 2x2 pool by windows in AVX-512.
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
#include <functional>
#include <type_traits>

#include "tensor/cpu/avx512.hpp"
#include "tensor/cpu/copy.hpp"
#include "tensor/cpu/fused.hpp"
#include "tensor/cpu/kernels.hpp"
#include "tensor/cpu/parallel.hpp"

namespace nabla::cpu {

namespace {

#if defined(__x86_64__)

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

// One (n, c) plane of the plain 2x2 pool's gradient, f32 planar: dx [H][W] from grad
// and indices [H / 2][W / 2], every cell written. false, with the plane half written,
// where an index is not in its own window (the caller then scatters the plane the
// general way), rows have fewer than 12 windows, or the CPU has no AVX-512.
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

// One block of 16 channels of the plain 2x2 pool's gradient from window codes (Note
// [Window codes]), every operand nChw16c, f32: a window's 16 gradients are one vector,
// its 16 codes four lane masks, and each of its four cells is stored whole, the
// gradient where the code names it and 0 elsewhere (as 0 + g, the scatter's sum). No
// fill pass: a cell in no window (the last row or column of an odd H or W) is stored
// 0. H x W, the block's planes; PH x PW = H / 2 x W / 2, its windows. Returns the
// codes above 3, whose gradient lands nowhere. bench.py relu_pool_backward_step
// ([64, 32, 28, 28]): the scalar scatter's 0.27 -> 0.08 ms.
NABLA_AVX512 int64_t scatter_codes_blocked16(float* block_dx, const float* block_grad, const uint8_t* block_codes,
                                             int64_t H, int64_t W, int64_t PH, int64_t PW) {
  const __m512 zero = _mm512_setzero_ps();
  int64_t outside = 0;
  for (int64_t ph = 0; ph < PH; ++ph) {
    float* top = block_dx + 2 * ph * W * kLanes;
    float* bottom = top + W * kLanes;
    for (int64_t pw = 0; pw < PW; ++pw) {
      const int64_t e = (ph * PW + pw) * kLanes;
      const __m512 g = _mm512_loadu_ps(block_grad + e);
      const __m512i code = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(block_codes + e)));
      const __mmask16 top_left = _mm512_cmpeq_epi32_mask(code, _mm512_setzero_si512());
      const __mmask16 top_right = _mm512_cmpeq_epi32_mask(code, _mm512_set1_epi32(1));
      const __mmask16 bottom_left = _mm512_cmpeq_epi32_mask(code, _mm512_set1_epi32(2));
      const __mmask16 bottom_right = _mm512_cmpeq_epi32_mask(code, _mm512_set1_epi32(3));
      outside += _mm_popcnt_u32(static_cast<__mmask16>(~(top_left | top_right | bottom_left | bottom_right)));
      _mm512_storeu_ps(top + 2 * pw * kLanes, landed(top_left, g));
      _mm512_storeu_ps(top + (2 * pw + 1) * kLanes, landed(top_right, g));
      _mm512_storeu_ps(bottom + 2 * pw * kLanes, landed(bottom_left, g));
      _mm512_storeu_ps(bottom + (2 * pw + 1) * kLanes, landed(bottom_right, g));
    }
    for (int64_t w = 2 * PW; w < W; ++w) {  // the last column of an odd W
      _mm512_storeu_ps(top + w * kLanes, zero);
      _mm512_storeu_ps(bottom + w * kLanes, zero);
    }
  }
  for (int64_t cell = 2 * PH * W; cell < H * W; ++cell) _mm512_storeu_ps(block_dx + cell * kLanes, zero);
  return outside;
}

#else

bool max_pool_2x2_backward_plane(const float*, const int64_t*, int64_t, int64_t, float*) { return false; }

#endif

// Scatters one plane's gradient: plane[idx[k]] += grad[k] after zeroing the plane
// (while it is in cache). Overlapping windows that share a maximum add in order.
// Returns how many indices fell outside the plane (skipped, never written).
template <class T>
int64_t scatter_plane(T* plane, int64_t plane_size, const T* grad, const int64_t* idx, int64_t count) {
  std::fill(plane, plane + plane_size, T(0));
  int64_t outside = 0;
  for (int64_t k = 0; k < count; ++k) {
    auto j = static_cast<uint64_t>(idx[k]);  // a negative index wraps far above the plane
    if (j < static_cast<uint64_t>(plane_size))
      plane[j] += grad[k];
    else
      ++outside;
  }
  return outside;
}

[[noreturn]] void fail_outside_plane(const Tensor& idx, int64_t plane_size) {
  const int64_t* p = idx.data<int64_t>();
  int64_t k = 0;
  while (k < idx.numel() && p[k] >= 0 && p[k] < plane_size) ++k;
  throw Error("max_pool2d_backward: argument 'indices' holds " + std::to_string(k < idx.numel() ? p[k] : -1) +
              " at flat position " + std::to_string(k) + ", outside a plane of " + std::to_string(plane_size) +
              " elements (input_shape's spatial dims)");
}

// One (image, block of 16 channels) of the gradient when either side holds nChw16c
// (a graph's blocked_inputs=[0, 1] for grad and flat indices, blocked_out for dx):
// the block's dx zeroed while in cache, then each channel's scatter. `block_grad`,
// `block_idx`: the block's 16 x out_plane gradients and indices, in their layout;
// `block_dx`: its 16 planes; `in_plane`, the input's H * W; `out_plane`, the pooled
// one's. Returns the indices outside the plane.
template <class T>
int64_t scatter_block(T* block_dx, const T* block_grad, const int64_t* block_idx, int64_t in_plane,
                      int64_t out_plane, bool blocked_grad, bool blocked_dx) {
  constexpr int64_t kBlock = 16;
  std::fill(block_dx, block_dx + kBlock * in_plane, T(0));  // blocked or not, the block's planes are these bytes
  // Either way the block's gradient and indices are these elements, read in their
  // order (window-major when blocked, channel-major when planar); a channel's windows
  // still add in their order. Where cell (c, k) lies and where its gradient goes are
  // strides, not a division per element (that made the compiled CNN's second pool's
  // gradient, planar in and blocked out, run at 14 GB/s).
  const int64_t channel_step = blocked_grad ? 1 : out_plane, window_step = blocked_grad ? kBlock : 1;
  const int64_t dx_channel = blocked_dx ? 1 : in_plane, dx_cell = blocked_dx ? kBlock : 1;
  int64_t outside = 0;
  auto scatter = [&](int64_t c, int64_t k) {
    const int64_t e = c * channel_step + k * window_step;
    auto j = static_cast<uint64_t>(block_idx[e]);  // a negative index wraps far above the plane
    if (j >= static_cast<uint64_t>(in_plane)) {
      ++outside;
      return;
    }
    block_dx[c * dx_channel + static_cast<int64_t>(j) * dx_cell] += block_grad[e];
  };
  if (blocked_grad)
    for (int64_t k = 0; k < out_plane; ++k)
      for (int64_t c = 0; c < kBlock; ++c) scatter(c, k);
  else
    for (int64_t c = 0; c < kBlock; ++c)
      for (int64_t k = 0; k < out_plane; ++k) scatter(c, k);
  return outside;
}

// The same from an nChw16c gradient and its window codes (Note [Window codes] in
// kernels.hpp: the plain 2x2 pool, PH x PW windows over planes W wide), into dx
// planar or nChw16c (`blocked_dx`): window (ph, pw)'s code names cell 2 ph W + 2 pw +
// (code / 2) W + code % 2, which no other window's does (f32 into nChw16c: by
// windows, scatter_codes_blocked16). Returns the codes above 3.
template <class T>
int64_t scatter_codes_into(T* block_dx, const T* block_grad, const uint8_t* block_codes, int64_t W, int64_t PH,
                           int64_t PW, int64_t in_plane, bool blocked_dx) {
#if defined(__x86_64__)
  if constexpr (std::is_same_v<T, float>)
    if (blocked_dx && blocked_activations())
      return scatter_codes_blocked16(block_dx, block_grad, block_codes, in_plane / W, W, PH, PW);
#endif
  constexpr int64_t kBlock = 16;
  std::fill(block_dx, block_dx + kBlock * in_plane, T(0));  // blocked or not, the block's planes are these bytes
  const int64_t dx_channel = blocked_dx ? 1 : in_plane, dx_cell = blocked_dx ? kBlock : 1;
  int64_t outside = 0;
  for (int64_t ph = 0; ph < PH; ++ph)
    for (int64_t pw = 0; pw < PW; ++pw) {
      const int64_t e = (ph * PW + pw) * kBlock, first = 2 * ph * W + 2 * pw;
      for (int64_t c = 0; c < kBlock; ++c) {
        const uint8_t code = block_codes[e + c];
        if (code > 3) {
          ++outside;
          continue;
        }
        block_dx[c * dx_channel + (first + (code >> 1) * W + (code & 1)) * dx_cell] += block_grad[e + c];
      }
    }
  return outside;
}

}  // namespace

// The max pools' gradient: every (n, c) plane of the result is independent, so the
// planes run in parallel with no atomics (with a blocked side, blocks of 16 planes);
// an index outside its plane is counted and fails after the loop (an exception must
// not leave an OpenMP region).
void max_pool2d_backward(const TensorList& in, const Attrs& attrs, TensorList& out) {
  const Tensor& dx = out[0];
  int64_t planes = dx.sizes()[0] * dx.sizes()[1];
  if (dx.numel() == 0) return;
  Tensor grad = contiguous_raw(in[0]), idx = contiguous_raw(in[1]);
  bool blocked_grad = blocked_input(attrs, 0) && blocked_input(attrs, 1), blocked_dx = blocked_output(attrs);
  int64_t in_plane = dx.numel() / planes, out_plane = grad.numel() / planes;
  bool blocked = (blocked_grad || blocked_dx) && dx.dtype() == DType::f32 && dx.dim() == 4 && dx.sizes()[1] % 16 == 0;
  const bool codes = blocked && blocked_grad && reads_window_codes(attrs);
  int64_t outside = visit_float(dx.dtype(), "max_pool2d_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* o = dx.data<T>();
    const T* g = grad.data<T>();
    const int64_t* ix = idx.data<int64_t>();
    if (blocked) {  // (a block of 16 planes is the same bytes in either layout)
      const int64_t W = dx.sizes()[3];
      const int64_t PH = grad.dim() == 4 ? grad.sizes()[2] : 0, PW = grad.dim() == 4 ? grad.sizes()[3] : 0;
      if (codes && (PH != dx.sizes()[2] / 2 || PW != W / 2))
        throw Error("max_pool2d_backward: window codes are a plain 2x2 pool's indices (Note [Window codes]), but the "
                    "gradient " + grad.shape_str() + " is not that pool's of " + dx.shape_str());
      return parallel_reduce<int64_t>(
          0, planes / 16, dx.numel() + 3 * grad.numel(), 0,
          [&](int64_t lo, int64_t hi) {
            int64_t n = 0;
            for (int64_t b = lo; b < hi; ++b) {
              T* block_dx = o + b * 16 * in_plane;
              const T* block_grad = g + b * 16 * out_plane;
              n += codes ? scatter_codes_into(block_dx, block_grad, window_codes(idx) + b * 16 * out_plane, W, PH, PW,
                                              in_plane, blocked_dx)
                         : scatter_block(block_dx, block_grad, ix + b * 16 * out_plane, in_plane, out_plane,
                                         blocked_grad, blocked_dx);
            }
            return n;
          },
          std::plus<int64_t>());
    }
    // The plain 2x2 pool's shapes: a plane at a time by windows (Note [The pool's
    // gradient by windows]), unless an index lies outside its window.
    const bool by_windows = std::is_same_v<T, float> && dx.dim() == 4 && grad.dim() == 4 &&
                            grad.sizes()[2] == dx.sizes()[2] / 2 && grad.sizes()[3] == dx.sizes()[3] / 2;
    return parallel_reduce<int64_t>(
        0, planes, dx.numel() + 3 * grad.numel(), 0,
        [&](int64_t lo, int64_t hi) {
          int64_t n = 0;
          for (int64_t p = lo; p < hi; ++p) {
            T* plane = o + p * in_plane;
            const T* plane_grad = g + p * out_plane;
            const int64_t* plane_idx = ix + p * out_plane;
            if constexpr (std::is_same_v<T, float>)
              if (by_windows &&
                  max_pool_2x2_backward_plane(plane_grad, plane_idx, dx.sizes()[2], dx.sizes()[3], plane))
                continue;
            n += scatter_plane(plane, in_plane, plane_grad, plane_idx, out_plane);
          }
          return n;
        },
        std::plus<int64_t>());
  });
  if (outside && codes)
    throw Error("max_pool2d_backward: " + std::to_string(outside) + " window codes above 3 in nChw16c indices (Note "
                "[Window codes]): not a plain 2x2 pool's");
  if (outside) fail_outside_plane(idx, in_plane);
}

}  // namespace nabla::cpu
