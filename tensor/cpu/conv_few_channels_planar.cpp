// A network's first layer, with few input channels (a grey or RGB image), on planar
// tensors, in AVX-512 registers: eager's conv2d (y = act(conv2d(x, w) + b), y NCHW)
// and its weight (and bias) gradient from an NCHW output gradient.
//
// Note [The first layer in registers, planar]
// conv_few_channels.cpp puts 16 output channels in a vector's lanes, which suits a pool
// and nChw16c. Eager's tensors are NCHW, and there a 16x16 transpose per vector of
// output would cost nearly as much as the 9 multiply-adds a 3x3 single-channel output
// needs. So here the lanes hold 16 neighbouring pixels of one output plane, and the
// weights are the broadcast operand:
// - forward: the lanes run along the output plane read as one flat array (OH x OW
//   cells), across row ends: a 28-wide row would use 16 + 12 lanes of two vectors,
//   and 28 x 28 = 784 cells fill 49 vectors exactly. Per image and band of output
//   rows, the input is staged once as C x KW column planes, P[c][kw][hp][w] =
//   x[c][hp - pad_h][w + kw - pad_w] (zero outside the image), each OW wide, so the
//   taps' 16 cells for output cell f are the 16 floats at P[c][kw] + (kh * OW + f):
//   one load per tap, no masks and no shuffles. All output channels of the image read
//   the staged band (in L2), four channels by three vectors of cells per register
//   block (forward_block), the plane's last vector stored masked;
// - the stage is a flat copy of the image shifted by kw - pad_w when the output is as
//   wide as the input (the usual "same" padding), whole vectors, the zero rows above
//   and below the image from masked loads at its ends (stage_flat), then the cells
//   that wrapped across a row end are zeroed; other widths copy row by row
//   (stage_columns);
// - the sums start at zero and run over (channel, kernel row, kernel column), the bias
//   added last: the order of oneDNN and of conv_few_channels.cpp, so eager's CNN and
//   the compiled one (nChw16c, pooled) still agree bit for bit;
// - weight gradient (kernels up to 3 wide), with 16 pixels of a row in the lanes: the
//   image is copied once into a zero-padded buffer of aligned rows, long enough for a
//   whole vector and the next at every column, so a row's input is two aligned loads,
//   shifted in registers for each kernel column (valignd; an unaligned load would
//   mostly straddle two cache lines). dw[oc, c, kh, kw] sums grad[oc, h, w] *
//   x[c, h + kh, w + kw]; per image, two output channels and a group of kernel rows,
//   one pass over the two gradient planes (in L1) keeps 2 x rows x KW vector sums in
//   registers; a row's last, partial vector loads its gradient masked and adds with a
//   masked multiply-add, so the lanes past the row leave the sums alone (0 * an
//   infinity of the next row would be a NaN). The vector sums go to memory per pass
//   and are folded to scalars once, at the end; tasks are (image, channel pair),
//   reduced in thread order (parallel_reduce), so a thread count always gives the
//   same result. The bias's gradient is summed by the first pass over each gradient
//   plane, from the vectors it loads anyway (a separate pass over the planes took 12%
//   of the time). Wider kernels are left to oneDNN, which was as fast there.
// bench_nabla cnn_conv_ops (eager's NCHW ops, 1 -> 32 channels, 28x28, batch 64):
// conv1_fwd 0.35 -> 0.59 and conv1_bwd_weight 0.39 -> 0.59 of the sgemm rate with rows
// in the lanes; the flat plane took conv1_fwd to 0.71-0.72 on one thread; see
// docs/performance.md. (The weight gradient over the same staged planes was slower,
// 0.7-0.9x of the kernel below: a tap's unaligned loads feed fewer multiply-adds there.)
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "tensor/cpu/conv_few_channels.hpp"
#include "tensor/cpu/fused.hpp"
#include "tensor/cpu/kernels.hpp"
#include "tensor/cpu/parallel.hpp"

namespace nabla::cpu {

#if defined(__x86_64__)

namespace {

using few_channels::kLanes;
using few_channels::pad_image;

// The padded image's row length, a multiple of 16 so that every vector of columns
// (w0 a multiple of 16) starts aligned, with the next vector after the last one, which
// the shifts by the kernel's columns read.
int64_t padded_row(int64_t OW) { return (OW + kLanes - 1) / kLanes * kLanes + kLanes; }

// The lanes of the vector at column w0 of a row of OW.
NABLA_AVX512 inline __mmask16 row_lanes(int64_t OW, int64_t w0) {
  const int64_t valid = std::min<int64_t>(kLanes, OW - w0);
  return static_cast<__mmask16>((1u << valid) - 1u);
}

// xs[k] = the 16 cells from column w0 + k, k < KW, from the aligned vectors at w0 (lo)
// and w0 + 16 (hi): one shuffle each, where an unaligned load would mostly straddle two
// cache lines and cost two.
template <int KW, int K = 0>
NABLA_AVX512 inline void shifted_cells(__m512 lo, __m512 hi, __m512 xs[KW]) {
  if constexpr (K < KW) {
    if constexpr (K == 0)
      xs[0] = lo;
    else
      xs[K] = _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(hi), _mm512_castps_si512(lo), K));
    shifted_cells<KW, K + 1>(lo, hi, xs);
  }
}

// The row of `at` (aligned, w0) as KW shifted vectors.
template <int KW>
NABLA_AVX512 inline void row_cells(const float* at, __m512 xs[KW]) {
  shifted_cells<KW>(_mm512_load_ps(at), _mm512_load_ps(at + kLanes), xs);
}

// A buffer of `count` floats, zero, its data 64-byte aligned (for row_cells).
struct AlignedFloats {
  std::vector<float> storage;
  float* data = nullptr;
  void assign_zero(int64_t count) {
    storage.assign(static_cast<size_t>(count + kLanes), 0.0f);
    auto at = reinterpret_cast<uintptr_t>(storage.data());
    data = storage.data() + (64 - at % 64) % 64 / sizeof(float);
  }
};

// ---------------------------------------------------------------------------
// The forward.

constexpr int kForwardChannels = 4;  // output channels per register block
constexpr int kForwardVectors = 3;   // vectors of output cells per register block
// Floats of staged column planes a band may take (128 KB: it stays in L2 while every
// output channel reads it).
constexpr int64_t kStagedBandFloats = 32768;

// One image's geometry, as the forward stages and reads it.
struct FlatGeometry {
  int64_t C, H, W, KH, KW, pad_h, pad_w, OH, OW;
  int64_t taps() const { return C * KH * KW; }
};

// image[at .. at + 15] as a vector, 0 in the lanes outside the image's `size` cells. A
// masked-off lane is not read (and cannot fault), so `at` may lie outside the image:
// the address is formed as an integer.
NABLA_AVX512 inline __m512 clipped_cells(uintptr_t image, int64_t size, int64_t at) {
  const int64_t lo = std::clamp<int64_t>(-at, 0, kLanes), hi = std::clamp<int64_t>(size - at, lo, kLanes);
  const auto inside = static_cast<__mmask16>(((1u << hi) - 1u) & ~((1u << lo) - 1u));
  return _mm512_maskz_loadu_ps(inside, reinterpret_cast<const float*>(image + at * sizeof(float)));
}

// P[i] = image[from + i] for i < cells, 0 where from + i lies outside the image (its
// `size` cells): whole vectors copied, the ones at the image's ends by masked loads.
NABLA_AVX512 void stage_flat(const float* image, int64_t size, int64_t from, int64_t cells, float* P) {
  const auto base = reinterpret_cast<uintptr_t>(image);
  // Vectors [inside_lo, inside_hi) of P read inside the image and lie inside P's cells.
  const int64_t inside_lo = std::min(cells / kLanes, (std::max<int64_t>(-from, 0) + kLanes - 1) / kLanes);
  const int64_t inside_hi = std::max(inside_lo, std::min(cells, size - from) / kLanes);
  int64_t j = 0;
  for (; j < inside_lo; ++j) _mm512_storeu_ps(P + j * kLanes, clipped_cells(base, size, from + j * kLanes));
  for (; j < inside_hi; ++j) _mm512_storeu_ps(P + j * kLanes, _mm512_loadu_ps(image + from + j * kLanes));
  for (; j * kLanes < cells; ++j) {
    const int64_t i = j * kLanes;
    const __m512 v = clipped_cells(base, size, from + i);
    if (i + kLanes <= cells)
      _mm512_storeu_ps(P + i, v);
    else
      _mm512_mask_storeu_ps(P + i, row_lanes(cells, i), v);
  }
}

// Columns [w0, w1) of `rows` rows of `width` floats from P set to zero, a column at a
// time (a row's share is a cell or two: a fill call per row cost more than its stores).
void zero_columns(float* P, int64_t width, int64_t rows, int64_t w0, int64_t w1) {
  for (int64_t w = w0; w < w1; ++w)
    for (int64_t h = 0; h < rows; ++h) P[h * width + w] = 0.0f;
}

// P[c][kw] (`plane` floats apart) rows hp0 .. hp0 + rows - 1 of the padded image, as
// Note [The first layer in registers, planar] says: P[hp][w] = x[c][hp - pad_h][w + kw -
// pad_w], zero outside x.
NABLA_AVX512 void stage_columns(const float* x, const FlatGeometry& g, int64_t hp0, int64_t rows, float* planes,
                                int64_t plane) {
  for (int64_t c = 0; c < g.C; ++c)
    for (int64_t kw = 0; kw < g.KW; ++kw) {
      const float* image = x + c * g.H * g.W;
      float* P = planes + (c * g.KW + kw) * plane;
      const int64_t shift = kw - g.pad_w;  // P's column w reads x's column w + shift
      // P's columns [w_lo, w_hi) read inside x; the others are padding.
      const int64_t w_lo = std::clamp<int64_t>(-shift, 0, g.OW), w_hi = std::clamp<int64_t>(g.W - shift, w_lo, g.OW);
      if (g.OW == g.W) {
        // x's rows are P's: one flat copy, zero above and below x, then the cells that
        // wrapped across a row end zeroed. (As memmove and memset calls, one fill a
        // row, staging took 7% of the CNN's first layer; this takes two thirds of that.)
        stage_flat(image, g.H * g.W, (hp0 - g.pad_h) * g.W + shift, rows * g.OW, P);
        zero_columns(P, g.OW, rows, 0, w_lo);
        zero_columns(P, g.OW, rows, w_hi, g.OW);
        continue;
      }
      const int64_t h_lo = std::clamp<int64_t>(g.pad_h - hp0, 0, rows);          // first row inside x
      const int64_t h_hi = std::clamp<int64_t>(g.pad_h + g.H - hp0, h_lo, rows);  // past the last
      std::fill(P, P + h_lo * g.OW, 0.0f);
      std::fill(P + h_hi * g.OW, P + rows * g.OW, 0.0f);
      const int64_t first = (hp0 + h_lo - g.pad_h) * g.W;  // x's flat index of P's row h_lo, column 0 - shift
      for (int64_t h = h_lo; h < h_hi; ++h) {
        float* row = P + h * g.OW;
        const float* in = image + first + (h - h_lo) * g.W + shift;
        std::fill(row, row + w_lo, 0.0f);
        std::copy(in + w_lo, in + w_hi, row + w_lo);
        std::fill(row + w_hi, row + g.OW, 0.0f);
      }
    }
}

// R vectors of output cells from cell 16 j0 of `channels` (<= kForwardChannels) planes
// from `out` (`out_plane` apart), `count` cells each: tap k's cells start at tap_at[k],
// its weights are w[o * taps + k].
template <bool kRelu, int R>
NABLA_AVX512 inline __attribute__((always_inline)) void forward_block(const float* const* tap_at, int64_t taps,
                                                                      const float* w, const float* bias, int channels,
                                                                      int64_t j0, int64_t count, float* out,
                                                                      int64_t out_plane) {
  constexpr int OCB = kForwardChannels;
  __m512 acc[OCB][R];
#pragma GCC unroll 4
  for (int o = 0; o < OCB; ++o)
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) acc[o][r] = _mm512_setzero_ps();
  for (int64_t k = 0; k < taps; ++k) {
    __m512 wv[OCB];
#pragma GCC unroll 4
    for (int o = 0; o < OCB; ++o) wv[o] = _mm512_set1_ps(w[o * taps + k]);
    const float* at = tap_at[k] + j0 * kLanes;
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      const __m512 x = _mm512_loadu_ps(at + r * kLanes);
#pragma GCC unroll 4
      for (int o = 0; o < OCB; ++o) acc[o][r] = _mm512_fmadd_ps(wv[o], x, acc[o][r]);
    }
  }
#pragma GCC unroll 4
  for (int o = 0; o < OCB; ++o) {
    if (o >= channels) break;
    const __m512 b = _mm512_set1_ps(bias[o]);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      const int64_t cell = (j0 + r) * kLanes;
      __m512 v = _mm512_add_ps(acc[o][r], b);
      // max(v, 0) takes a NaN to 0, as oneDNN's relu post-op (Note [A NaN through relu]).
      if constexpr (kRelu) v = _mm512_max_ps(v, _mm512_setzero_ps());
      float* to = out + o * out_plane + cell;
      if (cell + kLanes <= count)
        _mm512_storeu_ps(to, v);
      else
        _mm512_mask_storeu_ps(to, row_lanes(count, cell), v);
    }
  }
}

// The `count` cells of one group of output channels: blocks of kForwardVectors vectors,
// then the last one or two vectors alone (a whole block there would compute up to two
// vectors for nothing: 4% of a 28 x 28 plane's 49).
template <bool kRelu>
NABLA_AVX512 void forward_group(const float* const* tap_at, int64_t taps, const float* w, const float* bias,
                                int channels, int64_t count, float* out, int64_t out_plane) {
  constexpr int R = kForwardVectors;
  const int64_t vectors = (count + kLanes - 1) / kLanes;
  int64_t j0 = 0;
  for (; j0 + R <= vectors; j0 += R)
    forward_block<kRelu, R>(tap_at, taps, w, bias, channels, j0, count, out, out_plane);
  for (; j0 < vectors; ++j0) forward_block<kRelu, 1>(tap_at, taps, w, bias, channels, j0, count, out, out_plane);
}

// Every output channel of one band's `count` cells, in groups of kForwardChannels
// channels (weights and bias padded with zeros to whole groups).
template <bool kRelu>
NABLA_AVX512 void forward_band(const float* const* tap_at, int64_t taps, const float* weights, const float* bias,
                               int64_t OC, int64_t count, float* out, int64_t out_plane) {
  for (int64_t oc0 = 0; oc0 < OC; oc0 += kForwardChannels)
    forward_group<kRelu>(tap_at, taps, weights + oc0 * taps, bias + oc0,
                         static_cast<int>(std::min<int64_t>(kForwardChannels, OC - oc0)), count, out + oc0 * out_plane,
                         out_plane);
}

// The checks both kernels share: AVX-512 (as oneDNN's), 1-4 input channels, a kernel
// up to kMaxFewChannelKernelWidth wide, an output of at least one cell, and an image
// small enough (padded, it fits the weight gradient's per-thread copy; past that size
// oneDNN, which tiles, runs both passes).
bool applies(int64_t C, int64_t KH, int64_t KW, int64_t OC, int64_t HP, int64_t OH, int64_t OW) {
  return blocked_activations() && C >= 1 && C <= kMaxFewChannels && KW >= 1 && KW <= kMaxFewChannelKernelWidth &&
         KH >= 1 && OC >= 1 && OH >= 1 && OW >= 1 && few_channels::padded_image_fits(C, HP, padded_row(OW));
}

// ---------------------------------------------------------------------------
// The weight gradient.

// The weight gradient takes kernels up to 3 wide: oneDNN's backward-weights kernel was
// as fast or faster on wider ones (5x5: this at 0.87-0.89 of its speed, 7x7: 0.98), where
// at 3x3 this was 1.1-4x faster.
constexpr int kMaxGradKernelWidth = 3;
constexpr int kGradChannels = 2;  // output channels per pass
// Kernel rows a pass keeps sums for: 2 x rows x KW vector sums (at most 18), the two
// gradient vectors and a row's KW shifted input vectors in the 32 registers.
constexpr int grad_rows(int KW) { return std::min(8, 9 / KW); }

// One pass's view: `channels` (<= OCB) gradient planes [OH][OW] from `grad`, one
// input channel's padded plane (WP wide, aligned rows), and kernel rows kh0 ..
// kh0 + rows - 1; the sums go to `sums` (16 lanes each), output channel o's `filter`
// (C x KH x KW) vectors apart, the first at this input channel and kernel row 0. With
// `bias_sums` (one pass per image and channel group), the pass also sums the gradient
// planes it reads into bias_sums[o] (16 lanes each): the bias's gradient.
struct GradPass {
  const float* grad;
  int channels;
  int64_t OH, OW;
  const float* plane;
  int64_t WP, kh0;
  int rows;
  int64_t filter;
  float* sums;
  float* bias_sums;
};

// The pass's products at output row h, columns w0 .. w0 + 15. kTail: the row's last,
// partial vector, whose lanes past the row leave the sums as they are (their input
// cells may hold an infinity of the next row, and 0 * inf is a NaN).
template <int KW, int OCB, int KHG, bool kTail, bool kBias>
NABLA_AVX512 inline void grad_products(const GradPass& t, int64_t h, int64_t w0, __m512 acc[OCB][KHG][KW],
                                       __m512 bias_acc[OCB]) {
  const __mmask16 lanes = kTail ? row_lanes(t.OW, w0) : static_cast<__mmask16>(0xffff);
  __m512 g[OCB];
#pragma GCC unroll 4
  for (int o = 0; o < OCB; ++o) {
    const float* at = t.grad + (o * t.OH + h) * t.OW + w0;
    g[o] = o >= t.channels ? _mm512_setzero_ps() : kTail ? _mm512_maskz_loadu_ps(lanes, at) : _mm512_loadu_ps(at);
    if constexpr (kBias) bias_acc[o] = _mm512_add_ps(bias_acc[o], g[o]);  // a tail's other lanes load 0
  }
#pragma GCC unroll 8
  for (int r = 0; r < KHG; ++r) {
    if (r >= t.rows) break;
    __m512 xs[KW];
    row_cells<KW>(t.plane + (h + t.kh0 + r) * t.WP + w0, xs);
#pragma GCC unroll 8
    for (int kw = 0; kw < KW; ++kw)
#pragma GCC unroll 4
      for (int o = 0; o < OCB; ++o)
        acc[o][r][kw] = kTail ? _mm512_mask3_fmadd_ps(g[o], xs[kw], acc[o][r][kw], lanes)
                              : _mm512_fmadd_ps(g[o], xs[kw], acc[o][r][kw]);
  }
}

template <int KW, bool kBias>
NABLA_AVX512 void weight_grad_pass(const GradPass& t) {
  constexpr int OCB = kGradChannels, KHG = grad_rows(KW);
  __m512 acc[OCB][KHG][KW], bias_acc[OCB];
#pragma GCC unroll 4
  for (int o = 0; o < OCB; ++o) {
    bias_acc[o] = _mm512_setzero_ps();
#pragma GCC unroll 8
    for (int r = 0; r < KHG; ++r)
#pragma GCC unroll 8
      for (int kw = 0; kw < KW; ++kw) acc[o][r][kw] = _mm512_setzero_ps();
  }
  const int64_t full = t.OW / kLanes * kLanes;
  for (int64_t h = 0; h < t.OH; ++h) {
    for (int64_t w0 = 0; w0 < full; w0 += kLanes) grad_products<KW, OCB, KHG, false, kBias>(t, h, w0, acc, bias_acc);
    if (full < t.OW) grad_products<KW, OCB, KHG, true, kBias>(t, h, full, acc, bias_acc);
  }
  if constexpr (kBias)
#pragma GCC unroll 4
    for (int o = 0; o < OCB; ++o) {
      float* to = t.bias_sums + o * kLanes;
      _mm512_storeu_ps(to, _mm512_add_ps(_mm512_loadu_ps(to), bias_acc[o]));
    }
#pragma GCC unroll 4
  for (int o = 0; o < OCB; ++o)
#pragma GCC unroll 8
    for (int r = 0; r < KHG; ++r) {
      if (r >= t.rows) break;
#pragma GCC unroll 8
      for (int kw = 0; kw < KW; ++kw) {
        float* to = t.sums + (o * t.filter + (t.kh0 + r) * KW + kw) * kLanes;
        _mm512_storeu_ps(to, _mm512_add_ps(_mm512_loadu_ps(to), acc[o][r][kw]));
      }
    }
}

using WeightGradPass = void (*)(const GradPass&);
template <bool kBias>
constexpr std::array<WeightGradPass, kMaxGradKernelWidth> grad_passes_by_width = {
    weight_grad_pass<1, kBias>, weight_grad_pass<2, kBias>, weight_grad_pass<3, kBias>};
constexpr std::array<WeightGradPass, kMaxGradKernelWidth> kWeightGradPasses[2] = {grad_passes_by_width<false>,
                                                                                 grad_passes_by_width<true>};

}  // namespace

bool conv_few_channels_planar(const FewChannelConv& p) {
  const int64_t HP = p.H + 2 * p.pad_h, OH = HP - p.KH + 1, OW = p.W + 2 * p.pad_w - p.KW + 1;
  if (!applies(p.C, p.KH, p.KW, p.OC, HP, OH, OW) || p.N < 1) return false;
  const FlatGeometry g{p.C, p.H, p.W, p.KH, p.KW, p.pad_h, p.pad_w, OH, OW};
  const int64_t taps = g.taps(), count = OH * OW;
  // Output rows per band: as many as keep the staged planes within kStagedBandFloats.
  const int64_t band = std::clamp<int64_t>(kStagedBandFloats / (p.C * p.KW * OW) - (p.KH - 1), 1, OH);
  // A plane holds the band's rows and the kernel's, and what the last block reads past
  // them (its vectors run to a whole block; those lanes are not stored).
  const int64_t plane = ((band + p.KH - 1) * OW + kForwardVectors * kLanes + kLanes - 1) / kLanes * kLanes;
  const int64_t groups = (p.OC + kForwardChannels - 1) / kForwardChannels;
  std::vector<float> weights(static_cast<size_t>(groups * kForwardChannels * taps), 0.0f);
  std::vector<float> bias(static_cast<size_t>(groups * kForwardChannels), 0.0f);
  std::copy(p.w, p.w + p.OC * taps, weights.begin());
  if (p.bias) std::copy(p.bias, p.bias + p.OC, bias.begin());
  const int64_t bands = (OH + band - 1) / band;
  parallel_for(0, p.N * bands, p.N * p.OC * count * taps, [&](int64_t lo, int64_t hi) {
    thread_local std::vector<float> planes;
    planes.assign(static_cast<size_t>(p.C * p.KW * plane), 0.0f);
    std::vector<const float*> tap_at(static_cast<size_t>(taps));
    for (int64_t task = lo; task < hi; ++task) {
      const int64_t n = task / bands, h0 = task % bands * band, rows = std::min(band, OH - h0);
      stage_columns(p.x + n * p.C * p.H * p.W, g, h0, rows + p.KH - 1, planes.data(), plane);
      int64_t k = 0;
      for (int64_t c = 0; c < p.C; ++c)
        for (int64_t kh = 0; kh < p.KH; ++kh)
          for (int64_t kw = 0; kw < p.KW; ++kw) tap_at[k++] = planes.data() + (c * p.KW + kw) * plane + kh * OW;
      float* out = p.out + n * p.OC * count + h0 * OW;
      (p.relu ? forward_band<true> : forward_band<false>)(tap_at.data(), taps, weights.data(), bias.data(), p.OC,
                                                          rows * OW, out, count);
    }
  });
  return true;
}

bool conv_weight_grad_few_channels_planar(const FewChannelWeightGrad& p) {
  const int64_t HP = p.H + 2 * p.pad_h, OH = HP - p.KH + 1, OW = p.W + 2 * p.pad_w - p.KW + 1;
  if (!applies(p.C, p.KH, p.KW, p.OC, HP, OH, OW) || p.KW > kMaxGradKernelWidth || p.N < 1 || p.codes)
    return false;
  const int64_t OCB = kGradChannels, WP = padded_row(OW), groups = (p.OC + OCB - 1) / OCB;
  const int64_t taps = p.KH * p.KW, filter = p.C * taps, OCP = groups * OCB;
  const int rows = grad_rows(static_cast<int>(p.KW));
  // Each task (image, group of OCB output channels) adds to vector sums laid out
  // [OCP][C][KH][KW][16], then the bias's [OCP][16].
  auto sums_of_tasks = [&](int64_t lo, int64_t hi) {
    std::vector<float> sums(static_cast<size_t>(OCP * (filter + 1) * kLanes), 0.0f);
    AlignedFloats image;
    image.assign_zero(p.C * HP * WP);
    int64_t padded_of = -1;
    for (int64_t task = lo; task < hi; ++task) {
      const int64_t n = task / groups, oc0 = task % groups * OCB;
      if (n != padded_of) pad_image(p.x, n, p.C, p.H, p.W, p.pad_h, p.pad_w, HP, WP, image.data);
      padded_of = n;
      const float* grad = p.grad + (n * p.OC + oc0) * OH * OW;
      const int channels = static_cast<int>(std::min(OCB, p.OC - oc0));
      for (int64_t c = 0; c < p.C; ++c)
        for (int64_t kh0 = 0; kh0 < p.KH; kh0 += rows) {
          // The first pass over the gradient planes also sums them (the bias's gradient).
          const bool bias = p.db && c == 0 && kh0 == 0;
          kWeightGradPasses[bias][p.KW - 1]({grad, channels, OH, OW, image.data + c * HP * WP, WP, kh0,
                                             static_cast<int>(std::min<int64_t>(rows, p.KH - kh0)), filter,
                                             sums.data() + (oc0 * filter + c * taps) * kLanes,
                                             bias ? sums.data() + (OCP * filter + oc0) * kLanes : nullptr});
        }
    }
    return sums;
  };
  std::vector<float> sums = parallel_reduce(
      0, p.N * groups, p.N * p.OC * OH * OW * filter, std::vector<float>(), sums_of_tasks, few_channels::add_sums);
  auto lanes_sum = [&](int64_t at) {
    float s = 0.0f;
    for (int64_t l = 0; l < kLanes; ++l) s += sums[static_cast<size_t>(at * kLanes + l)];
    return s;
  };
  for (int64_t oc = 0; oc < p.OC; ++oc) {
    for (int64_t k = 0; k < filter; ++k) p.dw[oc * filter + k] = lanes_sum(oc * filter + k);
    if (p.db) p.db[oc] = lanes_sum(OCP * filter + oc);
  }
  return true;
}

#else

bool conv_few_channels_planar(const FewChannelConv&) { return false; }
bool conv_weight_grad_few_channels_planar(const FewChannelWeightGrad&) { return false; }

#endif

}  // namespace nabla::cpu
