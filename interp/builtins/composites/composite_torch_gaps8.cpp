// Round 8's PyTorch functions that nabla lacked, made of table ops (Note [Composites] in
// composites.hpp): gcd, lcm, frexp, nextafter, index_reduce, vdot, diagonal_scatter,
// narrow_copy, is_tensor, numel, is_nonzero and the window functions. Each is a global
// function and a tensor method (op_conventions()). tests/stdlib/test_gaps_vs_torch8.dsl
// checks them against PyTorch (tests/stdlib/reference/make_vs_torch8.py).
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "autograd/ops.hpp"
#include "autograd/ops/common.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "interp/builtins/composites/composites.hpp"
#include "interp/eval/evaluator.hpp"

namespace nabla::interp {

// Note [Memory formats]
// nabla's tensors are strided, and every op writes its result in row-major order, so of
// PyTorch's memory formats only torch.preserve_format and torch.contiguous_format
// describe what nabla does; each is spelled by its name as a str ("preserve_format",
// "contiguous_format"), as nabla spells devices. channels_last and channels_last_3d are
// refused: a result laid out that way would be a promise no op keeps.
void memory_format_arg(const Bound& b, size_t k, const char* fname) {
  if (!b.has(k)) return;
  const std::string head = std::string(fname) + "(): memory_format ";
  if (b[k].tag != Tag::Str) fail(head + "must be a str (\"preserve_format\" or \"contiguous_format\"), got " + type_name(b[k]));
  const std::string& f = b[k].as<StrObj>()->s;
  if (f == "preserve_format" || f == "contiguous_format") return;
  if (f == "channels_last" || f == "channels_last_3d")
    fail(head + "\"" + f + "\" is not supported: nabla lays tensors out in row-major order only (use \"preserve_format\" or \"contiguous_format\")");
  fail(head + "must be \"preserve_format\" or \"contiguous_format\", got \"" + f + "\"");
}

namespace {

using composite_args::ask_host_memory;
using composite_args::dim_arg;
using composite_args::fn_arg;
using composite_args::host_ints;
using composite_args::ints_str;
using composite_args::shape_of;

constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor zero_like_dtype(const Tensor& t) { return number_like(0.0, t); }
Tensor one_like_dtype(const Tensor& t) { return number_like(1.0, t); }
bool any_of(const Tensor& mask, const std::string& what) {
  return host_ints(sum(to_dtype(mask, DType::i64)), what)[0] != 0;
}

// x and y expanded to their broadcast shape; a mismatch names fname and its arguments.
std::pair<Tensor, Tensor> broadcast_both(const Tensor& x, const Tensor& y, const char* fname) {
  const std::string op = std::string(fname) + "()";
  const Shape shape = broadcast_shapes(op.c_str(), x.sizes(), y.sizes(), "input", "other");
  const IntList sizes(shape.begin(), shape.end());
  return {expand(x, sizes), expand(y, sizes)};
}

// Two integer (or bool) operands of fname, broadcast against each other and promoted:
// PyTorch's gcd and lcm are defined on integers only.
std::pair<Tensor, Tensor> integer_operands(const Bound& b, const char* fname) {
  Tensor x = arg(b, 0, fname, "input");
  Tensor y = operand(b[1], x, fname, "other");
  for (const Tensor* t : {&x, &y})
    if (!is_integral(t->dtype()) && t->dtype() != DType::b8)
      fail(std::string(fname) + "(): expected integer tensors, got " + dtype_name(x.dtype()) + " and " +
           dtype_name(y.dtype()) + " (PyTorch's " + fname + " is defined on integers only)");
  DType dt = result_type({x, y});
  if (dt == DType::b8) dt = DType::i64;
  return broadcast_both(to_dtype(x, dt), to_dtype(y, dt), fname);
}

// Note [gcd by Euclid's steps as ops]
// gcd(a, b) = gcd(b, a mod b) on |a| and |b|, all elements at once; an element whose b
// reached 0 keeps its a. Each round reads back whether any b is left (at most ~92 rounds
// for i64, Fibonacci's bound), so the loop runs as long as the slowest element needs.
Tensor gcd_of(Tensor a, Tensor b) {
  a = abs(a);
  b = abs(b);
  const Tensor zero = zero_like_dtype(a), one = one_like_dtype(a);
  while (true) {
    const Tensor left = ne(b, zero);
    if (!any_of(left, "gcd(): the Euclidean steps left")) return a;
    const Tensor rest = remainder(a, where(left, b, one));
    a = where(left, b, a);
    b = where(left, rest, zero);
  }
}

// torch.gcd: the greatest common divisor of each pair, non-negative; gcd(0, 0) = 0.
Value gcd_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("gcd", a, {"input", "other"}, 2);
  auto [x, y] = integer_operands(b, "gcd");
  return Value::tensor(gcd_of(x, y));
}

// torch.lcm: |a / gcd(a, b) * b|, 0 where either is 0.
Value lcm_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("lcm", a, {"input", "other"}, 2);
  auto [x, y] = integer_operands(b, "lcm");
  const Tensor g = gcd_of(x, y), zero = zero_like_dtype(x);
  const Tensor safe = where(eq(g, zero), one_like_dtype(x), g);
  return Value::tensor(where(eq(g, zero), zero, abs(floor_division(x, safe, "lcm") * y)));
}

// A floating input of fname (PyTorch's frexp and nextafter refuse integers).
Tensor floating_input(const Value& v, const char* fname, const char* name) {
  Tensor x = required_input(v, fname, name);
  if (!is_floating(x.dtype()))
    fail(std::string(fname) + "(): argument '" + name + "' must be a floating tensor, got " + dtype_name(x.dtype()));
  return x;
}

// Note [frexp by a rounded log2]
// The exponent e of x = m * 2^e with 0.5 <= |m| < 1 is floor(log2|x|) + 1, where log2
// may round across a power of 2 either way: the mantissa computed from it is moved back
// into [0.5, 1) by one halving or doubling. The scale 2^-e is applied as two factors, so
// neither overflows at the ends of the range (a subnormal's 2^1074, the largest's
// 2^-1024). The exponent is read without gradient; the mantissa is x * 2^-e, whose
// gradient is 2^-e, PyTorch's. 0, inf and NaN are themselves with exponent 0.
struct FrexpParts {
  Tensor mantissa, exponent;  // exponent: f64, whole numbers
};
Tensor power_of_two(const Tensor& e, DType dt) {
  return to_dtype(pow(scalar_tensor(2.0, DType::f64), e), dt);
}
FrexpParts frexp_parts(const Tensor& x) {
  const Tensor ax = to_dtype(abs(detach(x)), DType::f64);
  const Tensor zero = scalar_tensor(0.0, DType::f64), one = scalar_tensor(1.0, DType::f64);
  const Tensor nonzero = gt(ax, zero);  // (false for NaN)
  const Tensor regular = where(nonzero, lt(ax, scalar_tensor(kInf, DType::f64)), nonzero);  // finite and not 0
  const Tensor safe = where(regular, ax, one);
  Tensor e = floor(log(safe) / scalar_tensor(std::log(2.0), DType::f64)) + one;
  auto scaled = [&](const Tensor& exponent, const Tensor& v, DType dt) {
    const Tensor half = floor(exponent / scalar_tensor(2.0, DType::f64));
    return v * power_of_two(neg(half), dt) * power_of_two(neg(exponent - half), dt);
  };
  const Tensor m = scaled(e, safe, DType::f64);
  e = where(ge(m, one), e + one, where(lt(m, scalar_tensor(0.5, DType::f64)), e - one, e));
  e = where(regular, e, zero);
  return {where(regular, scaled(e, x, x.dtype()), x), e};
}

// torch.frexp: (mantissa, exponent) with x = mantissa * 2^exponent, 0.5 <= |mantissa| < 1,
// the exponent an i32.
Value frexp_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("frexp", a, {"input"}, 1);
  const FrexpParts p = frexp_parts(floating_input(b[0], "frexp", "input"));
  static const std::vector<std::string> kFields{"mantissa", "exponent"};
  Value t = make_tuple({Value::tensor(p.mantissa), Value::tensor(to_dtype(p.exponent, DType::i32))});
  t.as<ListObj>()->field_names = &kFields;
  return t;
}

// The precision (significand bits) and the smallest subnormal's exponent of f32 and f64.
struct FloatFormat {
  double digits, min_subnormal_exp, max_finite;
};
FloatFormat float_format(DType dt) {
  if (dt == DType::f64) return {53, -1074, std::numeric_limits<double>::max()};
  return {24, -149, static_cast<double>(std::numeric_limits<float>::max())};
}

// Note [nextafter by one ulp]
// The next representable value from x toward y is x plus or minus one unit in the last
// place of x's binade, 2^(e - digits) for x = m * 2^e (frexp): the step toward zero from
// a power of 2 is half that (the binade below is finer), no step is finer than the
// smallest subnormal, 0 steps to that subnormal, an infinity to the largest finite value
// of its sign, and x == y gives y (so nextafter(0, -0) is -0, C's rule). Every result is
// exact in x's dtype. It is not differentiable, as PyTorch's.
Tensor next_after(const Tensor& x, const Tensor& y) {
  const FloatFormat f = float_format(x.dtype());
  const DType dt = x.dtype();
  const Tensor up = sign(y - x);  // +1, -1 or 0 (NaN handled last)
  const FrexpParts p = frexp_parts(x);
  const Tensor away = gt(up * sign(x), zero_like_dtype(x));
  const Tensor at_power = eq(abs(to_dtype(p.mantissa, DType::f64)), scalar_tensor(0.5, DType::f64));
  const Tensor base = p.exponent - scalar_tensor(f.digits, DType::f64);
  const Tensor step_exp = where(at_power, where(away, base, base - scalar_tensor(1.0, DType::f64)), base);
  const Tensor smallest = scalar_tensor(std::ldexp(1.0, static_cast<int>(f.min_subnormal_exp)), dt);
  const Tensor step = maximum(power_of_two(maximum(step_exp, scalar_tensor(f.min_subnormal_exp, DType::f64)), dt), smallest);
  Tensor r = x + up * step;
  r = where(eq(x, zero_like_dtype(x)), up * smallest, r);
  r = where(eq(abs(x), number_like(kInf, x)), sign(x) * number_like(f.max_finite, x), r);
  r = where(eq(x, y), y, r);
  const Tensor nan = number_like(std::numeric_limits<double>::quiet_NaN(), x);
  return where(ne(x, x), nan, where(ne(y, y), nan, r));
}

// torch.nextafter: the next floating value after input toward other, elementwise.
Value nextafter_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("nextafter", a, {"input", "other"}, 2);
  Tensor x = floating_input(b[0], "nextafter", "input");
  Tensor y = operand(b[1], x, "nextafter", "other");
  if (y.dtype() != x.dtype())
    fail(std::string("nextafter(): expected both inputs of one dtype, got ") + dtype_name(x.dtype()) + " and " +
         dtype_name(y.dtype()));
  if (x.dtype() != DType::f32 && x.dtype() != DType::f64)
    fail(std::string("nextafter(): argument 'input' must be f32 or f64, got ") + dtype_name(x.dtype()));
  auto [xd, yd] = broadcast_both(detach(x), detach(y), "nextafter");
  return Value::tensor(next_after(xd, yd));
}

// torch.index_reduce: source's slices reduced into input's slices at index along dim
// with "prod", "mean", "amax" or "amin" (with input's own unless include_self=false);
// slices no index names keep input's. It is scatter_reduce with index expanded to
// source's shape, which gives the values and the gradients (PyTorch's index_reduce's
// are scatter_reduce's too).
Value index_reduce_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("index_reduce", a, {"input", "dim", "index", "source", "reduce", "include_self"}, 5);
  Tensor x = arg(b, 0, "index_reduce", "input");
  const int64_t dim = dim_arg(b, 1, std::max<int64_t>(x.dim(), 1), "index_reduce", 0);
  Tensor index = arg(b, 2, "index_reduce", "index");
  if (!is_index_type(index.dtype()))
    fail("index_reduce(): argument 'index' must be an i64 or i32 tensor, got " + std::string(dtype_name(index.dtype())));
  if (index.dim() > 1) fail("index_reduce(): argument 'index' must be 1-D, got shape " + index.shape_str());
  Tensor source = arg(b, 3, "index_reduce", "source");
  if (source.dtype() != x.dtype())
    fail(std::string("index_reduce(): argument 'source' must have the input's dtype ") + dtype_name(x.dtype()) + ", got " +
         dtype_name(source.dtype()));
  const std::string r = b[4].tag == Tag::Str ? b[4].as<StrObj>()->s : "";
  if (r != "prod" && r != "mean" && r != "amax" && r != "amin")
    fail("index_reduce(): argument 'reduce' must be \"prod\", \"mean\", \"amax\" or \"amin\", got " + repr(b[4]));
  if (x.dim() == 0) x = reshape(x, {1});
  if (source.dim() == 0) source = reshape(source, {1});
  IntList want = shape_of(x);
  want[static_cast<size_t>(dim)] = index.numel();
  if (shape_of(source) != want)
    fail("index_reduce(): argument 'source' must have shape " + ints_str(want) + " (the input's with " +
         std::to_string(index.numel()) + " along dim " + std::to_string(dim) + "), got " + source.shape_str());
  const int64_t n = x.sizes()[static_cast<size_t>(dim)];
  std::vector<int64_t> at = host_ints(index, "index_reduce(): index");
  for (int64_t& i : at) {
    if (i < -n || i >= n)
      fail("index_reduce(): argument 'index' holds " + std::to_string(i) + ", out of range for dim " + std::to_string(dim) +
           " of size " + std::to_string(n));
    if (i < 0) i += n;
  }
  IntList view_shape(static_cast<size_t>(x.dim()), 1);
  view_shape[static_cast<size_t>(dim)] = index.numel();
  const Tensor expanded = contiguous(expand(composite_args::index_tensor(at, view_shape, x.device()), shape_of(source)));
  CallArgs call;
  call.pos = {Value::integer(dim), Value::tensor(expanded), Value::tensor(source), b[4]};
  if (b.has(5)) call.pos.push_back(Value::boolean(as_bool(b[5], fn_arg("index_reduce", "include_self"))));
  Value out = ev.call_method(Value::tensor(x), "scatter_reduce", call);
  const Tensor& given = b[0].t;
  return given.dim() == 0 ? Value::tensor(reshape(out.t, {})) : out;
}


// torch.vdot: the dot product of two 1-D tensors of one size.
Value vdot_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("vdot", a, {"input", "other"}, 2);
  Tensor x = arg(b, 0, "vdot", "input"), y = arg(b, 1, "vdot", "other");
  if (x.dim() != 1 || y.dim() != 1 || x.numel() != y.numel())
    fail("vdot(): expected two 1-D tensors of one size, got shapes " + x.shape_str() + " and " + y.shape_str());
  if (x.dtype() != y.dtype())
    fail(std::string("vdot(): expected both inputs of one dtype, got ") + dtype_name(x.dtype()) + " and " + dtype_name(y.dtype()));
  return Value::tensor(sum(x * y));
}

// torch.diagonal_scatter: input with its offset diagonal in the plane (dim1, dim2) replaced
// by src (the shape input.diagonal(offset, dim1, dim2) has). The two dims are moved last,
// each place (r, c) of the diagonal takes src[..., r - max(-offset, 0)] (a gather), and
// `where` keeps input elsewhere: differentiable in input and src.
Value diagonal_scatter_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("diagonal_scatter", a, {"input", "src", "offset", "dim1", "dim2"}, 2);
  Tensor x = arg(b, 0, "diagonal_scatter", "input");
  Tensor src = arg(b, 1, "diagonal_scatter", "src");
  if (x.dim() < 2) fail("diagonal_scatter(): argument 'input' must have at least 2 dims, got shape " + x.shape_str());
  const int64_t offset = b.has(2) ? as_int(b[2], fn_arg("diagonal_scatter", "offset")) : 0;
  const int64_t d1 = dim_arg(b, 3, x.dim(), "diagonal_scatter", 0, "dim1");
  const int64_t d2 = dim_arg(b, 4, x.dim(), "diagonal_scatter", 1, "dim2");
  if (d1 == d2) fail("diagonal_scatter(): dim1 and dim2 must differ, got " + std::to_string(d1) + " twice");
  CallArgs call;
  call.pos = {Value::integer(offset), Value::integer(d1), Value::integer(d2)};
  const Tensor diag = ev.call_method(Value::tensor(x), "diagonal", call).t;
  if (shape_of(src) != shape_of(diag))
    fail("diagonal_scatter(): argument 'src' must have the diagonal's shape " + ints_str(shape_of(diag)) + ", got " +
         src.shape_str());
  if (src.dtype() != x.dtype())
    fail(std::string("diagonal_scatter(): argument 'src' must have the input's dtype ") + dtype_name(x.dtype()) + ", got " +
         dtype_name(src.dtype()));
  IntList order;
  for (int64_t d = 0; d < x.dim(); ++d)
    if (d != d1 && d != d2) order.push_back(d);
  order.push_back(d1);
  order.push_back(d2);
  IntList back(order.size());
  for (size_t k = 0; k < order.size(); ++k) back[static_cast<size_t>(order[k])] = static_cast<int64_t>(k);
  const Tensor moved = permute(x, order);
  const int64_t rows = x.sizes()[static_cast<size_t>(d1)], cols = x.sizes()[static_cast<size_t>(d2)];
  const int64_t length = diag.sizes().back();
  if (length == 0) return Value::tensor(x * number_like(1.0, x));  // an empty diagonal: a copy
  const Tensor r = reshape(arange(rows), {rows, 1}), c = reshape(arange(cols), {1, cols});
  const Tensor on = eq(c - r, int_scalar_tensor(offset));
  const Tensor k = to_dtype(clamp(r - int_scalar_tensor(std::max<int64_t>(-offset, 0)), 0.0, static_cast<double>(length - 1)), DType::i64);
  IntList gather_shape = shape_of(moved);
  const Tensor index = to_device(contiguous(expand(expand(k, {rows, cols}), gather_shape)), x.device());
  IntList src_shape = shape_of(src);
  src_shape.insert(src_shape.end() - 1, 1);  // [..., 1, L]: a row per matrix row
  IntList src_wide = shape_of(src);
  src_wide.insert(src_wide.end() - 1, rows);
  const Tensor spread = gather(expand(reshape(src, src_shape), src_wide), -1, index);
  const Tensor placed = where(to_device(on, x.device()), spread, moved);
  return Value::tensor(permute(placed, back));
}

// torch.narrow_copy: input.narrow(dim, start, length) as a new tensor.
Value narrow_copy_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("narrow_copy", a, {"input", "dim", "start", "length"}, 4);
  Tensor x = arg(b, 0, "narrow_copy", "input");
  CallArgs call;
  call.pos = {b[1], b[2], b[3]};
  return Value::tensor(contiguous(alias(ev.call_method(Value::tensor(x), "narrow", call).t)) * number_like(1.0, x));
}

// torch.is_tensor(obj), torch.numel(input) and Tensor.is_nonzero().
Value is_tensor_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("is_tensor", a, {"obj"}, 1);
  return Value::boolean(b[0].tag == Tag::Tensor);
}
Value numel_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("numel", a, {"input"}, 1);
  return Value::integer(arg(b, 0, "numel", "input").numel());
}
Value is_nonzero_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("is_nonzero", a, {"input"}, 1);
  Tensor x = arg(b, 0, "is_nonzero", "input");
  if (x.numel() != 1)
    fail("is_nonzero(): a tensor of one element is expected (the truth of " + std::to_string(x.numel()) +
         " elements is ambiguous), got shape " + x.shape_str());
  return Value::boolean(composite_args::host_doubles(x, "is_nonzero()")[0] != 0.0);
}

// Note [Window functions]
// torch's windows of window_length N, computed as PyTorch's formulas in f64 and cast:
// periodic=true (the default) is the symmetric window of N + 1 without its last
// value (for spectral analysis), N = 1 is [1] and N = 0 empty. Hann is Hamming's
// cosine with alpha = beta = 0.5; Bartlett's rising half is 2n / (N - 1) and its
// falling half 2 - 2n / (N - 1), the halves split as PyTorch's; Kaiser's is
// I0(beta sqrt(1 - ((n - m) / m)^2)) / I0(beta), m = (N - 1) / 2.
struct WindowArgs {
  int64_t length;
  bool periodic;
  DType dtype;
  Device device;
  bool requires_grad;
};
WindowArgs window_args(const Bound& b, const char* fname, size_t dtype_at) {
  WindowArgs w;
  w.length = as_int(b[0], fn_arg(fname, "window_length"));
  if (w.length < 0) fail(std::string(fname) + "(): argument 'window_length' must be at least 0, got " + std::to_string(w.length));
  // The values are made on the host, then a tensor of them: asked for first, so
  // hann_window(2**62) is an error at the user's line, not minutes of filling memory.
  ask_host_memory(w.length, 2 * sizeof(double), std::string(fname) + "(): window_length=" + std::to_string(w.length));
  w.periodic = !b.has(1) || as_bool(b[1], fn_arg(fname, "periodic"));
  w.dtype = b.has(dtype_at) ? as_dtype(b[dtype_at], fn_arg(fname, "dtype")) : DType::f32;
  if (!is_floating(w.dtype))
    fail(std::string(fname) + "(): argument 'dtype' must be a floating dtype, got " + dtype_name(w.dtype));
  w.device = b.has(dtype_at + 1) ? as_device(b[dtype_at + 1], fn_arg(fname, "device")) : cpu_device();
  w.requires_grad = b.has(dtype_at + 2) && as_bool(b[dtype_at + 2], fn_arg(fname, "requires_grad"));
  return w;
}
template <typename F>
Value make_window(const WindowArgs& w, F value_at) {
  std::vector<double> v;
  if (w.length == 1) v.push_back(1.0);
  if (w.length > 1) {
    const int64_t n = w.periodic ? w.length + 1 : w.length;
    for (int64_t i = 0; i < w.length; ++i) v.push_back(value_at(static_cast<double>(i), n));
  }
  Tensor out = to_device(tensor_from(v, Shape({static_cast<int64_t>(v.size())}), w.dtype), w.device);
  if (w.requires_grad) out.set_requires_grad(true);
  return Value::tensor(out);
}
constexpr double kPi = 3.14159265358979323846;

Value cosine_window(CallArgs& a, const char* fname, bool hann) {
  Bound b = hann ? bind(fname, a, {"window_length", "periodic", "dtype", "device", "requires_grad"}, 1)
                 : bind(fname, a, {"window_length", "periodic", "alpha", "beta", "dtype", "device", "requires_grad"}, 1);
  const double alpha = !hann && b.has(2) ? as_num(b[2], fn_arg(fname, "alpha")) : hann ? 0.5 : 0.54;
  const double beta = !hann && b.has(3) ? as_num(b[3], fn_arg(fname, "beta")) : hann ? 0.5 : 0.46;
  return make_window(window_args(b, fname, hann ? 2 : 4), [&](double i, int64_t n) {
    return alpha - beta * std::cos(i * (2.0 * kPi / static_cast<double>(n - 1)));
  });
}
Value hann_window_builtin(Evaluator&, CallArgs& a) { return cosine_window(a, "hann_window", true); }
Value hamming_window_builtin(Evaluator&, CallArgs& a) { return cosine_window(a, "hamming_window", false); }

Value blackman_window_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("blackman_window", a, {"window_length", "periodic", "dtype", "device", "requires_grad"}, 1);
  return make_window(window_args(b, "blackman_window", 2), [](double i, int64_t n) {
    const double t = i * (kPi / static_cast<double>(n - 1));
    return 0.08 * std::cos(4.0 * t) - 0.5 * std::cos(2.0 * t) + 0.42;
  });
}

Value bartlett_window_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("bartlett_window", a, {"window_length", "periodic", "dtype", "device", "requires_grad"}, 1);
  return make_window(window_args(b, "bartlett_window", 2), [](double i, int64_t n) {
    const double rising = i * (2.0 / static_cast<double>(n - 1));
    return static_cast<int64_t>(i) < ((n - 1) >> 1) + 1 ? rising : 2.0 - rising;
  });
}

// I0(x) for x >= 0 or NaN: std::cyl_bessel_i throws past x of about 1e5 ("Argument x
// too large in __bessel_ik", which reached the user for beta=inf or 1e300); I0 passes
// the largest double near x = 716, so an x past 713 is taken as inf, and inf / inf
// makes the window NaN, as PyTorch's is for a beta past its float range.
double bessel_i0(double x) {
  if (std::isnan(x)) return x;
  return x > 713.0 ? std::numeric_limits<double>::infinity() : std::cyl_bessel_i(0.0, x);
}

Value kaiser_window_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("kaiser_window", a, {"window_length", "periodic", "beta", "dtype", "device", "requires_grad"}, 1);
  const double beta = b.has(2) ? as_num(b[2], fn_arg("kaiser_window", "beta")) : 12.0;
  if (!(beta >= 0)) fail("kaiser_window(): argument 'beta' must be at least 0, got " + std::to_string(beta));
  return make_window(window_args(b, "kaiser_window", 3), [beta](double i, int64_t n) {
    const double m = static_cast<double>(n - 1) / 2.0, r = (i - m) / m;
    return bessel_i0(beta * std::sqrt(std::max(0.0, 1.0 - r * r))) / bessel_i0(beta);
  });
}

// torch.clone(input, memory_format=torch.preserve_format): a copy with its own storage.
Value clone_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("clone", a, {"input", "memory_format"}, 1);
  memory_format_arg(b, 1, "clone");
  return Value::tensor(clone_tensor(arg(b, 0, "clone", "input")));
}

const BuiltinEntry kCompositeTorchGaps8[] = {
    {"gcd", gcd_builtin, "gcd(input, other)",
     "The greatest common divisor of each pair of integers (non-negative; gcd(0, 0) = 0), broadcast, as torch.gcd. "
     "Example: gcd(tensor([12, -18, 0]), tensor([8, 27, 5]))"},
    {"lcm", lcm_builtin, "lcm(input, other)",
     "The least common multiple of each pair of integers (non-negative; 0 where either is 0), broadcast, as torch.lcm. "
     "Example: lcm(tensor([4, 6, 0]), tensor([6, 4, 5]))"},
    {"frexp", frexp_builtin, "frexp(input)",
     "(mantissa, exponent): input = mantissa * 2 ** exponent with 0.5 <= |mantissa| < 1 and an i32 exponent (0 for "
     "0, inf and nan), as torch.frexp. Example: frexp(tensor([8.0, -0.3, 0.0]))"},
    {"nextafter", nextafter_builtin, "nextafter(input, other)",
     "The next representable value after input toward other (f32 or f64, elementwise; not differentiable), as "
     "torch.nextafter. Example: nextafter(tensor([1.0], dtype=f64), tensor([2.0], dtype=f64)) - 1"},
    {"index_reduce", index_reduce_builtin, "index_reduce(input, dim, index, source, reduce, include_self=true)",
     "input with source's slices reduced into its slices at index along dim by \"prod\", \"mean\", \"amax\" or "
     "\"amin\" (with input's own unless include_self=false), as torch.index_reduce (x.index_reduce_ in place). "
     "Example: index_reduce(ones([3, 2]), 0, tensor([0, 2, 0]), full([3, 2], 2.0), \"prod\")"},
    {"vdot", vdot_builtin, "vdot(input, other)",
     "The dot product of two 1-D tensors of one size (real: no conjugate), as torch.vdot. Example: vdot(ones(3), arange(3.0))"},
    {"diagonal_scatter", diagonal_scatter_builtin, "diagonal_scatter(input, src, offset=0, dim1=0, dim2=1)",
     "input with its offset diagonal in dims dim1 and dim2 replaced by src (differentiable in both), as "
     "torch.diagonal_scatter. Example: diagonal_scatter(zeros([3, 3]), ones(3))"},
    {"narrow_copy", narrow_copy_builtin, "narrow_copy(input, dim, start, length)",
     "A copy of input.narrow(dim, start, length), as torch.narrow_copy. Example: narrow_copy(arange(5.0), 0, 1, 2)"},
    {"clone", clone_builtin, "clone(input, memory_format=\"preserve_format\")",
     "A copy of input with its own storage (differentiable), as torch.clone; memory_format is \"preserve_format\" "
     "or \"contiguous_format\" (Note [Memory formats]). Example: clone(ones(2))"},
    {"is_tensor", is_tensor_builtin, "is_tensor(obj)", "Whether obj is a tensor, as torch.is_tensor. Example: is_tensor(ones(2))"},
    {"numel", numel_builtin, "numel(input)", "The number of elements of input, as torch.numel. Example: numel(ones([2, 3]))"},
    {"is_nonzero", is_nonzero_builtin, "is_nonzero(input)",
     "Whether a one-element tensor is not 0 (more elements are an error), as Tensor.is_nonzero. "
     "Example: tensor([1.0]).is_nonzero()"},
    {"hann_window", hann_window_builtin, "hann_window(window_length, periodic=true, dtype=f32, device=\"cpu\", requires_grad=false)",
     "The Hann window, as torch.hann_window (Note [Window functions]). Example: hann_window(5, periodic=false)"},
    {"hamming_window", hamming_window_builtin,
     "hamming_window(window_length, periodic=true, alpha=0.54, beta=0.46, dtype=f32, device=\"cpu\", requires_grad=false)",
     "The Hamming window alpha - beta cos(2 pi n / (N - 1)), as torch.hamming_window. Example: hamming_window(5)"},
    {"blackman_window", blackman_window_builtin,
     "blackman_window(window_length, periodic=true, dtype=f32, device=\"cpu\", requires_grad=false)",
     "The Blackman window, as torch.blackman_window. Example: blackman_window(5)"},
    {"bartlett_window", bartlett_window_builtin,
     "bartlett_window(window_length, periodic=true, dtype=f32, device=\"cpu\", requires_grad=false)",
     "The Bartlett (triangular) window, as torch.bartlett_window. Example: bartlett_window(5)"},
    {"kaiser_window", kaiser_window_builtin,
     "kaiser_window(window_length, periodic=true, beta=12.0, dtype=f32, device=\"cpu\", requires_grad=false)",
     "The Kaiser window of shape parameter beta, as torch.kaiser_window. Example: kaiser_window(5, beta=8.0)"},
};

}  // namespace

std::span<const BuiltinEntry> composite_torch_gaps8() { return kCompositeTorchGaps8; }

}  // namespace nabla::interp
