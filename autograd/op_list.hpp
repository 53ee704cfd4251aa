// The list of every op in the op table, in one place. Adding an op: add a line here,
// then its row (in the family file under autograd/ops/) and a reference case in
// tests/ops/reference/. The X-macro keeps the enum and the name table lined up.
#pragma once

#define NABLA_OPS(X)                                                                          \
  /* views (no copy; see autograd/ops/views.cpp) */                                          \
  X(view) X(reshape) X(transpose) X(permute) X(slice) X(select) X(expand) X(squeeze)          \
  X(unsqueeze) X(contiguous) X(slice_backward) X(to_dtype) X(to_device)                        \
  /* unary elementwise */                                                                    \
  X(neg) X(exp) X(log) X(sqrt) X(rsqrt) X(abs) X(sign) X(sin) X(cos) X(tanh) X(sigmoid)       \
  X(relu) X(gelu) X(silu) X(erf)                                                              \
  /* binary and ternary elementwise */                                                       \
  X(add) X(sub) X(mul) X(div) X(pow) X(maximum) X(minimum) X(eq) X(ne) X(lt) X(le) X(gt)      \
  X(ge) X(where) X(clamp)                                                                     \
  /* reductions */                                                                           \
  X(sum) X(mean) X(max) X(min) X(max_dim) X(min_dim) X(argmax) X(argmin) X(var) X(std)        \
  X(logsumexp) X(softmax) X(log_softmax)                                                      \
  /* linear algebra */                                                                       \
  X(matmul) X(linear)                                                                         \
  /* attention */                                                                            \
  X(scaled_dot_product_attention)                                                             \
  /* convolution and pooling */                                                              \
  X(conv2d) X(conv2d_backward_input) X(conv2d_backward_weight) X(max_pool2d) X(avg_pool2d)    \
  X(avg_pool2d_backward)                                                                      \
  /* normalization and regularization */                                                     \
  X(batch_norm) X(batch_norm_backward) X(layer_norm) X(dropout)                              \
  /* indexing and joining */                                                                 \
  X(embedding) X(gather) X(index_select) X(scatter_add) X(cat) X(stack) X(split)              \
  /* losses */                                                                               \
  X(cross_entropy) X(nll_loss) X(mse_loss) X(binary_cross_entropy)                            \
  X(binary_cross_entropy_with_logits)                                                         \
  /* tensor-parallel collectives (see Note [Tensor-parallel regions]) */                     \
  X(dist_copy) X(dist_reduce) X(dist_split) X(dist_gather)                                    \
  /* quantization */                                                                         \
  X(quantize_per_tensor) X(quantize_per_channel) X(dequantize_per_tensor) X(dequantize_per_channel) \
  X(fake_quantize_per_tensor) X(fake_quantize_per_channel) X(quantized_linear)                \
  X(dynamic_quantized_linear) X(quantized_conv2d)
