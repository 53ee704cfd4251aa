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

// Whether a convolution's algorithm is chosen by timing cuDNN's candidates on the
// first call of each problem (its size, dtype and math), as PyTorch's
// cudnn.benchmark, instead of by cuDNN's heuristics. Off by default: the timing costs
// the first call some milliseconds, and the choice can differ from run to run.
void set_benchmark(bool on);
bool benchmark();

// Whether the graph executor's fused elementwise groups run as kernels generated for
// each group and compiled with NVRTC (tensor/cuda/rtc.hpp), or as the interpreted
// program kernel of fused.cu. On by default; tests turn it off to compare the two.
void set_generated_kernels(bool on);
bool generated_kernels();

}  // namespace nabla::cuda
