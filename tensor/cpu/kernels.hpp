// Every CPU kernel of the op table, one per op, with the row's signature: read the
// inputs and attributes, fill the already allocated, contiguous outputs. Rows in
// autograd/ops/ point at these; nothing here knows about autograd.
#pragma once
#include <vector>

#include "tensor/attrs.hpp"
#include "tensor/op_list.hpp"
#include "tensor/tensor.hpp"

namespace nabla::cpu {

using TensorList = std::vector<Tensor>;
#define NABLA_CPU_KERNEL(name) void name(const TensorList& in, const Attrs& attrs, TensorList& out)

// elementwise.cpp
NABLA_CPU_KERNEL(contiguous);
NABLA_CPU_KERNEL(to_dtype);
NABLA_CPU_KERNEL(slice_backward);
// every op of NABLA_ELEMENTWISE_OPS (tensor/op_list.hpp)
#define NABLA_CPU_ELEMENTWISE_KERNEL(name) NABLA_CPU_KERNEL(name);
NABLA_ELEMENTWISE_OPS(NABLA_CPU_ELEMENTWISE_KERNEL)
#undef NABLA_CPU_ELEMENTWISE_KERNEL

// reduce.cpp
NABLA_CPU_KERNEL(sum);
NABLA_CPU_KERNEL(mean);
NABLA_CPU_KERNEL(max);
NABLA_CPU_KERNEL(min);
NABLA_CPU_KERNEL(max_dim);
NABLA_CPU_KERNEL(min_dim);
NABLA_CPU_KERNEL(argmax);
NABLA_CPU_KERNEL(argmin);
NABLA_CPU_KERNEL(var);
NABLA_CPU_KERNEL(std);
NABLA_CPU_KERNEL(logsumexp);
NABLA_CPU_KERNEL(softmax);
NABLA_CPU_KERNEL(log_softmax);

// linalg.cpp
NABLA_CPU_KERNEL(matmul);
NABLA_CPU_KERNEL(inverse);
NABLA_CPU_KERNEL(det);
NABLA_CPU_KERNEL(linalg_solve);
NABLA_CPU_KERNEL(cholesky);
NABLA_CPU_KERNEL(eigh);
NABLA_CPU_KERNEL(svd);
NABLA_CPU_KERNEL(qr);
NABLA_CPU_KERNEL(linear);

// attention.cpp
NABLA_CPU_KERNEL(scaled_dot_product_attention);

// conv.cpp
NABLA_CPU_KERNEL(conv2d);
NABLA_CPU_KERNEL(conv2d_backward_input);
NABLA_CPU_KERNEL(conv2d_backward_weight);
NABLA_CPU_KERNEL(conv3d);
NABLA_CPU_KERNEL(conv3d_backward_input);
NABLA_CPU_KERNEL(conv3d_backward_weight);
NABLA_CPU_KERNEL(max_pool2d);
NABLA_CPU_KERNEL(avg_pool2d);
NABLA_CPU_KERNEL(avg_pool2d_backward);
NABLA_CPU_KERNEL(conv1d);
NABLA_CPU_KERNEL(conv_transpose1d);
NABLA_CPU_KERNEL(conv_transpose2d);
NABLA_CPU_KERNEL(max_pool1d);
NABLA_CPU_KERNEL(avg_pool1d);
NABLA_CPU_KERNEL(adaptive_avg_pool1d);
NABLA_CPU_KERNEL(adaptive_avg_pool2d);
NABLA_CPU_KERNEL(adaptive_max_pool2d);
// pool.cpp: the CNN's usual max pool (2x2 window, stride 2, no padding or dilation,
// floor mode), and that pool's values (no indices) from f32 `x` in a channel-blocked
// layout [N, ceil(C / block), H, W, block] (oneDNN's nChw16c, nChw8c; channels-last
// is block = C) into planar `y` [N, C, H / 2, W / 2]: the epilogue of a convolution
// whose result oneDNN keeps blocked (conv2d_act_max_pool2d).
struct PoolGeometry;  // conv_geometry.hpp
bool is_plain_2x2(const PoolGeometry& g);
// blocked_out: y in x's layout (nChw16c when block is 16) instead of planar, and with
// it `codes`, when given, the windows' codes (Note [Window codes]), laid out as y.
void max_pool_2x2_channel_blocked(const float* x, float* y, int64_t N, int64_t C, int64_t H, int64_t W,
                                  int64_t block, bool blocked_out = false, uint8_t* codes = nullptr);
// A planar f32 or i64 [N, C, H, W] (C a multiple of 16) into nChw16c at `to`.
void write_blocked16(const Tensor& planar, void* to);
// The inverse: nChw16c at `from` into contiguous `planar` (f32 or i64).
void read_blocked16(const void* from, const Tensor& planar);

// Note [Window codes]
// A plain 2x2 pool's indices in nChw16c (a graph's blocked layout, passes/
// block_layout.cpp) are not flat indices but window codes: one byte per window, which
// of its four cells held the maximum (0 top-left, 1 top-right, 2 bottom-left, 3
// bottom-right), in the first numel bytes of the index tensor's memory (the value
// keeps its i64 type and size). The compiled CNN step writes them in its first pooled
// convolution and reads them in that layer's weight gradient: a byte where a flat
// index took eight (3.2 MB -> 0.4 MB a step at batch 64, each way). Other pools'
// nChw16c indices stay flat: a reader cannot tell the two apart from the data, so
// block_layout marks a max_pool2d_backward that reads codes window_codes=true, and
// the verifier checks that mark against the pool that made them (a first layer's
// weight gradient always reads codes: it takes only the plain 2x2 pool). These convert
// planar flat indices [N, C, OH, OW] (C a multiple of 16) of such a pool over planes
// `W` wide to codes at `to`, and back (a code above 3 becomes -1, which no plane
// holds).
uint8_t* window_codes(const Tensor& indices);
void write_window_codes16(const Tensor& planar_indices, int64_t W, uint8_t* to);
void read_window_codes16(const uint8_t* from, int64_t W, const Tensor& planar_indices);
// Channels [0, count) of a tile ([OW][block], rows padded to a multiple of 8) into
// their planar output rows, channel i's at out + i * channel_stride.
void write_planar(const float* tile, int64_t OW, int64_t block, int64_t count, float* out, int64_t channel_stride);

// max_pool_backward.cpp
NABLA_CPU_KERNEL(max_pool2d_backward);

// conv_few_channels.cpp: out, codes = max_pool2d(act(conv2d(x, w) + bias))
// for a first layer (Note [The first layer in registers]): f32, planar contiguous x
// [N, C, H, W] with 1 <= C <= kMaxFewChannels, w [OC, C, KH, KW] with OC a multiple of
// 16 and KW <= kMaxFewChannelKernelWidth, stride and dilation 1, one group, any
// zero padding, act none or relu, the plain 2x2 pool. out [N, OC, PH, PW] planar, or
// nChw16c when `blocked` (the windows' codes, Note [Window codes], when wanted, only
// then, laid out as out). false,
// with nothing written, where it does not apply (another shape, or no AVX-512).
constexpr int64_t kMaxFewChannels = 4;
constexpr int kMaxFewChannelKernelWidth = 7;
struct FewChannelConv {  // the layer: x, w, bias and out planar, relu or no activation
  const float* x;
  const float* w;
  const float* bias;  // null: none
  int64_t N, C, H, W, OC, KH, KW, pad_h, pad_w;
  bool relu;
  float* out;
};
struct FewChannelPooledConv : FewChannelConv {
  uint8_t* codes;  // null: not wanted
  bool blocked;    // out (and codes) in nChw16c
};
bool pooled_conv_few_channels(const FewChannelPooledConv& p);
// The weight gradient of such a layer (its input needs none), dw [OC, C, KH, KW] from
// planar x and grad [N, OC, OH, OW] in nChw16c, with the bias's gradient (grad summed
// over N, OH, OW) into db when given; the same limits but for the pool and the
// activation. With `codes`, grad is the plain 2x2 pool's gradient [N, OC, OH / 2,
// OW / 2] and codes its windows' (Note [Window codes]; both nChw16c): the
// convolution's output gradient is max_pool2d_backward of the two, never stored.
// false, with nothing written, where it does not apply (or a code is not one of a
// window's four cells).
struct FewChannelWeightGrad {
  const float* x;
  const float* grad;
  int64_t N, C, H, W, OC, KH, KW, pad_h, pad_w;
  float* dw;
  float* db;                        // null: not wanted
  const uint8_t* codes = nullptr;  // null: grad is the convolution's output gradient
};
bool conv_weight_grad_few_channels(const FewChannelWeightGrad& p);
// conv_few_channels_planar.cpp: the same layers on planar tensors (eager's), with no
// pool (Note [The first layer in registers, planar]): out [N, OC, OH, OW] = act(conv2d(x,
// w) + bias) for any OC, and the weight (and bias) gradient from a planar grad [N, OC,
// OH, OW] (kernels up to 3 wide; `codes` must be null). The same limits on x, w and
// the geometry; false, with nothing written, where they do not hold.
bool conv_few_channels_planar(const FewChannelConv& p);
bool conv_weight_grad_few_channels_planar(const FewChannelWeightGrad& p);

// norm.cpp
NABLA_CPU_KERNEL(batch_norm);
NABLA_CPU_KERNEL(batch_norm_backward);
NABLA_CPU_KERNEL(layer_norm);
NABLA_CPU_KERNEL(dropout);
NABLA_CPU_KERNEL(group_norm);
NABLA_CPU_KERNEL(rms_norm);

// resample.cpp
NABLA_CPU_KERNEL(interpolate);
NABLA_CPU_KERNEL(interpolate_backward);
NABLA_CPU_KERNEL(pad);
NABLA_CPU_KERNEL(pad_backward);

// index.cpp
NABLA_CPU_KERNEL(embedding);
NABLA_CPU_KERNEL(gather);
NABLA_CPU_KERNEL(index_select);
NABLA_CPU_KERNEL(scatter_add);
NABLA_CPU_KERNEL(cat);
NABLA_CPU_KERNEL(stack);

// ordering.cpp
NABLA_CPU_KERNEL(cumsum);
NABLA_CPU_KERNEL(cumprod);
NABLA_CPU_KERNEL(sort);
NABLA_CPU_KERNEL(topk);
NABLA_CPU_KERNEL(flip);
NABLA_CPU_KERNEL(roll);
NABLA_CPU_KERNEL(tril);
NABLA_CPU_KERNEL(triu);
NABLA_CPU_KERNEL(masked_fill);
NABLA_CPU_KERNEL(repeat);
NABLA_CPU_KERNEL(one_hot);
NABLA_CPU_KERNEL(multinomial);

// loss.cpp
NABLA_CPU_KERNEL(cross_entropy);
NABLA_CPU_KERNEL(nll_loss);
NABLA_CPU_KERNEL(mse_loss);
NABLA_CPU_KERNEL(binary_cross_entropy);
NABLA_CPU_KERNEL(binary_cross_entropy_with_logits);

// quantized.cpp (the int8 GEMM and quantization helpers: quantized.hpp)
NABLA_CPU_KERNEL(quantize_per_tensor);
NABLA_CPU_KERNEL(quantize_per_channel);
NABLA_CPU_KERNEL(dequantize_per_tensor);
NABLA_CPU_KERNEL(dequantize_per_channel);
NABLA_CPU_KERNEL(fake_quantize_per_tensor);
NABLA_CPU_KERNEL(fake_quantize_per_channel);
NABLA_CPU_KERNEL(quantized_linear);
NABLA_CPU_KERNEL(dynamic_quantized_linear);
NABLA_CPU_KERNEL(quantized_conv2d);

// optim.cpp (the fused updates: tensor/optim.hpp)
NABLA_CPU_KERNEL(adam_step_);
NABLA_CPU_KERNEL(sgd_step_);

#undef NABLA_CPU_KERNEL

// t itself when it has dtype `dt` (any layout), else a converted contiguous copy.
Tensor as_dtype(const Tensor& t, DType dt);

}  // namespace nabla::cpu
