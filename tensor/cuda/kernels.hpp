// Every CUDA kernel of the op table, with the row's signature: read the inputs and
// attributes, fill the already allocated, contiguous outputs (on the inputs' device,
// queued on its current stream). kernel_table.cu lists them by op name; the op table
// picks them up through find_kernel (tensor/cuda/cuda_runtime.hpp). Only files built
// by nvcc include this, and only those that call another op's kernel: the kernels are
// named after their ops (exp, sqrt, max, ...), so inside namespace nabla::cuda these
// declarations hide the math functions of the same names (write ::exp there).
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
NABLA_CUDA_KERNEL(sum);
NABLA_CUDA_KERNEL(mean);
NABLA_CUDA_KERNEL(max);
NABLA_CUDA_KERNEL(min);
NABLA_CUDA_KERNEL(max_dim);
NABLA_CUDA_KERNEL(min_dim);
NABLA_CUDA_KERNEL(argmax);
NABLA_CUDA_KERNEL(argmin);
NABLA_CUDA_KERNEL(var);
NABLA_CUDA_KERNEL(std);
NABLA_CUDA_KERNEL(logsumexp);
NABLA_CUDA_KERNEL(softmax);
NABLA_CUDA_KERNEL(log_softmax);
NABLA_CUDA_KERNEL(embedding);
NABLA_CUDA_KERNEL(gather);
NABLA_CUDA_KERNEL(index_select);
NABLA_CUDA_KERNEL(scatter_add);
NABLA_CUDA_KERNEL(cat);
NABLA_CUDA_KERNEL(stack);
NABLA_CUDA_KERNEL(cross_entropy);
NABLA_CUDA_KERNEL(nll_loss);
NABLA_CUDA_KERNEL(mse_loss);
NABLA_CUDA_KERNEL(binary_cross_entropy);
NABLA_CUDA_KERNEL(binary_cross_entropy_with_logits);

// blas.cu, conv.cu, pool.cu, norm.cu, attention.cu
NABLA_CUDA_KERNEL(matmul);
NABLA_CUDA_KERNEL(linear);
NABLA_CUDA_KERNEL(conv2d);
NABLA_CUDA_KERNEL(conv2d_backward_input);
NABLA_CUDA_KERNEL(conv2d_backward_weight);
NABLA_CUDA_KERNEL(max_pool2d);
NABLA_CUDA_KERNEL(avg_pool2d);
NABLA_CUDA_KERNEL(avg_pool2d_backward);
NABLA_CUDA_KERNEL(batch_norm);
NABLA_CUDA_KERNEL(batch_norm_backward);
NABLA_CUDA_KERNEL(layer_norm);
NABLA_CUDA_KERNEL(scaled_dot_product_attention);

#undef NABLA_CUDA_KERNEL

}  // namespace nabla::cuda
