// Quantization beyond the op sweep's PyTorch cases (docs/quantization.md): the
// round-trip error bounds of quantize/dequantize, the int8 GEMM and the int8
// convolution against exact integer references, the epilogue (f32, relu,
// requantized u8) against its formula computed here, the dynamic linear against its
// own composition and against f32, the quantization parameters' invariants, the
// weight repacking after an in-place change, the i8/u8 dtypes, and the error messages.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <tuple>

#include "autograd/engine.hpp"
#include "autograd/grad_mode.hpp"
#include "autograd/ops.hpp"
#include "tensor/cpu/quantized.hpp"
#include "tensor/random.hpp"

using namespace nabla;

namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

// Uniform integers in [lo, hi] as a tensor of dtype t.
Tensor random_ints(const Shape& shape, int64_t lo, int64_t hi, DType t, std::mt19937& gen) {
  std::uniform_int_distribution<int64_t> d(lo, hi);
  std::vector<double> v(static_cast<size_t>(shape_numel(shape)));
  for (double& x : v) x = static_cast<double>(d(gen));
  return tensor_from(v, shape, t);
}

// Random u8 or i8 values over the type's whole range (u8 255 and i8 -128 included).
Tensor random_full_range(const Shape& shape, DType t, std::mt19937& gen) {
  return t == DType::u8 ? random_ints(shape, 0, 255, t, gen) : random_ints(shape, -128, 127, t, gen);
}

// sum_k (a[m, k] - zp) * w[n, k] in 64-bit integers.
std::vector<int64_t> reference_sums(const Tensor& a, int64_t zp, const Tensor& w) {
  std::vector<double> av = to_double_vector(a), wv = to_double_vector(w);
  int64_t M = a.sizes()[0], K = a.sizes()[1], N = w.sizes()[0];
  std::vector<int64_t> out(static_cast<size_t>(M * N));
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      int64_t s = 0;
      for (int64_t k = 0; k < K; ++k)
        s += (static_cast<int64_t>(av[m * K + k]) - zp) * static_cast<int64_t>(wv[n * K + k]);
      out[m * N + n] = s;
    }
  return out;
}

// Note [Int8 epilogue] computed here: every f32 operation is done in double and
// rounded to f32 (for +, *, / that gives f32's correctly rounded result, since double
// has more than 2 * 24 + 2 bits), so the reference cannot fuse or reorder anything.
struct EpilogueRef {
  double input_scale;
  std::vector<double> weight_scales, bias;  // bias empty: none
  bool relu = false;
  double output_scale = 0;  // 0: f32
  int64_t output_zero_point = 0;

  double operator()(int64_t sum, int64_t channel) const {
    float scale = static_cast<float>(static_cast<double>(static_cast<float>(input_scale)) *
                                     static_cast<float>(weight_scales[channel]));
    float v = static_cast<float>(static_cast<double>(static_cast<float>(sum)) * scale);
    if (!bias.empty()) v = static_cast<float>(static_cast<double>(v) + static_cast<float>(bias[channel]));
    if (relu) v = std::max(v, 0.0f);
    if (output_scale == 0) return v;
    float inv = static_cast<float>(1.0 / static_cast<double>(static_cast<float>(output_scale)));
    float t = static_cast<float>(static_cast<double>(v) * inv);
    return static_cast<double>(std::clamp<int64_t>(std::llrint(t) + output_zero_point, 0, 255));  // half to even
  }
};

// How many of got's elements differ from the reference epilogue of `sums`, whose
// element i belongs to output channel channel_of(i).
int64_t epilogue_mismatches(const Tensor& got, const std::vector<int64_t>& sums, const EpilogueRef& ref,
                            const std::function<int64_t(int64_t)>& channel_of) {
  auto g = to_double_vector(got);
  int64_t bad = 0;
  for (size_t i = 0; i < sums.size(); ++i) bad += g[i] != ref(sums[i], channel_of(static_cast<int64_t>(i)));
  return bad;
}

struct ConvCase {
  int64_t N, C, H, W, OC, KH, KW;
  cpu::Pair stride, pad, dilation;
  int64_t groups;
};

cpu::ConvGeometry geometry_of(const ConvCase& c) {
  auto out = [](int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) { return (in + 2 * p - d * (k - 1) - 1) / s + 1; };
  return {c.N, c.C, c.H, c.W, c.OC, c.KH, c.KW, out(c.H, c.KH, c.stride.h, c.pad.h, c.dilation.h),
          out(c.W, c.KW, c.stride.w, c.pad.w, c.dilation.w), c.stride, c.pad, c.dilation, c.groups};
}

Conv2dOptions options_of(const ConvCase& c) {
  return {{c.stride.h, c.stride.w}, {c.pad.h, c.pad.w}, {c.dilation.h, c.dilation.w}, c.groups};
}

// The convolution's sums by a direct loop in 64-bit integers, NCHW: the padding holds
// the zero point, so it adds (zp - zp) * w = 0 and is skipped.
std::vector<int64_t> reference_conv_sums(const Tensor& x, int64_t zp, const Tensor& w, const cpu::ConvGeometry& g) {
  std::vector<double> xv = to_double_vector(x), wv = to_double_vector(w);
  int64_t Cg = g.C / g.groups, OCg = g.OC / g.groups;
  std::vector<int64_t> out(static_cast<size_t>(g.N * g.OC * g.OH * g.OW));
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t oc = 0; oc < g.OC; ++oc)
      for (int64_t oh = 0; oh < g.OH; ++oh)
        for (int64_t ow = 0; ow < g.OW; ++ow) {
          int64_t s = 0;
          for (int64_t c = 0; c < Cg; ++c)
            for (int64_t kh = 0; kh < g.KH; ++kh)
              for (int64_t kw = 0; kw < g.KW; ++kw) {
                int64_t ih = oh * g.stride.h - g.pad.h + kh * g.dilation.h;
                int64_t iw = ow * g.stride.w - g.pad.w + kw * g.dilation.w;
                if (ih < 0 || ih >= g.H || iw < 0 || iw >= g.W) continue;
                int64_t ic = oc / OCg * Cg + c;
                s += (static_cast<int64_t>(xv[((n * g.C + ic) * g.H + ih) * g.W + iw]) - zp) *
                     static_cast<int64_t>(wv[((oc * Cg + c) * g.KH + kh) * g.KW + kw]);
              }
          out[((n * g.OC + oc) * g.OH + oh) * g.OW + ow] = s;
        }
  return out;
}

// Symmetric per-channel i8 weights of wf and their scales, as quant.quantize_dynamic
// makes them (amax / 127.5 per output channel).
std::pair<Tensor, Tensor> symmetric_per_channel(const Tensor& wf) {
  int64_t N = wf.sizes()[0], K = wf.sizes()[1];
  auto wv = to_double_vector(wf);
  std::vector<double> sv(static_cast<size_t>(N));
  for (int64_t n = 0; n < N; ++n) {
    double amax = 0;
    for (int64_t k = 0; k < K; ++k) amax = std::max(amax, std::abs(wv[n * K + k]));
    sv[n] = amax / 127.5;
  }
  Tensor ws = tensor_from(sv, {N}, DType::f32);
  return {quantize_per_channel(wf, ws, zeros({N}, DType::i64), 0, DType::i8), ws};
}

// Elements of the i32 tensor `got` that differ from the exact sums `want`.
int64_t mismatches(const Tensor& got, const std::vector<int64_t>& want) {
  auto g = to_double_vector(got);
  int64_t count = 0;
  for (size_t i = 0; i < want.size(); ++i) count += static_cast<int64_t>(g[i]) != want[i];
  return count;
}

// Runs check on both paths of Note [Int8 without VNNI], whatever the CPU: its own
// choice, then every activation byte split in two halves.
void on_both_int8_paths(const std::function<void()>& check) {
  for (bool split : {false, true}) {
    CAPTURE(split);
    cpu::force_int8_split_halves(split);
    check();
  }
  cpu::force_int8_split_halves(false);
}

double max_abs_diff(const Tensor& a, const Tensor& b) {
  auto x = to_double_vector(a), y = to_double_vector(b);
  double d = 0;
  for (size_t i = 0; i < x.size(); ++i) d = std::max(d, std::abs(x[i] - y[i]));
  return d;
}

}  // namespace

TEST_CASE("quantize then dequantize is within half a step inside the range, and clamps outside") {
  manual_seed(3);
  struct Setting {
    DType dtype;
    double scale;
    int64_t zero_point, qmin, qmax;
  };
  for (Setting s : {Setting{DType::u8, 0.02, 128, 0, 255}, Setting{DType::i8, 0.05, -3, -128, 127},
                    Setting{DType::i32, 1e-4, 17, INT32_MIN, INT32_MAX}}) {
    CAPTURE(dtype_name(s.dtype));
    Tensor x = randn({40, 25}) * 3.0;
    Tensor back = dequantize_per_tensor(quantize_per_tensor(x, s.scale, s.zero_point, s.dtype), s.scale, s.zero_point);
    double lo = (s.qmin - s.zero_point) * s.scale, hi = (s.qmax - s.zero_point) * s.scale;
    auto xv = to_double_vector(x), bv = to_double_vector(back);
    int inside = 0, outside = 0;
    for (size_t i = 0; i < xv.size(); ++i) {
      if (xv[i] >= lo && xv[i] <= hi) {
        ++inside;
        CHECK(std::abs(bv[i] - xv[i]) <= s.scale / 2 * (1 + 1e-5));
      } else {
        ++outside;
        CHECK(bv[i] == doctest::Approx(xv[i] < lo ? lo : hi).epsilon(1e-6));
      }
    }
    CHECK(inside > 0);
    if (s.dtype != DType::i32) CHECK(outside > 0);  // the settings make both happen
  }
}

TEST_CASE("per-channel quantization: each channel within half its own step") {
  manual_seed(4);
  Tensor x = randn({3, 5, 4});
  Tensor scales = tensor_from({0.01, 0.1, 0.03, 0.2, 0.05}, {5}, DType::f64);
  Tensor zero_points = tensor_from({0, 3, -2, 1, 0}, {5}, DType::i64);
  Tensor q = quantize_per_channel(x, scales, zero_points, 1, DType::i8);
  Tensor back = dequantize_per_channel(q, scales, zero_points, 1);
  auto xv = to_double_vector(x), bv = to_double_vector(back), sv = to_double_vector(scales),
       zv = to_double_vector(zero_points);
  for (int64_t i = 0; i < x.numel(); ++i) {
    int64_t c = i / 4 % 5;
    double lo = (-128 - zv[c]) * sv[c], hi = (127 - zv[c]) * sv[c];
    double want = std::min(std::max(xv[i], lo), hi);
    CHECK(std::abs(bv[i] - want) <= sv[c] / 2 * (1 + 1e-5));
  }
}

TEST_CASE("the int8 GEMM equals an exact integer reference") {
  on_both_int8_paths([] {
    std::mt19937 gen(7);
    struct Shape3 {
      int64_t M, K, N;
    };
    // Full value ranges (u8 255, i8 -128) and shapes around the kernel's blockings; the
    // first two are big enough to run row-parallel (65 rows: uneven blocks), the third
    // is one row of a big layer (oneDNN threads it).
    for (Shape3 s : {Shape3{64, 784, 256}, Shape3{65, 784, 256}, Shape3{1, 4096, 2048}, Shape3{1, 784, 256},
                     Shape3{7, 3, 33}, Shape3{5, 1000, 10}, Shape3{2, 1, 1}, Shape3{65, 129, 17}}) {
      for (DType at : {DType::u8, DType::i8}) {
        CAPTURE(s.M);
        CAPTURE(s.K);
        CAPTURE(s.N);
        CAPTURE(dtype_name(at));
        Tensor a = random_full_range({s.M, s.K}, at, gen);
        Tensor w = random_full_range({s.N, s.K}, DType::i8, gen);
        int64_t zp = at == DType::u8 ? 131 : -7;
        Tensor out = empty({s.M, s.N}, DType::i32);
        cpu::int8_gemm_s32(a, static_cast<int32_t>(zp), w, out);
        std::vector<int64_t> want = reference_sums(a, zp, w);
        CHECK(mismatches(out, want) == 0);
      }
    }
  });
}

TEST_CASE("the int8 GEMM is exact on 7-bit activations (reduce_range), which need one GEMM when split") {
  on_both_int8_paths([] {
    std::mt19937 gen(9);
    Tensor a = random_ints({9, 70}, 0, 127, DType::u8, gen);
    Tensor w = random_ints({33, 70}, -128, 127, DType::i8, gen);
    Tensor out = empty({9, 33}, DType::i32);
    cpu::int8_gemm_s32(a, 64, w, out);
    CHECK(mismatches(out, reference_sums(a, 64, w)) == 0);
  });
}

TEST_CASE("quantized_linear: the exact sums times the scales plus the bias") {
  std::mt19937 gen(8);
  Tensor x = random_ints({6, 300}, 0, 255, DType::u8, gen);
  Tensor w = random_ints({20, 300}, -128, 127, DType::i8, gen);
  Tensor ws = rand({20}) * 0.01 + 0.001;
  Tensor b = randn({20});
  double xs = 0.037;
  int64_t zp = 99;
  Tensor y = quantized_linear(x, xs, zp, w, ws, b);
  std::vector<int64_t> sums = reference_sums(x, zp, w);
  auto wsv = to_double_vector(ws), bv = to_double_vector(b), yv = to_double_vector(y);
  for (int64_t m = 0; m < 6; ++m)
    for (int64_t n = 0; n < 20; ++n) {
      float want = static_cast<float>(sums[m * 20 + n]) * (static_cast<float>(xs) * static_cast<float>(wsv[n])) +
                   static_cast<float>(bv[n]);
      CHECK(yv[m * 20 + n] == doctest::Approx(want).epsilon(1e-6));
    }
  // A batch of any rank: the leading dims are rows.
  Tensor y3 = quantized_linear(reshape(x, {2, 3, 300}), xs, zp, w, ws, b);
  CHECK(y3.sizes() == Shape{2, 3, 20});
  CHECK(max_abs_diff(reshape(y3, {6, 20}), y) == 0);
}

TEST_CASE("quantized_linear: relu and requantized u8 outputs follow the epilogue's formula exactly") {
  std::mt19937 gen(11);
  // 19 channels: the vector loop and its scalar tail. The sums span several hundred
  // output steps, so the clamping at 0 and 255 happens too.
  Tensor x = random_ints({37, 150}, 0, 255, DType::u8, gen);
  Tensor w = random_ints({19, 150}, -128, 127, DType::i8, gen);
  Tensor ws = rand({19}) * 0.004 + 0.001;
  Tensor b = randn({19});
  double xs = 0.02;
  int64_t zp = 117;
  std::vector<int64_t> sums = reference_sums(x, zp, w);
  EpilogueRef ref{xs, to_double_vector(ws), to_double_vector(b)};
  auto channel = [](int64_t i) { return i % 19; };
  for (bool relu : {false, true})
    for (auto [os, ozp] : {std::pair{0.0, int64_t{0}}, std::pair{0.05, int64_t{0}}, std::pair{0.031, int64_t{77}}}) {
      CAPTURE(relu);
      CAPTURE(os);
      ref.relu = relu, ref.output_scale = os, ref.output_zero_point = ozp;
      Tensor y = quantized_linear(x, xs, zp, w, ws, b, os, ozp, relu);
      CHECK(y.dtype() == (os > 0 ? DType::u8 : DType::f32));
      CHECK(epilogue_mismatches(y, sums, ref, channel) == 0);
      if (os > 0) {  // the settings reach both ends of u8
        auto yv = to_double_vector(y);
        CHECK(std::count(yv.begin(), yv.end(), 255.0) > 0);
        CHECK(std::count(yv.begin(), yv.end(), relu ? static_cast<double>(ozp) : 0.0) > 0);
      }
    }
  // Without a bias, i8 activations, in a batch of rank 3.
  Tensor xi = random_ints({2, 5, 150}, -128, 127, DType::i8, gen);
  Tensor y = quantized_linear(xi, 0.05, -4, w, ws, Tensor(), 0.1, 128, true);
  EpilogueRef nobias{0.05, to_double_vector(ws), {}, true, 0.1, 128};
  CHECK(epilogue_mismatches(y, reference_sums(reshape(xi, {10, 150}), -4, w), nobias, channel) == 0);
}

// Note [Int8 epilogue]: the u8 output is quantize_per_tensor's formula applied to the
// f32 output, which passes/lower_quant.cpp relies on. Sums of zero (every activation
// at its zero point) make the f32 output the bias itself, so the bias can put values
// right at ties of v * (1 / s), where a true division v / s rounds the other way.
TEST_CASE("a requantized output is quantize_per_tensor of the f32 output, bit for bit") {
  const float s = 0.1f, inv = 1.0f / s;
  std::vector<double> near_ties;
  for (int k = 0; k < 200; ++k) {
    float b = (static_cast<float>(k) + 0.5f) * s;
    for (int step = 0; step < 8; ++step) b = std::nextafter(b, 0.0f);
    for (int step = 0; step < 16; ++step, b = std::nextafter(b, 1e9f))
      if (std::nearbyint(b * inv) != std::nearbyint(b / s)) near_ties.push_back(b);
  }
  REQUIRE(near_ties.size() >= 8);
  int64_t n = static_cast<int64_t>(near_ties.size());
  Tensor bias = tensor_from(near_ties, {n}, DType::f32);
  Tensor x = full({3, 8}, 17.0, DType::u8);
  Tensor w = full({n, 8}, 5.0, DType::i8);
  Tensor ws = full({n}, 0.01, DType::f32);
  Tensor f32_out = quantized_linear(x, 0.02, 17, w, ws, bias);
  CHECK(max_abs_diff(f32_out, expand(reshape(bias, {1, n}), {3, n})) == 0);
  Tensor u8_out = quantized_linear(x, 0.02, 17, w, ws, bias, s, 0);
  CHECK(max_abs_diff(u8_out, quantize_per_tensor(f32_out, s, 0, DType::u8)) == 0);
  // And on random data, for both rows, with relu and a zero point.
  std::mt19937 gen(17);
  Tensor xr = random_ints({64, 200}, 0, 255, DType::u8, gen);
  Tensor wr = random_ints({40, 200}, -128, 127, DType::i8, gen);
  Tensor wsr = rand({40}) * 0.004 + 0.001;
  Tensor br = randn({40});
  for (bool relu : {false, true}) {
    Tensor v = quantized_linear(xr, 0.02, 120, wr, wsr, br, 0.0, 0, relu);
    CHECK(max_abs_diff(quantized_linear(xr, 0.02, 120, wr, wsr, br, 0.07, 31, relu),
                       quantize_per_tensor(v, 0.07, 31, DType::u8)) == 0);
  }
  Tensor xc = random_ints({2, 4, 9, 9}, 0, 255, DType::u8, gen);
  Tensor wc = random_ints({6, 4, 3, 3}, -128, 127, DType::i8, gen);
  Tensor wsc = rand({6}) * 0.004 + 0.001;
  Conv2dOptions opt;
  opt.padding = {1, 1};
  Tensor vc = quantized_conv2d(xc, 0.03, 90, wc, wsc, Tensor(), opt, 0.0, 0, true);
  CHECK(max_abs_diff(quantized_conv2d(xc, 0.03, 90, wc, wsc, Tensor(), opt, 0.05, 2, true),
                     quantize_per_tensor(vc, 0.05, 2, DType::u8)) == 0);
}

TEST_CASE("the int8 convolution's sums equal a direct integer loop") {
  on_both_int8_paths([] {
    std::mt19937 gen(12);
    // Padding with a nonzero zero point, stride 2, dilation, groups (and depthwise),
    // 1x1, unequal kernel/stride/padding per dim, the Fashion-MNIST CNN's two layers
    // (one input channel: no input reorder), and tails of the epilogue's 8 x 8 blocks.
    for (ConvCase c : {ConvCase{2, 3, 9, 9, 8, 3, 3, {1, 1}, {1, 1}, {1, 1}, 1},
                       ConvCase{2, 4, 11, 10, 6, 3, 3, {2, 2}, {1, 1}, {1, 1}, 1},
                       ConvCase{1, 5, 12, 12, 7, 3, 3, {1, 1}, {2, 2}, {2, 2}, 1},
                       ConvCase{2, 6, 8, 8, 4, 3, 3, {1, 1}, {1, 1}, {1, 1}, 2},
                       ConvCase{1, 8, 7, 7, 8, 3, 3, {1, 1}, {1, 1}, {1, 1}, 8},
                       ConvCase{3, 16, 5, 5, 24, 1, 1, {1, 1}, {0, 0}, {1, 1}, 1},
                       ConvCase{2, 3, 9, 13, 5, 3, 2, {2, 1}, {1, 0}, {1, 2}, 1},
                       ConvCase{4, 1, 28, 28, 32, 3, 3, {1, 1}, {1, 1}, {1, 1}, 1},
                       ConvCase{3, 32, 14, 14, 64, 3, 3, {1, 1}, {1, 1}, {1, 1}, 1}}) {
      cpu::ConvGeometry g = geometry_of(c);
      for (DType xt : {DType::u8, DType::i8}) {
        CAPTURE(c.C);
        CAPTURE(c.OC);
        CAPTURE(c.groups);
        CAPTURE(dtype_name(xt));
        int64_t zp = xt == DType::u8 ? 131 : -7;
        Tensor x = random_full_range({c.N, c.C, c.H, c.W}, xt, gen);
        Tensor w = random_full_range({c.OC, c.C / c.groups, c.KH, c.KW}, DType::i8, gen);
        Tensor out = empty({g.N, g.OC, g.OH, g.OW}, DType::i32);
        cpu::int8_conv2d_s32(x, static_cast<int32_t>(zp), w, g, out);
        std::vector<int64_t> want = reference_conv_sums(x, zp, w, g);
        CHECK(mismatches(out, want) == 0);
      }
    }
  });
}

TEST_CASE("quantized_conv2d: f32, relu and requantized outputs follow the epilogue's formula exactly") {
  std::mt19937 gen(13);
  // 13 output channels and 7 x 6 positions: full 8 x 8 blocks and both tails.
  ConvCase c{3, 6, 13, 12, 13, 3, 3, {2, 2}, {2, 1}, {1, 1}, 1};
  cpu::ConvGeometry g = geometry_of(c);
  Tensor x = random_ints({c.N, c.C, c.H, c.W}, 0, 255, DType::u8, gen);
  Tensor w = random_ints({c.OC, c.C, c.KH, c.KW}, -128, 127, DType::i8, gen);
  Tensor ws = rand({c.OC}) * 0.004 + 0.001;
  Tensor b = randn({c.OC});
  double xs = 0.03;
  int64_t zp = 90;
  std::vector<int64_t> sums = reference_conv_sums(x, zp, w, g);
  int64_t positions = g.OH * g.OW;
  auto channel = [&](int64_t i) { return i / positions % c.OC; };
  EpilogueRef ref{xs, to_double_vector(ws), to_double_vector(b)};
  for (bool relu : {false, true})
    for (auto [os, ozp] : {std::pair{0.0, int64_t{0}}, std::pair{0.04, int64_t{3}}, std::pair{0.02, int64_t{200}}}) {
      CAPTURE(relu);
      CAPTURE(os);
      ref.relu = relu, ref.output_scale = os, ref.output_zero_point = ozp;
      Tensor y = quantized_conv2d(x, xs, zp, w, ws, b, options_of(c), os, ozp, relu);
      CHECK(y.sizes() == Shape{g.N, g.OC, g.OH, g.OW});
      CHECK(y.dtype() == (os > 0 ? DType::u8 : DType::f32));
      CHECK(epilogue_mismatches(y, sums, ref, channel) == 0);
    }
  // i8 activations, groups, no bias; and an empty batch.
  ConvCase grouped{2, 4, 8, 8, 6, 3, 3, {1, 1}, {1, 1}, {1, 1}, 2};
  Tensor xi = random_ints({2, 4, 8, 8}, -128, 127, DType::i8, gen);
  Tensor wg = random_ints({6, 2, 3, 3}, -128, 127, DType::i8, gen);
  Tensor wgs = rand({6}) * 0.01 + 0.001;
  Tensor y = quantized_conv2d(xi, 0.05, -10, wg, wgs, Tensor(), options_of(grouped), 0.2, 10, true);
  EpilogueRef nobias{0.05, to_double_vector(wgs), {}, true, 0.2, 10};
  CHECK(epilogue_mismatches(y, reference_conv_sums(xi, -10, wg, geometry_of(grouped)), nobias,
                            [](int64_t i) { return i / 64 % 6; }) == 0);
  Tensor none = quantized_conv2d(empty({0, 4, 8, 8}, DType::u8), 0.1, 0, wg, wgs, Tensor(), options_of(grouped));
  CHECK(none.sizes() == Shape{0, 6, 8, 8});
}

TEST_CASE("quantized_conv2d is close to the f32 convolution of the dequantized values") {
  manual_seed(14);
  Tensor xf = relu(randn({4, 8, 10, 10}));
  Tensor wf = randn({16, 8, 3, 3}) * 0.1;
  Tensor b = randn({16}) * 0.1;
  auto [wq2, ws] = symmetric_per_channel(reshape(wf, {16, 72}));
  Tensor wq = reshape(wq2, {16, 8, 3, 3});
  double xs = 4.0 / 255;
  Tensor xq = quantize_per_tensor(xf, xs, 0, DType::u8);
  Conv2dOptions opt{{1, 1}, {1, 1}, {1, 1}, 1};
  Tensor want = conv2d(dequantize_per_tensor(xq, xs, 0),
                       reshape(dequantize_per_channel(wq2, ws, zeros({16}, DType::i64), 0), {16, 8, 3, 3}), b, opt);
  Tensor y = quantized_conv2d(xq, xs, 0, wq, ws, b, opt);
  CHECK(max_abs_diff(y, want) < 1e-4);
}

TEST_CASE("the int8 convolution repacks a weight changed in place") {
  std::mt19937 gen(15);
  Tensor x = random_ints({2, 4, 6, 6}, 0, 255, DType::u8, gen);
  Tensor w = random_ints({8, 4, 3, 3}, -60, 60, DType::i8, gen);
  Tensor ws = full({8}, 0.5, DType::f32);
  Conv2dOptions opt{{1, 1}, {1, 1}, {1, 1}, 1};
  Tensor before = quantized_conv2d(x, 1.0, 3, w, ws, Tensor(), opt);
  {
    NoGradGuard no_grad;
    copy_(w, w * 2.0);
  }
  CHECK(max_abs_diff(quantized_conv2d(x, 1.0, 3, w, ws, Tensor(), opt), before * 2.0) == 0);
}

TEST_CASE("dynamic_quantized_linear is its composition, and close to f32") {
  manual_seed(9);
  // The second shape runs row-parallel (Note [Row-parallel int8 linear]), in uneven blocks.
  for (auto [M, K, N] : {std::tuple<int64_t, int64_t, int64_t>{64, 200, 30}, {67, 784, 256}}) {
    Tensor x = randn({M, K}) * 2.0;
    Tensor wf = randn({N, K}) * 0.1;
    Tensor b = randn({N});
    auto [wq, ws] = symmetric_per_channel(wf);
    for (bool reduce_range : {false, true}) {
      CAPTURE(M);
      CAPTURE(reduce_range);
      Tensor y = dynamic_quantized_linear(x, wq, ws, b, reduce_range);
      float lo, hi;
      cpu::min_max_f32(x, &lo, &hi);
      cpu::QuantParams p = cpu::choose_quant_params(lo, hi, 0, 255, reduce_range);
      Tensor xq = quantize_per_tensor(x, p.scale, p.zero_point, DType::u8);
      if (reduce_range) CHECK(to_double_vector(max(xq))[0] <= 127);
      CHECK(max_abs_diff(y, quantized_linear(xq, p.scale, p.zero_point, wq, ws, b)) == 0);
      // Against f32: the root-mean-square error of 8-bit activations and weights stays
      // a small part of the output's spread. Expected about 1.2%: the input's range
      // of about 8 sigma over 255 steps leaves a rounding error of 0.9% of its sigma,
      // the weights' 3.2 sigma over 127.5 steps 0.7%; reduce_range's 7 bits double
      // the first.
      Tensor yf = linear(x, wf, b);
      double spread = to_double_vector(nabla::std(yf))[0];
      double rms = std::sqrt(to_double_vector(mean((y - yf) * (y - yf)))[0]);
      CHECK(rms < (reduce_range ? 0.04 : 0.02) * spread);
    }
  }
}

TEST_CASE("choose_quant_params: zero is exact, the range is covered, reduce_range halves it") {
  for (auto [lo, hi] : {std::pair{-1.3f, 2.7f}, std::pair{0.5f, 4.0f}, std::pair{-6.0f, -0.25f}, std::pair{0.0f, 0.0f},
                        std::pair{-1e-9f, 1e-9f}}) {
    CAPTURE(lo);
    CAPTURE(hi);
    for (bool rr : {false, true}) {
      cpu::QuantParams p = cpu::choose_quant_params(lo, hi, 0, 255, rr);
      int32_t qmax = rr ? 127 : 255;
      CHECK(p.scale > 0);
      CHECK(p.zero_point >= 0);
      CHECK(p.zero_point <= qmax);
      // Both ends (widened to hold 0) land within half a step of the grid's range.
      float rlo = std::min(lo, 0.0f), rhi = std::max(hi, 0.0f);
      CHECK((0 - p.zero_point) * p.scale <= rlo + p.scale / 2);
      CHECK((qmax - p.zero_point) * p.scale >= rhi - p.scale / 2);
    }
  }
  // The MLP's inputs after ReLU: [0, max] maps 0 to zero point 0.
  CHECK(cpu::choose_quant_params(0.0f, 3.0f, 0, 255, false).zero_point == 0);
  CHECK(cpu::choose_quant_params(0.0f, 3.0f, 0, 255, false).scale == doctest::Approx(3.0 / 255));
}

TEST_CASE("the int8 linear repacks a weight changed in place") {
  std::mt19937 gen(10);
  Tensor x = random_ints({4, 64}, 0, 255, DType::u8, gen);
  Tensor w = random_ints({8, 64}, -60, 60, DType::i8, gen);
  Tensor ws = full({8}, 0.5, DType::f32);
  Tensor before = quantized_linear(x, 1.0, 0, w, ws);
  {
    NoGradGuard no_grad;
    Tensor doubled = w * 2.0;  // still within i8
    copy_(w, doubled);
  }
  Tensor after = quantized_linear(x, 1.0, 0, w, ws);
  CHECK(max_abs_diff(after, before * 2.0) == 0);
}

TEST_CASE("i8 and u8 tensors: casts from floats wrap, promotion, printing") {
  Tensor f = tensor_from({300.0, -1.0, 127.9, -129.0}, {4});
  CHECK(to_double_vector(to_dtype(f, DType::u8)) == std::vector<double>{44, 255, 127, 127});
  CHECK(to_double_vector(to_dtype(f, DType::i8)) == std::vector<double>{44, -1, 127, 127});
  CHECK(promote_types(DType::i8, DType::u8) == DType::i16);  // PyTorch's int16
  CHECK(promote_types(DType::u8, DType::i64) == DType::i64);
  CHECK(promote_types(DType::i8, DType::f32) == DType::f32);
  Tensor a = tensor_from({1, 2, 250}, {3}, DType::u8);
  CHECK((a + a).dtype() == DType::u8);  // same dtype stays, wrapping as PyTorch's uint8 does
  CHECK(to_double_vector(a + a) == std::vector<double>{2, 4, 244});
  CHECK(a.str() == "tensor([  1,   2, 250], dtype=u8)");
  CHECK(tensor_from({-5}, {1}, DType::i8).str() == "tensor([-5], dtype=i8)");
  DType t;
  CHECK((dtype_from_name("u8", &t) && t == DType::u8));
  CHECK(dtype_size(DType::i8) == 1);
}

TEST_CASE("quantized values carry no gradient") {
  Tensor x = randn({3}).set_requires_grad(true);
  Tensor q = quantize_per_tensor(x, 0.1, 0, DType::i8);
  CHECK_FALSE(q.requires_grad());
  Tensor back = dequantize_per_tensor(q, 0.1, 0);
  CHECK_FALSE(back.requires_grad());
  // Fake quantization is the differentiable path (the straight-through estimator).
  Tensor fq = fake_quantize_per_tensor(x, 0.1, 0, -128, 127);
  CHECK(fq.requires_grad());
  Tensor g = grad({sum(fq)}, {x})[0];
  CHECK(to_double_vector(g) == std::vector<double>{1, 1, 1});
}

TEST_CASE("quantization errors name the op, the argument and what was found") {
  Tensor x = randn({4, 5});
  CHECK(error_of([&] {
          quantize_per_channel(x, ones({3}), zeros({4}, DType::i64), 0, DType::i8);
        }) == "quantize_per_channel: argument 'scales' of shape [3] has 3 elements but axis 0 of 'input' of shape "
              "[4, 5] has 4");
  CHECK(error_of([&] { quantize_per_channel(x, ones({5}), zeros({5}), 1, DType::i8); }) ==
        "quantize_per_channel: argument 'zero_points' must be an integer tensor, got f32");
  CHECK(error_of([&] { quantize_per_tensor(x, 0.0, 0, DType::u8); }) ==
        "quantize_per_tensor: argument 'scale' must be positive and finite, got 0");
  CHECK(error_of([&] { quantize_per_tensor(x, 0.1, 300, DType::u8); }) ==
        "quantize_per_tensor: argument 'zero_point' must lie in [0, 255] (the range of u8), got 300");
  CHECK(error_of([&] { quantize_per_tensor(x, 0.1, 0, DType::f16); }) ==
        "quantize_per_tensor: argument 'dtype' must be u8, i8 or i32, got f16");
  CHECK(error_of([&] {
          quantize_per_channel(x, tensor_from({0.1, -0.2, 0.1, 0.1}, {4}), zeros({4}, DType::i64), 0, DType::i8);
        }) == "quantize_per_channel: argument 'scales' must hold positive finite values, element 1 is -0.200000");
  CHECK(error_of([&] { dequantize_per_tensor(x, 0.1, 0); }) ==
        "dequantize_per_tensor: argument 'input' must be u8, i8 or i32, got f32");
  CHECK(error_of([&] { fake_quantize_per_tensor(x, 0.1, 0, 10, -10); }) ==
        "fake_quantize_per_tensor: argument 'quant_min' (10) must not exceed 'quant_max' (-10)");
  CHECK(error_of([&] { fake_quantize_per_tensor(x, 0.1, 20, 0, 15); }) ==
        "fake_quantize_per_tensor: argument 'zero_point' must lie in [0, 15] ([quant_min, quant_max]), got 20");
  Tensor wq = zeros({3, 5}, DType::i8);
  CHECK(error_of([&] { dynamic_quantized_linear(x, randn({3, 5}), ones({3})); }) ==
        "dynamic_quantized_linear: argument 'weight' must be i8 (quantized per channel, symmetric), got f32");
  CHECK(error_of([&] { dynamic_quantized_linear(randn({4, 6}), wq, ones({3})); }) ==
        "dynamic_quantized_linear: argument 'input' of shape [4, 6] has 6 features but argument 'weight' of shape "
        "[3, 5] expects 5");
  CHECK(error_of([&] { dynamic_quantized_linear(x, wq, ones({4})); }) ==
        "dynamic_quantized_linear: argument 'weight_scales' of shape [4] must have one element per output channel (3)");
  CHECK(error_of([&] { quantized_linear(x, 0.1, 0, wq, ones({3})); }) ==
        "quantized_linear: argument 'input' must be u8 or i8 (a quantized activation), got f32");
  Tensor xq = zeros({4, 5}, DType::u8);
  CHECK(error_of([&] { quantized_linear(xq, 0.1, 0, wq, ones({3}), Tensor(), -1.0); }) ==
        "quantized_linear: argument 'output_scale' must be 0 (an f32 output) or positive and finite, got -1");
  CHECK(error_of([&] { quantized_linear(xq, 0.1, 0, wq, ones({3}), Tensor(), NAN); }) ==
        "quantized_linear: argument 'output_scale' must be 0 (an f32 output) or positive and finite, got nan");
  CHECK(error_of([&] { quantized_linear(xq, 0.1, 0, wq, ones({3}), Tensor(), 0.1, 256); }) ==
        "quantized_linear: argument 'output_zero_point' must lie in [0, 255] (the range of u8), got 256");
  CHECK(error_of([&] { quantized_linear(xq, 0.1, 0, wq, ones({3}), Tensor(), 0.0, 5); }) ==
        "quantized_linear: argument 'output_zero_point' is 5 but 'output_scale' is 0 (an f32 output, which has no "
        "zero point)");
  Tensor image = zeros({2, 4, 6, 6}, DType::u8), kernel = zeros({8, 4, 3, 3}, DType::i8);
  CHECK(error_of([&] { quantized_conv2d(image, 0.1, 300, kernel, ones({8})); }) ==
        "quantized_conv2d: argument 'input_zero_point' must lie in [0, 255] (the range of u8), got 300");
  CHECK(error_of([&] { quantized_conv2d(randn({2, 4, 6, 6}), 0.1, 0, kernel, ones({8})); }) ==
        "quantized_conv2d: argument 'input' must be u8 or i8 (a quantized activation), got f32");
  CHECK(error_of([&] { quantized_conv2d(image, 0.1, 0, randn({8, 4, 3, 3}), ones({8})); }) ==
        "quantized_conv2d: argument 'weight' must be i8 (quantized per channel, symmetric), got f32");
  CHECK(error_of([&] { quantized_conv2d(image, 0.1, 0, zeros({8, 3, 3, 3}, DType::i8), ones({8})); }) ==
        "quantized_conv2d: argument 'weight' of shape [8, 3, 3, 3] expects 3 input channels (groups=1) but argument "
        "'input' of shape [2, 4, 6, 6] has 4");
  CHECK(error_of([&] { quantized_conv2d(zeros({4, 6, 6}, DType::u8), 0.1, 0, kernel, ones({8})); }) ==
        "quantized_conv2d: argument 'input' must be 4-D [N, C, H, W], got shape [4, 6, 6]");
  CHECK(error_of([&] { quantized_conv2d(image, 0.1, 0, kernel, ones({4})); }) ==
        "quantized_conv2d: argument 'weight_scales' of shape [4] must have one element per output channel (8)");
  CHECK(error_of([&] { quantized_conv2d(image, 0.1, 0, kernel, ones({8}), ones({7})); }) ==
        "quantized_conv2d: argument 'bias' must have shape [8], got [7]");
  CHECK(error_of([&] { quantized_conv2d(zeros({1, 4, 2, 2}, DType::u8), 0.1, 0, kernel, ones({8})); }) ==
        "quantized_conv2d: argument 'input' of shape [1, 4, 2, 2] is 2x2 after padding, smaller than the 3x3 "
        "(dilated) kernel of argument 'weight' of shape [8, 4, 3, 3]; the computed output size is 0x0");
  CHECK(error_of([&] { quantized_conv2d(image, 0.1, 0, kernel, ones({8}), Tensor(), {}, -0.5); }) ==
        "quantized_conv2d: argument 'output_scale' must be 0 (an f32 output) or positive and finite, got -0.5");
  Tensor bad = tensor_from({1.0, INFINITY, 0.0, 0.0, 0.0}, {1, 5});
  CHECK(error_of([&] { dynamic_quantized_linear(bad, wq, ones({3})); }).find(
            "dynamic_quantized_linear: argument 'input' holds an infinity or a NaN") == 0);
}
