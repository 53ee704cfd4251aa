// The matrix factorizations (inverse, det, linalg_solve, cholesky, eigh, svd, qr) on LAPACK, which the
// OpenBLAS nabla links for f64 GEMM carries. LAPACK is column-major and nabla
// row-major: a row-major matrix read as column-major is its transpose, and each
// kernel uses that instead of copying twice (inv(A^T) = inv(A)^T, det(A^T) = det(A),
// A^T's LU solved with trans='T' is A's, and a symmetric matrix is its own transpose).
// Each matrix of a batch is copied into a contiguous scratch buffer, which LAPACK
// overwrites, and the batch runs on the threads.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tensor/cpu/copy.hpp"
#include "tensor/cpu/kernels.hpp"
#include "tensor/cpu/parallel.hpp"

extern "C" {
void sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info);
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void sgetri_(const int* n, float* a, const int* lda, const int* ipiv, float* work, const int* lwork, int* info);
void dgetri_(const int* n, double* a, const int* lda, const int* ipiv, double* work, const int* lwork, int* info);
void sgetrs_(const char* trans, const int* n, const int* nrhs, const float* a, const int* lda, const int* ipiv,
             float* b, const int* ldb, int* info);
void dgetrs_(const char* trans, const int* n, const int* nrhs, const double* a, const int* lda, const int* ipiv,
             double* b, const int* ldb, int* info);
void spotrf_(const char* uplo, const int* n, float* a, const int* lda, int* info);
void ssyevd_(const char* jobz, const char* uplo, const int* n, float* a, const int* lda, float* w, float* work,
             const int* lwork, int* iwork, const int* liwork, int* info);
void dsyevd_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w, double* work,
             const int* lwork, int* iwork, const int* liwork, int* info);
void sgesdd_(const char* jobz, const int* m, const int* n, float* a, const int* lda, float* s, float* u,
             const int* ldu, float* vt, const int* ldvt, float* work, const int* lwork, int* iwork, int* info);
void dgesdd_(const char* jobz, const int* m, const int* n, double* a, const int* lda, double* s, double* u,
             const int* ldu, double* vt, const int* ldvt, double* work, const int* lwork, int* iwork, int* info);
void sgeqrf_(const int* m, const int* n, float* a, const int* lda, float* tau, float* work, const int* lwork, int* info);
void dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work, const int* lwork,
             int* info);
void sorgqr_(const int* m, const int* n, const int* k, float* a, const int* lda, const float* tau, float* work,
             const int* lwork, int* info);
void dorgqr_(const int* m, const int* n, const int* k, double* a, const int* lda, const double* tau, double* work,
             const int* lwork, int* info);
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info);
}

namespace nabla::cpu {

namespace {

// The overloads pick the f32 or f64 routine.
void getrf(int n, float* a, int* ipiv, int* info) { sgetrf_(&n, &n, a, &n, ipiv, info); }
void getrf(int n, double* a, int* ipiv, int* info) { dgetrf_(&n, &n, a, &n, ipiv, info); }
template <class T>
void getri(int n, T* a, const int* ipiv, int* info) {
  std::vector<T> work(static_cast<size_t>(std::max(1, n) * 64));
  int lwork = static_cast<int>(work.size());
  if constexpr (std::is_same_v<T, float>) sgetri_(&n, a, &n, ipiv, work.data(), &lwork, info);
  else dgetri_(&n, a, &n, ipiv, work.data(), &lwork, info);
}
void getrs(int n, int k, const float* a, const int* ipiv, float* b, int* info) {
  const char t = 'T';
  sgetrs_(&t, &n, &k, a, &n, ipiv, b, &n, info);
}
void getrs(int n, int k, const double* a, const int* ipiv, double* b, int* info) {
  const char t = 'T';
  dgetrs_(&t, &n, &k, a, &n, ipiv, b, &n, info);
}
void potrf(int n, float* a, int* info) {
  const char u = 'U';
  spotrf_(&u, &n, a, &n, info);
}
void potrf(int n, double* a, int* info) {
  const char u = 'U';
  dpotrf_(&u, &n, a, &n, info);
}

// Eigenvalues (ascending) into w and eigenvectors into a's columns (column-major).
template <class T>
void syevd(int n, T* a, T* w, int* info) {
  const char jobz = 'V', uplo = 'U';
  const int lwork = 1 + 6 * n + 2 * n * n, liwork = 3 + 5 * n;
  std::vector<T> work(static_cast<size_t>(std::max(1, lwork)));
  std::vector<int> iwork(static_cast<size_t>(std::max(1, liwork)));
  if constexpr (std::is_same_v<T, float>)
    ssyevd_(&jobz, &uplo, &n, a, &n, w, work.data(), &lwork, iwork.data(), &liwork, info);
  else
    dsyevd_(&jobz, &uplo, &n, a, &n, w, work.data(), &lwork, iwork.data(), &liwork, info);
}

// The thin SVD of the column-major m x n matrix a: s (k = min(m, n) values, descending),
// u (m x k) and vt (k x n), column-major.
template <class T>
void gesdd(int m, int n, T* a, T* s, T* u, T* vt, int* info) {
  const char jobz = 'S';
  const int k = std::min(m, n), ldu = std::max(1, m), ldvt = std::max(1, k), lda = std::max(1, m);
  std::vector<int> iwork(static_cast<size_t>(std::max(1, 8 * k)));
  auto call = [&](T* work, int lwork) {
    if constexpr (std::is_same_v<T, float>)
      sgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork.data(), info);
    else
      dgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork.data(), info);
  };
  T size = 0;
  call(&size, -1);  // the workspace LAPACK asks for
  std::vector<T> work(static_cast<size_t>(std::max<T>(1, size)));
  call(work.data(), static_cast<int>(work.size()));
}

// The reduced QR factorization of the column-major m x n matrix a (overwritten): R
// (k x n, k = min(m, n)) and Q (m x k), both row-major, each R row and Q column signed
// so that R's diagonal is not negative.
template <class T>
void qr_factor(int m, int n, T* a, T* r, T* q, int* info) {
  const int k = std::min(m, n), lda = std::max(1, m);
  std::vector<T> tau(static_cast<size_t>(std::max(1, k)));
  auto geqrf = [&](T* work, int lwork) {
    if constexpr (std::is_same_v<T, float>) sgeqrf_(&m, &n, a, &lda, tau.data(), work, &lwork, info);
    else dgeqrf_(&m, &n, a, &lda, tau.data(), work, &lwork, info);
  };
  auto orgqr = [&](T* work, int lwork) {
    if constexpr (std::is_same_v<T, float>) sorgqr_(&m, &k, &k, a, &lda, tau.data(), work, &lwork, info);
    else dorgqr_(&m, &k, &k, a, &lda, tau.data(), work, &lwork, info);
  };
  T size = 0;
  geqrf(&size, -1);  // the workspaces LAPACK asks for
  std::vector<T> work(static_cast<size_t>(std::max<T>(1, size)));
  geqrf(work.data(), static_cast<int>(work.size()));
  if (*info != 0) return;
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = 0; j < n; ++j) r[i * n + j] = j >= i ? a[j * lda + i] : T(0);
  orgqr(&size, -1);
  work.assign(static_cast<size_t>(std::max<T>(1, size)), T(0));
  orgqr(work.data(), static_cast<int>(work.size()));
  if (*info != 0) return;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < k; ++j) q[i * k + j] = a[j * lda + i];
  for (int64_t i = 0; i < k; ++i) {
    if (r[i * n + i] >= 0) continue;
    for (int64_t j = 0; j < n; ++j) r[i * n + j] = -r[i * n + j];
    for (int64_t row = 0; row < m; ++row) q[row * k + i] = -q[row * k + i];
  }
}

// a (row-major n x n) replaced by its symmetric part (A + A^T) / 2: the symmetric rows
// are functions of every element, so finite differences agree with their gradients.
template <class T>
void symmetrize(T* a, int64_t n) {
  for (int64_t r = 0; r < n; ++r)
    for (int64_t c = 0; c < r; ++c) a[r * n + c] = a[c * n + r] = (a[r * n + c] + a[c * n + r]) / 2;
}

// The LAPACK dimension of a matrix side (LAPACK takes int).
int lapack_dim(int64_t n, const char* op) {
  if (n > (1 << 30)) throw Error(std::string(op) + ": a matrix side of " + std::to_string(n) + " is too large");
  return static_cast<int>(n);
}

// For each matrix of x's batch, in parallel: f(index, scratch copy of the matrix
// (row-major, contiguous), its rows, its columns). Errors from a matrix are raised
// once, after the batch, naming the first failing matrix.
template <class T, class F>
void each_matrix(const Tensor& x, const char* op, F&& f) {
  const int64_t m = x.sizes()[x.dim() - 2], n = x.sizes().back();
  if (m == 0 || n == 0) return;  // no matrix to factor (LAPACK refuses a leading dimension of 0)
  Tensor c = contiguous_raw(x);
  const int64_t count = c.numel() / (m * n);
  const T* src = static_cast<const T*>(c.raw_data());
  std::vector<std::string> failures(static_cast<size_t>(count));
  parallel_for(0, count, count * m * n * std::min(m, n), [&](int64_t lo, int64_t hi) {
    std::vector<T> a(static_cast<size_t>(m * n));
    for (int64_t i = lo; i < hi; ++i) {
      std::copy(src + i * m * n, src + (i + 1) * m * n, a.begin());
      failures[static_cast<size_t>(i)] = f(i, a.data(), lapack_dim(m, op), lapack_dim(n, op));
    }
  });
  for (int64_t i = 0; i < count; ++i)
    if (!failures[static_cast<size_t>(i)].empty())
      throw Error(std::string(op) + ": " + failures[static_cast<size_t>(i)] +
                  (count > 1 ? " (matrix " + std::to_string(i) + " of the batch)" : ""));
}

std::string singular(int info) {
  return "the diagonal element " + std::to_string(info) +
         " of its LU factorization is zero: the input matrix is singular, as PyTorch's linalg.inv reports";
}

// x broadcast to `shape` (its leading dims), as a view with stride 0 where it repeats.
Tensor broadcast_raw(const Tensor& x, const Shape& shape) {
  Shape strides(shape.size(), 0);
  const size_t lead = shape.size() - static_cast<size_t>(x.dim());
  for (size_t d = 0; d < static_cast<size_t>(x.dim()); ++d)
    strides[lead + d] = x.sizes()[d] == 1 && shape[lead + d] != 1 ? 0 : x.strides()[d];
  return make_view(x, shape, strides, x.offset());
}

}  // namespace

void inverse(const TensorList& in, const Attrs&, TensorList& out) {
  visit_float(out[0].dtype(), "inverse", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* dst = static_cast<T*>(out[0].raw_data());
    const int64_t n = out[0].sizes().back();
    each_matrix<T>(in[0], "inverse", [&](int64_t i, T* a, int, int side) -> std::string {
      std::vector<int> ipiv(static_cast<size_t>(std::max(1, side)));
      int info = 0;
      getrf(side, a, ipiv.data(), &info);
      if (info > 0) return singular(info);
      getri(side, a, ipiv.data(), &info);
      if (info > 0) return singular(info);
      std::copy(a, a + n * n, dst + i * n * n);  // inv(A^T) read row-major is inv(A)
      return "";
    });
  });
}

void det(const TensorList& in, const Attrs&, TensorList& out) {
  visit_float(out[0].dtype(), "det", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* dst = static_cast<T*>(out[0].raw_data());
    if (in[0].sizes().back() == 0) std::fill(dst, dst + out[0].numel(), T(1));  // an empty product, as PyTorch's
    each_matrix<T>(in[0], "det", [&](int64_t i, T* a, int, int side) -> std::string {
      std::vector<int> ipiv(static_cast<size_t>(std::max(1, side)));
      int info = 0;
      getrf(side, a, ipiv.data(), &info);
      T d = 1;  // a zero pivot (info > 0) gives 0, as PyTorch's det of a singular matrix
      for (int k = 0; k < side; ++k) d *= (ipiv[static_cast<size_t>(k)] != k + 1 ? -a[k * side + k] : a[k * side + k]);
      dst[i] = d;
      return "";
    });
  });
}

void linalg_solve(const TensorList& in, const Attrs&, TensorList& out) {
  visit_float(out[0].dtype(), "linalg_solve", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const Tensor& x = out[0];  // [..., n, k], the batch broadcast
    const int64_t n = x.sizes()[x.dim() - 2], k = x.sizes().back();
    Shape batch(x.sizes().begin(), x.sizes().end() - 2);
    Shape a_shape = batch, b_shape = batch;
    a_shape.push_back(n), a_shape.push_back(n);
    b_shape.push_back(n), b_shape.push_back(k);
    Tensor a_all = contiguous_raw(broadcast_raw(in[0], a_shape));
    Tensor b_all = contiguous_raw(broadcast_raw(in[1], b_shape));
    const T* pb = static_cast<const T*>(b_all.raw_data());
    T* px = static_cast<T*>(x.raw_data());
    each_matrix<T>(a_all, "linalg_solve", [&](int64_t i, T* a, int, int side) -> std::string {
      std::vector<int> ipiv(static_cast<size_t>(std::max(1, side)));
      int info = 0;
      getrf(side, a, ipiv.data(), &info);
      if (info > 0) return singular(info);
      std::vector<T> b(static_cast<size_t>(n * k));  // B column-major
      const T* bi = pb + i * n * k;
      for (int64_t r = 0; r < n; ++r)
        for (int64_t c = 0; c < k; ++c) b[static_cast<size_t>(c * n + r)] = bi[r * k + c];
      getrs(side, static_cast<int>(k), a, ipiv.data(), b.data(), &info);
      T* xi = px + i * n * k;
      for (int64_t r = 0; r < n; ++r)
        for (int64_t c = 0; c < k; ++c) xi[r * k + c] = b[static_cast<size_t>(c * n + r)];
      return "";
    });
  });
}

void cholesky(const TensorList& in, const Attrs&, TensorList& out) {
  visit_float(out[0].dtype(), "cholesky", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* dst = static_cast<T*>(out[0].raw_data());
    const int64_t n = out[0].sizes().back();
    each_matrix<T>(in[0], "cholesky", [&](int64_t i, T* a, int, int side) -> std::string {
      symmetrize(a, n);  // PyTorch reads the lower triangle: the same on a symmetric input
      int info = 0;
      potrf(side, a, &info);  // A = U^T U column-major: read row-major, the lower triangle is L
      if (info > 0)
        return "the input is not positive-definite (the leading minor of order " + std::to_string(info) +
               " is not positive-definite), as PyTorch's linalg.cholesky reports";
      T* l = dst + i * n * n;
      for (int64_t r = 0; r < n; ++r)
        for (int64_t c = 0; c < n; ++c) l[r * n + c] = c <= r ? a[r * n + c] : T(0);
      return "";
    });
  });
}

void eigh(const TensorList& in, const Attrs&, TensorList& out) {
  visit_float(out[0].dtype(), "eigh", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* values = static_cast<T*>(out[0].raw_data());
    T* vectors = static_cast<T*>(out[1].raw_data());
    const int64_t n = out[1].sizes().back();
    each_matrix<T>(in[0], "eigh", [&](int64_t i, T* a, int, int side) -> std::string {
      symmetrize(a, n);
      int info = 0;
      syevd(side, a, values + i * n, &info);
      if (info > 0) return "the eigenvalue algorithm did not converge (LAPACK's info " + std::to_string(info) + ")";
      // Column j of the column-major result is eigenvector j. Its sign is LAPACK's
      // choice; it is fixed so that its largest component (the first of equals) is
      // positive, which makes the result a function of A (nearby inputs give nearby
      // vectors) and reproducible across LAPACKs.
      T* v = vectors + i * n * n;
      for (int64_t c = 0; c < n; ++c) {
        const T* col = a + c * n;
        int64_t top = 0;
        for (int64_t r = 1; r < n; ++r)
          if (std::abs(col[r]) > std::abs(col[top])) top = r;
        const T sign = col[top] < 0 ? T(-1) : T(1);
        for (int64_t r = 0; r < n; ++r) v[r * n + c] = sign * col[r];
      }
      return "";
    });
  });
}

// A row-major m x n matrix read as column-major is A^T (n x m), whose SVD V S U^T gives
// A's: LAPACK's column-major vt (k x m) is A's U read row-major (m x k), and its u
// (n x k) is A's Vh read row-major (k x n), with no copies.
void svd(const TensorList& in, const Attrs&, TensorList& out) {
  visit_float(out[1].dtype(), "svd", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int64_t m = in[0].sizes()[in[0].dim() - 2], n = in[0].sizes().back(), k = std::min(m, n);
    T* pu = static_cast<T*>(out[0].raw_data());
    T* ps = static_cast<T*>(out[1].raw_data());
    T* pvh = static_cast<T*>(out[2].raw_data());
    each_matrix<T>(in[0], "svd", [&](int64_t i, T* a, int rows, int cols) -> std::string {
      int info = 0;
      T* u = pu + i * m * k;
      T* vh = pvh + i * k * n;
      // gesdd refuses a NaN (info -4) and writes none of its outputs, which were
      // then returned as whatever the buffers held; PyTorch raises here too.
      if (std::any_of(a, a + m * n, [](T v) { return std::isnan(v); }))
        return "the algorithm failed to converge because the input matrix contained non-finite values (NaN), as "
               "PyTorch's linalg.svd reports";
      gesdd(cols, rows, a, ps + i * k, vh, u, &info);
      if (info != 0) return "the SVD algorithm did not converge (LAPACK's info " + std::to_string(info) + ")";
      // Each pair of singular vectors flips together so that U's column has its
      // largest component (the first of equals) positive (as eigh's vectors).
      for (int64_t j = 0; j < k; ++j) {
        int64_t top = 0;
        for (int64_t r = 1; r < m; ++r)
          if (std::abs(u[r * k + j]) > std::abs(u[top * k + j])) top = r;
        if (u[top * k + j] >= 0) continue;
        for (int64_t r = 0; r < m; ++r) u[r * k + j] = -u[r * k + j];
        for (int64_t r = 0; r < n; ++r) vh[j * n + r] = -vh[j * n + r];
      }
      return "";
    });
  });
}

void qr(const TensorList& in, const Attrs&, TensorList& out) {
  visit_float(out[0].dtype(), "qr", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int64_t m = in[0].sizes()[in[0].dim() - 2], n = in[0].sizes().back(), k = std::min(m, n);
    T* pq = static_cast<T*>(out[0].raw_data());
    T* pr = static_cast<T*>(out[1].raw_data());
    each_matrix<T>(in[0], "qr", [&](int64_t i, T* a, int rows, int cols) -> std::string {
      thread_local std::vector<T> column_major;  // as LAPACK reads it
      column_major.resize(static_cast<size_t>(m * n));
      for (int64_t row = 0; row < m; ++row)
        for (int64_t col = 0; col < n; ++col) column_major[static_cast<size_t>(col * m + row)] = a[row * n + col];
      int info = 0;
      qr_factor(rows, cols, column_major.data(), pr + i * k * n, pq + i * m * k, &info);
      return "";
    });
  });
}

}  // namespace nabla::cpu
