// CPU kernels of matmul and linear, on the GEMM of blas.hpp.
#include <type_traits>
#ifdef __AVX2__
#include <immintrin.h>
#endif

#include "tensor/cpu/blas.hpp"
#include "tensor/cpu/copy.hpp"
#include "tensor/cpu/fused.hpp"
#include "tensor/cpu/kernels.hpp"
#include "tensor/cpu/loops.hpp"
#include "tensor/cpu/parallel.hpp"

namespace nabla::cpu {

namespace {

// A matrix operand of GEMM: its pointer stepping, leading dim and transpose flag.
// Transposed views (stride 1 on the row dim) go to GEMM as they are, no copy.
struct MatrixArg {
  Tensor t;  // the tensor whose last two dims are the matrix
  bool trans = false;
  int64_t ld = 0;
};

MatrixArg matrix_arg(const Tensor& x) {
  int64_t nd = x.dim();
  int64_t rows = x.sizes()[nd - 2], cols = x.sizes()[nd - 1];
  int64_t rs = x.strides()[nd - 2], cs = x.strides()[nd - 1];
  if ((cs == 1 || cols == 1) && rs >= std::max<int64_t>(cols, 1)) return {x, false, rs};
  if ((rs == 1 || rows == 1) && cs >= std::max<int64_t>(rows, 1)) return {x, true, cs};
  Tensor c = contiguous_raw(x);
  return {c, false, std::max<int64_t>(cols, 1)};
}

// Note [Outer products]
// A product with K = 1 is an outer product per batch: every output element is written
// once and nothing is summed, so it runs at the memory's write speed, which a GEMM's
// packing and blocking only slow down. Per-example weight gradients (vmap(grad) of a
// linear layer, one example per batch) are exactly these, and they are most of that
// transform's time. An output larger than the caches is written with streaming
// stores: a plain store first reads each line it writes, and that halves the speed
// (51 MB of per-example gradients: 3.5 ms with plain stores, 1.4 ms streamed, here).
constexpr int64_t kStreamingBytes = int64_t{8} << 20;

// o[0, n) = x * b[0, n); `stream`: with non-temporal stores where they can be used.
template <class T, class C>
void scaled_row(T* o, const T* b, C x, int64_t n, bool stream) {
#ifdef __AVX2__
  if constexpr (std::is_same_v<T, float>) {
    if (stream) {
      int64_t j = 0;
      for (; j < n && reinterpret_cast<uintptr_t>(o + j) % 32 != 0; ++j) o[j] = x * b[j];
      __m256 s = _mm256_set1_ps(x);
      for (; j + 8 <= n; j += 8) _mm256_stream_ps(o + j, _mm256_mul_ps(s, _mm256_loadu_ps(b + j)));
      for (; j < n; ++j) o[j] = x * b[j];
      return;
    }
  }
#endif
  (void)stream;
  for (int64_t j = 0; j < n; ++j) o[j] = static_cast<T>(x * static_cast<C>(b[j]));
}

template <class T>
void outer_products(const MatrixArg& A, const MatrixArg& B, int64_t M, int64_t N, const Shape& batch,
                    int64_t batches, T* pc) {
  const T* pa = static_cast<const T*>(A.t.raw_data());
  const T* pb = static_cast<const T*>(B.t.raw_data());
  int64_t a_step = A.trans ? 1 : A.ld;  // between rows of the [M, 1] column
  int64_t b_step = B.trans ? B.ld : 1;  // between columns of the [1, N] row
  bool stream = batches * M * N * static_cast<int64_t>(sizeof(T)) >= kStreamingBytes;
  parallel_for(0, batches * M, batches * M * N, [&](int64_t lo, int64_t hi) {
    std::vector<T> row;  // B's row gathered when it is strided
    int64_t gathered = -1;
    for (int64_t r = lo; r < hi; ++r) {
      int64_t i = r / M, m = r % M;
      const T* brow = pb + batch_offset(B.t, batch, i);
      if (b_step != 1) {
        if (gathered != i) {
          row.resize(static_cast<size_t>(N));
          for (int64_t n = 0; n < N; ++n) row[static_cast<size_t>(n)] = brow[n * b_step];
          gathered = i;
        }
        brow = row.data();
      }
      using C = compute_t<T>;  // halves multiply in f32 and round once, as their GEMM does
      scaled_row<T, C>(pc + r * N, brow, static_cast<C>(pa[batch_offset(A.t, batch, i) + m * a_step]), N, stream);
    }
#ifdef __AVX2__
    if (stream) _mm_sfence();  // streamed stores are seen by other threads after this
#endif
  });
}

// Whether the rows of every batch of A (not transposed) follow one another at A's
// leading dim, so that the batches are one [batches * M, K] matrix.
bool rows_stack(const MatrixArg& A, const Shape& batch, int64_t batches, int64_t M) {
  if (A.trans) return false;
  for (int64_t i = 0; i < batches; ++i)
    if (batch_offset(A.t, batch, i) != i * M * A.ld) return false;
  return true;
}

// Whether x is the same matrix for every batch.
bool broadcast_over_batch(const Tensor& x, const Shape& batch, int64_t batches) {
  for (int64_t i = 1; i < batches; ++i)
    if (batch_offset(x, batch, i) != 0) return false;
  return true;
}

template <class T>
void batched_gemm(const Tensor& a, const Tensor& b, const Tensor& out) {
  MatrixArg A = matrix_arg(a), B = matrix_arg(b);
  int64_t nd = out.dim();
  int64_t M = out.sizes()[nd - 2], N = out.sizes()[nd - 1], K = a.sizes()[a.dim() - 1];
  Shape batch(out.sizes().begin(), out.sizes().end() - 2);
  int64_t batches = shape_numel(batch);
  const T* pa = static_cast<const T*>(A.t.raw_data());
  const T* pb = static_cast<const T*>(B.t.raw_data());
  T* pc = static_cast<T*>(out.raw_data());
  if (K == 0) {
    std::fill(pc, pc + out.numel(), T(0));
    return;
  }
  if (K == 1) {
    outer_products<T>(A, B, M, N, batch, batches, pc);
    return;
  }
  if (batches > 1 && rows_stack(A, batch, batches, M) && broadcast_over_batch(B.t, batch, batches)) {
    // One matrix for every batch (a weight expanded over vmap's examples): the batches'
    // rows are one taller GEMM, which blocks and threads far better than many small ones.
    gemm(false, B.trans, batches * M, N, K, T(1), pa, A.ld, pb, B.ld, T(0), pc, N);
    return;
  }
  auto one = [&](int64_t i) {
    gemm(A.trans, B.trans, M, N, K, T(1), pa + batch_offset(A.t, batch, i), A.ld, pb + batch_offset(B.t, batch, i),
         B.ld, T(0), pc + i * M * N, N);
  };
  // Many small matrices: one GEMM per thread beats threading inside each GEMM.
  if (M * N * K >= 128 * 128 * 128) {
    for (int64_t i = 0; i < batches; ++i) one(i);
    return;
  }
  parallel_for(0, batches, batches * M * N * K, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) one(i);
  });
}

// Integer matmul, as PyTorch's CPU addmm for integer dtypes: no BLAS has one, so a loop
// in m-k-n order over each batch's rows, threaded over rows. Sums wrap on overflow as
// PyTorch's do, computed in the unsigned type (whose wrap is defined).
template <class T>
void integer_gemm(const Tensor& a, const Tensor& b, const Tensor& out) {
  using U = std::make_unsigned_t<T>;
  MatrixArg A = matrix_arg(a), B = matrix_arg(b);
  const int64_t nd = out.dim();
  const int64_t M = out.sizes()[nd - 2], N = out.sizes()[nd - 1], K = a.sizes()[a.dim() - 1];
  const Shape batch(out.sizes().begin(), out.sizes().end() - 2);
  const int64_t batches = shape_numel(batch);
  const T* pa = static_cast<const T*>(A.t.raw_data());
  const T* pb = static_cast<const T*>(B.t.raw_data());
  T* pc = static_cast<T*>(out.raw_data());
  const int64_t a_row = A.trans ? 1 : A.ld, a_col = A.trans ? A.ld : 1;
  const int64_t b_row = B.trans ? 1 : B.ld, b_col = B.trans ? B.ld : 1;
  parallel_for(0, batches * M, batches * M * N * std::max<int64_t>(K, 1), [&](int64_t lo, int64_t hi) {
    std::vector<U> acc(static_cast<size_t>(N));
    for (int64_t r = lo; r < hi; ++r) {
      const int64_t i = r / M, m = r % M;
      const T* arow = pa + batch_offset(A.t, batch, i) + m * a_row;
      const T* bmat = pb + batch_offset(B.t, batch, i);
      std::fill(acc.begin(), acc.end(), U(0));
      for (int64_t k = 0; k < K; ++k) {
        const U x = static_cast<U>(arow[k * a_col]);
        const T* brow = bmat + k * b_row;
        for (int64_t n = 0; n < N; ++n)
          acc[static_cast<size_t>(n)] = static_cast<U>(acc[static_cast<size_t>(n)] + static_cast<U>(x * static_cast<U>(brow[n * b_col])));
      }
      for (int64_t n = 0; n < N; ++n) pc[r * N + n] = static_cast<T>(acc[static_cast<size_t>(n)]);
    }
  });
}

}  // namespace

void matmul(const TensorList& in, const Attrs&, TensorList& out) {
  if (out[0].numel() == 0) return;  // a batch of 2^40 empty products looped over each (a hang)
  if (!is_floating(out[0].dtype())) {
    visit_dtype(out[0].dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) integer_gemm<T>(in[0], in[1], out[0]);
      else throw Error(std::string("matmul: no kernel for ") + dtype_name(out[0].dtype()));
    });
    return;
  }
  visit_float(out[0].dtype(), "matmul", [&](auto tag) {
    using T = typename decltype(tag)::type;
    batched_gemm<T>(as_dtype(in[0], out[0].dtype()), as_dtype(in[1], out[0].dtype()), out[0]);
  });
}

void linear_gemm(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& y) {
  visit_float(y.dtype(), "linear", [&](auto tag) {
    using T = typename decltype(tag)::type;
    int64_t in_features = weight.sizes()[1], out_features = weight.sizes()[0];
    int64_t rows = in_features ? input.numel() / in_features : shape_numel(Shape(y.sizes().begin(), y.sizes().end() - 1));
    Tensor x = contiguous_raw(input);
    MatrixArg W = matrix_arg(weight);  // y = x W^T: W is B with the opposite transpose
    T* py = static_cast<T*>(y.raw_data());
    if (bias.defined()) {
      Tensor b = contiguous_raw(bias);
      const T* pb = static_cast<const T*>(b.raw_data());
      for (int64_t r = 0; r < rows; ++r) std::copy(pb, pb + out_features, py + r * out_features);
    }
    if (in_features == 0) {
      if (!bias.defined()) std::fill(py, py + y.numel(), T(0));
      return;
    }
    gemm(false, !W.trans, rows, out_features, in_features, T(1), static_cast<const T*>(x.raw_data()), in_features,
         static_cast<const T*>(W.t.raw_data()), W.ld, bias.defined() ? T(1) : T(0), py, out_features);
  });
}

void linear(const TensorList& in, const Attrs&, TensorList& out) {
  linear_act(in[0], in[1], in[2], Activation::none, WeightLayout::plain, out[0]);
}

}  // namespace nabla::cpu
