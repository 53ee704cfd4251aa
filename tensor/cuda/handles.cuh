// The library handles of the CUDA backend: cuBLAS, cuBLASLt and cuDNN, one of each per
// (thread, device), handed out bound to the thread's current stream of that device,
// and the error checks of those libraries. Only .cu files include this.
//
// Note [Library handles]
// A handle is made on first use and never destroyed: destroying one at process exit
// can run after the driver has gone. When a thread ends, its handles go back to a
// pool that the next new thread takes from, so threads that come and go do not leak.
// cuBLAS gets a workspace of its own per stream (from the caching allocator, never
// freed while the handle lives): its default workspace would be shared by every
// stream the handle ever ran on. cuBLASLt calls use the same workspace, queued on the
// same stream, so they never overlap with a cuBLAS call that uses it.
#pragma once
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cudnn.h>

#include "tensor/cuda/common.cuh"

namespace nabla::cuda {

// Throw nabla::Error naming the call and the library's message.
void check_cublas(cublasStatus_t status, const char* what);
void check_cudnn(cudnnStatus_t status, const char* what);
#define NABLA_CUBLAS_CHECK(expr) ::nabla::cuda::check_cublas((expr), #expr)
#define NABLA_CUDNN_CHECK(expr) ::nabla::cuda::check_cudnn((expr), #expr)

// The calling thread's handles for `device`, which must be the current device (hold a
// DeviceGuard), set to the thread's current stream of it.
cublasHandle_t cublas_handle(int device);
cudnnHandle_t cudnn_handle(int device);

// A cuBLASLt handle with the workspace its matmuls may use on the current stream.
struct LtHandle {
  cublasLtHandle_t handle;
  void* workspace;
  size_t workspace_bytes;
};
LtHandle cublaslt_handle(int device);

}  // namespace nabla::cuda
