// The convolution ops as PyTorch's functional API calls them: conv1d, conv2d and conv3d
// take padding="valid" (none) or padding="same" (the output as long as the input), and
// every convolution, transposed ones too, takes an input without its batch dim ([C,
// ...], a batch of one, as torch.nn.functional's do). The rows take a batched input and
// one symmetric padding per dim; here the names and the odd half of "same" become that.
// The pools take an unbatched input alike (pool_unbatched_or_row): torch.nn.functional's
// do, and a vmap over images [C, H, W] (per-example gradients of a CNN) calls them on
// exactly that.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "autograd/ops.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "interp/builtins/composites/composites.hpp"

namespace nabla::interp {

namespace {

// The argument `name`, by keyword or at `position`; null where it was not given.
Value* argument(CallArgs& a, const char* name, size_t position) {
  for (auto& [key, value] : a.kw)
    if (key == name) return &value;
  return position < a.pos.size() ? &a.pos[position] : nullptr;
}

// A per-dim argument (stride, dilation): an int for every dim, a list, or `fallback`
// where it was not given.
std::vector<int64_t> per_dim(const Value* v, size_t dims, int64_t fallback, const std::string& what) {
  if (!v || v->is_none()) return std::vector<int64_t>(dims, fallback);
  if (v->tag == Tag::Int) return std::vector<int64_t>(dims, v->i);
  return as_ints(*v, what);
}

std::string ints_text(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t k = 0; k < v.size(); ++k) s += (k ? ", " : "") + std::to_string(v[k]);
  return s + "]";
}

// padding="same" or "valid" made into the row's ints. "same" (stride 1, as PyTorch
// allows it) pads dilation * (k - 1) cells per dim, half on each side; where that is
// odd, the extra cell goes after the input's end, as PyTorch's, by padding the input
// itself (the row pads symmetrically).
void padding_by_name(const std::string& fname, size_t spatial, CallArgs& a, Value& padding, Value& input) {
  const std::string what = fname + "(): argument 'padding'";
  const std::string& name = padding.as<StrObj>()->s;
  if (name == "valid") {
    padding = make_list(std::vector<Value>(spatial, Value::integer(0)));
    return;
  }
  if (name != "same") fail(what + ": expected \"same\", \"valid\" or ints, got \"" + name + "\"");
  std::vector<int64_t> stride = per_dim(argument(a, "stride", 3), spatial, 1, fname + "(): argument 'stride'");
  for (int64_t s : stride)
    if (s != 1)
      fail(what + ": \"same\" needs stride 1 (the output keeps the input's length only then), got stride " +
           ints_text(stride));
  std::vector<int64_t> dilation = per_dim(argument(a, "dilation", 5), spatial, 1, fname + "(): argument 'dilation'");
  Value* weight_arg = argument(a, "weight", 1);
  if (!weight_arg) fail(fname + "() missing required argument 'weight'");
  const Tensor weight = required_input(*weight_arg, fname, "weight");
  if (weight.dim() != static_cast<int64_t>(spatial) + 2 || dilation.size() != spatial) {
    padding = make_list(std::vector<Value>(spatial, Value::integer(0)));
    return;  // the row names what is wrong with them
  }
  std::vector<Value> half;
  std::vector<int64_t> odd_tail;  // pad's order: the last dim first
  bool any_odd = false;
  for (size_t d = 0; d < spatial; ++d) {
    const int64_t total = dilation[d] * (weight.sizes()[2 + d] - 1);
    half.push_back(Value::integer(total / 2));
    any_odd = any_odd || total % 2 != 0;
  }
  for (size_t d = spatial; d-- > 0;) {
    odd_tail.push_back(0);
    odd_tail.push_back(dilation[d] * (weight.sizes()[2 + d] - 1) % 2);
  }
  padding = make_list(half);
  if (any_odd) input = Value::tensor(pad(input_of(input, fname, "input"), odd_tail));
}

// The row's call; an input with `spatial` + 1 dims (no batch dim) runs as a batch of one.
Value unbatched_or_row(const char* fname, size_t spatial, CallArgs& a, Value& input) {
  const Tensor x = input_of(input, fname, "input");
  const bool unbatched = x.defined() && x.dim() == static_cast<int64_t>(spatial) + 1;
  if (unbatched) input = Value::tensor(unsqueeze(x, 0));
  Value out = row_call(fname, a);
  return unbatched ? Value::tensor(squeeze(out.t, {0})) : out;
}

Value convolution(const char* fname, size_t spatial, bool named_padding, CallArgs& a) {
  Value* input = argument(a, "input", 0);
  if (!input) fail(std::string(fname) + "() missing required argument 'input'");
  Value* padding = argument(a, "padding", 4);
  if (named_padding && padding && padding->tag == Tag::Str) padding_by_name(fname, spatial, a, *padding, *input);
  return unbatched_or_row(fname, spatial, a, *input);
}

}  // namespace

Value conv1d_builtin(Evaluator&, CallArgs& a) { return convolution("conv1d", 1, true, a); }
Value conv2d_builtin(Evaluator&, CallArgs& a) { return convolution("conv2d", 2, true, a); }
Value conv3d_builtin(Evaluator&, CallArgs& a) { return convolution("conv3d", 3, true, a); }
Value conv_transpose1d_builtin(Evaluator&, CallArgs& a) { return convolution("conv_transpose1d", 1, false, a); }
Value conv_transpose2d_builtin(Evaluator&, CallArgs& a) { return convolution("conv_transpose2d", 2, false, a); }

namespace {
// An adaptive pool's output_size with a none entry keeps the input's size in that
// dim, as PyTorch's (adaptive_avg_pool2d(x, [none, 3])); the user's list stays as it is.
void sizes_kept_where_none(const char* fname, CallArgs& a, const Tensor& x, size_t spatial) {
  Value* size = argument(a, "output_size", 1);
  if (!size || (size->tag != Tag::List && size->tag != Tag::Tuple) || x.dim() < static_cast<int64_t>(spatial)) return;
  std::vector<Value> items = size->as<ListObj>()->items;
  bool any = false;
  for (const Value& v : items) any = any || v.is_none();
  if (!any) return;  // the row checks the sizes
  if (items.size() != spatial)
    fail(std::string(fname) + "(): argument 'output_size' must have " + std::to_string(spatial) +
         " values (one per spatial dim, none keeping the input's), got " + std::to_string(items.size()));
  for (size_t d = 0; d < spatial; ++d) {
    if (!items[d].is_none()) continue;
    items[d] = Value::integer(x.sizes()[x.dim() - static_cast<int64_t>(spatial) + static_cast<int64_t>(d)]);
  }
  *size = make_list(items);
}
}  // namespace

Value pool_unbatched_or_row(const char* fname, size_t spatial, CallArgs& a) {
  Value* input = argument(a, "input", 0);
  if (!input) fail(std::string(fname) + "() missing required argument 'input'");
  const Tensor x = input_of(*input, fname, "input");
  if (std::string_view(fname).starts_with("adaptive_") && x.defined()) sizes_kept_where_none(fname, a, x, spatial);
  const bool unbatched = x.defined() && x.dim() == static_cast<int64_t>(spatial) + 1;
  if (unbatched) *input = Value::tensor(unsqueeze(x, 0));
  Value out = row_call(fname, a);
  if (!unbatched) return out;
  if (out.tag == Tag::Tensor) return Value::tensor(squeeze(out.t, {0}));
  std::vector<Value> items;  // a max pool's (values, indices)
  for (const Value& v : out.as<ListObj>()->items) items.push_back(Value::tensor(squeeze(v.t, {0})));
  return make_tuple(std::move(items));
}
Value avg_pool1d_builtin(Evaluator&, CallArgs& a) { return pool_unbatched_or_row("avg_pool1d", 1, a); }

namespace {
// A pool's per-dim argument as `dims` ints: an int, one int for all, or one per dim;
// absent, none or [] (the row's "as kernel_size") is `fallback`.
IntList pool_ints(const Value* v, size_t dims, const IntList& fallback, const std::string& what) {
  if (!v || v->is_none()) return fallback;
  IntList out = per_dim(v, dims, 0, what);
  if (out.empty()) return fallback;
  return out.size() == 1 ? IntList(dims, out[0]) : out;
}
}  // namespace

// avg_pool2d with PyTorch's divisor_override (the row has none): the row excluding the
// padding, each output then rescaled to its window's sum over the divisor.
Value avg_pool2d_builtin(Evaluator&, CallArgs& a) {
  const std::string f = "avg_pool2d";
  Value* divisor = argument(a, "divisor_override", 6);
  std::optional<double> d;
  if (divisor && !divisor->is_none()) d = static_cast<double>(as_int(*divisor, f + "(): argument 'divisor_override'"));
  if (d && *d == 0) fail(f + "(): argument 'divisor_override' must not be 0");
  if (a.pos.size() > 6) a.pos.resize(6);
  std::erase_if(a.kw, [](const auto& kv) { return kv.first == "divisor_override"; });
  if (!d) return pool_unbatched_or_row(f.c_str(), 2, a);
  if (a.pos.size() > 5) a.pos.resize(5);
  std::erase_if(a.kw, [](const auto& kv) { return kv.first == "count_include_pad"; });
  a.kw.emplace_back("count_include_pad", Value::boolean(false));
  Value* input = argument(a, "input", 0);
  Value* kernel_arg = argument(a, "kernel_size", 1);
  if (!input || !kernel_arg) return pool_unbatched_or_row(f.c_str(), 2, a);  // the row names what is missing
  const Tensor x = input_of(*input, f, "input");
  const IntList kernel = pool_ints(kernel_arg, 2, {}, f + "(): argument 'kernel_size'");
  const IntList stride = pool_ints(argument(a, "stride", 2), 2, kernel, f + "(): argument 'stride'");
  const IntList padding = pool_ints(argument(a, "padding", 3), 2, {0, 0}, f + "(): argument 'padding'");
  Value y = pool_unbatched_or_row(f.c_str(), 2, a);  // checked the input's rank and the windows
  const IntList in{x.sizes()[x.dim() - 2], x.sizes()[x.dim() - 1]};
  return Value::tensor(avg_pool_to_divisor(y.t, in, kernel, stride, padding, *d));
}
Value adaptive_avg_pool1d_builtin(Evaluator&, CallArgs& a) { return pool_unbatched_or_row("adaptive_avg_pool1d", 1, a); }
Value adaptive_avg_pool2d_builtin(Evaluator&, CallArgs& a) { return pool_unbatched_or_row("adaptive_avg_pool2d", 2, a); }

}  // namespace nabla::interp
