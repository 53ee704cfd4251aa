// nabla's side of the benchmark: `nabla_bench FIGURE` prints one number for one
// figure (the median of several timed repetitions inside this process). The runner
// scripts/bench.py calls it interleaved with scripts/bench/bench_torch.py and prints
// the BENCH lines; see README.md.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <unistd.h>

#include "autograd/engine.hpp"
#include "autograd/ops.hpp"
#include "autograd/roofline.hpp"
#include "interp/app/openmp_wait.hpp"
#include "tensor/cpu/fused.hpp"
#include "tensor/cpu/kernels.hpp"
#include "tensor/random.hpp"
#include "tensor/safetensors.hpp"

using namespace nabla;
using Clock = std::chrono::steady_clock;

namespace {

// Median seconds per call of fn over `reps` timed batches of `inner` calls.
double median_seconds(const std::function<void()>& fn, int reps, int inner) {
  fn();  // warm-up: caches, JIT kernels, allocator
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    auto t0 = Clock::now();
    for (int i = 0; i < inner; ++i) fn();
    t.push_back(std::chrono::duration<double>(Clock::now() - t0).count() / inner);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

double sgemm_gflops(int64_t n) {
  Tensor a = randn({n, n}), b = randn({n, n});
  int inner = n <= 256 ? 50 : n <= 1024 ? 5 : 1;
  double s = median_seconds([&] { matmul(a, b); }, 7, inner);
  return 2.0 * n * n * n / s / 1e9;
}

double conv2d_gflops() {
  Tensor x = randn({64, 32, 28, 28}), w = randn({64, 32, 3, 3});
  Conv2dOptions opt;
  opt.padding = {1, 1};
  double s = median_seconds([&] { conv2d(x, w, Tensor(), opt); }, 7, 3);
  return 2.0 * 64 * 64 * 28 * 28 * 32 * 9 / s / 1e9;
}

// conv1d: 64 -> 128 channels, kernel 3, on [64, 64, 256] (a 1-D CNN's middle layer).
double conv1d_gflops() {
  Tensor x = randn({64, 64, 256}), w = randn({128, 64, 3});
  Conv1dOptions opt;
  opt.padding = 1;
  double s = median_seconds([&] { conv1d(x, w, Tensor(), opt); }, 7, 3);
  return 2.0 * 64 * 128 * 256 * 64 * 3 / s / 1e9;
}

// conv_transpose2d: 64 -> 32 channels, kernel 4, stride 2, padding 1: [32, 64, 14, 14]
// up to [32, 32, 28, 28] (a decoder's upsampling layer).
double conv_transpose2d_gflops() {
  Tensor x = randn({32, 64, 14, 14}), w = randn({64, 32, 4, 4}), b = randn({32});
  ConvTransposeOptions opt;
  opt.stride = {2};
  opt.padding = {1};
  double s = median_seconds([&] { conv_transpose2d(x, w, b, opt); }, 7, 3);
  return 2.0 * 32 * 64 * 14 * 14 * 32 * 16 / s / 1e9;
}

// The convolution kernels as the compiled CNN step calls them (Note [Blocked
// activations between convolutions]): the pooled forward with ReLU, its indices and
// the layout (conv1's result blocked, conv2's input blocked and its result NCHW), the
// input gradient between blocked operands, the weight and bias gradients in one call
// from blocked operands (conv1's input is the NCHW image).
void report_step_ops(const std::function<void(const char*, double, const std::function<void()>&)>& report) {
  Attrs conv{{"stride", std::vector<int64_t>{1, 1}}, {"padding", std::vector<int64_t>{1, 1}},
             {"dilation", std::vector<int64_t>{1, 1}}, {"groups", int64_t{1}}};
  Attrs pool{{"kernel_size", std::vector<int64_t>{2, 2}}, {"stride", std::vector<int64_t>{}},
             {"padding", std::vector<int64_t>{0, 0}}, {"dilation", std::vector<int64_t>{1, 1}}, {"ceil_mode", false}};
  Attrs blocked_both = conv;
  blocked_both.set("blocked_inputs", std::vector<int64_t>{0});
  blocked_both.set("blocked_out", true);
  struct Layer {
    const char* name;
    int64_t c, oc, hw;
    bool blocked_x, blocked_pooled;
  };
  for (Layer l : {Layer{"conv1", 1, 32, 28, false, true}, Layer{"conv2", 32, 64, 14, true, false}}) {
    Tensor x = randn({64, l.c, l.hw, l.hw}), w = randn({l.oc, l.c, 3, 3}), b = randn({l.oc});
    Tensor gy = randn({64, l.oc, l.hw, l.hw}), dx = empty(x.sizes()), dw = empty(w.sizes()), db = empty(b.sizes());
    Tensor pooled = empty({64, l.oc, l.hw / 2, l.hw / 2}), indices = empty(pooled.sizes(), DType::i64);
    double flops = 2.0 * 64 * l.oc * l.hw * l.hw * l.c * 9;
    std::string n = l.name;
    report((n + "_fwd_step").c_str(), flops, [&] {
      cpu::conv2d_act_max_pool2d(x, w, b, conv, cpu::Activation::relu, pool, cpu::WeightLayout::plain, pooled, indices,
                                 l.blocked_x, l.blocked_pooled);
    });
    if (l.c > 1) {
      TensorList in{gy, w}, out{dx};
      report((n + "_bwd_input_step").c_str(), flops, [&] { cpu::conv2d_backward_input(in, blocked_both, out); });
    }
    if (l.c > 1) {
      report((n + "_bwd_weight_step").c_str(), flops,
             [&] { cpu::conv2d_backward_weight_bias(x, gy, conv, dw, db, l.blocked_x, true); });
      continue;
    }
    // The first layer's weight gradient takes its pool's gradient apart (Note [The
    // pool's gradient inside the first layer's weight gradient]): from the pooled
    // gradient and its windows' codes (Note [Window codes]), both nChw16c, as the step
    // calls it.
    Tensor pooled_gy = randn(pooled.sizes()), blocked_indices = empty(pooled.sizes(), DType::i64);
    Pool2dOptions pool_opt;
    pool_opt.kernel_size = {2, 2};
    cpu::write_window_codes16(max_pool2d_with_indices(randn({64, l.oc, l.hw, l.hw}), pool_opt).second, l.hw,
                              cpu::window_codes(blocked_indices));
    report((n + "_bwd_weight_step").c_str(), flops,
           [&] { cpu::conv2d_pool_backward_weight_bias(x, pooled_gy, blocked_indices, conv, dw, db); });
  }
}

// The convolutions of the Fashion-MNIST CNN's training step at batch 64 (3x3, padding
// 1): conv1 1 -> 32 channels on 28x28, conv2 32 -> 64 on 14x14. Each op the step runs
// (conv1's input needs no gradient, so it has no backward_input) as GFLOP/s and as a
// fraction of the sgemm rate (n = 1024) measured in this process, one line of
// "key=value" fields: sgemm=.. conv1_fwd=.. conv1_fwd_frac=.. ...; eager's NCHW ops,
// then (<op>_step) the compiled step's kernels (report_step_ops).
std::string cnn_conv_ops() {
  double sgemm = sgemm_gflops(1024);
  Conv2dOptions opt;
  opt.padding = {1, 1};
  char field[96];
  std::snprintf(field, sizeof field, "sgemm=%.1f", sgemm);
  std::string line = field;
  auto report = [&](const char* name, double flops, const std::function<void()>& fn) {
    double gflops = flops / median_seconds(fn, 9, 5) / 1e9;
    std::snprintf(field, sizeof field, " %s=%.1f %s_frac=%.2f", name, gflops, name, gflops / sgemm);
    line += field;
  };
  struct Layer {
    const char* name;
    int64_t c, oc, hw;
  };
  for (Layer l : {Layer{"conv1", 1, 32, 28}, Layer{"conv2", 32, 64, 14}}) {
    Tensor x = randn({64, l.c, l.hw, l.hw}), w = randn({l.oc, l.c, 3, 3}), b = randn({l.oc});
    Tensor gy = randn({64, l.oc, l.hw, l.hw});
    double flops = 2.0 * 64 * l.oc * l.hw * l.hw * l.c * 9;
    std::string n = l.name;
    report((n + "_fwd").c_str(), flops, [&] { conv2d(x, w, b, opt); });
    if (l.c > 1) report((n + "_bwd_input").c_str(), flops, [&] { conv2d_backward_input(gy, w, x.sizes().vec(), opt); });
    report((n + "_bwd_weight").c_str(), flops, [&] { conv2d_backward_weight(x, gy, w.sizes().vec(), opt); });
  }
  report_step_ops(report);
  return line;
}

double tiny_add_us() {
  Tensor a = randn({4}), b = randn({4});
  return median_seconds([&] { add(a, b); }, 9, 20000) * 1e6;
}

// y = (x * x).sum(); y.backward(); x.grad = None — per iteration.
double tiny_fwd_bwd_us() {
  Tensor x = randn({4}).set_requires_grad(true);
  return median_seconds(
             [&] {
               Tensor y = sum(mul(x, x));
               backward(y);
               x.set_grad(Tensor());
             },
             9, 5000) *
         1e6;
}

// BatchNorm2d in training mode on the CNN's first activation [64, 32, 28, 28]:
// forward (with the running-stat update) and backward to input, weight and bias.
double batchnorm_ms() {
  Tensor x = randn({64, 32, 28, 28}).set_requires_grad(true), g = randn({64, 32, 28, 28});
  Tensor w = ones({32}).set_requires_grad(true), b = zeros({32}).set_requires_grad(true);
  Tensor rm = zeros({32}), rv = ones({32});
  return median_seconds([&] { backward(batch_norm(x, w, b, rm, rv, true), g); }, 7, 10) * 1e3;
}

// The CNN's first 2x2 max pool, forward with indices (what training keeps for
// backward), on [64, 32, 28, 28] f32.
double max_pool_ms() {
  Tensor x = randn({64, 32, 28, 28});
  Pool2dOptions opt;
  opt.kernel_size = {2, 2};
  return median_seconds([&] { max_pool2d_with_indices(x, opt); }, 7, 20) * 1e3;
}

// The memory-bound backward ops of the CNN's first block, on [64, 32, 28, 28] f32:
// the 2x2 max pool's gradient from its indices (max_pool2d_backward) and relu's
// gradient from its result (threshold_backward).
double max_pool_backward_ms() {
  Pool2dOptions opt;
  opt.kernel_size = {2, 2};
  Tensor indices = max_pool2d_with_indices(randn({64, 32, 28, 28}), opt).second;
  Tensor grad = randn(indices.sizes());
  return median_seconds([&] { max_pool2d_backward(grad, indices, {64, 32, 28, 28}); }, 7, 20) * 1e3;
}

double relu_backward_ms() {
  Tensor y = relu(randn({64, 32, 28, 28})), grad = randn({64, 32, 28, 28});
  return median_seconds([&] { threshold_backward(grad, y, 0.0); }, 7, 20) * 1e3;
}

// The gradient through the CNN's first ReLU and 2x2 pool ([64, 32, 28, 28] f32) in the
// compiled step's order (Note [Masking before the pool's scatter]): ReLU's mask taken
// on the pooled gradient (a quarter of the elements, against the pooled result), then
// the pool's scatter. PyTorch's step scatters, then masks the full-size gradient.
double relu_pool_backward_ms() {
  Pool2dOptions opt;
  opt.kernel_size = {2, 2};
  auto [pooled, indices] = max_pool2d_with_indices(relu(randn({64, 32, 28, 28})), opt);
  Tensor grad = randn(pooled.sizes());
  return median_seconds([&] { max_pool2d_backward(threshold_backward(grad, pooled, 0.0), indices, {64, 32, 28, 28}); },
                        7, 20) *
         1e3;
}

// The same gradient as a compiled step runs it between two convolutions (Note [Window
// codes]; the CNN's second block, whose pool feeds the first linear layer, keeps its
// pooled values planar and its indices flat): ReLU's mask on the pooled gradient, then
// the pool's scatter from its windows' codes, every operand in nChw16c. PyTorch's side
// is relu_pool_backward's, the same two ops as its step runs them.
double relu_pool_backward_step_ms() {
  Pool2dOptions opt;
  opt.kernel_size = {2, 2};
  auto [pooled, flat_indices] = max_pool2d_with_indices(relu(randn({64, 32, 28, 28})), opt);
  Tensor grad = randn(pooled.sizes()), codes = empty(pooled.sizes(), DType::i64), dx = empty({64, 32, 28, 28});
  cpu::write_window_codes16(flat_indices, 28, cpu::window_codes(codes));
  Attrs blocked{{"blocked_inputs", std::vector<int64_t>{0, 1}}, {"blocked_out", true}, {"window_codes", true}};
  return median_seconds(
             [&] {
               TensorList in{threshold_backward(grad, pooled, 0.0), codes}, out{dx};
               cpu::max_pool2d_backward(in, blocked, out);
             },
             7, 20) *
         1e3;
}

// group_norm forward (8 groups, with affine parameters) on [32, 64, 28, 28] f32.
double group_norm_ms() {
  Tensor x = randn({32, 64, 28, 28}), w = randn({64}), b = randn({64});
  return median_seconds([&] { group_norm(x, 8, w, b); }, 7, 10) * 1e3;
}

// Attention forward + backward with a bool key-padding mask, [8, 8, 256, 64] f32.
double sdpa_mask_ms() {
  Tensor q = randn({8, 8, 256, 64}).set_requires_grad(true), k = randn({8, 8, 256, 64}).set_requires_grad(true);
  Tensor v = randn({8, 8, 256, 64}).set_requires_grad(true), g = randn({8, 8, 256, 64});
  Tensor keep = gt(rand({8, 1, 1, 256}), full({}, 0.2));
  AttentionOptions opt{.attn_mask = keep};
  return median_seconds([&] { grad({scaled_dot_product_attention(q, k, v, opt)}, {q, k, v}, {g}); }, 7, 3) * 1e3;
}

// Bilinear 2x upsampling (align_corners=false), forward, [32, 32, 28, 28] -> 56 x 56 f32.
double interpolate_bilinear_ms() {
  Tensor x = randn({32, 32, 28, 28});
  InterpolateOptions opt;
  opt.scale_factor = {2.0};
  opt.mode = InterpolateMode::linear;
  return median_seconds([&] { interpolate(x, opt); }, 7, 10) * 1e3;
}

// Hessian-vector product of a 2-layer tanh MLP (8 -> 32 -> 1, batch 16).
double hvp_us() {
  Tensor x = randn({16, 8});
  Tensor w1 = randn({32, 8}).set_requires_grad(true), w2 = randn({1, 32}).set_requires_grad(true);
  Tensor v1 = randn({32, 8}), v2 = randn({1, 32});
  return median_seconds(
             [&] {
               Tensor loss = sum(pow(linear(tanh(linear(x, w1)), w2), 2.0));
               TensorList g = grad({loss}, {w1, w2}, {}, std::nullopt, true);
               Tensor gv = add(sum(mul(g[0], v1)), sum(mul(g[1], v2)));
               grad({gv}, {w1, w2});
             },
             9, 200) *
         1e6;
}

// Memory- and transcendental-bound kernels on 4M-element f32 tensors (ms per call).
double kernel_ms(const std::string& which) {
  Tensor a = randn({1 << 22}), m = randn({2048, 2048});
  std::function<void()> fn;
  if (which == "exp_4m") fn = [&] { exp(a); };
  else if (which == "tanh_4m") fn = [&] { tanh(a); };
  else if (which == "sum_4m") fn = [&] { sum(a); };
  else if (which == "softmax_2048") fn = [&] { softmax(m, 1); };
  else fn = [&] { contiguous(transpose(m, 0, 1)); };  // transpose_2048
  return median_seconds(fn, 7, 10) * 1e3;
}

// sort and topk along the rows of a 2048 x 2048 f32 matrix (ms per call): values
// and indices, as PyTorch's.
double ordering_ms(const std::string& which) {
  Tensor m = randn({2048, 2048});
  std::function<void()> fn;
  if (which == "sort") fn = [&] { sort(m, 1); };
  else fn = [&] { topk(m, 16, 1); };  // topk
  return median_seconds(fn, 7, 5) * 1e3;
}

double milliseconds_of(const std::function<void()>& fn) {
  auto t0 = Clock::now();
  fn();
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Loading a 100 MB checkpoint (25 tensors of 2^20 f32) from the page cache, with its
// CRC-32 checks and without (Note [Checkpoint checksums]), alternating; the medians
// as "checked_ms=.. unchecked_ms=..".
std::string checkpoint_load() {
  std::string path = "/tmp/nabla_bench_checkpoint_" + std::to_string(::getpid()) + ".safetensors";
  safetensors::NamedTensors ts;
  for (int k = 0; k < 25; ++k) ts.emplace_back("t" + std::to_string(k), randn({1 << 20}));
  safetensors::save_file(path, ts);
  std::vector<double> checked, unchecked;
  safetensors::load_file(path);  // warm-up
  for (int r = 0; r < 9; ++r) {
    checked.push_back(milliseconds_of([&] { safetensors::load_file(path, true); }));
    unchecked.push_back(milliseconds_of([&] { safetensors::load_file(path, false); }));
  }
  ::unlink(path.c_str());
  std::sort(checked.begin(), checked.end());
  std::sort(unchecked.begin(), unchecked.end());
  return "checked_ms=" + std::to_string(checked[4]) + " unchecked_ms=" + std::to_string(unchecked[4]);
}

}  // namespace

int main(int argc, char** argv) {
  nabla::run_with_short_openmp_spin(argv);  // as nabla does (Note [How long the team's threads spin])
  if (argc != 2) {
    std::fprintf(
        stderr,
        "usage: nabla_bench "
        "sgemm_256|sgemm_1024|sgemm_2048|conv2d|conv1d|conv_transpose2d|tiny_add|tiny_fwd_bwd|hvp|exp_4m|tanh_4m|"
        "sum_4m|softmax_2048|transpose_2048|batchnorm|max_pool|max_pool_backward|relu_backward|relu_pool_backward|relu_pool_backward_step|"
        "sort|topk|group_norm|"
        "interpolate_bilinear|sdpa_mask|checkpoint_load|copy_bandwidth|cnn_conv_ops\n");
    return 2;
  }
  manual_seed(0);
  std::string f = argv[1];
  if (f == "checkpoint_load") return std::printf("%s\n", checkpoint_load().c_str()), 0;
  if (f == "cnn_conv_ops") return std::printf("%s\n", cnn_conv_ops().c_str()), 0;
  double v;
  if (f == "sgemm_256") v = sgemm_gflops(256);
  else if (f == "sgemm_1024") v = sgemm_gflops(1024);
  else if (f == "sgemm_2048") v = sgemm_gflops(2048);
  else if (f == "conv2d") v = conv2d_gflops();
  else if (f == "conv1d")
    v = conv1d_gflops();
  else if (f == "conv_transpose2d")
    v = conv_transpose2d_gflops();
  else if (f == "tiny_add") v = tiny_add_us();
  else if (f == "tiny_fwd_bwd") v = tiny_fwd_bwd_us();
  else if (f == "hvp") v = hvp_us();
  else if (f == "batchnorm") v = batchnorm_ms();
  else if (f == "max_pool") v = max_pool_ms();
  else if (f == "max_pool_backward") v = max_pool_backward_ms();
  else if (f == "relu_backward") v = relu_backward_ms();
  else if (f == "relu_pool_backward") v = relu_pool_backward_ms();
  else if (f == "relu_pool_backward_step") v = relu_pool_backward_step_ms();
  else if (f == "copy_bandwidth") v = machine_copy_bandwidth() / 1e9;  // GB/s, what the profiler's BW% divides by
  else if (f == "sort" || f == "topk") v = ordering_ms(f);
  else if (f == "group_norm") v = group_norm_ms();
  else if (f == "sdpa_mask") v = sdpa_mask_ms();
  else if (f == "interpolate_bilinear") v = interpolate_bilinear_ms();
  else if (f == "exp_4m" || f == "tanh_4m" || f == "sum_4m" || f == "softmax_2048" || f == "transpose_2048")
    v = kernel_ms(f);
  else {
    std::fprintf(stderr, "nabla_bench: unknown figure '%s'\n", f.c_str());
    return 2;
  }
  std::printf("%.4f\n", v);
  return 0;
}
