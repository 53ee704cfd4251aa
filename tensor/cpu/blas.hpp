// Row-major GEMM on the real libraries: f32 through oneDNN's dnnl_sgemm (it detects
// this CPU itself, AVX-512 and AMX included), or its matmul primitive when B is
// transposed (Note [A transposed B on the matmul primitive], blas.cpp); f64 through
// OpenBLAS's cblas_dgemm.
// C[M,N] = alpha * op(A)[M,K] * op(B)[K,N] + beta * C.
#pragma once
#include <cstdint>

namespace nabla::cpu {

void gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
          const float* B, int64_t ldb, float beta, float* C, int64_t ldc);
void gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, double alpha, const double* A, int64_t lda,
          const double* B, int64_t ldb, double beta, double* C, int64_t ldc);

// Generates oneDNN's sgemm kernels on a thread of its own, once per process, so that the
// first f32 gemm does not wait for them (Note [Warming up sgemm's kernels], blas.cpp).
void start_gemm_warm_up();
// Waits for that thread, if it was started; to be called before the process exits.
void finish_gemm_warm_up();

}  // namespace nabla::cpu
