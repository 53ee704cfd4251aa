// max_pool2d_backward with either side in nChw16c (a compiled step's blocked_inputs
// for the pooled gradient and its indices, blocked_out for the result), against the
// planar kernel: every combination of layouts gives the planar result exactly, for the
// plain 2x2 pool (its nChw16c indices as window codes, window_codes=true: Note [Window
// codes]) and for an overlapping one (flat indices; its windows share cells, so a
// cell's gradients add, in the same order). The codes convert both ways, and codes
// that name no cell, or a gradient of another pool's shape, are errors.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>

#include "autograd/ops.hpp"
#include "tensor/cpu/fused.hpp"
#include "tensor/cpu/kernels.hpp"
#include "tensor/random.hpp"

using namespace nabla;

namespace {

using Dims = std::vector<int64_t>;

// dx of one layout combination, read back to NCHW; `codes`: the blocked indices are
// the plain 2x2 pool's window codes.
Tensor pool_gradient(const Tensor& grad, const Tensor& indices, const Shape& input_shape, bool blocked_grad,
                     bool blocked_dx, bool codes) {
  Tensor g = grad, idx = indices;
  if (blocked_grad) {
    g = empty(grad.sizes());
    idx = empty(indices.sizes(), DType::i64);
    cpu::write_blocked16(grad, g.raw_data());
    if (codes)
      cpu::write_window_codes16(indices, input_shape[3], cpu::window_codes(idx));
    else
      cpu::write_blocked16(indices, idx.raw_data());
  }
  Attrs attrs{{"input_shape", Dims(input_shape.begin(), input_shape.end())}};
  if (blocked_grad) attrs.set("blocked_inputs", Dims{0, 1});
  if (blocked_grad && codes) attrs.set("window_codes", true);
  if (blocked_dx) attrs.set("blocked_out", true);
  Tensor dx = full(input_shape, -7.0);
  TensorList out{dx};
  cpu::max_pool2d_backward({g, idx}, attrs, out);
  if (!blocked_dx) return dx;
  Tensor planar = empty(input_shape);
  cpu::read_blocked16(dx.raw_data(), planar);
  return planar;
}

}  // namespace

TEST_CASE("the pool's gradient in any mix of NCHW and nChw16c equals the planar one") {
  if (!cpu::blocked_activations()) {
    MESSAGE("skipped: no AVX-512, so no nChw16c (the planar kernel runs)");
    return;
  }
  manual_seed(21);
  // An odd height, then an odd width: a last row or column in no window (the codes'
  // kernel into nChw16c stores it 0, with no fill pass).
  for (Shape input_shape : {Shape{2, 32, 9, 12}, Shape{1, 16, 6, 11}})
  for (int64_t kernel : {2, 3}) {
    Pool2dOptions pool;
    pool.kernel_size = {kernel, kernel};
    pool.stride = {2, 2};
    auto [values, indices] = max_pool2d_with_indices(randn(input_shape), pool);
    Tensor grad = randn(values.sizes());
    Tensor want = max_pool2d_backward(grad, indices, input_shape.vec());
    for (bool blocked_grad : {false, true})
      for (bool blocked_dx : {false, true}) {
        INFO("input " << shape_str(input_shape) << ", kernel " << kernel << ", grad and indices " << (blocked_grad ? "nChw16c" : "NCHW") << ", dx "
                       << (blocked_dx ? "nChw16c" : "NCHW"));
        Tensor got = pool_gradient(grad, indices, input_shape, blocked_grad, blocked_dx, kernel == 2);
        CHECK(std::memcmp(got.raw_data(), want.raw_data(), static_cast<size_t>(want.numel()) * sizeof(float)) == 0);
      }
  }
}

TEST_CASE("window codes: planar indices to codes and back, and codes that name no cell are an error") {
  if (!cpu::blocked_activations()) {
    MESSAGE("skipped: no AVX-512, so no nChw16c (the planar kernel runs)");
    return;
  }
  manual_seed(22);
  Pool2dOptions pool;
  pool.kernel_size = {2, 2};
  Shape input_shape{2, 16, 7, 10};  // an odd height: the last row is in no window
  auto [values, indices] = max_pool2d_with_indices(randn(input_shape), pool);
  Tensor codes = full(indices.sizes(), 0.0, DType::i64), back = empty(indices.sizes(), DType::i64);
  cpu::write_window_codes16(indices, input_shape[3], cpu::window_codes(codes));
  for (int64_t i = 0; i < indices.numel(); ++i) CHECK(cpu::window_codes(codes)[i] <= 3);
  cpu::read_window_codes16(cpu::window_codes(codes), input_shape[3], back);
  CHECK(std::memcmp(back.raw_data(), indices.raw_data(), static_cast<size_t>(indices.numel()) * sizeof(int64_t)) == 0);

  Tensor grad = empty(values.sizes());
  cpu::write_blocked16(randn(values.sizes()), grad.raw_data());
  Attrs attrs{{"input_shape", Dims(input_shape.begin(), input_shape.end())}};
  attrs.set("blocked_inputs", Dims{0, 1});
  attrs.set("window_codes", true);
  TensorList out{empty(input_shape)};
  cpu::window_codes(codes)[5] = 4;
  CHECK_THROWS_WITH_AS(cpu::max_pool2d_backward({grad, codes}, attrs, out),
                       doctest::Contains("window codes above 3"), Error);
  Attrs into_blocked = attrs;  // the same codes, dx in nChw16c (by windows, scatter_codes_blocked16)
  into_blocked.set("blocked_out", true);
  CHECK_THROWS_WITH_AS(cpu::max_pool2d_backward({grad, codes}, into_blocked, out),
                       doctest::Contains("window codes above 3"), Error);
  TensorList wider{empty({2, 16, 7, 12})};  // not the 2x2 pool's input: its gradient would be [.., 3, 6]
  CHECK_THROWS_WITH_AS(cpu::max_pool2d_backward({grad, codes}, attrs, wider),
                       doctest::Contains("not that pool's"), Error);
}

namespace {

// max_pool2d_backward of f32 bit for bit against the op's definition, written out here:
// each plane zero, then each window's gradient added at its index, in window order.
void check_against_scatter(const Tensor& grad, const Tensor& indices, const IntList& input_shape) {
  Tensor got = max_pool2d_backward(grad, indices, input_shape);
  Tensor want = zeros(Shape(input_shape));
  const int64_t planes = input_shape[0] * input_shape[1], plane = input_shape[2] * input_shape[3];
  const int64_t windows = grad.numel() / planes;
  const float* g = static_cast<const float*>(grad.raw_data());
  const int64_t* at = static_cast<const int64_t*>(indices.raw_data());
  float* w = static_cast<float*>(want.raw_data());
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t k = 0; k < windows; ++k) w[p * plane + at[p * windows + k]] += g[p * windows + k];
  CHECK(std::memcmp(got.raw_data(), want.raw_data(), static_cast<size_t>(want.numel()) * sizeof(float)) == 0);
}

}  // namespace

TEST_CASE("the plain 2x2 pool's gradient by windows equals the scatter's, and a stray index falls back to it") {
  manual_seed(22);
  Pool2dOptions plain;
  plain.kernel_size = {2, 2};
  // Odd sizes leave a last row and column in no window; 37 windows a row are two
  // vectors and a tail of 5.
  for (IntList shape : {IntList{2, 3, 8, 8}, IntList{1, 2, 9, 75}, IntList{3, 1, 28, 28}}) {
    INFO("x [" << shape[0] << ", " << shape[1] << ", " << shape[2] << ", " << shape[3] << "]");
    auto [values, indices] = max_pool2d_with_indices(randn(shape), plain);
    Tensor grad = randn(values.sizes());
    float* g = static_cast<float*>(grad.raw_data());
    g[0] = -0.0f;  // lands as 0 + -0 = +0, as the scatter's
    g[1] = std::nanf("");
    check_against_scatter(grad, indices, shape);
  }
  // A 3x3 pool of stride 2 over 9 x 13 has the plain pool's output shape (4 x 6), but
  // its maxima often lie outside the top-left 2x2 of their windows.
  Pool2dOptions wide;
  wide.kernel_size = {3, 3};
  wide.stride = {2, 2};
  auto [values, indices] = max_pool2d_with_indices(randn({2, 4, 9, 13}), wide);
  check_against_scatter(randn(values.sizes()), indices, {2, 4, 9, 13});
}
