// Tensor factories (tensor, zeros, ones, empty, full, rand, randn, randint, arange,
// linspace, the *_like forms), manual_seed, the dtype names (f32, i64, ...) as
// values, and their limits (finfo, iinfo). Every factory takes dtype=, device= and requires_grad=. The table at the
// end is this family's (Note [Builtin tables]).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

#include "autograd/ops.hpp"
#include "autograd/ops/common.hpp"
#include "autograd/trace.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "tensor/cuda/cuda_runtime.hpp"
#include "autograd/transforms/vmap.hpp"
#include "tensor/cpu/copy.hpp"
#include "tensor/random.hpp"

namespace nabla::interp {

namespace {

// Factories: shape as a list or as varargs; dtype= and requires_grad= keywords.
struct FactoryOpts {
  std::optional<DType> dtype;
  std::optional<Device> device;
  bool requires_grad = false;
};
// The keywords every factory takes, then its own.
std::vector<std::string> factory_keywords(std::initializer_list<const char*> extra) {
  std::vector<std::string> out = {"dtype", "device", "requires_grad"};
  out.insert(out.end(), extra.begin(), extra.end());
  return out;
}
FactoryOpts take_factory_kw(CallArgs& a, const std::string& fname, std::initializer_list<const char*> extra = {}) {
  FactoryOpts o;
  std::vector<std::pair<std::string, Value>> rest;
  for (auto& [k, v] : a.kw) {
    if (k == "dtype") o.dtype = as_dtype(v, fname + "(): dtype");
    else if (k == "requires_grad") o.requires_grad = as_bool(v, fname + "(): requires_grad");
    else if (k == "device") o.device = as_device(v, fname + "(): device");
    else {
      bool ok = false;
      for (const char* e : extra) ok |= k == e;
      if (!ok) fail_unexpected_keyword(fname, k, factory_keywords(extra));
      rest.emplace_back(k, v);
    }
  }
  a.kw = std::move(rest);
  return o;
}

// The device a factory makes its tensor on. zeros, ones, empty and full are made there;
// the random factories draw on the CPU and finish() moves the result, so that a seed
// gives the same values on every device.
Device factory_device(const FactoryOpts& o) { return o.device.value_or(cpu_device()); }

Value finish(Tensor t, const FactoryOpts& o, const std::string& fname) {
  // (A draw batched by vmap moves as an op, which the batch level runs on its values.)
  if (o.device && *o.device != t.device()) t = t.impl()->batched ? to_device(t, *o.device) : cuda::to_device(t, *o.device);
  if (o.requires_grad) {
    if (!is_floating(t.dtype()))
      fail(fname + "(): only floating tensors can require gradients, got " + dtype_name(t.dtype()));
    t.set_requires_grad(true);
  }
  return Value::tensor(std::move(t));
}

Value tensor_builtin(Evaluator&, CallArgs& a) {
  FactoryOpts o = take_factory_kw(a, "tensor");
  if (a.pos.size() != 1) fail("tensor() takes 1 positional argument (the data) but " + std::to_string(a.pos.size()) + " were given");
  return finish(tensor_from_value(a.pos[0], o.dtype), o, "tensor");
}

// zeros, ones, empty, rand and randn: a shape, as a list or as varargs. The random
// ones draw inside vmap as its randomness says (Note [vmap randomness]), with the
// random_* rows, so a compiled graph draws at every call (Note [Random draws are ops]).
Value of_shape(const std::string& name, CallArgs& a) {
  FactoryOpts o = take_factory_kw(a, name);
  Shape shape(shape_args(a.pos, 0, name));
  for (int64_t s : shape)
    if (s < 0) fail(name + "(): negative size " + std::to_string(s));
  DType dt = o.dtype.value_or(DType::f32);
  Device device = factory_device(o);
  Tensor t = name == "zeros" ? zeros(shape, dt, device)
             : name == "ones" ? ones(shape, dt, device)
             : name == "empty" ? zeros(shape, dt, device)
             : name == "rand" ? transforms::random_under_vmap("rand", shape, [dt](const Shape& s) { return random_uniform(s, dt); })
                              : transforms::random_under_vmap("randn", shape, [dt](const Shape& s) { return random_normal(s, dt); });
  return finish(t, o, name);
}
Value zeros_builtin(Evaluator&, CallArgs& a) { return of_shape("zeros", a); }
Value ones_builtin(Evaluator&, CallArgs& a) { return of_shape("ones", a); }
Value empty_builtin(Evaluator&, CallArgs& a) { return of_shape("empty", a); }
Value rand_builtin(Evaluator&, CallArgs& a) {
  GeneratorScope generator(a, "rand");
  return of_shape("rand", a);
}
Value randn_builtin(Evaluator&, CallArgs& a) {
  GeneratorScope generator(a, "randn");
  return of_shape("randn", a);
}

// zeros_like, ones_like, empty_like (zeros), full_like, rand_like and randn_like: x's
// shape, dtype and device unless told.
Value like(const std::string& name, CallArgs& a) {
  FactoryOpts o = take_factory_kw(a, name, {"fill_value"});
  const bool full_like = name == "full_like";
  if (full_like && a.pos.size() == 1)
    if (const Value* v = a.find_kw("fill_value")) a.pos.push_back(*v);
  if (a.pos.size() != (full_like ? 2u : 1u))
    fail(name + (full_like ? "() takes 2 positional arguments (x, fill_value)" : "() takes 1 positional argument"));
  const Tensor& x = as_tensor(a.pos[0], name);
  DType dt = o.dtype.value_or(x.dtype());
  if (!o.device) o.device = x.device();  // *_like stays on x's device unless told
  Tensor t = name == "zeros_like" || name == "empty_like" ? zeros(x.sizes(), dt, *o.device)
             : full_like ? filled_tensor(x.sizes(), a.pos[1], dt, *o.device, "full_like(): argument 'fill_value'")
             : name == "ones_like" ? ones(x.sizes(), dt, *o.device)
             : name == "rand_like" ? transforms::random_under_vmap("rand_like", x.sizes(), [dt](const Shape& s) { return random_uniform(s, dt); })
                                   : transforms::random_under_vmap("randn_like", x.sizes(), [dt](const Shape& s) { return random_normal(s, dt); });
  return finish(t, o, name);
}
Value zeros_like_builtin(Evaluator&, CallArgs& a) { return like("zeros_like", a); }
Value ones_like_builtin(Evaluator&, CallArgs& a) { return like("ones_like", a); }
Value rand_like_builtin(Evaluator&, CallArgs& a) { return like("rand_like", a); }
Value randn_like_builtin(Evaluator&, CallArgs& a) { return like("randn_like", a); }
Value empty_like_builtin(Evaluator&, CallArgs& a) { return like("empty_like", a); }
Value full_like_builtin(Evaluator&, CallArgs& a) { return like("full_like", a); }

// normal(mean, std=1.0, size=none, ...): samples of N(mean, std^2), as torch.normal.
// mean and std are tensors, broadcast together (the result takes their dtype), or
// numbers, where size gives the shape. A std below 0 is an error, as PyTorch's. The
// draw is a standard normal one (random_under_vmap, so a graph draws it at every call)
// scaled and shifted by ops; it carries no gradient to mean or std (PyTorch's gives
// them zeros; distributions.Normal's rsample() is the reparameterized draw).
Value normal_builtin(Evaluator&, CallArgs& a) {
  GeneratorScope generator(a, "normal");
  FactoryOpts o = take_factory_kw(a, "normal", {"mean", "std", "size"});
  Bound b = bind("normal", a, {"mean", "std", "size"}, 1);
  const Value std_v = b.has(1) ? b[1] : Value::number(1.0);
  const bool tensors = b[0].tag == Tag::Tensor || std_v.tag == Tag::Tensor;
  if (tensors && b.has(2)) fail("normal(): size is for a number mean and std; with a tensor the shape is its own");
  if (!tensors && !b.has(2)) fail("normal(): with a number mean and std, give size (normal(0.0, 1.0, [3]))");
  auto side = [](const Value& v, const char* what) {
    if (v.tag == Tag::Tensor) {
      if (!is_floating(v.t.dtype()))
        fail(std::string("normal(): ") + what + " must be a floating tensor, got " + dtype_name(v.t.dtype()));
      return detach(v.t);
    }
    Tensor number = scalar_tensor(as_num(v, std::string("normal(): argument '") + what + "'"), DType::f64);
    number.impl()->wrapped_number = true;  // does not widen a tensor's dtype
    return number;
  };
  Tensor mean = side(b[0], "mean"), std_t = side(std_v, "std");
  // Checked for a number std too, and NaN fails it (`!(x >= 0)`, not `x < 0`): both
  // drew silently before, normal(0.0, -1.0, size=[2]) as N(0, 1) mirrored and a NaN
  // std as NaNs, where PyTorch's "normal expects std >= 0.0" refuses them.
  // A tensor std is checked where its values are known (eager), as bernoulli()'s are.
  if (std_v.tag != Tag::Tensor || !op_observer())
    for (double s : as_numbers(Value::tensor(std_t), "normal"))
      if (!(s >= 0.0)) fail("normal(): std must be at least 0, got " + repr(Value::number(s)));
  Shape shape = tensors ? broadcast_shapes("normal", mean.sizes(), std_t.sizes(), "mean", "std")
                        : Shape(shape_args({b[2]}, 0, "normal"));
  DType dt = o.dtype.value_or(tensors ? result_type({mean, std_t}) : DType::f32);
  Device device = tensors ? (b[0].tag == Tag::Tensor ? b[0].t.device() : std_v.t.device()) : factory_device(o);
  Tensor noise = to_device(transforms::random_under_vmap("normal", shape, [dt](const Shape& s) { return random_normal(s, dt); }),
                           device);
  return finish(to_dtype(noise * to_device(std_t, device) + to_device(mean, device), dt), o, "normal");
}

// The n x m identity (ones on the diagonal), as torch.eye.
Value eye_builtin(Evaluator&, CallArgs& a) {
  FactoryOpts o = take_factory_kw(a, "eye", {"n", "m"});
  Bound b = bind("eye", a, {"n", "m"}, 1);
  const int64_t n = as_int(b[0], "eye(): n"), m = b.has(1) ? as_int(b[1], "eye(): m") : n;
  if (n < 0 || m < 0) fail("eye(): n and m must be at least 0, got " + std::to_string(n) + " and " + std::to_string(m));
  // The diagonal is filled in place, not compared as arange(n) == arange(m): those
  // two ranges were made before any check of [n, m], so eye(3, 2**62) failed with
  // std::vector's "cannot create std::vector larger than max_size()", and
  // eye(0, 2**62), which is empty, failed too.
  Tensor t = zeros({n, m}, o.dtype.value_or(DType::f32));
  const int64_t k = std::min(n, m);
  if (k > 0) fill_raw(make_view(t, {k}, {m + 1}, 0), 1.0);
  return finish(t, o, "eye");
}

Value full_builtin(Evaluator&, CallArgs& a) {
  FactoryOpts o = take_factory_kw(a, "full", {"fill_value", "size"});
  Bound b = bind("full", a, {"size", "fill_value"}, 2);
  DType dt = o.dtype.value_or(b[1].tag == Tag::Float ? DType::f32 : b[1].tag == Tag::Bool ? DType::b8 : DType::i64);
  return finish(filled_tensor(Shape(as_ints(b[0], "full(): size")), b[1], dt, factory_device(o), "full(): argument 'fill_value'"), o,
                "full");
}

struct FloatLimits {
  DType dtype;
  int bits;
  double eps, max, tiny, resolution;
};
constexpr FloatLimits kFloatLimits[] = {
    {DType::f32, 32, 1.1920928955078125e-07, 3.4028234663852886e+38, 1.1754943508222875e-38, 1e-06},
    {DType::f64, 64, 2.220446049250313e-16, 1.7976931348623157e+308, 2.2250738585072014e-308, 1e-15},
    {DType::f16, 16, 0.0009765625, 65504.0, 6.103515625e-05, 0.001},
    {DType::bf16, 16, 0.0078125, 3.3895313892515355e+38, 1.1754943508222875e-38, 0.01},
};
struct IntLimits {
  DType dtype;
  int bits;
  int64_t min, max;
};
constexpr IntLimits kIntLimits[] = {{DType::i64, 64, INT64_MIN, INT64_MAX},
                                    {DType::i32, 32, INT32_MIN, INT32_MAX},
                                    {DType::i16, 16, INT16_MIN, INT16_MAX},
                                    {DType::i8, 8, INT8_MIN, INT8_MAX},
                                    {DType::u8, 8, 0, UINT8_MAX}};

// randint's [low, high) must fit its dtype, as PyTorch's ("to - 1 is out of bounds for
// unsigned char"): the draws were cast, so randint(0, 300, dtype=u8) wrapped past 255,
// randint(-5, 5, dtype=u8) gave 251..255 and randint(0, 2**40, dtype=i32) gave
// INT32_MIN everywhere, silently. A floating dtype holds up to its largest finite value.
void check_randint_fits(int64_t low, int64_t high, DType dt, const std::string& fname = "randint") {
  double bottom = 0, top = 0;
  for (const IntLimits& i : kIntLimits)
    if (i.dtype == dt) bottom = static_cast<double>(i.min), top = static_cast<double>(i.max);
  for (const FloatLimits& f : kFloatLimits)
    if (f.dtype == dt) bottom = -f.max, top = f.max;
  if (top == 0) return;  // bool and the rest: random_integers names the dtype
  // only i8, u8, i32 and f16 can fail, whose limits are whole numbers well inside int64
  auto whole = [](double v) { return std::to_string(static_cast<int64_t>(v)); };
  if (static_cast<double>(low) < bottom || static_cast<double>(high - 1) > top)
    fail(fname + "(): the range [" + std::to_string(low) + ", " + std::to_string(high) + ") does not fit " + dtype_name(dt) +
         " (expected values in [" + whole(bottom) + ", " + whole(top) + "])");
}

Value randint_builtin(Evaluator&, CallArgs& a) {
  GeneratorScope generator(a, "randint");
  FactoryOpts o = take_factory_kw(a, "randint", {"low", "high", "size"});
  Bound b = a.pos.size() == 2 ? bind("randint", a, {"high", "size"}, 2) : bind("randint", a, {"low", "high", "size"}, 3);
  int64_t low = 0, high;
  std::vector<int64_t> shape;
  if (b.v.size() == 2) {
    high = as_int(b[0], "randint(): high");
    shape = as_ints(b[1], "randint(): size");
  } else {
    low = as_int(b[0], "randint(): low");
    high = as_int(b[1], "randint(): high");
    shape = as_ints(b[2], "randint(): size");
  }
  if (high <= low) fail("randint(): high must be greater than low");
  DType dt = o.dtype.value_or(DType::i64);
  check_randint_fits(low, high, dt);
  Tensor t = transforms::random_under_vmap("randint", Shape(shape), [low, high, dt](const Shape& s) { return random_integers(s, dt, low, high); });
  return finish(t, o, "randint");
}

// randint_like(input, low=0, high): randint's draws of input's shape, in input's dtype
// and on its device unless told, as torch.randint_like.
Value randint_like_builtin(Evaluator&, CallArgs& a) {
  FactoryOpts o = take_factory_kw(a, "randint_like", {"input", "low", "high"});
  const size_t given = a.pos.size() + (a.find_kw("high") ? 1 : 0);  // (input, high) unless low is given
  Bound b = given == 2 && !a.find_kw("low") ? bind("randint_like", a, {"input", "high"}, 2)
                                             : bind("randint_like", a, {"input", "low", "high"}, 3);
  if (b[0].tag != Tag::Tensor) fail(std::string("randint_like(): input must be a tensor, got ") + type_name(b[0]));
  const Tensor& x = b[0].t;
  const bool two = b.v.size() == 2;
  const int64_t low = two ? 0 : as_int(b[1], "randint_like(): low");
  const int64_t high = as_int(b[two ? 1 : 2], "randint_like(): high");
  if (high <= low)
    fail("randint_like(): high must be greater than low, got low=" + std::to_string(low) + " and high=" + std::to_string(high));
  const DType dt = o.dtype.value_or(x.dtype());
  check_randint_fits(low, high, dt, "randint_like");
  if (!o.device) o.device = x.device();
  Tensor t = transforms::random_under_vmap("randint_like", x.sizes(), [low, high, dt](const Shape& s) { return random_integers(s, dt, low, high); });
  return finish(t, o, "randint_like");
}

// randperm's 0..n-1 must all be held exactly by its dtype, as PyTorch's ("n cannot be
// greater than 2049 for Half type", "value cannot be converted to type uint8_t without
// overflow"): the i64 order was cast, so randperm(300, dtype=u8) wrapped past 255,
// randperm(5000, dtype=f16) repeated values and dtype=bool gave trues and a false,
// silently. A floating dtype holds the whole numbers up to 2/eps + 1 (f16: 2049); PyTorch
// checks only f16, but bf16 and f32 past theirs repeat values just the same.
void check_randperm_fits(int64_t n, DType dt) {
  if (dt == DType::b8) fail("randperm(): dtype must be a number type, got bool");
  int64_t top = INT64_MAX;  // the largest n whose 0..n-1 the dtype holds
  for (const IntLimits& i : kIntLimits)
    if (i.dtype == dt) top = i.max == INT64_MAX ? INT64_MAX : i.max + 1;
  for (const FloatLimits& f : kFloatLimits)
    if (f.dtype == dt) top = static_cast<int64_t>(2.0 / f.eps) + 1;
  if (n > top)
    fail("randperm(): n must be at most " + std::to_string(top) + " for " + dtype_name(dt) + " (its values 0.." +
         std::to_string(top - 1) + " are held exactly), got " + std::to_string(n));
}

// randperm(n): 0..n-1 in random order (torch.randperm), the order of n uniform draws
// from the global generator (argsort), so that manual_seed repeats it and a compiled
// graph draws at every call like rand (Note [Random draws are ops]).
Value randperm_builtin(Evaluator&, CallArgs& a) {
  GeneratorScope generator(a, "randperm");
  FactoryOpts o = take_factory_kw(a, "randperm", {"n"});
  Bound b = bind("randperm", a, {"n"}, 1);
  int64_t n = as_int(b[0], "randperm(): n");
  if (n < 0) fail("randperm(): n must be >= 0, got " + std::to_string(n));
  DType dt = o.dtype.value_or(DType::i64);
  check_randperm_fits(n, dt);
  Tensor draws = transforms::random_under_vmap("randperm", Shape({n}), [](const Shape& s) { return random_uniform(s, DType::f64); });
  Tensor t = argsort(draws, 0);
  if (dt != DType::i64) t = to_dtype(t, dt);
  return finish(t, o, "randperm");
}

// Note [An integer arange is exact]
// arange of ints into an integer dtype counts and steps in integers, as PyTorch's:
// through doubles, numbers past 2^53 rounded, so arange(2**53, 2**53 + 5) was four
// values, one repeated, and arange(2**63 - 2, 2**63 - 1) none. The span is taken in
// 128 bits (end - start may pass int64), and each value start + k * step lies in
// [start, end), an int64.
Tensor integer_arange(int64_t start, int64_t end, int64_t step) {
  const __int128 span = static_cast<__int128>(end) - start;
  const bool empty_range = span == 0 || (span > 0) != (step > 0);
  const __int128 count = empty_range ? 0 : (span + step + (step > 0 ? -1 : 1)) / step;  // ceil(span / step)
  if (count > INT64_MAX) fail("arange(): the number of values: " + repr(Value::number(static_cast<double>(count))) + " is outside the range of a 64-bit int");
  const int64_t n = static_cast<int64_t>(count);
  Tensor values = empty({n}, DType::i64);  // the allocator's checks first, as below
  int64_t* v = values.data<int64_t>();
  for (int64_t k = 0; k < n; ++k) v[k] = static_cast<int64_t>(start + static_cast<__int128>(k) * step);
  return values;
}

Value arange_builtin(Evaluator&, CallArgs& a) {
  // start, end and step by name too, as torch.arange(start=0, end=5, step=2)
  FactoryOpts o = take_factory_kw(a, "arange", {"start", "end", "step"});
  const bool start_by_name = a.find_kw("start") != nullptr;
  Bound b = bind("arange", a, {"start", "end", "step"}, 0);
  // arange(5) is end = 5; start=5 by name is a start, which needs an end
  if ((!b.has(0) && !b.has(1)) || (start_by_name && !b.has(1))) fail("arange() missing required argument 'end'");
  Value start = b.has(1) ? (b.has(0) ? b[0] : Value::integer(0)) : Value::integer(0);
  Value end = b.has(1) ? b[1] : b[0];
  Value step = b.has(2) ? b[2] : Value::integer(1);
  auto is_float = [](const Value& v) { return v.tag == Tag::Float || (v.tag == Tag::Tensor && is_floating(v.t.dtype())); };
  bool floating = is_float(start) || is_float(end) || is_float(step);  // a 0-dim f32 tensor too, as PyTorch's
  double s = as_num(start, "arange()"), e = as_num(end, "arange()"), st = as_num(step, "arange()");
  if (st == 0) fail("arange(): step must not be zero");
  DType dt = o.dtype.value_or(floating ? DType::f32 : DType::i64);
  // An integer dtype takes the step as an integer, as PyTorch's ("step must be nonzero"):
  // arange(0, 1, 0.1, dtype=i64) gave ten zeros, silently.
  if (!is_floating(dt) && dt != DType::b8 && std::fabs(st) < 1)
    fail("arange(): step " + repr(step) + " is 0 as an integer of " + dtype_name(dt) +
         " (an integer dtype truncates the step; use a floating dtype, or a step of at least 1)");
  if (!floating && !is_floating(dt)) {  // Note [An integer arange is exact]
    auto whole = [](const Value& v) { return v.tag == Tag::Bool ? int64_t{v.b} : as_int(v, "arange()"); };
    return finish(to_dtype(integer_arange(whole(start), whole(end), whole(step)), dt), o, "arange");
  }
  int64_t n = std::max<int64_t>(0, int_from_double(std::ceil((e - s) / st), "arange(): the number of values"));
  // The tensor first, so that a huge count meets the allocator's checks (the memory
  // budget, out of memory) before any work.
  Tensor values = empty({n}, DType::f64);
  double* v = values.data<double>();
  for (int64_t k = 0; k < n; ++k) v[k] = s + static_cast<double>(k) * st;
  return finish(to_dtype(values, dt), o, "arange");
}

Value linspace_builtin(Evaluator&, CallArgs& a) {
  FactoryOpts o = take_factory_kw(a, "linspace", {"start", "end", "steps"});
  Bound b = bind("linspace", a, {"start", "end", "steps"}, 3);
  double s = as_num(b[0], "linspace()"), e = as_num(b[1], "linspace()");
  int64_t n = as_int(b[2], "linspace(): steps");
  if (n < 0) fail("linspace(): steps must be non-negative, got " + std::to_string(n));
  // The ends must fit the dtype, as PyTorch's: linspace(0, 300, 5, dtype=u8) ended at 44
  DType dt = o.dtype.value_or(DType::f32);
  check_fits_dtype(b[0], dt, "linspace(): argument 'start'");
  check_fits_dtype(b[1], dt, "linspace(): argument 'end'");
  // The tensor first, as arange's: a huge count meets the allocator's checks at once.
  Tensor values = empty({n}, DType::f64);
  double* v = values.data<double>();
  for (int64_t k = 0; k < n; ++k) v[k] = n == 1 ? s : s + (e - s) * static_cast<double>(k) / static_cast<double>(n - 1);
  return finish(to_dtype(values, dt), o, "linspace");
}

// torch.logspace: base ** linspace(start, end, steps), each power taken in f64.
Value logspace_builtin(Evaluator&, CallArgs& a) {
  FactoryOpts o = take_factory_kw(a, "logspace", {"start", "end", "steps", "base"});
  Bound b = bind("logspace", a, {"start", "end", "steps", "base"}, 3);
  double s = as_num(b[0], "logspace()"), e = as_num(b[1], "logspace()");
  int64_t n = as_int(b[2], "logspace(): steps");
  double base = b.has(3) ? as_num(b[3], "logspace(): base") : 10.0;
  if (n < 0) fail("logspace(): steps must be non-negative, got " + std::to_string(n));
  Tensor values = empty({n}, DType::f64);
  double* v = values.data<double>();
  for (int64_t k = 0; k < n; ++k)
    v[k] = std::pow(base, n == 1 ? s : s + (e - s) * static_cast<double>(k) / static_cast<double>(n - 1));
  return finish(to_dtype(values, o.dtype.value_or(DType::f32)), o, "logspace");
}

Value manual_seed_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("manual_seed", a, {"seed"}, 1);
  // Note [Untraced effects] (graph/capture.cpp): a graph's draws go on from the
  // generator's position at each call, so a reseed inside a compiled function ran once,
  // at capture, and the calls drew other numbers than eager's.
  notify_untraced_effect("manual_seed() resets the random generator");
  manual_seed(static_cast<uint64_t>(as_int(b[0], "manual_seed()")));
  return Value();
}

// The global generator's position as an int (its 64 bits), and putting it back: what
// torch.get_rng_state/set_rng_state are for, so that a recomputation (nn.checkpoint's
// backward) draws what the first run drew.
Value get_rng_state_builtin(Evaluator&, CallArgs& a) {
  bind("get_rng_state", a, {}, 0);
  return Value::integer(static_cast<int64_t>(generator_state()));
}

Value set_rng_state_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("set_rng_state", a, {"state"}, 1);
  set_generator_state(static_cast<uint64_t>(as_int(b[0], "set_rng_state(): state")));
  return Value();
}

// The dtypes by their short and their PyTorch names (builtins_args.cpp's
// dtype_aliases). bool, float and int are the builtin functions, which as_dtype reads as
// b8, f32 and i64.
void dtype_names(NamedValues& out) {
  for (const auto& [name, dtype] : dtype_aliases()) out.emplace_back(name, Value::dtype(dtype));
}

// Note [finfo and iinfo]
// torch.finfo(dtype) and torch.iinfo(dtype): the limits of a dtype, which training code
// reads for masks (finfo(x.dtype).min in place of -inf) and for epsilons
// (finfo(f32).eps in REINFORCE's normalized returns). An object with PyTorch's fields,
// shown as PyTorch shows it; finfo() is f32's (the default dtype).

std::string torch_dtype_name(DType d) {
  switch (d) {
    case DType::f32: return "float32";
    case DType::f64: return "float64";
    case DType::f16: return "float16";
    case DType::bf16: return "bfloat16";
    case DType::i64: return "int64";
    case DType::i32: return "int32";
    case DType::i16: return "int16";
    case DType::i8: return "int8";
    case DType::u8: return "uint8";
    default: return dtype_name(d);
  }
}

Value limits_object(const char* type, std::vector<std::pair<std::string, Value>> fields) {
  auto o = std::make_shared<ObjectObj>();
  o->type_name = type;
  std::string shown = std::string(type) + "(";
  for (size_t k = 0; k < fields.size(); ++k) shown += (k ? ", " : "") + fields[k].first + "=" + repr(fields[k].second);
  o->attrs = std::move(fields);
  o->describe = [shown] { return shown + ")"; };
  return Value::object(Tag::Object, o);
}

Value finfo_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("finfo", a, {"type"}, 0);
  DType d = b.has(0) ? as_dtype(b[0], "finfo(): type") : DType::f32;
  for (const FloatLimits& f : kFloatLimits)
    if (f.dtype == d)
      return limits_object("finfo", {{"resolution", Value::number(f.resolution)},
                                     {"min", Value::number(-f.max)},
                                     {"max", Value::number(f.max)},
                                     {"eps", Value::number(f.eps)},
                                     {"smallest_normal", Value::number(f.tiny)},
                                     {"tiny", Value::number(f.tiny)},
                                     {"bits", Value::integer(f.bits)},
                                     {"dtype", make_str(torch_dtype_name(d))}});
  fail(std::string("finfo(): ") + dtype_name(d) + " is not a floating dtype (iinfo() gives the limits of integer ones)");
}

Value iinfo_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("iinfo", a, {"type"}, 1);
  DType d = as_dtype(b[0], "iinfo(): type");
  for (const IntLimits& i : kIntLimits)
    if (i.dtype == d)
      return limits_object("iinfo", {{"min", Value::integer(i.min)},
                                     {"max", Value::integer(i.max)},
                                     {"bits", Value::integer(i.bits)},
                                     {"dtype", make_str(torch_dtype_name(d))}});
  fail(std::string("iinfo(): ") + dtype_name(d) + " is not an integer dtype (finfo() gives the limits of floating ones)");
}

// The keywords every factory takes, in every signature below.
#define NABLA_FACTORY_KW "dtype=f32, device=\"cpu\", requires_grad=false"

const BuiltinEntry kFactoryBuiltins[] = {
    {"tensor", tensor_builtin, "tensor(data, dtype=none, device=\"cpu\", requires_grad=false)",
     "A tensor of the numbers in data (nested lists), its dtype from them unless given. Example: tensor([[1, 2], [3, "
     "4]])"},
    {"zeros", zeros_builtin, "zeros(*size, " NABLA_FACTORY_KW ")", "A tensor of zeros. Example: zeros([2, 3])"},
    {"ones", ones_builtin, "ones(*size, " NABLA_FACTORY_KW ")", "A tensor of ones. Example: ones(2, 3, dtype=f64)"},
    {"empty", empty_builtin, "empty(*size, " NABLA_FACTORY_KW ")",
     "A tensor to be written before it is read (its values are zeros here). Example: empty([4])"},
    {"rand", rand_builtin, "rand(*size, " NABLA_FACTORY_KW ")",
     "Uniform samples in [0, 1), drawn on the CPU (manual_seed repeats them). Example: rand([3])"},
    {"randn", randn_builtin, "randn(*size, " NABLA_FACTORY_KW ")",
     "Standard normal samples, drawn on the CPU (manual_seed repeats them). Example: randn(64, 10, "
     "requires_grad=true)"},
    {"zeros_like", zeros_like_builtin, "zeros_like(x, dtype=none, device=none, requires_grad=false)",
     "Zeros of x's shape, dtype and device unless given. Example: zeros_like(randn(2, 3))"},
    {"ones_like", ones_like_builtin, "ones_like(x, dtype=none, device=none, requires_grad=false)",
     "Ones of x's shape, dtype and device unless given. Example: ones_like(randn(2, 3))"},
    {"empty_like", empty_like_builtin, "empty_like(x, dtype=none, device=none, requires_grad=false)",
     "A tensor of x's shape, dtype and device unless given (zeros, as nabla's empty). Example: empty_like(randn(2, 3))"},
    {"full_like", full_like_builtin, "full_like(x, fill_value, dtype=none, device=none, requires_grad=false)",
     "fill_value in x's shape, dtype and device unless given. Example: full_like(randn(2, 3), 7.0)"},
    {"normal", normal_builtin, "normal(mean, std=1.0, size=none, dtype=none, device=none, requires_grad=false)",
     "Samples of a normal distribution with the given mean and std (tensors, broadcast together, or numbers with "
     "size), as torch.normal; the draw carries no gradient. Example: normal(zeros(3), ones(3) * 2.0)"},
    {"eye", eye_builtin, "eye(n, m=none, dtype=f32, device=none, requires_grad=false)",
     "The n x m identity matrix (m = n unless given). Example: eye(3)"},
    {"rand_like", rand_like_builtin, "rand_like(x, dtype=none, device=none, requires_grad=false)",
     "Uniform samples in [0, 1) of x's shape, dtype and device unless given. Example: rand_like(randn(2, 3))"},
    {"randn_like", randn_like_builtin, "randn_like(x, dtype=none, device=none, requires_grad=false)",
     "Standard normal samples of x's shape, dtype and device unless given. Example: randn_like(zeros(2, 3))"},
    {"full", full_builtin, "full(size, fill_value, dtype=none, device=\"cpu\", requires_grad=false)",
     "A tensor of fill_value, its dtype from the value unless given. Example: full([2, 2], 0.5)"},
    {"randint", randint_builtin, "randint(low=0, high, size, dtype=i64, device=\"cpu\", requires_grad=false)",
     "Uniform random ints in [low, high). Example: randint(10, [4])"},
    {"randint_like", randint_like_builtin, "randint_like(input, low=0, high, dtype=none, device=none, requires_grad=false)",
     "Random integers in [low, high) of input's shape, in input's dtype and on its device unless told, as "
     "torch.randint_like. Example: randint_like(zeros([2, 3]), 10)"},
    {"randperm", randperm_builtin, "randperm(n, dtype=i64, device=\"cpu\", requires_grad=false)",
     "0..n-1 in random order. Example: randn(5, 2)[randperm(5)]"},
    {"arange", arange_builtin, "arange(start=0, end, step=1, dtype=none, device=\"cpu\", requires_grad=false)",
     "The numbers from start up to end, not including it, by step (i64 unless one is a float). Example: arange(5)"},
    {"linspace", linspace_builtin, "linspace(start, end, steps, " NABLA_FACTORY_KW ")",
     "steps numbers evenly spaced from start to end, both included. Example: linspace(0, 1, 5)"},
    {"logspace", logspace_builtin, "logspace(start, end, steps, base=10.0, " NABLA_FACTORY_KW ")",
     "base raised to steps numbers evenly spaced from start to end, as torch.logspace. Example: logspace(0, 2, 3)"},
    {"manual_seed", manual_seed_builtin, "manual_seed(seed)",
     "Seeds the random generator, so that rand, randn, randint and dropout repeat. Example: manual_seed(0)"},
    {"get_rng_state", get_rng_state_builtin, "get_rng_state()",
     "The random generator's position, an int that set_rng_state puts back (draws after it repeat). "
     "Example: let s = get_rng_state(); let a = randn(2); set_rng_state(s); expect(randn(2).equal(a))"},
    {"set_rng_state", set_rng_state_builtin, "set_rng_state(state)",
     "Puts the random generator back where get_rng_state() found it. Example: set_rng_state(get_rng_state())"},
    {"finfo", finfo_builtin, "finfo(type=f32)",
     "The limits of a floating dtype (eps, min, max, tiny, smallest_normal, resolution, bits), as torch.finfo. "
     "Example: finfo(f32).eps"},
    {"iinfo", iinfo_builtin, "iinfo(type)",
     "The limits of an integer dtype (min, max, bits), as torch.iinfo. Example: iinfo(i32).max"},
};

#undef NABLA_FACTORY_KW

}  // namespace

const BuiltinLibrary kFactoryLibrary = {"factories", nullptr, kFactoryBuiltins, dtype_names};

}  // namespace nabla::interp
