// The oneDNN CPU engine and this thread's stream, shared by the kernels that run on
// oneDNN primitives (conv.cpp, epilogue.cpp), and the post-op of an activation.
#pragma once
#include <oneapi/dnnl/dnnl.hpp>

#include "tensor/cpu/fused.hpp"

namespace nabla::cpu::onednn {

inline dnnl::engine& engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}
inline dnnl::stream& stream() {
  thread_local dnnl::stream s(engine());
  return s;
}

// A buffer of md's size from nabla's caching allocator (reorder targets, scratchpads).
inline Tensor buffer(const dnnl::memory::desc& md) {
  return empty({static_cast<int64_t>(md.get_size() / sizeof(float)) + 1}, DType::f32);
}

// Primitive attributes with a user-managed scratchpad (so that concurrent calls never
// share one) and `act` as an eltwise post-op (none: no post-op).
dnnl::primitive_attr attributes(Activation act);

}  // namespace nabla::cpu::onednn
