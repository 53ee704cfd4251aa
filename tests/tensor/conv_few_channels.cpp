// The first layer's pooled convolution in registers (Note [The first layer in
// registers], tensor/cpu/conv_few_channels.cpp) against eager conv2d, relu and
// max_pool2d_with_indices in f64: over input channels 1-4, kernel shapes up to 7 wide,
// uneven padding, odd sizes (the pool drops the last row and column), 16-64 output
// channels, with and without bias and relu, in both output layouts; then ties
// (integer data: exact sums, so equal cells must give the first index) and NaNs. (The
// compiled CNN against eager, bit for bit, is tests/graph/test_block_layout.dsl.)
#include <doctest/doctest.h>

#include <cmath>
#include <algorithm>
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

// The window of pooled cell (ph, pw) holds flat index i of its conv plane.
bool in_window(int64_t i, int64_t ph, int64_t pw, int64_t conv_width) {
  int64_t h = i / conv_width, w = i % conv_width;
  return (h == 2 * ph || h == 2 * ph + 1) && (w == 2 * pw || w == 2 * pw + 1);
}

// The kernel on f32 (x, w, b) against eager conv2d, relu and max_pool2d_with_indices
// in f64, in the planar layout (values only: the kernel writes indices only blocked)
// and in nChw16c with the windows' codes (Note [Window codes]). Each value is within
// f32 rounding of f64's (exactly equal when `exact`: integer data sums without
// rounding); each code names a cell of its window as large as the maximum (the same
// cell as max_pool2d's index when exact: ties must go to the first cell).
void check_against_eager(const Case& c, const Tensor& x, const Tensor& w, const Tensor& b, bool exact) {
  INFO(describe(c));
  Conv2dOptions conv;
  conv.padding = {c.pad_h, c.pad_w};
  Pool2dOptions pool;
  pool.kernel_size = {2, 2};
  Tensor activated = conv2d(to_dtype(x, DType::f64), to_dtype(w, DType::f64),
                            c.bias ? to_dtype(b, DType::f64) : Tensor(), conv);
  if (c.relu) activated = few_channels_test::fused_relu(activated);
  auto [want, want_indices] = max_pool2d_with_indices(activated, pool);
  const int64_t PH = want.sizes()[2], PW = want.sizes()[3], conv_plane = activated.sizes()[2] * activated.sizes()[3];
  const double* act = static_cast<const double*>(activated.raw_data());
  double largest = 1.0;
  for (int64_t i = 0; i < activated.numel(); ++i)
    if (std::isfinite(act[i])) largest = std::max(largest, std::abs(act[i]));
  const double tolerance = exact ? 0.0 : 1e-6 * static_cast<double>(c.C * c.KH * c.KW) * largest;

  for (bool blocked : {false, true}) {
    INFO((blocked ? "nChw16c with indices" : "planar"));
    Tensor got = full(want.sizes(), -7.0), got_indices = full(want.sizes(), -7.0, DType::i64);
    cpu::FewChannelPooledConv p{{static_cast<const float*>(x.raw_data()), static_cast<const float*>(w.raw_data()),
                                 c.bias ? static_cast<const float*>(b.raw_data()) : nullptr, c.N, c.C, c.H, c.W, c.OC,
                                 c.KH, c.KW, c.pad_h, c.pad_w, c.relu, static_cast<float*>(got.raw_data())},
                                blocked ? cpu::window_codes(got_indices) : nullptr, blocked};
    REQUIRE(cpu::pooled_conv_few_channels(p));
    int64_t wrong_values = 0, wrong_indices = 0;
    for (int64_t n = 0; n < c.N; ++n)
      for (int64_t oc = 0; oc < c.OC; ++oc)
        for (int64_t ph = 0; ph < PH; ++ph)
          for (int64_t pw = 0; pw < PW; ++pw) {
            int64_t planar = ((n * c.OC + oc) * PH + ph) * PW + pw;
            int64_t at = blocked ? (((n * (c.OC / 16) + oc / 16) * PH + ph) * PW + pw) * 16 + oc % 16 : planar;
            double value = static_cast<const float*>(got.raw_data())[at];
            double expected = static_cast<const double*>(want.raw_data())[planar];
            bool same = std::isnan(expected) ? std::isnan(value) : std::abs(value - expected) <= tolerance;
            wrong_values += !same;
            if (!blocked) continue;
            const int64_t code = cpu::window_codes(got_indices)[at], conv_width = activated.sizes()[3];
            const int64_t index = code > 3 ? -1 : (2 * ph + code / 2) * conv_width + 2 * pw + code % 2;
            int64_t expected_index = static_cast<const int64_t*>(want_indices.raw_data())[planar];
            bool fits = exact || std::isnan(expected)
                            ? index == expected_index
                            : in_window(index, ph, pw, activated.sizes()[3]) &&
                                  act[(n * c.OC + oc) * conv_plane + index] >= expected - tolerance;
            wrong_indices += !fits;
          }
    CHECK(wrong_values == 0);
    CHECK(wrong_indices == 0);
  }
}

Tensor make_input(const Shape& sizes, bool integers) {
  return integers ? to_dtype(randint(-2, 3, sizes), DType::f32) : randn(sizes);
}

void check_case(const Case& c, bool integers = false) {
  Tensor x = make_input({c.N, c.C, c.H, c.W}, integers), w = make_input({c.OC, c.C, c.KH, c.KW}, integers);
  Tensor b = c.bias ? make_input({c.OC}, integers) : Tensor();
  check_against_eager(c, x, w, b, integers);
}

}  // namespace

TEST_CASE("the pooled first-layer convolution equals eager conv2d, relu and max_pool2d bit for bit") {
  SKIP_WITHOUT_AVX512();
  manual_seed(5);
  const Case cases[] = {
      {4, 1, 28, 28, 32, 3, 3, 1, 1, true, true},  // the Fashion-MNIST CNN's first layer
      {3, 1, 28, 28, 32, 3, 3, 1, 1, false, false},
      {2, 3, 17, 13, 16, 3, 3, 1, 1, true, true},  // odd sizes: the pool drops a row and a column
      {2, 2, 9, 15, 48, 5, 5, 2, 2, true, true},
      {1, 4, 12, 11, 16, 3, 5, 0, 2, true, false},  // uneven kernel and padding
      {2, 3, 10, 10, 32, 7, 7, 3, 3, true, true},
      {3, 1, 6, 20, 16, 1, 1, 0, 0, true, true},
      {2, 2, 8, 9, 16, 2, 4, 1, 0, false, true},
      {1, 1, 3, 3, 16, 2, 2, 0, 0, true, false},  // one window
      {2, 3, 32, 32, 64, 3, 6, 1, 2, true, true},
  };
  for (const Case& c : cases) check_case(c);
}

TEST_CASE("ties take the window's first cell, and a NaN takes over the window") {
  SKIP_WITHOUT_AVX512();
  manual_seed(6);
  // Small integers sum exactly, so windows often hold equal cells (and relu makes
  // many zeros): the index must be the first of them, as max_pool2d's.
  for (bool relu : {false, true}) check_case({3, 2, 14, 14, 32, 3, 3, 1, 1, true, relu}, true);
  // One NaN input cell makes the nine conv cells around it NaN: without relu the NaN
  // takes over its windows (at the first NaN cell); relu makes it 0, as relu does.
  for (bool relu : {false, true}) {
    Case c{2, 1, 8, 8, 16, 3, 3, 1, 1, true, relu};
    Tensor x = to_dtype(randint(-2, 3, {2, 1, 8, 8}), DType::f32), w = to_dtype(randint(-2, 3, {16, 1, 3, 3}), DType::f32);
    Tensor b = to_dtype(randint(-2, 3, {16}), DType::f32);
    float* cells = static_cast<float*>(x.raw_data());
    cells[9] = std::nanf("");
    cells[64 + 63] = std::nanf("");
    check_against_eager(c, x, w, b, true);
  }
}

TEST_CASE("shapes the kernel does not cover are declined, with nothing written") {
  float x[2 * 5 * 8 * 8] = {}, w[16 * 5 * 9 * 9] = {}, out[2 * 16 * 4 * 4];
  std::memset(out, 0x5a, sizeof out);
  auto declines = [&](int64_t C, int64_t OC, int64_t KW) {
    cpu::FewChannelPooledConv p{{x, w, nullptr, 2, C, 8, 8, OC, 3, KW, 1, 1, true, out}, nullptr, true};
    return !cpu::pooled_conv_few_channels(p);
  };
  CHECK(declines(5, 16, 3));   // more input channels than kMaxFewChannels
  CHECK(declines(1, 24, 3));   // output channels not in 16s
  CHECK(declines(1, 16, 9));   // wider than kMaxFewChannelKernelWidth
  unsigned char untouched[sizeof out];
  std::memset(untouched, 0x5a, sizeof untouched);
  CHECK(std::memcmp(out, untouched, sizeof out) == 0);
}

namespace {

// The weight gradient's kernel (Note [The first layer's weight gradient in registers])
// against eager conv2d_backward_weight in f64 and the gradient's sum for the bias:
// each value within 1e-6 of the sum of its terms' magnitudes (f32 sums in another
// order).
void check_weight_grad(const Case& c) {
  INFO(describe(c));
  Conv2dOptions conv;
  conv.padding = {c.pad_h, c.pad_w};
  const int64_t OH = c.H + 2 * c.pad_h - c.KH + 1, OW = c.W + 2 * c.pad_w - c.KW + 1;
  Tensor x = randn({c.N, c.C, c.H, c.W}), grad = randn({c.N, c.OC, OH, OW});
  Tensor grad_blocked = empty(grad.sizes());
  cpu::write_blocked16(grad, grad_blocked.raw_data());
  Tensor dw = full({c.OC, c.C, c.KH, c.KW}, -7.0), db = full({c.OC}, -7.0);
  cpu::FewChannelWeightGrad p{static_cast<const float*>(x.raw_data()), static_cast<const float*>(grad_blocked.raw_data()),
                              c.N, c.C, c.H, c.W, c.OC, c.KH, c.KW, c.pad_h, c.pad_w,
                              static_cast<float*>(dw.raw_data()), c.bias ? static_cast<float*>(db.raw_data()) : nullptr};
  REQUIRE(cpu::conv_weight_grad_few_channels(p));
  Tensor x64 = to_dtype(x, DType::f64), grad64 = to_dtype(grad, DType::f64);
  IntList weight_shape{c.OC, c.C, c.KH, c.KW};
  Tensor want = conv2d_backward_weight(x64, grad64, weight_shape, conv);
  Tensor magnitude = conv2d_backward_weight(abs(x64), abs(grad64), weight_shape, conv);
  Tensor want_bias = sum(grad64, {0, 2, 3}), bias_magnitude = sum(abs(grad64), {0, 2, 3});
  CHECK(count_off(dw, want, magnitude) == 0);
  if (c.bias) CHECK(count_off(db, want_bias, bias_magnitude) == 0);
  if (!c.bias)
    for (int64_t i = 0; i < c.OC; ++i) CHECK(static_cast<const float*>(db.raw_data())[i] == -7.0f);
}

}  // namespace

TEST_CASE("the first layer's weight gradient equals eager conv2d_backward_weight, and its bias gradient the sum") {
  SKIP_WITHOUT_AVX512();
  manual_seed(7);
  // (`bias`: whether db is asked for; `relu` is not used here.)
  const Case cases[] = {
      {64, 1, 28, 28, 32, 3, 3, 1, 1, true, false},  // the Fashion-MNIST CNN's first layer
      {3, 3, 17, 13, 16, 3, 3, 1, 1, true, false},   // odd sizes: an odd number of output rows
      {2, 2, 9, 15, 48, 5, 5, 2, 2, false, false},   // rows in two passes (two kernel rows each, then one)
      {1, 4, 12, 11, 16, 3, 5, 0, 2, true, false},
      {2, 1, 10, 10, 32, 7, 7, 3, 3, true, false},   // one kernel row a pass
      {3, 1, 6, 20, 16, 5, 1, 0, 0, true, false},    // a 5x1 kernel: eight rows a pass
      {2, 2, 8, 9, 16, 2, 4, 1, 0, true, false},
      {1, 1, 3, 3, 16, 3, 3, 0, 0, true, false},     // one output pixel
  };
  for (const Case& c : cases) check_weight_grad(c);
}

namespace {

// The same from the plain 2x2 pool's gradient and its windows' codes (Note [Window
// codes]; as the compiled step's conv2d_backward_weight_bias with max_pool2d_backward
// in its body calls it), against eager max_pool2d_backward then conv2d_backward_weight
// in f64.
void check_pooled_weight_grad(const Case& c) {
  INFO(describe(c) << ", from the pool's gradient");
  Conv2dOptions conv;
  conv.padding = {c.pad_h, c.pad_w};
  Pool2dOptions pool;
  pool.kernel_size = {2, 2};
  const int64_t OH = c.H + 2 * c.pad_h - c.KH + 1, OW = c.W + 2 * c.pad_w - c.KW + 1;
  Tensor x = randn({c.N, c.C, c.H, c.W});
  Tensor indices = max_pool2d_with_indices(randn({c.N, c.OC, OH, OW}), pool).second;
  Tensor pooled_grad = randn(indices.sizes());
  Tensor grad_blocked = empty(pooled_grad.sizes()), indices_blocked = empty(indices.sizes(), DType::i64);
  cpu::write_blocked16(pooled_grad, grad_blocked.raw_data());
  cpu::write_window_codes16(indices, OW, cpu::window_codes(indices_blocked));
  Tensor dw = full({c.OC, c.C, c.KH, c.KW}, -7.0), db = full({c.OC}, -7.0);
  cpu::FewChannelWeightGrad p{static_cast<const float*>(x.raw_data()), static_cast<const float*>(grad_blocked.raw_data()),
                              c.N, c.C, c.H, c.W, c.OC, c.KH, c.KW, c.pad_h, c.pad_w,
                              static_cast<float*>(dw.raw_data()), static_cast<float*>(db.raw_data()),
                              cpu::window_codes(indices_blocked)};
  REQUIRE(cpu::conv_weight_grad_few_channels(p));
  Tensor grad64 = max_pool2d_backward(to_dtype(pooled_grad, DType::f64), indices, {c.N, c.OC, OH, OW});
  Tensor x64 = to_dtype(x, DType::f64);
  IntList weight_shape{c.OC, c.C, c.KH, c.KW};
  CHECK(count_off(dw, conv2d_backward_weight(x64, grad64, weight_shape, conv),
                  conv2d_backward_weight(abs(x64), abs(grad64), weight_shape, conv)) == 0);
  CHECK(count_off(db, sum(grad64, {0, 2, 3}), sum(abs(grad64), {0, 2, 3})) == 0);

  // A code that names no cell: declined, nothing written.
  cpu::window_codes(indices_blocked)[indices.numel() - 1] = 4;
  Tensor untouched = full(dw.sizes(), -7.0);
  p.dw = static_cast<float*>(untouched.raw_data());
  CHECK_FALSE(cpu::conv_weight_grad_few_channels(p));
  CHECK(static_cast<const float*>(untouched.raw_data())[0] == -7.0f);
}

}  // namespace

TEST_CASE("the first layer's weight gradient from the pool's gradient and indices equals eager's") {
  SKIP_WITHOUT_AVX512();
  manual_seed(8);
  const Case cases[] = {
      {64, 1, 28, 28, 32, 3, 3, 1, 1, true, false},  // the Fashion-MNIST CNN's first layer
      {3, 3, 17, 13, 16, 3, 3, 1, 1, true, false},   // odd sizes: the pool drops a row and a column
      {2, 2, 9, 15, 48, 5, 5, 2, 2, true, false},
      {1, 4, 12, 11, 16, 3, 5, 0, 2, true, false},
      {2, 1, 10, 10, 32, 7, 7, 3, 3, true, false},
      {2, 1, 4, 5, 16, 3, 3, 1, 1, true, false},     // one group of pixels, not filled
  };
  for (const Case& c : cases) check_pooled_weight_grad(c);
}
