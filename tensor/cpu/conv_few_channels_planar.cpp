// A network's first layer, with few input channels (a grey or RGB image), on planar
// tensors, in AVX-512 registers: eager's conv2d (y = act(conv2d(x, w) + b), y NCHW)
// and its weight (and bias) gradient from an NCHW output gradient.
//
// Note [The first layer in registers, planar]
// conv_few_channels.cpp puts 16 output channels in a vector's lanes, which suits a pool
// and nChw16c. Eager's tensors are NCHW, and there a 16x16 transpose per vector of
// output would cost nearly as much as the 9 multiply-adds a 3x3 single-channel output
// needs. So here the lanes hold 16 neighbouring pixels of one output row, and the
// weights are the broadcast operand:
// - the image is copied once into a zero-padded buffer of aligned rows, long enough
//   for a whole vector and the next at every column: a row's input is two aligned
//   loads, shifted in registers for each kernel column (valignd; an unaligned load
//   would mostly straddle two cache lines), and no load needs a bounds check;
// - forward: a task is one image and a few output channels (forward_channels); per
//   (input channel, kernel row) their KW weights sit in registers, and each input row
//   segment feeds every channel's accumulator; a block is R output rows by one vector
//   of columns, the last vector of a row stored masked (28 columns: 16 + 12 lanes);
// - the sums start at zero and run over (channel, kernel row, kernel column), the bias
//   added last: the order of oneDNN and of conv_few_channels.cpp, so eager's CNN and
//   the compiled one (nChw16c, pooled) still agree bit for bit;
// - weight gradient (kernels up to 3 wide): dw[oc, c, kh, kw] sums grad[oc, h, w] *
//   x[c, h + kh, w + kw]; per image, two output channels and a group of kernel rows,
//   one pass over the two gradient planes (in L1) keeps 2 x rows x KW vector sums in
//   registers; a row's last, partial vector loads its gradient masked and adds with a
//   masked multiply-add, so the lanes past the row leave the sums alone (0 * an
//   infinity of the next row would be a NaN). The vector sums go to memory per pass
//   and are folded to scalars once, at the end; tasks are (image, channel pair),
//   reduced in thread order (parallel_reduce), so a thread count always gives the
//   same result. Wider kernels are left to oneDNN, which was as fast there.
// bench_nabla cnn_conv_ops (eager's NCHW ops, 1 -> 32 channels, 28x28, batch 64):
// conv1_fwd 0.35 -> 0.59 and conv1_bwd_weight 0.39 -> 0.59 of the sgemm rate; see
// docs/performance.md.
#include <algorithm>
#include <array>
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

// Output channels per forward task and rows per register block, by kernel width:
// channels x KW weight vectors, channels x rows accumulators and a row's KW shifted
// input vectors in AVX-512's 32 registers.
constexpr int forward_channels(int KW) { return KW <= 3 ? 4 : 2; }
constexpr int forward_rows(int KW) { return KW <= 3 ? 4 : (KW <= 5 ? 7 : 5); }

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

// One forward task: an image (padded, C planes of HP x WP) and `channels` (<= OCB) output
// channels, their weights [OCB][C][KH][KW] (zeros past `channels`) and bias, and the
// first one's output plane.
struct PlanarTask {
  const float* image;
  const float* weights;
  const float* bias;
  int64_t C, KH, HP, WP, OH, OW;
  float* out;
  int channels;
};

// Output rows h0 .. h0 + rows - 1 (rows <= R), the vector of columns at w0.
template <int KW, int OCB, int R, bool kRelu>
NABLA_AVX512 void forward_block(const PlanarTask& t, int64_t h0, int rows, int64_t w0) {
  __m512 acc[OCB][R];
#pragma GCC unroll 4
  for (int o = 0; o < OCB; ++o)
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) acc[o][r] = _mm512_setzero_ps();
  for (int64_t c = 0; c < t.C; ++c)
    for (int64_t kh = 0; kh < t.KH; ++kh) {
      __m512 wv[OCB][KW];
#pragma GCC unroll 4
      for (int o = 0; o < OCB; ++o)
#pragma GCC unroll 8
        for (int kw = 0; kw < KW; ++kw) wv[o][kw] = _mm512_set1_ps(t.weights[((o * t.C + c) * t.KH + kh) * KW + kw]);
      const float* in = t.image + (c * t.HP + h0 + kh) * t.WP + w0;
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) {
        if (r >= rows) break;
        __m512 xs[KW];
        row_cells<KW>(in + r * t.WP, xs);
#pragma GCC unroll 8
        for (int kw = 0; kw < KW; ++kw)
#pragma GCC unroll 4
          for (int o = 0; o < OCB; ++o) acc[o][r] = _mm512_fmadd_ps(wv[o][kw], xs[kw], acc[o][r]);
      }
    }
  const __mmask16 lanes = row_lanes(t.OW, w0);
#pragma GCC unroll 4
  for (int o = 0; o < OCB; ++o) {
    if (o >= t.channels) break;
    const __m512 bias = _mm512_set1_ps(t.bias[o]);
    float* plane = t.out + o * t.OH * t.OW;
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      if (r >= rows) break;
      __m512 v = _mm512_add_ps(acc[o][r], bias);
      // max(v, 0) takes a NaN to 0, as relu does (scalar::relu) and oneDNN's post-op.
      if constexpr (kRelu) v = _mm512_max_ps(v, _mm512_setzero_ps());
      _mm512_mask_storeu_ps(plane + (h0 + r) * t.OW + w0, lanes, v);
    }
  }
}

template <int KW, bool kRelu>
NABLA_AVX512 void forward_task(const PlanarTask& t) {
  constexpr int OCB = forward_channels(KW), R = forward_rows(KW);
  for (int64_t h0 = 0; h0 < t.OH; h0 += R)
    for (int64_t w0 = 0; w0 < t.OW; w0 += kLanes)
      forward_block<KW, OCB, R, kRelu>(t, h0, static_cast<int>(std::min<int64_t>(R, t.OH - h0)), w0);
}

using ForwardTask = void (*)(const PlanarTask&);
template <bool kRelu>
constexpr std::array<ForwardTask, kMaxFewChannelKernelWidth> forward_by_width = {
    forward_task<1, kRelu>, forward_task<2, kRelu>, forward_task<3, kRelu>, forward_task<4, kRelu>,
    forward_task<5, kRelu>, forward_task<6, kRelu>, forward_task<7, kRelu>};
constexpr std::array<ForwardTask, kMaxFewChannelKernelWidth> kForwardTasks[2] = {forward_by_width<false>,
                                                                                forward_by_width<true>};
constexpr std::array<int, kMaxFewChannelKernelWidth> kForwardChannels = {
    forward_channels(1), forward_channels(2), forward_channels(3), forward_channels(4),
    forward_channels(5), forward_channels(6), forward_channels(7)};

// The checks both kernels share: AVX-512 (as oneDNN's), 1-4 input channels, a kernel
// up to kMaxFewChannelKernelWidth wide, an output of at least one cell, a padded image
// that fits a thread's buffer.
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
// (C x KH x KW) vectors apart, the first at this input channel and kernel row 0.
struct GradPass {
  const float* grad;
  int channels;
  int64_t OH, OW;
  const float* plane;
  int64_t WP, kh0;
  int rows;
  int64_t filter;
  float* sums;
};

// The pass's products at output row h, columns w0 .. w0 + 15. kTail: the row's last,
// partial vector, whose lanes past the row leave the sums as they are (their input
// cells may hold an infinity of the next row, and 0 * inf is a NaN).
template <int KW, int OCB, int KHG, bool kTail>
NABLA_AVX512 inline void grad_products(const GradPass& t, int64_t h, int64_t w0, __m512 acc[OCB][KHG][KW]) {
  const __mmask16 lanes = kTail ? row_lanes(t.OW, w0) : static_cast<__mmask16>(0xffff);
  __m512 g[OCB];
#pragma GCC unroll 4
  for (int o = 0; o < OCB; ++o) {
    const float* at = t.grad + (o * t.OH + h) * t.OW + w0;
    g[o] = o >= t.channels ? _mm512_setzero_ps() : kTail ? _mm512_maskz_loadu_ps(lanes, at) : _mm512_loadu_ps(at);
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

template <int KW>
NABLA_AVX512 void weight_grad_pass(const GradPass& t) {
  constexpr int OCB = kGradChannels, KHG = grad_rows(KW);
  __m512 acc[OCB][KHG][KW];
#pragma GCC unroll 4
  for (int o = 0; o < OCB; ++o)
#pragma GCC unroll 8
    for (int r = 0; r < KHG; ++r)
#pragma GCC unroll 8
      for (int kw = 0; kw < KW; ++kw) acc[o][r][kw] = _mm512_setzero_ps();
  const int64_t full = t.OW / kLanes * kLanes;
  for (int64_t h = 0; h < t.OH; ++h) {
    for (int64_t w0 = 0; w0 < full; w0 += kLanes) grad_products<KW, OCB, KHG, false>(t, h, w0, acc);
    if (full < t.OW) grad_products<KW, OCB, KHG, true>(t, h, full, acc);
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
constexpr std::array<WeightGradPass, kMaxGradKernelWidth> kWeightGradPasses = {
    weight_grad_pass<1>, weight_grad_pass<2>, weight_grad_pass<3>};

// sums[o] (16 lanes) += gradient plane o (`count` values), o < channels: the bias's
// gradient, from planes the passes just read (in cache). Four chains of additions, so
// that their latency does not bound the loop.
NABLA_AVX512 void bias_grad_planes(const float* grad, int channels, int64_t count, float* sums) {
  for (int o = 0; o < channels; ++o) {
    const float* plane = grad + o * count;
    __m512 sum[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
    int64_t i = 0;
    for (; i + 4 * kLanes <= count; i += 4 * kLanes)
#pragma GCC unroll 4
      for (int k = 0; k < 4; ++k) sum[k] = _mm512_add_ps(sum[k], _mm512_loadu_ps(plane + i + k * kLanes));
    for (; i < count; i += kLanes) sum[0] = _mm512_add_ps(sum[0], _mm512_maskz_loadu_ps(row_lanes(count, i), plane + i));
    const __m512 total = _mm512_add_ps(_mm512_add_ps(sum[0], sum[1]), _mm512_add_ps(sum[2], sum[3]));
    _mm512_storeu_ps(sums + o * kLanes, _mm512_add_ps(_mm512_loadu_ps(sums + o * kLanes), total));
  }
}

}  // namespace

bool conv_few_channels_planar(const FewChannelConv& p) {
  const int64_t HP = p.H + 2 * p.pad_h, OH = HP - p.KH + 1, OW = p.W + 2 * p.pad_w - p.KW + 1;
  if (!applies(p.C, p.KH, p.KW, p.OC, HP, OH, OW) || p.N < 1) return false;
  const int64_t WP = padded_row(OW), OCB = kForwardChannels[p.KW - 1], groups = (p.OC + OCB - 1) / OCB;
  const int64_t filter = p.C * p.KH * p.KW;
  // The weights and bias padded with zeros to whole groups of OCB channels.
  std::vector<float> weights(static_cast<size_t>(groups * OCB * filter), 0.0f), bias(static_cast<size_t>(groups * OCB), 0.0f);
  std::copy(p.w, p.w + p.OC * filter, weights.begin());
  if (p.bias) std::copy(p.bias, p.bias + p.OC, bias.begin());
  parallel_for(0, p.N * groups, p.N * p.OC * OH * OW * filter, [&](int64_t lo, int64_t hi) {
    thread_local AlignedFloats image;
    image.assign_zero(p.C * HP * WP);
    int64_t padded_of = -1;  // which image `image` holds
    for (int64_t task = lo; task < hi; ++task) {
      const int64_t n = task / groups, group = task % groups, oc0 = group * OCB;
      if (n != padded_of) pad_image(p.x, n, p.C, p.H, p.W, p.pad_h, p.pad_w, HP, WP, image.data);
      padded_of = n;
      PlanarTask t{image.data, weights.data() + oc0 * filter, bias.data() + oc0, p.C, p.KH, HP, WP, OH, OW,
                   p.out + (n * p.OC + oc0) * OH * OW, static_cast<int>(std::min(OCB, p.OC - oc0))};
      kForwardTasks[p.relu][p.KW - 1](t);
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
        for (int64_t kh0 = 0; kh0 < p.KH; kh0 += rows)
          kWeightGradPasses[p.KW - 1]({grad, channels, OH, OW, image.data + c * HP * WP, WP, kh0,
                                       static_cast<int>(std::min<int64_t>(rows, p.KH - kh0)), filter,
                                       sums.data() + (oc0 * filter + c * taps) * kLanes});
      if (p.db) bias_grad_planes(grad, channels, OH * OW, sums.data() + (OCP * filter + oc0) * kLanes);
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
