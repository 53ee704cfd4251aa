// The CUDA seam: what the rest of nabla may ask of the CUDA backend. Built from
// runtime.cu when nvcc is found, from no_cuda.cpp otherwise; nothing here may
// require a GPU to be present.
#pragma once
#include <string>

namespace nabla::cuda {

class CachingAllocator;  // tensor/cuda/caching_allocator.hpp

int device_count();          // 0 without a GPU, a driver, or a CUDA build
std::string runtime_info();  // one line for `nabla --version`
// The caching allocator of device `device` (one per device, made on first use, over
// cudart). Throws nabla::Error for a device that is not there, or in a build without CUDA.
CachingAllocator& device_allocator(int device);

}  // namespace nabla::cuda
