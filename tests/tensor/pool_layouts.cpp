// max_pool2d_backward with either side in nChw16c (a compiled step's blocked_inputs
// for the pooled gradient and its indices, blocked_out for the result), against the
// planar kernel: every combination of layouts gives the planar result exactly, for
// the plain 2x2 pool and for an overlapping one (whose windows share cells, so a
// cell's gradients add, in the same order).
#include <doctest/doctest.h>

#include <cstring>

#include "autograd/ops.hpp"
#include "tensor/cpu/fused.hpp"
#include "tensor/cpu/kernels.hpp"
#include "tensor/random.hpp"

using namespace nabla;

namespace {

using Dims = std::vector<int64_t>;

// dx of one layout combination, read back to NCHW.
Tensor pool_gradient(const Tensor& grad, const Tensor& indices, const Shape& input_shape, bool blocked_grad,
                     bool blocked_dx) {
  Tensor g = grad, idx = indices;
  if (blocked_grad) {
    g = empty(grad.sizes());
    idx = empty(indices.sizes(), DType::i64);
    cpu::write_blocked16(grad, g.raw_data());
    cpu::write_blocked16(indices, idx.raw_data());
  }
  Attrs attrs{{"input_shape", Dims(input_shape.begin(), input_shape.end())}};
  if (blocked_grad) attrs.set("blocked_inputs", Dims{0, 1});
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
  for (int64_t kernel : {2, 3}) {
    Pool2dOptions pool;
    pool.kernel_size = {kernel, kernel};
    pool.stride = {2, 2};
    Shape input_shape{2, 32, 9, 12};
    auto [values, indices] = max_pool2d_with_indices(randn(input_shape), pool);
    Tensor grad = randn(values.sizes());
    Tensor want = max_pool2d_backward(grad, indices, input_shape.vec());
    for (bool blocked_grad : {false, true})
      for (bool blocked_dx : {false, true}) {
        INFO("kernel " << kernel << ", grad and indices " << (blocked_grad ? "nChw16c" : "NCHW") << ", dx "
                       << (blocked_dx ? "nChw16c" : "NCHW"));
        Tensor got = pool_gradient(grad, indices, input_shape, blocked_grad, blocked_dx);
        CHECK(std::memcmp(got.raw_data(), want.raw_data(), static_cast<size_t>(want.numel()) * sizeof(float)) == 0);
      }
  }
}
