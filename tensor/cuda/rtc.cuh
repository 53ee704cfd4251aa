// The launch of generated fused kernels, for fused.cu (tensor/cuda/rtc.cu).
#pragma once
#include "tensor/cpu/fused.hpp"

namespace nabla::cuda {

// Runs `program` over `inputs` (on out's device) into contiguous `out` with a kernel
// generated for it (fused_codegen.hpp), compiled or read from the disk cache on first
// use. False when generated kernels are off (set_generated_kernels), cannot take the
// dtypes, or could not be compiled or loaded: the caller runs the interpreted kernel.
bool run_generated_program(const cpu::ElementwiseProgram& program, const TensorList& inputs, const Tensor& out);

}  // namespace nabla::cuda
