// The CUDA kernel of each op, indexed by OpId (find_kernel, tensor/cuda/cuda_runtime.hpp).
// One list rather than registrars in each file: nabla_core is a static library, and
// the linker would drop a kernel file that nothing names. Keyed by OpId, so a
// misspelt op does not compile; a row that has a CPU kernel but none here is an
// error when the op table is built (Note [Every device has every kernel] in
// autograd/op_table.cpp). The elementwise family comes from its list in
// tensor/op_list.hpp: adding a unary op adds its kernel here by itself.
#include <array>
#include <utility>

#include "tensor/cuda/kernels.hpp"

namespace nabla::cuda {

namespace {

struct Entry {
  OpId op;
  Kernel kernel;
};

// half_native: the kernel takes f16/bf16 itself; false: they compute through f32.
constexpr Entry kKernels[] = {
#define NABLA_ELEMENTWISE_ENTRY(name) {OpId::name, {name, true}},
    // elementwise.cu
    NABLA_ELEMENTWISE_OPS(NABLA_ELEMENTWISE_ENTRY)
#undef NABLA_ELEMENTWISE_ENTRY
        {OpId::sum, {sum, true}},
    {OpId::mean, {mean, true}},
    {OpId::max, {max, true}},
    {OpId::min, {min, true}},
    {OpId::max_dim, {max_dim, true}},
    {OpId::min_dim, {min_dim, true}},
    {OpId::argmax, {argmax, true}},
    {OpId::argmin, {argmin, true}},
    {OpId::var, {var, true}},
    {OpId::std, {std, true}},
    {OpId::logsumexp, {logsumexp, true}},
    {OpId::softmax, {softmax, true}},
    {OpId::log_softmax, {log_softmax, true}},
    {OpId::embedding, {embedding, true}},
    {OpId::gather, {gather, true}},
    {OpId::index_select, {index_select, true}},
    {OpId::scatter_add, {scatter_add, false}},  // f16/bf16 add in f32 (index.cu)
    {OpId::cat, {cat, true}},
    {OpId::stack, {stack, true}},
    {OpId::cumsum, {cumsum, false}},
    {OpId::cumprod, {cumprod, false}},
    {OpId::sort, {sort, false}},
    {OpId::topk, {topk, false}},
    {OpId::flip, {flip, true}},
    {OpId::roll, {roll, true}},
    {OpId::tril, {tril, true}},
    {OpId::triu, {triu, true}},
    {OpId::masked_fill, {masked_fill, true}},
    {OpId::repeat, {repeat, true}},
    {OpId::one_hot, {one_hot, true}},
    {OpId::multinomial, {multinomial, false}},
    {OpId::adam_step_, {adam_step_, true}},  // f32/f64 only (its row refuses 16-bit parameters)
    {OpId::sgd_step_, {sgd_step_, true}},
    {OpId::cross_entropy, {cross_entropy, false}},
    {OpId::nll_loss, {nll_loss, false}},
    {OpId::mse_loss, {mse_loss, false}},
    {OpId::binary_cross_entropy, {binary_cross_entropy, false}},
    {OpId::binary_cross_entropy_with_logits, {binary_cross_entropy_with_logits, false}},
    {OpId::matmul, {matmul, true}},
    {OpId::linear, {linear, true}},
    {OpId::conv2d, {conv2d, true}},
    {OpId::conv2d_backward_input, {conv2d_backward_input, true}},
    {OpId::conv2d_backward_weight, {conv2d_backward_weight, true}},
    {OpId::conv3d, {conv3d, true}},
    {OpId::conv3d_backward_input, {conv3d_backward_input, true}},
    {OpId::conv3d_backward_weight, {conv3d_backward_weight, true}},
    {OpId::max_pool2d, {max_pool2d, true}},
    {OpId::avg_pool2d, {avg_pool2d, true}},
    {OpId::avg_pool2d_backward, {avg_pool2d_backward, true}},
    {OpId::conv1d, {conv1d, true}},
    {OpId::conv_transpose1d, {conv_transpose1d, true}},
    {OpId::conv_transpose2d, {conv_transpose2d, true}},
    {OpId::max_pool1d, {max_pool1d, true}},
    {OpId::avg_pool1d, {avg_pool1d, true}},
    {OpId::adaptive_avg_pool1d, {adaptive_avg_pool1d, true}},
    {OpId::adaptive_avg_pool2d, {adaptive_avg_pool2d, true}},
    {OpId::adaptive_max_pool2d, {adaptive_max_pool2d, true}},
    {OpId::max_pool2d_backward, {max_pool2d_backward, false}},  // f16/bf16 add in f32 (atomics)
    {OpId::batch_norm, {batch_norm, true}},
    {OpId::batch_norm_backward, {batch_norm_backward, true}},
    {OpId::layer_norm, {layer_norm, true}},
    {OpId::group_norm, {group_norm, false}},
    {OpId::rms_norm, {rms_norm, false}},
    {OpId::interpolate, {interpolate, false}},
    {OpId::interpolate_backward, {interpolate_backward, false}},
    {OpId::pad, {pad, false}},
    {OpId::pad_backward, {pad_backward, false}},
    {OpId::scaled_dot_product_attention, {scaled_dot_product_attention, true}},
    {OpId::contiguous, {contiguous, true}},
    {OpId::to_dtype, {to_dtype, true}},
    {OpId::slice_backward, {slice_backward, true}},
    {OpId::dropout, {dropout, false}},
};

const std::array<Kernel, kNumOps>& kernel_table() {
  static const std::array<Kernel, kNumOps> table = [] {
    std::array<Kernel, kNumOps> t{};
    for (const Entry& e : kKernels) t[static_cast<size_t>(e.op)] = e.kernel;
    return t;
  }();
  return table;
}

}  // namespace

Kernel find_kernel(OpId op) {
  auto i = static_cast<size_t>(op);
  return i < kernel_table().size() ? kernel_table()[i] : Kernel{};
}

}  // namespace nabla::cuda
