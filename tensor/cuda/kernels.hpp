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
NABLA_CUDA_KERNEL(neg);
NABLA_CUDA_KERNEL(exp);
NABLA_CUDA_KERNEL(log);
NABLA_CUDA_KERNEL(sqrt);
NABLA_CUDA_KERNEL(rsqrt);
NABLA_CUDA_KERNEL(abs);
NABLA_CUDA_KERNEL(sign);
NABLA_CUDA_KERNEL(sin);
NABLA_CUDA_KERNEL(cos);
NABLA_CUDA_KERNEL(tanh);
NABLA_CUDA_KERNEL(sigmoid);
NABLA_CUDA_KERNEL(relu);
NABLA_CUDA_KERNEL(gelu);
NABLA_CUDA_KERNEL(silu);
NABLA_CUDA_KERNEL(erf);
NABLA_CUDA_KERNEL(add);
NABLA_CUDA_KERNEL(sub);
NABLA_CUDA_KERNEL(mul);
NABLA_CUDA_KERNEL(div);
NABLA_CUDA_KERNEL(pow);
NABLA_CUDA_KERNEL(maximum);
NABLA_CUDA_KERNEL(minimum);
NABLA_CUDA_KERNEL(eq);
NABLA_CUDA_KERNEL(ne);
NABLA_CUDA_KERNEL(lt);
NABLA_CUDA_KERNEL(le);
NABLA_CUDA_KERNEL(gt);
NABLA_CUDA_KERNEL(ge);
NABLA_CUDA_KERNEL(where);
NABLA_CUDA_KERNEL(clamp);
// copy_ops.cu
NABLA_CUDA_KERNEL(contiguous);
NABLA_CUDA_KERNEL(to_dtype);
NABLA_CUDA_KERNEL(slice_backward);
NABLA_CUDA_KERNEL(dropout);

// reduce.cu, softmax.cu, index.cu, loss.cu

// blas.cu, conv.cu, pool.cu, norm.cu, attention.cu

#undef NABLA_CUDA_KERNEL

}  // namespace nabla::cuda
