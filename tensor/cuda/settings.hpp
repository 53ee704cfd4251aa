// Process-wide settings of the CUDA backend's library calls, readable from plain C++
// (the language's `cuda.set_allow_tf32`). Host-only: no CUDA types; no_cuda.cpp
// stands in for the definitions (handles.cu) in a build without CUDA.
#pragma once

namespace nabla::cuda {

// Whether f32 matmuls and convolutions may round their inputs to TF32 on tensor cores
// (about 10 bits of mantissa, several times faster). Off by default, so that f32
// computes in f32 as on the CPU; as PyTorch's allow_tf32 flags.
void set_allow_tf32(bool allow);
bool allow_tf32();

}  // namespace nabla::cuda
