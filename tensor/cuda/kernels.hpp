// Every CUDA kernel of the op table, with the row's signature: read the inputs and
// attributes, fill the already allocated, contiguous outputs (on the inputs' device,
// queued on its current stream). kernel_table.cu lists them by op name; the op table
// picks them up through find_kernel (tensor/cuda/cuda_runtime.hpp). Only files built
// by nvcc include this.
#pragma once
#include "tensor/cuda/cuda_runtime.hpp"

namespace nabla::cuda {

#define NABLA_CUDA_KERNEL(name) void name(const TensorList& in, const Attrs& attrs, TensorList& out)

// elementwise.cu, copy.cu

// reduce.cu, softmax.cu, index.cu, loss.cu

// blas.cu, conv.cu, pool.cu, norm.cu, attention.cu

#undef NABLA_CUDA_KERNEL

}  // namespace nabla::cuda
