// Fused optimizer updates: one pass over a parameter and its state, written in place,
// no temporaries. The stdlib's Adam and AdamW (stdlib/optim.dsl) reach
// adam_step_multi_raw (every parameter of a group in one kernel: one launch, one
// parallel loop over all their elements) through the builtin optim_adam_step_multi_,
// and adam_step_raw (one parameter) through optim_adam_step_; both run under the
// profiler (autograd/optim_step.hpp). The per-element update is written once here
// (NABLA_HOST_DEVICE) and looped over by the CPU kernel (tensor/cpu/optim.cpp) and
// the CUDA kernel (tensor/cuda/optim.cu). SGD (with momentum, dampening, Nesterov and
// weight decay) has a multi-tensor kernel too, sgd_step_multi_raw, whose update rounds
// exactly as optim.dsl's tensor ops do (bit-equal); RMSprop and the rest are written
// with tensor ops in optim.dsl.
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

// The rows adam_step_ and sgd_step_ (autograd/ops/optim.cpp) read their
// hyperparameters from an f64 tensor, `hyper`, in this order, so that a scheduler's
// changes reach a replayed graph: Adam's [lr, beta1, beta2, eps, weight_decay], SGD's
// [lr, momentum, dampening, weight_decay].
constexpr int64_t kAdamHyperValues = 5;
constexpr int64_t kSgdHyperValues = 4;

// The step's constants in the parameter's dtype, computed once on the host.
template <class T>
struct AdamConstants {
  T beta1, beta2, one_minus_beta1, one_minus_beta2, eps;
  T step_size;         // lr / (1 - beta1^step)
  T bias_correction2;  // sqrt(1 - beta2^step)
  T l2;                // weight_decay added to the gradient (Adam), else 0
  T shrink;            // 1 - lr * weight_decay (AdamW), else 1
};

// An AdamHyper from a row's hyper values, its step count and flag.
NABLA_HOST_DEVICE inline AdamHyper adam_hyper_from(const double* v, double step, bool decoupled) {
  AdamHyper h;
  h.lr = v[0], h.beta1 = v[1], h.beta2 = v[2], h.eps = v[3], h.weight_decay = v[4];
  h.step = step;
  h.decoupled = decoupled;
  return h;
}

template <class T>
NABLA_HOST_DEVICE AdamConstants<T> adam_constants(const AdamHyper& h) {
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

// The hyperparameters of one SGD step, torch.optim.SGD's.
struct SgdHyper {
  double lr = 1e-3, momentum = 0, dampening = 0, weight_decay = 0;
  bool nesterov = false;
};

// The step's constants in the parameter's dtype. The flags are the DSL path's
// branches (a term that is 0 is skipped, not added), so that signed zeros and
// infinities come out as they do there.
template <class T>
struct SgdConstants {
  T lr, momentum, weight_decay, dampening_keep;  // dampening_keep = 1 - dampening
  bool decay, with_momentum, dampened, nesterov;
};

// An SgdHyper from a row's hyper values and flag.
NABLA_HOST_DEVICE inline SgdHyper sgd_hyper_from(const double* v, bool nesterov) {
  SgdHyper h;
  h.lr = v[0], h.momentum = v[1], h.dampening = v[2], h.weight_decay = v[3];
  h.nesterov = nesterov;
  return h;
}

template <class T>
NABLA_HOST_DEVICE SgdConstants<T> sgd_constants(const SgdHyper& h) {
  return {static_cast<T>(h.lr),       static_cast<T>(h.momentum), static_cast<T>(h.weight_decay),
          static_cast<T>(1 - h.dampening), h.weight_decay != 0,   h.momentum != 0,
          h.dampening != 0,           h.nesterov};
}

// a * b and a + b rounded each on its own: never contracted into one fused
// multiply-add, which optim.dsl's separate tensor ops cannot be (the CPU loop is
// compiled without contraction; on a GPU the _rn intrinsics say so).
template <class T>
NABLA_HOST_DEVICE inline T mul_rounded(T a, T b) {
#ifdef __CUDA_ARCH__
  if constexpr (sizeof(T) == 4) return __fmul_rn(a, b); else return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
template <class T>
NABLA_HOST_DEVICE inline T add_rounded(T a, T b) {
#ifdef __CUDA_ARCH__
  if constexpr (sizeof(T) == 4) return __fadd_rn(a, b); else return __dadd_rn(a, b);
#else
  return a + b;
#endif
}

// Element i of an SGD step, in the order of optim.dsl's _sgd_update: d = g + wd * p;
// with momentum buf = buf * momentum + d * (1 - dampening) (buf = d at the first step:
// `fresh`), d = d + momentum * buf (Nesterov) or buf; then p = p - d * lr.
template <class T>
NABLA_HOST_DEVICE inline void sgd_update(T* p, const T* g, T* buf, int64_t i, bool fresh, const SgdConstants<T>& c) {
  T d = g[i];
  if (c.decay) d = add_rounded(d, mul_rounded(c.weight_decay, p[i]));
  if (c.with_momentum) {
    T b = fresh ? d : add_rounded(mul_rounded(buf[i], c.momentum), c.dampened ? mul_rounded(d, c.dampening_keep) : d);
    buf[i] = b;
    d = c.nesterov ? add_rounded(d, mul_rounded(c.momentum, b)) : b;
  }
  p[i] = p[i] - mul_rounded(d, c.lr);
}

// Every parameter of a list in one kernel: p[k] from g[k]; with momentum,
// momentum_buffer[k] is read and written (fresh[k]: it holds nothing yet, this is the
// parameter's first step), without it the list may be empty.
struct SgdMultiArgs {
  TensorList p, g, momentum_buffer;
  std::vector<char> fresh;
};
// Whether sgd_step_multi_raw handles these: p and g (and the buffers, with momentum)
// lists of one length, contiguous f32 or f64 tensors of one shape per parameter, all
// of one dtype and device.
bool sgd_step_multi_supported(const SgdMultiArgs& args, const SgdHyper& hyper);
void sgd_step_multi_raw(const SgdMultiArgs& args, const SgdHyper& hyper);
// About 6 FLOPs per element; p, g, buf read and p, buf written (p, g and p without momentum).
double sgd_step_multi_flops(const TensorList& p);
double sgd_step_multi_bytes(const TensorList& p, const SgdHyper& hyper);

// The rows of one parameter group in one kernel (the graph node optimizer_steps,
// passes/fuse_optimizer.cpp): each parameter with its gradient, state and step count
// (a 0-dim f64 tensor), the group's hyper tensor and found_inf (undefined: none) read
// by the kernel, as the rows adam_step_ / sgd_step_ do one parameter at a time.
// Adam: state = exp_avg, state2 = exp_avg_sq, flag = decoupled; SGD: state = the
// momentum buffers (none without momentum), flag = nesterov. Bit-equal to the rows.
struct OptimizerRows {
  TensorList p, g, state, state2, step;
  Tensor hyper, found_inf;
  bool flag = false;
};
// Whether one kernel takes these: contiguous f32/f64 tensors of one dtype and device,
// each state of its parameter's shape, f64 step counts and hyper, f32 found_inf.
bool optimizer_rows_supported(const OptimizerRows& rows, bool adam);
void adam_rows_raw(const OptimizerRows& rows);
void sgd_rows_raw(const OptimizerRows& rows);
// The rows adam_step_ and sgd_step_ on either device (their kernels call these): one
// parameter as a group of one, strided written tensors through contiguous copies.
void adam_step_row(const TensorList& in, bool decoupled);
void sgd_step_row(const TensorList& in, bool nesterov);

namespace cpu {
void adam_rows(const OptimizerRows& rows);
void sgd_rows(const OptimizerRows& rows);
void sgd_step_multi(const SgdMultiArgs& args, const SgdHyper& hyper);
void adam_step_multi(const AdamMultiArgs& args, const AdamHyper& hyper);
void adam_step(const Tensor& p, const Tensor& g, const Tensor& exp_avg, const Tensor& exp_avg_sq,
               const AdamHyper& hyper);
}
namespace cuda {
void adam_rows(const OptimizerRows& rows);
void sgd_rows(const OptimizerRows& rows);
void sgd_step_multi(const SgdMultiArgs& args, const SgdHyper& hyper);
void adam_step_multi(const AdamMultiArgs& args, const AdamHyper& hyper);
void adam_step(const Tensor& p, const Tensor& g, const Tensor& exp_avg, const Tensor& exp_avg_sq,
               const AdamHyper& hyper);
}

}  // namespace nabla
