// linear and conv2d with their bias and activation, on CUDA tensors, for the graph
// executor's fused nodes (the CUDA side of tensor/cpu/fused.hpp's linear_act and
// conv2d_act, with the same meaning). Host-only: plain C++ may include it; in a build
// without CUDA, no_cuda.cpp's definitions say so.
//
// linear_act runs on cuBLASLt with the bias (and a relu) applied by the GEMM's
// epilogue where cuBLASLt offers one (f32, f16, bf16); otherwise a GEMM and then
// bias_activation. cuBLASLt's GELU epilogue is the tanh approximation, and nabla's
// gelu is the erf one, so gelu is never left to cuBLASLt. conv2d_act is cuDNN's
// convolution and then bias_activation.
#pragma once
#include "tensor/attrs.hpp"
#include "tensor/cpu/fused.hpp"
#include "tensor/tensor.hpp"

namespace nabla::cuda {

// out = act(x W^T + b): x [..., in], W [out, in], b [out] or undefined, out [..., out]
// contiguous; all on one CUDA device, one floating dtype.
void linear_act(const Tensor& x, const Tensor& w, const Tensor& bias, cpu::Activation act, const Tensor& out);

// out = act(conv2d(x, w, b)) with conv2d's attributes (stride, padding, dilation, groups).
void conv2d_act(const Tensor& x, const Tensor& w, const Tensor& bias, const Attrs& conv_attrs, cpu::Activation act,
                const Tensor& out);

// y = act(y + b[c]) in place, c = (i / inner) % b.numel() for element i of contiguous y:
// b along the dim whose inner extent is `inner` (1 for linear's [rows, out], H*W for
// conv2d's [N, C, H, W]). An undefined b adds nothing; relu, gelu, tanh, sigmoid and
// silu compute as the op table's kernels do.
void bias_activation(const Tensor& y, const Tensor& bias, int64_t inner, cpu::Activation act);

}  // namespace nabla::cuda
