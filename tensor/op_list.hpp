// The list of every op, in one place: the op table's rows (autograd/), the kernels of
// each device (tensor/cpu/, tensor/cuda/), the fused loops and the graph IR are all
// keyed by the OpId made from it, and the elementwise families below generate their
// kernels, fused-loop cases and functional API. Adding an op: docs/core.md, "Adding
// an op". It lives in tensor/ because the kernel tables below autograd need the ids.
#pragma once
#include <cstdint>
#include <string>

// The lists read best one family per line, not as clang-format would set them.
// clang-format off
// Unary elementwise ops. Each has one scalar function (tensor/scalar_ops.hpp) that the
// CPU and CUDA kernels and both fused loops call, so every path computes alike.
#define NABLA_UNARY_OPS(X) \
  X(neg) X(exp) X(log) X(sqrt) X(rsqrt) X(abs) X(sign) X(sin) X(cos) X(tanh) X(sigmoid) X(relu) X(gelu) X(silu) X(erf) \
  X(log1p) X(expm1) X(lgamma) X(digamma) \
  X(floor) X(ceil) X(round) X(trunc) X(hardswish) X(mish)
// The unary ops defined on integers as well (an integer input keeps its dtype); the
// others compute an integer input as f32, as PyTorch's exp does.
#define NABLA_INTEGER_UNARY_OPS(X) X(neg) X(abs) X(sign) X(relu) X(floor) X(ceil) X(round) X(trunc)
// Unary ops with scalar attributes (softplus's beta and threshold): each scalar
// function takes the value and up to two numbers, named with their defaults by
// scalar::scalar_attrs (tensor/scalar_ops.hpp), whose names the row's attributes take.
// An integer input computes as f32.
#define NABLA_PARAMETRIC_UNARY_OPS(X) X(softplus) X(elu) X(leaky_relu) X(hardtanh) X(logit) X(polygamma)
// Binary arithmetic: broadcasting, the inputs' result type.
#define NABLA_BINARY_OPS(X) X(add) X(sub) X(mul) X(div) X(pow) X(maximum) X(minimum) \
  X(remainder) X(atan2) X(logaddexp)
// The binary ops whose shape rule makes the result a float (true division, pow), as
// PyTorch's do: integers compute as floats.
#define NABLA_FLOAT_RESULT_BINARY_OPS(X) X(div) X(pow) X(atan2) X(logaddexp)
// The binary ops that divide by their second input: an integer zero divisor is an
// error before the loop, never a trap (Note [Integer tensor arithmetic]).
#define NABLA_DIVIDING_OPS(X) X(div) X(remainder)
// Comparisons: broadcasting, bool out; in a fused loop 1 or 0 in the loop's dtype.
#define NABLA_COMPARISON_OPS(X) X(eq) X(ne) X(lt) X(le) X(gt) X(ge)
// Every op a fused elementwise loop can run (tensor/cpu/fused.cpp, tensor/cuda/fused.cu).
// threshold_backward is relu's gradient as one loop (grad where input > threshold).
#define NABLA_ELEMENTWISE_OPS(X) \
  NABLA_UNARY_OPS(X) NABLA_PARAMETRIC_UNARY_OPS(X) NABLA_BINARY_OPS(X) NABLA_COMPARISON_OPS(X) X(where) X(clamp) \
  X(threshold_backward)
// The activations linear and conv2d can apply inside their library call (oneDNN
// post-ops, cuBLASLt/cuDNN epilogues): passes/fuse_epilogue.cpp folds them in.
#define NABLA_EPILOGUE_ACTIVATIONS(X) X(relu) X(gelu) X(tanh) X(sigmoid) X(silu)
// The ops whose library call takes one of those activations as its epilogue
// (linear_<act>, conv2d_<act> in the graph IR).
#define NABLA_EPILOGUE_BASE_OPS(X) X(linear) X(conv2d)
// Reshapes: the same elements in the same order under another shape (view never
// copies and fails where the strides forbid it; reshape copies there). The graph
// passes treat them alike.
#define NABLA_RESHAPE_OPS(X) X(view) X(reshape)
// The int8 ops with a requantizing epilogue (attributes relu, output_scale,
// output_zero_point) that passes/lower_quant.cpp folds a relu or a quantize into.
#define NABLA_INT8_EPILOGUE_OPS(X) X(quantized_linear) X(quantized_conv2d)

#define NABLA_OPS(X)                                                                          \
  /* views (no copy; see autograd/ops/views.cpp) */                                          \
  X(view) X(reshape) X(transpose) X(permute) X(slice) X(select) X(expand) X(squeeze)          \
  X(unsqueeze) X(contiguous) X(slice_backward) X(to_dtype) X(to_device) X(alias) X(detach)     \
  X(diagonal) X(unfold_windows)                                                               \
  /* elementwise (above) */                                                                 \
  NABLA_ELEMENTWISE_OPS(X)                                                                    \
  /* reductions */                                                                           \
  X(sum) X(mean) X(max) X(min) X(max_dim) X(min_dim) X(argmax) X(argmin) X(var) X(std)        \
  X(logsumexp) X(softmax) X(log_softmax)                                                      \
  /* linear algebra */                                                                       \
  X(matmul) X(linear) X(inverse) X(det) X(linalg_solve) X(cholesky) X(eigh) X(svd) X(qr)     \
  /* attention */                                                                            \
  X(scaled_dot_product_attention)                                                             \
  /* convolution and pooling */                                                              \
  X(conv2d) X(conv2d_backward_input) X(conv2d_backward_weight) X(max_pool2d) X(avg_pool2d)    \
  X(avg_pool2d_backward)                                                                      \
  /* 1-D convolution and pooling, transposed convolution, adaptive pooling */                 \
  X(conv1d) X(conv_transpose1d) X(conv_transpose2d) X(max_pool1d) X(avg_pool1d)               \
  X(adaptive_avg_pool1d) X(adaptive_avg_pool2d) X(adaptive_max_pool2d)                        \
  /* the max pools' gradient: a scatter over their argmax indices (autograd/ops/pool.cpp) */  \
  X(max_pool2d_backward)                                                                      \
  /* 3-D convolution */                                                                       \
  X(conv3d) X(conv3d_backward_input) X(conv3d_backward_weight)                                \
  /* normalization and regularization */                                                     \
  X(batch_norm) X(batch_norm_backward) X(layer_norm) X(dropout)                              \
  X(group_norm) X(rms_norm)                                                                   \
  /* resampling and padding (autograd/ops/resample.cpp) */                                   \
  X(interpolate) X(interpolate_backward) X(pad) X(pad_backward)                               \
  /* indexing and joining */                                                                 \
  X(embedding) X(gather) X(index_select) X(scatter_add) X(cat) X(stack) X(split) X(unbind)              \
  /* scans, ordering and indexing (see autograd/ops/ordering.cpp) */                          \
  X(cumsum) X(cumprod) X(sort) X(topk) X(flip) X(roll) X(tril) X(triu) X(masked_fill)         \
  X(repeat) X(one_hot) X(multinomial)                                                         \
  /* random draws from the global generator (autograd/ops/random.cpp) */                      \
  X(random_uniform) X(random_normal) X(random_integers)                                       \
  /* losses */                                                                               \
  X(cross_entropy) X(nll_loss) X(mse_loss) X(binary_cross_entropy)                            \
  X(binary_cross_entropy_with_logits)                                                         \
  /* tensor-parallel collectives (see Note [Tensor-parallel regions]) */                     \
  X(dist_copy) X(dist_reduce) X(dist_split) X(dist_gather)                                    \
  /* data-parallel sharding (FSDP; see Note [Sharded parameters in a graph]) */               \
  X(dist_shard_gather) X(dist_shard_reduce)                                                   \
  /* quantization */                                                                         \
  X(quantize_per_tensor) X(quantize_per_channel) X(dequantize_per_tensor) X(dequantize_per_channel) \
  X(fake_quantize_per_tensor) X(fake_quantize_per_channel) X(quantized_linear)                \
  X(dynamic_quantized_linear) X(quantized_conv2d)                                            \
  /* optimizer steps, written in place (autograd/ops/optim.cpp) */                           \
  X(adam_step_) X(sgd_step_)
// clang-format on

namespace nabla {

enum class OpId : uint16_t {
#define NABLA_OP_ENUM(name) name,
  NABLA_OPS(NABLA_OP_ENUM)
#undef NABLA_OP_ENUM
      kCount
};
constexpr int kNumOps = static_cast<int>(OpId::kCount);

// The op's name ("gelu"), as the language, the IR text and error messages spell it.
const char* op_name(OpId id);
// The op named `name`; OpId::kCount when there is none.
OpId op_id_from_name(const std::string& name);

// Membership in the families above, known at compile time: kernels pick their dtype
// rules with it, the fused loops and the graph passes test it instead of names.
#define NABLA_OP_CASE(name) case OpId::name:
#define NABLA_OP_FAMILY(predicate, LIST) \
  constexpr bool predicate(OpId id) {    \
    switch (id) {                        \
      LIST(NABLA_OP_CASE)                \
      return true;                       \
      default:                           \
        return false;                    \
    }                                    \
  }
NABLA_OP_FAMILY(is_unary_op, NABLA_UNARY_OPS)
NABLA_OP_FAMILY(keeps_integers, NABLA_INTEGER_UNARY_OPS)
NABLA_OP_FAMILY(is_parametric_unary_op, NABLA_PARAMETRIC_UNARY_OPS)
NABLA_OP_FAMILY(is_binary_op, NABLA_BINARY_OPS)
NABLA_OP_FAMILY(has_float_result, NABLA_FLOAT_RESULT_BINARY_OPS)
NABLA_OP_FAMILY(divides_by_second_input, NABLA_DIVIDING_OPS)
NABLA_OP_FAMILY(is_comparison_op, NABLA_COMPARISON_OPS)
NABLA_OP_FAMILY(is_fusable_elementwise, NABLA_ELEMENTWISE_OPS)
NABLA_OP_FAMILY(is_epilogue_activation, NABLA_EPILOGUE_ACTIVATIONS)
NABLA_OP_FAMILY(is_epilogue_base, NABLA_EPILOGUE_BASE_OPS)
NABLA_OP_FAMILY(is_reshape_op, NABLA_RESHAPE_OPS)
NABLA_OP_FAMILY(has_int8_epilogue, NABLA_INT8_EPILOGUE_OPS)
#undef NABLA_OP_FAMILY
#undef NABLA_OP_CASE

}  // namespace nabla
