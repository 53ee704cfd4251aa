// Convolution and pooling beyond the sweep's reference cases (which are all f64):
// the f32 kernels (oneDNN primitives, cached) against the f64 ones (im2col + GEMM)
// on shapes large enough for oneDNN's blocked layouts, layouts that are not NCHW,
// unbatched inputs, and the wording of shape errors.
#include <doctest/doctest.h>

#include <cmath>

#include "autograd/ops.hpp"
#include "ops/compare.hpp"
#include "tensor/cpu/copy.hpp"
#include "tensor/random.hpp"

using namespace nabla;
using nabla::testing::max_abs_diff;

namespace {

struct ConvConfig {
  Shape x, w;
  Conv2dOptions opt;
  bool bias;
};

// Every forward and adjoint in f32 agrees with f64 to f32 accuracy.
void check_f32_against_f64(const ConvConfig& c) {
  CAPTURE(shape_str(c.x));
  CAPTURE(shape_str(c.w));
  CAPTURE(c.opt.groups);
  manual_seed(7);
  Tensor x = randn(c.x, DType::f64), w = randn(c.w, DType::f64);
  Tensor b = c.bias ? randn({c.w[0]}, DType::f64) : Tensor();
  auto f32 = [](const Tensor& t) { return t.defined() ? to_dtype(t, DType::f32) : t; };
  Tensor y64 = conv2d(x, w, b, c.opt), y32 = conv2d(f32(x), f32(w), f32(b), c.opt);
  CHECK(y32.dtype() == DType::f32);
  CHECK(max_abs_diff(y32, y64) < 1e-3);

  Tensor g = randn(y64.sizes(), DType::f64);
  Tensor gx64 = conv2d_backward_input(g, w, c.x.vec(), c.opt);
  Tensor gx32 = conv2d_backward_input(f32(g), f32(w), c.x.vec(), c.opt);
  CHECK(max_abs_diff(gx32, gx64) < 1e-3);
  Tensor gw64 = conv2d_backward_weight(x, g, c.w.vec(), c.opt);
  Tensor gw32 = conv2d_backward_weight(f32(x), f32(g), c.w.vec(), c.opt);
  CHECK(max_abs_diff(gw32, gw64) < 1e-2);  // sums over N*OH*OW terms
}

}  // namespace

TEST_CASE("conv2d: oneDNN f32 kernels agree with the f64 im2col kernels") {
  std::vector<ConvConfig> configs = {
      {{2, 32, 14, 14}, {16, 32, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, 1}, true},
      {{3, 3, 17, 13}, {8, 3, 5, 3}, {{2, 1}, {2, 0}, {1, 1}, 1}, false},
      {{2, 16, 9, 9}, {32, 8, 3, 3}, {{1, 1}, {2, 2}, {2, 2}, 2}, true},
      {{1, 16, 8, 8}, {16, 1, 3, 3}, {{2, 2}, {1, 1}, {1, 1}, 16}, true},  // depthwise
      {{4, 24, 7, 7}, {48, 24, 1, 1}, {{1, 1}, {0, 0}, {1, 1}, 1}, false},
      {{2, 8, 10, 11}, {8, 8, 3, 3}, {{2, 3}, {0, 1}, {1, 2}, 1}, true},  // strides leave input rows unused
  };
  for (const auto& c : configs) check_f32_against_f64(c);
}

TEST_CASE("conv2d: repeated f32 calls reuse the cached primitive and stay correct") {
  manual_seed(3);
  Tensor x = randn({2, 8, 6, 6}), w = randn({4, 8, 3, 3});
  Tensor first = conv2d(x, w);
  for (int i = 0; i < 3; ++i) CHECK(max_abs_diff(conv2d(x, w), first) == 0);
  Tensor x2 = randn({2, 8, 6, 6});  // same shapes, new data: the cache keys on shapes only
  CHECK(max_abs_diff(conv2d(x2, w), conv2d(to_dtype(x2, DType::f64), to_dtype(w, DType::f64))) < 1e-4);
}

TEST_CASE("conv2d: non-contiguous f32 inputs") {
  manual_seed(5);
  Tensor x = randn({2, 16, 10, 10}), w = randn({8, 16, 3, 3});
  Tensor xt = transpose(contiguous(transpose(x, 2, 3)), 2, 3);  // same values, W-major storage
  CHECK_FALSE(xt.is_contiguous());
  CHECK(max_abs_diff(conv2d(xt, w), conv2d(x, w)) == 0);
}

TEST_CASE("conv2d and pooling take an unbatched [C, H, W] input") {
  manual_seed(9);
  Tensor x = randn({3, 5, 5}, DType::f64), w = randn({2, 3, 3, 3}, DType::f64);
  Tensor y = conv2d(x, w);
  CHECK(y.sizes() == Shape{2, 3, 3});
  CHECK(max_abs_diff(y, select(conv2d(unsqueeze(x, 0), w), 0, 0)) == 0);
  Pool2dOptions opt;
  opt.kernel_size = {2, 2};
  auto [v, i] = max_pool2d_with_indices(x, opt);
  CHECK(v.sizes() == Shape{3, 2, 2});
  CHECK(i.dtype() == DType::i64);
  CHECK(avg_pool2d(x, opt).sizes() == Shape{3, 2, 2});
}

TEST_CASE("conv2d: shape errors name the op, the argument and the shapes") {
  Tensor x = zeros({2, 4, 5, 5}), w = zeros({8, 3, 3, 3});
  CHECK_THROWS_WITH(conv2d(x, w),
                    "conv2d: argument 'weight' of shape [8, 3, 3, 3] expects 3 input channels (groups=1) but "
                    "argument 'input' of shape [2, 4, 5, 5] has 4");
  Conv2dOptions g2;
  g2.groups = 2;
  CHECK_THROWS_WITH(conv2d(zeros({1, 6, 5, 5}), zeros({7, 3, 3, 3}), Tensor(), g2),
                    "conv2d: argument 'weight' of shape [7, 3, 3, 3] has 7 output channels, which groups=2 does "
                    "not divide");
  CHECK_THROWS_WITH(conv2d(zeros({1, 3, 2, 2}), zeros({1, 3, 3, 3})),
                    "conv2d: argument 'input' of shape [1, 3, 2, 2] is 2x2 after padding, smaller than the 3x3 "
                    "(dilated) kernel of argument 'weight' of shape [1, 3, 3, 3]; the computed output size is 0x0");
  CHECK_THROWS_WITH(conv2d(zeros({1, 3, 5, 5}), zeros({2, 3, 3, 3}), zeros({3})),
                    "conv2d: argument 'bias' must have shape [2] (the output channels of argument 'weight' of shape "
                    "[2, 3, 3, 3]), got [3]");
  CHECK_THROWS_WITH(conv2d(zeros({3, 5}), w), "conv2d: argument 'input' must be 4-D [N, C, H, W], got shape [3, 5]");
  CHECK_THROWS_WITH(conv2d_backward_input(zeros({2, 8, 4, 4}), w, {2, 3, 5, 5}, {}),
                    "conv2d_backward_input: argument 'grad' of shape [2, 8, 4, 4] does not match the convolution's "
                    "output shape [2, 8, 3, 3] (input_shape [2, 3, 5, 5], weight of shape [8, 3, 3, 3])");
  Conv2dOptions zero_stride;
  zero_stride.stride = {0, 1};
  CHECK_THROWS_WITH(conv2d(zeros({1, 3, 5, 5}), zeros({2, 3, 3, 3}), Tensor(), zero_stride),
                    "conv2d: argument 'stride' must be positive, got 0x1");
  CHECK_THROWS_WITH(conv2d(zeros({1, 3, 5, 5}, DType::i64), zeros({2, 3, 3, 3}, DType::i64)),
                    "conv2d: argument 'input' must be a floating tensor, got i64");
}

TEST_CASE("pooling: shape errors") {
  Pool2dOptions opt;
  opt.kernel_size = {2, 2};
  opt.padding = {2, 2};
  CHECK_THROWS_WITH(max_pool2d(zeros({1, 1, 4, 4}), opt),
                    "max_pool2d: argument 'padding' (2x2) must be at most half of 'kernel_size' (2x2)");
  opt.padding = {0, 0};
  opt.kernel_size = {5, 5};
  CHECK_THROWS_WITH(avg_pool2d(zeros({1, 1, 4, 4}), opt),
                    "avg_pool2d: argument 'input' of shape [1, 1, 4, 4] is too small for kernel 5x5 with padding 0x0 "
                    "and dilation 1x1; the computed output size is 0x0");
}

TEST_CASE("max_pool2d_backward: shape errors, and indices outside their plane") {
  Tensor g = ones({1, 1, 2, 2}), idx = zeros({1, 1, 2, 2}, DType::i64);
  CHECK_THROWS_WITH(max_pool2d_backward(g, zeros({1, 1, 2, 2}), {1, 1, 4, 4}),
                    "max_pool2d_backward: argument 'indices' must be an i64 tensor (a max pool's indices), got f32");
  CHECK_THROWS_WITH(max_pool2d_backward(g, zeros({1, 1, 2, 3}, DType::i64), {1, 1, 4, 4}),
                    "max_pool2d_backward: argument 'indices' of shape [1, 1, 2, 3] must have the shape of argument "
                    "'grad' [1, 1, 2, 2]");
  CHECK_THROWS_WITH(max_pool2d_backward(g, idx, {1, 2, 4, 4}),
                    "max_pool2d_backward: argument 'grad' of shape [1, 1, 2, 2] does not match input_shape "
                    "[1, 2, 4, 4] in N and C");
  CHECK_THROWS_WITH(max_pool2d_backward(g, idx, {1, 1, 16}),
                    "max_pool2d_backward: argument 'grad' of shape [1, 1, 2, 2] and input_shape [1, 1, 16] must be "
                    "[N, C, ...] of one rank, at least 3");
  CHECK_THROWS_WITH(max_pool2d_backward(g, full({1, 1, 2, 2}, 16, DType::i64), {1, 1, 4, 4}),
                    "max_pool2d_backward: argument 'indices' holds 16 at flat position 0, outside a plane of 16 "
                    "elements (input_shape's spatial dims)");
  CHECK_THROWS_WITH(max_pool2d_backward(g, tensor_from({0, 1, -1, 2}, {1, 1, 2, 2}, DType::i64), {1, 1, 4, 4}),
                    "max_pool2d_backward: argument 'indices' holds -1 at flat position 2, outside a plane of 16 "
                    "elements (input_shape's spatial dims)");
}

// Windows that overlap can share their maximum: its cell gets the sum of their
// gradients. On a batch large enough for both threads, the kernel (one scatter per
// plane) equals the scatter_add it replaced.
TEST_CASE("max_pool2d_backward: windows that share a maximum add their gradients") {
  Tensor x = tensor_from({0, 0, 0, 0, 9, 0, 0, 0, 0}, {1, 1, 3, 3}, DType::f64);
  Pool2dOptions overlap;
  overlap.kernel_size = {2, 2};
  overlap.stride = {1, 1};
  Tensor idx = max_pool2d_with_indices(x, overlap).second;
  Tensor dx = max_pool2d_backward(tensor_from({1, 2, 3, 4}, {1, 1, 2, 2}, DType::f64), idx, {1, 1, 3, 3});
  CHECK(to_double_vector(dx) == std::vector<double>{0, 0, 0, 0, 10, 0, 0, 0, 0});
  manual_seed(4);
  Pool2dOptions cnn;
  cnn.kernel_size = {3, 3};
  cnn.stride = {2, 2};
  cnn.padding = {1, 1};
  for (DType t : {DType::f32, DType::f64}) {
    Tensor big = randn({8, 16, 28, 28}, t);
    Tensor indices = max_pool2d_with_indices(big, cnn).second;
    Tensor grad = randn(indices.sizes(), t);
    Tensor want =
        reshape(scatter_add(zeros({8, 16, 784}, t), 2, reshape(indices, {8, 16, -1}), reshape(grad, {8, 16, -1})),
                {8, 16, 28, 28});
    CHECK(max_abs_diff(max_pool2d_backward(grad, indices, {8, 16, 28, 28}), want) == 0);
  }
}

TEST_CASE("conv2d: no input channels or an empty batch give the bias, or nothing") {
  for (DType t : {DType::f32, DType::f64}) {
    Tensor b = tensor_from({1, 2, 3}, {3}, t);
    Tensor y = conv2d(zeros({2, 0, 4, 4}, t), zeros({3, 0, 3, 3}, t), b);
    CHECK(y.sizes() == Shape{2, 3, 2, 2});
    std::vector<double> want;
    for (int n = 0; n < 2; ++n)
      for (double bias : {1.0, 2.0, 3.0}) want.insert(want.end(), 4, bias);
    CHECK(to_double_vector(y) == want);
    CHECK(conv2d(zeros({0, 2, 4, 4}, t), zeros({3, 2, 3, 3}, t), b).sizes() == Shape{0, 3, 2, 2});
  }
}

TEST_CASE("max_pool2d: a NaN wins its window, like PyTorch") {
  Tensor x = tensor_from({1, NAN, 3, 2}, {1, 1, 2, 2}, DType::f64);
  Pool2dOptions opt;
  opt.kernel_size = {2, 2};
  auto [v, i] = max_pool2d_with_indices(x, opt);
  CHECK(std::isnan(v.item()));
  CHECK(i.item() == 1);
}

// The 2x2 / stride 2 pool has its own kernel (pool.cpp, max_pool_2x2); it must pick
// the same cell as the general rule: the first cell starts the window, a strictly
// greater value or a NaN takes over. Few distinct values make ties common; odd sizes
// leave a last row and column that no window reads; 37 columns give u8 and i8 one
// block of 16 windows for the AVX2 loop and 2 through its buffered tail, and f32 two
// blocks of 8 and 2 through its masked tail; 29, 15 and 3 columns give f32 tails of
// 6 (the CNN's 28 columns), 7 (its 14) and 1 window.
TEST_CASE("max_pool2d 2x2 stride 2: the same values and indices as the window rule") {
  for (int64_t W : {37, 29, 15, 3}) {
    CAPTURE(W);
    manual_seed(3);
    const int64_t N = 2, C = 3, H = 7, OH = H / 2, OW = W / 2;
    std::vector<double> data = to_double_vector(rand({N, C, H, W}, DType::f64));
    for (double& v : data) v = std::floor(4 * v);
    data[5] = NAN, data[W + 4] = NAN, data[2 * H * W + 1] = -INFINITY, data[2 * H * W] = -INFINITY;
    Pool2dOptions opt;
    opt.kernel_size = {2, 2};
    for (DType t : {DType::f64, DType::f32, DType::u8, DType::i8}) {
      CAPTURE(dtype_name(t));
      bool integer = t == DType::u8 || t == DType::i8;
      // u8 up to 180 (past 127: a signed byte compare would misorder them), i8 from -100.
      std::vector<double> in = data;
      if (integer)
        for (double& v : in) v = !std::isfinite(v) ? 0.0 : t == DType::u8 ? v * 60 : v * 50 - 100;
      auto [v, i] = max_pool2d_with_indices(tensor_from(in, {N, C, H, W}, t), opt);
      REQUIRE(v.sizes() == Shape{N, C, OH, OW});
      std::vector<double> got_v = to_double_vector(v), got_i = to_double_vector(i);
      for (int64_t p = 0; p < N * C; ++p)
        for (int64_t oh = 0; oh < OH; ++oh)
          for (int64_t ow = 0; ow < OW; ++ow) {
            int64_t best = 2 * oh * W + 2 * ow;
            for (int64_t at : {best + 1, best + W, best + W + 1}) {
              double cell = in[p * H * W + at], held = in[p * H * W + best];
              if (cell > held || std::isnan(cell)) best = at;
            }
            int64_t o = (p * OH + oh) * OW + ow;
            CHECK(got_i[o] == best);
            double want = in[p * H * W + best];
            CHECK((got_v[o] == want || (std::isnan(got_v[o]) && std::isnan(want))));
          }
    }
  }
}
