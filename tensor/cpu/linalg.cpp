// CPU kernels of matmul and linear, on the GEMM of blas.hpp.
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

}  // namespace

void matmul(const TensorList& in, const Attrs&, TensorList& out) {
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
