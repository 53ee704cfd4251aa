// Composite functions of PyTorch's torch namespace, made of table ops (so they
// differentiate, to any order, fuse and compile like the ops they are made of):
// elementwise math (tan, asin, log2, fmod, nan_to_num, ...), reductions (prod, amax,
// norm, median, quantile, ...) and shapes and products (chunk, diagonal, outer, bmm,
// ...). Each is a global function and a tensor method, as the ops are
// (op_conventions()); tests/stdlib/test_composites.dsl checks them against PyTorch.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "autograd/grad_mode.hpp"
#include "autograd/ops.hpp"
#include "autograd/trace.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "interp/builtins/composites/composites.hpp"
#include "interp/values/advanced_indexing.hpp"

namespace nabla::interp {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor nonzero_of(const Tensor& x, const char* what);

// The shape a and b broadcast to (numpy's rule), or an error naming fname.
IntList broadcast_of(const Tensor& a, const Tensor& b, const char* fname) {
  const int64_t n = std::max(a.dim(), b.dim());
  IntList out(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    int64_t da = k < n - a.dim() ? 1 : a.sizes()[k - (n - a.dim())];
    int64_t db = k < n - b.dim() ? 1 : b.sizes()[k - (n - b.dim())];
    if (da != db && da != 1 && db != 1)
      fail(std::string(fname) + "(): shapes " + a.shape_str() + " and " + b.shape_str() + " do not broadcast");
    out[static_cast<size_t>(k)] = da == 1 ? db : da;
  }
  return out;
}

// dim none or an int or a list of ints, as an (empty: every dim) list, each in range.
IntList dims_of(const Bound& b, size_t k, const Tensor& x, const std::string& fname) {
  if (!b.has(k)) return {};
  IntList dims = b[k].tag == Tag::Int ? IntList{b[k].i} : as_ints(b[k], fname + "(): argument 'dim'");
  for (int64_t& d : dims) d = wrap_dim(d, x.dim(), fname.c_str());
  return dims;
}

// ---- elementwise --------------------------------------------------------------------

Tensor reciprocal_of(const Tensor& x) { return 1.0 / x; }
// A bool's square is an i64, as PyTorch's (pow(x, 2); x * x stayed bool).
Tensor square_of(const Tensor& x) {
  Tensor t = x.dtype() == DType::b8 ? to_dtype(x, DType::i64) : x;
  return t * t;
}
// 2^x as pow, exact at integers.
Tensor exp2_of(const Tensor& x) { return pow(number_like(2.0, x), x); }
Tensor log2_of(const Tensor& x) { return log(x) * (1.0 / std::log(2.0)); }
Tensor log10_of(const Tensor& x) { return log(x) * (1.0 / std::log(10.0)); }
Tensor tan_of(const Tensor& x) { return sin(x) / cos(x); }
// With expm1, accurate near 0 where exp(x) - exp(-x) cancels.
Tensor sinh_of(const Tensor& x) { return (expm1(x) - expm1(-x)) * 0.5; }
Tensor cosh_of(const Tensor& x) { return (exp(x) + exp(-x)) * 0.5; }
// The inverse functions through atan2, with 1 - x^2 as (1 - x)(1 + x) (accurate near 1).
Tensor one_minus_square(const Tensor& x) { return (1.0 - x) * (1.0 + x); }
Tensor asin_of(const Tensor& x) { return atan2(x, sqrt(one_minus_square(x))); }
Tensor acos_of(const Tensor& x) { return atan2(sqrt(one_minus_square(x)), x); }
Tensor atan_of(const Tensor& x) { return atan2(x, number_like(1.0, x)); }
// sign(x) log1p(|x| + x^2 / (1 + sqrt(1 + x^2))): no cancellation at either end.
Tensor asinh_of(const Tensor& x) {
  Tensor ax = abs(x), x2 = x * x;
  return sign(x) * log1p(ax + x2 / (1.0 + sqrt(1.0 + x2)));
}
Tensor acosh_of(const Tensor& x) { return log(x + sqrt((x - 1.0) * (x + 1.0))); }
Tensor atanh_of(const Tensor& x) { return (log1p(x) - log1p(-x)) * 0.5; }
Tensor frac_of(const Tensor& x) { return x - trunc(x); }

// isnan and friends: bool; an integer tensor has no NaN or infinity.
Tensor isnan_of(const Tensor& x) { return ne(x, x); }
Tensor isinf_of(const Tensor& x) {
  if (!is_floating(x.dtype())) return zeros(x.sizes(), DType::b8, x.device());
  return eq(abs(x), number_like(kInf, x));
}
Tensor isfinite_of(const Tensor& x) {
  if (!is_floating(x.dtype())) return ones(x.sizes(), DType::b8, x.device());
  return lt(abs(x), number_like(kInf, x));
}

Value reciprocal_builtin(Evaluator&, CallArgs& a) { return unary(a, "reciprocal", reciprocal_of); }
Value square_builtin(Evaluator&, CallArgs& a) { return unary(a, "square", square_of); }
Value exp2_builtin(Evaluator&, CallArgs& a) { return unary(a, "exp2", exp2_of); }
Value log2_builtin(Evaluator&, CallArgs& a) { return unary(a, "log2", log2_of); }
Value log10_builtin(Evaluator&, CallArgs& a) { return unary(a, "log10", log10_of); }
Value tan_builtin(Evaluator&, CallArgs& a) { return unary(a, "tan", tan_of); }
Value sinh_builtin(Evaluator&, CallArgs& a) { return unary(a, "sinh", sinh_of); }
Value cosh_builtin(Evaluator&, CallArgs& a) { return unary(a, "cosh", cosh_of); }
Value asin_builtin(Evaluator&, CallArgs& a) { return unary(a, "asin", asin_of); }
Value acos_builtin(Evaluator&, CallArgs& a) { return unary(a, "acos", acos_of); }
Value atan_builtin(Evaluator&, CallArgs& a) { return unary(a, "atan", atan_of); }
Value asinh_builtin(Evaluator&, CallArgs& a) { return unary(a, "asinh", asinh_of); }
Value acosh_builtin(Evaluator&, CallArgs& a) { return unary(a, "acosh", acosh_of); }
Value atanh_builtin(Evaluator&, CallArgs& a) { return unary(a, "atanh", atanh_of); }
Value frac_builtin(Evaluator&, CallArgs& a) { return unary(a, "frac", frac_of); }
Value isnan_builtin(Evaluator&, CallArgs& a) { return unary(a, "isnan", isnan_of); }
Value isinf_builtin(Evaluator&, CallArgs& a) { return unary(a, "isinf", isinf_of); }
Value isfinite_builtin(Evaluator&, CallArgs& a) { return unary(a, "isfinite", isfinite_of); }

// Where remainder's formula gives NaN but floor(x / y) has a value, PyTorch's (as
// Python's): a zero divisor gives x / y (inf, -inf, or NaN for 0 / 0), and an
// infinite divisor of a finite x gives 0 (same signs, or x zero: x / y keeps the
// zero's sign) or -1 (opposite signs). The quotient has no gradient (round's is 0),
// so the edges are computed from detached operands and add none.
Tensor float_divisor_edges(const Tensor& x_in, const Tensor& y_in, const Tensor& q) {
  Tensor x = detach(x_in), y = detach(y_in);
  Tensor zero_x = number_like(0.0, x), zero_y = number_like(0.0, y);
  Tensor quotient = to_dtype(x / y, q.dtype());
  Tensor opposite = ne(lt(x, zero_x), lt(y, zero_y));
  Tensor nonzero_x = ne(x, zero_x);
  Tensor minus_one = where(nonzero_x, opposite, nonzero_x);
  Tensor at_inf = where(minus_one, number_like(-1.0, q), quotient);
  Tensor finite_by_inf = where(isinf_of(y), isfinite_of(x), isinf_of(y));
  return where(eq(y, zero_y), quotient, where(finite_by_inf, at_inf, q));
}

// remainder(x, y) for the ops computed with it (//, fmod, div's rounding modes): its
// kernel's zero integer divisor error named remainder, not the op the user called
// (tensor([5]) // 0 read "remainder: integer division by zero").
Tensor remainder_in(const char* op, const Tensor& x, const Tensor& y) {
  try {
    return remainder(x, y);
  } catch (const Error& e) {
    if (std::string(e.what()) != "remainder: integer division by zero") throw;
    throw Error(std::string(op) + ": integer division by zero");
  }
}

// C's fmod: the remainder with the dividend's sign, from remainder (the divisor's).
Value fmod_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("fmod", a, {"input", "other"}, 2);
  Tensor x = arg(b, 0, "fmod", "input"), y = operand(b[1], x, "fmod", "other");
  Tensor r = remainder_in("fmod", x, y);
  Tensor nonzero_r = ne(r, number_like(0.0, r));
  Tensor flip = where(nonzero_r, ne(lt(r, number_like(0.0, r)), lt(x, number_like(0.0, x))), nonzero_r);
  // A finite x over an infinite y is x itself (r - y would be inf - inf).
  Tensor finite_by_inf = where(isinf_of(y), isfinite_of(x), isinf_of(y));
  return Value::tensor(where(finite_by_inf, to_dtype(x, r.dtype()), where(flip, r - y, r)));
}

// An i64 floor quotient past 2^53 exactly: q, from f64, is within a few units of the
// true quotient (or its last unit, where the quotient is small and y huge), so the
// residual x - q y - r is a small multiple k y; i64 arithmetic wraps modulo 2^64, so it
// computes that residual exactly even where q y wraps, and q + k is the quotient
// (-(2^63 - 1) // -1 was 2^63 through f64, cast back to -2^63).
Tensor exact_int64_quotient(const Tensor& x, const Tensor& y, const Tensor& r, const Tensor& q) {
  Tensor residual = (to_dtype(x, DType::i64) - q * to_dtype(y, DType::i64)) - to_dtype(r, DType::i64);
  Tensor k = round(to_dtype(residual, DType::f64) / to_dtype(y, DType::f64));
  return q + to_dtype(k, DType::i64);
}
}  // namespace

// floor(a / b) as Python's // and PyTorch's rounding_mode="floor": (a - remainder(a,
// b)) / b is within an ulp of the integer it should be, so rounding it is exact where
// floor(a / b) is off by one (1 // 0.1 is 9.0, floor(1 / 0.1) is 10).
// Integers stay integers, as in PyTorch: x - remainder(x, y) is a multiple of y, so
// its quotient is exact in f64 while |x| < 2^53; an i64 one is corrected past that.
Tensor floor_division(const Tensor& x_in, const Tensor& y_in, const char* op) {
  // Both in the result type first (Note [A wrapped number past an integer dtype]); a
  // wrapped number made plain by where() below gave i64 // 2.5 as f64, PyTorch's f32.
  const DType type = result_type({x_in, y_in});
  Tensor x = to_dtype(x_in, type), y = to_dtype(y_in, type);
  if (!is_floating(type)) {
    Tensor r = remainder_in(op, x, y);
    Tensor q = to_dtype(round((to_dtype(x, DType::f64) - to_dtype(r, DType::f64)) / to_dtype(y, DType::f64)), type);
    return type == DType::i64 ? exact_int64_quotient(x, y, r, q) : q;
  }
  // A zero divisor's quotient comes from float_divisor_edges; dividing by 1 there
  // instead keeps the zero gradient of round finite (0 / 0 was NaN).
  Tensor divisor = where(eq(detach(y), number_like(0.0, y)), number_like(1.0, y), y);
  return float_divisor_edges(x, y, round((x - remainder(x, divisor)) / divisor));
}

// Floats: trunc(x / y), whose gradient is 0 everywhere, as PyTorch's; a zero divisor's
// quotient (x / 0) is computed from detached operands, and 1 divides there instead, so
// that the zero gradient stays finite (trunc's 0 times x / 0's inf was NaN).
static Tensor truncated_float_division(const Tensor& x_in, const Tensor& y_in) {
  const DType type = result_type({x_in, y_in});
  Tensor x = to_dtype(x_in, type), y = to_dtype(y_in, type);
  Tensor zero_y = eq(detach(y), number_like(0.0, y));
  Tensor divisor = where(zero_y, number_like(1.0, y), y);
  return where(zero_y, detach(x) / detach(y), trunc(x / divisor));
}

Tensor truncated_division(const Tensor& x_in, const Tensor& y_in, const char* op) {
  if (is_floating(x_in.dtype()) || is_floating(y_in.dtype())) return truncated_float_division(x_in, y_in);
  const DType type = result_type({x_in, y_in});  // Note [A wrapped number past an integer dtype]
  Tensor x = to_dtype(x_in, type), y = to_dtype(y_in, type);
  // The floor quotient, one up where it was rounded down across zero: a remainder and
  // operands of opposite signs.
  Tensor q = floor_division(x, y, op);
  Tensor zero = scalar_tensor(0.0, x.dtype()), y_zero = scalar_tensor(0.0, y.dtype());
  Tensor rounded = ne(remainder(x, y), zero);
  Tensor across = where(rounded, ne(lt(x, zero), lt(y, y_zero)), rounded);
  return q + to_dtype(across, q.dtype());
}

namespace {

Value floor_divide_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("floor_divide", a, {"input", "other"}, 2);
  Tensor x = arg(b, 0, "floor_divide", "input");
  return Value::tensor(floor_division(x, operand(b[1], x, "floor_divide", "other")));
}

// PyTorch's lerp: start + w (end - start) for |w| < 0.5, else end - (end - start)(1 - w),
// exact at both ends; for floating tensors only, as PyTorch's kernels.
Value lerp_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("lerp", a, {"input", "end", "weight"}, 3);
  Tensor start = arg(b, 0, "lerp", "input"), end = operand(b[1], start, "lerp", "end");
  require_floating(start, "lerp(): input", "PyTorch's lerp is not implemented for integer or bool tensors");
  Tensor w = operand(b[2], start, "lerp", "weight"), diff = end - start;
  return Value::tensor(where(lt(abs(w), number_like(0.5, w)), start + w * diff, end - diff * (1.0 - w)));
}

// NaN to nan, infinities to posinf and neginf (the dtype's largest finite values when
// not given); the gradient passes where x was finite.
Value nan_to_num_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("nan_to_num", a, {"input", "nan", "posinf", "neginf"}, 1);
  Tensor x = arg(b, 0, "nan_to_num", "input");
  if (!is_floating(x.dtype())) return Value::tensor(x);
  const double largest = x.dtype() == DType::f64   ? std::numeric_limits<double>::max()
                         : x.dtype() == DType::f16 ? 65504.0
                         : x.dtype() == DType::bf16 ? 3.3895313892515355e38
                                                    : std::numeric_limits<float>::max();
  double nan = b.has(1) ? as_num(b[1], "nan_to_num(): argument 'nan'") : 0.0;
  double posinf = b.has(2) ? as_num(b[2], "nan_to_num(): argument 'posinf'") : largest;
  double neginf = b.has(3) ? as_num(b[3], "nan_to_num(): argument 'neginf'") : -largest;
  Tensor y = where(eq(x, number_like(kInf, x)), number_like(posinf, x), x);
  y = where(eq(x, number_like(-kInf, x)), number_like(neginf, x), y);
  return Value::tensor(where(isnan_of(x), number_like(nan, x), y));
}

// ---- reductions ---------------------------------------------------------------------

// The product along dim (every element when dim is none) through cumprod, whose
// gradient handles zeros. An empty product is 1, made as the sum over the same dims
// plus 1: it stays in the graph (the sum of an empty x requires grad, as PyTorch's
// prod does; ones() made backward an error) and takes the sum's dtype, PyTorch's
// (i64 for the integer types and bool).
// dtype= casts the input first, as PyTorch's (prod(x, 1, dtype=f64) of an f32 x is f64).
Value prod_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("prod", a, {"input", "dim", "keepdim", "dtype"}, 1);
  Tensor x = arg(b, 0, "prod", "input");
  if (b.has(3)) x = to_dtype(x, as_dtype(b[3], "prod(): argument 'dtype'"));
  const bool keep = b.has(2) && as_bool(b[2], "prod(): argument 'keepdim'");
  auto empty_product = [](const Tensor& t, const IntList& dims) {
    return sum(t, dims) + to_tensor_arg(Value::integer(1), "prod");
  };
  if (!b.has(1)) {
    Tensor flat = reshape(x, {x.numel()});
    return Value::tensor(x.numel() == 0 ? empty_product(x, {}) : select(cumprod(flat, 0), 0, x.numel() - 1));
  }
  const int64_t dim = wrap_dim(as_int(b[1], "prod(): argument 'dim'"), x.dim(), "prod");
  Tensor out = x.sizes()[dim] == 0 ? empty_product(x, {dim}) : select(cumprod(x, dim), dim, x.sizes()[dim] - 1);
  return Value::tensor(keep ? unsqueeze(out, dim) : out);
}

// The maximum (or minimum) over dims, its gradient shared evenly by the elements that
// reach it, as PyTorch's amax and amin: m (no gradient) plus the masked elements'
// mean difference from it, which is 0 but carries mask / count to each.
Tensor extremum(const Tensor& x, IntList dims, bool keepdim, bool is_max) {
  if (dims.empty()) {
    dims.resize(static_cast<size_t>(x.dim()));
    std::iota(dims.begin(), dims.end(), 0);
  }
  Tensor m = detach(x);
  for (int64_t d : dims) m = is_max ? max(m, d, true).first : min(m, d, true).first;
  // Integers keep their dtype, as PyTorch's (the tie sharing below divides: it gave f32).
  if (!is_floating(x.dtype())) return keepdim ? m : squeeze(m, dims);
  Tensor hit = eq(x, m);
  Tensor count = sum(to_dtype(hit, x.dtype()), dims, true);
  Tensor offset = sum(where(hit, x - m, number_like(0.0, x)), dims, true) / count;
  Tensor out = where(isinf_of(m), m, m + offset);
  // A slice whose maximum is NaN: PyTorch's mask / count is 0 / 0 there, so each of
  // its elements gets NaN (Note [A NaN gradient as PyTorch's formula gives]); it was 0.
  if (is_floating(x.dtype()) && grad_enabled())
    out = out + sum(nan_gradient_at(x, expand(isnan_of(m), composite_args::shape_of(x))), dims, true);
  return keepdim ? out : squeeze(out, dims);
}

Value amax_like(CallArgs& a, const char* fname, bool is_max) {
  Bound b = bind(fname, a, {"input", "dim", "keepdim"}, 1);
  Tensor x = arg(b, 0, fname, "input");
  return Value::tensor(extremum(x, dims_of(b, 1, x, fname), b.has(2) && as_bool(b[2], fname), is_max));
}
Value amax_builtin(Evaluator&, CallArgs& a) { return amax_like(a, "amax", true); }
Value amin_builtin(Evaluator&, CallArgs& a) { return amax_like(a, "amin", false); }

}  // namespace

// |x|^p for a norm's sum. For p < 1, |x|^(p-1) is infinite at 0, and PyTorch's
// norm_backward takes the gradient there as 0 (it was inf * sign(0), NaN): a zero x
// gives 0^p (0, or inf for a negative p) as a constant.
static Tensor powered_abs(const Tensor& x, double p) {
  if (p >= 1) return pow(abs(x), p);
  Tensor nonzero = ne(x, number_like(0.0, x));
  Tensor safe = where(nonzero, x, number_like(1.0, x));
  return where(nonzero, pow(abs(safe), p), number_like(p > 0 ? 0.0 : kInf, x));
}

// ||x||_p over dims (all when empty): p = 2 as sqrt of the sum of squares, 1, inf,
// -inf, 0 (a count) or any other p; where the sum is 0 the gradient is 0 (PyTorch's
// subgradient), not 0/0.
Tensor vector_norm(const Tensor& x, double p, const IntList& dims, bool keepdim) {
  require_floating(x, "norm: the input", "PyTorch's norms need a floating dtype");
  // inf is a max, -inf a min and a negative p a root of a sum of inverses: over no elements none has a value.
  if (p < 0 || p == kInf) {
    int64_t count = 1;
    for (size_t d = 0; d < (dims.empty() ? x.sizes().size() : dims.size()); ++d)
      count *= dims.empty() ? x.sizes()[d] : x.sizes()[static_cast<size_t>(dims[d] < 0 ? dims[d] + x.dim() : dims[d])];
    if (count == 0)
      throw Error("norm: cannot compute the " + float_repr(p) + " norm over no elements (input of shape " +
                  x.shape_str() + "): it has no identity, as PyTorch's linalg.vector_norm reports");
  }
  if (p == kInf) return extremum(abs(x), dims, keepdim, true);
  if (p == -kInf) return extremum(abs(x), dims, keepdim, false);
  if (p == 0) return sum(to_dtype(ne(x, number_like(0.0, x)), x.dtype()), dims, keepdim);
  if (p == 1) return sum(abs(x), dims, keepdim);
  Tensor s = p == 2 ? sum(x * x, dims, keepdim) : sum(powered_abs(x, p), dims, keepdim);
  // The root of a zero sum is 0 with a zero gradient (the root's is infinite there); a
  // NaN sum stays NaN (a test s > 0 made it 0: the norm of [1, nan] was 0, PyTorch's NaN).
  Tensor zero = eq(s, number_like(0.0, s));
  Tensor safe = where(zero, number_like(1.0, s), s);
  return where(zero, number_like(0.0, s), p == 2 ? sqrt(safe) : pow(safe, 1.0 / p));
}

// v (a median of the elements of flat) with PyTorch's gradient for a reduction of all
// elements (evenly_distribute_backward): every element equal to v (every NaN, when v is
// NaN) shares it evenly; the gather that picked v gave it all to one of them. The value
// is vd + (sum of the picked x - vd, exactly 0) / count, v itself, not a sum of its
// copies divided again; the masks are ops, not read on the host (vmap, graphs).
Tensor evenly_shared(const Tensor& flat, const Tensor& v) {
  if (!is_floating(flat.dtype())) return v;
  const DType dt = flat.dtype();
  Tensor xd = detach(flat), vd = detach(v);
  Tensor mask = add(to_dtype(eq(xd, vd), dt), mul(to_dtype(isnan_of(xd), dt), to_dtype(isnan_of(vd), dt)));
  Tensor picked = where(gt(mask, scalar_tensor(0.0, dt)), sub(flat, vd), scalar_tensor(0.0, dt));
  return add(vd, div(sum(picked), sum(mask)));
}

namespace {

Value norm_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("norm", a, {"input", "p", "dim", "keepdim"}, 1);
  Tensor x = arg(b, 0, "norm", "input");
  double p = 2.0;
  if (b.has(1) && b[1].tag == Tag::Str) {
    const std::string& name = b[1].as<StrObj>()->s;
    if (name != "fro") fail("norm(): argument 'p': expected a number or \"fro\", got \"" + name + "\"");
  } else if (b.has(1)) {
    p = as_num(b[1], "norm(): argument 'p'");
  }
  return Value::tensor(vector_norm(x, p, dims_of(b, 2, x, "norm"), b.has(3) && as_bool(b[3], "norm(): argument 'keepdim'")));
}

// (std or var, mean) over dims, as torch.std_mean and torch.var_mean.
Value moments(CallArgs& a, const char* fname, bool is_std) {
  Bound b = bind(fname, a, {"input", "dim", "correction", "keepdim"}, 1);
  Tensor x = arg(b, 0, fname, "input");
  IntList dims = dims_of(b, 1, x, fname);
  int64_t correction = b.has(2) ? as_int(b[2], std::string(fname) + "(): argument 'correction'") : 1;
  bool keep = b.has(3) && as_bool(b[3], std::string(fname) + "(): argument 'keepdim'");
  Tensor spread = is_std ? std(x, dims, correction, keep) : var(x, dims, correction, keep);
  return make_tuple({Value::tensor(spread), Value::tensor(mean(x, dims, keep))});
}
Value std_mean_builtin(Evaluator&, CallArgs& a) { return moments(a, "std_mean", true); }
Value var_mean_builtin(Evaluator&, CallArgs& a) { return moments(a, "var_mean", false); }

Value count_nonzero_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("count_nonzero", a, {"input", "dim"}, 1);
  Tensor x = arg(b, 0, "count_nonzero", "input");
  return Value::tensor(sum(to_dtype(ne(x, scalar_tensor(0.0, x.dtype())), DType::i64), dims_of(b, 1, x, "count_nonzero")));
}

// The lower median (element (n - 1) / 2 of the sorted values), as PyTorch's; along
// dim, (values, indices).
// A slice holding a NaN has the median NaN, at its first NaN (PyTorch's): sort puts
// the NaNs last, in their order, so that is sorted position n - (number of NaNs).
Tensor median_position(const Tensor& x, int64_t dim, int64_t n) {
  Tensor nans = sum(to_dtype(isnan_of(detach(x)), DType::i64), {dim}, true);
  Tensor middle = full(nans.sizes(), static_cast<double>((n - 1) / 2), DType::i64, x.device());
  return where(gt(nans, scalar_tensor(0.0, DType::i64)), scalar_tensor(static_cast<double>(n), DType::i64) - nans, middle);
}

Value median_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("median", a, {"input", "dim", "keepdim"}, 1);
  Tensor x = arg(b, 0, "median", "input");
  if (!b.has(1)) {
    if (x.numel() == 0) fail("median(): the input has no elements");
    Tensor flat = reshape(x, {x.numel()});
    Tensor values = sort(flat, 0, false, true).first;
    Tensor v = reshape(gather(values, 0, median_position(flat, 0, x.numel())), IntList{});
    return Value::tensor(evenly_shared(flat, v));
  }
  const int64_t dim = wrap_dim(as_int(b[1], "median(): argument 'dim'"), x.dim(), "median");
  const int64_t n = x.sizes()[dim];
  if (n == 0) fail("median(): dim " + std::to_string(dim) + " of shape " + x.shape_str() + " is empty");
  bool keep = b.has(2) && as_bool(b[2], "median(): argument 'keepdim'");
  auto [values, indices] = sort(x, dim, false, true);
  Tensor at = median_position(x, dim, n);
  Tensor v = gather(values, dim, at), i = gather(indices, dim, at);
  return values_indices(Value::tensor(keep ? v : squeeze(v, {dim})), Value::tensor(keep ? i : squeeze(i, {dim})));
}

// quantile is composite_torch_search.cpp's, beside nanquantile.

// ---- shapes and products -------------------------------------------------------------

// chunks pieces of ceil(n / chunks) along dim (fewer when that covers n), as torch.chunk.
Value chunk_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("chunk", a, {"input", "chunks", "dim"}, 2);
  Tensor x = arg(b, 0, "chunk", "input");
  const int64_t chunks = as_int(b[1], "chunk(): argument 'chunks'");
  if (chunks < 1) fail("chunk(): argument 'chunks' must be at least 1, got " + std::to_string(chunks));
  const int64_t dim = wrap_dim(b.has(2) ? as_int(b[2], "chunk(): argument 'dim'") : 0, x.dim(), "chunk");
  const int64_t n = x.sizes()[dim], size = std::max<int64_t>(1, (n + chunks - 1) / chunks);
  return tuple_of(split(x, size, dim));
}

Value narrow_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("narrow", a, {"input", "dim", "start", "length"}, 4);
  Tensor x = arg(b, 0, "narrow", "input");
  const int64_t dim = wrap_dim(as_int(b[1], "narrow(): argument 'dim'"), x.dim(), "narrow");
  const int64_t length = as_int(b[3], "narrow(): argument 'length'");
  if (b[2].tag == Tag::Tensor)  // a start a graph replays (Note [A window a graph replays])
    if (Tensor w = narrow_window(x, dim, b[2].t, length); w.defined()) return Value::tensor(w);
  int64_t start = as_int(b[2], "narrow(): argument 'start'");
  const int64_t n = x.sizes()[dim], given = start;
  if (start < 0) start += n;
  // length > n - start, not start + length > n: a length near 2^63 wrapped past the check.
  if (start < 0 || start > n || length < 0 || length > n - start)
    fail("narrow(): start " + std::to_string(given) + " and length " + std::to_string(length) +
         " do not fit dim " + std::to_string(dim) + " of size " + std::to_string(n));
  return Value::tensor(slice(x, dim, start, start + length));
}

// gather after broadcasting input and indices over every dim but dim.
Value take_along_dim_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("take_along_dim", a, {"input", "indices", "dim"}, 3);
  Tensor x = arg(b, 0, "take_along_dim", "input"), idx = arg(b, 1, "take_along_dim", "indices");
  if (x.dim() != idx.dim())
    fail("take_along_dim(): input " + x.shape_str() + " and indices " + idx.shape_str() + " need the same number of dims");
  const int64_t dim = wrap_dim(as_int(b[2], "take_along_dim(): argument 'dim'"), x.dim(), "take_along_dim");
  IntList xs(x.sizes().begin(), x.sizes().end()), is(idx.sizes().begin(), idx.sizes().end());
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (d == dim) continue;
    if (xs[d] != is[d] && xs[d] != 1 && is[d] != 1)
      fail("take_along_dim(): input " + x.shape_str() + " and indices " + idx.shape_str() +
           " do not broadcast outside dim " + std::to_string(dim));
    xs[d] = is[d] = std::max(xs[d], is[d]);
  }
  return Value::tensor(gather(expand(x, xs), dim, expand(idx, is)));
}

// The offset-th diagonal of dims dim1 and dim2: a view of x, as torch.diagonal (Note
// [Diagonal and unfold are views] in autograd/ops/strided_views.cpp).
Tensor diagonal_of(const Tensor& x, int64_t offset, int64_t dim1, int64_t dim2) {
  if (x.dim() < 2) fail("diagonal(): expected a tensor with at least 2 dims, got shape " + x.shape_str());
  dim1 = wrap_dim(dim1, x.dim(), "diagonal");
  dim2 = wrap_dim(dim2, x.dim(), "diagonal");
  if (dim1 == dim2) fail("diagonal(): dim1 and dim2 must differ, both are " + std::to_string(dim1));
  return diagonal(x, offset, dim1, dim2);
}

Value diagonal_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("diagonal", a, {"input", "offset", "dim1", "dim2"}, 1);
  return Value::tensor(diagonal_of(arg(b, 0, "diagonal", "input"), b.has(1) ? as_int(b[1], "diagonal(): offset") : 0,
                                   b.has(2) ? as_int(b[2], "diagonal(): dim1") : 0,
                                   b.has(3) ? as_int(b[3], "diagonal(): dim2") : 1));
}

Value trace_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("trace", a, {"input"}, 1);
  Tensor x = arg(b, 0, "trace", "input");
  if (x.dim() != 2) fail("trace(): expected a 2-D tensor, got shape " + x.shape_str());
  return Value::tensor(sum(diagonal_of(x, 0, 0, 1)));
}

// A 1-D input on the diagonal-th diagonal of a square matrix, or a copy of a 2-D
// input's diagonal (torch.diag copies where torch.diagonal is a view).
Value diag_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("diag", a, {"input", "diagonal"}, 1);
  Tensor x = arg(b, 0, "diag", "input");
  const int64_t k = b.has(1) ? as_int(b[1], "diag(): argument 'diagonal'") : 0;
  if (x.dim() == 2) return Value::tensor(clone_tensor(diagonal_of(x, k, 0, 1)));  // a copy, as torch.diag's
  if (x.dim() != 1) fail("diag(): expected a 1-D or 2-D tensor, got shape " + x.shape_str());
  const int64_t n = x.sizes()[0];
  Tensor eye = to_dtype(eq(unsqueeze(arange(n, DType::i64, x.device()), 1), unsqueeze(arange(n, DType::i64, x.device()), 0)),
                        x.dtype());
  Tensor square = eye * unsqueeze(x, 0);
  const int64_t s = k < 0 ? -k : k;
  return Value::tensor(k == 0 ? square : pad(square, k > 0 ? IntList{s, 0, 0, s} : IntList{0, s, s, 0}));
}

Tensor matrix_arg(const Bound& b, size_t k, const char* fname, const char* name, int64_t dims) {
  Tensor t = arg(b, k, fname, name);
  if (t.dim() != dims)
    fail(std::string(fname) + "(): argument '" + name + "' must be " + std::to_string(dims) + "-D, got shape " +
         t.shape_str());
  return t;
}

Value outer_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("outer", a, {"input", "vec2"}, 2);
  Tensor x = matrix_arg(b, 0, "outer", "input", 1), y = matrix_arg(b, 1, "outer", "vec2", 1);
  return Value::tensor(unsqueeze(x, 1) * unsqueeze(y, 0));
}

Value dot_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("dot", a, {"input", "other"}, 2);
  return Value::tensor(matmul(matrix_arg(b, 0, "dot", "input", 1), matrix_arg(b, 1, "dot", "other", 1)));
}

Value mm_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("mm", a, {"input", "mat2"}, 2);
  return Value::tensor(matmul(matrix_arg(b, 0, "mm", "input", 2), matrix_arg(b, 1, "mm", "mat2", 2)));
}

Value bmm_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("bmm", a, {"input", "mat2"}, 2);
  Tensor x = matrix_arg(b, 0, "bmm", "input", 3), y = matrix_arg(b, 1, "bmm", "mat2", 3);
  if (x.sizes()[0] != y.sizes()[0])
    fail("bmm(): input " + x.shape_str() + " and mat2 " + y.shape_str() + " must have the same batch size");
  return Value::tensor(matmul(x, y));
}

// beta input + alpha (mat1 @ mat2), as torch.addmm (baddbmm for batches).
Value scaled_product(CallArgs& a, const char* fname, int64_t dims) {
  Bound b = bind(fname, a, {"input", "mat1", "mat2", "beta", "alpha"}, 3);
  Tensor x = arg(b, 0, fname, "input");
  Tensor p = matmul(matrix_arg(b, 1, fname, "mat1", dims), matrix_arg(b, 2, fname, "mat2", dims));
  // PyTorch's autocast lowers addmm and baddbmm whole, the added input with the product
  if (autocast_dtype() && is_half(p.dtype()) && x.dtype() == DType::f32) x = to_dtype(x, p.dtype());
  double beta = b.has(3) ? as_num(b[3], std::string(fname) + "(): argument 'beta'") : 1.0;
  double alpha = b.has(4) ? as_num(b[4], std::string(fname) + "(): argument 'alpha'") : 1.0;
  Tensor scaled = alpha == 1.0 ? p : p * alpha;
  return Value::tensor(beta == 0.0 ? scaled + x * 0.0 : (beta == 1.0 ? x : x * beta) + scaled);
}
Value addmm_builtin(Evaluator&, CallArgs& a) { return scaled_product(a, "addmm", 2); }
Value baddbmm_builtin(Evaluator&, CallArgs& a) { return scaled_product(a, "baddbmm", 3); }

// The elements where mask (broadcast with input) is true, as 1-D: index_select of the
// flattened input at the mask's nonzero positions.
Value masked_select_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("masked_select", a, {"input", "mask"}, 2);
  Tensor x = arg(b, 0, "masked_select", "input"), mask = arg(b, 1, "masked_select", "mask");
  if (mask.dtype() != DType::b8)
    fail(std::string("masked_select(): argument 'mask' must be bool, got ") + dtype_name(mask.dtype()));
  IntList shape = broadcast_of(x, mask, "masked_select");
  Tensor flat_x = reshape(expand(x, shape), {-1}), flat_mask = reshape(expand(mask, shape), {-1});
  return Value::tensor(index_select(flat_x, 0, reshape(nonzero_of(flat_mask, "masked_select(): mask"), {-1})));
}

// The indices of the nonzero elements, [n, dims] i64 in row-major order (a tuple of
// one index tensor per dim with as_tuple); argwhere is the same. Not differentiable.
// Their number and places come from the values, read on the host: a graph capture
// cannot replay that (it would keep this call's indices), so it is told (`what`).
Tensor nonzero_of(const Tensor& x, const char* what) {
  notify_value_read(x, what);
  Tensor flags = contiguous(to_device(ne(x, scalar_tensor(0.0, x.dtype())), cpu_device()));
  const bool* f = flags.data<bool>();
  const int64_t dims = x.dim();
  std::vector<double> rows;
  std::vector<int64_t> at(static_cast<size_t>(dims), 0);
  for (int64_t k = 0; k < flags.numel(); ++k) {
    if (f[k])
      for (int64_t d = 0; d < dims; ++d) rows.push_back(static_cast<double>(at[static_cast<size_t>(d)]));
    for (int64_t d = dims - 1; d >= 0; --d) {
      if (++at[static_cast<size_t>(d)] < x.sizes()[d]) break;
      at[static_cast<size_t>(d)] = 0;
    }
  }
  const int64_t n = dims == 0 ? 0 : static_cast<int64_t>(rows.size()) / dims;
  return to_device(tensor_from(rows, {n, dims}, DType::i64), x.device());
}

Value nonzero_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("nonzero", a, {"input", "as_tuple"}, 1);
  Tensor idx = nonzero_of(arg(b, 0, "nonzero", "input"), "nonzero()");
  if (!(b.has(1) && as_bool(b[1], "nonzero(): argument 'as_tuple'"))) return Value::tensor(idx);
  TensorList columns;
  for (int64_t d = 0; d < idx.sizes()[1]; ++d) columns.push_back(contiguous(select(idx, 1, d)));
  return tuple_of(columns);
}

Value argwhere_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("argwhere", a, {"input"}, 1);
  return Value::tensor(nonzero_of(arg(b, 0, "argwhere", "input"), "argwhere()"));
}

}  // namespace

const BuiltinEntry kCompositeMath[] = {
    {"reciprocal", reciprocal_builtin, "reciprocal(input)", "1 / x of each element. Example: reciprocal(tensor([2.0, 4.0]))"},
    {"square", square_builtin, "square(input)", "x * x of each element. Example: square(tensor([3.0]))"},
    {"exp2", exp2_builtin, "exp2(input)", "2^x of each element (exact at integers). Example: exp2(tensor([3.0]))"},
    {"log2", log2_builtin, "log2(input)", "The base-2 logarithm of each element. Example: log2(tensor([8.0]))"},
    {"log10", log10_builtin, "log10(input)", "The base-10 logarithm of each element. Example: log10(tensor([100.0]))"},
    {"tan", tan_builtin, "tan(input)", "The tangent of each element. Example: tan(tensor([0.5]))"},
    {"sinh", sinh_builtin, "sinh(input)", "The hyperbolic sine of each element. Example: sinh(tensor([0.5]))"},
    {"cosh", cosh_builtin, "cosh(input)", "The hyperbolic cosine of each element. Example: cosh(tensor([0.5]))"},
    {"asin", asin_builtin, "asin(input)", "The arcsine of each element. Example: asin(tensor([0.5]))"},
    {"acos", acos_builtin, "acos(input)", "The arccosine of each element. Example: acos(tensor([0.5]))"},
    {"atan", atan_builtin, "atan(input)", "The arctangent of each element. Example: atan(tensor([0.5]))"},
    {"asinh", asinh_builtin, "asinh(input)", "The inverse hyperbolic sine of each element. Example: asinh(tensor([0.5]))"},
    {"acosh", acosh_builtin, "acosh(input)", "The inverse hyperbolic cosine of each element. Example: acosh(tensor([2.0]))"},
    {"atanh", atanh_builtin, "atanh(input)", "The inverse hyperbolic tangent of each element. Example: atanh(tensor([0.5]))"},
    {"frac", frac_builtin, "frac(input)", "x - trunc(x) of each element. Example: frac(tensor([-1.25, 2.5]))"},
    {"isnan", isnan_builtin, "isnan(input)", "Where each element is NaN (bool). Example: isnan(tensor([1.0, float(\"nan\")]))"},
    {"isinf", isinf_builtin, "isinf(input)", "Where each element is infinite (bool). Example: isinf(tensor([1.0, float(\"inf\")]))"},
    {"isfinite", isfinite_builtin, "isfinite(input)",
     "Where each element is neither infinite nor NaN (bool). Example: isfinite(tensor([1.0, float(\"inf\")]))"},
    {"fmod", fmod_builtin, "fmod(input, other)",
     "The remainder of input / other with the dividend's sign (C's fmod; remainder has the divisor's). "
     "Example: fmod(tensor([-5.0, 5.0]), 3.0)"},
    {"floor_divide", floor_divide_builtin, "floor_divide(input, other)",
     "floor(input / other) of each element, as torch.floor_divide. Example: floor_divide(tensor([-7.0, 7.0]), 2.0)"},
    {"lerp", lerp_builtin, "lerp(input, end, weight)",
     "input + weight * (end - input), exact at weight 0 and 1, as torch.lerp. Example: lerp(zeros([2]), ones([2]), 0.25)"},
    {"nan_to_num", nan_to_num_builtin, "nan_to_num(input, nan=0.0, posinf=none, neginf=none)",
     "NaN and the infinities replaced (by default with 0 and the dtype's largest finite values). "
     "Example: nan_to_num(tensor([float(\"nan\"), float(\"inf\")]))"},
    {"prod", prod_builtin, "prod(input, dim=none, keepdim=false, dtype=none)",
     "The product of the elements (along dim), differentiable through zeros. Example: prod(tensor([[1.0, 2.0], [3.0, 4.0]]), dim=1)"},
    {"amax", amax_builtin, "amax(input, dim=[], keepdim=false)",
     "The maximum over dims (every dim when none), its gradient shared evenly by ties, as torch.amax. "
     "Example: amax(tensor([[1.0, 3.0], [3.0, 2.0]]), dim=1)"},
    {"amin", amin_builtin, "amin(input, dim=[], keepdim=false)",
     "The minimum over dims (every dim when none), its gradient shared evenly by ties, as torch.amin. "
     "Example: amin(tensor([[1.0, 3.0], [3.0, 2.0]]), dim=0)"},
    {"norm", norm_builtin, "norm(input, p=\"fro\", dim=none, keepdim=false)",
     "The p-norm of the elements (along dim): 2 (\"fro\"), 1, inf, -inf, 0 or any p; a zero gradient at 0. "
     "Example: norm(tensor([3.0, 4.0]))"},
    {"std_mean", std_mean_builtin, "std_mean(input, dim=none, correction=1, keepdim=false)",
     "(std, mean) over dims, as torch.std_mean. Example: std_mean(tensor([1.0, 2.0, 4.0]))"},
    {"var_mean", var_mean_builtin, "var_mean(input, dim=none, correction=1, keepdim=false)",
     "(var, mean) over dims, as torch.var_mean. Example: var_mean(tensor([1.0, 2.0, 4.0]))"},
    {"count_nonzero", count_nonzero_builtin, "count_nonzero(input, dim=none)",
     "How many elements are not zero (along dim), i64. Example: count_nonzero(tensor([0.0, 1.0, 2.0]))"},
    {"median", median_builtin, "median(input, dim=none, keepdim=false)",
     "The lower median of the elements, or (values, indices) along dim, as torch.median. "
     "Example: median(tensor([3.0, 1.0, 2.0, 4.0]))"},
    {"chunk", chunk_builtin, "chunk(input, chunks, dim=0)",
     "Up to chunks pieces of equal size (the last smaller) along dim, as torch.chunk. Example: chunk(arange(5), 2)"},
    {"narrow", narrow_builtin, "narrow(input, dim, start, length)",
     "The length elements from start along dim (a view). Example: narrow(arange(6), 0, 2, 3)"},
    {"take_along_dim", take_along_dim_builtin, "take_along_dim(input, indices, dim)",
     "gather along dim after broadcasting input and indices, as torch.take_along_dim. "
     "Example: take_along_dim(tensor([[3.0, 1.0]]), tensor([[1, 0]]), 1)"},
    {"diagonal", diagonal_builtin, "diagonal(input, offset=0, dim1=0, dim2=1)",
     nullptr},  // the row's doc (autograd/ops/strided_views.cpp)
    {"trace", trace_builtin, "trace(input)", "The sum of a matrix's diagonal. Example: trace(arange(9).reshape([3, 3]))"},
    {"diag", diag_builtin, "diag(input, diagonal=0)",
     "A 1-D input on a matrix's diagonal, or a matrix's diagonal, as torch.diag. Example: diag(tensor([1.0, 2.0]))"},
    {"outer", outer_builtin, "outer(input, vec2)",
     "The outer product of two vectors. Example: outer(tensor([1.0, 2.0]), tensor([1.0, 0.0, -1.0]))"},
    {"dot", dot_builtin, "dot(input, other)", "The dot product of two vectors. Example: dot(tensor([1.0, 2.0]), tensor([3.0, 4.0]))"},
    {"mm", mm_builtin, "mm(input, mat2)", "The product of two matrices. Example: mm(ones([2, 3]), ones([3, 4]))"},
    {"bmm", bmm_builtin, "bmm(input, mat2)",
     "The products of two batches of matrices [B, n, m] and [B, m, p]. Example: bmm(ones([2, 2, 3]), ones([2, 3, 4]))"},
    {"addmm", addmm_builtin, "addmm(input, mat1, mat2, beta=1, alpha=1)",
     "beta * input + alpha * (mat1 @ mat2), as torch.addmm. Example: addmm(zeros([2, 4]), ones([2, 3]), ones([3, 4]))"},
    {"baddbmm", baddbmm_builtin, "baddbmm(input, mat1, mat2, beta=1, alpha=1)",
     "beta * input + alpha * bmm(mat1, mat2), as torch.baddbmm. "
     "Example: baddbmm(zeros([2, 2, 4]), ones([2, 2, 3]), ones([2, 3, 4]))"},
    {"masked_select", masked_select_builtin, "masked_select(input, mask)",
     "The elements where the bool mask (broadcast with input) is true, as 1-D. "
     "Example: masked_select(tensor([1.0, -2.0, 3.0]), tensor([true, false, true]))"},
    {"nonzero", nonzero_builtin, "nonzero(input, as_tuple=false)",
     "The indices of the nonzero elements, [n, dims] (or one tensor per dim), as torch.nonzero. "
     "Example: nonzero(tensor([0.0, 1.0, 0.0, 2.0]))"},
    {"argwhere", argwhere_builtin, "argwhere(input)",
     "The indices of the nonzero elements, [n, dims], as torch.argwhere. Example: argwhere(tensor([[0, 1], [1, 0]]))"},
};

std::span<const BuiltinEntry> composite_math() { return kCompositeMath; }

}  // namespace nabla::interp
