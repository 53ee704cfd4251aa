#include "tensor/cpu/blas.hpp"

#include <cblas.h>
#include <dnnl.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <tuple>
#include <unordered_map>

#include "tensor/cpu/onednn.hpp"
#include "tensor/error.hpp"

namespace nabla::cpu {

namespace {

// Note [A transposed B on the matmul primitive]
// oneDNN's dnnl_sgemm is slow when B is stored transposed (C = A B^T: a matmul's input
// gradient dC W^T, a recurrent layer's dh at every step) and A has few rows: at M = 32,
// K = 1024 it ran at 62-80 GFLOP/s on this machine's two cores, against 350-420 with
// B untransposed. oneDNN's matmul primitive (brgemm kernels) takes any strides and ran
// the same products at 200-260 (and 400 at M = 64, N = K = 512, where sgemm gave 213).
// So a product with B transposed and enough work runs on a matmul primitive, made once
// per (shapes, strides) and cached. Below 16 rows sgemm was faster (a GEMV-like
// product), and below kPrimitiveMacs the cache's lookup and lock would cost more than
// they save; alpha and beta other than 1 and 0 stay on sgemm.
constexpr int64_t kPrimitiveMinRows = 16;
constexpr int64_t kPrimitiveMacs = int64_t{1} << 22;
constexpr size_t kMaxCachedGemms = 256;

using dnnl::memory;

struct CachedGemm {
  dnnl::matmul prim;
  memory::desc a, b, c, scratchpad;
  std::mutex run_mutex;  // one caller at a time uses the argument objects and scratchpad
  std::unordered_map<int, memory> args;
  Tensor scratch;
};

// A [rows, cols] f32 matrix stored row-major with leading dim ld, or transposed.
memory::desc matrix_desc(int64_t rows, int64_t cols, bool trans, int64_t ld) {
  return memory::desc({rows, cols}, memory::data_type::f32, trans ? memory::dims{1, ld} : memory::dims{ld, 1});
}

std::shared_ptr<CachedGemm> cached_gemm(bool trans_a, int64_t M, int64_t N, int64_t K, int64_t lda, int64_t ldb,
                                        int64_t ldc) {
  using Key = std::tuple<bool, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t>;
  static std::mutex mutex;
  static std::map<Key, std::shared_ptr<CachedGemm>> cache;
  Key key{trans_a, M, N, K, lda, ldb, ldc};
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  try {
    auto g = std::make_shared<CachedGemm>();
    g->a = matrix_desc(M, K, trans_a, lda);
    g->b = matrix_desc(K, N, true, ldb);
    g->c = matrix_desc(M, N, false, ldc);
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(g->a, g->b, g->c), onednn::attributes(Activation::none),
                                    onednn::engine());
    g->prim = dnnl::matmul(pd);
    g->scratchpad = pd.scratchpad_desc();
    if (cache.size() >= kMaxCachedGemms) cache.clear();
    return cache.emplace(key, std::move(g)).first->second;
  } catch (const dnnl::error& e) {
    throw Error(std::string("gemm: oneDNN could not create the matmul: ") + e.what());
  }
}

void gemm_on_primitive(bool trans_a, int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B,
                       int64_t ldb, float* C, int64_t ldc) {
  std::shared_ptr<CachedGemm> g = cached_gemm(trans_a, M, N, K, lda, ldb, ldc);
  std::lock_guard<std::mutex> lock(g->run_mutex);
  onednn::bind_argument(g->args, DNNL_ARG_SRC, g->a, const_cast<float*>(A));
  onednn::bind_argument(g->args, DNNL_ARG_WEIGHTS, g->b, const_cast<float*>(B));
  onednn::bind_argument(g->args, DNNL_ARG_DST, g->c, C);
  if (g->scratchpad.get_size() > 0 && !g->scratch.defined()) {
    g->scratch = onednn::buffer(g->scratchpad);
    onednn::bind_argument(g->args, DNNL_ARG_SCRATCHPAD, g->scratchpad, g->scratch.raw_data());
  }
  g->prim.execute(onednn::stream(), g->args);
  onednn::stream().wait();
}

// Note [Warming up sgemm's kernels]
// oneDNN's sgemm generates all its kernels (the packing and compute kernels of every
// transposition) the first time it is called, whatever the shape, under a once-flag:
// 28-30 ms here. The first training step of a program paid it: the Fashion-MNIST MLP's
// first step took 31-43 ms against 0.8 ms for the others, 6% of a one-epoch run. A
// program that imports nn is about to multiply matrices, so that import starts the
// generation on a thread of its own (one 4 x 4 product), where it overlaps the rest of
// the import, the data's loading and the model's construction; a gemm that comes
// earlier waits on oneDNN's once-flag, no longer than it would have taken anyway. The
// thread is joined before the evaluator goes (and, failing that, at exit), so no
// static destructor runs under it.
struct WarmUpThread {
  std::mutex mutex;
  std::thread thread;
  bool started = false;
  ~WarmUpThread() {
    if (thread.joinable()) thread.join();
  }
};

WarmUpThread& warm_up_thread() {
  static WarmUpThread t;
  return t;
}

void generate_sgemm_kernels() {
  float a[16] = {}, b[16] = {}, c[16] = {};
  dnnl_sgemm('N', 'N', 4, 4, 4, 1.0f, a, 4, b, 4, 0.0f, c, 4);
}

}  // namespace

void start_gemm_warm_up() {
  WarmUpThread& w = warm_up_thread();
  std::lock_guard<std::mutex> lock(w.mutex);
  if (w.started) return;
  w.started = true;
  try {
    w.thread = std::thread(generate_sgemm_kernels);
  } catch (const std::system_error&) {
    // No thread to be had: the first gemm generates the kernels, as before.
  }
}

void finish_gemm_warm_up() {
  WarmUpThread& w = warm_up_thread();
  std::lock_guard<std::mutex> lock(w.mutex);
  if (w.thread.joinable()) w.thread.join();
}

void gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
          const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  if (M == 0 || N == 0) return;
  if (trans_b && alpha == 1.0f && beta == 0.0f && K > 0 && M >= kPrimitiveMinRows && M * N * K >= kPrimitiveMacs) {
    gemm_on_primitive(trans_a, M, N, K, A, lda, B, ldb, C, ldc);  // Note [A transposed B on the matmul primitive]
    return;
  }
  dnnl_status_t st = dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  if (st != dnnl_success) throw Error("gemm: oneDNN sgemm failed with status " + std::to_string(static_cast<int>(st)));
}

void gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, double alpha, const double* A, int64_t lda,
          const double* B, int64_t ldb, double beta, double* C, int64_t ldc) {
  if (M == 0 || N == 0) return;
  cblas_dgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans,
              static_cast<int>(M), static_cast<int>(N), static_cast<int>(K), alpha, A, static_cast<int>(lda), B,
              static_cast<int>(ldb), beta, C, static_cast<int>(ldc));
}

}  // namespace nabla::cpu
