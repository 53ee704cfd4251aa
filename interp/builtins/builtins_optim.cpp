// The fused Adam/AdamW updates for the optim stdlib module (stdlib/optim.dsl), bound
// as `optim_adam_step_` (one parameter) and `optim_adam_step_multi_` (lists of
// parameters, gradients and states: every parameter of a group in one kernel), and
// SGD's, `optim_sgd_step_multi_`. The
// kernels are tensor/optim.hpp's (CPU and CUDA), run under the profiler by
// autograd/optim_step.hpp. Each returns false (and does nothing) for tensors it does
// not handle (not contiguous, not one same f32/f64 dtype, device and shape), and
// optim.dsl then takes the next path: per parameter, then tensor ops.
#include "autograd/optim_step.hpp"
#include "autograd/trace.hpp"
#include "interp/builtins/builtins_internal.hpp"

namespace nabla::interp {

namespace {

// Whether arguments [first, last) are plain numbers. A hyperparameter set to anything
// else (a tensor in a param group) makes the builtin return false, so that optim.dsl's
// tensor-op path runs and reports what the user wrote wrong, as it would without the
// fused kernels.
bool numbers_at(const Bound& b, size_t first, size_t last) {
  for (size_t k = first; k < last; ++k)
    if (!b[k].is_num()) return false;
  return true;
}

// optim_adam_step_(p, g, exp_avg, exp_avg_sq, lr, beta1, beta2, eps, step, weight_decay, decoupled)
Value adam_step(Evaluator&, CallArgs& a) {
  Bound b =
      bind("optim_adam_step_", a,
           {"p", "g", "exp_avg", "exp_avg_sq", "lr", "beta1", "beta2", "eps", "step", "weight_decay", "decoupled"}, 11);
  const std::string f = "optim_adam_step_()";
  notify_untraced_effect("opt.step() (" + f + ") updates the parameters in place outside the op table");
  const Tensor& p = as_tensor(b[0], f);
  const Tensor& g = as_tensor(b[1], f);
  const Tensor& m = as_tensor(b[2], f);
  const Tensor& v = as_tensor(b[3], f);
  if (!adam_step_supported(p, g, m, v) || !numbers_at(b, 4, 11)) return Value::boolean(false);
  AdamHyper hyper;
  hyper.lr = as_num(b[4], f), hyper.beta1 = as_num(b[5], f), hyper.beta2 = as_num(b[6], f);
  hyper.eps = as_num(b[7], f), hyper.step = as_num(b[8], f), hyper.weight_decay = as_num(b[9], f);
  hyper.decoupled = as_bool(b[10], f);
  return Value::boolean(adam_step_(p, g, m, v, hyper));
}

// optim_adam_step_multi_(params, grads, exp_avgs, exp_avg_sqs, steps, lr, beta1, beta2, eps, weight_decay, decoupled)
Value adam_step_multi(Evaluator&, CallArgs& a) {
  Bound b = bind("optim_adam_step_multi_", a,
                 {"params", "grads", "exp_avgs", "exp_avg_sqs", "steps", "lr", "beta1", "beta2", "eps", "weight_decay",
                  "decoupled"},
                 11);
  const std::string f = "optim_adam_step_multi_()";
  notify_untraced_effect("opt.step() (" + f + ") updates the parameters in place outside the op table");
  AdamMultiArgs args{tensor_list_arg(b[0], f + ": params"), tensor_list_arg(b[1], f + ": grads"),
                     tensor_list_arg(b[2], f + ": exp_avgs"), tensor_list_arg(b[3], f + ": exp_avg_sqs"),
                     as_numbers(b[4], f + ": steps")};
  if (!adam_step_multi_supported(args) || !numbers_at(b, 5, 11)) return Value::boolean(false);
  AdamHyper hyper;
  hyper.lr = as_num(b[5], f), hyper.beta1 = as_num(b[6], f), hyper.beta2 = as_num(b[7], f);
  hyper.eps = as_num(b[8], f), hyper.weight_decay = as_num(b[9], f);
  hyper.decoupled = as_bool(b[10], f);
  return Value::boolean(adam_step_multi_(args, hyper));
}

// optim_sgd_step_multi_(params, grads, momentum_buffers, fresh, lr, momentum, dampening, weight_decay, nesterov)
Value sgd_step_multi(Evaluator&, CallArgs& a) {
  Bound b = bind("optim_sgd_step_multi_", a,
                 {"params", "grads", "momentum_buffers", "fresh", "lr", "momentum", "dampening", "weight_decay",
                  "nesterov"},
                 9);
  const std::string f = "optim_sgd_step_multi_()";
  notify_untraced_effect("opt.step() (" + f + ") updates the parameters in place outside the op table");
  if (!numbers_at(b, 4, 9)) return Value::boolean(false);
  SgdHyper hyper;
  hyper.lr = as_num(b[4], f), hyper.momentum = as_num(b[5], f), hyper.dampening = as_num(b[6], f);
  hyper.weight_decay = as_num(b[7], f), hyper.nesterov = as_bool(b[8], f);
  SgdMultiArgs args{tensor_list_arg(b[0], f + ": params"), tensor_list_arg(b[1], f + ": grads"),
                    tensor_list_arg(b[2], f + ": momentum_buffers"), {}};
  for (double fresh : as_numbers(b[3], f + ": fresh")) args.fresh.push_back(fresh != 0);
  return Value::boolean(sgd_step_multi_(args, hyper));
}

const BuiltinEntry kOptimBuiltins[] = {
    {"optim_adam_step_", adam_step,
     "optim_adam_step_(p, g, exp_avg, exp_avg_sq, lr, beta1, beta2, eps, step, weight_decay, decoupled)",
     "One fused Adam (AdamW when decoupled) update of p in place; false, doing nothing, for tensors it does not "
     "handle. Example: optim_adam_step_(randn(3), ones(3), zeros(3), zeros(3), 1e-3, 0.9, 0.999, 1e-8, 1, 0.0, false)"},
    {"optim_adam_step_multi_", adam_step_multi,
     "optim_adam_step_multi_(params, grads, exp_avgs, exp_avg_sqs, steps, lr, beta1, beta2, eps, weight_decay, "
     "decoupled)",
     "One fused Adam (AdamW when decoupled) update of every tensor of params in place, in one kernel, parameter k "
     "at step steps[k]; false, doing nothing, for lists it does not handle. Example: "
     "optim_adam_step_multi_([randn(3), randn(2)], [ones(3), ones(2)], [zeros(3), zeros(2)], [zeros(3), zeros(2)], "
     "[1, 1], 1e-3, 0.9, 0.999, 1e-8, 0.0, false)"},
    {"optim_sgd_step_multi_", sgd_step_multi,
     "optim_sgd_step_multi_(params, grads, momentum_buffers, fresh, lr, momentum, dampening, weight_decay, nesterov)",
     "One fused SGD update of every tensor of params in place, in one kernel, rounding as optim.SGD's tensor ops "
     "do; with momentum, momentum_buffers[k] is updated (fresh[k]: its first step, it becomes the gradient); false, "
     "doing nothing, for lists it does not handle. Example: "
     "optim_sgd_step_multi_([randn(3)], [ones(3)], [zeros(3)], [true], 0.1, 0.9, 0.0, 0.0, false)"},
};

}  // namespace

const BuiltinLibrary kOptimLibrary = {"optim", nullptr, kOptimBuiltins, nullptr};

}  // namespace nabla::interp
