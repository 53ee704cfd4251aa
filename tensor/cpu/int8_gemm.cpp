// The int8 GEMM of quantized.hpp: oneDNN's matmul primitive computes the exact s32
// sums of u8 or s8 activations times s8 weights (AVX-512 VNNI's vpdpbusd; oneDNN adds
// the compensation that s8 activations need and subtracts the activations' zero
// point; on CPUs without VNNI see Note [Int8 without VNNI]), and nabla's epilogue (Note [Int8 epilogue]) applies the per-channel scales,
// the bias, relu and the requantization to u8.
//
// Why not oneDNN's output scales: in oneDNN 2.6 the VNNI brgemm kernel takes scales
// only as constants of the primitive, and a dynamic quantized linear's scale changes
// with every batch; run-time scales (DNNL_RUNTIME_F32_VAL) fall back to the gemm:jit
// kernel, 5-10x slower on the MLP's layers. Run-time zero points keep brgemm. So the
// primitive writes s32 and the epilogue, one pass over each row while it is still in
// cache, does out = float(sum) * scale[n] + bias[n] (and relu, requantization).
//
// Note [Row-parallel int8 linear]
// A dynamic linear is four passes: the input's min and max, its quantization, the
// GEMM, the epilogue. Run as oneDNN runs a GEMM (one OpenMP region for the GEMM, the
// rest on the calling thread), every call pays for the quantized activations moving
// from the core that wrote them to the other core, and for waking the team after the
// serial passes: on the MLP's 64 x 784 x 256 layer 38 us where the passes add up to 31.
// Instead each thread owns a block of rows from start to end, in one OpenMP region:
// min/max of its rows, a barrier to combine them (the only wait), quantization of
// its rows, its rows' GEMM on a single-threaded primitive, its rows' epilogue. Only
// the weight is shared, and it is read-only. (The same layer: about 24 us.)
//
// Why cached primitives: creating a matmul primitive costs far more than running a
// small one (tens of microseconds against a few for an MLP layer at batch 1), so one
// is made per (rows, in, out, activation dtype, threads, weight tensor) and kept
// (so a weight passed as a fresh copy on every call, a non-contiguous one say, makes
// a new primitive every call: quant's modules keep their i8 weights contiguous),
// with the zero point passed at run time (DNNL_RUNTIME_S32_VAL). The weight is
// reordered into the blocked layout the kernel picks, once per weight version (as
// tensor/cpu/epilogue.cpp does for f32 linear's packed weights). The cache, the
// per-thread execution and the epilogue are int8_primitive.hpp's, shared with the
// int8 convolution.
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>
#include <mutex>
#include <tuple>

#include "tensor/cpu/int8_primitive.hpp"

namespace nabla::cpu {

namespace {

using dnnl::memory;
using Tag = memory::format_tag;
using DT = memory::data_type;

// (rows, in, out, activation dtype, threads the primitive plans for, weight serial).
using Int8Key = std::tuple<int64_t, int64_t, int64_t, int, int, uint64_t>;

std::shared_ptr<int8::Int8Primitive> make_int8_matmul(int64_t M, int64_t K, int64_t N, DType a_type) {
  memory::desc src({M, K}, int8::activation_type(a_type, "int8 GEMM"), Tag::ab);
  memory::desc weights_plain({K, N}, DT::s8, Tag::ba);  // W is [N, K] row-major: W^T in ba
  memory::desc weights_any({K, N}, DT::s8, Tag::any);
  memory::desc dst({M, N}, DT::s32, Tag::ab);
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src, weights_any, dst), int8::int8_attributes(),
                                  onednn::engine());
  return std::make_shared<int8::Int8Primitive>(dnnl::matmul(pd), pd, a_type, src, weights_plain);
}

// oneDNN plans a primitive's threads when it is created (omp_get_max_threads()), so
// the key holds that number: a primitive made for one thread is never run by two.
std::shared_ptr<int8::Int8Primitive> cached_int8_matmul(int64_t M, int64_t K, int64_t N, DType a_type,
                                                        const Tensor& w) {
  static int8::Int8Cache<Int8Key> cache;
  Int8Key key{M, K, N, static_cast<int>(a_type), omp_get_max_threads(), w.impl()->serial};
  return cache.get(key, [&] { return make_int8_matmul(M, K, N, a_type); }, "int8 GEMM");
}

void check_operands(const char* what, const Tensor& a, const Tensor& w, const Tensor& out) {
  NABLA_CHECK(a.dim() == 2 && w.dim() == 2 && out.dim() == 2 && a.is_contiguous() && w.is_contiguous() &&
                  out.is_contiguous(),
              std::string(what) + ": expected contiguous 2-D operands");
  NABLA_CHECK(w.dtype() == DType::i8, std::string(what) + ": the weight must be i8, got " + dtype_name(w.dtype()));
  NABLA_CHECK(a.sizes()[1] == w.sizes()[1] && out.sizes()[0] == a.sizes()[0] && out.sizes()[1] == w.sizes()[0],
              std::string(what) + ": shapes " + a.shape_str() + " x " + w.shape_str() + "^T -> " + out.shape_str() +
                  " do not match");
}

// sums[m, n] = sum_k (a[m, k] - a_zero_point) * w[n, k] for rows a (M x K, contiguous
// at `a`) on the cached primitive; sums is M x N contiguous at `sums`.
void run_int8(DType a_type, const void* a, int64_t M, int32_t a_zero_point, const Tensor& w, int32_t* sums) {
  int64_t K = w.sizes()[1], N = w.sizes()[0];
  if (M == 0) return;
  if (K == 0) {
    std::fill(sums, sums + M * N, 0);
    return;
  }
  cached_int8_matmul(M, K, N, a_type, w)->run(a, w, a_zero_point, sums);
}

// A barrier for the threads of one row-parallel region, spinning on an atomic: the
// only wait of a dynamic linear is for the other threads' min and max, a microsecond
// of work, where an OpenMP barrier costs about 1.5 us on this machine.
class SpinBarrier {
 public:
  explicit SpinBarrier(int threads) : threads_(threads) {}
  void wait() {
    int generation = generation_.load(std::memory_order_acquire);
    if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == threads_) {
      arrived_.store(0, std::memory_order_relaxed);
      generation_.store(generation + 1, std::memory_order_release);
      return;
    }
    while (generation_.load(std::memory_order_acquire) == generation) _mm_pause();
  }

 private:
  int threads_;
  std::atomic<int> arrived_{0}, generation_{0};
};

// Below this many multiply-adds an int8 linear runs on one thread. An int8
// multiply-add costs about a quarter of an f32 one, so the threshold is well above
// f32's (onednn::kSerialMacs); measured on the MLP at batch 64, the 64 x 256 x 128
// layer (2.1M) takes 10 us on one thread and 15 on two, the 64 x 784 x 256 one
// (12.8M) 47 on one and 32 on two.
constexpr int64_t kInt8SerialMacs = 1 << 22;

int8::RowPlan plan_linear(int64_t M, int64_t K, int64_t N) {
  if (M * K * N < kInt8SerialMacs || omp_in_parallel()) return {1, false};
  int threads = static_cast<int>(std::min<int64_t>(omp_get_max_threads(), M));
  return {threads, threads == 1};
}

}  // namespace

void int8_linear(const Tensor& a, int32_t a_zero_point, const Tensor& w, const Int8Epilogue& e, const Tensor& out) {
  check_operands("int8_linear", a, w, out);
  NABLA_CHECK(out.dtype() == e.output_dtype() && e.weight_scale.numel() == w.sizes()[0],
              std::string("int8_linear: expected a ") + dtype_name(e.output_dtype()) +
                  " output and one weight scale per output channel");
  int64_t M = a.sizes()[0], K = a.sizes()[1], N = w.sizes()[0];
  if (out.numel() == 0) return;
  int8::EpiloguePointers ep = int8::pointers(e);
  Tensor sums = empty(out.sizes(), DType::i32);
  const auto* pa = static_cast<const uint8_t*>(a.raw_data());
  auto* ps = static_cast<int32_t*>(sums.raw_data());
  auto* po = static_cast<uint8_t*>(out.raw_data());
  int64_t out_size = dtype_size(out.dtype());
  int8::run_row_blocks(M, plan_linear(M, K, N), [&](int, int64_t r0, int64_t r1) {
    run_int8(a.dtype(), pa + r0 * K, r1 - r0, a_zero_point, w, ps + r0 * N);
    int8::epilogue_rows(ps + r0 * N, r1 - r0, N, ep, po + r0 * N * out_size);
  });
}

void int8_gemm_s32(const Tensor& a, int32_t a_zero_point, const Tensor& w, const Tensor& out) {
  check_operands("int8_gemm_s32", a, w, out);
  NABLA_CHECK(out.dtype() == DType::i32, "int8_gemm_s32: expected an i32 output");
  int64_t M = a.sizes()[0], K = a.sizes()[1], N = w.sizes()[0];
  if (out.numel() == 0) return;
  const auto* pa = static_cast<const uint8_t*>(a.raw_data());
  auto* ps = static_cast<int32_t*>(out.raw_data());
  int8::run_row_blocks(M, plan_linear(M, K, N), [&](int, int64_t r0, int64_t r1) {
    run_int8(a.dtype(), pa + r0 * K, r1 - r0, a_zero_point, w, ps + r0 * N);
  });
}

void dynamic_int8_linear(const Tensor& x, const Tensor& w, const Tensor& weight_scale, const Tensor& bias,
                         bool reduce_range, const Tensor& out) {
  NABLA_CHECK(x.dtype() == DType::f32 && x.dim() == 2 && x.is_contiguous(),
              "dynamic_int8_linear: expected a contiguous f32 [M, K] input");
  Tensor q = empty(x.sizes(), DType::u8);
  int64_t M = x.sizes()[0], K = x.sizes()[1], N = w.sizes()[0];
  check_operands("dynamic_int8_linear", q, w, out);
  NABLA_CHECK(weight_scale.dtype() == DType::f32 && weight_scale.is_contiguous() && weight_scale.numel() == N,
              "dynamic_int8_linear: expected one f32 weight scale per output channel");
  NABLA_CHECK(!bias.defined() || (bias.dtype() == DType::f32 && bias.is_contiguous() && bias.numel() == N),
              "dynamic_int8_linear: expected an f32 bias with one value per output channel");
  if (out.numel() == 0) return;
  int8::RowPlan plan = plan_linear(M, K, N);
  int T = plan.threads;
  std::vector<std::pair<float, float>> ranges(static_cast<size_t>(T));
  SpinBarrier ranges_ready(T);
  Tensor sums = empty(out.sizes(), DType::i32);
  const float* px = static_cast<const float*>(x.raw_data());
  auto* pq = static_cast<uint8_t*>(q.raw_data());
  auto* ps = static_cast<int32_t*>(sums.raw_data());
  auto* po = static_cast<float*>(out.raw_data());
  int8::EpiloguePointers ep = int8::pointers({1.0f, weight_scale, bias});
  int8::run_row_blocks(M, plan, [&](int t, int64_t r0, int64_t r1) {
    min_max_f32(px + r0 * K, (r1 - r0) * K, &ranges[t].first, &ranges[t].second);
    ranges_ready.wait();
    float lo = INFINITY, hi = -INFINITY;
    for (auto [l, h] : ranges) lo = std::min(lo, l), hi = std::max(hi, h);
    if (M * K > 0 && (!std::isfinite(lo) || !std::isfinite(hi)))
      throw Error("dynamic_quantized_linear: argument 'input' holds an infinity or a NaN (min " + std::to_string(lo) +
                  ", max " + std::to_string(hi) + "), so its quantization range is undefined");
    QuantParams p = choose_quant_params(lo, hi, 0, 255, reduce_range);
    quantize_f32(px + r0 * K, pq + r0 * K, (r1 - r0) * K, p);
    run_int8(DType::u8, pq + r0 * K, r1 - r0, p.zero_point, w, ps + r0 * N);
    int8::EpiloguePointers mine = ep;  // this batch's input scale, in this thread's copy
    mine.input_scale = p.scale;
    int8::epilogue_rows(ps + r0 * N, r1 - r0, N, mine, po + r0 * N);
  });
}

}  // namespace nabla::cpu
