// The CUDA seam: what the rest of nabla may ask of the CUDA backend. Built from
// runtime.cu when nvcc is found, from no_cuda.cpp otherwise; nothing here may
// require a GPU to be present.
#pragma once
#include <string>

namespace nabla::cuda {

int device_count();          // 0 without a GPU, a driver, or a CUDA build
std::string runtime_info();  // one line for `nabla --version`

}  // namespace nabla::cuda
