#include "autograd/optim_step.hpp"

#include "autograd/profiler.hpp"

namespace nabla {

bool adam_step_(const Tensor& p, const Tensor& g, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                const AdamHyper& hyper) {
  if (!adam_step_supported(p, g, exp_avg, exp_avg_sq)) return false;
  run_native_kernel("adam_step", {p, g, exp_avg, exp_avg_sq}, {p, exp_avg, exp_avg_sq}, adam_step_flops(p),
                    adam_step_bytes(p), [&] { adam_step_raw(p, g, exp_avg, exp_avg_sq, hyper); });
  return true;
}

bool adam_step_multi_(const AdamMultiArgs& args, const AdamHyper& hyper) {
  if (!adam_step_multi_supported(args)) return false;
  TensorList inputs = args.p, outputs = args.p;
  for (const TensorList* list : {&args.g, &args.exp_avg, &args.exp_avg_sq})
    inputs.insert(inputs.end(), list->begin(), list->end());
  for (const TensorList* list : {&args.exp_avg, &args.exp_avg_sq})
    outputs.insert(outputs.end(), list->begin(), list->end());
  run_native_kernel("adam_step_multi", inputs, outputs, adam_step_multi_flops(args.p),
                    adam_step_multi_bytes(args.p), [&] { adam_step_multi_raw(args, hyper); });
  return true;
}

bool sgd_step_multi_(const SgdMultiArgs& args, const SgdHyper& hyper) {
  if (!sgd_step_multi_supported(args, hyper)) return false;
  bool momentum = hyper.momentum != 0;
  TensorList inputs = args.p, outputs = args.p;
  inputs.insert(inputs.end(), args.g.begin(), args.g.end());
  if (momentum) {
    inputs.insert(inputs.end(), args.momentum_buffer.begin(), args.momentum_buffer.end());
    outputs.insert(outputs.end(), args.momentum_buffer.begin(), args.momentum_buffer.end());
  }
  run_native_kernel("sgd_step_multi", inputs, outputs, sgd_step_multi_flops(args.p),
                    sgd_step_multi_bytes(args.p, hyper), [&] { sgd_step_multi_raw(args, hyper); });
  return true;
}

}  // namespace nabla
