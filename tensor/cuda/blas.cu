// matmul and linear on cuBLAS, and linear_act (epilogue.hpp) with the bias and relu
// in cuBLASLt's epilogue.
//
// Note [Row-major GEMM on cuBLAS]
// cuBLAS is column-major and nabla's matrices are row-major. A row-major X [r, c] with
// row stride ld reads, column-major, as X^T [c, r] with leading dim ld; so C = A B is
// computed as C^T = B^T A^T, B passed first: m = N, n = M, k = K, ldc = N. A transposed
// view (stride 1 down its rows) goes in as it is with the operation flipped, as the
// CPU's matrix_arg does; only a matrix with neither layout is copied. The batch goes
// to cublasGemmStridedBatchedEx when each operand steps through it by one stride (0
// for a broadcast operand), else (as [B, 1, ...] against [1, H, ...]) to
// cublasGemmBatchedEx with one pointer per batch, computed on the device.
#include <algorithm>
#include <optional>

#include "tensor/cpu/copy.hpp"
#include "tensor/cuda/blas.cuh"
#include "tensor/cuda/cublas_library.cuh"
#include "tensor/cuda/epilogue.hpp"
#include "tensor/cuda/handles.cuh"
#include "tensor/cuda/settings.hpp"

namespace nabla::cuda {

namespace {

using cpu::Activation;

// The matrix of a tensor's last two dims as cuBLAS reads it (column-major).
struct MatrixOperand {
  Tensor t;                 // the tensor itself, or a contiguous copy
  bool transposed = false;  // stored column by column: cuBLAS's op is flipped
  int64_t ld = 0;
};

MatrixOperand matrix_operand(const Tensor& x) {
  int64_t nd = x.dim();
  int64_t rows = x.sizes()[nd - 2], cols = x.sizes()[nd - 1];
  int64_t rs = x.strides()[nd - 2], cs = x.strides()[nd - 1];
  if ((cs == 1 || cols == 1) && rs >= std::max<int64_t>(cols, 1)) return {x, false, rs};
  if ((rs == 1 || rows == 1) && cs >= std::max<int64_t>(rows, 1)) return {x, true, cs};
  return {contiguous_raw(x), false, std::max<int64_t>(cols, 1)};
}

cublasOperation_t op_of(const MatrixOperand& m) { return m.transposed ? CUBLAS_OP_T : CUBLAS_OP_N; }

// The one stride by which `t` steps through the batch `batch` (its batch dims, right
// aligned and broadcast to it), or nothing when no single stride does.
std::optional<int64_t> uniform_batch_stride(const Tensor& t, const Shape& batch) {
  int64_t lead = static_cast<int64_t>(batch.size()) - (t.dim() - 2);
  std::optional<int64_t> unit;  // the stride of the innermost batch dim of size > 1
  int64_t span = 1;             // batch entries that unit's dims cover so far
  for (int64_t d = static_cast<int64_t>(batch.size()) - 1; d >= 0; --d) {
    if (batch[d] == 1) continue;
    int64_t td = d - lead;
    int64_t stride = (td >= 0 && t.sizes()[td] != 1) ? t.strides()[td] : 0;
    if (!unit)
      unit = stride;
    else if (stride != *unit * span)
      return std::nullopt;
    span *= batch[d];
  }
  return unit.value_or(0);
}

// alpha and beta as cuBLAS reads them: double for f64 accumulation, float otherwise.
struct GemmScalars {
  GemmScalars(cublasComputeType_t compute, double alpha, double beta)
      : wide(compute == CUBLAS_COMPUTE_64F), f{float(alpha), float(beta)}, d{alpha, beta} {}
  const void* alpha() const { return wide ? static_cast<const void*>(&d[0]) : &f[0]; }
  const void* beta() const { return wide ? static_cast<const void*>(&d[1]) : &f[1]; }
  bool wide;
  float f[2];
  double d[2];
};

// One batched GEMM in row-major terms: out[i] = alpha * A[i] B[i], [M, K] x [K, N].
struct Gemm {
  MatrixOperand A, B;
  const Tensor& out;
  int64_t M, N, K;
  GemmScalars scalars;
  cudaDataType in_type, out_type;
  cublasComputeType_t compute;
};

void run_strided(const Gemm& g, int64_t batches, int64_t stride_a, int64_t stride_b) {
  cublasHandle_t h = cublas_handle(g.out.device().index);
  NABLA_CUBLAS_CHECK(cublas_library().cublasGemmStridedBatchedEx_64(
      h, op_of(g.B), op_of(g.A), g.N, g.M, g.K, g.scalars.alpha(), g.B.t.raw_data(), g.in_type, g.B.ld, stride_b,
      g.A.t.raw_data(), g.in_type, g.A.ld, stride_a, g.scalars.beta(), g.out.raw_data(), g.out_type, g.N, g.M * g.N,
      batches, g.compute, CUBLAS_GEMM_DEFAULT));
}

struct BatchPointers {
  const void** a;
  const void** b;
  void** c;
  const char* a_base;
  const char* b_base;
  char* c_base;
  int64_t in_bytes, c_step_bytes;  // an input element; one output matrix
};

__global__ void batch_pointers_kernel(BatchPointers p, int64_t batches, OffsetCalculator<2> calc) {
  NABLA_GRID_STRIDE_LOOP(i, batches) {
    int64_t off[2];
    calc.offsets(i, off);
    p.a[i] = p.a_base + off[0] * p.in_bytes;
    p.b[i] = p.b_base + off[1] * p.in_bytes;
    p.c[i] = p.c_base + i * p.c_step_bytes;
  }
}

// t's batch dims alone, as a view (for the offset calculator).
Tensor batch_view(const Tensor& t) {
  int64_t nd = t.dim();
  return make_view(t, Shape(t.sizes().begin(), t.sizes().begin() + (nd - 2)),
                   Shape(t.strides().begin(), t.strides().begin() + (nd - 2)), t.offset());
}

void run_pointer_array(const Gemm& g, const Shape& batch, int64_t batches) {
  Tensor pointers = empty({3 * batches}, DType::i64, g.out.device());
  void** base = static_cast<void**>(pointers.raw_data());
  BatchPointers p{const_cast<const void**>(base),
                  const_cast<const void**>(base + batches),
                  base + 2 * batches,
                  static_cast<const char*>(g.A.t.raw_data()),
                  static_cast<const char*>(g.B.t.raw_data()),
                  static_cast<char*>(g.out.raw_data()),
                  static_cast<int64_t>(dtype_size(g.A.t.dtype())),
                  g.M * g.N * static_cast<int64_t>(dtype_size(g.out.dtype()))};
  Tensor a_batch = batch_view(g.A.t), b_batch = batch_view(g.B.t);
  auto calc = make_offset_calculator<2>(batch, {&a_batch, &b_batch});
  batch_pointers_kernel<<<blocks_for(batches), kThreads, 0, stream_for(g.out)>>>(p, batches, calc);
  NABLA_CUDA_LAUNCH_CHECK();
  cublasHandle_t h = cublas_handle(g.out.device().index);
  NABLA_CUBLAS_CHECK(cublas_library().cublasGemmBatchedEx_64(
      h, op_of(g.B), op_of(g.A), g.N, g.M, g.K, g.scalars.alpha(), p.b, g.in_type, g.B.ld, p.a, g.in_type, g.A.ld,
      g.scalars.beta(), p.c, g.out_type, g.N, batches, g.compute, CUBLAS_GEMM_DEFAULT));
}

}  // namespace

cudaDataType cuda_data_type(DType t) {
  switch (t) {
    case DType::f32:
      return CUDA_R_32F;
    case DType::f64:
      return CUDA_R_64F;
    case DType::f16:
      return CUDA_R_16F;
    case DType::bf16:
      return CUDA_R_16BF;
    default:
      throw Error(std::string("cuBLAS: expected a floating tensor, got ") + dtype_name(t));
  }
}

cublasComputeType_t cublas_compute_type(DType t) {
  if (t == DType::f64) return CUBLAS_COMPUTE_64F;
  if (t == DType::f32 && allow_tf32()) return CUBLAS_COMPUTE_32F_FAST_TF32;
  return CUBLAS_COMPUTE_32F;
}

void batched_matmul(const Tensor& a, const Tensor& b, const Tensor& out, double alpha) {
  if (out.numel() == 0) return;
  int64_t nd = out.dim();
  int64_t M = out.sizes()[nd - 2], N = out.sizes()[nd - 1], K = a.sizes()[a.dim() - 1];
  if (K == 0) return fill(out, 0.0);
  cublasComputeType_t compute = cublas_compute_type(a.dtype());
  MatrixOperand A = matrix_operand(a), B = matrix_operand(b);
  GemmScalars scalars(compute, alpha, 0.0);
  Gemm g{A, B, out, M, N, K, scalars, cuda_data_type(a.dtype()), cuda_data_type(out.dtype()), compute};
  Shape batch(out.sizes().begin(), out.sizes().end() - 2);
  int64_t batches = shape_numel(batch);
  std::optional<int64_t> stride_a = uniform_batch_stride(g.A.t, batch), stride_b = uniform_batch_stride(g.B.t, batch);
  if (!stride_a || !stride_b) return run_pointer_array(g, batch, batches);
  // B shared by every batch and A's rows evenly spaced across batches: one GEMM of
  // batches * M rows ([B, T, C] @ [C, D]).
  if (batches > 1 && *stride_b == 0 && !g.A.transposed && *stride_a == M * g.A.ld) {
    g.M = M * batches;
    return run_strided(g, 1, 0, 0);
  }
  run_strided(g, batches, *stride_a, *stride_b);
}

// ---------------------------------------------------------------------------
// linear_act: cuBLASLt's epilogues

namespace {

// Owns a cuBLASLt descriptor.
template <class H, cublasStatus_t (*CublasLibrary::*Destroy)(H)>
class LtDescriptor {
 public:
  LtDescriptor() = default;
  ~LtDescriptor() {
    if (h_) (cublas_library().*Destroy)(h_);
  }
  LtDescriptor(const LtDescriptor&) = delete;
  LtDescriptor& operator=(const LtDescriptor&) = delete;
  H* out() { return &h_; }
  H get() const { return h_; }

 private:
  H h_ = nullptr;
};
using MatmulDesc = LtDescriptor<cublasLtMatmulDesc_t, &CublasLibrary::cublasLtMatmulDescDestroy>;
using MatrixLayout = LtDescriptor<cublasLtMatrixLayout_t, &CublasLibrary::cublasLtMatrixLayoutDestroy>;
using MatmulPreference = LtDescriptor<cublasLtMatmulPreference_t, &CublasLibrary::cublasLtMatmulPreferenceDestroy>;

template <class V>
void set_attribute(cublasLtMatmulDesc_t d, cublasLtMatmulDescAttributes_t attr, const V& v) {
  NABLA_CUBLAS_CHECK(cublas_library().cublasLtMatmulDescSetAttribute(d, attr, &v, sizeof v));
}
template <class V>
void set_attribute(cublasLtMatmulPreference_t p, cublasLtMatmulPreferenceAttributes_t attr, const V& v) {
  NABLA_CUBLAS_CHECK(cublas_library().cublasLtMatmulPreferenceSetAttribute(p, attr, &v, sizeof v));
}

// The largest power of two (up to 256) that divides the address: cuBLASLt picks only
// kernels whose vector loads that alignment allows.
uint32_t alignment_of(const void* p) {
  uint32_t a = 256;
  while (reinterpret_cast<uintptr_t>(p) % a != 0) a /= 2;
  return a;
}

// A preference for algorithms that fit the workspace and the operands' alignment.
void prefer(MatmulPreference& pref, size_t workspace_bytes, const void* a, const void* b, const void* d) {
  NABLA_CUBLAS_CHECK(cublas_library().cublasLtMatmulPreferenceCreate(pref.out()));
  set_attribute(pref.get(), CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, static_cast<uint64_t>(workspace_bytes));
  set_attribute(pref.get(), CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, alignment_of(a));
  set_attribute(pref.get(), CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, alignment_of(b));
  set_attribute(pref.get(), CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, alignment_of(d));
  set_attribute(pref.get(), CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, alignment_of(d));
}

// The epilogue for (bias, act), or nothing when cuBLASLt has none worth fusing.
std::optional<cublasLtEpilogue_t> lt_epilogue(bool bias, Activation act) {
  if (act == Activation::relu) return bias ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_RELU;
  if (act == Activation::none && bias) return CUBLASLT_EPILOGUE_BIAS;
  return std::nullopt;
}

// y [rows, N] = act(x [rows, K] W^T + bias) in one cuBLASLt call (Note [Row-major GEMM
// on cuBLAS]: D^T = op(W) x^T, the bias running along D's column-major rows). False,
// having done nothing, for f64, for an activation cuBLASLt cannot fuse, and where
// cuBLASLt offers no algorithm.
bool lt_linear(const Tensor& x, const Tensor& w, const Tensor& bias, Activation act, const Tensor& y) {
  std::optional<cublasLtEpilogue_t> epilogue = lt_epilogue(bias.defined(), act);
  if (!epilogue || y.dtype() == DType::f64) return false;
  Tensor b = bias.defined() ? contiguous_raw(bias) : Tensor();
  if (b.defined() && alignment_of(b.raw_data()) < 16) return false;
  MatrixOperand W = matrix_operand(w);
  uint64_t rows = x.sizes()[0], K = x.sizes()[1], N = w.sizes()[0];
  cudaDataType type = cuda_data_type(y.dtype());
  MatmulDesc desc;
  NABLA_CUBLAS_CHECK(cublas_library().cublasLtMatmulDescCreate(desc.out(), cublas_compute_type(y.dtype()), CUDA_R_32F));
  set_attribute(desc.get(), CUBLASLT_MATMUL_DESC_TRANSA, W.transposed ? CUBLAS_OP_N : CUBLAS_OP_T);
  set_attribute(desc.get(), CUBLASLT_MATMUL_DESC_TRANSB, CUBLAS_OP_N);
  set_attribute(desc.get(), CUBLASLT_MATMUL_DESC_EPILOGUE, *epilogue);
  if (b.defined()) set_attribute(desc.get(), CUBLASLT_MATMUL_DESC_BIAS_POINTER, b.raw_data());
  MatrixLayout w_layout, x_layout, y_layout;
  // W column-major: [K, N] stored by rows (op T), [N, K] when a transposed view (op N).
  NABLA_CUBLAS_CHECK(cublas_library().cublasLtMatrixLayoutCreate(w_layout.out(), type, W.transposed ? N : K,
                                                                 W.transposed ? K : N, W.ld));
  NABLA_CUBLAS_CHECK(
      cublas_library().cublasLtMatrixLayoutCreate(x_layout.out(), type, K, rows, static_cast<int64_t>(K)));
  NABLA_CUBLAS_CHECK(
      cublas_library().cublasLtMatrixLayoutCreate(y_layout.out(), type, N, rows, static_cast<int64_t>(N)));
  LtHandle lt = cublaslt_handle(y.device().index);
  MatmulPreference pref;
  prefer(pref, lt.workspace_bytes, W.t.raw_data(), x.raw_data(), y.raw_data());
  cublasLtMatmulHeuristicResult_t found{};
  int count = 0;
  cublasStatus_t status =
      cublas_library().cublasLtMatmulAlgoGetHeuristic(lt.handle, desc.get(), w_layout.get(), x_layout.get(),
                                                      y_layout.get(), y_layout.get(), pref.get(), 1, &found, &count);
  if (status != CUBLAS_STATUS_SUCCESS || count == 0) return false;
  float one = 1.0f, zero = 0.0f;
  NABLA_CUBLAS_CHECK(cublas_library().cublasLtMatmul(
      lt.handle, desc.get(), &one, W.t.raw_data(), w_layout.get(), x.raw_data(), x_layout.get(), &zero, y.raw_data(),
      y_layout.get(), y.raw_data(), y_layout.get(), &found.algo, lt.workspace, lt.workspace_bytes, stream_for(y)));
  return true;
}

// W [N, K] as the [K, N] matrix x W^T multiplies by.
Tensor transposed(const Tensor& w) {
  return make_view(w, {w.sizes()[1], w.sizes()[0]}, {w.strides()[1], w.strides()[0]}, w.offset());
}

}  // namespace

void linear_act(const Tensor& x, const Tensor& w, const Tensor& bias, Activation act, const Tensor& out) {
  if (out.numel() == 0) return;
  DeviceGuard guard(out.device().index);
  int64_t K = w.sizes()[1], N = w.sizes()[0], rows = out.numel() / N;
  Tensor y = make_view(out, {rows, N}, {N, 1}, out.offset());
  if (K == 0) {
    fill(y, 0.0);
  } else {
    Tensor xc = contiguous_raw(x);
    Tensor x2 = make_view(xc, {rows, K}, {K, 1}, xc.offset());
    if (lt_linear(x2, w, bias, act, y)) return;
    batched_matmul(x2, transposed(w), y);
  }
  bias_activation(y, bias, 1, act);
}

// ---------------------------------------------------------------------------
// Kernels of the op table

void matmul(const TensorList& in, const Attrs&, TensorList& out) {
  DeviceGuard guard(out[0].device().index);
  batched_matmul(in[0], in[1], out[0]);
}

void linear(const TensorList& in, const Attrs&, TensorList& out) {
  cuda::linear_act(in[0], in[1], in[2], Activation::none, out[0]);  // not cpu::linear_act (found by ADL)
}

}  // namespace nabla::cuda
