#include "tensor/cpu/blas.hpp"

#include <cblas.h>
#include <dnnl.h>

#include <string>

#include "tensor/error.hpp"

namespace nabla::cpu {

void gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
          const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  if (M == 0 || N == 0) return;
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
