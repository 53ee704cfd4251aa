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

}  // namespace nabla
