// More of PyTorch's functions, made of table ops (Note [Composites] in composites.hpp):
// polygamma's (n, input) argument order, rsub, logdet, trapezoid and trapz, and
// mse_loss with a target that broadcasts against its input. Each is a global function
// and a tensor method (op_conventions()). Also nan_gradient_at (composites.hpp), the
// NaN gradient that PyTorch's formulas give at a few points (Note [A NaN gradient as
// PyTorch's formula gives]). tests/stdlib/test_gaps_vs_torch6.dsl checks them against
// PyTorch (tests/stdlib/reference/make_vs_torch6.py).
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "autograd/ops.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "interp/builtins/composites/composites.hpp"

namespace nabla::interp {

// Note [A NaN gradient as PyTorch's formula gives]
// At some points PyTorch's backward formula divides 0 by 0 and hands NaN on, where a
// composite of rows would give 0 or a number: xlogy's gradient to y at x = y = 0
// (grad * x / y), amax's over a slice that holds NaN (the mask of the maximum is all
// false, and its count 0 divides), ctc_loss's to the log_probs of a sample whose loss
// is infinite. A user who compares gradients, or who relies on the NaN to find such a
// sample, sees PyTorch's. The term added for it has the gradient NaN exactly where
// `where_nan` holds and the value 0 where x is finite: sqrt(u) - sqrt(u) with u = 0
// there (x minus itself detached, so u depends on x) and 1 elsewhere, whose derivative
// is inf - inf there and 1/2 - 1/2 = 0 elsewhere. Where x is not finite (x - x is no
// zero) the term is x * NaN, whose value is NaN too: a caller whose value must stay
// leaves those places out of the mask (ctc_loss), or has NaN there anyway (amax).
Tensor nan_gradient_at(const Tensor& x, const Tensor& where_nan) {
  Tensor finite = lt(abs(x), number_like(std::numeric_limits<double>::infinity(), x));
  Tensor at = mul(where_nan, finite);
  Tensor u = where(at, x - detach_op(x), number_like(1.0, x));
  Tensor at_other = mul(where_nan, logical_not_of(finite));
  Tensor nan = number_like(std::numeric_limits<double>::quiet_NaN(), x);
  Tensor not_finite = where(at_other, x * where(at_other, nan, number_like(0.0, x)), number_like(0.0, x));
  return sqrt(u) - sqrt(u) + not_finite;
}

namespace {

using composite_args::fn_arg;

// polygamma's order, an int from 0 up, as torch.polygamma's n.
int64_t polygamma_order(const Value& v) {
  if (v.tag == Tag::Tensor)
    fail("polygamma(): argument 'n' must be an int, got a tensor (torch.polygamma(n, input) takes the order first)");
  const int64_t n = as_int(v, fn_arg("polygamma", "n"));
  if (n < 0)
    fail("polygamma(): argument 'n' must be 0 or more (the order of the derivative of digamma), got " +
         std::to_string(n));
  return n;
}
Tensor polygamma_of(const Tensor& x, int64_t n) {
  return polygamma(x, {{"n", static_cast<double>(n)}});
}

// torch.polygamma(n, input): the order first, as PyTorch's (the row takes input, n).
Value polygamma_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("polygamma", a, {"n", "input"}, 2);
  const int64_t n = polygamma_order(b[0]);
  return Value::tensor(polygamma_of(arg(b, 1, "polygamma", "input"), n));
}

// torch.rsub(input, other, alpha=1): other - alpha * input, through sub's conventions
// (a number operand, promotion, alpha's checks).
Value rsub_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("rsub", a, {"input", "other", "alpha"}, 2);
  if (b[0].tag != Tag::Tensor && b[1].tag != Tag::Tensor)
    fail(std::string("rsub(): argument 'input' or argument 'other' must be a tensor, got ") + type_name(b[0]) + " and " +
         type_name(b[1]));
  // Checked here, named as the user wrote them: through sub, rsub("a", x) was
  // "sub(): argument 'other' must be a tensor"
  const Tensor other = input_of(b[1], "rsub", "other");
  input_of(b[0], "rsub", "input");
  if (b.has(2)) check_alpha_kind(other, b[0], b[2], "rsub");
  CallArgs call;
  call.pos = {b[1], b[0]};
  if (b.has(2)) call.kw = {{"alpha", b[2]}};
  return op_functions().at("sub")(ev, call);
}

// torch.logdet: log(det(A)) of each square matrix; NaN for a negative determinant and
// -inf for a singular one, as PyTorch's (log of det's row, whose gradient is A^-T).
Value logdet_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("logdet", a, {"input"}, 1);
  Tensor A = arg(b, 0, "logdet", "input");
  if (A.dim() < 2 || A.sizes()[A.dim() - 1] != A.sizes()[A.dim() - 2])
    fail("logdet(): argument 'input' must be a batch of square matrices [*, n, n], got shape " + A.shape_str());
  if (!is_floating(A.dtype()))
    fail("logdet(): argument 'input' must be a floating tensor, got " + std::string(dtype_name(A.dtype())));
  // PyTorch's where(sign < 0, NaN, logabsdet): a negative determinant's gradient is 0
  Tensor d = det(A);
  return Value::tensor(where(lt(d, number_like(0.0, d)), number_like(std::numeric_limits<double>::quiet_NaN(), d), log(d)));
}

// The spacing argument of trapezoid: x (sample positions) as a tensor of y's rank
// whose diff along dim is each interval's width, as PyTorch's: a 1-D x holds one
// position per sample, a lower-rank x gets leading ones, else x broadcasts with y.
Tensor interval_widths(const Tensor& y, const Tensor& x, int64_t dim, const std::string& fname) {
  Tensor viewed = x;
  if (x.dim() == 1) {
    if (x.sizes()[0] != y.sizes()[dim])
      fail(fname + "(): there must be one x value for each sample point: x has " + std::to_string(x.sizes()[0]) +
           " but y has " + std::to_string(y.sizes()[dim]) + " along dim " + std::to_string(dim));
    IntList shape(static_cast<size_t>(y.dim()), 1);
    shape[static_cast<size_t>(dim)] = x.sizes()[0];
    viewed = reshape(x, shape);
  } else if (x.dim() < y.dim()) {
    IntList shape(static_cast<size_t>(y.dim() - x.dim()), 1);
    shape.insert(shape.end(), x.sizes().begin(), x.sizes().end());
    viewed = reshape(x, shape);
  } else if (x.dim() > y.dim()) {
    fail(fname + "(): argument 'x' of shape " + x.shape_str() + " has more dims than argument 'y' of shape " +
         y.shape_str());
  }
  const int64_t n = viewed.sizes()[dim];
  return slice(viewed, dim, 1, n) - slice(viewed, dim, 0, n - 1);
}

// torch.trapezoid(y, x=none, dx=none, dim=-1) and torch.trapz: the trapezoidal rule
// along dim, with sample positions x or a constant spacing dx (1 by default), in
// PyTorch's arithmetic (so the rounding agrees).
Value trapezoid_like(CallArgs& a, const char* fname) {
  Bound b = bind(fname, a, {"y", "x", "dx", "dim"}, 1);
  Tensor y = arg(b, 0, fname, "y");
  if (y.dim() == 0) fail(std::string(fname) + "(): argument 'y' must have at least one dim, got a 0-dim tensor");
  if (b.has(1) && b.has(2)) fail(std::string(fname) + "(): argument 'x' and argument 'dx' cannot both be given");
  const int64_t dim = composite_args::dim_arg(b, 3, y.dim(), fname, -1);
  if (!is_floating(y.dtype())) y = to_dtype(y, DType::f32);
  const int64_t n = y.sizes()[dim];
  if (n == 0) return Value::tensor(sum(y, {dim}));  // zeros of the reduced shape, as PyTorch's
  if (b.has(1) && b[1].tag != Tag::Tensor && !b[1].is_num())
    fail(fn_arg(fname, "x") + " must be a tensor, got " + type_name(b[1]));
  if (b.has(1) && b[1].tag == Tag::Tensor) {
    Tensor widths = interval_widths(y, b[1].t, dim, fname);
    return Value::tensor(sum(widths * (slice(y, dim, 1, n) + slice(y, dim, 0, n - 1)), {dim}) / 2.0);
  }
  const Value& spacing = b.has(2) ? b[2] : b[1];
  const double dx = b.has(2) || b.has(1) ? as_num(spacing, fn_arg(fname, b.has(2) ? "dx" : "x")) : 1.0;
  Tensor ends = (select(y, dim, 0) + select(y, dim, n - 1)) * 0.5;
  return Value::tensor((sum(y, {dim}) - ends) * dx);
}
Value trapezoid_builtin(Evaluator&, CallArgs& a) { return trapezoid_like(a, "trapezoid"); }
Value trapz_builtin(Evaluator&, CallArgs& a) { return trapezoid_like(a, "trapz"); }

// Note [mse_loss with a broadcasting target]
// PyTorch's mse_loss broadcasts a target whose shape differs from the input's, with a
// UserWarning that this is likely not what was meant; the row wants equal shapes. So
// both are expanded to the broadcast shape first (each gets its gradient summed back)
// and the warning is printed once per process, as Python shows a warning once.
Value mse_loss_builtin(Evaluator& ev, CallArgs& a) {
  CallArgs peek = a;
  Bound b = bind("mse_loss", peek, {"input", "target", "reduction"}, 2);
  if (b[0].tag != Tag::Tensor || b[1].tag != Tag::Tensor || b[0].t.sizes() == b[1].t.sizes())
    return row_call("mse_loss", a);
  const Tensor &x = b[0].t, &t = b[1].t;
  composite_args::check_broadcast("mse_loss", {{"input", x}, {"target", t}});
  static bool warned = false;
  if (!warned) {
    warned = true;
    std::string where = ev.current_span && ev.current_span->valid() ? ev.current_span->where() + ": " : "";
    if (ev.warning_output)
      ev.warning_output(where + "warning: mse_loss(): using a target of shape " + t.shape_str() +
                        " that differs from the input's shape " + x.shape_str() +
                        "; they broadcast together, which is likely not what you meant (PyTorch warns the same)\n");
  }
  IntList shape(static_cast<size_t>(std::max(x.dim(), t.dim())), 1);  // they broadcast (checked above)
  for (const Tensor* each : {&x, &t})
    for (int64_t k = 1; k <= each->dim(); ++k)
      if (each->sizes()[static_cast<size_t>(each->dim() - k)] != 1)
        shape[shape.size() - static_cast<size_t>(k)] = each->sizes()[static_cast<size_t>(each->dim() - k)];
  CallArgs call = a;
  auto replace = [&](size_t position, const char* name, const Tensor& value) {
    if (position < call.pos.size()) {
      call.pos[position] = Value::tensor(value);
      return;
    }
    for (auto& [k, v] : call.kw)
      if (k == name) v = Value::tensor(value);
  };
  replace(0, "input", expand(x, shape));
  replace(1, "target", expand(t, shape));
  return row_call("mse_loss", call);
}

const BuiltinEntry kCompositeTorchMore[] = {
    {"polygamma", polygamma_builtin, "polygamma(n, input)", nullptr},
    {"rsub", rsub_builtin, "rsub(input, other, alpha=1)",
     "other - alpha * input, as torch.rsub (sub with its operands swapped). Example: rsub(tensor([1.0, 2.0]), 5.0)"},
    {"logdet", logdet_builtin, "logdet(input)",
     "log(det(A)) of each square matrix, as torch.logdet: NaN where the determinant is negative, -inf where it is "
     "0. Example: logdet(eye(3) * 2.0)"},
    {"trapezoid", trapezoid_builtin, "trapezoid(y, x=none, dx=none, dim=-1)",
     "The trapezoidal rule along dim, with sample positions x (1-D, or broadcasting with y) or a constant spacing "
     "dx (1 when neither is given), as torch.trapezoid. Example: trapezoid(tensor([1.0, 2.0, 4.0]), dx=0.5)"},
    {"trapz", trapz_builtin, "trapz(y, x=none, dx=none, dim=-1)",
     "The trapezoidal rule along dim, as torch.trapz (trapezoid's older name). "
     "Example: trapz(tensor([1.0, 2.0, 4.0]), tensor([0.0, 1.0, 3.0]))"},
    {"mse_loss", mse_loss_builtin, "mse_loss(input, target, reduction=\"mean\")",
     nullptr},
};

}  // namespace

std::span<const BuiltinEntry> composite_torch_more() { return kCompositeTorchMore; }

// x.polygamma(n): the method keeps the tensor first (Tensor.polygamma(n)).
Value polygamma_method(Evaluator&, CallArgs& a) {
  Bound b = bind("polygamma", a, {"self", "n"}, 2);
  const int64_t n = polygamma_order(b[1]);
  return Value::tensor(polygamma_of(arg(b, 0, "polygamma", "self"), n));
}

}  // namespace nabla::interp
