// The first real CUDA translation unit: device discovery through cudart and a
// kernel that proves the toolchain works end to end where a GPU exists. With no GPU
// (or no driver) every function answers without failing.
#include <cuda_runtime.h>

#include "tensor/cuda/cuda_runtime.hpp"

namespace nabla::cuda {

namespace {
__global__ void fill_iota(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i;
}

// Runs fill_iota on device 0 and checks the result; false on any failure.
bool kernel_round_trip() {
  constexpr int n = 256;
  int* device = nullptr;
  if (cudaMalloc(&device, n * sizeof(int)) != cudaSuccess) return false;
  fill_iota<<<(n + 127) / 128, 128>>>(device, n);
  int host[n] = {};
  bool ok = cudaMemcpy(host, device, sizeof host, cudaMemcpyDeviceToHost) == cudaSuccess;
  cudaFree(device);
  for (int i = 0; ok && i < n; ++i) ok = host[i] == i;
  return ok;
}
}  // namespace

int device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) return 0;
  return count;
}

std::string runtime_info() {
  int runtime = 0;
  cudaRuntimeGetVersion(&runtime);
  std::string info = "CUDA runtime " + std::to_string(runtime / 1000) + "." + std::to_string(runtime % 1000 / 10);
  int count = device_count();
  if (count == 0) return info + ", no GPU found";
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  return info + ", " + std::to_string(count) + " GPU(s), device 0: " + prop.name +
         (kernel_round_trip() ? " (kernel check ok)" : " (kernel check FAILED)");
}

}  // namespace nabla::cuda
