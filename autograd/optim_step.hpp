// The optimizers' fused steps as the interpreter's builtins call them: the kernel of
// tensor/optim.hpp (CPU or CUDA, as the tensors live) run as call() runs a row's
// kernel, so that the profiler records it like any op (run_native_kernel in
// autograd/profiler.hpp: "adam_step", "adam_step_multi" or "sgd_step_multi", its time on the device, shapes, FLOPs, bytes).
// They are not rows of the op table: they write their inputs in place, have no
// gradient and are never nodes of a captured graph.
#pragma once
#include "tensor/optim.hpp"

namespace nabla {

// One Adam/AdamW step of p (tensor/optim.hpp's adam_step_raw), or false, having done
// nothing, for tensors the fused kernel does not handle (adam_step_supported).
bool adam_step_(const Tensor& p, const Tensor& g, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                const AdamHyper& hyper);

// One Adam/AdamW step of every parameter of args in one kernel (adam_step_multi_raw),
// recorded as one "adam_step_multi" op, or false, having done nothing, for lists the
// kernel does not handle (adam_step_multi_supported).
bool adam_step_multi_(const AdamMultiArgs& args, const AdamHyper& hyper);

// One SGD step of every parameter of args in one kernel (sgd_step_multi_raw), recorded
// as one "sgd_step_multi" op, or false, having done nothing (sgd_step_multi_supported).
bool sgd_step_multi_(const SgdMultiArgs& args, const SgdHyper& hyper);

}  // namespace nabla
