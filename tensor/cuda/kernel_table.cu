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
      // {"add", {add, true}},
  };
  return table;
}

}  // namespace

Kernel find_kernel(const std::string& name) {
  auto it = kernel_table().find(name);
  return it == kernel_table().end() ? Kernel{} : it->second;
}

}  // namespace nabla::cuda
