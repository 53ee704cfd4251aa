// Fused optimizer updates: one pass over a parameter and its state, written in place,
// no temporaries. The stdlib's Adam and AdamW (stdlib/optim.dsl) reach
// adam_step_multi_raw (every parameter of a group in one kernel: one launch, one
// parallel loop over all their elements) through the builtin optim_adam_step_multi_,
// and adam_step_raw (one parameter) through optim_adam_step_; both run under the
// profiler (autograd/optim_step.hpp). The per-element update is written once here
// (NABLA_HOST_DEVICE) and looped over by the CPU kernel (tensor/cpu/optim.cpp) and
// the CUDA kernel (tensor/cuda/optim.cu). SGD, RMSprop and the rest are written with
// tensor ops in optim.dsl and need no kernel of their own.
//
// Must not touch: autograd, the language. .cu files include this (C++17).
#pragma once
#include <math.h>

#include <cstdint>
#include <vector>

#include "tensor/host_device.hpp"
#include "tensor/tensor.hpp"

namespace nabla {

using TensorList = std::vector<Tensor>;

// The hyperparameters of one Adam/AdamW step; `step` counts from 1.
struct AdamHyper {
  double lr = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0;
  double step = 1;
  bool decoupled = false;  // AdamW: p *= 1 - lr * weight_decay instead of g += weight_decay * p
};

// The step's constants in the parameter's dtype, computed once on the host.
template <class T>
struct AdamConstants {
  T beta1, beta2, one_minus_beta1, one_minus_beta2, eps;
  T step_size;         // lr / (1 - beta1^step)
  T bias_correction2;  // sqrt(1 - beta2^step)
  T l2;                // weight_decay added to the gradient (Adam), else 0
  T shrink;            // 1 - lr * weight_decay (AdamW), else 1
};

template <class T>
AdamConstants<T> adam_constants(const AdamHyper& h) {
  double step_size = h.lr / (1 - ::pow(h.beta1, h.step));
  double bias_correction2 = ::sqrt(1 - ::pow(h.beta2, h.step));
  return {static_cast<T>(h.beta1),
          static_cast<T>(h.beta2),
          static_cast<T>(1 - h.beta1),
          static_cast<T>(1 - h.beta2),
          static_cast<T>(h.eps),
          static_cast<T>(step_size),
          static_cast<T>(bias_correction2),
          h.decoupled ? T(0) : static_cast<T>(h.weight_decay),
          static_cast<T>(h.decoupled ? 1 - h.lr * h.weight_decay : 1)};
}

NABLA_HOST_DEVICE inline float square_root(float v) { return ::sqrtf(v); }
NABLA_HOST_DEVICE inline double square_root(double v) { return ::sqrt(v); }

// Element i of an Adam step, in the order of optim.dsl's tensor-op path (so that the
// two agree to rounding): decay, the moments, then p -= step_size * m / (sqrt(v) /
// bias_correction2 + eps).
template <class T>
NABLA_HOST_DEVICE inline void adam_update(T* p, const T* g, T* m, T* v, int64_t i, const AdamConstants<T>& c) {
  T pi = p[i] * c.shrink;
  T gi = g[i] + c.l2 * p[i];
  T mi = m[i] * c.beta1 + gi * c.one_minus_beta1;
  T vi = v[i] * c.beta2 + gi * gi * c.one_minus_beta2;
  m[i] = mi;
  v[i] = vi;
  p[i] = pi - c.step_size * (mi / (square_root(vi) / c.bias_correction2 + c.eps));
}

// Whether adam_step_raw handles these tensors: one device, one dtype (f32 or f64), one
// shape, all contiguous. Otherwise optim.dsl takes its path written with tensor ops.
bool adam_step_supported(const Tensor& p, const Tensor& g, const Tensor& exp_avg, const Tensor& exp_avg_sq);
// One Adam/AdamW step on p from its gradient g, updating exp_avg and exp_avg_sq; p,
// exp_avg and exp_avg_sq are written in place and their versions bumped. No
// autograd (call it under no-grad, as optimizers run). Requires adam_step_supported.
void adam_step_raw(const Tensor& p, const Tensor& g, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                   const AdamHyper& hyper);
// Its cost for the profiler: FLOPs and bytes moved (p, g, m, v read; p, m, v written).
double adam_step_flops(const Tensor& p);
double adam_step_bytes(const Tensor& p);

// Every parameter of a list in one kernel: p[k] from g[k] with exp_avg[k] and
// exp_avg_sq[k], at its own step count steps[k] (hyper.step is not read). Element for
// element the update of adam_step_raw, so the results are bit-equal to a loop of
// adam_step_raw over the list.
struct AdamMultiArgs {
  TensorList p, g, exp_avg, exp_avg_sq;
  std::vector<double> steps;
};
// Whether adam_step_multi_raw handles these lists: of one length, each quadruple
// adam_step_supported, all on one device in one dtype.
bool adam_step_multi_supported(const AdamMultiArgs& args);
void adam_step_multi_raw(const AdamMultiArgs& args, const AdamHyper& hyper);
double adam_step_multi_flops(const TensorList& p);
double adam_step_multi_bytes(const TensorList& p);

namespace cpu {
void adam_step_multi(const AdamMultiArgs& args, const AdamHyper& hyper);
void adam_step(const Tensor& p, const Tensor& g, const Tensor& exp_avg, const Tensor& exp_avg_sq,
               const AdamHyper& hyper);
}
namespace cuda {
void adam_step_multi(const AdamMultiArgs& args, const AdamHyper& hyper);
void adam_step(const Tensor& p, const Tensor& g, const Tensor& exp_avg, const Tensor& exp_avg_sq,
               const AdamHyper& hyper);
}

}  // namespace nabla
