// A network's first layer, with few input channels (a grey or RGB image), in AVX-512
// registers: its pooled convolution y = max_pool2d(act(conv2d(x, w) + b)) in one
// kernel, and its weight (and bias) gradient in another.
//
// Note [The first layer in registers]
// A convolution of one input channel does 9 multiply-adds per output value (3x3) and
// reads nothing but a small image, yet oneDNN's direct kernel for it ran at 0.57 of the
// sgemm rate and then wrote its 32-channel result (8x the input) for the pool to read
// back: the Fashion-MNIST CNN's first pooled convolution at batch 64 took ~280 us, of
// which ~110 us convolving (bench_nabla cnn_conv_ops: conv1_fwd_step_frac=0.22; now
// ~95 us, 0.68-0.71). Here each task is one image and one block of 16 output channels:
// - the image is copied once into a zero-padded buffer, so no window needs a bounds
//   check;
// - a pooled row is computed G windows at a time (two conv rows of 2G columns: 4G
//   accumulators of 16 channels, G <= 4 keeps 16 of AVX-512's 32 registers for them);
// - for each input channel and kernel row, the KW weight vectors stay in registers
//   and each input cell is broadcast once, feeding every accumulator it touches;
// - the accumulators start at zero and sum over (channel, kernel row, kernel column)
//   with the bias added last, oneDNN's order, so the Fashion-MNIST CNN's compiled
//   forward equals eager's bit for bit (other shapes, where oneDNN picks another
//   kernel, agree to f32 rounding: tests/tensor/conv_few_channels.cpp);
// - the epilogue applies the activation and takes each window's maximum and which
//   cell held it with the planar pool's rule (a strictly greater cell, or a NaN, takes
//   over, in the order 0, 1, OW, OW + 1); after relu no cell is NaN, so that check
//   goes;
// - the full-size result is never stored; the windows' codes (Note [Window codes] in
//   kernels.hpp, a byte each) are all the indices the step keeps: as 8-byte flat
//   indices (streamed) they cost ~19% of the kernel's time.
// AVX-512 because the kernel is bound by its multiply-adds, and AVX2's half-width
// vectors would cap it at half the sgemm rate: the function carries the target
// attribute and runs only where oneDNN runs its AVX-512 kernels (blocked_activations:
// the same switch, DNNL_MAX_CPU_ISA, turns both off). Against oneDNN's path (the
// convolution, then the pool), batch 64, both with indices: 1 channel 28x28 to 32, 3x3,
// 2.8x; 5x5, 2.0x; 3 channels 32x32 to 32 or 64, 3x3, 1.7x; 4 channels to 32, 5x5, 1.3x.
#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>
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

// One task's view: the padded image (C planes of HP x WP), the block's weights
// transposed to [C][KH][KW][16], and where its pooled rows go.
struct Task {
  const float* image;
  const float* weights;
  const float* bias;  // 16 values
  int64_t C, KH, HP, WP, PW;
  float* values;      // the block's first pooled row: [PW][16] per row, `row_step` apart
  uint8_t* codes;     // laid out as values, or null
  int64_t row_step;
};

// A window's four cells -> its maximum and its code: which cell (0, 1, 2, 3: offsets
// 0, 1, OW, OW + 1) held it.
template <bool kRelu>
NABLA_AVX512 inline void window_max(const __m512 cells[4], __m512& best, __m512i& code) {
  const __m512 zero = _mm512_setzero_ps();
  // max(v, 0) takes a NaN to 0 (the second operand wins when either is NaN), as
  // oneDNN's relu post-op does (Note [A NaN through relu]); so after relu no cell is NaN.
  best = kRelu ? _mm512_max_ps(cells[0], zero) : cells[0];
  code = _mm512_setzero_si512();
  for (int k = 1; k < 4; ++k) {
    __m512 v = kRelu ? _mm512_max_ps(cells[k], zero) : cells[k];
    __mmask16 take = _mm512_cmp_ps_mask(v, best, _CMP_GT_OQ);
    if constexpr (!kRelu) take |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    best = _mm512_mask_blend_ps(take, best, v);
    code = _mm512_mask_blend_epi32(take, code, _mm512_set1_epi32(k));
  }
}

// Windows pw0 .. pw0 + G - 1 of pooled row ph.
template <int G, int KW, bool kRelu>
NABLA_AVX512 void pooled_windows(const Task& t, int64_t ph, int64_t pw0) {
  constexpr int kCols = 2 * G, kCells = kCols + KW - 1;  // conv columns; input cells per row
  __m512 acc[2][kCols];
#pragma GCC unroll 16
  for (int j = 0; j < kCols; ++j) acc[0][j] = acc[1][j] = _mm512_setzero_ps();
  for (int64_t c = 0; c < t.C; ++c)
    for (int64_t kh = 0; kh < t.KH; ++kh) {
      const float* w = t.weights + (c * t.KH + kh) * KW * kLanes;
      __m512 wv[KW];
#pragma GCC unroll 8
      for (int kw = 0; kw < KW; ++kw) wv[kw] = _mm512_loadu_ps(w + kw * kLanes);
      const float* top = t.image + (c * t.HP + 2 * ph + kh) * t.WP + 2 * pw0;
#pragma GCC unroll 2
      for (int r = 0; r < 2; ++r)
#pragma GCC unroll 16
        for (int q = 0; q < kCells; ++q) {
          __m512 cell = _mm512_set1_ps(top[r * t.WP + q]);
#pragma GCC unroll 8
          for (int kw = 0; kw < KW; ++kw)
            if (q - kw >= 0 && q - kw < kCols) acc[r][q - kw] = _mm512_fmadd_ps(wv[kw], cell, acc[r][q - kw]);
        }
    }
  const __m512 bias = _mm512_loadu_ps(t.bias);
#pragma GCC unroll 4
  for (int j = 0; j < G; ++j) {
    const __m512 cells[4] = {_mm512_add_ps(acc[0][2 * j], bias), _mm512_add_ps(acc[0][2 * j + 1], bias),
                             _mm512_add_ps(acc[1][2 * j], bias), _mm512_add_ps(acc[1][2 * j + 1], bias)};
    __m512 best;
    __m512i code;
    window_max<kRelu>(cells, best, code);
    int64_t at_out = ph * t.row_step + (pw0 + j) * kLanes;
    _mm512_storeu_ps(t.values + at_out, best);
    if (t.codes) _mm_storeu_si128(reinterpret_cast<__m128i*>(t.codes + at_out), _mm512_cvtepi32_epi8(code));
  }
}

// Every pooled row of one task, G windows at a time, the last few G' < G.
template <int KW, bool kRelu>
NABLA_AVX512 void pooled_block(const Task& t, int64_t PH) {
  for (int64_t ph = 0; ph < PH; ++ph) {
    int64_t pw = 0;
    for (; pw + 4 <= t.PW; pw += 4) pooled_windows<4, KW, kRelu>(t, ph, pw);
    switch (t.PW - pw) {
      case 3: pooled_windows<3, KW, kRelu>(t, ph, pw); break;
      case 2: pooled_windows<2, KW, kRelu>(t, ph, pw); break;
      case 1: pooled_windows<1, KW, kRelu>(t, ph, pw); break;
      default: break;
    }
  }
}

// [relu][KW - 1]
using BlockKernel = void (*)(const Task&, int64_t);
template <bool kRelu>
constexpr std::array<BlockKernel, kMaxFewChannelKernelWidth> kernels_by_width = {
    pooled_block<1, kRelu>, pooled_block<2, kRelu>, pooled_block<3, kRelu>, pooled_block<4, kRelu>,
    pooled_block<5, kRelu>, pooled_block<6, kRelu>, pooled_block<7, kRelu>};
constexpr std::array<BlockKernel, kMaxFewChannelKernelWidth> kBlockKernels[2] = {kernels_by_width<false>,
                                                                                kernels_by_width<true>};

// w [OC, C, KH, KW] -> [OC / 16][C][KH][KW][16]: each (c, kh, kw) of a block is one
// vector of its 16 output channels.
std::vector<float> weights_by_block(const FewChannelPooledConv& p) {
  int64_t taps = p.C * p.KH * p.KW;
  std::vector<float> out(static_cast<size_t>(p.OC * taps));
  for (int64_t oc = 0; oc < p.OC; ++oc)
    for (int64_t k = 0; k < taps; ++k) out[((oc / kLanes) * taps + k) * kLanes + oc % kLanes] = p.w[oc * taps + k];
  return out;
}

// ---------------------------------------------------------------------------
// Note [The first layer's weight gradient in registers]
// The same layer's weight gradient in a compiled training step, where its output
// gradient comes in nChw16c (the pool's gradient; Note [Blocked activations between
// convolutions]): dw[oc, c, kh, kw] sums grad[n, oc, h, w] * x[n, c, h + kh, w + kw]
// over 50K pixels, again 9 multiply-adds per gradient value for one 3x3 channel.
// oneDNN's backward-weights kernel ran it at 0.59-0.64 of the sgemm rate. Here each
// thread takes whole images, and per image, 16-channel block and input channel, one
// pass over the block's gradient (in cache: 50 KB at 28x28) keeps KW x rows sums in
// registers, a row's 8 gradient vectors, and broadcasts each input cell once per
// kernel row. The bias's gradient is one more pass. The threads' sums are added in
// thread order (parallel_reduce), so a thread count always gives the same result.
// bench_nabla cnn_conv_ops: conv1_bwd_weight_step_frac 0.61-0.64 -> 0.67-0.74.

constexpr int kGradPixels = 8;  // output pixels of a row whose gradients stay in registers

// Kernel rows a pass keeps accumulators for: rows x KW pairs of them (even and odd
// pixels apart), at most 18, with the row's 8 gradient vectors and one broadcast cell
// in AVX-512's 32 registers.
constexpr int rows_per_pass(int KW) { return std::min(8, 9 / KW); }

// One image's and block's output gradient, 8 pixels of a row at a time (`load`), over
// `rows` x `cols` pixels (the others have none).
struct DenseGradient {  // grad [OH][OW][16]
  const float* grad;
  int64_t OW, rows, cols;
  NABLA_AVX512 void load(int64_t h, int64_t w0, __m512 g[kGradPixels]) const {
    const int64_t valid = std::min<int64_t>(kGradPixels, cols - w0);
#pragma GCC unroll 8
    for (int j = 0; j < kGradPixels; ++j)
      g[j] = j < valid ? _mm512_loadu_ps(grad + (h * OW + w0 + j) * kLanes) : _mm512_setzero_ps();
  }
};

// The plain 2x2 pool's gradient [PH][PW][16] spread over its windows, as
// max_pool2d_backward would: pixel (h, w) gets cell (h / 2, w / 2)'s gradient in the
// lanes whose window code names it (rows 2 PH, cols 2 PW). `stray` collects the lanes
// whose code names no cell (the caller then declines).
//
// A window's code is decoded on its even row, where its lanes' masks for the odd row
// (codes 2 and 3) are kept in `odd_row` (2 PW of them), which the odd row, the next
// one the pass reads, only loads.
struct PooledGradient {
  const float* grad;
  const uint8_t* codes;
  int64_t PW, rows, cols;
  __mmask16* odd_row;
  mutable __mmask16 stray = 0;
  NABLA_AVX512 void load(int64_t h, int64_t w0, __m512 g[kGradPixels]) const {
    const int64_t ph = h / 2;
#pragma GCC unroll 4
    for (int k = 0; k < kGradPixels / 2; ++k) {
      const int64_t pw = w0 / 2 + k;
      if (2 * pw >= cols) {
        g[2 * k] = g[2 * k + 1] = _mm512_setzero_ps();
        continue;
      }
      const int64_t at = (ph * PW + pw) * kLanes;
      __mmask16 left, right;
      if (h % 2 == 0) {
        const __m128i code = _mm_loadu_si128(reinterpret_cast<const __m128i*>(codes + at));
        left = _mm_cmpeq_epi8_mask(code, _mm_setzero_si128());
        right = _mm_cmpeq_epi8_mask(code, _mm_set1_epi8(1));
        __mmask16 below_left = _mm_cmpeq_epi8_mask(code, _mm_set1_epi8(2));
        __mmask16 below_right = _mm_cmpeq_epi8_mask(code, _mm_set1_epi8(3));
        odd_row[2 * pw] = below_left;
        odd_row[2 * pw + 1] = below_right;
        stray |= static_cast<__mmask16>(~(left | right | below_left | below_right));
      } else {
        left = odd_row[2 * pw];
        right = odd_row[2 * pw + 1];
      }
      const __m512 cell = _mm512_loadu_ps(grad + at);
      g[2 * k] = _mm512_maskz_mov_ps(left, cell);
      g[2 * k + 1] = _mm512_maskz_mov_ps(right, cell);
    }
  }
};

// out[(kh - kh0) * KW + kw] (16 lanes each) += the sum over the image's output pixels
// of the gradient times the padded input plane at (h + kh, w + kw), for kernel rows
// kh0 .. kh0 + rows - 1 (rows <= rows_per_pass(KW)). Each sum runs as two chains,
// over even and odd pixels: 3x3 has 9 sums, and 9 chains of 4-cycle multiply-adds
// barely feed two units a cycle (one chain each: 0.70 of the core's peak,
// L2-resident; two: see bench_nabla cnn_conv_ops).
template <int KW, class Gradient>
NABLA_AVX512 void weight_grad_pass(const Gradient& source, const float* plane, int64_t WP, int64_t kh0, int rows,
                                   float* out) {
  constexpr int KHG = rows_per_pass(KW), kCells = kGradPixels + KW - 1;
  __m512 acc[2][KHG][KW];
#pragma GCC unroll 2
  for (int e = 0; e < 2; ++e)
#pragma GCC unroll 8
    for (int r = 0; r < KHG; ++r)
#pragma GCC unroll 8
      for (int kw = 0; kw < KW; ++kw) acc[e][r][kw] = _mm512_setzero_ps();
  for (int64_t h = 0; h < source.rows; ++h)
    for (int64_t w0 = 0; w0 < source.cols; w0 += kGradPixels) {
      __m512 g[kGradPixels];
      source.load(h, w0, g);
#pragma GCC unroll 8
      for (int r = 0; r < KHG; ++r) {
        if (r >= rows) break;
        const float* cells = plane + (h + kh0 + r) * WP + w0;
#pragma GCC unroll 16
        for (int q = 0; q < kCells; ++q) {
          __m512 cell = _mm512_set1_ps(cells[q]);
#pragma GCC unroll 8
          for (int kw = 0; kw < KW; ++kw) {
            const int j = q - kw;
            if (j >= 0 && j < kGradPixels) acc[j & 1][r][kw] = _mm512_fmadd_ps(g[j], cell, acc[j & 1][r][kw]);
          }
        }
      }
    }
  for (int r = 0; r < rows; ++r)
    for (int kw = 0; kw < KW; ++kw) {
      float* to = out + (r * KW + kw) * kLanes;
      _mm512_storeu_ps(to, _mm512_add_ps(_mm512_loadu_ps(to), _mm512_add_ps(acc[0][r][kw], acc[1][r][kw])));
    }
}

// out (16 lanes) += the sum of one block's gradient over an image's pixels.
NABLA_AVX512 void bias_grad_block(const float* grad, int64_t pixels, float* out) {
  __m512 sum[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
  int64_t i = 0;
  for (; i + 4 <= pixels; i += 4)
    for (int k = 0; k < 4; ++k) sum[k] = _mm512_add_ps(sum[k], _mm512_loadu_ps(grad + (i + k) * kLanes));
  for (; i < pixels; ++i) sum[0] = _mm512_add_ps(sum[0], _mm512_loadu_ps(grad + i * kLanes));
  __m512 total = _mm512_add_ps(_mm512_add_ps(sum[0], sum[1]), _mm512_add_ps(sum[2], sum[3]));
  _mm512_storeu_ps(out, _mm512_add_ps(_mm512_loadu_ps(out), total));
}

template <class Gradient>
using WeightGradPass = void (*)(const Gradient&, const float*, int64_t, int64_t, int, float*);
template <class Gradient>
constexpr std::array<WeightGradPass<Gradient>, kMaxFewChannelKernelWidth> kWeightGradPasses = {
    weight_grad_pass<1, Gradient>, weight_grad_pass<2, Gradient>, weight_grad_pass<3, Gradient>,
    weight_grad_pass<4, Gradient>, weight_grad_pass<5, Gradient>, weight_grad_pass<6, Gradient>,
    weight_grad_pass<7, Gradient>};

}  // namespace

bool pooled_conv_few_channels(const FewChannelPooledConv& p) {
  if (!blocked_activations() || p.C < 1 || p.C > kMaxFewChannels || p.KW < 1 || p.KW > kMaxFewChannelKernelWidth ||
      p.KH < 1 || p.OC % kLanes != 0 || (p.codes && !p.blocked))
    return false;
  const int64_t HP = p.H + 2 * p.pad_h, WP = p.W + 2 * p.pad_w;
  const int64_t OH = HP - p.KH + 1, OW = WP - p.KW + 1, PH = OH / 2, PW = OW / 2, blocks = p.OC / kLanes;
  if (PH < 1 || PW < 1 || !few_channels::padded_image_fits(p.C, HP, WP)) return false;
  std::vector<float> weights = weights_by_block(p), bias(static_cast<size_t>(p.OC), 0.0f);
  if (p.bias) std::copy(p.bias, p.bias + p.OC, bias.begin());
  const int64_t taps = p.C * p.KH * p.KW, plane = PH * PW;
  parallel_for(0, p.N * blocks, p.N * p.OC * OH * OW * taps, [&](int64_t lo, int64_t hi) {
    thread_local std::vector<float> image, tile;
    image.assign(static_cast<size_t>(p.C * HP * WP), 0.0f);
    tile.resize(static_cast<size_t>((PW + 7) / 8 * 8 * PH * kLanes));
    int64_t padded_of = -1;  // which image `image` holds
    for (int64_t task = lo; task < hi; ++task) {
      const int64_t n = task / blocks, block = task % blocks;
      if (n != padded_of) pad_image(p.x, n, p.C, p.H, p.W, p.pad_h, p.pad_w, HP, WP, image.data());
      padded_of = n;
      Task t{image.data(), weights.data() + block * taps * kLanes, bias.data() + block * kLanes, p.C, p.KH, HP, WP,
             PW, nullptr, nullptr, PW * kLanes};
      if (p.blocked) {
        int64_t at = (n * blocks + block) * plane * kLanes;
        t.values = p.out + at;
        t.codes = p.codes ? p.codes + at : nullptr;
      } else {  // the block's rows go to a tile, then to their 16 planes
        t.values = tile.data();
        t.row_step = (PW + 7) / 8 * 8 * kLanes;
      }
      kBlockKernels[p.relu][p.KW - 1](t, PH);
      if (!p.blocked)
        for (int64_t ph = 0; ph < PH; ++ph)
          write_planar(tile.data() + ph * t.row_step, PW, kLanes, kLanes,
                       p.out + ((n * p.OC + block * kLanes) * PH + ph) * PW, plane);
    }
  });
  return true;
}

namespace {

// The weight gradient's padded image rows: long enough that a row's last group of
// pixels reads zeros.
int64_t grad_padded_row(int64_t OW, int64_t KW) { return (OW + kGradPixels - 1) / kGradPixels * kGradPixels + KW - 1; }

// Images [lo, hi) into sums laid out [block][C][KH][KW][16], then [block][16] for the
// bias: per image and block, each input channel and group of kernel rows is one pass
// over the block's gradient, which stays in the core's cache between passes. With
// p.codes, also whether a code named no cell.
std::vector<float> weight_grad_of_images(const FewChannelWeightGrad& p, int64_t lo, int64_t hi, bool& strayed) {
  const int64_t HP = p.H + 2 * p.pad_h, OH = HP - p.KH + 1, OW = p.W + 2 * p.pad_w - p.KW + 1;
  const int64_t PH = OH / 2, PW = OW / 2, blocks = p.OC / kLanes, taps = p.C * p.KH * p.KW;
  const int64_t grad_plane = (p.codes ? PH * PW : OH * OW) * kLanes;
  const int64_t WP = grad_padded_row(OW, p.KW);
  std::vector<float> sums(static_cast<size_t>(blocks * (taps + 1) * kLanes), 0.0f);
  std::vector<float> image(static_cast<size_t>(p.C * HP * WP), 0.0f);
  const int rows = rows_per_pass(static_cast<int>(p.KW));
  std::vector<__mmask16> odd_row(static_cast<size_t>(2 * PW));
  __mmask16 stray = 0;
  for (int64_t n = lo; n < hi; ++n) {
    pad_image(p.x, n, p.C, p.H, p.W, p.pad_h, p.pad_w, HP, WP, image.data());
    for (int64_t b = 0; b < blocks; ++b) {
      const float* grad = p.grad + (n * blocks + b) * grad_plane;
      float* block_sums = sums.data() + b * taps * kLanes;
      DenseGradient dense{grad, OW, OH, OW};
      PooledGradient pooled{grad, p.codes ? p.codes + (n * blocks + b) * grad_plane : nullptr, PW, 2 * PH, 2 * PW,
                            odd_row.data()};
      for (int64_t c = 0; c < p.C; ++c)
        for (int64_t kh0 = 0; kh0 < p.KH; kh0 += rows) {
          const float* plane = image.data() + c * HP * WP;
          int n_rows = static_cast<int>(std::min<int64_t>(rows, p.KH - kh0));
          float* out = block_sums + (c * p.KH + kh0) * p.KW * kLanes;
          if (p.codes)
            kWeightGradPasses<PooledGradient>[p.KW - 1](pooled, plane, WP, kh0, n_rows, out);
          else
            kWeightGradPasses<DenseGradient>[p.KW - 1](dense, plane, WP, kh0, n_rows, out);
        }
      stray |= pooled.stray;
      bias_grad_block(grad, grad_plane / kLanes, sums.data() + (blocks * taps + b) * kLanes);
    }
  }
  strayed = stray != 0;
  return sums;
}

}  // namespace

bool conv_weight_grad_few_channels(const FewChannelWeightGrad& p) {
  if (!blocked_activations() || p.C < 1 || p.C > kMaxFewChannels || p.KW < 1 || p.KW > kMaxFewChannelKernelWidth ||
      p.KH < 1 || p.OC % kLanes != 0 || p.N < 1)
    return false;
  const int64_t OH = p.H + 2 * p.pad_h - p.KH + 1, OW = p.W + 2 * p.pad_w - p.KW + 1;
  if (OH < 1 || OW < 1 || (p.codes && (OH < 2 || OW < 2)) ||
      !few_channels::padded_image_fits(p.C, p.H + 2 * p.pad_h, grad_padded_row(OW, p.KW)))
    return false;
  const int64_t blocks = p.OC / kLanes, taps = p.C * p.KH * p.KW;
  using Sums = std::pair<std::vector<float>, bool>;  // and whether a code named no cell
  Sums sums = parallel_reduce(
      0, p.N, p.N * p.OC * OH * OW * taps, Sums(),
      [&](int64_t lo, int64_t hi) {
        Sums s;
        s.first = weight_grad_of_images(p, lo, hi, s.second);
        return s;
      },
      [](Sums a, const Sums& b) {
        return Sums(few_channels::add_sums(std::move(a.first), b.first), a.second || b.second);
      });
  if (sums.second) return false;
  for (int64_t oc = 0; oc < p.OC; ++oc) {
    for (int64_t k = 0; k < taps; ++k)
      p.dw[oc * taps + k] = sums.first[static_cast<size_t>(((oc / kLanes) * taps + k) * kLanes + oc % kLanes)];
    if (p.db) p.db[oc] = sums.first[static_cast<size_t>((blocks * taps + oc / kLanes) * kLanes + oc % kLanes)];
  }
  return true;
}

#else

bool pooled_conv_few_channels(const FewChannelPooledConv&) { return false; }
bool conv_weight_grad_few_channels(const FewChannelWeightGrad&) { return false; }

#endif

}  // namespace nabla::cpu
