// Composite functions of PyTorch's math API, made of table ops (Note [Composites] in
// composites.hpp): clip, xlogy, sinc, hypot, signbit, float_power, fmax, fmin, nansum,
// nanmean, copysign, logaddexp2, deg2rad, rad2deg, kron, mv, inner, ger, cross, cov,
// corrcoef, renorm and bernoulli, each a global function and a tensor method
// (op_conventions()) with an in-place x.op_() (clip_, ...); and the methods PyTorch has
// only on tensors (composite_methods(): sum_to_size, dist, whose global name is the
// `dist` module's, and the random fills normal_, uniform_, exponential_, log_normal_,
// cauchy_, geometric_, random_ and bernoulli_, drawn on the CPU from manual_seed's
// generator, as rand is).
// tests/stdlib/test_tensor_extra.dsl checks them against PyTorch in f64.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "autograd/ops.hpp"
#include "autograd/trace.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "interp/builtins/composites/composites.hpp"
#include "tensor/random.hpp"

namespace nabla::interp {

namespace {

constexpr double kPi = 3.14159265358979323846;

using composite_args::dim_in;
using composite_args::fn_arg;
using composite_args::ints_str;
using composite_args::shape_of;

IntList dims_arg(const Bound& b, size_t k, const Tensor& x, const std::string& fname) {
  if (!b.has(k)) return {};
  IntList dims = b[k].tag == Tag::Int ? IntList{b[k].i} : as_ints(b[k], fn_arg(fname, "dim"));
  for (int64_t& d : dims) d = dim_in(d, x.dim(), fname);
  return dims;
}

// The default float dtype for integer inputs of a function whose result is floating.
DType floating_of(DType d) { return is_floating(d) ? d : DType::f32; }

Tensor as_floating(const Tensor& x) { return is_floating(x.dtype()) ? x : to_dtype(x, DType::f32); }

// Two operands of an elementwise function, either (not both) a number, in one dtype:
// the tensors' promoted dtype (a number does not widen it), made floating when
// `floating` (f32 for integers), as PyTorch's.
// `as`, when given, is the dtype both are converted to directly (float_power's f64: a
// detour through their f32 lost digits).
std::pair<Tensor, Tensor> operands(const Bound& b, size_t i, size_t j, const std::string& fname, const char* ni,
                                   const char* nj, bool floating, std::optional<DType> as = std::nullopt) {
  const bool ti = b[i].tag == Tag::Tensor, tj = b[j].tag == Tag::Tensor;
  if (!ti && !tj)
    fail(fname + "(): argument '" + ni + "' or argument '" + nj + "' must be a tensor, got " + type_name(b[i]) + " and " +
         type_name(b[j]));
  // result_type, not promote_types: a 0-dim tensor does not widen a dimensioned one of
  // its kind (xlogy of an f32 tensor and a 0-dim f64 one is f32, as PyTorch's; it was f64)
  DType dt = ti && tj ? result_type({b[i].t, b[j].t}) : ti ? b[i].t.dtype() : b[j].t.dtype();
  if (!ti && b[i].tag == Tag::Float && !is_floating(dt)) dt = DType::f32;
  if (!tj && b[j].tag == Tag::Float && !is_floating(dt)) dt = DType::f32;
  if (floating) dt = floating_of(dt);
  if (as) dt = *as;
  auto one = [&](size_t k, const char* name) {
    if (b[k].tag == Tag::Tensor) return to_dtype(b[k].t, dt);
    return scalar_tensor(as_num(b[k], fn_arg(fname, name)), dt);
  };
  return {one(i, ni), one(j, nj)};
}

Tensor zero_like_dtype(const Tensor& x) { return number_like(0.0, x); }
Tensor is_nan(const Tensor& x) { return ne(x, x); }

// ---- elementwise -----------------------------------------------------------------------

// torch.xlogy: x * log(y), 0 where x is 0 (unless y is NaN).
Value xlogy_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("xlogy", a, {"input", "other"}, 2);
  auto [x, y] = operands(b, 0, 1, "xlogy", "input", "other", true);
  // Where x is 0 and y is not positive, log(y) would make 0 * -inf (or NaN): y reads 1
  // there, so the value and input's gradient are 0, as PyTorch's; a NaN y stays NaN.
  Tensor zero = eq(x, zero_like_dtype(x));
  Tensor bad = where(zero, le(y, zero_like_dtype(y)), zero);
  // y's gradient x / y is 0 / 0 = NaN at x = y = 0 in PyTorch's formula (Note [A NaN
  // gradient as PyTorch's formula gives]); it was 0.
  Tensor both_zero = mul(zero, eq(y, zero_like_dtype(y)));
  return Value::tensor(x * log(where(bad, number_like(1.0, y), y)) + nan_gradient_at(y, both_zero));
}

// torch.sinc: sin(pi x) / (pi x), 1 at 0.
Value sinc_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("sinc", a, {"input"}, 1);
  Tensor x = as_floating(arg(b, 0, "sinc", "input"));
  Tensor zero = eq(x, zero_like_dtype(x));
  Tensor px = where(zero, number_like(1.0, x), x) * kPi;
  return Value::tensor(where(zero, number_like(1.0, x), sin(px) / px));
}

Value hypot_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("hypot", a, {"input", "other"}, 2);
  Tensor x = arg(b, 0, "hypot", "input"), y = arg(b, 1, "hypot", "other");
  if (!is_floating(x.dtype()) || !is_floating(y.dtype()))
    fail("hypot(): argument 'input' and argument 'other' must be floating tensors, got " + std::string(dtype_name(x.dtype())) +
         " and " + dtype_name(y.dtype()));
  return Value::tensor(sqrt(x * x + y * y));
}

// Where the sign bit is set (negative numbers and -0.0), bool.
Tensor signbit_of(const Tensor& x) {
  if (x.dtype() == DType::b8) return ne(x, x);
  Tensor neg = lt(x, zero_like_dtype(x));
  if (!is_floating(x.dtype())) return neg;
  Tensor at_zero = eq(x, zero_like_dtype(x));
  Tensor negative_zero = where(at_zero, lt(1.0 / x, zero_like_dtype(x)), at_zero);
  return where(neg, neg, negative_zero);
}

Value signbit_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("signbit", a, {"input"}, 1);
  return Value::tensor(signbit_of(detach(arg(b, 0, "signbit", "input"))));
}

// torch.float_power: pow in f64.
Value float_power_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("float_power", a, {"input", "exponent"}, 2);
  auto [x, e] = operands(b, 0, 1, "float_power", "input", "exponent", true, DType::f64);
  return Value::tensor(pow(x, e));
}

// fmax / fmin: the larger (smaller) of the two, a NaN only where both are; the
// gradient of a tie goes to input, as PyTorch's.
Value fmax_fmin(CallArgs& a, const char* fname, bool is_max) {
  Bound b = bind(fname, a, {"input", "other"}, 2);
  Tensor x0 = arg(b, 0, fname, "input"), y0 = arg(b, 1, fname, "other");
  const DType dt = result_type({x0, y0});  // a 0-dim f64 other keeps an f32 input f32, as PyTorch's
  Tensor x = to_dtype(x0, dt), y = to_dtype(y0, dt);
  Tensor keep = is_max ? ge(x, y) : le(x, y);
  if (is_floating(dt)) keep = where(keep, keep, is_nan(y));
  return Value::tensor(where(keep, x, y));
}
Value fmax_builtin(Evaluator&, CallArgs& a) { return fmax_fmin(a, "fmax", true); }
Value fmin_builtin(Evaluator&, CallArgs& a) { return fmax_fmin(a, "fmin", false); }

// nansum / nanmean: NaNs count as 0 (nanmean: and are left out of the count).
Value nan_reduction(CallArgs& a, const char* fname, bool is_mean) {
  Bound b = bind(fname, a, {"input", "dim", "keepdim", "dtype"}, 1);
  Tensor x = arg(b, 0, fname, "input");
  if (b.has(3)) x = to_dtype(x, as_dtype(b[3], fn_arg(fname, "dtype")));
  if (is_mean && !is_floating(x.dtype()))
    fail(std::string(fname) + "(): argument 'input' must be a floating tensor, got " + dtype_name(x.dtype()) +
         " (give dtype=f32 to convert it)");
  IntList dims = dims_arg(b, 1, x, fname);
  const bool keep = b.has(2) && as_bool(b[2], fn_arg(fname, "keepdim"));
  if (!is_floating(x.dtype())) return Value::tensor(sum(x, dims, keep));
  Tensor nan = is_nan(x);
  Tensor total = sum(where(nan, zero_like_dtype(x), x), dims, keep);
  if (!is_mean) return Value::tensor(total);
  return Value::tensor(total / sum(to_dtype(logical_not_of(nan), x.dtype()), dims, keep));
}
Value nansum_builtin(Evaluator&, CallArgs& a) { return nan_reduction(a, "nansum", false); }
Value nanmean_builtin(Evaluator&, CallArgs& a) { return nan_reduction(a, "nanmean", true); }

// torch.copysign: |input| with other's sign bit. zero_selected_from(other) promotes
// the result to other's dtype and gives other PyTorch's zero gradient (a constant zero
// left other.grad none).
Value copysign_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("copysign", a, {"input", "other"}, 2);
  auto [x, y] = operands(b, 0, 1, "copysign", "input", "other", true);
  Tensor m = abs(x);
  return Value::tensor(where(signbit_of(detach(y)), -m, m) - zero_selected_from(y));
}

// log2(2^x + 2^y) through logaddexp.
Value logaddexp2_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("logaddexp2", a, {"input", "other"}, 2);
  auto [x, y] = operands(b, 0, 1, "logaddexp2", "input", "other", true);
  const double ln2 = std::log(2.0);
  return Value::tensor(logaddexp(x * ln2, y * ln2) * (1.0 / ln2));
}

Value deg2rad_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("deg2rad", a, {"input"}, 1);
  return Value::tensor(as_floating(arg(b, 0, "deg2rad", "input")) * (kPi / 180.0));
}
Value rad2deg_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("rad2deg", a, {"input"}, 1);
  return Value::tensor(as_floating(arg(b, 0, "rad2deg", "input")) * (180.0 / kPi));
}

// ---- products ------------------------------------------------------------------------

// torch.kron: the Kronecker product (the shorter shape padded with leading 1s).
Value kron_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("kron", a, {"input", "other"}, 2);
  Tensor x = arg(b, 0, "kron", "input"), y = arg(b, 1, "kron", "other");
  const int64_t n = std::max(x.dim(), y.dim());
  IntList xs = shape_of(x), ys = shape_of(y);
  while (static_cast<int64_t>(xs.size()) < n) xs.insert(xs.begin(), 1);
  while (static_cast<int64_t>(ys.size()) < n) ys.insert(ys.begin(), 1);
  IntList xv, yv, out;
  for (int64_t d = 0; d < n; ++d) {
    const size_t k = static_cast<size_t>(d);
    xv.insert(xv.end(), {xs[k], 1});
    yv.insert(yv.end(), {1, ys[k]});
    out.push_back(xs[k] * ys[k]);
  }
  return Value::tensor(reshape(reshape(x, xv) * reshape(y, yv), out));
}

Value mv_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("mv", a, {"input", "vec"}, 2);
  Tensor m = arg(b, 0, "mv", "input"), v = arg(b, 1, "mv", "vec");
  if (m.dim() != 2) fail("mv(): argument 'input' must be a 2-D matrix, got shape " + m.shape_str());
  if (v.dim() != 1) fail("mv(): argument 'vec' must be 1-D, got shape " + v.shape_str());
  if (m.sizes()[1] != v.sizes()[0])
    fail("mv(): argument 'input' " + m.shape_str() + " and argument 'vec' " + v.shape_str() + " do not match (" +
         std::to_string(m.sizes()[1]) + " columns, " + std::to_string(v.sizes()[0]) + " elements)");
  if (m.dtype() != v.dtype())
    fail("mv(): argument 'input' and argument 'vec' must have the same dtype, got " + std::string(dtype_name(m.dtype())) +
         " and " + dtype_name(v.dtype()));
  return Value::tensor(matmul(m, v));
}

// torch.inner: sums over the last dims; a 0-dim operand multiplies.
Value inner_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("inner", a, {"input", "other"}, 2);
  Tensor x = arg(b, 0, "inner", "input"), y = arg(b, 1, "inner", "other");
  if (x.dim() == 0 || y.dim() == 0) return Value::tensor(x * y);
  const int64_t k = x.sizes()[x.dim() - 1];
  if (y.sizes()[y.dim() - 1] != k)
    fail("inner(): the last dims of argument 'input' " + x.shape_str() + " and argument 'other' " + y.shape_str() +
         " must match");
  if (x.dtype() != y.dtype())
    fail("inner(): argument 'input' and argument 'other' must have the same dtype, got " +
         std::string(dtype_name(x.dtype())) + " and " + dtype_name(y.dtype()));
  IntList out(x.sizes().begin(), x.sizes().end() - 1);
  out.insert(out.end(), y.sizes().begin(), y.sizes().end() - 1);
  Tensor r = matmul(reshape(x, {-1, k}), transpose(reshape(y, {-1, k}), 0, 1));
  return Value::tensor(reshape(r, out));
}

// torch.ger: outer's old name.
Value ger_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("ger", a, {"input", "vec2"}, 2);
  Tensor x = arg(b, 0, "ger", "input"), y = arg(b, 1, "ger", "vec2");
  if (x.dim() != 1) fail("ger(): argument 'input' must be 1-D, got shape " + x.shape_str());
  if (y.dim() != 1) fail("ger(): argument 'vec2' must be 1-D, got shape " + y.shape_str());
  return Value::tensor(unsqueeze(x, 1) * unsqueeze(y, 0));
}

// torch.cross: the cross product of 3-vectors along dim (broadcast; none: the first dim
// of size 3).
Value cross_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("cross", a, {"input", "other", "dim"}, 2);
  Tensor x = arg(b, 0, "cross", "input"), y = arg(b, 1, "cross", "other");
  if (x.dim() != y.dim())
    fail("cross(): argument 'input' " + x.shape_str() + " and argument 'other' " + y.shape_str() +
         " must have the same number of dims");
  IntList shape;
  for (int64_t d = 0; d < x.dim(); ++d) {
    const int64_t p = x.sizes()[d], q = y.sizes()[d];
    if (p != q && p != 1 && q != 1)
      fail("cross(): argument 'input' " + x.shape_str() + " and argument 'other' " + y.shape_str() + " do not broadcast");
    shape.push_back(p == 1 ? q : p);
  }
  int64_t dim = -1;
  if (b.has(2)) {
    dim = dim_in(as_int(b[2], fn_arg("cross", "dim")), x.dim(), "cross");
  } else {
    for (int64_t d = 0; d < static_cast<int64_t>(shape.size()) && dim < 0; ++d)
      if (shape[static_cast<size_t>(d)] == 3) dim = d;
    if (dim < 0) fail("cross(): no dim of size 3 in argument 'input' " + x.shape_str() + " (give argument 'dim')");
  }
  if (x.dim() == 0 || shape[static_cast<size_t>(dim)] != 3 || x.sizes()[dim] != 3 || y.sizes()[dim] != 3)
    fail("cross(): dim " + std::to_string(dim) + " must have size 3 in both inputs, got " + x.shape_str() + " and " +
         y.shape_str());
  const DType dt = promote_types(x.dtype(), y.dtype());
  Tensor xe = expand(to_dtype(x, dt), shape), ye = expand(to_dtype(y, dt), shape);
  auto c = [&](const Tensor& t, int64_t i) { return select(t, dim, i); };
  TensorList parts{c(xe, 1) * c(ye, 2) - c(xe, 2) * c(ye, 1), c(xe, 2) * c(ye, 0) - c(xe, 0) * c(ye, 2),
                   c(xe, 0) * c(ye, 1) - c(xe, 1) * c(ye, 0)};
  return Value::tensor(stack(parts, dim));
}

// ---- statistics ------------------------------------------------------------------------

// torch.cov: the covariance of the rows of input [vars, obs] (or of one 1-D variable),
// with frequency and importance weights, as PyTorch's.
Tensor cov_of(const Tensor& input, int64_t correction, const Tensor& fweights, const Tensor& aweights, const char* fname) {
  if (input.dim() > 2) fail(std::string(fname) + "(): argument 'input' must be 1-D or 2-D, got shape " + input.shape_str());
  Tensor x = as_floating(input.dim() < 2 ? reshape(input, {1, -1}) : input);
  const int64_t obs = x.sizes()[1];
  Tensor w;
  auto check_weights = [&](const Tensor& t, const char* name) {
    if (t.dim() > 1 || t.numel() != obs)
      fail(std::string(fname) + "(): argument '" + name + "' must be 1-D with one weight per observation (" +
           std::to_string(obs) + "), got shape " + t.shape_str());
  };
  if (fweights.defined()) {
    check_weights(fweights, "fweights");
    if (!is_integral(fweights.dtype()) || fweights.dtype() == DType::b8)
      fail(std::string(fname) + "(): argument 'fweights' must be an integer tensor, got " + dtype_name(fweights.dtype()));
    std::vector<double> v = as_numbers(Value::tensor(fweights), "fweights");
    for (double f : v)
      if (!(f >= 0)) fail(std::string(fname) + "(): argument 'fweights' must be non-negative, got " + float_repr(f));
    w = to_dtype(reshape(fweights, {obs}), x.dtype());
  }
  if (aweights.defined()) {
    check_weights(aweights, "aweights");
    if (!is_floating(aweights.dtype()))
      fail(std::string(fname) + "(): argument 'aweights' must be a floating tensor, got " + dtype_name(aweights.dtype()));
    std::vector<double> v = as_numbers(Value::tensor(detach(aweights)), "aweights");
    for (double f : v)
      if (!(f >= 0)) fail(std::string(fname) + "(): argument 'aweights' must be non-negative, got " + float_repr(f));
    Tensor aw = to_dtype(reshape(aweights, {obs}), x.dtype());
    w = w.defined() ? w * aw : aw;
  }
  Tensor avg, w_sum, norm;
  if (w.defined()) {
    w_sum = sum(w);
    avg = sum(x * w, {1}) / w_sum;
  } else {
    w_sum = scalar_tensor(static_cast<double>(obs), x.dtype());
    avg = mean(x, {1});
  }
  if (!w.defined() || !aweights.defined()) {
    norm = w_sum - static_cast<double>(correction);
  } else {
    norm = w_sum - static_cast<double>(correction) * sum(w * to_dtype(reshape(aweights, {obs}), x.dtype())) / w_sum;
  }
  norm = where(le(norm, number_like(0.0, norm)), number_like(0.0, norm), norm);
  Tensor centered = x - unsqueeze(avg, 1);
  Tensor weighted = w.defined() ? centered * w : centered;
  Tensor c = matmul(weighted, transpose(centered, 0, 1)) / norm;
  return input.dim() < 2 ? reshape(c, {}) : c;
}

Value cov_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("cov", a, {"input", "correction", "fweights", "aweights"}, 1);
  Tensor x = arg(b, 0, "cov", "input");
  const int64_t correction = b.has(1) ? as_int(b[1], fn_arg("cov", "correction")) : 1;
  Tensor fw = b.has(2) ? arg(b, 2, "cov", "fweights") : Tensor(), aw = b.has(3) ? arg(b, 3, "cov", "aweights") : Tensor();
  return Value::tensor(cov_of(x, correction, fw, aw, "cov"));
}

// torch.corrcoef: the covariance scaled by the standard deviations, clipped to [-1, 1].
Value corrcoef_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("corrcoef", a, {"input"}, 1);
  Tensor x = arg(b, 0, "corrcoef", "input");
  Tensor c = cov_of(x, 1, Tensor(), Tensor(), "corrcoef");
  if (c.dim() == 0) return Value::tensor(c / c);
  const int64_t n = c.sizes()[0];
  Tensor sd = sqrt(index_select(reshape(c, {n * n}), 0, arange(n, DType::i64, c.device()) * scalar_tensor(static_cast<double>(n + 1), DType::i64)));
  c = c / unsqueeze(sd, 1);
  c = c / unsqueeze(sd, 0);
  return Value::tensor(clamp(c, -1.0, 1.0));
}

// torch.renorm: each slice along dim whose p-norm passes maxnorm scaled down to it.
Value renorm_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("renorm", a, {"input", "p", "dim", "maxnorm"}, 4);
  Tensor x = arg(b, 0, "renorm", "input");
  if (!is_floating(x.dtype())) fail("renorm(): argument 'input' must be a floating tensor, got " + std::string(dtype_name(x.dtype())));
  const double p = as_num(b[1], fn_arg("renorm", "p"));
  if (!(p > 0)) fail("renorm(): argument 'p' must be positive, got " + float_repr(p));
  if (x.dim() < 2) fail("renorm(): argument 'input' must have at least 2 dims, got shape " + x.shape_str());
  const int64_t dim = dim_in(as_int(b[2], fn_arg("renorm", "dim")), x.dim(), "renorm");
  const double maxnorm = as_num(b[3], fn_arg("renorm", "maxnorm"));
  if (!(maxnorm >= 0)) fail("renorm(): argument 'maxnorm' must be non-negative, got " + float_repr(maxnorm));
  IntList others;
  for (int64_t d = 0; d < x.dim(); ++d)
    if (d != dim) others.push_back(d);
  Tensor norms = vector_norm(x, p, others, true);
  Tensor factor = where(gt(norms, number_like(maxnorm, norms)), maxnorm / (norms + 1e-7), number_like(1.0, norms));
  return Value::tensor(x * factor);
}

// torch.bernoulli: 1 with probability input (or p), else 0, in input's dtype.
Value bernoulli_builtin(Evaluator&, CallArgs& a) {
  GeneratorScope generator(a, "bernoulli");
  Bound b = bind("bernoulli", a, {"input", "p"}, 1);
  Tensor x = arg(b, 0, "bernoulli", "input");
  if (!is_floating(x.dtype())) fail("bernoulli(): argument 'input' must be a floating tensor, got " + std::string(dtype_name(x.dtype())));
  Tensor draws;
  if (b.has(1)) {
    const double p = as_num(b[1], fn_arg("bernoulli", "p"));
    if (!(p >= 0 && p <= 1)) fail("bernoulli(): argument 'p' must be in [0, 1], got " + float_repr(p));
    draws = lt(random_uniform(x.sizes(), DType::f64), scalar_tensor(p, DType::f64));
  } else {
    // The probabilities are checked where their values are known (eager); a graph draws
    // with whatever it is given, as PyTorch's CUDA kernel does.
    if (!op_observer())
      for (double q : as_numbers(Value::tensor(detach(x)), "bernoulli"))
        if (!(q >= 0 && q <= 1)) fail("bernoulli(): argument 'input' must hold probabilities in [0, 1], got " + float_repr(q));
    draws = lt(random_uniform(x.sizes(), DType::f64), to_dtype(to_device(detach(x), cpu_device()), DType::f64));
  }
  return Value::tensor(to_device(to_dtype(draws, x.dtype()), x.device()));
}

// ---- methods only ----------------------------------------------------------------------

// Tensor.sum_to_size: summed down to size, which the tensor must expand from.
Value sum_to_size_method(Evaluator&, CallArgs& a) {
  if (a.pos.empty() || a.pos[0].tag != Tag::Tensor) fail("sum_to_size(): expected a tensor");
  Tensor x = a.pos[0].t;
  if (!a.kw.empty()) {
    if (a.kw.size() != 1 || a.kw[0].first != "size") fail_unexpected_keyword("sum_to_size", a.kw[0].first, {"size"});
    a.pos.push_back(a.kw[0].second);
  }
  if (a.pos.size() < 2) fail("sum_to_size(): missing argument 'size'");
  IntList size = shape_args(a.pos, 1, "sum_to_size");
  const int64_t n = static_cast<int64_t>(size.size());
  bool ok = n <= x.dim();
  for (int64_t k = 0; ok && k < n; ++k) {
    const int64_t want = size[static_cast<size_t>(k)], have = x.sizes()[x.dim() - n + k];
    ok = want == have || want == 1;
  }
  if (!ok) fail("sum_to_size(): argument 'size' " + ints_str(size) + " is not expandable to the tensor's shape " + x.shape_str());
  return Value::tensor(reduce_to_shape(x, Shape(size)));
}

// Tensor.dist: the p-norm of input - other (broadcast).
Value dist_method(Evaluator&, CallArgs& a) {
  Bound b = bind("dist", a, {"input", "other", "p"}, 2);
  Tensor x = arg(b, 0, "dist", "input"), y = arg(b, 1, "dist", "other");
  const double p = b.has(2) ? as_num(b[2], fn_arg("dist", "p")) : 2.0;
  for (int64_t k = 1; k <= std::min(x.dim(), y.dim()); ++k) {
    const int64_t s = x.sizes()[x.dim() - k], t = y.sizes()[y.dim() - k];
    if (s != t && s != 1 && t != 1)
      fail("dist(): argument 'input' " + x.shape_str() + " and argument 'other' " + y.shape_str() + " do not broadcast");
  }
  return Value::tensor(vector_norm(x - y, p, {}, false));
}

// The in-place random fills: `draw` (on the CPU, f64) copied into self.
Value fill_random(const Value& self, const Tensor& draws) {
  Tensor x = self.t;
  copy_(x, to_device(to_dtype(draws, x.dtype()), x.device()));
  return self;
}

void floating_self(const Tensor& x, const char* fname) {
  if (!is_floating(x.dtype()))
    fail(std::string(fname) + "(): expected a floating tensor, got " + dtype_name(x.dtype()));
}

Value normal_method(Evaluator&, CallArgs& a) {
  GeneratorScope generator(a, "normal_");
  Bound b = bind("normal_", a, {"self", "mean", "std"}, 1);
  const Tensor& x = b[0].t;
  floating_self(x, "normal_");
  const double m = b.has(1) ? as_num(b[1], fn_arg("normal_", "mean")) : 0.0;
  const double s = b.has(2) ? as_num(b[2], fn_arg("normal_", "std")) : 1.0;
  if (!(s >= 0)) fail("normal_(): argument 'std' must be non-negative, got " + float_repr(s));
  return fill_random(b[0], random_normal(x.sizes(), DType::f64, m, s));
}

Value uniform_method(Evaluator&, CallArgs& a) {
  GeneratorScope generator(a, "uniform_");
  Bound b = bind("uniform_", a, {"self", "from", "to"}, 1);
  const Tensor& x = b[0].t;
  floating_self(x, "uniform_");
  const double lo = b.has(1) ? as_num(b[1], fn_arg("uniform_", "from")) : 0.0;
  const double hi = b.has(2) ? as_num(b[2], fn_arg("uniform_", "to")) : 1.0;
  if (!(lo <= hi)) fail("uniform_(): argument 'from' (" + float_repr(lo) + ") must be at most argument 'to' (" + float_repr(hi) + ")");
  // An infinite bound, or a width past the dtype's largest, drew NaN or inf (from=-inf,
  // to=inf filled NaN); PyTorch refuses both.
  const double top = x.dtype() == DType::f64 ? std::numeric_limits<double>::max()
                     : x.dtype() == DType::f16 ? 65504.0
                     : x.dtype() == DType::bf16 ? 3.3895313892515355e38
                                                : static_cast<double>(std::numeric_limits<float>::max());
  if (!(std::abs(lo) <= top && std::abs(hi) <= top && hi - lo <= top))
    fail("uniform_(): arguments 'from' (" + float_repr(lo) + ") and 'to' (" + float_repr(hi) +
         ") must be finite, within " + dtype_name(x.dtype()) + "'s range, and at most its largest (" + float_repr(top) +
         ") apart");
  return fill_random(b[0], random_uniform(x.sizes(), DType::f64, lo, hi));
}

Value exponential_method(Evaluator&, CallArgs& a) {
  GeneratorScope generator(a, "exponential_");
  Bound b = bind("exponential_", a, {"self", "lambd"}, 1);
  const Tensor& x = b[0].t;
  floating_self(x, "exponential_");
  const double lambd = b.has(1) ? as_num(b[1], fn_arg("exponential_", "lambd")) : 1.0;
  if (!(lambd > 0)) fail("exponential_(): argument 'lambd' must be positive, got " + float_repr(lambd));
  return fill_random(b[0], -log1p(-random_uniform(x.sizes(), DType::f64)) * (1.0 / lambd));
}

// log_normal_, cauchy_ and geometric_: PyTorch's other in-place draws, each a transform
// of uniform (or normal) draws: exp(N(mean, std^2)); median + sigma tan(pi (u - 1/2));
// the count of Bernoulli(p) trials up to the first success, ceil(log(1 - u) / log(1 - p)).
Value log_normal_method(Evaluator&, CallArgs& a) {
  GeneratorScope generator(a, "log_normal_");
  Bound b = bind("log_normal_", a, {"self", "mean", "std"}, 1);
  floating_self(b[0].t, "log_normal_");
  const double m = b.has(1) ? as_num(b[1], fn_arg("log_normal_", "mean")) : 1.0;
  const double s = b.has(2) ? as_num(b[2], fn_arg("log_normal_", "std")) : 2.0;
  if (!(s > 0)) fail("log_normal_(): argument 'std' must be positive, got " + float_repr(s));
  return fill_random(b[0], exp(random_normal(b[0].t.sizes(), DType::f64, m, s)));
}

Value cauchy_method(Evaluator&, CallArgs& a) {
  GeneratorScope generator(a, "cauchy_");
  Bound b = bind("cauchy_", a, {"self", "median", "sigma"}, 1);
  floating_self(b[0].t, "cauchy_");
  const double median = b.has(1) ? as_num(b[1], fn_arg("cauchy_", "median")) : 0.0;
  const double sigma = b.has(2) ? as_num(b[2], fn_arg("cauchy_", "sigma")) : 1.0;
  Tensor angle = (random_uniform(b[0].t.sizes(), DType::f64) - 0.5) * kPi;
  return fill_random(b[0], sin(angle) / cos(angle) * sigma + median);
}

Value geometric_method(Evaluator&, CallArgs& a) {
  GeneratorScope generator(a, "geometric_");
  Bound b = bind("geometric_", a, {"self", "p"}, 2);
  if (b[0].t.dtype() == DType::b8) fail("geometric_(): expected a numeric tensor, got bool");
  const double p = as_num(b[1], fn_arg("geometric_", "p"));
  if (!(p > 0 && p < 1)) fail("geometric_(): argument 'p' must be in (0, 1), got " + float_repr(p));
  Tensor u = random_uniform(b[0].t.sizes(), DType::f64);
  return fill_random(b[0], ceil(log1p(-u) * (1.0 / std::log1p(-p))));
}

// Tensor.random_: integers in [from, to), by default [0, 2^mantissa] for floating
// dtypes and [0, the dtype's largest] for integers, as PyTorch's.
Value random_method(Evaluator&, CallArgs& a) {
  GeneratorScope generator(a, "random_");
  const bool only_to = a.pos.size() == 2 && a.kw.empty();
  Bound b = bind("random_", a, {"self", "from", "to"}, 1);
  const Tensor& x = b[0].t;
  const DType dt = x.dtype();
  int64_t top;  // the largest value allowed, inclusive
  switch (dt) {
    case DType::f64: top = int64_t{1} << 53; break;
    case DType::f32: top = int64_t{1} << 24; break;
    case DType::f16: top = int64_t{1} << 11; break;
    case DType::bf16: top = int64_t{1} << 8; break;
    case DType::b8: top = 1; break;
    case DType::u8: top = 255; break;
    case DType::i8: top = 127; break;
    case DType::i16: top = 32767; break;
    case DType::i32: top = 2147483647; break;
    default: top = std::numeric_limits<int64_t>::max() - 1; break;
  }
  const int64_t bottom = dt == DType::i8 ? -128 : dt == DType::i16 ? -32768 : dt == DType::i32 ? -2147483648LL
                         : dt == DType::i64 ? std::numeric_limits<int64_t>::min() : is_floating(dt) ? -top : 0;
  int64_t lo = 0, hi = top + 1;
  if (only_to) {
    hi = as_int(b[1], fn_arg("random_", "to"));
  } else {
    if (b.has(1)) lo = as_int(b[1], fn_arg("random_", "from"));
    if (b.has(2)) hi = as_int(b[2], fn_arg("random_", "to"));
  }
  if (lo >= hi)
    fail("random_(): argument 'from' (" + std::to_string(lo) + ") must be below argument 'to' (" + std::to_string(hi) + ")");
  if (lo < bottom || hi - 1 > top)
    fail("random_(): the range [" + std::to_string(lo) + ", " + std::to_string(hi) + ") does not fit " + dtype_name(dt) +
         " (expected values in [" + std::to_string(bottom) + ", " + std::to_string(top) + "])");
  // an integer tensor's draws as integers: through f64, 2^62 + 1 was never drawn
  return fill_random(b[0], random_integers(x.sizes(), is_floating(dt) ? DType::f64 : DType::i64, lo, hi));
}

// Tensor.bernoulli_: 1 with probability p (a number, or a tensor broadcast to self).
Value bernoulli__method(Evaluator&, CallArgs& a) {
  GeneratorScope generator(a, "bernoulli_");
  Bound b = bind("bernoulli_", a, {"self", "p"}, 1);
  const Tensor& x = b[0].t;
  if (b.has(1) && b[1].tag == Tag::Tensor) {
    Tensor p = b[1].t;
    for (int64_t k = 1; k <= p.dim(); ++k) {
      const int64_t s = k <= x.dim() ? x.sizes()[x.dim() - k] : -1, t = p.sizes()[p.dim() - k];
      if (k > x.dim() || (t != s && t != 1))
        fail("bernoulli_(): argument 'p' of shape " + p.shape_str() + " does not broadcast to the tensor's " + x.shape_str());
    }
    Tensor probs = contiguous(to_device(expand(to_dtype(detach(p), DType::f64), shape_of(x)), cpu_device()));
    if (!op_observer())  // checked where the values are known, as bernoulli() does
      for (double q : as_numbers(Value::tensor(probs), "bernoulli_"))
        if (!(q >= 0 && q <= 1)) fail("bernoulli_(): argument 'p' must hold probabilities in [0, 1], got " + float_repr(q));
    return fill_random(b[0], lt(random_uniform(x.sizes(), DType::f64), probs));
  }
  const double p = b.has(1) ? as_num(b[1], fn_arg("bernoulli_", "p")) : 0.5;
  if (!(p >= 0 && p <= 1)) fail("bernoulli_(): argument 'p' must be in [0, 1], got " + float_repr(p));
  return fill_random(b[0], lt(random_uniform(x.sizes(), DType::f64), scalar_tensor(p, DType::f64)));
}

}  // namespace

const BuiltinEntry kCompositeExtraMath[] = {
    {"clip", clip_builtin, "clip(input, min=none, max=none)",
     "Each element limited to [min, max] (numbers or tensors), as torch.clip (clamp). Example: clip(tensor([-2.0, 0.5, 3.0]), -1, 1)"},
    {"xlogy", xlogy_builtin, "xlogy(input, other)",
     "input * log(other), 0 where input is 0, as torch.xlogy. Example: xlogy(tensor([0.0, 2.0]), tensor([0.0, 3.0]))"},
    {"sinc", sinc_builtin, "sinc(input)", "sin(pi x) / (pi x), 1 at 0, as torch.sinc. Example: sinc(tensor([0.0, 0.5]))"},
    {"hypot", hypot_builtin, "hypot(input, other)",
     "sqrt(input^2 + other^2) of each pair. Example: hypot(tensor([3.0]), tensor([4.0]))"},
    {"signbit", signbit_builtin, "signbit(input)",
     "Where the sign bit is set (negative, and -0.0), bool. Example: signbit(tensor([-0.0, 1.0, -2.0]))"},
    {"float_power", float_power_builtin, "float_power(input, exponent)",
     "input ** exponent in f64, as torch.float_power. Example: float_power(tensor([2, 3]), 2)"},
    {"fmax", fmax_builtin, "fmax(input, other)",
     "The larger of each pair, ignoring a NaN, as torch.fmax. Example: fmax(tensor([1.0, float(\"nan\")]), tensor([2.0, 0.0]))"},
    {"fmin", fmin_builtin, "fmin(input, other)",
     "The smaller of each pair, ignoring a NaN, as torch.fmin. Example: fmin(tensor([1.0, float(\"nan\")]), tensor([2.0, 0.0]))"},
    {"nansum", nansum_builtin, "nansum(input, dim=none, keepdim=false, dtype=none)",
     "The sum with NaNs counted as 0, as torch.nansum. Example: nansum(tensor([1.0, float(\"nan\"), 2.0]))"},
    {"nanmean", nanmean_builtin, "nanmean(input, dim=none, keepdim=false, dtype=none)",
     "The mean of the elements that are not NaN, as torch.nanmean. Example: nanmean(tensor([1.0, float(\"nan\"), 2.0]))"},
    {"copysign", copysign_builtin, "copysign(input, other)",
     "|input| with the sign of other, as torch.copysign. Example: copysign(tensor([1.0, -2.0]), -1.0)"},
    {"logaddexp2", logaddexp2_builtin, "logaddexp2(input, other)",
     "log2(2^input + 2^other) without overflow. Example: logaddexp2(tensor([1.0]), tensor([1.0]))"},
    {"deg2rad", deg2rad_builtin, "deg2rad(input)", "Degrees to radians. Example: deg2rad(tensor([180.0]))"},
    {"rad2deg", rad2deg_builtin, "rad2deg(input)", "Radians to degrees. Example: rad2deg(tensor([3.14159]))"},
    {"kron", kron_builtin, "kron(input, other)",
     "The Kronecker product, as torch.kron. Example: kron(eye(2), tensor([[1.0, 2.0], [3.0, 4.0]]))"},
    {"mv", mv_builtin, "mv(input, vec)", "The product of a matrix and a vector. Example: mv(ones([2, 3]), ones([3]))"},
    {"inner", inner_builtin, "inner(input, other)",
     "The sums of products over the last dims, as torch.inner. Example: inner(ones([2, 3]), ones([4, 3]))"},
    {"ger", ger_builtin, "ger(input, vec2)",
     "The outer product of two vectors (outer's old name). Example: ger(tensor([1.0, 2.0]), tensor([1.0, -1.0]))"},
    {"cross", cross_builtin, "cross(input, other, dim=none)",
     "The cross product of 3-vectors along dim (none: the first dim of size 3), as torch.cross. "
     "Example: cross(tensor([1.0, 0.0, 0.0]), tensor([0.0, 1.0, 0.0]))"},
    {"cov", cov_builtin, "cov(input, correction=1, fweights=none, aweights=none)",
     "The covariance of the rows (variables) of input, observations in columns, as torch.cov. "
     "Example: cov(tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]]))"},
    {"corrcoef", corrcoef_builtin, "corrcoef(input)",
     "The Pearson correlation coefficients of the rows of input, as torch.corrcoef. "
     "Example: corrcoef(tensor([[0.0, 1.0, 2.0], [2.0, 1.5, 0.0]]))"},
    {"renorm", renorm_builtin, "renorm(input, p, dim, maxnorm)",
     "Each slice along dim whose p-norm passes maxnorm scaled down to maxnorm, as torch.renorm. "
     "Example: renorm(ones([2, 3]) * 2, 2, 0, 1.0)"},
    {"bernoulli", bernoulli_builtin, "bernoulli(input, p=none)",
     "1 with probability input (or p) at each element, else 0, in input's dtype (manual_seed repeats it), as "
     "torch.bernoulli. Example: bernoulli(full([4], 0.5))"},
};

const BuiltinEntry kCompositeMethods[] = {
    {"sum_to_size", sum_to_size_method, "sum_to_size(*size)",
     "This tensor summed down to size, which must expand to its shape, as Tensor.sum_to_size. "
     "Example: ones([2, 3]).sum_to_size([1, 3])"},
    {"dist", dist_method, "dist(other, p=2)",
     "The p-norm of this tensor minus other (torch.dist; a method only, as `dist` is the module). "
     "Example: tensor([0.0, 0.0]).dist(tensor([3.0, 4.0]))"},
    {"normal_", normal_method, "normal_(mean=0, std=1)",
     "Fills this tensor with draws from N(mean, std^2) in place (manual_seed repeats them); returns it. "
     "Example: zeros([3]).normal_(0.0, 0.1)"},
    {"uniform_", uniform_method, "uniform_(from=0, to=1)",
     "Fills this tensor with draws from U(from, to) in place; returns it. Example: zeros([3]).uniform_(-1, 1)"},
    {"exponential_", exponential_method, "exponential_(lambd=1)",
     "Fills this tensor with draws from the exponential distribution of rate lambd in place; returns it. "
     "Example: zeros([3]).exponential_(2.0)"},
    {"log_normal_", log_normal_method, "log_normal_(mean=1, std=2)",
     "Fills this tensor with exp of draws from N(mean, std^2) in place; returns it, as Tensor.log_normal_. "
     "Example: zeros([3]).log_normal_(0.0, 0.5)"},
    {"cauchy_", cauchy_method, "cauchy_(median=0, sigma=1)",
     "Fills this tensor with draws from the Cauchy distribution in place; returns it, as Tensor.cauchy_. "
     "Example: zeros([3]).cauchy_()"},
    {"geometric_", geometric_method, "geometric_(p)",
     "Fills this tensor with the number of Bernoulli(p) trials up to the first success (1, 2, ...) in place; "
     "returns it, as Tensor.geometric_. Example: zeros([3]).geometric_(0.5)"},
    {"random_", random_method, "random_(from=0, to=none)",
     "Fills this tensor with integers drawn from [from, to) (one argument: [0, to); none: [0, the dtype's largest "
     "exact integer]) in place; returns it. Example: zeros([3]).random_(10)"},
    {"bernoulli_", bernoulli__method, "bernoulli_(p=0.5)",
     "Fills this tensor with 1 with probability p (a number or a tensor), else 0, in place; returns it. "
     "Example: zeros([4]).bernoulli_(0.3)"},
};

std::span<const BuiltinEntry> composite_extra_math() { return kCompositeExtraMath; }
// The methods above, then the storage methods of composite_torch_aliases.cpp.
std::span<const BuiltinEntry> composite_methods() {
  static const std::vector<BuiltinEntry> all = [] {
    std::vector<BuiltinEntry> out(std::begin(kCompositeMethods), std::end(kCompositeMethods));
    for (const BuiltinEntry& e : torch_storage_methods()) out.push_back(e);
    return out;
  }();
  return all;
}

}  // namespace nabla::interp
