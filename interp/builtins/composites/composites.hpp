// The composite functions of PyTorch's API that are not rows of the op table but are
// made of them: their tables, which op_conventions() joins, and what the files share.
//
// Note [Composites]
// A PyTorch function that nabla has no row for (tan, norm, median, unfold, l1_loss,
// any, ...) is a composite: C++ that calls rows only, through autograd/ops.hpp. So it
// differentiates to any order (its gradient is the rows' gradients), traces into a
// graph as those rows (fusion, compile and the memory plan see them), and runs on
// every device the rows run on. Each is one BuiltinEntry with its own doc and example,
// in composite_math.cpp, composite_nn.cpp, composite_tensor.cpp or composite_spatial.cpp;
// op_conventions() joins the tables, so each is a global function and a tensor method (x.norm()) and
// has an in-place x.op_(). A composite that needs precision the rows do not give
// keeps the rows' exactness instead (floor_division, lerp's two forms, asinh without
// cancellation). tests/stdlib/test_composites.dsl (made by
// tests/stdlib/reference/make_composites.py) checks each against PyTorch in f64.
#pragma once
#include <algorithm>
#include <initializer_list>
#include <span>
#include <string>

#include "autograd/ops.hpp"
#include "autograd/trace.hpp"
#include "interp/builtins/builtin_table.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "tensor/allocator.hpp"

namespace nabla::interp {

// composite_math.cpp: elementwise math, reductions, shapes and products.
std::span<const BuiltinEntry> composite_math();
// composite_nn.cpp: torch.nn.functional's activations, distances, losses and
// reshaping functions.
std::span<const BuiltinEntry> composite_nn();
// composite_tensor.cpp: any/all, logic, whole-tensor comparisons, shape and
// arithmetic conveniences of the tensor API.
std::span<const BuiltinEntry> composite_tensor();
// composite_spatial.cpp: the 3-D pools, conv_transpose3d, grid_sample and affine_grid.
std::span<const BuiltinEntry> composite_spatial();
// composite_extra_shape.cpp: tile, broadcast_to, rot90, tensor_split, take, the scatters
// and index_* functions.
std::span<const BuiltinEntry> composite_extra_shape();
// composite_extra_ordering.cpp: unique, unique_consecutive, bincount, histc, kthvalue,
// mode, cummax, cummin (values found on the host; indices and counts not differentiable).
std::span<const BuiltinEntry> composite_extra_ordering();
// composite_extra_math.cpp: clip, xlogy, sinc, hypot, fmax, nansum, kron, cross, cov,
// corrcoef, renorm, bernoulli, ...
std::span<const BuiltinEntry> composite_extra_math();
// composite_extra_math.cpp: the methods PyTorch has only on tensors (sum_to_size, dist,
// normal_, uniform_, exponential_, random_, bernoulli_); tensor_methods() joins them.
std::span<const BuiltinEntry> composite_methods();
// composite_method_forms.cpp: the methods whose arguments are not the global
// function's with the tensor first (Tensor.where, Tensor.unfold); tensor_methods()
// joins them, so they come before the global function of the same name.
std::span<const BuiltinEntry> composite_method_forms();

// composite_torch_aliases.cpp: PyTorch's other names (multiply, greater, arccos, fix,
// sgn, ...) and dtype predicates; the methods that report storage (stride,
// element_size, type), which tensor_methods() joins through composite_methods().
std::span<const BuiltinEntry> composite_torch_aliases();
std::span<const BuiltinEntry> torch_storage_methods();
// composite_integer_ops.cpp: pow with PyTorch's integer rule, the bitwise functions.
std::span<const BuiltinEntry> composite_integer_ops();
// composite_torch_search.cpp: aminmax, nanmedian, nanquantile, msort, isin, bucketize,
// searchsorted.
std::span<const BuiltinEntry> composite_torch_search();
// composite_torch_build.cpp: tril_indices, triu_indices, cartesian_prod, block_diag,
// vander.
std::span<const BuiltinEntry> composite_torch_build();
// composite_torch_more.cpp: polygamma(n, input), rsub, logdet, trapezoid, trapz and
// mse_loss with a broadcasting target; x.polygamma(n), which composite_method_forms()
// lists.
std::span<const BuiltinEntry> composite_torch_more();
// composite_torch_gaps7.cpp: round 7's functions (gradient, combinations, histogram,
// addmv, result_type, ...) and torch.erfc, erfinv, i0 and mvlgamma (stdlib/special.dsl).
std::span<const BuiltinEntry> composite_torch_gaps7();
// composite_torch_gaps8.cpp: round 8's gcd, lcm, frexp, nextafter and index_reduce.
std::span<const BuiltinEntry> composite_torch_gaps8();
// composite_torch_gaps9.cpp: round 9's as_strided and histogramdd (stdlib/_torch_gaps9.dsl).
std::span<const BuiltinEntry> composite_torch_gaps9();
// "<what> must be a floating tensor, got i64 (<why>; convert with .float())" unless x is
// floating: lerp's and the norms' refusal of integer and bool tensors, as PyTorch's.
void require_floating(const Tensor& x, const char* what, const char* why);
// interpolate(..., antialias=true) for bilinear and bicubic (stdlib/_nn_antialias.dsl).
Value antialiased_interpolate(Evaluator& ev, const Bound& b);
// composite_torch_gaps8.cpp: reads b[k] as torch's memory_format (none, "preserve_format" or
// "contiguous_format"; Note [Memory formats]) for fname's error.
void memory_format_arg(const Bound& b, size_t k, const char* fname);
Value polygamma_method(Evaluator&, CallArgs& a);
// A zero of x's shape whose gradient to x is NaN where `where_nan` holds (bool, of
// x's shape), as PyTorch's formulas give there (Note [A NaN gradient as PyTorch's
// formula gives]).
Tensor nan_gradient_at(const Tensor& x, const Tensor& where_nan);

// base ** exponent with torch.pow's dtypes: integers raised to integers stay integers
// (exact; a negative number exponent is PyTorch's error), else the pow row.
Tensor tensor_pow(const Tensor& base, const Tensor& exponent);
// x & y, x | y, x ^ y, x << y, x >> y of integer or bool tensors, broadcast, in their
// promoted dtype (errors name PyTorch's function: bitwise_and, ...); ~x of one.
enum class Bitwise { And, Or, Xor, Shl, Shr };
const char* bitwise_name(Bitwise op);
Tensor bitwise_binary(const Tensor& x, const Tensor& y, Bitwise op);
Tensor bitwise_not_of(const Tensor& x);

// floor(x / y) exactly, as Python's // (composite_math.cpp); trunc(x / y). Integer
// operands give an integer quotient, as PyTorch's.
// `op` names the op the user called in a zero integer divisor's error.
Tensor floor_division(const Tensor& x, const Tensor& y, const char* op = "floor_divide");
Tensor truncated_division(const Tensor& x, const Tensor& y, const char* op = "div");

// Where x is zero (false), bool.
Tensor logical_not_of(const Tensor& x);

// What the composite files share: an argument as a tensor, a number as a 0-dim tensor
// of `like`'s dtype (a wrapped number, as PyTorch's, so that it does not widen the
// result), a number-or-tensor argument, and a one-tensor function's call.
// A composite's tensor arguments are required (see required_input_of): none read
// through as an undefined tensor was SIGSEGV.
inline Tensor required_input(const Value& v, const std::string& fname, const std::string& name) {
  return required_input_of(v, fname, name);
}
inline Tensor arg(const Bound& b, size_t k, const char* fname, const char* name) { return required_input(b[k], fname, name); }
inline Tensor number_like(double value, const Tensor& like) { return scalar_tensor(value, like.dtype()); }
// Note [A wrapped number past an integer dtype]
// A number beside an integer tensor takes the tensor's dtype, wrapping as PyTorch's
// (i16 // 40000 divides by -25536, as i16 % 40000 takes the remainder by -25536).
// floor_division and truncated_division read the divisor twice, through remainder
// (which wrapped it) and through f64 or a sign test (which did not), so i16 // 40000
// was 1, neither 0 nor PyTorch's -1, and a // d * d + a % d was not a: both cast
// their operands to the result type before either reading.
//
// A number operand takes like's dtype within like's kind, and lifts the kind as a
// wrapped number does: 2.5 beside an integer tensor is an f32, 1 beside a bool tensor
// an i64, as PyTorch's promotion (fmod(i64, 2.5) was fmod by 2, an i64).
inline Tensor operand(const Value& v, const Tensor& like, const std::string& fname, const std::string& name) {
  if (!v.is_num()) return required_input(v, fname, name);
  const double number = as_num(v, fname + "(): argument '" + name + "'");
  return scalar_tensor(number, result_type({like, to_tensor_arg(v, fname.c_str())}));
}
inline Value unary(CallArgs& a, const char* fname, Tensor (*fn)(const Tensor&)) {
  Bound b = bind(fname, a, {"input"}, 1);
  return Value::tensor(fn(arg(b, 0, fname, "input")));
}
// A zero of t's shape and dtype selected from t: it gives t a zero gradient where
// PyTorch's does (an argument a composite's value does not depend on, as copysign's
// other or a nearest grid_sample's grid: their .grad is zeros in PyTorch, not none).
// Subtracted from a value, it keeps -0.0 and promotes to t's dtype.
inline Tensor zero_selected_from(const Tensor& t) {
  return where(ones(t.sizes(), DType::b8, t.device()), number_like(0.0, t), t);
}

// The message helpers of the composite_extra files: "f(): argument 'dim'", a tensor's
// shape as a list, a list of ints as text, a dim wrapped into [0, ndim) or an error
// naming the function and the argument.
namespace composite_args {
inline std::string fn_arg(const std::string& fname, const char* name) { return fname + "(): argument '" + name + "'"; }
inline IntList shape_of(const Tensor& t) { return IntList(t.sizes().begin(), t.sizes().end()); }
// A source written into the input (scatter's src, index_copy's, put's, masked_scatter's
// source) must have its dtype, as PyTorch's: a cast wrapped an i64 40000 put into i16.
inline void same_dtype(const Tensor& x, const Tensor& src, const std::string& fname, const char* name) {
  if (src.dtype() != x.dtype())
    fail(fn_arg(fname, name) + " must have the input's dtype " + dtype_name(x.dtype()) + ", got " + dtype_name(src.dtype()));
}
// Such a source given as a number: one that fits the input's dtype (Note [A number into
// a dtype]), as x's dtype; a tensor: of x's dtype.
inline Tensor source_like(const Value& v, const Tensor& x, const std::string& fname, const char* name) {
  if (!v.is_num()) {
    Tensor src = required_input(v, fname, name);
    same_dtype(x, src, fname, name);
    return src;
  }
  check_fits_dtype(v, x.dtype(), fn_arg(fname, name));
  return to_dtype(to_tensor_arg(v, fname.c_str()), x.dtype());
}
inline std::string ints_str(const IntList& v) {
  std::string s = "[";
  for (size_t k = 0; k < v.size(); ++k) s += (k ? ", " : "") + std::to_string(v[k]);
  return s + "]";
}
inline int64_t dim_in(int64_t d, int64_t ndim, const std::string& fname, const char* name = "dim") {
  return wrap_dim(d, ndim, fn_arg(fname, name).c_str());
}
// A dim argument (or fallback when not given), wrapped into [0, ndim).
inline int64_t dim_arg(const Bound& b, size_t k, int64_t ndim, const std::string& fname, int64_t fallback,
                const char* name = "dim") {
  return dim_in(b.has(k) ? as_int(b[k], fn_arg(fname, name)) : fallback, ndim, fname, name);
}

// The elements of t on the CPU: as i64, or as doubles. `what` names the read for a
// graph capture (autograd/trace.hpp's notify_value_read), which cannot replay a result
// that values shaped: compile() then says so, where it would keep this call's
// positions as constants for every call.
inline std::vector<int64_t> host_ints(const Tensor& t, const std::string& what) {
  notify_value_read(t, what);
  Tensor c = contiguous(to_device(to_dtype(detach(t), DType::i64), cpu_device()));
  const int64_t* p = c.data<int64_t>();
  return std::vector<int64_t>(p, p + c.numel());
}
inline std::vector<double> host_doubles(const Tensor& t, const std::string& what) {
  notify_value_read(t, what);
  Tensor c = contiguous(to_device(to_dtype(detach(t), DType::f64), cpu_device()));
  const double* p = c.data<double>();
  return std::vector<double>(p, p + c.numel());
}
// A host array of `count` items that a user's number sized (bincount's minlength,
// histc's bins, tensor_split's sections): asked for first (Note [Host memory budget]
// in tensor/allocator.cpp), so 10^12 of them is an error naming `what`, not a bare
// out of memory or a hang.
inline void ask_host_memory(int64_t count, size_t item_bytes, const std::string& what) {
  CpuAllocator::instance().check_host_request(static_cast<size_t>(std::max<int64_t>(count, 0)), item_bytes, what);
}
// The element-wise losses broadcast their tensors together, as PyTorch's do; shapes
// that do not broadcast are named by the loss and its arguments here, not later by an
// inner op ("sub: argument 'other' ...") that the user never called.
struct Named {
  const char* name;
  const Tensor& t;
};
inline void check_broadcast(const std::string& fname, std::initializer_list<Named> args) {
  IntList out;
  for (const Named& a : args) {
    const int64_t nd = a.t.dim();
    if (static_cast<int64_t>(out.size()) < nd) out.insert(out.begin(), static_cast<size_t>(nd) - out.size(), 1);
    for (int64_t k = 1; k <= nd; ++k) {
      int64_t& o = out[out.size() - static_cast<size_t>(k)];
      const int64_t n = a.t.sizes()[static_cast<size_t>(nd - k)];
      if (o == 1) o = n;
      else if (n != 1 && n != o) {
        std::string shapes;
        for (const Named& each : args) shapes += std::string(shapes.empty() ? "" : ", ") + each.name + " " + each.t.shape_str();
        fail(fname + "(): the shapes of " + shapes + " do not broadcast together (dim -" + std::to_string(k) + ": " +
             std::to_string(o) + " vs " + std::to_string(n) + " in argument '" + a.name + "')");
      }
    }
  }
}

// An i64 tensor of `values` with `shape` on `device`.
inline Tensor index_tensor(const std::vector<int64_t>& values, const IntList& shape, const Device& device) {
  std::vector<double> d(values.begin(), values.end());
  return to_device(tensor_from(d, Shape(shape), DType::i64), device);
}
}  // namespace composite_args

// v, a median of flat's elements, with the gradient shared evenly by every element
// equal to it (PyTorch's rule for median() and nanmedian() of all elements).
Tensor evenly_shared(const Tensor& flat, const Tensor& v);

// ||x||_p over dims (every dim when empty), with a zero gradient where it is 0.
Tensor vector_norm(const Tensor& x, double p, const IntList& dims, bool keepdim);

// PyTorch's divisor_override of avg_pool2d/3d (composite_spatial.cpp): avg_excluding_pad,
// an average pool's [.., *out] with count_include_pad=false over spatial sizes `in`,
// as each window's sum over divisor.
Tensor avg_pool_to_divisor(const Tensor& avg_excluding_pad, const IntList& in, const IntList& kernel,
                           const IntList& stride, const IntList& padding, double divisor);

}  // namespace nabla::interp
