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

}  // namespace nabla
