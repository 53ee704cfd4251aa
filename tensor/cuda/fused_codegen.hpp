// Generated fused kernels: the CUDA C++ source of one kernel for an elementwise program
// (tensor/cpu/fused.hpp), specialized for its dtypes and for how each input is read
// (dense, one element, or strided and broadcast, with the output's sizes and the
// input's strides written into the code as constants). NVRTC compiles it at run time
// (tensor/cuda/rtc.hpp); the interpreted kernel of tensor/cuda/fused.cu runs what this
// cannot take. Plain C++, in every build: the source is tested without a GPU.
//
// Note [Generated fused kernels]
// Each step calls the scalar function of its op from tensor/scalar_ops.hpp, whose text
// the kernel includes, so a step computes what the unfused kernel computes. The kernel
// is compiled without contraction (--fmad=false): a multiply of one step and the add
// of the next stay two roundings, as in the two unfused kernels (no scalar function
// has a multiply-add of its own to contract), so the results equal the unfused
// kernels' bit for bit (tests/tensor/cuda_elementwise.cpp checks it on a GPU).
#pragma once
#include <string>
#include <vector>

#include "tensor/cpu/fused.hpp"

namespace nabla::cuda {

using TensorList = std::vector<Tensor>;

// How a kernel reads one input at output element i.
enum class OperandAccess : uint8_t {
  dense,    // contiguous with the output's shape: in[i]
  single,   // one element: in[0]
  strided,  // any other layout: an offset from i's coordinates and the input's strides
};

struct FusedOperand {
  DType dtype = DType::f32;
  OperandAccess access = OperandAccess::dense;
  Shape strides;  // strided: one per output dim, in elements, 0 where the input broadcasts
};

struct FusedKernelSpec {
  cpu::ElementwiseProgram program;
  DType out_dtype = DType::f32;
  Shape out_sizes;  // written into the code only when an input is strided
  std::vector<FusedOperand> inputs;
};

// The kernel's name in the source.
constexpr const char* kFusedKernelName = "nabla_fused";

// Whether a generated kernel writes outputs of `dtype` (f32 and f64; it reads every
// dtype, converting as it loads).
bool generated_kernel_writes(DType dtype);
// Whether program, inputs and out are all a generated kernel takes.
bool generated_kernel_fits(const cpu::ElementwiseProgram& program, const TensorList& inputs, const Tensor& out);
// The spec of `program` over `inputs` into contiguous `out`, as their layouts are now.
FusedKernelSpec fused_kernel_spec(const cpu::ElementwiseProgram& program, const TensorList& inputs, const Tensor& out);
// CUDA C++ for `extern "C" __global__ void nabla_fused(T* out, const I0* in0, ...,
// long long n)`, a grid-stride loop over the n output elements; it includes
// "scalar_ops.hpp" (scalar_ops_source()). Compile with NVRTC's -default-device.
std::string fused_kernel_source(const FusedKernelSpec& spec);
// The text of tensor/scalar_ops.hpp, embedded at build time.
const std::string& scalar_ops_source();

}  // namespace nabla::cuda
