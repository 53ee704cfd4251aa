// The oneDNN helpers that conv.cpp and epilogue.cpp share.
#include "tensor/cpu/onednn.hpp"

namespace nabla::cpu {

namespace {

// oneDNN's eltwise algorithm of each activation: gelu is the erf form (as nabla's
// gelu), silu is swish with alpha 1.
//
// Note [A NaN through relu]
// The relu op keeps a NaN, as PyTorch's eager relu does (scalar::relu is v < 0 ? 0 : v,
// so -0.0 stays -0.0 too). oneDNN's relu post-op is max(v, 0) with the zero winning over
// a NaN (jit vmaxps; alpha 0, and -0.0 counts as 0), so a relu fused into a convolution
// or a linear layer's epilogue in a compiled graph takes a NaN to 0, as PyTorch's own
// oneDNN-fused kernels do. The first layer's kernels (conv_few_channels*.cpp) follow
// oneDNN's rule in their fused relu, so that the compiled CNN stays bit for bit one
// kernel or the other. Every other place keeps the NaN: the relu op, its gradient
// (threshold_backward passes the gradient where the result is NaN), fused elementwise
// programs, and relu epilogues outside oneDNN (f64, 16-bit, CUDA's elementwise).
void append_eltwise(dnnl::post_ops& ops, Activation act) {
  switch (act) {
    case Activation::none:
      return;
    case Activation::relu:
      return ops.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f);
    case Activation::gelu:
      return ops.append_eltwise(1.f, dnnl::algorithm::eltwise_gelu_erf, 0.f, 0.f);
    case Activation::tanh:
      return ops.append_eltwise(1.f, dnnl::algorithm::eltwise_tanh, 0.f, 0.f);
    case Activation::sigmoid:
      return ops.append_eltwise(1.f, dnnl::algorithm::eltwise_logistic, 0.f, 0.f);
    case Activation::silu:
      return ops.append_eltwise(1.f, dnnl::algorithm::eltwise_swish, 1.f, 0.f);
  }
}

}  // namespace

namespace onednn {

dnnl::primitive_attr attributes(Activation act) {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  if (act != Activation::none) {
    dnnl::post_ops ops;
    append_eltwise(ops, act);
    attr.set_post_ops(ops);
  }
  return attr;
}

void* PackedWeights::data_for(const dnnl::memory::desc& plain, const dnnl::memory::desc& layout, const Tensor& w) {
  if (layout == plain) return w.raw_data();
  std::lock_guard<std::mutex> lock(mutex);
  if (!packed.defined() || packed_from != w.raw_data() || packed_version != w.version()) {
    if (!packed.defined()) packed = buffer(layout);
    dnnl::memory from(plain, engine(), w.raw_data());
    dnnl::memory to(layout, engine(), packed.raw_data());
    dnnl::reorder(from, to).execute(stream(), from, to);
    stream().wait();
    packed_from = w.raw_data();
    packed_version = w.version();
  }
  return packed.raw_data();
}

void bind_argument(std::unordered_map<int, dnnl::memory>& args, int arg, const dnnl::memory::desc& md, void* data) {
  auto it = args.find(arg);
  if (it == args.end()) {
    args.emplace(arg, dnnl::memory(md, engine(), data));
  } else if (it->second.get_data_handle() != data) {
    it->second.set_data_handle(data);
  }
}

}  // namespace onednn

}  // namespace nabla::cpu
