// Elementwise programs on CUDA (see tensor/cpu/fused.hpp for ElementwiseProgram and
// its contract): one kernel per program run, each thread loading its element of every
// input once, running the steps in registers and writing the output once. Plain C++:
// the graph executor (passes/) includes it; without a CUDA build the functions say so.
#pragma once
#include "tensor/cpu/fused.hpp"

namespace nabla::cuda {

// The program travels as a kernel parameter of fixed size, so it has limits.
constexpr int kMaxProgramInputs = 16;
constexpr int kMaxProgramSteps = 48;

// Whether `program` is within the limits above (false without a CUDA build).
bool program_fits_on_cuda(const cpu::ElementwiseProgram& program);
// As cpu::run_elementwise_program, on out's device: inputs on that device, of any
// dtype, layout and broadcast; out contiguous, f32 or f64. Throws nabla::Error for a
// program beyond the limits or one whose steps read registers not yet written.
void run_elementwise_program(const cpu::ElementwiseProgram& program, const TensorList& inputs, const Tensor& out);

}  // namespace nabla::cuda
