#include "tensor/optim.hpp"

namespace nabla {

bool adam_step_supported(const Tensor& p, const Tensor& g, const Tensor& exp_avg, const Tensor& exp_avg_sq) {
  DType dt = p.dtype();
  if (dt != DType::f32 && dt != DType::f64) return false;
  for (const Tensor* t : {&p, &g, &exp_avg, &exp_avg_sq})
    if (t->dtype() != dt || !t->is_contiguous() || t->device() != p.device() || t->sizes() != p.sizes())
      return false;
  return true;
}

void adam_step_raw(const Tensor& p, const Tensor& g, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                   const AdamHyper& hyper) {
  NABLA_CHECK(adam_step_supported(p, g, exp_avg, exp_avg_sq),
              "adam_step: expects contiguous f32 or f64 tensors of one shape, dtype and device");
  if (p.device().kind == DeviceKind::cuda)
    cuda::adam_step(p, g, exp_avg, exp_avg_sq, hyper);
  else
    cpu::adam_step(p, g, exp_avg, exp_avg_sq, hyper);
  p.bump_version();
  exp_avg.bump_version();
  exp_avg_sq.bump_version();
}

// About 16 FLOPs per element, the square root counted as one.
double adam_step_flops(const Tensor& p) { return 16 * static_cast<double>(p.numel()); }

double adam_step_bytes(const Tensor& p) {
  return 7 * static_cast<double>(p.numel()) * static_cast<double>(dtype_size(p.dtype()));
}

}  // namespace nabla
