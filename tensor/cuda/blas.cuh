// The batched GEMM of the CUDA backend (blas.cu), shared by matmul, linear and
// scaled_dot_product_attention. Only .cu files include this.
#pragma once
#include <cublas_v2.h>

#include "tensor/cuda/common.cuh"

namespace nabla::cuda {

// cuBLAS's names for nabla's floating dtypes.
cudaDataType cuda_data_type(DType t);
// How cuBLAS accumulates for inputs of dtype t: f64 in f64, everything else in f32
// (TF32 for f32 inputs only where allow_tf32(), settings.hpp).
cublasComputeType_t cublas_compute_type(DType t);

// out[batch..., M, N] = alpha * a[..., M, K] @ b[..., K, N]. a and b share a floating
// dtype and may have any strides; their batch dims broadcast to out's. out is
// contiguous, of a's dtype or f32 when a is 16-bit. Queued on the current stream of
// out's device, which the caller has made current (DeviceGuard).
void batched_matmul(const Tensor& a, const Tensor& b, const Tensor& out, double alpha = 1.0);

}  // namespace nabla::cuda
