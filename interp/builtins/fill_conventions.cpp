// The conventions of the rows that store a user's number into the input's dtype:
// clamp's bounds and masked_fill's value. Each number is checked against that dtype
// first (Note [A number into a dtype] in builtins_args.cpp: 2^40 as an i32 bound, or
// 300 filled into u8, wrapped without a word), and clamp's int bounds keep an integer
// input's dtype, as PyTorch's promotion does (clamp(tensor([1, 7]), 2, 5) was f32).
#include <string>

#include "autograd/ops.hpp"
#include "interp/builtins/builtins_internal.hpp"

namespace nabla::interp {

namespace {

// A bound as the row's attribute: an int stays an int (it keeps an integer input's
// dtype), a float is a double (it makes the result a float, as PyTorch's promotion).
AttrValue bound_attr(const Value& v, const Tensor& x, const std::string& fname, const char* name) {
  const std::string what = fname + "(): argument '" + name + "'";
  if (v.tag == Tag::Int || v.tag == Tag::Bool) {
    if (!is_floating(x.dtype())) check_fits_dtype(v, x.dtype(), what);
    return AttrValue(v.tag == Tag::Int ? v.i : int64_t{v.b});
  }
  const double d = as_num(v, what);
  check_fits_dtype(v, is_floating(x.dtype()) ? x.dtype() : DType::f32, what);  // an integer input's result is f32
  return AttrValue(d);
}

// min(max(x, lo), hi) in values, broadcast: a NaN in x or in a bound gives NaN there,
// as PyTorch's clamp (lt against it is false: x came through unclamped). lo or hi
// may be undefined (no bound).
Tensor clamped_values(const Tensor& x, const Tensor& lo, const Tensor& hi) {
  Tensor out = x;
  const bool floating = is_floating(x.dtype());
  if (lo.defined()) {
    out = where(lt(out, lo), lo, out);
    if (floating) out = where(ne(lo, lo), lo, out);
  }
  if (hi.defined()) {
    out = where(gt(out, hi), hi, out);
    if (floating) out = where(ne(hi, hi), hi, out);
  }
  return out;
}

// Note [Clamp's gradient with tensor bounds]
// PyTorch's clamp_backward and clamp_backward_min_max: x gets the gradient where
// lo <= x <= hi (so not where x is NaN, nor where lo > hi), lo where x < lo < hi, hi
// where x > hi or hi < lo; where none holds (a NaN, or x < lo = hi) nothing does. The
// value comes from the detached operands, and each operand is selected into it where
// its condition holds, where it equals the value (a NaN lo beside x > hi gives NaN,
// and PyTorch's gradient to hi there is dropped). x used to pass its gradient where it
// was NaN, and a NaN bound took the gradient.
Tensor clamp_with_gradient(const Tensor& x, const Tensor& lo, const Tensor& hi) {
  Tensor value = clamped_values(detach(x), lo.defined() ? detach(lo) : lo, hi.defined() ? detach(hi) : hi);
  if (!is_floating(value.dtype())) return value;
  auto both = [](const Tensor& a, const Tensor& b) { return mul(a, b); };
  auto either = [](const Tensor& a, const Tensor& b) { return where(a, a, b); };
  Tensor x_passes = lo.defined() ? ge(x, lo) : le(x, hi);
  if (lo.defined() && hi.defined()) x_passes = both(x_passes, le(x, hi));
  Tensor out = value;
  if (hi.defined()) {
    Tensor to_hi = lo.defined() ? either(gt(x, hi), lt(hi, lo)) : gt(x, hi);
    out = where(both(to_hi, eq(value, hi)), hi, out);
  }
  if (lo.defined()) {
    Tensor to_lo = hi.defined() ? both(lt(x, lo), lt(lo, hi)) : lt(x, lo);
    out = where(to_lo, lo, out);
  }
  return where(x_passes, x, out);
}

// clamp with a tensor bound (torch.clamp(x, min=t)): in the promoted dtype, broadcast,
// made of where (Note [Clamp's gradient with tensor bounds]). A number beside a tensor
// bound is a wrapped number.
Tensor clamp_by_tensors(const Tensor& x, const Value& min, const Value& max, const std::string& fname) {
  TensorList all = {x};
  if (!min.is_none()) all.push_back(to_tensor_arg(min, (fname + "(): argument 'min'").c_str()));
  if (!max.is_none()) all.push_back(to_tensor_arg(max, (fname + "(): argument 'max'").c_str()));
  const DType dt = result_type(all);
  Tensor lo = min.is_none() ? Tensor() : to_dtype(all[1], dt);
  Tensor hi = max.is_none() ? Tensor() : to_dtype(all.back(), dt);
  return clamp_with_gradient(to_dtype(x, dt), lo, hi);
}

// clamp and its alias clip: number bounds are the row's attributes, tensor bounds
// clamp_by_tensors.
Value clamp_named(CallArgs& a, const std::string& fname) {
  Bound b = bind(fname, a, {"input", "min", "max"}, 1);
  const Tensor& x = as_tensor(b[0], fname);
  if (!b.has(1) && !b.has(2)) fail(fname + "(): argument 'min' or argument 'max' must be given (both are none)");
  if ((b.has(1) && b[1].tag == Tag::Tensor) || (b.has(2) && b[2].tag == Tag::Tensor))
    return Value::tensor(clamp_by_tensors(x, b.has(1) ? b[1] : Value(), b.has(2) ? b[2] : Value(), fname));
  AttrValue lo = b.has(1) ? bound_attr(b[1], x, fname, "min") : AttrValue(NoneAttr{});
  AttrValue hi = b.has(2) ? bound_attr(b[2], x, fname, "max") : AttrValue(NoneAttr{});
  return Value::tensor(clamp_attrs(x, lo, hi));
}

}  // namespace

Value clamp_builtin(Evaluator&, CallArgs& a) { return clamp_named(a, "clamp"); }
Value clip_builtin(Evaluator&, CallArgs& a) { return clamp_named(a, "clip"); }

// masked_fill(input, mask, value): the row, once value is known to fit input's dtype.
Value masked_fill_builtin(Evaluator&, CallArgs& a) {
  CallArgs peek = a;
  Bound b = bind("masked_fill", peek, {"input", "mask", "value"}, 3);
  if (b[0].tag == Tag::Tensor) check_fits_dtype(b[2], b[0].t.dtype(), "masked_fill(): argument 'value'");
  return row_call("masked_fill", a);
}

}  // namespace nabla::interp
