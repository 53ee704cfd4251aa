// A fused Adam/AdamW update for the optim stdlib module (stdlib/optim.dsl): one pass
// over the elements, no temporaries. Registered by install_builtins as
// `optim_adam_step_`; returns false (and does nothing) for tensors it does not handle
// (not CPU, not contiguous, not one same f32/f64 dtype), and optim.dsl then takes its
// path written with tensor ops.
#include <cmath>

#include "autograd/profiler.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "tensor/origin.hpp"

namespace nabla::interp {

namespace {

template <class T>
void adam_kernel(const Tensor& p, const Tensor& g, const Tensor& m, const Tensor& v, double lr, double beta1,
                 double beta2, double eps, double wd, bool decoupled, double step_size, double bc2_sqrt) {
  T* pd = p.data<T>();
  const T* gd = g.data<T>();
  T* md = m.data<T>();
  T* vd = v.data<T>();
  const T b1 = static_cast<T>(beta1), b2 = static_cast<T>(beta2);
  const T one_b1 = static_cast<T>(1 - beta1), one_b2 = static_cast<T>(1 - beta2);
  const T e = static_cast<T>(eps), ss = static_cast<T>(step_size), bc = static_cast<T>(bc2_sqrt);
  const T l2 = decoupled ? T(0) : static_cast<T>(wd);
  const T shrink = static_cast<T>(decoupled ? 1 - lr * wd : 1);
  const int64_t n = p.numel();
  for (int64_t i = 0; i < n; ++i) {
    T pi = pd[i] * shrink;
    T gi = gd[i] + l2 * pd[i];
    T mi = md[i] * b1 + gi * one_b1;
    T vi = vd[i] * b2 + gi * gi * one_b2;
    md[i] = mi;
    vd[i] = vi;
    pd[i] = pi - ss * (mi / (std::sqrt(vi) / bc + e));
  }
}

// The profiler's row for one fused step: about 16 FLOPs per element (the sqrt as
// one), p, g, m and v read and p, m and v written.
void record_adam_step(Profiler& profiler, const Tensor& p, int64_t start_ns) {
  double n = static_cast<double>(p.numel());
  double bytes = 7 * n * static_cast<double>(dtype_size(p.dtype()));
  profiler.record_native_op("adam_step", current_origin(), {p}, start_ns, profiler.now_ns(), 16 * n, bytes);
}

// optim_adam_step_(p, g, exp_avg, exp_avg_sq, lr, beta1, beta2, eps, step, weight_decay, decoupled)
Value adam_step(Evaluator&, CallArgs& a) {
  Bound b =
      bind("optim_adam_step_", a,
           {"p", "g", "exp_avg", "exp_avg_sq", "lr", "beta1", "beta2", "eps", "step", "weight_decay", "decoupled"}, 11);
  const std::string f = "optim_adam_step_()";
  const Tensor& p = as_tensor(b[0], f);
  const Tensor& g = as_tensor(b[1], f);
  const Tensor& m = as_tensor(b[2], f);
  const Tensor& v = as_tensor(b[3], f);
  DType dt = p.dtype();
  for (const Tensor* t : {&p, &g, &m, &v}) {
    if (t->dtype() != dt || (dt != DType::f32 && dt != DType::f64) || !t->is_contiguous() ||
        t->device().kind != DeviceKind::cpu || t->numel() != p.numel() || t->sizes() != p.sizes())
      return Value::boolean(false);
  }
  double lr = as_num(b[4], f), beta1 = as_num(b[5], f), beta2 = as_num(b[6], f), eps = as_num(b[7], f);
  double step = as_num(b[8], f), wd = as_num(b[9], f);
  bool decoupled = as_bool(b[10], f);
  Profiler* profiler = active_profiler();
  int64_t start = profiler ? profiler->now_ns() : 0;
  double step_size = lr / (1 - std::pow(beta1, step));
  double bc2_sqrt = std::sqrt(1 - std::pow(beta2, step));
  if (dt == DType::f32)
    adam_kernel<float>(p, g, m, v, lr, beta1, beta2, eps, wd, decoupled, step_size, bc2_sqrt);
  else
    adam_kernel<double>(p, g, m, v, lr, beta1, beta2, eps, wd, decoupled, step_size, bc2_sqrt);
  p.bump_version();
  m.bump_version();
  v.bump_version();
  if (profiler) record_adam_step(*profiler, p, start);
  return Value::boolean(true);
}

const BuiltinEntry kOptimBuiltins[] = {
    {"optim_adam_step_", adam_step,
     "optim_adam_step_(p, g, exp_avg, exp_avg_sq, lr, beta1, beta2, eps, step, weight_decay, decoupled)",
     "One fused Adam (AdamW when decoupled) update of p in place; false, doing nothing, for tensors it does not "
     "handle. Example: optim_adam_step_(p, p.grad, m, v, 1e-3, 0.9, 0.999, 1e-8, 1, 0.0, false)"},
};

}  // namespace

const BuiltinLibrary kOptimLibrary = {"optim", nullptr, kOptimBuiltins, nullptr};

}  // namespace nabla::interp
