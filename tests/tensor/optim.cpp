// The fused Adam step (tensor/optim.hpp): the CPU kernel against the update written
// out in double, the multi-tensor step against the step of each parameter alone (bit
// for bit), which tensors they take, and (with a GPU) the CUDA kernels against the
// CPU kernels.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>

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

// Whether a GPU is here; without one a CUDA case says so and passes.
bool have_gpu() {
  if (cuda::device_count() > 0) return true;
  MESSAGE("no GPU here: skipping (" << cuda::runtime_info() << ")");
  return false;
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

// Parameters of mixed sizes (a bias of 1, an empty one, big ones), so that the
// flattened range splits between threads inside and between parameters.
std::vector<AdamState> random_states(DType dtype) {
  std::vector<AdamState> states;
  for (const Shape& sizes : std::vector<Shape>{{3}, {1}, {70, 301}, {0}, {9000}, {128, 65}, {5}})
    states.push_back(random_state(sizes, dtype));
  return states;
}

AdamMultiArgs multi_args(const std::vector<AdamState>& states) {
  AdamMultiArgs args;
  for (size_t k = 0; k < states.size(); ++k) {
    args.p.push_back(states[k].p), args.g.push_back(states[k].g);
    args.exp_avg.push_back(states[k].m), args.exp_avg_sq.push_back(states[k].v);
    args.steps.push_back(static_cast<double>(1 + k % 3));  // parameters at different steps
  }
  return args;
}

std::vector<AdamState> cloned(const std::vector<AdamState>& states) {
  std::vector<AdamState> out;
  for (const AdamState& s : states)
    out.push_back({contiguous_raw(s.p * 1), s.g, contiguous_raw(s.m * 1), contiguous_raw(s.v * 1)});
  return out;
}

void expect_bit_equal(const Tensor& a, const Tensor& b) {
  REQUIRE(a.numel() == b.numel());
  CHECK(std::memcmp(a.raw_data(), b.raw_data(), static_cast<size_t>(a.numel()) * dtype_size(a.dtype())) == 0);
}

TEST_CASE("adam_step_multi_raw equals adam_step_raw on each parameter, bit for bit, in f32 and f64") {
  manual_seed(11);
  for (DType dtype : {DType::f32, DType::f64}) {
    for (bool decoupled : {false, true}) {
      CAPTURE(dtype_name(dtype));
      CAPTURE(decoupled);
      std::vector<AdamState> multi = random_states(dtype), single = cloned(multi);
      AdamMultiArgs args = multi_args(multi);
      AdamHyper h;
      h.lr = 0.003, h.weight_decay = 0.05, h.decoupled = decoupled;
      for (int round = 0; round < 2; ++round) {
        adam_step_multi_raw(args, h);
        for (size_t k = 0; k < single.size(); ++k) {
          AdamHyper hk = h;
          hk.step = args.steps[k];
          adam_step_raw(single[k].p, single[k].g, single[k].m, single[k].v, hk);
        }
      }
      for (size_t k = 0; k < multi.size(); ++k) {
        expect_bit_equal(multi[k].p, single[k].p);
        expect_bit_equal(multi[k].m, single[k].m);
        expect_bit_equal(multi[k].v, single[k].v);
      }
    }
  }
}

TEST_CASE("adam_step_multi_supported: lists of one length, each quadruple supported, one dtype and device") {
  std::vector<AdamState> states = random_states(DType::f32);
  AdamMultiArgs args = multi_args(states);
  CHECK(adam_step_multi_supported(args));
  AdamMultiArgs short_steps = args;
  short_steps.steps.pop_back();
  CHECK_FALSE(adam_step_multi_supported(short_steps));
  AdamMultiArgs mixed = args;
  AdamState f64 = random_state({2}, DType::f64);
  mixed.p.push_back(f64.p), mixed.g.push_back(f64.g), mixed.exp_avg.push_back(f64.m);
  mixed.exp_avg_sq.push_back(f64.v), mixed.steps.push_back(1);
  CHECK_FALSE(adam_step_multi_supported(mixed));
  AdamMultiArgs undefined = args;
  undefined.g[1] = Tensor();
  CHECK_FALSE(adam_step_multi_supported(undefined));
  CHECK_THROWS_WITH_AS(adam_step_multi_raw(undefined, AdamHyper{}), doctest::Contains("adam_step_multi: expects"),
                       Error);
  CHECK(adam_step_multi_flops(args.p) == 16.0 * (3 + 1 + 70 * 301 + 9000 + 128 * 65 + 5));
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
  if (!have_gpu()) return;
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

TEST_CASE("CUDA adam_step_multi matches the CPU kernel, across launches of many parameters") {
  if (!have_gpu()) return;
  manual_seed(12);
  Device gpu{DeviceKind::cuda, 0};
  for (DType dtype : {DType::f32, DType::f64}) {
    std::vector<AdamState> cpu, dev;
    for (int k = 0; k < 3; ++k)  // 21 parameters: more than one launch holds
      for (const AdamState& s : random_states(dtype)) cpu.push_back(s), dev.push_back(copied(s, gpu));
    AdamMultiArgs on_cpu = multi_args(cpu), on_gpu = multi_args(dev);
    AdamHyper h;
    h.lr = 0.001, h.weight_decay = 0.01;
    adam_step_multi_raw(on_cpu, h);
    adam_step_multi_raw(on_gpu, h);
    double tol = dtype == DType::f32 ? 1e-5 : 1e-12;
    for (size_t k = 0; k < cpu.size(); ++k) {
      expect_close(dev[k].p, to_double_vector(cpu[k].p), tol);
      expect_close(dev[k].v, to_double_vector(cpu[k].v), tol);
    }
  }
}
