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
