// Rows of the optimizer steps: adam_step_ and sgd_step_, one parameter's update
// written in place (PyTorch's _fused_adam_ / _fused_sgd_ with capturable state). They
// are what a compiled training step with its optimizer inside runs (Note [The
// optimizer inside the graph] in interp/builtins/graph_step.cpp), and they differ from
// the fused builtins optim.dsl calls eagerly (interp/builtins/builtins_optim.cpp) in
// one way: the step count, the hyperparameters (`hyper`: lr, betas, eps, weight decay,
// momentum, dampening) and the GradScaler's found_inf are tensors on the parameter's
// device, read by the kernel, not numbers baked into the call. A replayed CUDA graph
// therefore steps with the current count and the values a scheduler set (lr, and the
// momentum or beta1 OneCycleLR cycles), and skips a step with Inf or NaN without the
// host looking at found_inf.
//
// Note [Rows that write their inputs]
// These rows have no outputs: they write their inputs (OpDef::updated_inputs), as a
// training batch_norm writes its running statistics. The graph passes see the writes
// (graph/rewrite.hpp's written_inputs), a capture keeps what they overwrite and puts
// it back after capturing (Note [Capturing writes] in graph/capture.cpp), and the op
// sweep checks the written inputs against PyTorch's ("updated" in a case). Written
// inputs must be f32 or f64 and on the parameter's device: a converted or moved copy
// would take the write and be dropped. The kernels write strided ones through a
// contiguous copy.
#include <cmath>

#include "autograd/cost.hpp"
#include "autograd/ops/common.hpp"
#include "tensor/optim.hpp"

namespace nabla {

namespace {

std::string arg_text(const char* op, const char* arg) { return std::string(op) + ": argument '" + arg + "'"; }

// A parameter-shaped operand: same shape, dtype and device as the parameter.
void check_like_param(const char* op, const char* arg, const Tensor& t, const Tensor& param) {
  if (!(t.sizes() == param.sizes()))
    throw Error(arg_text(op, arg) + " has shape " + t.shape_str() + " but the parameter has shape " +
                param.shape_str());
  if (t.dtype() != param.dtype())
    throw Error(arg_text(op, arg) + " is " + dtype_name(t.dtype()) + " but the parameter is " +
                dtype_name(param.dtype()));
  if (t.device() != param.device())
    throw Error(arg_text(op, arg) + " is on " + t.device().str() + " but the parameter is on " +
                param.device().str());
}

// A tensor of `dtype` and `numel` values (0: a 0-dim one) on the parameter's device
// (step, hyper, found_inf).
void check_scalar(const char* op, const char* arg, const Tensor& t, DType dtype, const Tensor& param, int64_t numel = 0) {
  if (!t.defined()) return;
  bool shaped = numel == 0 ? t.dim() == 0 : t.dim() == 1 && t.numel() == numel;
  if (!shaped || t.dtype() != dtype)
    throw Error(arg_text(op, arg) + " must be " +
                (numel == 0 ? std::string("a 0-dim ") : "a 1-D " + std::to_string(numel) + "-value ") +
                dtype_name(dtype) + " tensor, got " + dtype_name(t.dtype()) + t.shape_str());
  if (t.device() != param.device())
    throw Error(arg_text(op, arg) + " is on " + t.device().str() + " but the parameter is on " +
                param.device().str() + " (it must live beside the parameter: a copy would take the update)");
}

void check_param(const char* op, const Tensor& param) {
  if (param.dtype() != DType::f32 && param.dtype() != DType::f64)
    throw Error(arg_text(op, "param") + " must be f32 or f64, got " + dtype_name(param.dtype()));
}

// adam_step_(param, grad, exp_avg, exp_avg_sq, step, hyper, found_inf; decoupled), hyper
// [lr, beta1, beta2, eps, weight_decay]
std::vector<TensorMeta> infer_adam_step(const TensorList& in, const Attrs& a) {
  const char* op = "adam_step_";
  const Tensor& param = in[0];
  check_param(op, param);
  const char* names[] = {"grad", "exp_avg", "exp_avg_sq"};
  for (size_t k = 1; k <= 3; ++k) check_like_param(op, names[k - 1], in[k], param);
  check_scalar(op, "step", in[4], DType::f64, param);
  check_scalar(op, "hyper", in[5], DType::f64, param, kAdamHyperValues);
  check_scalar(op, "found_inf", in[6], DType::f32, param);
  return {};
}

// sgd_step_(param, grad, momentum_buffer, step, hyper, found_inf; nesterov), hyper [lr,
// momentum, dampening, weight_decay]; with a momentum_buffer (and its step count) the
// step uses momentum, without one it does not (PyTorch's momentum=0).
std::vector<TensorMeta> infer_sgd_step(const TensorList& in, const Attrs& a) {
  const char* op = "sgd_step_";
  const Tensor& param = in[0];
  check_param(op, param);
  check_like_param(op, "grad", in[1], param);
  if (in[2].defined() != in[3].defined())
    throw Error("sgd_step_: momentum_buffer and step go together (step 0: the buffer takes the first gradient); "
                "give both for momentum, neither without");
  if (in[2].defined()) check_like_param(op, "momentum_buffer", in[2], param);
  check_scalar(op, "step", in[3], DType::f64, param);
  check_scalar(op, "hyper", in[4], DType::f64, param, kSgdHyperValues);
  check_scalar(op, "found_inf", in[5], DType::f32, param);
  return {};
}

// Each element of the parameter: read and written with its state (adam: p, m, v
// written, g read; sgd: p and the buffer written, g read), the FLOPs of the update.
OpCost cost_adam_step(const TensorList& in, const Attrs&, const TensorList&) {
  double n = static_cast<double>(in[0].numel());
  return {12 * n, 7 * n * static_cast<double>(dtype_size(in[0].dtype()))};
}
OpCost cost_sgd_step(const TensorList& in, const Attrs&, const TensorList&) {
  double n = static_cast<double>(in[0].numel());
  double moved = in[2].defined() ? 5 : 3;
  return {6 * n, moved * n * static_cast<double>(dtype_size(in[0].dtype()))};
}

AttrSpec flag(const char* name, bool v) { return attr_optional(name, AttrKind::boolean, v); }

}  // namespace

void register_optim_ops(std::vector<OpDef>& t) {
  row(t, OpId::adam_step_) = {.num_inputs = 7,
                              .num_outputs = 0,
                              .attrs = {flag("decoupled", false)},
                              .infer = infer_adam_step,
                              .cpu = cpu::adam_step_,
                              .half_native = true,  // f32/f64 only: a converted copy would drop the write
                              .optional_inputs = 1u << 6,
                              .updated_inputs = 0b11101,  // param, exp_avg, exp_avg_sq, step
                              .cost = cost_adam_step};
  row(t, OpId::sgd_step_) = {.num_inputs = 6,
                             .num_outputs = 0,
                             .attrs = {flag("nesterov", false)},
                             .infer = infer_sgd_step,
                             .cpu = cpu::sgd_step_,
                             .half_native = true,
                             .optional_inputs = 0b101100,  // momentum_buffer, step, found_inf
                             .updated_inputs = 0b1101,     // param, momentum_buffer, step
                             .cost = cost_sgd_step};
  name_inputs(t, {{OpId::adam_step_, {"param", "grad", "exp_avg", "exp_avg_sq", "step", "hyper", "found_inf"}},
                  {OpId::sgd_step_, {"param", "grad", "momentum_buffer", "step", "hyper", "found_inf"}}});
  document_ops(
      t, {{OpId::adam_step_,
           "One Adam step of param in place (AdamW's decoupled weight decay with decoupled=true), as "
           "torch.optim.Adam's capturable step: step (a 0-dim f64 count) is advanced first and read by the kernel with "
           "hyper (f64 [lr, beta1, beta2, eps, weight_decay]); exp_avg and exp_avg_sq are updated; a nonzero "
           "found_inf (0-dim f32) skips it all. Example: adam_step_(zeros(3), ones(3), zeros(3), zeros(3), "
           "tensor(0.0, dtype=f64), tensor([0.1, 0.9, 0.999, 1e-8, 0.0], dtype=f64))"},
          {OpId::sgd_step_,
           "One SGD step of param in place, as torch.optim.SGD's, with hyper (f64 [lr, momentum, dampening, "
           "weight_decay]) read by the kernel: given a momentum_buffer, it takes the first gradient when step (a 0-dim "
           "f64 count, then advanced) is 0; a nonzero found_inf (0-dim f32) skips it all. "
           "Example: sgd_step_(zeros(3), ones(3), none, none, tensor([0.1, 0.0, 0.0, 0.0], dtype=f64))"}});
}

}  // namespace nabla
