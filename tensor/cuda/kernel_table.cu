// The CUDA kernels by op name (find_kernel, tensor/cuda/cuda_runtime.hpp). One list
// rather than registrars in each file: nabla_core is a static library, and the linker
// would drop a kernel file that nothing names.
#include <string>
#include <unordered_map>

#include "tensor/cuda/kernels.hpp"

namespace nabla::cuda {

namespace {

const std::unordered_map<std::string, Kernel>& kernel_table() {
  static const std::unordered_map<std::string, Kernel> table = {
      // reduce.cu, softmax.cu, index.cu, loss.cu
      {"sum", {sum, true}},
      {"mean", {mean, true}},
      {"max", {max, true}},
      {"min", {min, true}},
      {"max_dim", {max_dim, true}},
      {"min_dim", {min_dim, true}},
      {"argmax", {argmax, true}},
      {"argmin", {argmin, true}},
      {"var", {var, true}},
      {"std", {std, true}},
      {"logsumexp", {logsumexp, true}},
      {"softmax", {softmax, true}},
      {"log_softmax", {log_softmax, true}},
      {"embedding", {embedding, true}},
      {"gather", {gather, true}},
      {"index_select", {index_select, true}},
      {"scatter_add", {scatter_add, false}},  // f16/bf16 add in f32 (index.cu)
      {"cat", {cat, true}},
      {"stack", {stack, true}},
      {"cross_entropy", {cross_entropy, false}},
      {"nll_loss", {nll_loss, false}},
      {"mse_loss", {mse_loss, false}},
      {"binary_cross_entropy", {binary_cross_entropy, false}},
      {"binary_cross_entropy_with_logits", {binary_cross_entropy_with_logits, false}},
      // blas.cu, conv.cu, pool.cu, norm.cu, attention.cu
      {"matmul", {matmul, true}},
      {"linear", {linear, true}},
      {"conv2d", {conv2d, true}},
      {"conv2d_backward_input", {conv2d_backward_input, true}},
      {"conv2d_backward_weight", {conv2d_backward_weight, true}},
      {"max_pool2d", {max_pool2d, true}},
      {"avg_pool2d", {avg_pool2d, true}},
      {"avg_pool2d_backward", {avg_pool2d_backward, true}},
      {"batch_norm", {batch_norm, true}},
      {"batch_norm_backward", {batch_norm_backward, true}},
      {"layer_norm", {layer_norm, true}},
      {"scaled_dot_product_attention", {scaled_dot_product_attention, true}},
      // elementwise.cu, copy_ops.cu (dropout computes through f32, as on the CPU)
      {"neg", {neg, true}},
      {"exp", {exp, true}},
      {"log", {log, true}},
      {"sqrt", {sqrt, true}},
      {"rsqrt", {rsqrt, true}},
      {"abs", {abs, true}},
      {"sign", {sign, true}},
      {"sin", {sin, true}},
      {"cos", {cos, true}},
      {"tanh", {tanh, true}},
      {"sigmoid", {sigmoid, true}},
      {"relu", {relu, true}},
      {"gelu", {gelu, true}},
      {"silu", {silu, true}},
      {"erf", {erf, true}},
      {"add", {add, true}},
      {"sub", {sub, true}},
      {"mul", {mul, true}},
      {"div", {div, true}},
      {"pow", {pow, true}},
      {"maximum", {maximum, true}},
      {"minimum", {minimum, true}},
      {"eq", {eq, true}},
      {"ne", {ne, true}},
      {"lt", {lt, true}},
      {"le", {le, true}},
      {"gt", {gt, true}},
      {"ge", {ge, true}},
      {"where", {where, true}},
      {"clamp", {clamp, true}},
      {"contiguous", {contiguous, true}},
      {"to_dtype", {to_dtype, true}},
      {"slice_backward", {slice_backward, true}},
      {"dropout", {dropout, false}},
  };
  return table;
}

}  // namespace

Kernel find_kernel(const std::string& name) {
  auto it = kernel_table().find(name);
  return it == kernel_table().end() ? Kernel{} : it->second;
}

}  // namespace nabla::cuda
