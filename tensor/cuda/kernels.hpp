// Every CUDA kernel of the op table, with the row's signature: read the inputs and
// attributes, fill the already allocated, contiguous outputs (on the inputs' device,
// queued on its current stream). kernel_table.cu lists them by OpId; the op table
// picks them up through find_kernel (tensor/cuda/cuda_runtime.hpp). Only files built
// by nvcc include this, and only those that call another op's kernel: the kernels are
// named after their ops (exp, sqrt, max, ...), so inside namespace nabla::cuda these
// declarations hide the math functions of the same names (write ::exp there).
#pragma once
#include "tensor/cuda/cuda_runtime.hpp"

namespace nabla::cuda {

#define NABLA_CUDA_KERNEL(name) void name(const TensorList& in, const Attrs& attrs, TensorList& out)

// elementwise.cu: every op of NABLA_ELEMENTWISE_OPS (tensor/op_list.hpp)
#define NABLA_CUDA_ELEMENTWISE_KERNEL(name) NABLA_CUDA_KERNEL(name);
NABLA_ELEMENTWISE_OPS(NABLA_CUDA_ELEMENTWISE_KERNEL)
#undef NABLA_CUDA_ELEMENTWISE_KERNEL
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
// ordering.cu
NABLA_CUDA_KERNEL(cumsum);
NABLA_CUDA_KERNEL(cumprod);
NABLA_CUDA_KERNEL(sort);
NABLA_CUDA_KERNEL(topk);
NABLA_CUDA_KERNEL(flip);
NABLA_CUDA_KERNEL(roll);
NABLA_CUDA_KERNEL(tril);
NABLA_CUDA_KERNEL(triu);
NABLA_CUDA_KERNEL(masked_fill);
NABLA_CUDA_KERNEL(repeat);
NABLA_CUDA_KERNEL(one_hot);
NABLA_CUDA_KERNEL(multinomial);
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
NABLA_CUDA_KERNEL(conv3d);
NABLA_CUDA_KERNEL(conv3d_backward_input);
NABLA_CUDA_KERNEL(conv3d_backward_weight);
NABLA_CUDA_KERNEL(max_pool2d);
NABLA_CUDA_KERNEL(avg_pool2d);
NABLA_CUDA_KERNEL(avg_pool2d_backward);
NABLA_CUDA_KERNEL(conv1d);
NABLA_CUDA_KERNEL(conv_transpose1d);
NABLA_CUDA_KERNEL(conv_transpose2d);
NABLA_CUDA_KERNEL(max_pool1d);
NABLA_CUDA_KERNEL(avg_pool1d);
NABLA_CUDA_KERNEL(adaptive_avg_pool1d);
NABLA_CUDA_KERNEL(adaptive_avg_pool2d);
NABLA_CUDA_KERNEL(adaptive_max_pool2d);
NABLA_CUDA_KERNEL(max_pool2d_backward);
NABLA_CUDA_KERNEL(batch_norm);
NABLA_CUDA_KERNEL(batch_norm_backward);
NABLA_CUDA_KERNEL(layer_norm);
NABLA_CUDA_KERNEL(group_norm);
NABLA_CUDA_KERNEL(rms_norm);
// resample.cu
NABLA_CUDA_KERNEL(interpolate);
NABLA_CUDA_KERNEL(interpolate_backward);
NABLA_CUDA_KERNEL(pad);
NABLA_CUDA_KERNEL(pad_backward);
NABLA_CUDA_KERNEL(scaled_dot_product_attention);
// optim.cu (the rows of the fused updates: step, lr and found_inf read on the device)
NABLA_CUDA_KERNEL(adam_step_);
NABLA_CUDA_KERNEL(sgd_step_);

#undef NABLA_CUDA_KERNEL

}  // namespace nabla::cuda
