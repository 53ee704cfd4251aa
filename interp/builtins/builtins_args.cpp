// Argument binding for builtins (names, required, keywords) and conversions of
// values: ints, numbers, bools, dtypes, shapes, nested lists to tensors and
// tensors back to lists. No builtin is defined here.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>

#include "autograd/ops.hpp"
#include "autograd/trace.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "interp/values/value_walk.hpp"
#include "tensor/cpu/copy.hpp"
#include "tensor/cpu/loops.hpp"

namespace nabla::interp {

// Note [NumPy's keyword names]
// PyTorch's argument parser takes NumPy's names for two keywords of every function:
// axis for dim and keepdims for keepdim (x.sum(axis=-1, keepdims=True), common in RL
// code). A builtin's keyword that matches none of its names is tried under PyTorch's
// name before it is an error; the error still names the keyword as written.
const char* pytorch_keyword(const std::string& key) {
  if (key == "axis") return "dim";
  if (key == "keepdims") return "keepdim";
  return nullptr;
}

std::string pytorch_keyword(const std::string& key, const std::vector<std::string>& valid) {
  const char* alias = pytorch_keyword(key);
  return alias && std::find(valid.begin(), valid.end(), key) == valid.end() ? std::string(alias) : key;
}

// fname is a view: most callers pass a literal, which as a std::string was built (and
// past 15 characters allocated) at every call; the messages copy it only on failure.
Bound bind_named(std::string_view fname_view, CallArgs& a, std::initializer_list<const char*> names, size_t required) {
  Bound b;
  size_t n = names.size();
  b.v.resize(n);
  b.given.resize(n, false);
  const char* const* nm = names.begin();  // no copy: bind runs at every builtin call
  if (a.pos.size() > n)
    fail(std::string(fname_view) + "() takes at most " + std::to_string(n) + " argument" + (n == 1 ? "" : "s") +
         " but " + std::to_string(a.pos.size()) + " were given");
  for (size_t k = 0; k < a.pos.size(); ++k) {
    b.v[k] = std::move(a.pos[k]);
    b.given[k] = true;
  }
  for (auto& [key, val] : a.kw) {
    size_t k = 0;
    while (k < n && key != nm[k]) ++k;
    if (const char* alias = k == n ? pytorch_keyword(key) : nullptr)
      for (k = 0; k < n && std::string_view(alias) != nm[k];) ++k;
    if (k == n) fail_unexpected_keyword(std::string(fname_view), key, std::vector<std::string>(nm, nm + n));
    if (b.given[k]) fail(std::string(fname_view) + "() got multiple values for argument '" + key + "'");
    b.v[k] = std::move(val);
    b.given[k] = true;
  }
  for (size_t k = 0; k < required; ++k)
    if (!b.given[k]) fail(std::string(fname_view) + "() missing required argument '" + nm[k] + "'");
  return b;
}

int64_t int_from_double(double d, const std::string& what) {
  // [-2^63, 2^63): both bounds are exact doubles; NaN fails both comparisons.
  if (!(d >= -0x1p63 && d < 0x1p63)) fail(what + ": " + float_repr(d) + " is outside the range of a 64-bit int");
  return static_cast<int64_t>(d);
}

// Note [Numbers read from tensor arguments]
// `x.select(0, i)`, `x.narrow(0, i, 1)`, `x.roll(k, 0)` with a 0-dim tensor for the
// int: the builtin reads the tensor's number on the host. Inside compile that number
// would be baked in as a constant of the graph (in a lowered `for`, the first step's
// `i` for every step), so the read is reported to the capture as item() is: a capture
// of a value that varies is a problem naming the line, and a lowered `for` whose body
// does it unrolls instead.
int64_t as_int(const Value& v, const std::string& what) {
  if (v.tag == Tag::Int) return v.i;
  // A bool is refused, as PyTorch refuses it for an int argument: topk(x, true) was k=1.
  if (v.tag == Tag::Bool) fail(what + ": expected an int, got bool");
  if (v.tag == Tag::Float && v.f == std::floor(v.f)) return int_from_double(v.f, what);
  if (v.tag == Tag::Tensor && v.t.numel() == 1 && !is_floating(v.t.dtype())) {
    notify_value_read(v.t, what);
    return v.t.item_int();
  }
  fail(what + ": expected an int, got " + type_name(v));
}

int64_t as_python_int(const Value& v, const std::string& what) { return v.tag == Tag::Bool ? v.b : as_int(v, what); }

double as_num(const Value& v, const std::string& what) {
  if (v.is_num()) return v.as_double();
  if (v.tag == Tag::Tensor && v.t.numel() == 1) {
    notify_value_read(v.t, what);  // Note [Numbers read from tensor arguments]
    return v.t.item();
  }
  fail(what + ": expected a number, got " + type_name(v));
}

std::vector<double> as_numbers(const Value& v, const std::string& what) {
  if (v.tag == Tag::Tensor) {
    notify_value_read(v.t, what);  // Note [Numbers read from tensor arguments]
    return to_double_vector(v.t);
  }
  if (v.tag != Tag::List && v.tag != Tag::Tuple)
    fail(what + ": expected a tensor or a list of numbers, got " + type_name(v));
  const auto& items = v.as<ListObj>()->items;
  std::vector<double> out;
  out.reserve(items.size());
  for (size_t k = 0; k < items.size(); ++k) out.push_back(as_num(items[k], what + "[" + std::to_string(k) + "]"));
  return out;
}

bool as_bool(const Value& v, const std::string& what) {
  if (v.tag == Tag::Bool) return v.b;
  if (v.tag == Tag::Int) return v.i != 0;
  fail(what + ": expected a bool, got " + type_name(v));
}

// A path argument: a str, never another value's text (gm.render(5) wrote a file named "5").
std::string as_path(const Value& v, const std::string& fname) {
  if (v.tag != Tag::Str) fail(fname + "(): path: expected a str, got " + type_name(v));
  return v.as<StrObj>()->s;
}

const Tensor& as_tensor(const Value& v, const std::string& what) {
  if (v.tag != Tag::Tensor) fail(what + ": expected a tensor, got " + type_name(v));
  return v.t;
}

std::vector<int64_t> as_ints(const Value& v, const std::string& what) {
  std::vector<int64_t> out;
  if (v.tag == Tag::List || v.tag == Tag::Tuple) {
    for (auto& x : v.as<ListObj>()->items) out.push_back(as_int(x, what));
    return out;
  }
  if (v.tag == Tag::Int) return {v.i};
  if (v.tag == Tag::Tensor && v.t.dim() <= 1 && !is_floating(v.t.dtype())) {
    notify_value_read(v.t, what);  // Note [Numbers read from tensor arguments]
    return to_int64_vector(v.t);
  }
  fail(what + ": expected a list of ints, got " + type_name(v));
}

// The dtypes by their short and their PyTorch names (torch.long, torch.double and
// torch.half too, which training code writes: zeros(n, dtype=long)). The factories
// bind each as a name (builtins_factories.cpp's dtype_names), and a dtype given as a
// str may use any of them, "int16" or "torch.int16" as well as "i16".
const std::vector<std::pair<const char*, DType>>& dtype_aliases() {
  static const std::vector<std::pair<const char*, DType>> names = {
      {"f32", DType::f32}, {"f64", DType::f64}, {"f16", DType::f16}, {"bf16", DType::bf16},
      {"i64", DType::i64}, {"i32", DType::i32}, {"float32", DType::f32}, {"float64", DType::f64},
      {"int64", DType::i64}, {"int32", DType::i32}, {"i8", DType::i8}, {"u8", DType::u8},
      {"int8", DType::i8}, {"uint8", DType::u8}, {"float16", DType::f16}, {"bfloat16", DType::bf16},
      {"i16", DType::i16}, {"int16", DType::i16}, {"short", DType::i16},
      {"long", DType::i64}, {"double", DType::f64}, {"half", DType::f16}};
  return names;
}

bool dtype_from_user_name(const std::string& name, DType* out) {
  if (dtype_from_name(name, out)) return true;
  std::string bare = name.rfind("torch.", 0) == 0 ? name.substr(6) : name;
  if (bare == "bool") {
    *out = DType::b8;
    return true;
  }
  for (const auto& [alias, dtype] : dtype_aliases())
    if (bare == alias) {
      *out = dtype;
      return true;
    }
  return false;
}

DType as_dtype(const Value& v, const std::string& what) {
  if (v.tag == Tag::DType) return v.dt;
  if (v.tag == Tag::Str) {
    DType d;
    if (dtype_from_user_name(v.as<StrObj>()->s, &d)) return d;
    fail(what + ": unknown dtype '" + v.as<StrObj>()->s + "' (expected f32, f64, f16, bf16, i64, i32, i16, i8, u8 or bool)");
  }
  if (v.tag == Tag::Native) {
    const std::string& n = v.as<NativeObj>()->name;
    if (n == "bool") return DType::b8;
    if (n == "float") return DType::f32;
    if (n == "int") return DType::i64;
  }
  fail(what + ": expected a dtype (f32, f64, f16, bf16, i64, i32, i16, i8, u8, bool), got " + type_name(v));
}

// Shape given as a list/tuple or as varargs starting at pos[start].
std::vector<int64_t> shape_args(const std::vector<Value>& pos, size_t start, const std::string& fname) {
  if (pos.size() == start + 1 && (pos[start].tag == Tag::List || pos[start].tag == Tag::Tuple))
    return as_ints(pos[start], fname);
  std::vector<int64_t> out;
  for (size_t k = start; k < pos.size(); ++k) out.push_back(as_int(pos[k], fname));
  return out;
}


Value tuple_of(const TensorList& ts) {
  std::vector<Value> items;
  for (auto& t : ts) items.push_back(tensor_value(t));
  return make_tuple(std::move(items));
}

// ---- tensors from values ----------------------------------------------------------------

Tensor tensor_from_value(const Value& v, std::optional<DType> dtype) {
  if (v.tag == Tag::Tensor) {
    Tensor t = contiguous_raw(v.t);
    if (t.is_same(v.t)) {
      Tensor c = empty(v.t.sizes(), v.t.dtype(), v.t.device());
      copy_into(c, v.t);
      t = c;
    }
    return dtype && *dtype != t.dtype() ? to_dtype_raw(t, *dtype) : t;
  }
  std::vector<int64_t> shape;
  std::vector<double> values;
  std::vector<int64_t> ints;  // the same values exactly, while no float came (2**53 + 1 is not a double)
  int kind = 0;  // 0 bool, 1 int, 2 float
  bool any = false;
  // Recursive, as deep as a tensor has dims at most (the CPU loops' limit): a deeper
  // list, or one that holds itself, is an error (Note [Walks over nested values]).
  std::function<void(const Value&, size_t)> walk = [&](const Value& x, size_t depth) {
    if (x.tag == Tag::List || x.tag == Tag::Tuple) {
      if (depth >= static_cast<size_t>(cpu::kMaxLoopDims)) {
        if (holds_itself(x)) fail_cycle("tensor()", x);
        fail("tensor(): the nested list is more than " + std::to_string(cpu::kMaxLoopDims) +
             " levels deep (a tensor has at most " + std::to_string(cpu::kMaxLoopDims) + " dims)");
      }
      auto& items = x.as<ListObj>()->items;
      if (depth == shape.size()) {
        if (any && depth >= shape.size()) fail("tensor(): ragged nested list (a number where a list was expected)");
        shape.push_back(static_cast<int64_t>(items.size()));
      } else if (shape[depth] != static_cast<int64_t>(items.size())) {
        fail("tensor(): ragged nested list (lengths " + std::to_string(shape[depth]) + " and " +
             std::to_string(items.size()) + " at depth " + std::to_string(depth) + ")");
      }
      for (auto& y : items) walk(y, depth + 1);
      return;
    }
    if (depth != shape.size()) fail("tensor(): ragged nested list (a number where a list was expected)");
    any = true;
    if (x.tag == Tag::Bool) {
      values.push_back(x.b ? 1 : 0);
      ints.push_back(x.b ? 1 : 0);
    } else if (x.tag == Tag::Int) {
      values.push_back(static_cast<double>(x.i));
      ints.push_back(x.i);
      kind = std::max(kind, 1);
    } else if (x.tag == Tag::Float) {
      values.push_back(x.f);
      kind = 2;
    } else if (x.tag == Tag::Tensor && x.t.numel() == 1) {
      bool floating = is_floating(x.t.dtype());
      values.push_back(x.t.item());
      ints.push_back(floating ? 0 : x.t.item_int());
      kind = std::max(kind, floating ? 2 : x.t.dtype() == DType::b8 ? 0 : 1);
    } else {
      fail(std::string("tensor(): expected numbers or nested lists of numbers, got ") + type_name(x));
    }
  };
  walk(v, 0);
  DType dt = dtype ? *dtype : kind == 2 ? DType::f32 : kind == 1 ? DType::i64 : DType::b8;
  if (!any && !dtype) dt = DType::f32;
  // An integer dtype given: each element must fit (Note [A number into a dtype]; a
  // float dtype takes any number, inf past its range, as PyTorch's tensor() does).
  if (dtype && !is_floating(dt) && dt != DType::b8) {
    for (size_t k = 0; k < values.size(); ++k)
      check_fits_dtype(kind == 2 ? Value::number(values[k]) : Value::integer(ints[k]), dt, "tensor(): an element", false);
  }
  if (kind == 2 || is_floating(dt)) return tensor_from(values, Shape(shape), dt);
  // Ints exactly: through doubles, int64 max would come back as int64 min.
  Tensor t = empty(Shape(shape), DType::i64);
  std::copy(ints.begin(), ints.end(), t.data<int64_t>());
  return dt == DType::i64 ? t : to_dtype_raw(t, dt);
}

// Note [A number into a dtype]
// full, full_like, new_full, fill_, masked_fill, index_fill, x[i] = v and tensor(...,
// dtype=) store a user's number into a dtype. A cast wrapped or saturated it without a
// word (full([2], 300, dtype=u8) was 44, fill_(-129) on i8 was 127, 2^63 - 1 into i64
// through a double was -2^63); PyTorch refuses a number the dtype cannot hold, with
// c10's rule: bool holds anything; a float dtype any finite number up to its largest
// finite one, and inf and NaN; an integer dtype the numbers of its range, and an
// unsigned one also a negative number down to -max (it wraps: -1 is 255); no integer
// dtype a NaN or an infinity. Arithmetic (x + 300 on u8) wraps, as PyTorch's does.
namespace {

[[noreturn]] void fail_fit(const std::string& what, const std::string& number, DType dtype, const std::string& holds) {
  fail(what + ": " + number + " cannot be converted to " + dtype_name(dtype) + " without overflow (" + holds + ")");
}

double largest_finite(DType dtype) {
  switch (dtype) {
    case DType::f16: return 65504.0;
    case DType::bf16: return 3.3895313892515355e38;
    case DType::f32: return 3.4028234663852886e38;
    default: return std::numeric_limits<double>::max();
  }
}

// The range of an integer dtype, as [lowest, highest].
std::pair<int64_t, int64_t> int_range(DType dtype) {
  switch (dtype) {
    case DType::i32: return {INT32_MIN, INT32_MAX};
    case DType::i16: return {INT16_MIN, INT16_MAX};
    case DType::i8: return {INT8_MIN, INT8_MAX};
    case DType::u8: return {0, UINT8_MAX};
    default: return {INT64_MIN, INT64_MAX};
  }
}

void check_int_fits(const Value& v, DType dtype, const std::string& what, double d, bool is_int, int64_t i) {
  auto [lo, hi] = int_range(dtype);
  // An unsigned dtype takes a negative number down to -max, which wraps (PyTorch's).
  const int64_t low = dtype == DType::u8 ? -hi : lo;
  const std::string holds = std::to_string(lo) + " to " + std::to_string(hi) +
                            (dtype == DType::u8 ? "; a negative number down to -255 wraps" : "");
  if (is_int) {
    if (i < low || i > hi) fail_fit(what, std::to_string(i), dtype, holds);
    return;
  }
  // 2^63 is the first double past int64; the others' bounds are exact doubles.
  const bool past_top = dtype == DType::i64 ? d >= 0x1p63 : d > static_cast<double>(hi);
  if (std::isnan(d) || past_top || d < static_cast<double>(low)) fail_fit(what, repr(v), dtype, holds);
}

}  // namespace

void check_fits_dtype(const Value& v, DType dtype, const std::string& what, bool floats) {
  if (dtype == DType::b8) return;
  bool is_int = v.tag == Tag::Int || v.tag == Tag::Bool;
  int64_t i = v.tag == Tag::Int ? v.i : v.tag == Tag::Bool ? v.b : 0;
  double d = v.tag == Tag::Float ? v.f : static_cast<double>(i);
  if (v.tag == Tag::Tensor) {
    if (v.t.numel() != 1) return;  // a tensor of values is the op's to check
    is_int = !is_floating(v.t.dtype());
    if (is_int) i = v.t.item_int();
    d = is_int ? static_cast<double>(i) : v.t.item();
  } else if (!v.is_num()) {
    return;  // not a number: the caller's conversion names it
  }
  if (is_floating(dtype)) {
    if (floats && std::isfinite(d) && std::fabs(d) > largest_finite(dtype))
      fail_fit(what, repr(v), dtype, "the largest finite " + std::string(dtype_name(dtype)) + " is " + repr(Value::number(largest_finite(dtype))));
    return;
  }
  check_int_fits(v, dtype, what, d, is_int, i);
}

// PyTorch's alpha_check: a float alpha with integer (or bool) operands, whose result
// is an integer tensor, is an error there; here add(tensor([1, 2]), 5, alpha=0.5) gave
// a float tensor, silently. A bool alpha is for bool operands only.
void check_alpha_kind(const Tensor& x, const Value& other, const Value& alpha, const char* fname) {
  const bool other_integral = other.tag == Tag::Int || other.tag == Tag::Bool ||
                              (other.tag == Tag::Tensor && !is_floating(other.t.dtype()));
  const bool other_bool = other.tag == Tag::Bool || (other.tag == Tag::Tensor && other.t.dtype() == DType::b8);
  if (alpha.tag == Tag::Float && !is_floating(x.dtype()) && other_integral)
    fail(std::string(fname) + "(): argument 'alpha' must not be a float when both operands are integers (got " +
         repr(alpha) + " with " + dtype_name(x.dtype()) + "), as PyTorch's; convert them first (.to(f32))");
  if (alpha.tag == Tag::Bool && !(x.dtype() == DType::b8 && other_bool))
    fail(std::string(fname) + "(): argument 'alpha' may be a bool only when both operands are bool, as PyTorch's; got " +
         repr(alpha));
  // alpha is stored into the result's dtype, as PyTorch's (Note [A number into a dtype]):
  // add(i16 tensor, 1, alpha=40000) wrapped.
  const DType result = other.tag == Tag::Tensor ? result_type({x, other.t})
                       : other.tag == Tag::Float && !is_floating(x.dtype()) ? DType::f32 : x.dtype();
  check_fits_dtype(alpha, result, std::string(fname) + "(): argument 'alpha'");
}

// Note [Empty tensors in cat]
// PyTorch's cat skips a tensor of shape [0] (1-D and empty) beside tensors of other
// shapes, a legacy rule that the accumulating idiom relies on:
//   let preds = tensor([])
//   for x in batches { preds = cat([preds, model(x)]) }   # model(x): [B, C]
// Its dtype still takes part in the result's (cat([tensor([]), i64 [2, 2]]) is f32),
// and dims wrap by the tensors kept. The op row checks every input's shape, so the
// rule lives here, in the language's cat: each such empty is reshaped to the first
// other tensor's shape with 0 along the cat dim, a piece of nothing the op takes like
// any other, so an empty leaf still gets its (empty) .grad, as in PyTorch. The result
// is cast to the dtype of all of them.
// When the op refuses that call, it is called again with the empties left out, so its
// error speaks of the user's tensors, not of the made-up shapes; `positions` gets each
// kept tensor's index in the user's list for it (renumber_cat_error).
namespace {
bool legacy_empty(const Tensor& t) { return t.defined() && t.dim() == 1 && t.numel() == 0; }

TensorList cat_inputs_without_legacy_empties(const TensorList& inputs, std::optional<DType>& promoted,
                                             std::vector<size_t>& positions) {
  TensorList kept;
  std::vector<size_t> kept_at;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!legacy_empty(inputs[i])) kept.push_back(inputs[i]), kept_at.push_back(i);
  if (kept.empty() || kept.size() == inputs.size()) return inputs;
  promoted = result_type(inputs);
  positions = std::move(kept_at);
  return kept;
}

// The inputs with each legacy empty reshaped to `like` with 0 at the (wrapped) dim, or
// nothing when `like` has no such dim.
std::optional<TensorList> cat_inputs_with_empties_shaped(const TensorList& inputs, const Tensor& like, int64_t dim) {
  const int64_t rank = like.dim();
  if (rank == 0 || dim < -rank || dim >= rank) return std::nullopt;
  IntList piece(like.sizes().begin(), like.sizes().end());
  piece[static_cast<size_t>(dim < 0 ? dim + rank : dim)] = 0;
  TensorList shaped;
  for (const Tensor& t : inputs) shaped.push_back(legacy_empty(t) ? reshape(t, piece) : t);
  return shaped;
}

// The op's errors count the tensors it was given ("zero-dimensional tensor 0"); with
// empties left out those are not the user's positions (cat([tensor([]), tensor(5.0)])
// blamed tensor 0, the empty one), so each "tensor N" is renumbered to the user's list.
std::string renumber_cat_error(const std::string& message, const std::vector<size_t>& positions) {
  static const std::string word = "tensor ";
  std::string out;
  size_t at = 0;
  for (size_t hit; (hit = message.find(word, at)) != std::string::npos;) {
    size_t digits = hit + word.size(), end = digits;
    while (end < message.size() && std::isdigit(static_cast<unsigned char>(message[end]))) ++end;
    out.append(message, at, digits - at);
    size_t index = end > digits && end - digits < 10 ? std::stoul(message.substr(digits, end - digits)) : positions.size();
    out += index < positions.size() ? std::to_string(positions[index]) : message.substr(digits, end - digits);
    at = end;
  }
  return out + message.substr(at);
}
}  // namespace

TensorList call_cat(const TensorList& inputs, const Attrs& attrs) {
  std::optional<DType> promoted;
  std::vector<size_t> positions;  // the user's index of each input kept, when some were left out
  TensorList kept = cat_inputs_without_legacy_empties(inputs, promoted, positions);
  TensorList outs;
  if (!positions.empty()) {
    if (auto shaped = cat_inputs_with_empties_shaped(inputs, kept[0], attrs.has("dim") ? attrs.i("dim") : 0)) {
      try {
        outs = call(OpId::cat, *shaped, attrs);
      } catch (const Error&) {
        // refused: the call below, without the empties, raises the error to show
      }
    }
  }
  if (outs.empty()) {
    try {
      outs = call(OpId::cat, kept, attrs);
    } catch (const Error& e) {
      if (positions.empty()) throw;
      throw Error(renumber_cat_error(e.what(), positions));
    }
  }
  if (promoted && outs[0].dtype() != *promoted) outs[0] = to_dtype(outs[0], *promoted);
  return outs;
}

Tensor fill_scalar(const Value& v, DType dtype, const std::string& what) {
  check_fits_dtype(v, dtype, what);
  if (v.tag == Tag::Int) return int_scalar_tensor(v.i, dtype);
  if (v.tag == Tag::Tensor) return to_dtype_raw(contiguous_raw(v.t), dtype);
  return scalar_tensor(as_num(v, what), dtype);
}

Tensor filled_tensor(const Shape& shape, const Value& v, DType dtype, Device device, const std::string& what) {
  check_fits_dtype(v, dtype, what);
  const bool exact_double = v.tag != Tag::Int || (v.i >= -(int64_t{1} << 53) && v.i <= (int64_t{1} << 53));
  if (exact_double || is_floating(dtype)) return full(shape, as_num(v, what), dtype, device);
  // An i64 past 2^53: every element copied from the exact scalar.
  Tensor t = empty(shape, dtype, cpu_device());
  copy_into(t, expand(int_scalar_tensor(v.i, dtype), IntList(shape.begin(), shape.end())));
  return device == cpu_device() ? t : to_device(t, device);
}

Value tolist(const Tensor& t) {
  // The elements in order as language values; integers read exactly.
  std::vector<Value> scalars;
  if (is_floating(t.dtype())) {
    for (double d : to_double_vector(t)) scalars.push_back(Value::number(d));
  } else {
    for (int64_t i : to_int64_vector(t)) scalars.push_back(t.dtype() == DType::b8 ? Value::boolean(i != 0) : Value::integer(i));
  }
  if (t.dim() == 0) return scalars[0];
  size_t pos = 0;
  std::function<Value(int64_t)> build = [&](int64_t d) -> Value {
    std::vector<Value> items;
    for (int64_t k = 0; k < t.size(d); ++k)
      items.push_back(d + 1 == t.dim() ? scalars[pos++] : build(d + 1));
    return make_list(std::move(items));
  };
  return build(0);
}

}  // namespace nabla::interp
