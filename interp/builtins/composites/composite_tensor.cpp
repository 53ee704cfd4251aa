// Composite functions of PyTorch's tensor API, made of table ops: reductions to bool
// (any, all), logic on any dtype (logical_and, ...), comparisons of whole tensors
// (equal, allclose, isclose), shape conveniences (expand_as, view_as, reshape_as,
// type_as, new_zeros, movedim, swapaxes, hstack, vstack, unflatten, ravel) and a few
// arithmetic ones (clamp_min, clamp_max, addcmul, addcdiv, diff, logcumsumexp,
// heaviside), and index_put. Each is a global function and a tensor method, as the ops are
// (op_conventions()).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "autograd/ops.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "interp/builtins/composites/composites.hpp"
#include "interp/eval/evaluator.hpp"

namespace nabla::interp {

namespace {

Tensor truth(const Tensor& x) { return x.dtype() == DType::b8 ? x : ne(x, scalar_tensor(0.0, x.dtype())); }

IntList dims_of(const Bound& b, size_t k, const Tensor& x, const char* fname) {
  if (!b.has(k)) return {};
  IntList dims = b[k].tag == Tag::Int ? IntList{b[k].i} : as_ints(b[k], std::string(fname) + "(): argument 'dim'");
  for (int64_t& d : dims) d = wrap_dim(d, x.dim(), fname);
  return dims;
}

// any / all over dims (every element when none): bool.
Value any_all(CallArgs& a, const char* fname, bool is_any) {
  Bound b = bind(fname, a, {"input", "dim", "keepdim"}, 1);
  Tensor x = arg(b, 0, fname, "input");
  IntList dims = dims_of(b, 1, x, fname);
  const bool keep = b.has(2) && as_bool(b[2], std::string(fname) + "(): argument 'keepdim'");
  Tensor counted = sum(to_dtype(is_any ? truth(x) : logical_not_of(x), DType::i64), dims, keep);
  return Value::tensor(is_any ? gt(counted, scalar_tensor(0.0, DType::i64)) : eq(counted, scalar_tensor(0.0, DType::i64)));
}

}  // namespace

Tensor logical_not_of(const Tensor& x) { return eq(truth(x), scalar_tensor(0.0, DType::b8)); }

namespace {

Value any_builtin(Evaluator&, CallArgs& a) { return any_all(a, "any", true); }
Value all_builtin(Evaluator&, CallArgs& a) { return any_all(a, "all", false); }

// Elementwise logic on any dtype (nonzero is true), bool out, with broadcasting.
Value logical(CallArgs& a, const char* fname) {
  Bound b = bind(fname, a, {"input", "other"}, 2);
  Tensor x = truth(arg(b, 0, fname, "input")), y = truth(arg(b, 1, fname, "other"));
  const std::string op = fname;
  if (op == "logical_and") return Value::tensor(where(x, y, x));
  if (op == "logical_or") return Value::tensor(where(x, x, y));
  return Value::tensor(ne(x, y));
}
Value logical_and_builtin(Evaluator&, CallArgs& a) { return logical(a, "logical_and"); }
Value logical_or_builtin(Evaluator&, CallArgs& a) { return logical(a, "logical_or"); }
Value logical_xor_builtin(Evaluator&, CallArgs& a) { return logical(a, "logical_xor"); }
Value logical_not_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("logical_not", a, {"input"}, 1);
  return Value::tensor(logical_not_of(arg(b, 0, "logical_not", "input")));
}

// Whether every element of a and b is close: |a - b| <= atol + rtol |b|, NaNs equal
// only with equal_nan, infinities only to themselves, as torch.isclose.
// Integers and bools take the tolerances too, as PyTorch's: they were compared for
// equality only, so allclose(tensor([101]), tensor([100]), rtol=0.1) was false.
Tensor close(const Tensor& x, const Tensor& y, double rtol, double atol, bool equal_nan) {
  Tensor exact = eq(x, y);
  if (!is_floating(x.dtype()) && !is_floating(y.dtype())) {
    if (rtol == 0 && atol == 0) return exact;
    // the gap in i64, exact (u8's 3 - 5 wrapped to 254), then in f64
    Tensor gap = to_dtype(abs(to_dtype(x, DType::i64) - to_dtype(y, DType::i64)), DType::f64);
    return where(exact, exact, le(gap, atol + rtol * abs(to_dtype(y, DType::f64))));
  }
  Tensor within = le(abs(x - y), atol + rtol * abs(y));
  Tensor out = where(exact, exact, within);
  if (equal_nan) out = where(out, out, where(ne(x, x), ne(y, y), out));
  return out;
}

double num_kw(const Bound& b, size_t k, double fallback, const char* what) { return b.has(k) ? as_num(b[k], what) : fallback; }

Value isclose_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("isclose", a, {"input", "other", "rtol", "atol", "equal_nan"}, 2);
  return Value::tensor(close(arg(b, 0, "isclose", "input"), arg(b, 1, "isclose", "other"),
                             num_kw(b, 2, 1e-5, "isclose(): rtol"), num_kw(b, 3, 1e-8, "isclose(): atol"),
                             b.has(4) && as_bool(b[4], "isclose(): equal_nan")));
}

bool all_true(const Tensor& t) {
  Tensor n = contiguous(to_device(sum(to_dtype(logical_not_of(t), DType::i64)), cpu_device()));
  return n.data<int64_t>()[0] == 0;
}

// A bool: every element close (allclose) or equal with the same shape (equal).
Value allclose_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("allclose", a, {"input", "other", "rtol", "atol", "equal_nan"}, 2);
  return Value::boolean(all_true(close(arg(b, 0, "allclose", "input"), arg(b, 1, "allclose", "other"),
                                       num_kw(b, 2, 1e-5, "allclose(): rtol"), num_kw(b, 3, 1e-8, "allclose(): atol"),
                                       b.has(4) && as_bool(b[4], "allclose(): equal_nan"))));
}

Value equal_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("equal", a, {"input", "other"}, 2);
  Tensor x = arg(b, 0, "equal", "input"), y = arg(b, 1, "equal", "other");
  return Value::boolean(x.sizes() == y.sizes() && all_true(eq(x, y)));
}

// ---- shapes -------------------------------------------------------------------------

IntList shape_of(const Tensor& t) { return IntList(t.sizes().begin(), t.sizes().end()); }

Value expand_as_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("expand_as", a, {"input", "other"}, 2);
  return Value::tensor(expand(arg(b, 0, "expand_as", "input"), shape_of(arg(b, 1, "expand_as", "other"))));
}
Value view_as_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("view_as", a, {"input", "other"}, 2);
  return Value::tensor(view(arg(b, 0, "view_as", "input"), shape_of(arg(b, 1, "view_as", "other"))));
}
Value reshape_as_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("reshape_as", a, {"input", "other"}, 2);
  return Value::tensor(reshape(arg(b, 0, "reshape_as", "input"), shape_of(arg(b, 1, "reshape_as", "other"))));
}
Value type_as_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("type_as", a, {"input", "other"}, 2);
  return Value::tensor(to_dtype(arg(b, 0, "type_as", "input"), arg(b, 1, "type_as", "other").dtype()));
}

// x.new_zeros(size), new_ones, new_empty (zeros), new_full(size, fill_value): x's dtype
// and device unless dtype= or device= say otherwise, as PyTorch's. The size is a list
// or tuple, or (not for new_full) the sizes as separate ints: x.new_zeros(2, 3).
IntList new_like_size(CallArgs& a, const std::string& fname, bool with_value) {
  const Value* kw = a.find_kw("size");
  const size_t given = a.pos.size() - 1;  // after the tensor
  if (kw && given > 0) fail(fname + "(): argument 'size' given by position and by keyword");
  if (kw) return as_ints(*kw, fname + "(): argument 'size'");
  if (given == 0) fail(fname + "() missing required argument 'size'");
  const size_t sizes = with_value ? 1 : given;
  if (with_value && given > 2) fail(fname + "() takes a size and a fill_value, got " + std::to_string(given) + " arguments");
  if (sizes == 1 && a.pos[1].tag != Tag::Int) return as_ints(a.pos[1], fname + "(): argument 'size'");
  IntList out;
  for (size_t k = 1; k <= sizes; ++k) out.push_back(as_int(a.pos[k], fname + "(): argument 'size'"));
  return out;
}
Value new_like(CallArgs& a, const char* fname, bool with_value, double value) {
  if (a.pos.empty()) fail(std::string(fname) + "() missing required argument 'input'");
  Tensor x = required_input(a.pos[0], fname, "input");
  IntList size = new_like_size(a, fname, with_value);
  DType dt = x.dtype();
  Device device = x.device();
  bool wants_grad = false;
  const Value* fill = with_value && a.pos.size() == 3 ? &a.pos[2] : nullptr;
  for (auto& [k, v] : a.kw) {
    const std::string what = std::string(fname) + "(): argument '" + k + "'";
    if (k == "dtype") dt = as_dtype(v, what);
    else if (k == "device") device = as_device(v, what);
    else if (k == "requires_grad") wants_grad = as_bool(v, what);
    else if (k == "fill_value" && with_value && !fill) fill = &v;
    else if (k != "size") fail(std::string(fname) + "() got an unexpected keyword argument '" + k + "'");
  }
  if (with_value && !fill) fail(std::string(fname) + "() missing required argument 'fill_value'");
  Tensor out = with_value  // checked against the dtype and exact (Note [A number into a dtype])
                   ? filled_tensor(Shape(size), *fill, dt, device, std::string(fname) + "(): argument 'fill_value'")
                   : full(Shape(size), value, dt, device);
  if (wants_grad) out.set_requires_grad(true);
  return Value::tensor(out);
}
Value new_zeros_builtin(Evaluator&, CallArgs& a) { return new_like(a, "new_zeros", false, 0.0); }
Value new_ones_builtin(Evaluator&, CallArgs& a) { return new_like(a, "new_ones", false, 1.0); }
Value new_empty_builtin(Evaluator&, CallArgs& a) { return new_like(a, "new_empty", false, 0.0); }
Value new_full_builtin(Evaluator&, CallArgs& a) { return new_like(a, "new_full", true, 0.0); }

// Dims source moved to destination (ints or lists), the others in their order.
Value movedim_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("movedim", a, {"input", "source", "destination"}, 3);
  Tensor x = arg(b, 0, "movedim", "input");
  auto dims = [&](const Value& v, const char* what) {
    IntList d = v.tag == Tag::Int ? IntList{v.i} : as_ints(v, std::string("movedim(): argument '") + what + "'");
    for (int64_t& k : d) k = wrap_dim(k, x.dim(), "movedim");
    return d;
  };
  IntList src = dims(b[1], "source"), dst = dims(b[2], "destination");
  if (src.size() != dst.size())
    fail("movedim(): source and destination need the same number of dims, got " + std::to_string(src.size()) + " and " +
         std::to_string(dst.size()));
  IntList order(static_cast<size_t>(x.dim()), -1);
  std::vector<bool> used(static_cast<size_t>(x.dim()), false);
  for (size_t k = 0; k < src.size(); ++k) {
    if (order[static_cast<size_t>(dst[k])] != -1 || used[static_cast<size_t>(src[k])])
      fail("movedim(): repeated dim in source or destination");
    order[static_cast<size_t>(dst[k])] = src[k];
    used[static_cast<size_t>(src[k])] = true;
  }
  int64_t next = 0;
  for (int64_t& o : order) {
    if (o != -1) continue;
    while (used[static_cast<size_t>(next)]) ++next;
    o = next++;
  }
  return Value::tensor(permute(x, order));
}

Value swapaxes_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("swapaxes", a, {"input", "axis0", "axis1"}, 3);
  return Value::tensor(transpose(arg(b, 0, "swapaxes", "input"), as_int(b[1], "swapaxes(): axis0"),
                                 as_int(b[2], "swapaxes(): axis1")));
}

// hstack: cat along dim 1 of the tensors as at least 1-D (dim 0 for 1-D tensors), as
// PyTorch's (a 0-dim one failed in cat); vstack: cat along dim 0 of the tensors as at
// least 2-D ([n] becomes [1, n]).
Value stack_like(CallArgs& a, const char* fname, bool horizontal) {
  Bound b = bind(fname, a, {"tensors"}, 1);
  TensorList ts = tensor_list_arg(b[0], std::string(fname) + "(): argument 'tensors'");
  if (ts.empty()) fail(std::string(fname) + "(): expected a non-empty list of tensors");
  if (horizontal) {
    for (Tensor& t : ts)
      if (t.dim() == 0) t = reshape(t, {1});
    return Value::tensor(cat(ts, ts[0].dim() == 1 ? 0 : 1));
  }
  for (Tensor& t : ts)
    if (t.dim() < 2) t = reshape(t, {1, t.numel()});
  return Value::tensor(cat(ts, 0));
}
Value hstack_builtin(Evaluator&, CallArgs& a) { return stack_like(a, "hstack", true); }
Value vstack_builtin(Evaluator&, CallArgs& a) { return stack_like(a, "vstack", false); }

Value unflatten_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("unflatten", a, {"input", "dim", "sizes"}, 3);
  Tensor x = arg(b, 0, "unflatten", "input");
  const int64_t dim = wrap_dim(as_int(b[1], "unflatten(): argument 'dim'"), x.dim(), "unflatten");
  IntList sizes = as_ints(b[2], "unflatten(): argument 'sizes'"), shape = shape_of(x);
  shape.erase(shape.begin() + dim);
  shape.insert(shape.begin() + dim, sizes.begin(), sizes.end());
  return Value::tensor(reshape(x, shape));
}

Value ravel_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("ravel", a, {"input"}, 1);
  return Value::tensor(reshape(arg(b, 0, "ravel", "input"), {-1}));
}

// ---- arithmetic ---------------------------------------------------------------------

// clamp's, with one bound (an int bound keeps an int input's dtype).
// clamp_min and clamp_max: clamp with one bound, a number or a tensor (broadcast,
// Note [Clamp's gradient with tensor bounds]), as PyTorch's; the tensor form was an
// error ("expected a number, got tensor").
Value one_bound_clamp(Evaluator& ev, CallArgs& a, const char* fname, const char* bound) {
  Bound b = bind(fname, a, {"input", bound}, 2);
  arg(b, 0, fname, "input");
  if (b[1].tag != Tag::Tensor) as_num(b[1], std::string(fname) + "(): argument '" + bound + "'");
  CallArgs one;
  one.pos = {b[0]};
  one.kw = {{bound, b[1]}};
  return clamp_builtin(ev, one);
}
Value clamp_min_builtin(Evaluator& ev, CallArgs& a) { return one_bound_clamp(ev, a, "clamp_min", "min"); }
Value clamp_max_builtin(Evaluator& ev, CallArgs& a) { return one_bound_clamp(ev, a, "clamp_max", "max"); }

// input + value * tensor1 * tensor2 (addcmul) or / tensor2 (addcdiv), as PyTorch's.
// Of integer tensors, addcmul stays an integer tensor and its value is checked as add's
// alpha (it was a float multiplier: addcmul of i64s with value=2 gave f32), and
// addcdiv is refused, as PyTorch's.
Value addc(CallArgs& a, const char* fname, bool divide) {
  Bound b = bind(fname, a, {"input", "tensor1", "tensor2", "value"}, 3);
  Tensor x = arg(b, 0, fname, "input"), t1 = arg(b, 1, fname, "tensor1"), t2 = arg(b, 2, fname, "tensor2");
  const double value = num_kw(b, 3, 1.0, divide ? "addcdiv(): value" : "addcmul(): value");
  const bool integral_terms = !is_floating(t1.dtype()) && !is_floating(t2.dtype());
  if (divide && integral_terms)
    fail("addcdiv(): integer division of tensor1 by tensor2 is not supported, as PyTorch's; convert them first (.to(f32))");
  Tensor term = divide ? t1 / t2 : t1 * t2;
  if (!b.has(3)) return Value::tensor(x + term);
  if (integral_terms && !is_floating(x.dtype())) {
    if (b[3].tag == Tag::Float)
      fail(std::string(fname) + "(): argument 'value' must not be a float when the tensors are integers (got " + repr(b[3]) +
           " with " + dtype_name(x.dtype()) + "), as PyTorch's; convert them first (.to(f32))");
    check_fits_dtype(b[3], result_type({x, term}), std::string(fname) + "(): argument 'value'");
    return Value::tensor(x + term * to_tensor_arg(b[3], fname));
  }
  return Value::tensor(x + (value == 1.0 ? term : term * value));
}
Value addcmul_builtin(Evaluator&, CallArgs& a) { return addc(a, "addcmul", false); }
Value addcdiv_builtin(Evaluator&, CallArgs& a) { return addc(a, "addcdiv", true); }

// prepend or append of diff: a tensor with input's number of dims, as torch.diff's.
Tensor diff_edge(const Bound& b, size_t k, const char* name, const Tensor& x) {
  Tensor t = arg(b, k, "diff", name);
  if (t.dim() != x.dim())
    fail(std::string("diff(): argument '") + name + "' must have as many dims as input (" +
         std::to_string(x.dim()) + "), got shape " + t.shape_str());
  return t;
}

// The n-th forward difference along dim, prepend and append joined first, as torch.diff
// (of a bool tensor, the xor of neighbours). A 0-dim input has no dim to difference:
// sizes()[dim] of its empty shape was read past the end and the input came back.
Value diff_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("diff", a, {"input", "n", "dim", "prepend", "append"}, 1);
  Tensor x = arg(b, 0, "diff", "input");
  if (x.dim() == 0) fail("diff(): argument 'input' must be at least 1-D, got a 0-dim tensor");
  const int64_t n = b.has(1) ? as_int(b[1], "diff(): argument 'n'") : 1;
  if (n < 0) fail("diff(): argument 'n' must be at least 0, got " + std::to_string(n));
  const int64_t dim = wrap_dim(b.has(2) ? as_int(b[2], "diff(): argument 'dim'") : -1, x.dim(), "diff");
  TensorList parts;
  if (b.has(3)) parts.push_back(diff_edge(b, 3, "prepend", x));
  parts.push_back(x);
  if (b.has(4)) parts.push_back(diff_edge(b, 4, "append", x));
  Tensor y = parts.size() == 1 ? x : cat(parts, dim);
  for (int64_t k = 0; k < n && y.sizes()[dim] > 0; ++k) {
    const int64_t len = y.sizes()[dim];
    Tensor later = slice(y, dim, 1, len), earlier = slice(y, dim, 0, len - 1);
    y = y.dtype() == DType::b8 ? ne(later, earlier) : later - earlier;
  }
  return Value::tensor(y);
}

// log(cumsum(exp(x))) along dim, shifted by the dim's maximum so that it does not
// overflow (a row of -inf stays -inf).
Value logcumsumexp_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("logcumsumexp", a, {"input", "dim"}, 2);
  Tensor x = arg(b, 0, "logcumsumexp", "input");
  const int64_t dim = wrap_dim(as_int(b[1], "logcumsumexp(): argument 'dim'"), x.dim(), "logcumsumexp");
  if (x.sizes()[dim] == 0) return Value::tensor(x);
  Tensor m = detach(max(x, dim, true).first);
  m = where(lt(abs(m), number_like(INFINITY, m)), m, number_like(0.0, m));
  return Value::tensor(log(cumsum(exp(x - m), dim)) + m);
}

Value heaviside_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("heaviside", a, {"input", "values"}, 2);
  Tensor x = arg(b, 0, "heaviside", "input"), v = arg(b, 1, "heaviside", "values");
  Tensor step = to_dtype(gt(x, number_like(0.0, x)), x.dtype());
  return Value::tensor(where(eq(x, number_like(0.0, x)), v, step));
}

// torch.index_put: input with values at the places input[indices] names (indices: a
// tuple or list of index tensors, none for a whole dim), by the index assignment's own
// code; accumulate=true adds them instead, a place named twice taking every value, by
// one scatter_add over the places' flat positions. Both replay in a graph (Note [An
// index a graph replays]).
Value index_put_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("index_put", a, {"input", "indices", "values", "accumulate"}, 3);
  Tensor x = arg(b, 0, "index_put", "input");
  if (b[1].tag != Tag::Tuple && b[1].tag != Tag::List)
    fail("index_put(): argument 'indices' must be a tuple of tensors, got " + std::string(type_name(b[1])));
  std::vector<Value> idx;
  for (const Value& i : b[1].as<ListObj>()->items) {
    if (i.is_none()) idx.push_back(make_slice_value(Value::none(), Value::none(), Value::none()));
    else if (i.tag == Tag::Tensor) idx.push_back(i);
    else fail("index_put(): argument 'indices' must hold tensors (or none), got " + std::string(type_name(i)));
  }
  Tensor values = arg(b, 2, "index_put", "values");
  if (values.dtype() != x.dtype())
    fail("index_put(): argument 'values' must have the input's dtype " + std::string(dtype_name(x.dtype())) + ", got " +
         dtype_name(values.dtype()));
  const bool accumulate = b.has(3) && as_bool(b[3], "index_put(): argument 'accumulate'");
  if (!accumulate) {
    Tensor out = clone_tensor(x);
    assign_index(ev, Value::tensor(out), idx, Value::tensor(values));
    return Value::tensor(out);
  }
  Tensor places = index_value(ev, Value::tensor(reshape(arange(x.numel(), DType::i64, x.device()), shape_of(x))), idx).t;
  Tensor spread = expand(values, shape_of(places));  // PyTorch's error when values does not broadcast
  Tensor flat = scatter_add(reshape(x, {x.numel()}), 0, reshape(places, {places.numel()}), reshape(contiguous(spread), {places.numel()}));
  return Value::tensor(reshape(flat, shape_of(x)));
}

}  // namespace

const BuiltinEntry kCompositeTensor[] = {
    {"any", any_builtin, "any(input, dim=none, keepdim=false)",
     "Whether some element is nonzero (along dim), bool. Example: any(tensor([0.0, 2.0]))"},
    {"all", all_builtin, "all(input, dim=none, keepdim=false)",
     "Whether every element is nonzero (along dim), bool. Example: all(tensor([1.0, 2.0]))"},
    {"logical_and", logical_and_builtin, "logical_and(input, other)",
     "Elementwise and of the truth of each element (nonzero), bool. Example: logical_and(tensor([1, 0]), tensor([1, 1]))"},
    {"logical_or", logical_or_builtin, "logical_or(input, other)",
     "Elementwise or of the truth of each element, bool. Example: logical_or(tensor([1, 0]), tensor([0, 0]))"},
    {"logical_xor", logical_xor_builtin, "logical_xor(input, other)",
     "Elementwise xor of the truth of each element, bool. Example: logical_xor(tensor([1, 0]), tensor([1, 1]))"},
    {"logical_not", logical_not_builtin, "logical_not(input)",
     "Where each element is zero (false), bool. Example: logical_not(tensor([1, 0]))"},
    {"isclose", isclose_builtin, "isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=false)",
     "Where |input - other| <= atol + rtol * |other|, bool, as torch.isclose. Example: isclose(tensor([1.0]), tensor([1.0000001]))"},
    {"allclose", allclose_builtin, "allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=false)",
     "Whether every element is close (isclose), a bool. Example: allclose(ones([2]), ones([2]))"},
    {"equal", equal_builtin, "equal(input, other)",
     "Whether the two have the same shape and elements, a bool. Example: equal(ones([2]), ones([2]))"},
    {"expand_as", expand_as_builtin, "expand_as(input, other)", "input expanded to other's shape. Example: expand_as(ones([1, 3]), zeros([2, 3]))"},
    {"view_as", view_as_builtin, "view_as(input, other)", "input viewed in other's shape. Example: view_as(arange(6), zeros([2, 3]))"},
    {"reshape_as", reshape_as_builtin, "reshape_as(input, other)",
     "input reshaped to other's shape. Example: reshape_as(arange(6), zeros([3, 2]))"},
    {"type_as", type_as_builtin, "type_as(input, other)", "input in other's dtype. Example: type_as(arange(3), zeros([1]))"},
    {"new_zeros", new_zeros_builtin, "new_zeros(input, *size, dtype=none, device=none, requires_grad=false)",
     "Zeros of size (a list, or ints) in input's dtype and device unless given. Example: ones([2], dtype=f64).new_zeros(2, 3)"},
    {"new_ones", new_ones_builtin, "new_ones(input, *size, dtype=none, device=none, requires_grad=false)",
     "Ones of size in input's dtype and device. Example: ones([2], dtype=f64).new_ones([3])"},
    {"new_empty", new_empty_builtin, "new_empty(input, *size, dtype=none, device=none, requires_grad=false)",
     "A tensor of size in input's dtype and device (zeros). Example: ones([2]).new_empty([3])"},
    {"new_full", new_full_builtin, "new_full(input, size, fill_value, dtype=none, device=none, requires_grad=false)",
     "fill_value in size, in input's dtype and device. Example: ones([2]).new_full([3], 7.0)"},
    {"movedim", movedim_builtin, "movedim(input, source, destination)",
     "The dims source moved to destination, the rest in order, as torch.movedim. Example: movedim(zeros([2, 3, 4]), 0, -1).shape"},
    {"swapaxes", swapaxes_builtin, "swapaxes(input, axis0, axis1)",
     "input with two dims exchanged (transpose). Example: swapaxes(zeros([2, 3]), 0, 1).shape"},
    {"hstack", hstack_builtin, "hstack(tensors)",
     "The tensors joined along dim 1 (dim 0 when 1-D). Example: hstack([ones([2, 1]), zeros([2, 2])]).shape"},
    {"vstack", vstack_builtin, "vstack(tensors)",
     "The tensors, as at least 2-D, joined along dim 0. Example: vstack([ones([3]), zeros([3])]).shape"},
    {"unflatten", unflatten_builtin, "unflatten(input, dim, sizes)",
     "Dim dim split into sizes (one may be -1). Example: unflatten(zeros([2, 6]), 1, [2, 3]).shape"},
    {"ravel", ravel_builtin, "ravel(input)", "input as 1-D. Example: ravel(zeros([2, 3])).shape"},
    {"index_put", index_put_builtin, "index_put(input, indices, values, accumulate=false)",
     "input with values at input[indices] (indices a tuple of index tensors), or added there with accumulate=true "
     "(a place named twice gets every value), as torch.index_put. "
     "Example: index_put(zeros([4]), (tensor([1, 1, 3]),), tensor([1.0, 2.0, 3.0]), accumulate=true)"},
    {"clamp_min", clamp_min_builtin, "clamp_min(input, min)", "input clamped from below by min, a number or a tensor (broadcast), as torch.clamp_min. Example: clamp_min(tensor([-1.0, 2.0]), tensor([0.0, 3.0]))"},
    {"clamp_max", clamp_max_builtin, "clamp_max(input, max)", "input clamped from above by max, a number or a tensor (broadcast), as torch.clamp_max. Example: clamp_max(tensor([-1.0, 2.0]), 0.0)"},
    {"addcmul", addcmul_builtin, "addcmul(input, tensor1, tensor2, value=1)",
     "input + value * tensor1 * tensor2. Example: addcmul(zeros([2]), ones([2]), ones([2]), value=0.5)"},
    {"addcdiv", addcdiv_builtin, "addcdiv(input, tensor1, tensor2, value=1)",
     "input + value * tensor1 / tensor2. Example: addcdiv(zeros([2]), ones([2]), full([2], 4.0), value=2.0)"},
    {"diff", diff_builtin, "diff(input, n=1, dim=-1, prepend=none, append=none)",
     "The n-th forward difference along dim, as torch.diff. Example: diff(tensor([1.0, 4.0, 9.0]))"},
    {"logcumsumexp", logcumsumexp_builtin, "logcumsumexp(input, dim)",
     "log(cumsum(exp(input))) along dim, computed stably. Example: logcumsumexp(tensor([0.0, 0.0]), 0)"},
    {"heaviside", heaviside_builtin, "heaviside(input, values)",
     "0 below 0, 1 above, values at 0 (the step function). Example: heaviside(tensor([-1.0, 0.0, 2.0]), tensor([0.5]))"},
};

std::span<const BuiltinEntry> composite_tensor() { return kCompositeTensor; }

}  // namespace nabla::interp
