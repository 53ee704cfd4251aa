// The first layer's planar kernels (Note [The first layer in registers, planar],
// tensor/cpu/conv_few_channels_planar.cpp) against eager conv2d and
// conv2d_backward_weight in f64: over input channels 1-4, kernels up to 7 wide, rows
// that are not whole vectors (28 = 16 + 12 lanes, 33 = 16 + 16 + 1, fewer than 16),
// output channel counts that are not whole groups, uneven padding, with and without
// bias and relu; then a NaN and an infinity in the input, and eager's conv2d and
// conv2d_backward_weight taking the kernels.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>

#include "autograd/ops.hpp"
#include "tensor/cpu/fused.hpp"
#include "tensor/cpu/kernels.hpp"
#include "tensor/random.hpp"
#include "tests/tensor/few_channels_cases.hpp"

using namespace nabla;

namespace {

using few_channels_test::Case;
using few_channels_test::count_off;
using few_channels_test::describe;

Conv2dOptions padding_of(const Case& c) {
  Conv2dOptions conv;
  conv.padding = {c.pad_h, c.pad_w};
  return conv;
}

Tensor f64(const Tensor& t) { return to_dtype(t, DType::f64); }

// The forward kernel on f32 (x, w, b) against eager conv2d (and relu) in f64.
void check_forward(const Case& c, const Tensor& x, const Tensor& w, const Tensor& b) {
  INFO(describe(c));
  Tensor want = conv2d(f64(x), f64(w), c.bias ? f64(b) : Tensor(), padding_of(c));
  Tensor scale = conv2d(abs(f64(x)), abs(f64(w)), c.bias ? abs(f64(b)) : Tensor(), padding_of(c));
  if (c.relu) want = few_channels_test::fused_relu(want);
  Tensor got = full(want.sizes(), -7.0);
  cpu::FewChannelConv p{static_cast<const float*>(x.raw_data()), static_cast<const float*>(w.raw_data()),
                        c.bias ? static_cast<const float*>(b.raw_data()) : nullptr,
                        c.N, c.C, c.H, c.W, c.OC, c.KH, c.KW, c.pad_h, c.pad_w, c.relu,
                        static_cast<float*>(got.raw_data())};
  REQUIRE(cpu::conv_few_channels_planar(p));
  CHECK(count_off(got, want, scale) == 0);
}

// The weight gradient's kernel against eager conv2d_backward_weight in f64, and the
// bias's against the gradient's sum.
void check_weight_grad(const Case& c, const Tensor& x, const Tensor& grad) {
  INFO(describe(c));
  Tensor dw = full({c.OC, c.C, c.KH, c.KW}, -7.0), db = full({c.OC}, -7.0);
  cpu::FewChannelWeightGrad p{static_cast<const float*>(x.raw_data()), static_cast<const float*>(grad.raw_data()),
                              c.N, c.C, c.H, c.W, c.OC, c.KH, c.KW, c.pad_h, c.pad_w,
                              static_cast<float*>(dw.raw_data()), c.bias ? static_cast<float*>(db.raw_data()) : nullptr};
  REQUIRE(cpu::conv_weight_grad_few_channels_planar(p));
  IntList weight_shape{c.OC, c.C, c.KH, c.KW};
  CHECK(count_off(dw, conv2d_backward_weight(f64(x), f64(grad), weight_shape, padding_of(c)),
                  conv2d_backward_weight(abs(f64(x)), abs(f64(grad)), weight_shape, padding_of(c))) == 0);
  if (c.bias) CHECK(count_off(db, sum(f64(grad), {0, 2, 3}), sum(abs(f64(grad)), {0, 2, 3})) == 0);
  if (!c.bias)
    for (int64_t i = 0; i < c.OC; ++i) CHECK(static_cast<const float*>(db.raw_data())[i] == -7.0f);
}

Shape output_shape(const Case& c) {
  return {c.N, c.OC, c.H + 2 * c.pad_h - c.KH + 1, c.W + 2 * c.pad_w - c.KW + 1};
}

}  // namespace

TEST_CASE("the planar first-layer convolution equals eager conv2d in f64") {
  SKIP_WITHOUT_AVX512();
  manual_seed(11);
  const Case cases[] = {
      {4, 1, 28, 28, 32, 3, 3, 1, 1, true, false},  // the Fashion-MNIST CNN's first layer: 16 + 12 lanes a row
      {2, 3, 17, 13, 5, 3, 3, 1, 1, true, true},    // 5 channels: a group of 4, then 1
      {2, 2, 9, 15, 6, 5, 5, 2, 2, true, false},
      {1, 4, 12, 33, 3, 3, 5, 0, 2, false, true},   // 33 columns: two whole vectors and one lane
      {2, 3, 10, 10, 7, 7, 7, 3, 3, true, false},
      {3, 1, 6, 20, 1, 1, 1, 0, 0, true, false},    // 1x1, one output channel
      {2, 2, 8, 16, 16, 2, 4, 1, 0, false, true},   // rows of exactly one vector
      {1, 1, 3, 3, 2, 3, 3, 0, 0, true, false},     // one output pixel
      {2, 1, 1, 40, 4, 1, 3, 0, 1, true, false},    // one row (as conv1d runs)
      {2, 3, 32, 32, 64, 3, 6, 1, 2, true, true},
      {2, 1, 200, 150, 6, 3, 3, 1, 1, true, false},  // three bands of output rows (70, 70, 60)
      {1, 3, 12, 300, 5, 7, 7, 3, 3, false, true},   // bands of one row, 7 kernel rows staged each
      {2, 2, 30, 90, 3, 3, 5, 2, 0, true, false},    // narrower than the input: staged row by row
  };
  for (const Case& c : cases) {
    Tensor x = randn({c.N, c.C, c.H, c.W}), w = randn({c.OC, c.C, c.KH, c.KW});
    check_forward(c, x, w, c.bias ? randn({c.OC}) : Tensor());
  }
}

TEST_CASE("the planar first-layer weight gradient equals eager conv2d_backward_weight in f64") {
  SKIP_WITHOUT_AVX512();
  manual_seed(12);
  // (`bias`: whether db is asked for; `relu` is not used here.)
  const Case cases[] = {
      {64, 1, 28, 28, 32, 3, 3, 1, 1, true, false},  // the Fashion-MNIST CNN's first layer
      {3, 3, 17, 13, 5, 3, 3, 1, 1, true, false},    // 5 channels: two pairs, then 1
      {2, 4, 12, 33, 3, 3, 3, 0, 1, false, false},   // 33 columns: two whole vectors and one lane
      {2, 2, 9, 15, 16, 2, 3, 2, 0, true, false},
      {3, 1, 20, 6, 16, 5, 1, 0, 0, true, false},    // a 5x1 kernel: eight rows a pass
      {2, 2, 8, 16, 6, 2, 2, 1, 0, true, false},     // rows of exactly one vector
      {1, 1, 3, 3, 2, 3, 3, 0, 0, true, false},      // one output pixel
      {2, 1, 1, 40, 4, 1, 3, 0, 1, true, false},     // one row (as conv1d runs)
  };
  for (const Case& c : cases) check_weight_grad(c, randn({c.N, c.C, c.H, c.W}), randn(output_shape(c)));
}

TEST_CASE("a NaN or an infinity in the image reaches exactly the sums that read it") {
  SKIP_WITHOUT_AVX512();
  manual_seed(13);
  // Forward: the NaN makes its 3x3 neighbourhood NaN (relu makes that 0, as relu does).
  for (bool relu : {false, true}) {
    Case c{2, 1, 8, 8, 6, 3, 3, 1, 1, true, relu};
    Tensor x = randn({2, 1, 8, 8});
    static_cast<float*>(x.raw_data())[9] = std::nanf("");
    check_forward(c, x, randn({6, 1, 3, 3}), randn({6}));
  }
  // The forward reads the image as one flat array, so a row's last cell sits next to the
  // next row's first: infinities at both ends of rows (and at the image's first and last
  // cells) must reach only their own neighbourhoods, not the cells across a row end.
  for (int64_t pad : {1, 0}) {
    Case c{1, 1, 8, 8, 4, 3, 3, pad, pad, true, false};
    Tensor x = randn({1, 1, 8, 8});
    for (int64_t cell : {0, 3 * 8 + 7, 5 * 8, 63}) static_cast<float*>(x.raw_data())[cell] = INFINITY;
    check_forward(c, x, randn({4, 1, 3, 3}), randn({4}));
  }
  // Weight gradient: 18 output columns are a vector and a tail of 2; the tail's other
  // lanes read input columns 18 and 19, but only kernel column 2 meets column 19 in
  // the sum. An infinity there must leave kernel columns 0 and 1 finite.
  Case c{1, 1, 4, 20, 4, 3, 3, 0, 0, true, false};
  Tensor x = randn({1, 1, 4, 20});
  static_cast<float*>(x.raw_data())[19] = INFINITY;
  check_weight_grad(c, x, randn(output_shape(c)));
}

TEST_CASE("shapes the planar kernels do not cover are declined, with nothing written") {
  float x[2 * 5 * 8 * 8] = {}, w[16 * 5 * 9 * 9] = {}, out[2 * 16 * 8 * 8];
  std::memset(out, 0x5a, sizeof out);
  auto forward_declines = [&](int64_t C, int64_t KW) {
    cpu::FewChannelConv p{x, w, nullptr, 2, C, 8, 8, 16, 3, KW, 1, 1, false, out};
    return !cpu::conv_few_channels_planar(p);
  };
  auto grad_declines = [&](int64_t C, int64_t KW) {
    cpu::FewChannelWeightGrad p{x, x, 2, C, 8, 8, 16, 3, KW, 1, 1, out, nullptr};
    return !cpu::conv_weight_grad_few_channels_planar(p);
  };
  CHECK(forward_declines(5, 3));  // more input channels than kMaxFewChannels
  CHECK(forward_declines(1, 9));  // wider than kMaxFewChannelKernelWidth
  CHECK(grad_declines(5, 3));
  CHECK(grad_declines(1, 5));     // wider than 3: oneDNN's backward-weights kernel was as fast
  // An image too large for a thread's padded copy (oneDNN tiles it): declined before
  // anything is read.
  cpu::FewChannelConv huge{x, w, nullptr, 1, 1, 4096, 4096, 16, 3, 3, 1, 1, false, out};
  CHECK_FALSE(cpu::conv_few_channels_planar(huge));
  cpu::FewChannelWeightGrad huge_grad{x, x, 1, 1, 4096, 4096, 16, 3, 3, 1, 1, out, nullptr};
  CHECK_FALSE(cpu::conv_weight_grad_few_channels_planar(huge_grad));
  unsigned char untouched[sizeof out];
  std::memset(untouched, 0x5a, sizeof untouched);
  CHECK(std::memcmp(out, untouched, sizeof out) == 0);
}

TEST_CASE("eager conv2d and conv2d_backward_weight of a few-channel f32 image take the planar kernels") {
  SKIP_WITHOUT_AVX512();
  manual_seed(14);
  // Whichever kernel runs, f32 must agree with f64; with these kernels the forward sums
  // in oneDNN's order, so it equals the kernel's own result exactly.
  Case c{3, 2, 28, 28, 12, 3, 3, 1, 1, true, false};
  Tensor x = randn({3, 2, 28, 28}), w = randn({12, 2, 3, 3}), b = randn({12});
  Tensor y = conv2d(x, w, b, padding_of(c));
  Tensor direct = empty(y.sizes());
  cpu::FewChannelConv p{static_cast<const float*>(x.raw_data()), static_cast<const float*>(w.raw_data()),
                        static_cast<const float*>(b.raw_data()), 3, 2, 28, 28, 12, 3, 3, 1, 1, false,
                        static_cast<float*>(direct.raw_data())};
  REQUIRE(cpu::conv_few_channels_planar(p));
  CHECK(std::memcmp(y.raw_data(), direct.raw_data(), static_cast<size_t>(y.numel()) * sizeof(float)) == 0);
  Tensor grad = randn(y.sizes());
  Tensor dw = conv2d_backward_weight(x, grad, {12, 2, 3, 3}, padding_of(c));
  Tensor dw_direct = empty({12, 2, 3, 3});
  cpu::FewChannelWeightGrad q{static_cast<const float*>(x.raw_data()), static_cast<const float*>(grad.raw_data()),
                              3, 2, 28, 28, 12, 3, 3, 1, 1, static_cast<float*>(dw_direct.raw_data()), nullptr};
  REQUIRE(cpu::conv_weight_grad_few_channels_planar(q));
  CHECK(std::memcmp(dw.raw_data(), dw_direct.raw_data(), static_cast<size_t>(dw.numel()) * sizeof(float)) == 0);
}
