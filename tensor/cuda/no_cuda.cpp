// Built instead of the .cu files when NABLA_CUDA is off.
#include "tensor/cuda/cuda_runtime.hpp"

namespace nabla::cuda {
int device_count() { return 0; }
std::string runtime_info() { return "CUDA: not built (configure with -DNABLA_CUDA=ON and nvcc on the path)"; }
}  // namespace nabla::cuda
