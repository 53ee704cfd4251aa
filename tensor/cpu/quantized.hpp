// The quantized CPU seam (docs/quantization.md): affine quantization parameters as
// PyTorch chooses them, the int8 GEMM on oneDNN's matmul and the int8 convolution on
// oneDNN's convolution (u8 or s8 activations times s8 weights, s32 accumulation),
// and the epilogue that turns their sums into f32 or requantized u8 outputs.
// The op table's quantized rows (autograd/ops/quant.cpp) run on these, and so can
// later kernels (a lowered graph). Knows nothing of autograd.
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

#include "tensor/cpu/conv_geometry.hpp"
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

// Note [Int8 epilogue]
// What follows the exact s32 sums of an int8 linear or convolution, for output
// channel n (PyTorch's quantized::linear / conv2d and their _relu forms):
//   v = float(sum) * (input_scale * weight_scale[n]) + bias[n]   in f32, in that order
//   v = max(v, 0)                                                 with relu
//   out = v                                                       f32 output
//   out = clamp(nearbyint(v * (1 / output_scale)) + output_zero_point, 0, 255)   u8
// (u8 when output_scale > 0). The product is rounded to f32 before the bias is added
// (no fused multiply-add), and the last line is quantize_per_tensor's formula (1 /
// output_scale in f32, then a product), so a u8 output is bit for bit
// quantize_per_tensor of the f32 output: passes/lower_quant.cpp folds a quantize into
// the epilogue on that ground. PyTorch rounds differently in its last steps: its oneDNN
// engine folds the scales into one multiplier and adds the zero point in f32 before
// rounding (v * (1 / output_scale) = 3.4999983 plus 64 rounds to 67.5, then to 68, where
// the formula gives 67); fbgemm folds the bias and scales ((sum + bias / (input_scale
// * weight_scale)) * (input_scale * weight_scale / output_scale)). Only values within
// about 1e-5 of a tie can come out one step apart (docs/quantization.md).
struct Int8Epilogue {
  float input_scale = 1.0f;
  Tensor weight_scale;  // f32 [channels], contiguous
  Tensor bias;          // f32 [channels], contiguous, or undefined
  bool relu = false;
  float output_scale = 0.0f;  // 0: f32 output
  int32_t output_zero_point = 0;

  bool requantizes() const { return output_scale > 0; }
  DType output_dtype() const { return requantizes() ? DType::u8 : DType::f32; }
};

// The int8 GEMM: out[m, n] = epilogue(sum_k (a[m, k] - a_zero_point) * w[n, k]).
// a: u8 or i8 [M, K]; w: i8 [N, K] (a Linear's weight, symmetric); out: [M, N] of
// e.output_dtype(). All contiguous. The sums are exact s32 (oneDNN's matmul; VNNI
// accumulates in 32 bits), the rest is nabla's epilogue (see int8_gemm.cpp for why).
// The primitive is cached per shape, activation dtype and weight tensor, with the
// weight reordered into oneDNN's blocked layout once per weight version.
void int8_linear(const Tensor& a, int32_t a_zero_point, const Tensor& w, const Int8Epilogue& e, const Tensor& out);

// The raw sums: out[m, n] = sum_k (a[m, k] - a_zero_point) * w[n, k] as i32 [M, N],
// on the same primitive kind (what tests compare against a reference exactly).
void int8_gemm_s32(const Tensor& a, int32_t a_zero_point, const Tensor& w, const Tensor& out);

// PyTorch's quantized::linear_dynamic: x (f32 [M, K], contiguous) quantized to u8 with
// the scale and zero point that choose_quant_params gives its min and max, then
// int8_linear with that scale as the input scale (f32 output). Row-parallel (see Note
// [Row-parallel int8 linear] in int8_gemm.cpp).
void dynamic_int8_linear(const Tensor& x, const Tensor& w, const Tensor& weight_scale, const Tensor& bias,
                         bool reduce_range, const Tensor& out);

// The int8 convolution (PyTorch's quantized::conv2d): out = epilogue(the sums of
// (x - x_zero_point) times w over each window), where the padding holds x_zero_point
// (a real 0, so it adds nothing). x: u8 or i8 [N, C, H, W]; w: i8 [OC, C/groups, KH,
// KW] (symmetric per output channel); out: [N, OC, OH, OW] of e.output_dtype(); all
// contiguous, NCHW, with g their geometry (conv_geometry). oneDNN's convolution
// computes the sums (NHWC, s32), the epilogue writes NCHW (int8_conv.cpp).
void int8_conv2d(const Tensor& x, int32_t x_zero_point, const Tensor& w, const ConvGeometry& g, const Int8Epilogue& e,
                 const Tensor& out);

// The raw sums of int8_conv2d as i32 [N, OC, OH, OW] (what tests compare exactly).
void int8_conv2d_s32(const Tensor& x, int32_t x_zero_point, const Tensor& w, const ConvGeometry& g,
                     const Tensor& out);

// Whether the int8 primitives split each activation byte into two halves whose
// products cannot saturate (Note [Int8 without VNNI] in int8_primitive.hpp): on CPUs
// without VNNI, or when forced. force_int8_split_halves(true) makes the primitives
// made from then on split on any CPU, so tests run that path where VNNI skips it;
// false goes back to the CPU's choice. (A primitive is cached per weight tensor:
// use fresh weights after switching.)
bool int8_split_halves();
void force_int8_split_halves(bool on);

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
