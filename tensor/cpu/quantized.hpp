// The quantized CPU seam (docs/quantization.md): affine quantization parameters as
// PyTorch chooses them, and the int8 GEMM on oneDNN's matmul (u8 or s8 activations
// times s8 weights, s32 accumulation, scales and bias applied to an f32 result).
// The op table's quantized rows (autograd/ops/quant.cpp) run on these, and so can
// later kernels (static quantization, a lowered graph). Knows nothing of autograd.
//
// Note [Affine quantization]
// A real value x is represented by an integer q with x ~ scale * (q - zero_point),
// q = clamp(nearbyint(x * (1 / scale)) + zero_point, qmin, qmax), where 1 / scale is
// computed in f32 and nearbyint rounds half to even (fbgemm's Quantize, which
// PyTorch's quantize_per_tensor runs on x86). Per-channel quantization gives every
// index of one axis its own scale and zero point. Weights are symmetric (zero point
// 0, qint8 [-128, 127]); activations affine u8 [0, 255] ([0, 127] with reduce_range,
// which PyTorch uses on CPUs whose int8 multiply-add saturates at 16 bits: this
// CPU's VNNI instruction accumulates in 32 bits, so nabla's default is off).
#pragma once
#include <cstdint>

#include "tensor/tensor.hpp"

namespace nabla::cpu {

struct QuantParams {
  float scale = 1.0f;
  int32_t zero_point = 0;
};

// The scale and zero point that map [min, max] (widened to hold 0) onto [qmin, qmax]:
// PyTorch's quant_utils::ChooseQuantizationParams without preserve_sparsity, as its
// dynamic quantized linear calls it for each batch. reduce_range halves qmin and qmax.
QuantParams choose_quant_params(float min, float max, int32_t qmin, int32_t qmax, bool reduce_range);

// The int8 GEMM: out[m, n] = scale[n] * sum_k (a[m, k] - a_zero_point) * w[n, k] + bias[n].
// a: u8 or i8 [M, K]; w: i8 [N, K] (a Linear's weight, symmetric); scale: f32 [N]
// (activation scale times weight scale, one per output channel); bias: f32 [N] or
// undefined; out: f32 [M, N]. All contiguous. The sums are exact s32 (oneDNN's
// matmul; VNNI accumulates in 32 bits), the scales and bias an epilogue's (see
// int8_gemm.cpp for why). The primitive is cached per shape, activation dtype and
// weight tensor, with the weight reordered into oneDNN's blocked layout once per
// weight version.
void int8_linear(const Tensor& a, int32_t a_zero_point, const Tensor& w, const Tensor& scale, const Tensor& bias,
                 const Tensor& out);

// The raw sums: out[m, n] = sum_k (a[m, k] - a_zero_point) * w[n, k] as i32 [M, N],
// on the same primitive kind (what tests compare against a reference exactly).
void int8_gemm_s32(const Tensor& a, int32_t a_zero_point, const Tensor& w, const Tensor& out);

// PyTorch's quantized::linear_dynamic: x (f32 [M, K], contiguous) quantized to u8 with
// the scale and zero point that choose_quant_params gives its min and max, then
// int8_linear with weight_scale [N] times that scale. Row-parallel (see Note
// [Row-parallel int8 linear] in int8_gemm.cpp).
void dynamic_int8_linear(const Tensor& x, const Tensor& w, const Tensor& weight_scale, const Tensor& bias,
                         bool reduce_range, const Tensor& out);

// The min and max of n floats (+inf and -inf when n is 0).
void min_max_f32(const float* x, int64_t n, float* min, float* max);
inline void min_max_f32(const Tensor& x, float* min, float* max) {  // x f32 contiguous
  min_max_f32(static_cast<const float*>(x.raw_data()), x.numel(), min, max);
}

// q = clamp(nearbyint(x * (1 / scale)) + zero_point, 0, 255) for n floats (Note
// [Affine quantization]); the Tensor form takes u8 or i8 q (x f32, both contiguous).
void quantize_f32(const float* x, uint8_t* q, int64_t n, QuantParams p);
void quantize_f32(const Tensor& x, QuantParams p, const Tensor& q);

}  // namespace nabla::cpu
