// The oneDNN helpers that conv.cpp and epilogue.cpp share.
#include "tensor/cpu/onednn.hpp"

namespace nabla::cpu {

namespace {

// oneDNN's eltwise algorithm of each activation: gelu is the erf form (as nabla's
// gelu), silu is swish with alpha 1.
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

}  // namespace onednn

}  // namespace nabla::cpu
