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

// clamp with a tensor bound (torch.clamp(x, min=t)): min(max(x, min), max) in the
// promoted dtype, broadcast, made of where, so the gradient goes to x where it is not
// clamped and to the bound where it is, as PyTorch's. A number beside a tensor bound is
// a wrapped number. A NaN in a bound gives NaN there, as PyTorch's maximum/minimum do
// (lt against it is false: x came through unclamped).
Tensor clamp_by_tensors(const Tensor& x, const Value& min, const Value& max, const std::string& fname) {
  TensorList all = {x};
  if (!min.is_none()) all.push_back(to_tensor_arg(min, (fname + "(): argument 'min'").c_str()));
  if (!max.is_none()) all.push_back(to_tensor_arg(max, (fname + "(): argument 'max'").c_str()));
  const DType dt = result_type(all);
  Tensor out = to_dtype(x, dt);
  size_t k = 1;
  if (!min.is_none()) {
    Tensor lo = to_dtype(all[k++], dt);
    out = where(lt(out, lo), lo, out);
    if (is_floating(dt)) out = where(ne(lo, lo), lo, out);
  }
  if (!max.is_none()) {
    Tensor hi = to_dtype(all[k], dt);
    out = where(gt(out, hi), hi, out);
    if (is_floating(dt)) out = where(ne(hi, hi), hi, out);
  }
  return out;
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
