// The fused Adam step (tensor/optim.hpp): the CPU kernel against the update written
// out in double, which tensors it takes, and (with a GPU) the CUDA kernel against the
// CPU kernel.
#include <doctest/doctest.h>

#include <cmath>

#include "autograd/ops.hpp"
#include "tensor/cpu/copy.hpp"
#include "tensor/cuda/cuda_runtime.hpp"
#include "tensor/optim.hpp"
#include "tensor/random.hpp"

using namespace nabla;

namespace {

struct AdamState {
  Tensor p, g, m, v;
};

AdamState random_state(const Shape& sizes, DType dtype) {
  Tensor v = randn(sizes, dtype);
  return {randn(sizes, dtype), randn(sizes, dtype), randn(sizes, dtype), contiguous_raw(v * v)};
}

AdamState copied(const AdamState& s, Device device) {
  return {cuda::to_device(s.p, device), cuda::to_device(s.g, device), cuda::to_device(s.m, device),
          cuda::to_device(s.v, device)};
}

void expect_close(const Tensor& got, const std::vector<double>& expected, double tol) {
  std::vector<double> g = to_double_vector(got);
  REQUIRE(g.size() == expected.size());
  for (size_t i = 0; i < g.size(); ++i) CHECK(std::abs(g[i] - expected[i]) <= tol * (1 + std::abs(expected[i])));
}

}  // namespace

TEST_CASE("adam_step_raw follows Adam's and AdamW's update, in place") {
  manual_seed(7);
  for (bool decoupled : {false, true}) {
    CAPTURE(decoupled);
    AdamState s = random_state({5, 7}, DType::f64);
    std::vector<double> p = to_double_vector(s.p), g = to_double_vector(s.g), m = to_double_vector(s.m),
                        v = to_double_vector(s.v);
    AdamHyper h;
    h.lr = 0.01, h.weight_decay = 0.1, h.step = 3, h.decoupled = decoupled;
    uint32_t version = s.p.version();
    adam_step_raw(s.p, s.g, s.m, s.v, h);
    CHECK(s.p.version() == version + 1);
    double bc1 = 1 - std::pow(h.beta1, h.step), bc2 = 1 - std::pow(h.beta2, h.step);
    for (size_t i = 0; i < p.size(); ++i) {
      double gi = decoupled ? g[i] : g[i] + h.weight_decay * p[i];
      if (decoupled) p[i] *= 1 - h.lr * h.weight_decay;
      m[i] = h.beta1 * m[i] + (1 - h.beta1) * gi;
      v[i] = h.beta2 * v[i] + (1 - h.beta2) * gi * gi;
      p[i] -= h.lr / bc1 * m[i] / (std::sqrt(v[i]) / std::sqrt(bc2) + h.eps);
    }
    expect_close(s.p, p, 1e-12);
    expect_close(s.m, m, 1e-12);
    expect_close(s.v, v, 1e-12);
  }
}

TEST_CASE("adam_step_supported: contiguous f32 or f64 tensors of one shape, dtype and device") {
  AdamState s = random_state({4, 3}, DType::f32);
  CHECK(adam_step_supported(s.p, s.g, s.m, s.v));
  CHECK_FALSE(adam_step_supported(s.p, randn({4, 3}, DType::f64), s.m, s.v));
  CHECK_FALSE(adam_step_supported(s.p, randn({3, 4}), s.m, s.v));
  CHECK_FALSE(adam_step_supported(s.p, s.g, make_view(randn({3, 4}), {4, 3}, {1, 4}, 0), s.v));
  Tensor half = zeros({4}, DType::f16);
  CHECK_FALSE(adam_step_supported(half, half, half, half));
  CHECK(adam_step_flops(s.p) == 16 * 12);
  CHECK(adam_step_bytes(s.p) == 7 * 12 * 4);
}

TEST_CASE("CUDA adam_step matches the CPU kernel") {
  if (cuda::device_count() == 0) {
    MESSAGE("no GPU here: skipping (" << cuda::runtime_info() << ")");
    return;
  }
  manual_seed(8);
  Device gpu{DeviceKind::cuda, 0};
  for (DType dtype : {DType::f32, DType::f64}) {
    for (bool decoupled : {false, true}) {
      CAPTURE(decoupled);
      AdamState cpu = random_state({1000, 37}, dtype), dev = copied(cpu, gpu);
      AdamHyper h;
      h.lr = 0.001, h.weight_decay = 0.01, h.decoupled = decoupled;
      for (int step = 1; step <= 3; ++step) {
        h.step = step;
        adam_step_raw(cpu.p, cpu.g, cpu.m, cpu.v, h);
        adam_step_raw(dev.p, dev.g, dev.m, dev.v, h);
      }
      CHECK(dev.p.device() == gpu);
      double tol = dtype == DType::f32 ? 1e-5 : 1e-12;
      expect_close(dev.p, to_double_vector(cpu.p), tol);
      expect_close(dev.m, to_double_vector(cpu.m), tol);
      expect_close(dev.v, to_double_vector(cpu.v), tol);
    }
  }
}
