// Built instead of the .cu files when NABLA_CUDA is off.
#include "tensor/cuda/cuda_runtime.hpp"
#include "tensor/error.hpp"

namespace nabla::cuda {
int device_count() { return 0; }
std::string runtime_info() { return "CUDA: not built (configure with -DNABLA_CUDA=ON and nvcc on the path)"; }
CachingAllocator& device_allocator(int device) {
  throw Error("cuda:" + std::to_string(device) +
              ": this nabla was built without CUDA (configure with -DNABLA_CUDA=ON)");
}
}  // namespace nabla::cuda
