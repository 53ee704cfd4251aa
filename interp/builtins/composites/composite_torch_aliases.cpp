// PyTorch's other names for functions nabla has (torch.multiply is mul, torch.arccos
// is acos, torch.fix is trunc, ...), its dtype predicates, and the tensor methods that
// report how a tensor is stored (stride, element_size, type). An alias calls the
// function it names through op_functions(), so it takes the same arguments, has the
// same gradient and in-place form (x.multiply_(2)), and compiles as that function
// does. tests/stdlib/test_torch_surface.dsl checks them against PyTorch.
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include "interp/builtins/builtins_internal.hpp"
#include "interp/builtins/composites/composites.hpp"

namespace nabla::interp {

namespace {

// The function named Target, called with the alias's arguments unchanged.
template <const char* Target>
Value alias_of(Evaluator& ev, CallArgs& a) {
  return op_functions().at(Target)(ev, a);
}

constexpr char kDiv[] = "div", kMul[] = "mul", kSub[] = "sub", kGt[] = "gt", kGe[] = "ge", kLt[] = "lt",
               kLe[] = "le", kNe[] = "ne", kNeg[] = "neg", kAbs[] = "abs", kAcos[] = "acos", kAsin[] = "asin",
               kAtan[] = "atan", kAcosh[] = "acosh", kAsinh[] = "asinh", kAtanh[] = "atanh", kTrunc[] = "trunc",
               kSign[] = "sign", kAtan2[] = "atan2";

// true_divide is div without a rounding mode: PyTorch's takes only (input, other).
Value true_divide_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("true_divide", a, {"input", "other"}, 2);
  CallArgs plain;
  plain.pos = {b[0], b[1]};
  return op_functions().at("div")(ev, plain);
}

// A number beside a tensor in where is stored into the tensor's dtype, as PyTorch's
// (Note [A number into a dtype]): where(c, i16 tensor, 40000) wrapped. A float beside
// an integer tensor makes the result f32, which takes it.
void check_where_number(const Value& number, const Value& beside, const char* name) {
  if (number.is_none()) fail(std::string("where(): argument '") + name + "' must be a tensor or a number, got none");
  if (!number.is_num() || beside.tag != Tag::Tensor) return;
  if (number.tag == Tag::Float && !is_floating(beside.t.dtype())) return;
  check_fits_dtype(number, beside.t.dtype(), std::string("where(): argument '") + name + "'");
}

// torch.where(condition) of one argument is nonzero(condition, as_tuple=true); with
// three, the row.
Value where_builtin(Evaluator& ev, CallArgs& a) {
  if (a.pos.size() == 1 && a.kw.empty()) {
    CallArgs nz;
    nz.pos = {a.pos[0]};
    nz.kw.emplace_back("as_tuple", Value::boolean(true));
    return op_functions().at("nonzero")(ev, nz);
  }
  Bound b = bind("where", a, {"condition", "input", "other"}, 3);
  check_where_number(b[1], b[2], "input");
  check_where_number(b[2], b[1], "other");
  CallArgs by_position;  // the row names input 'self': where(c, input=x, other=y) was refused
  by_position.pos = {b[0], b[1], b[2]};
  return row_call("where", by_position);
}

// var and std take PyTorch's older unbiased= (a bool, also by position: var(x, true),
// var(x, 0, false, true)) as correction 1 or 0; the rest is the row's.
Value spread_builtin(CallArgs& a, const char* fname) {
  CallArgs out;
  std::optional<bool> unbiased;
  for (size_t k = 0; k < a.pos.size(); ++k) {
    if ((k == 1 || k == 2) && a.pos[k].tag == Tag::Bool && !unbiased) {
      unbiased = a.pos[k].b;
      if (k == 2 && k + 1 < a.pos.size()) {  // (input, dim, unbiased, keepdim)
        out.kw.emplace_back("keepdim", a.pos[k + 1]);
        break;
      }
      continue;
    }
    out.pos.push_back(a.pos[k]);
  }
  for (auto& [k, v] : a.kw) {
    if (k != "unbiased") {
      out.kw.emplace_back(k, v);
      continue;
    }
    if (unbiased) fail(std::string(fname) + "(): argument 'unbiased' given twice");
    unbiased = as_bool(v, std::string(fname) + "(): argument 'unbiased'");
  }
  if (unbiased) {
    if (a.find_kw("correction")) fail(std::string(fname) + "(): give unbiased or correction, not both");
    out.kw.emplace_back("correction", Value::integer(*unbiased ? 1 : 0));
  }
  return row_call(fname, out);
}
Value var_builtin(Evaluator&, CallArgs& a) { return spread_builtin(a, "var"); }
Value std_builtin(Evaluator&, CallArgs& a) { return spread_builtin(a, "std"); }

// sum, mean, cumsum and cumprod take PyTorch's dtype=: the input is cast to it first
// (so tensor([1, 2]).mean(dtype=f32) is a float mean, and an f16 sum can add in f32).
template <const char* Row>
Value dtype_first(Evaluator&, CallArgs& a) {
  CallArgs out;
  out.pos = a.pos;
  std::optional<DType> dt;
  for (auto& [k, v] : a.kw) {
    if (k == "dtype" && !v.is_none()) dt = as_dtype(v, std::string(Row) + "(): argument 'dtype'");
    else if (k == "input" && out.pos.empty()) out.pos.push_back(v);
    else if (k != "dtype") out.kw.emplace_back(k, v);
  }
  if (dt && !out.pos.empty() && out.pos[0].tag == Tag::Tensor) out.pos[0] = Value::tensor(to_dtype(out.pos[0].t, *dt));
  Value r = row_call(Row, out);
  // An integer row adds in i64 (as PyTorch's without dtype=); dtype= names the result's
  // dtype too, and the sum wraps in it as it would have added there.
  if (dt && r.tag == Tag::Tensor && r.t.dtype() != *dt) r = Value::tensor(to_dtype(r.t, *dt));
  return r;
}
constexpr char kSum[] = "sum", kMean[] = "mean", kCumsum[] = "cumsum", kCumprod[] = "cumprod";

// round(x, decimals=d): round(x * 10^d) / 10^d (d < 0: round(x / 10^-d) * 10^-d), in
// x's dtype, as PyTorch's.
Value round_builtin(Evaluator&, CallArgs& a) {
  const Value* d = a.find_kw("decimals");
  if (!d) return row_call("round", a);
  Bound b = bind("round", a, {"input", "decimals"}, 1);
  Tensor x = arg(b, 0, "round", "input");
  const int64_t decimals = as_int(b[1], "round(): argument 'decimals'");
  if (decimals == 0) return Value::tensor(round(x));
  if (!is_floating(x.dtype())) fail(std::string("round(): decimals needs a float tensor, got ") + dtype_name(x.dtype()));
  const double scale = std::pow(10.0, static_cast<double>(decimals > 0 ? decimals : -decimals));
  Tensor ten = number_like(scale, x);
  return Value::tensor(decimals > 0 ? div(round(mul(x, ten)), ten) : mul(round(div(x, ten)), ten));
}

// ---- dtype predicates ------------------------------------------------------------------

Value is_floating_point_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("is_floating_point", a, {"input"}, 1);
  return Value::boolean(is_floating(arg(b, 0, "is_floating_point", "input").dtype()));
}
// nabla has no complex dtypes, so every tensor is real.
Value is_complex_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("is_complex", a, {"input"}, 1);
  (void)arg(b, 0, "is_complex", "input");
  return Value::boolean(false);
}
// Signed: every dtype but u8 and bool, as torch.Tensor.is_signed.
Value is_signed_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("is_signed", a, {"input"}, 1);
  const DType d = arg(b, 0, "is_signed", "input").dtype();
  return Value::boolean(d != DType::u8 && d != DType::b8);
}

// ---- how a tensor is stored ------------------------------------------------------------

// x.stride(): the step in elements between neighbours along each dim; x.stride(d): one.
Value stride_method(Evaluator&, CallArgs& a) {
  Bound b = bind("stride", a, {"input", "dim"}, 1);
  Tensor x = arg(b, 0, "stride", "input");
  if (b.has(1)) {
    const int64_t d = wrap_dim(as_int(b[1], "stride(): argument 'dim'"), x.dim(), "stride(): argument 'dim'");
    return Value::integer(x.strides()[static_cast<size_t>(d)]);
  }
  std::vector<Value> items;
  for (int64_t s : x.strides()) items.push_back(Value::integer(s));
  return make_tuple(std::move(items));
}

// x.nelement(): numel's older name, as torch.Tensor.nelement.
Value nelement_method(Evaluator&, CallArgs& a) {
  Bound b = bind("nelement", a, {"input"}, 1);
  return Value::integer(arg(b, 0, "nelement", "input").numel());
}

Value element_size_method(Evaluator&, CallArgs& a) {
  Bound b = bind("element_size", a, {"input"}, 1);
  return Value::integer(static_cast<int64_t>(dtype_size(arg(b, 0, "element_size", "input").dtype())));
}

// x.data_ptr(): the address of x's first element, as torch.Tensor.data_ptr: two tensors
// that share memory from the same element (tied weights, a view at offset 0) give the
// same number, which is how PyTorch code checks that weights are tied.
Value data_ptr_method(Evaluator&, CallArgs& a) {
  Bound b = bind("data_ptr", a, {"input"}, 1);
  const Tensor x = arg(b, 0, "data_ptr", "input");
  return Value::integer(static_cast<int64_t>(reinterpret_cast<intptr_t>(x.raw_data())));
}

// x.storage_offset(): where x starts in its storage, in elements.
Value storage_offset_method(Evaluator&, CallArgs& a) {
  Bound b = bind("storage_offset", a, {"input"}, 1);
  return Value::integer(arg(b, 0, "storage_offset", "input").offset());
}

// PyTorch's legacy type names, by dtype ("torch.FloatTensor").
const char* legacy_type_name(DType d) {
  switch (d) {
    case DType::f32: return "FloatTensor";
    case DType::f64: return "DoubleTensor";
    case DType::f16: return "HalfTensor";
    case DType::bf16: return "BFloat16Tensor";
    case DType::i64: return "LongTensor";
    case DType::i32: return "IntTensor";
    case DType::b8: return "BoolTensor";
    case DType::i8: return "CharTensor";
    case DType::u8: return "ByteTensor";
    case DType::i16: return "ShortTensor";
  }
  return "Tensor";
}
std::string legacy_type(const Tensor& x) {
  return std::string((x.device().kind == DeviceKind::cuda) ? "torch.cuda." : "torch.") + legacy_type_name(x.dtype());
}

// x.type(): the legacy type name; x.type(dtype) (a dtype or such a name): x cast to it.
Value type_method(Evaluator&, CallArgs& a) {
  Bound b = bind("type", a, {"input", "dtype"}, 1);
  Tensor x = arg(b, 0, "type", "input");
  if (!b.has(1)) return make_str(legacy_type(x));
  if (b[1].tag != Tag::Str) return Value::tensor(to_dtype(x, as_dtype(b[1], "type(): argument 'dtype'")));
  const std::string& name = b[1].as<StrObj>()->s;
  const bool cuda = name.rfind("torch.cuda.", 0) == 0;
  const std::string bare = name.substr(cuda ? 11 : name.rfind("torch.", 0) == 0 ? 6 : 0);
  for (int k = 0; k < kNumDTypes; ++k) {
    const auto d = static_cast<DType>(k);
    if (bare != legacy_type_name(d)) continue;
    Tensor y = to_dtype(x, d);
    if (cuda != (x.device().kind == DeviceKind::cuda)) fail("type(): '" + name + "' names another device; use to() to move a tensor");
    return Value::tensor(y);
  }
  fail("type(): unknown type name '" + name + "' (expected a dtype or a name such as 'torch.FloatTensor')");
}

}  // namespace

// The aliases (each a function and a tensor method), the dtype predicates, and the rows
// whose PyTorch arguments need a convention (where(cond), var(unbiased=)).
const BuiltinEntry kCompositeTorchAliases[] = {
    {"where", where_builtin, "where(condition, input=none, other=none)", nullptr},
    {"var", var_builtin, "var(input, dims=[], unbiased=true, keepdim=false, correction=1)", nullptr},
    {"std", std_builtin, "std(input, dims=[], unbiased=true, keepdim=false, correction=1)", nullptr},
    {"sum", dtype_first<kSum>, "sum(input, dims=[], keepdim=false, dtype=none)", nullptr},
    {"mean", dtype_first<kMean>, "mean(input, dims=[], keepdim=false, dtype=none)", nullptr},
    {"cumsum", dtype_first<kCumsum>, "cumsum(input, dim, dtype=none)", nullptr},
    {"cumprod", dtype_first<kCumprod>, "cumprod(input, dim, dtype=none)", nullptr},
    {"round", round_builtin, "round(input, decimals=0)", nullptr},
    {"true_divide", true_divide_builtin, "true_divide(input, other)",
     "input / other as floats (div without a rounding mode), as torch.true_divide. Example: true_divide(tensor([1, 2]), 2)"},
    {"multiply", alias_of<kMul>, "multiply(input, other)",
     "input * other, as torch.multiply (mul's alias). Example: multiply(tensor([1.0, 2.0]), 3)"},
    {"subtract", alias_of<kSub>, "subtract(input, other, alpha=1)",
     "input - alpha * other, as torch.subtract (sub's alias). Example: subtract(tensor([3.0]), tensor([1.0]), alpha=2)"},
    {"divide", alias_of<kDiv>, "divide(input, other, rounding_mode=none)",
     "input / other, as torch.divide (div's alias). Example: divide(tensor([7, -7]), 2, rounding_mode=\"floor\")"},
    {"greater", alias_of<kGt>, "greater(input, other)",
     "input > other elementwise, bool, as torch.greater (gt's alias). Example: greater(tensor([1.0, 2.0]), 1.5)"},
    {"greater_equal", alias_of<kGe>, "greater_equal(input, other)",
     "input >= other elementwise, bool, as torch.greater_equal (ge's alias). Example: greater_equal(tensor([1, 2]), 2)"},
    {"less", alias_of<kLt>, "less(input, other)",
     "input < other elementwise, bool, as torch.less (lt's alias). Example: less(tensor([1.0, 2.0]), 2)"},
    {"less_equal", alias_of<kLe>, "less_equal(input, other)",
     "input <= other elementwise, bool, as torch.less_equal (le's alias). Example: less_equal(tensor([1, 2]), 1)"},
    {"not_equal", alias_of<kNe>, "not_equal(input, other)",
     "input != other elementwise, bool, as torch.not_equal (ne's alias). Example: not_equal(tensor([1, 2]), 1)"},
    {"negative", alias_of<kNeg>, "negative(input)",
     "-input, as torch.negative (neg's alias). Example: negative(tensor([1.0, -2.0]))"},
    {"absolute", alias_of<kAbs>, "absolute(input)",
     "|input|, as torch.absolute (abs's alias). Example: absolute(tensor([1.0, -2.0]))"},
    {"arccos", alias_of<kAcos>, "arccos(input)", "acos elementwise, as torch.arccos. Example: arccos(tensor([0.5]))"},
    {"arcsin", alias_of<kAsin>, "arcsin(input)", "asin elementwise, as torch.arcsin. Example: arcsin(tensor([0.5]))"},
    {"arctan", alias_of<kAtan>, "arctan(input)", "atan elementwise, as torch.arctan. Example: arctan(tensor([0.5]))"},
    {"arctan2", alias_of<kAtan2>, "arctan2(input, other)",
     "atan2 elementwise, as torch.arctan2. Example: arctan2(tensor([1.0]), tensor([-1.0]))"},
    {"arccosh", alias_of<kAcosh>, "arccosh(input)", "acosh elementwise, as torch.arccosh. Example: arccosh(tensor([2.0]))"},
    {"arcsinh", alias_of<kAsinh>, "arcsinh(input)", "asinh elementwise, as torch.arcsinh. Example: arcsinh(tensor([0.5]))"},
    {"arctanh", alias_of<kAtanh>, "arctanh(input)", "atanh elementwise, as torch.arctanh. Example: arctanh(tensor([0.5]))"},
    {"fix", alias_of<kTrunc>, "fix(input)",
     "Each element rounded toward zero, as torch.fix (trunc's alias). Example: fix(tensor([-1.5, 2.7]))"},
    {"sgn", alias_of<kSign>, "sgn(input)",
     "The sign of each element (-1, 0 or 1), as torch.sgn (sign, for real tensors). Example: sgn(tensor([-2.0, 0.0, 3.0]))"},
    {"is_floating_point", is_floating_point_builtin, "is_floating_point(input)",
     "Whether input's dtype is a float (f16, bf16, f32, f64), as torch.is_floating_point. "
     "Example: is_floating_point(zeros(2))"},
    {"is_complex", is_complex_builtin, "is_complex(input)",
     "false: nabla's tensors are real, as torch.is_complex of a real tensor. Example: is_complex(zeros(2))"},
    {"is_signed", is_signed_builtin, "is_signed(input)",
     "Whether input's dtype holds negative numbers (all but u8 and bool), as torch.Tensor.is_signed. "
     "Example: is_signed(tensor([1]))"},
};

// The methods PyTorch has only on tensors.
const BuiltinEntry kTorchStorageMethods[] = {
    {"stride", stride_method, "stride(dim=none)",
     "The steps in elements between neighbours along each dim (a tuple), or along one dim, as torch.Tensor.stride. "
     "Example: zeros(2, 3).t().stride()"},
    {"nelement", nelement_method, "nelement()",
     "The number of elements, as torch.Tensor.nelement (numel's other name). Example: zeros(2, 3).nelement()"},
    {"element_size", element_size_method, "element_size()",
     "The bytes one element takes, as torch.Tensor.element_size. Example: zeros(2, dtype=f16).element_size()"},
    {"data_ptr", data_ptr_method, "data_ptr()",
     "The address of the first element, as torch.Tensor.data_ptr: equal for tensors that share memory from the same "
     "element (tied weights). Example: let w = zeros(2); w.data_ptr() == w.view(2).data_ptr()"},
    {"storage_offset", storage_offset_method, "storage_offset()",
     "Where the tensor starts in its storage, in elements, as torch.Tensor.storage_offset. "
     "Example: arange(6)[2:].storage_offset()"},
    {"type", type_method, "type(dtype=none)",
     "PyTorch's type name ('torch.FloatTensor'), or given a dtype or such a name, this tensor cast to it, as "
     "torch.Tensor.type. Example: tensor([1.5]).type(i64)"},
};

std::span<const BuiltinEntry> composite_torch_aliases() {
  return std::span<const BuiltinEntry>(kCompositeTorchAliases);
}
std::span<const BuiltinEntry> torch_storage_methods() { return kTorchStorageMethods; }

}  // namespace nabla::interp
