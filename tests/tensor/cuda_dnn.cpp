// The CUDA kernels of blas.cu, conv.cu, pool.cu, norm.cu and attention.cu against the
// CPU kernels, which are their specification: each op runs on CPU inputs and on copies
// of them on cuda:0, and every output must agree (indices exactly). f32 and f64
// throughout, f16 matmul loosely; batched, broadcast and 1-D matmuls; inputs that are
// not contiguous; convolutions with stride, padding, dilation and groups. Without a
// GPU (or without a CUDA build) each case says so and returns.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "autograd/ops.hpp"
#include "tensor/cpu/fused.hpp"
#include "tensor/cuda/cuda_runtime.hpp"
#include "tensor/cuda/epilogue.hpp"
#include "tensor/cuda/settings.hpp"
#include "tensor/random.hpp"

using namespace nabla;

namespace {

using Op = std::function<TensorList(const TensorList&)>;

const Device kGpu{DeviceKind::cuda, 0};

bool have_gpu() {
  if (cuda::device_count() > 0) return true;
  MESSAGE("no GPU here: skipping the CUDA kernel checks (" << cuda::runtime_info() << ")");
  return false;
}

Tensor on(const Tensor& t, const Device& d) { return t.defined() ? cuda::to_device(t, d) : Tensor(); }

// Tolerances relative to the largest magnitude of the CPU's result (f32 computes in
// f32: TF32 is off by default).
double tolerance(DType dt) { return dt == DType::f64 ? 1e-10 : dt == DType::f32 ? 1e-4 : 2e-2; }

void check_close(const Tensor& gpu, const Tensor& cpu, double tol) {
  REQUIRE(gpu.device() == kGpu);
  CHECK(shape_str(gpu.sizes()) == shape_str(cpu.sizes()));
  CHECK(gpu.dtype() == cpu.dtype());
  std::vector<double> a = to_double_vector(on(gpu, cpu_device())), b = to_double_vector(cpu);
  REQUIRE(a.size() == b.size());
  double scale = 1, diff = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    scale = std::max(scale, std::abs(b[i]));
    diff = std::max(diff, std::isnan(b[i]) ? (std::isnan(a[i]) ? 0.0 : INFINITY) : std::abs(a[i] - b[i]));
  }
  CHECK(diff <= tol * scale);
}

// Runs `op` on `inputs` (CPU) and on their copies on cuda:0; compares every output.
void check_op(const TensorList& inputs, const Op& op, double tol) {
  TensorList gpu_inputs;
  for (const Tensor& t : inputs) gpu_inputs.push_back(on(t, kGpu));
  TensorList want = op(inputs), got = op(gpu_inputs);
  REQUIRE(want.size() == got.size());
  for (size_t i = 0; i < want.size(); ++i) {
    CAPTURE(i);
    check_close(got[i], want[i], want[i].dtype() == DType::i64 ? 0.0 : tol);
  }
}

Tensor rand_of(const Shape& s, DType dt) { return to_dtype(randn(s, DType::f32), dt); }

const DType kFloatTypes[] = {DType::f32, DType::f64};

}  // namespace

TEST_CASE("cuda matmul: 2-D, batched, broadcast, 1-D, transposed and strided operands") {
  if (!have_gpu()) return;
  Op mm = [](const TensorList& t) { return TensorList{matmul(t[0], t[1])}; };
  for (DType dt : kFloatTypes) {
    CAPTURE(dtype_name(dt));
    double tol = tolerance(dt);
    check_op({rand_of({5, 7}, dt), rand_of({7, 3}, dt)}, mm, tol);
    check_op({rand_of({4, 5, 7}, dt), rand_of({4, 7, 3}, dt)}, mm, tol);
    check_op({rand_of({4, 5, 7}, dt), rand_of({7, 3}, dt)}, mm, tol);        // one GEMM of 20 rows
    check_op({rand_of({5, 7}, dt), rand_of({4, 7, 3}, dt)}, mm, tol);        // a broadcast
    check_op({rand_of({2, 1, 5, 7}, dt), rand_of({3, 7, 4}, dt)}, mm, tol);  // per-batch pointers
    check_op({rand_of({7}, dt), rand_of({7, 3}, dt)}, mm, tol);
    check_op({rand_of({5, 7}, dt), rand_of({7}, dt)}, mm, tol);
    check_op({rand_of({7}, dt), rand_of({7}, dt)}, mm, tol);
    check_op({rand_of({3, 0}, dt), rand_of({0, 4}, dt)}, mm, tol);  // K = 0: zeros
    Op transposed = [](const TensorList& t) {
      return TensorList{matmul(transpose(t[0], -1, -2), transpose(t[1], 0, 1))};
    };
    check_op({rand_of({2, 7, 5}, dt), rand_of({3, 7}, dt)}, transposed, tol);
    Op strided = [](const TensorList& t) {
      return TensorList{matmul(slice(t[0], 1, 0, 10, 2), slice(t[1], 0, 0, 12, 2))};
    };
    check_op({rand_of({2, 10, 6}, dt), rand_of({12, 5}, dt)}, strided, tol);
    Op expanded = [](const TensorList& t) { return TensorList{matmul(expand(t[0], {3, 5, 7}), t[1])}; };
    check_op({rand_of({1, 5, 7}, dt), rand_of({3, 7, 2}, dt)}, expanded, tol);
  }
}

TEST_CASE("cuda matmul in f16 and bf16 accumulates in f32") {
  if (!have_gpu()) return;
  Op mm = [](const TensorList& t) { return TensorList{matmul(t[0], t[1])}; };
  for (DType dt : {DType::f16, DType::bf16}) {
    CAPTURE(dtype_name(dt));
    check_op({rand_of({3, 16, 64}, dt), rand_of({64, 8}, dt)}, mm, dt == DType::f16 ? 1e-2 : 3e-2);
  }
}

// Allows TF32 for its lifetime (off again even when a check throws).
struct AllowTf32 {
  AllowTf32() { cuda::set_allow_tf32(true); }
  ~AllowTf32() { cuda::set_allow_tf32(false); }
};

TEST_CASE("cuda f16 matmul and conv2d on operands at odd element offsets") {
  // cuBLAS's pointer-array GEMM cannot see the device pointers' alignment, and cuDNN
  // may refuse a misaligned 16-bit pointer: views that start one element in.
  if (!have_gpu()) return;
  Op mm = [](const TensorList& t) { return TensorList{matmul(slice(t[0], -1, 1, 7), t[1])}; };
  check_op({rand_of({2, 1, 4, 7}, DType::f16), rand_of({3, 6, 5}, DType::f16)}, mm, 1e-2);  // two-sided broadcast
  check_op({rand_of({3, 4, 7}, DType::f16), rand_of({3, 6, 5}, DType::f16)}, mm, 1e-2);     // strided batches
  Op conv = [](const TensorList& t) {
    Tensor x = reshape(slice(flatten(t[0]), 0, 1, 1 + 2 * 3 * 6 * 6), {2, 3, 6, 6});
    return TensorList{conv2d(x, t[1], t[2], Conv2dOptions{{1, 1}, {1, 1}, {1, 1}, 1})};
  };
  check_op({rand_of({2 * 3 * 6 * 6 + 1}, DType::f16), rand_of({4, 3, 3, 3}, DType::f16), rand_of({4}, DType::f16)},
           conv, 2e-2);
}

TEST_CASE("TF32 is opt-in") {
  CHECK_FALSE(cuda::allow_tf32());
  {
    AllowTf32 scope;
    CHECK(cuda::allow_tf32() == cuda::built_with_cuda());
    if (cuda::device_count() > 0) {
      Op mm = [](const TensorList& t) { return TensorList{matmul(t[0], t[1])}; };
      check_op({rand_of({3, 16, 64}, DType::f32), rand_of({64, 8}, DType::f32)}, mm, 1e-2);
    }
  }
  CHECK_FALSE(cuda::allow_tf32());
}

TEST_CASE("cuda linear and linear_act") {
  if (!have_gpu()) return;
  for (DType dt : kFloatTypes) {
    CAPTURE(dtype_name(dt));
    double tol = tolerance(dt);
    Op lin = [](const TensorList& t) { return TensorList{linear(t[0], t[1], t[2])}; };
    check_op({rand_of({2, 3, 5}, dt), rand_of({4, 5}, dt), rand_of({4}, dt)}, lin, tol);
    check_op({rand_of({6, 5}, dt), rand_of({4, 5}, dt), Tensor()}, lin, tol);
    Op lin_t = [](const TensorList& t) { return TensorList{linear(t[0], transpose(t[1], 0, 1), t[2])}; };
    check_op({rand_of({6, 5}, dt), rand_of({5, 4}, dt), rand_of({4}, dt)}, lin_t, tol);
    for (cpu::Activation act : {cpu::Activation::relu, cpu::Activation::gelu, cpu::Activation::silu}) {
      CAPTURE(cpu::activation_name(act));
      Op fused = [act](const TensorList& t) {
        Tensor out = empty({6, 4}, t[0].dtype(), t[0].device());
        if (t[0].device() == kGpu)
          cuda::linear_act(t[0], t[1], t[2], act, out);
        else
          cpu::linear_act(t[0], t[1], t[2], act, cpu::WeightLayout::plain, out);
        return TensorList{out};
      };
      check_op({rand_of({6, 5}, dt), rand_of({4, 5}, dt), rand_of({4}, dt)}, fused, tol);
      check_op({rand_of({6, 5}, dt), rand_of({4, 5}, dt), Tensor()}, fused, tol);
    }
  }
}

TEST_CASE("cuda conv2d and its adjoints with stride, padding, dilation and groups") {
  if (!have_gpu()) return;
  struct Case {
    Shape x, w;
    Conv2dOptions opt;
  };
  const Case cases[] = {{{2, 3, 8, 8}, {5, 3, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, 1}},
                        {{2, 4, 9, 7}, {6, 2, 3, 3}, {{2, 2}, {1, 1}, {1, 1}, 2}},
                        {{1, 4, 10, 10}, {4, 1, 3, 3}, {{1, 2}, {2, 0}, {2, 1}, 4}}};
  for (DType dt : kFloatTypes) {
    for (const Case& c : cases) {
      CAPTURE(dtype_name(dt));
      CAPTURE(shape_str(c.w));
      double tol = tolerance(dt);
      Conv2dOptions opt = c.opt;
      Op conv = [opt](const TensorList& t) { return TensorList{conv2d(t[0], t[1], t[2], opt)}; };
      check_op({rand_of(c.x, dt), rand_of(c.w, dt), rand_of({c.w[0]}, dt)}, conv, tol);
      Tensor y = conv2d(rand_of(c.x, dt), rand_of(c.w, dt), Tensor(), opt);
      Op input_grad = [opt, c](const TensorList& t) {
        return TensorList{conv2d_backward_input(t[0], t[1], c.x.vec(), opt)};
      };
      check_op({rand_of(y.sizes(), dt), rand_of(c.w, dt)}, input_grad, tol);
      Op weight_grad = [opt, c](const TensorList& t) {
        return TensorList{conv2d_backward_weight(t[0], t[1], c.w.vec(), opt)};
      };
      check_op({rand_of(c.x, dt), rand_of(y.sizes(), dt)}, weight_grad, tol);
    }
    // A channels-last input and conv2d_act.
    Op permuted = [](const TensorList& t) {
      return TensorList{conv2d(permute(t[0], {0, 3, 1, 2}), t[1], t[2], Conv2dOptions{{1, 1}, {1, 1}, {1, 1}, 1})};
    };
    check_op({rand_of({2, 6, 6, 3}, dt), rand_of({4, 3, 3, 3}, dt), rand_of({4}, dt)}, permuted, tolerance(dt));
    Op fused = [](const TensorList& t) {
      Attrs attrs{
          {"stride", IntList{1, 1}}, {"padding", IntList{1, 1}}, {"dilation", IntList{1, 1}}, {"groups", int64_t{1}}};
      Tensor out = empty({2, 4, 6, 6}, t[0].dtype(), t[0].device());
      if (t[0].device() == kGpu)
        cuda::conv2d_act(t[0], t[1], t[2], attrs, cpu::Activation::relu, out);
      else
        cpu::conv2d_act(t[0], t[1], t[2], attrs, cpu::Activation::relu, cpu::WeightLayout::plain, out);
      return TensorList{out};
    };
    check_op({rand_of({2, 3, 6, 6}, dt), rand_of({4, 3, 3, 3}, dt), rand_of({4}, dt)}, fused, tolerance(dt));
  }
}

TEST_CASE("cuda pooling: the CPU's windows, indices and divisors") {
  if (!have_gpu()) return;
  Pool2dOptions plain{{2, 2}, {}, {0, 0}, {1, 1}, false, true};
  Pool2dOptions padded{{3, 3}, {2, 2}, {1, 1}, {1, 1}, true, false};
  Pool2dOptions dilated{{3, 2}, {1, 2}, {1, 1}, {2, 1}, true, true};
  // u8 and i8 (quantized activations): small ranges, so windows hold ties; exact.
  for (DType dt : {DType::u8, DType::i8}) {
    CAPTURE(dtype_name(dt));
    Tensor x = to_dtype(randint(dt == DType::u8 ? 0 : -128, dt == DType::u8 ? 256 : 128, {2, 3, 9, 8}), dt);
    Tensor ties = to_dtype(randint(0, 3, {2, 3, 9, 8}), dt);
    for (const Pool2dOptions& opt : {plain, padded, dilated}) {
      Op max = [opt](const TensorList& t) {
        auto [y, idx] = max_pool2d_with_indices(t[0], opt);
        return TensorList{y, idx};
      };
      check_op({x}, max, 0.0);
      check_op({ties}, max, 0.0);
    }
  }
  for (DType dt : kFloatTypes) {
    CAPTURE(dtype_name(dt));
    double tol = tolerance(dt);
    for (const Pool2dOptions& opt : {plain, padded, dilated}) {
      Op max = [opt](const TensorList& t) {
        auto [y, idx] = max_pool2d_with_indices(t[0], opt);
        return TensorList{y, idx};
      };
      check_op({rand_of({2, 3, 9, 8}, dt)}, max, tol);
    }
    for (Pool2dOptions opt : {plain, padded}) {
      for (bool include_pad : {false, true}) {
        opt.count_include_pad = include_pad;
        Op avg = [opt](const TensorList& t) { return TensorList{avg_pool2d(t[0], opt)}; };
        check_op({rand_of({2, 3, 9, 8}, dt)}, avg, tol);
        Tensor y = avg_pool2d(rand_of({2, 3, 9, 8}, dt), opt);
        Op back = [opt](const TensorList& t) { return TensorList{avg_pool2d_backward(t[0], {2, 3, 9, 8}, opt)}; };
        check_op({rand_of(y.sizes(), dt)}, back, tol);
      }
    }
    for (const Pool2dOptions& opt : {plain, padded, dilated}) {
      Tensor indices = max_pool2d_with_indices(rand_of({2, 3, 9, 8}, dt), opt).second;
      Op back = [](const TensorList& t) { return TensorList{max_pool2d_backward(t[0], t[1], {2, 3, 9, 8})}; };
      check_op({rand_of(indices.sizes(), dt), indices}, back, tol);
    }
  }
}

TEST_CASE("cuda batch_norm updates the running stats; batch_norm_backward in both modes") {
  if (!have_gpu()) return;
  for (DType dt : kFloatTypes) {
    CAPTURE(dtype_name(dt));
    double tol = tolerance(dt);
    for (bool training : {true, false}) {
      CAPTURE(training);
      Op bn = [training](const TensorList& t) {
        Tensor y = batch_norm(t[0], t[1], t[2], t[3], t[4], training, 0.1, 1e-5);
        return TensorList{y, t[3], t[4]};
      };
      Tensor var = abs(rand_of({3}, dt)) + 0.5;
      check_op({rand_of({4, 3, 5, 2}, dt) * 3.0 + 2.0, rand_of({3}, dt), rand_of({3}, dt), rand_of({3}, dt), var}, bn,
               tol);
      check_op({rand_of({4, 3, 5, 2}, dt), Tensor(), Tensor(), rand_of({3}, dt), var}, bn, tol);
      Op back = [training](const TensorList& t) {
        return batch_norm_backward(t[0], t[1], t[2], t[3], t[4], training, 1e-5);
      };
      check_op({rand_of({4, 3, 5, 2}, dt), rand_of({4, 3, 5, 2}, dt), rand_of({3}, dt), rand_of({3}, dt), var}, back,
               tol);
    }
    // [N, C] input, no spatial dims.
    Op bn2 = [](const TensorList& t) { return TensorList{batch_norm(t[0], t[1], t[2], Tensor(), Tensor(), true)}; };
    check_op({rand_of({16, 5}, dt), rand_of({5}, dt), rand_of({5}, dt)}, bn2, tol);
  }
}

TEST_CASE("cuda layer_norm") {
  if (!have_gpu()) return;
  for (DType dt : kFloatTypes) {
    CAPTURE(dtype_name(dt));
    Op ln = [](const TensorList& t) { return TensorList{layer_norm(t[0], {4, 6}, t[1], t[2])}; };
    check_op({rand_of({3, 4, 6}, dt) + 5.0, rand_of({4, 6}, dt), rand_of({4, 6}, dt)}, ln, tolerance(dt));
    check_op({rand_of({3, 4, 6}, dt), Tensor(), Tensor()}, ln, tolerance(dt));
    Op wide = [](const TensorList& t) { return TensorList{layer_norm(transpose(t[0], 0, 1), {1000})}; };
    check_op({rand_of({1000, 5}, dt)}, wide, tolerance(dt));
  }
}

TEST_CASE("cuda scaled_dot_product_attention: causal, scaled, broadcast batch") {
  if (!have_gpu()) return;
  for (DType dt : kFloatTypes) {
    CAPTURE(dtype_name(dt));
    for (bool causal : {false, true}) {
      CAPTURE(causal);
      Op sdpa = [causal](const TensorList& t) {
        return TensorList{scaled_dot_product_attention(t[0], t[1], t[2], causal)};
      };
      check_op({rand_of({2, 3, 5, 8}, dt), rand_of({2, 3, 7, 8}, dt), rand_of({2, 3, 7, 6}, dt)}, sdpa, tolerance(dt));
      check_op({rand_of({2, 3, 9, 8}, dt), rand_of({3, 4, 8}, dt), rand_of({1, 3, 4, 6}, dt)}, sdpa, tolerance(dt));
      Op scaled = [causal](const TensorList& t) {
        return TensorList{scaled_dot_product_attention(t[0], transpose(t[1], 0, 1), t[2], causal, 0.3)};
      };
      check_op({rand_of({4, 6, 8}, dt), rand_of({6, 4, 8}, dt), rand_of({4, 6, 5}, dt)}, scaled, tolerance(dt));
    }
  }
}
