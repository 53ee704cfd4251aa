#include "tensor/optim.hpp"

#include "tensor/cpu/copy.hpp"

namespace nabla {

bool adam_step_supported(const Tensor& p, const Tensor& g, const Tensor& exp_avg, const Tensor& exp_avg_sq) {
  for (const Tensor* t : {&p, &g, &exp_avg, &exp_avg_sq})
    if (!t->defined()) return false;
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

namespace {
// A multi-tensor kernel runs one dtype on one device: every parameter has p[0]'s.
bool one_dtype_and_device(const TensorList& p) {
  for (const Tensor& t : p)
    if (t.dtype() != p[0].dtype() || t.device() != p[0].device()) return false;
  return true;
}
}  // namespace

bool adam_step_multi_supported(const AdamMultiArgs& args) {
  size_t n = args.p.size();
  if (args.g.size() != n || args.exp_avg.size() != n || args.exp_avg_sq.size() != n || args.steps.size() != n)
    return false;
  for (size_t k = 0; k < n; ++k)
    if (!adam_step_supported(args.p[k], args.g[k], args.exp_avg[k], args.exp_avg_sq[k])) return false;
  return one_dtype_and_device(args.p);
}

void adam_step_multi_raw(const AdamMultiArgs& args, const AdamHyper& hyper) {
  NABLA_CHECK(adam_step_multi_supported(args),
              "adam_step_multi: expects lists of one length of contiguous f32 or f64 tensors, each parameter with "
              "its gradient and state of its shape, all of one dtype and device");
  if (args.p.empty()) return;
  if (args.p[0].device().kind == DeviceKind::cuda)
    cuda::adam_step_multi(args, hyper);
  else
    cpu::adam_step_multi(args, hyper);
  for (size_t k = 0; k < args.p.size(); ++k) {
    args.p[k].bump_version();
    args.exp_avg[k].bump_version();
    args.exp_avg_sq[k].bump_version();
  }
}

namespace {
double total_elements(const TensorList& p) {
  double n = 0;
  for (const Tensor& t : p) n += static_cast<double>(t.numel());
  return n;
}
}  // namespace

// The per-parameter figures summed; the list is of one dtype (adam_step_multi_supported).
double adam_step_multi_flops(const TensorList& p) { return 16 * total_elements(p); }

double adam_step_multi_bytes(const TensorList& p) {
  return p.empty() ? 0 : 7 * total_elements(p) * static_cast<double>(dtype_size(p[0].dtype()));
}

bool sgd_step_multi_supported(const SgdMultiArgs& args, const SgdHyper& hyper) {
  size_t n = args.p.size();
  bool momentum = hyper.momentum != 0;
  if (args.g.size() != n || (momentum && (args.momentum_buffer.size() != n || args.fresh.size() != n))) return false;
  for (size_t k = 0; k < n; ++k) {
    const Tensor& buf = momentum ? args.momentum_buffer[k] : args.g[k];
    if (!adam_step_supported(args.p[k], args.g[k], buf, buf)) return false;  // the same conditions
  }
  return one_dtype_and_device(args.p);
}

void sgd_step_multi_raw(const SgdMultiArgs& args, const SgdHyper& hyper) {
  NABLA_CHECK(sgd_step_multi_supported(args, hyper),
              "sgd_step_multi: expects lists of one length of contiguous f32 or f64 tensors, each parameter with "
              "its gradient (and momentum buffer) of its shape, all of one dtype and device");
  if (args.p.empty()) return;
  if (args.p[0].device().kind == DeviceKind::cuda)
    cuda::sgd_step_multi(args, hyper);
  else
    cpu::sgd_step_multi(args, hyper);
  for (size_t k = 0; k < args.p.size(); ++k) {
    args.p[k].bump_version();
    if (hyper.momentum != 0) args.momentum_buffer[k].bump_version();
  }
}

double sgd_step_multi_flops(const TensorList& p) { return 6 * total_elements(p); }

double sgd_step_multi_bytes(const TensorList& p, const SgdHyper& hyper) {
  double per_element = hyper.momentum != 0 ? 5 : 3;
  return p.empty() ? 0 : per_element * total_elements(p) * static_cast<double>(dtype_size(p[0].dtype()));
}

// About 16 FLOPs per element, the square root counted as one.
double adam_step_flops(const Tensor& p) { return 16 * static_cast<double>(p.numel()); }

double adam_step_bytes(const Tensor& p) {
  return 7 * static_cast<double>(p.numel()) * static_cast<double>(dtype_size(p.dtype()));
}


bool optimizer_rows_supported(const OptimizerRows& rows, bool adam) {
  const size_t n = rows.p.size();
  if (n == 0 || rows.g.size() != n || rows.state.size() != n || rows.step.size() != n) return false;
  if (adam && rows.state2.size() != n) return false;
  const bool momentum = rows.state[0].defined();
  for (size_t k = 0; k < n; ++k) {
    TensorList like = {rows.p[k], rows.g[k]};
    if (adam || momentum) like.push_back(rows.state[k]);
    if (adam) like.push_back(rows.state2[k]);
    for (const Tensor& t : like)
      if (!t.defined() || !t.is_contiguous() || t.dtype() != rows.p[0].dtype() || t.device() != rows.p[0].device() ||
          !(t.sizes() == rows.p[k].sizes()))
        return false;
    if (!adam && rows.state[k].defined() != momentum) return false;  // one group: all with a buffer or none
    const Tensor& s = rows.step[k];
    if ((adam || momentum) && (!s.defined() || s.dtype() != DType::f64 || s.device() != rows.p[0].device()))
      return false;
  }
  DType dt = rows.p[0].dtype();
  return (dt == DType::f32 || dt == DType::f64) && rows.hyper.dtype() == DType::f64 && rows.hyper.is_contiguous() &&
         rows.hyper.device() == rows.p[0].device() &&
         (!rows.found_inf.defined() || (rows.found_inf.dtype() == DType::f32 && rows.found_inf.device() == rows.p[0].device()));
}

namespace {
void bump_versions(const OptimizerRows& rows) {
  for (size_t k = 0; k < rows.p.size(); ++k)
    for (const Tensor* t : {&rows.p[k], &rows.state[k], &rows.step[k]})
      if (t->defined()) t->bump_version();
  for (const Tensor& t : rows.state2) t.bump_version();
}
}  // namespace

void adam_rows_raw(const OptimizerRows& rows) {
  NABLA_CHECK(optimizer_rows_supported(rows, true), "adam_rows: tensors one kernel cannot take");
  if (rows.p[0].device().kind == DeviceKind::cuda)
    cuda::adam_rows(rows);
  else
    cpu::adam_rows(rows);
  bump_versions(rows);
}

void sgd_rows_raw(const OptimizerRows& rows) {
  NABLA_CHECK(optimizer_rows_supported(rows, false), "sgd_rows: tensors one kernel cannot take");
  if (rows.p[0].device().kind == DeviceKind::cuda)
    cuda::sgd_rows(rows);
  else
    cpu::sgd_rows(rows);
  bump_versions(rows);
}

namespace {
// A strided written tensor gets its contiguous copy's values back (and a new version).
void write_back(const Tensor& written, const Tensor& dense) {
  if (dense.is_same(written)) return;
  copy_into(written, dense);
  written.bump_version();
}
}  // namespace

// in: param, grad, exp_avg, exp_avg_sq, step, hyper, found_inf
void adam_step_row(const TensorList& in, bool decoupled) {
  OptimizerRows rows{{contiguous_raw(in[0])}, {contiguous_raw(in[1])}, {contiguous_raw(in[2])},
                     {contiguous_raw(in[3])},  {in[4]},                  contiguous_raw(in[5]),
                     in[6],                    decoupled};
  adam_rows_raw(rows);
  write_back(in[0], rows.p[0]);
  write_back(in[2], rows.state[0]);
  write_back(in[3], rows.state2[0]);
}

// in: param, grad, momentum_buffer, step, hyper, found_inf
void sgd_step_row(const TensorList& in, bool nesterov) {
  OptimizerRows rows{{contiguous_raw(in[0])}, {contiguous_raw(in[1])}, {in[2].defined() ? contiguous_raw(in[2]) : Tensor()},
                     {},                       {in[3]},                  contiguous_raw(in[4]),
                     in[5],                    nesterov};
  sgd_rows_raw(rows);
  write_back(in[0], rows.p[0]);
  if (in[2].defined()) write_back(in[2], rows.state[0]);
}

}  // namespace nabla
