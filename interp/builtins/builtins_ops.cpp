// Every op of the table by name: the generic call of a row (tensor inputs, then
// attributes by position or name), the table of functions that add Python/PyTorch
// argument conventions to a row (view, max, split, gather, ...; Note [Builtin
// tables]) and PyTorch's inplace= over the activations. Each op's signature is made
// from its row in op_signatures.cpp; tensor methods and attributes are
// builtins_tensor.cpp's.
#include <optional>
#include <string_view>
#include <variant>

#include "autograd/grad_mode.hpp"
#include "autograd/op_table.hpp"
#include "autograd/ops.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "interp/builtins/composites/composites.hpp"

namespace nabla::interp {

namespace {

bool pair_attr(const std::string& name) {
  return name == "stride" || name == "padding" || name == "dilation" || name == "kernel_size";
}

AttrValue convert_attr(const AttrSpec& spec, const Value& v, const std::string& fname) {
  std::string what = fname + "(): argument '" + spec.name + "'";
  if (v.is_none()) return NoneAttr{};
  switch (spec.kind) {
    case AttrKind::integer:
      if (spec.name == "reduction" && v.tag == Tag::Str) {
        const std::string& s = v.as<StrObj>()->s;
        if (s != "mean" && s != "sum" && s != "none")
          fail(what + ": expected 'mean', 'sum' or 'none', got '" + s + "'");
        return reduction_code(s);
      }
      return as_int(v, what);
    case AttrKind::number: return as_num(v, what);
    case AttrKind::boolean: return as_bool(v, what);
    case AttrKind::ints:
      // A window size given as one number: once per spatial dim (the 1-D and 3-D ops
      // end in "1d" and "3d", the others are 2-D).
      if (v.tag == Tag::Int && pair_attr(spec.name)) {
        auto ends_with = [&](const char* tail) {
          return fname.size() > 2 && fname.compare(fname.size() - 2, 2, tail) == 0;
        };
        size_t dims = ends_with("1d") ? 1 : ends_with("3d") ? 3 : 2;
        return std::vector<int64_t>(dims, v.i);
      }
      return as_ints(v, what);
    case AttrKind::dtype: return as_dtype(v, what);
  }
  return NoneAttr{};
}

}  // namespace

Tensor input_of(const Value& v, const std::string& fname, const std::string& arg) {
  if (v.tag == Tag::Tensor) return v.t;
  if (v.is_num()) return to_tensor_arg(v, fname.c_str());
  if (v.is_none()) return Tensor();
  if (v.tag == Tag::List || v.tag == Tag::Tuple) return tensor_from_value(v, std::nullopt);
  fail(fname + "(): argument '" + arg + "' must be a tensor, got " + type_name(v));
}

Tensor required_input_of(const Value& v, const std::string& fname, const std::string& arg) {
  if (v.is_none()) fail(fname + "(): argument '" + arg + "' must be a tensor, got none");
  return input_of(v, fname, arg);
}

namespace {

// The keywords a row's call takes: its first `nin` input names, then its attributes
// (`dim` beside a `dims` list, which it stands for).
std::vector<std::string> row_keywords(const OpDef& def, size_t nin) {
  std::vector<std::string> out;
  for (size_t k = 0; k < def.input_names.size() && k < nin; ++k) out.push_back(def.input_names[k]);
  for (const auto& attr : def.attrs) {
    if (attr.name == std::string("dims")) out.push_back("dim");
    out.push_back(attr.name);
  }
  return out;
}

// Generic call of a row: tensor arguments first (by position or by their input
// names), then attributes (by position in the row's order, or by name).
Value call_row(const OpDef& def, CallArgs& a, const std::string& fname) {
  // a row that draws (multinomial, dropout) takes generator= (Note [A Generator is a saved state])
  std::optional<GeneratorScope> generator;
  if (draws_random_numbers(def.id)) generator.emplace(a, fname.c_str());
  TensorList inputs;
  Attrs attrs;
  size_t p = 0;
  size_t nin = def.num_inputs < 0 ? 1 : static_cast<size_t>(def.num_inputs);
  std::vector<Value> in_vals(nin);
  std::vector<bool> in_set(nin, false);
  for (; p < nin && p < a.pos.size(); ++p) {
    in_vals[p] = a.pos[p];
    in_set[p] = true;
  }
  std::vector<bool> attr_set(def.attrs.size(), false);
  size_t ai = 0;
  for (; p < a.pos.size(); ++p, ++ai) {
    if (ai >= def.attrs.size())
      fail(fname + "() takes at most " + std::to_string(nin + def.attrs.size()) + " arguments but " +
           std::to_string(a.pos.size()) + " were given");
    attrs.set(def.attrs[ai].name, convert_attr(def.attrs[ai], a.pos[p], fname));
    attr_set[ai] = true;
  }
  for (auto& [given_key, val] : a.kw) {
    const std::string key =  // Note [NumPy's keyword names]
        pytorch_keyword(given_key) ? pytorch_keyword(given_key, row_keywords(def, nin)) : given_key;
    size_t k = 0;
    while (k < def.input_names.size() && def.input_names[k] != key) ++k;
    if (k < def.input_names.size() && k < nin) {
      if (in_set[k]) fail(fname + "() got multiple values for argument '" + key + "'");
      in_vals[k] = val;
      in_set[k] = true;
      continue;
    }
    std::string name = key;
    size_t j = 0;
    while (j < def.attrs.size() && def.attrs[j].name != name) ++j;
    if (j == def.attrs.size() && key == "dim") {  // `dim` is an alias of a `dims` list
      name = "dims";
      j = 0;
      while (j < def.attrs.size() && def.attrs[j].name != name) ++j;
    }
    if (j == def.attrs.size()) fail_unexpected_keyword(fname, given_key, row_keywords(def, nin));
    if (attr_set[j]) fail(fname + "() got multiple values for argument '" + key + "'");
    attrs.set(name, convert_attr(def.attrs[j], val, fname));
    attr_set[j] = true;
  }
  if (def.num_inputs < 0) {
    if (!in_set[0]) fail(fname + "() missing required argument '" + (def.input_names.empty() ? "tensors" : def.input_names[0]) + "'");
    const Value& l = in_vals[0];
    if (l.tag != Tag::List && l.tag != Tag::Tuple) fail(fname + "() expects a list of tensors, got " + type_name(l));
    for (auto& x : l.as<ListObj>()->items) inputs.push_back(input_of(x, fname, "tensors"));
  } else {
    for (size_t k = 0; k < nin; ++k) {
      std::string arg = k < def.input_names.size() ? def.input_names[k] : "input";
      if (!in_set[k] && k == 0) fail(fname + "() missing required argument '" + arg + "'");
      inputs.push_back(in_set[k] ? input_of(in_vals[k], fname, arg) : Tensor());
    }
  }
  TensorList outs = def.id == OpId::cat ? call_cat(inputs, attrs) : call(def.id, inputs, attrs);
  if (outs.size() == 1 && def.num_outputs == 1) return tensor_value(outs[0]);
  // sort and topk: (values, indices), also by name, as PyTorch's return types.
  if ((def.id == OpId::sort || def.id == OpId::topk) && outs.size() == 2)
    return values_indices(tensor_value(outs[0]), tensor_value(outs[1]));
  return tuple_of(outs);
}

}  // namespace

Value row_call(const char* name, CallArgs& a) { return call_row(*find_op(name), a, name); }

namespace {

// ---- functions that add Python/PyTorch conventions to a row (or compose rows) ----------------

Value matmul_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("matmul", a, {"self", "other"}, 2);
  return Value::tensor(matmul(required_input_of(b[0], "matmul", "self"), required_input_of(b[1], "matmul", "other")));
}

// einsum(equation, *operands), or einsum(equation, [operands]) as PyTorch allows.
Value einsum_builtin(Evaluator&, CallArgs& a) {
  if (!a.kw.empty()) fail("einsum() takes no keyword arguments, got '" + a.kw.begin()->first + "'");
  if (a.pos.empty() || a.pos[0].tag != Tag::Str)
    fail(std::string("einsum() expects an equation string first, got ") + (a.pos.empty() ? "nothing" : type_name(a.pos[0])));
  std::vector<Value> items(a.pos.begin() + 1, a.pos.end());
  if (items.size() == 1 && (items[0].tag == Tag::List || items[0].tag == Tag::Tuple))
    items = items[0].as<ListObj>()->items;
  TensorList operands;
  for (size_t i = 0; i < items.size(); ++i) operands.push_back(input_of(items[i], "einsum", "operand " + std::to_string(i)));
  return Value::tensor(einsum(a.pos[0].as<StrObj>()->s, operands));
}

// alpha * other for add and sub, keeping the kinds of both: a number other is scaled
// as a number (an int times an int stays an int, so an integer input keeps its dtype
// as PyTorch's; else in f64), a tensor other by alpha as a wrapped number (an i64
// tensor times alpha=3 stays i64; it was 3.0, which made add of two i64 tensors f32).
Tensor scaled_by_alpha(const Value& other, const Value& alpha, const char* fname) {
  as_num(alpha, std::string(fname) + "(): argument 'alpha'");
  if (!other.is_num()) return mul(required_input_of(other, fname, "other"), to_tensor_arg(alpha, fname));
  if (other.tag == Tag::Float || alpha.tag == Tag::Float) {
    return input_of(Value::number(as_num(other, fname) * as_num(alpha, fname)), fname, "other");
  }
  auto exact = [](const Value& v) { return static_cast<uint64_t>(v.tag == Tag::Int ? v.i : int64_t{v.b}); };
  return input_of(Value::integer(static_cast<int64_t>(exact(other) * exact(alpha))), fname, "other");  // wraps as i64
}

// add and sub with PyTorch's alpha (input +- alpha * other), div with its rounding_mode ("trunc" or "floor").
Value add_or_sub(CallArgs& a, const char* fname, bool is_add) {
  Bound b = bind(fname, a, {"input", "other", "alpha"}, 2);
  Tensor x = required_input_of(b[0], fname, "input");
  if (b.has(2)) check_alpha_kind(x, b[1], b[2], fname);
  Tensor y = b.has(2) ? scaled_by_alpha(b[1], b[2], fname) : required_input_of(b[1], fname, "other");
  return Value::tensor(is_add ? add(x, y) : sub(x, y));
}
Value add_builtin(Evaluator&, CallArgs& a) { return add_or_sub(a, "add", true); }
Value sub_builtin(Evaluator&, CallArgs& a) { return add_or_sub(a, "sub", false); }

Value div_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("div", a, {"input", "other", "rounding_mode"}, 2);
  Tensor x = required_input_of(b[0], "div", "input"), y = required_input_of(b[1], "div", "other");
  if (!b.has(2)) return Value::tensor(div(x, y));
  if (b[2].tag != Tag::Str) fail("div(): argument 'rounding_mode' must be \"trunc\", \"floor\" or none");
  const std::string& mode = b[2].as<StrObj>()->s;
  if (mode == "trunc") return Value::tensor(truncated_division(x, y));
  if (mode == "floor") return Value::tensor(floor_division(x, y, "div"));
  fail("div(): argument 'rounding_mode' must be \"trunc\", \"floor\" or none, got \"" + mode + "\"");
}

Value contiguous_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("contiguous", a, {"input"}, 1);
  return Value::tensor(contiguous(as_tensor(b[0], "contiguous")));
}

Value to_dtype_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("to_dtype", a, {"input", "dtype"}, 2);
  return Value::tensor(to_dtype(as_tensor(b[0], "to_dtype"), as_dtype(b[1], "to_dtype")));
}

// view, reshape and expand take the shape as a list or as varargs; keywords go to the row.
Value reshape_like(const char* name, CallArgs& a) {
  if (a.pos.empty() || !a.kw.empty()) return row_call(name, a);
  const Tensor& x = as_tensor(a.pos[0], name);
  std::vector<int64_t> shape = shape_args(a.pos, 1, name);
  if (std::string_view(name) == "view") return Value::tensor(view(x, shape));
  if (std::string_view(name) == "reshape") return Value::tensor(reshape(x, shape));
  return Value::tensor(expand(x, shape));
}
Value view_builtin(Evaluator&, CallArgs& a) { return reshape_like("view", a); }
Value reshape_builtin(Evaluator&, CallArgs& a) { return reshape_like("reshape", a); }
Value expand_builtin(Evaluator&, CallArgs& a) { return reshape_like("expand", a); }

Value permute_builtin(Evaluator&, CallArgs& a) {
  if (a.pos.size() >= 1 && a.kw.empty())
    return Value::tensor(permute(as_tensor(a.pos[0], "permute"), shape_args(a.pos, 1, "permute")));
  return row_call("permute", a);
}

Value squeeze_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("squeeze", a, {"input", "dim"}, 1);
  const Tensor& x = as_tensor(b[0], "squeeze");
  if (!b.has(1)) return Value::tensor(squeeze(x));
  return Value::tensor(squeeze(x, as_ints(b[1], "squeeze(): argument 'dim'")));
}

Value flatten_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("flatten", a, {"input", "start_dim", "end_dim"}, 1);
  return Value::tensor(flatten(as_tensor(b[0], "flatten"), b.has(1) ? as_int(b[1], "flatten") : 0,
                               b.has(2) ? as_int(b[2], "flatten") : -1));
}

// max and min: of all elements, along a dim (values and indices), or of two tensors
// elementwise (max(a, b), as in PyTorch).
Value tensor_extremum(const std::string& name, bool is_max, CallArgs& a) {
  Bound b = bind(name, a, {"input", "dim", "keepdim"}, 1);
  const Tensor& x = as_tensor(b[0], name);
  if (b.has(1) && b[1].tag == Tag::Tensor) return Value::tensor(is_max ? maximum(x, b[1].t) : minimum(x, b[1].t));
  if (!b.has(1)) return Value::tensor(is_max ? max(x) : min(x));
  int64_t dim = as_int(b[1], name + "(): argument 'dim'");
  bool keep = b.has(2) && as_bool(b[2], name + "(): argument 'keepdim'");
  auto [v, i] = is_max ? max(x, dim, keep) : min(x, dim, keep);
  return values_indices(Value::tensor(v), Value::tensor(i));
}
Value max_builtin(Evaluator&, CallArgs& a) { return tensor_extremum("max", true, a); }
Value min_builtin(Evaluator&, CallArgs& a) { return tensor_extremum("min", false, a); }

Value arg_extremum(const std::string& name, CallArgs& a) {
  Bound b = bind(name, a, {"input", "dim", "keepdim"}, 1);
  const Tensor& x = as_tensor(b[0], name);
  std::optional<int64_t> dim;
  if (b.has(1)) dim = as_int(b[1], name + "(): argument 'dim'");
  bool keep = b.has(2) && as_bool(b[2], name + "(): argument 'keepdim'");
  return Value::tensor(name == "argmax" ? argmax(x, dim, keep) : argmin(x, dim, keep));
}
Value argmax_builtin(Evaluator&, CallArgs& a) { return arg_extremum("argmax", a); }
Value argmin_builtin(Evaluator&, CallArgs& a) { return arg_extremum("argmin", a); }

Value split_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("split", a, {"input", "split_size_or_sections", "dim"}, 2);
  const Tensor& x = as_tensor(b[0], "split");
  int64_t dim = b.has(2) ? as_int(b[2], "split(): argument 'dim'") : 0;
  if (b[1].tag == Tag::Int) return tuple_of(split(x, b[1].i, dim));
  return tuple_of(split(x, as_ints(b[1], "split(): argument 'split_size_or_sections'"), dim));
}

// Max pools: (values, indices) with return_indices=true, else the values.
Value max_pool_call(const char* name, size_t spatial, CallArgs& a) {
  bool with_indices = false;
  for (auto it = a.kw.begin(); it != a.kw.end(); ++it)
    if (it->first == "return_indices") {
      with_indices = as_bool(it->second, std::string(name) + "(): argument 'return_indices'");
      a.kw.erase(it);
      break;
    }
  Value r = pool_unbatched_or_row(name, spatial, a);
  if (with_indices) return r;
  return r.as<ListObj>()->items[0];
}
Value max_pool2d_builtin(Evaluator&, CallArgs& a) { return max_pool_call("max_pool2d", 2, a); }
Value max_pool1d_builtin(Evaluator&, CallArgs& a) { return max_pool_call("max_pool1d", 1, a); }
Value adaptive_max_pool2d_builtin(Evaluator&, CallArgs& a) { return max_pool_call("adaptive_max_pool2d", 2, a); }

// Rows whose second output (a mask) only their backward reads: the function returns the first, as PyTorch's do.
Value first_output(const char* name, CallArgs& a) { return row_call(name, a).as<ListObj>()->items[0]; }
Value dropout_builtin(Evaluator&, CallArgs& a) { return first_output("dropout", a); }
Value attention_builtin(Evaluator&, CallArgs& a) { return first_output("scaled_dot_product_attention", a); }
Value fake_quantize_per_tensor_builtin(Evaluator&, CallArgs& a) { return first_output("fake_quantize_per_tensor", a); }
Value fake_quantize_per_channel_builtin(Evaluator&, CallArgs& a) { return first_output("fake_quantize_per_channel", a); }

// gather, index_select and scatter_add in PyTorch's argument order: (input, dim, index[, src]).
Value indexed_by_dim(const std::string& name, CallArgs& a) {
  Bound b = name == "scatter_add" ? bind(name, a, {"input", "dim", "index", "src"}, 4)
                                  : bind(name, a, {"input", "dim", "index"}, 3);
  const Tensor& x = as_tensor(b[0], name);
  int64_t dim = as_int(b[1], name + "(): argument 'dim'");
  Tensor idx = required_input_of(b[2], name, "index");
  if (name == "gather") return Value::tensor(gather(x, dim, idx));
  if (name == "index_select") return Value::tensor(index_select(x, dim, idx));
  return Value::tensor(scatter_add(x, dim, idx, required_input_of(b[3], name, "src")));
}
Value gather_builtin(Evaluator&, CallArgs& a) { return indexed_by_dim("gather", a); }
Value index_select_builtin(Evaluator&, CallArgs& a) { return indexed_by_dim("index_select", a); }
Value scatter_add_builtin(Evaluator&, CallArgs& a) { return indexed_by_dim("scatter_add", a); }

// A function of the standard library's _nn_sparse module (stdlib/_nn_sparse.dsl).
Value nn_sparse_function(Evaluator& ev, const std::string& name) {
  std::shared_ptr<Module> sparse = ev.find_module("_nn_sparse");
  if (!sparse) fail("embedding(): the standard library's _nn_sparse module is missing");
  return ev.get_attr(Value::object(Tag::Module, sparse), name);
}

// F.embedding(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq,
// sparse) as nn.Embedding's forward: max_norm first renormalizes, in place, the rows
// looked up (stdlib/_nn_sparse.dsl's embedding_renorm_); scale_grad_by_freq divides
// each row's gradient by its index's count (Note [Gradients scaled by frequency]);
// padding_idx's row is read as it is but gets no gradient.
Value embedding_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("embedding", a,
                 {"input", "weight", "padding_idx", "max_norm", "norm_type", "scale_grad_by_freq", "sparse"}, 2);
  Tensor p = required_input_of(b[0], "embedding", "input"), q = required_input_of(b[1], "embedding", "weight");
  // F.embedding(indices, weight); the row's own order (weight, indices) works too.
  const bool swapped = is_floating(p.dtype()) && !is_floating(q.dtype());
  if (swapped) std::swap(p, q);
  auto given = [&](size_t k) { return b.has(k) && !b[k].is_none(); };
  if (given(6) && as_bool(b[6], "embedding(): argument 'sparse'"))
    fail("embedding(): sparse=true is not supported (the weight's gradient is dense); pass sparse=false");
  const bool by_freq = given(5) && as_bool(b[5], "embedding(): argument 'scale_grad_by_freq'");
  if (given(3)) {
    as_num(b[3], "embedding(): argument 'max_norm'");
    if (given(4)) as_num(b[4], "embedding(): argument 'norm_type'");
    CallArgs renorm{{swapped ? b[0] : b[1], swapped ? b[1] : b[0], b[3]}, {}};
    if (given(4)) renorm.pos.push_back(b[4]);
    ev.call_value(nn_sparse_function(ev, "embedding_renorm_"), renorm);
  }
  Tensor y = embedding(q, p);
  if (by_freq) {
    CallArgs scaled{{Value::tensor(q), Value::tensor(p)}, {}};
    y = as_tensor(ev.call_value(nn_sparse_function(ev, "_embedding_scaled_by_freq"), scaled), "embedding()");
  }
  if (!given(2)) return Value::tensor(y);
  const int64_t rows = q.dim() > 0 ? q.sizes()[0] : 0;
  int64_t pad = as_int(b[2], "embedding(): argument 'padding_idx'");
  if (pad < -rows || pad >= rows)
    fail("embedding(): argument 'padding_idx' must be within the weight's " + std::to_string(rows) + " rows, got " +
         std::to_string(pad));
  if (pad < 0) pad += rows;
  Tensor keep = unsqueeze(ne(p, int_scalar_tensor(pad, p.dtype())), -1);
  return Value::tensor(where(keep, y, embedding(detach(q), p)));
}

Value layer_norm_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("layer_norm", a, {"input", "normalized_shape", "weight", "bias", "eps"}, 2);
  return Value::tensor(layer_norm(as_tensor(b[0], "layer_norm"), as_ints(b[1], "layer_norm(): normalized_shape"),
                                  b.has(2) ? as_tensor(b[2], "layer_norm(): weight") : Tensor(),
                                  b.has(3) ? as_tensor(b[3], "layer_norm(): bias") : Tensor(),
                                  b.has(4) ? as_num(b[4], "layer_norm(): eps") : 1e-5));
}

Value batch_norm_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("batch_norm", a,
                 {"input", "running_mean", "running_var", "weight", "bias", "training", "momentum", "eps"}, 3);
  auto opt = [&](size_t k) { return b.has(k) ? as_tensor(b[k], "batch_norm") : Tensor(); };
  return Value::tensor(batch_norm(as_tensor(b[0], "batch_norm"), opt(3), opt(4), opt(1), opt(2),
                                  b.has(5) && as_bool(b[5], "batch_norm(): training"),
                                  b.has(6) ? as_num(b[6], "batch_norm(): momentum") : 0.1,
                                  b.has(7) ? as_num(b[7], "batch_norm(): eps") : 1e-5));
}

Value group_norm_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("group_norm", a, {"input", "num_groups", "weight", "bias", "eps"}, 2);
  auto opt = [&](size_t k) { return b.has(k) ? as_tensor(b[k], "group_norm") : Tensor(); };
  return Value::tensor(group_norm(as_tensor(b[0], "group_norm"), as_int(b[1], "group_norm(): num_groups"), opt(2),
                                  opt(3), b.has(4) ? as_num(b[4], "group_norm(): eps") : 1e-5));
}

// PyTorch's signature and defaults.
Value instance_norm_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("instance_norm", a,
                 {"input", "running_mean", "running_var", "weight", "bias", "use_input_stats", "momentum", "eps"}, 1);
  auto opt = [&](size_t k) { return b.has(k) ? as_tensor(b[k], "instance_norm") : Tensor(); };
  bool use_input_stats = !b.has(5) || as_bool(b[5], "instance_norm(): use_input_stats");
  double momentum = b.has(6) ? as_num(b[6], "instance_norm(): momentum") : 0.1;
  double eps = b.has(7) ? as_num(b[7], "instance_norm(): eps") : 1e-5;
  return Value::tensor(
      instance_norm(as_tensor(b[0], "instance_norm"), opt(3), opt(4), opt(1), opt(2), use_input_stats, momentum, eps));
}

Value rms_norm_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("rms_norm", a, {"input", "normalized_shape", "weight", "eps"}, 2);
  return Value::tensor(rms_norm(as_tensor(b[0], "rms_norm"), as_ints(b[1], "rms_norm(): normalized_shape"),
                                b.has(2) ? as_tensor(b[2], "rms_norm(): weight") : Tensor(),
                                b.has(3) ? std::optional<double>(as_num(b[3], "rms_norm(): eps")) : std::nullopt));
}

// An int or a list of ints (interpolate's size), a number or a list of numbers (scale_factor).
std::vector<int64_t> int_or_ints(const Value& v, const std::string& what) {
  if (v.tag == Tag::Int) return {v.i};
  return as_ints(v, what);
}
std::vector<double> number_or_numbers(const Value& v, const std::string& what) {
  if (v.is_num()) return {as_num(v, what)};
  if (v.tag != Tag::List && v.tag != Tag::Tuple)
    fail(what + " must be a number or a list of numbers, got " + type_name(v));
  std::vector<double> out;
  for (const Value& x : v.as<ListObj>()->items) out.push_back(as_num(x, what));
  return out;
}

const std::string& str_arg(const Value& v, const std::string& what) {
  if (v.tag != Tag::Str) fail(what + " must be a string, got " + type_name(v));
  return v.as<StrObj>()->s;
}

// gelu(input, approximate="none"): the row, or PyTorch's tanh approximation
// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))) made of table ops (so it fuses and
// differentiates to any order like them).
Value gelu_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("gelu", a, {"input", "approximate"}, 1);
  const Tensor& x = as_tensor(b[0], "gelu");
  const std::string approximate = b.has(1) ? str_arg(b[1], "gelu(): argument 'approximate'") : "none";
  if (approximate == "none") return Value::tensor(gelu(x));
  if (approximate != "tanh")
    fail("gelu(): argument 'approximate': expected \"none\" or \"tanh\", got \"" + approximate + "\"");
  const double sqrt_2_over_pi = 0.7978845608028654;
  return Value::tensor(0.5 * x * (1.0 + tanh(sqrt_2_over_pi * (x + 0.044715 * pow(x, 3.0)))));
}

Value interpolate_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("interpolate", a,
                 {"input", "size", "scale_factor", "mode", "align_corners", "recompute_scale_factor", "antialias"}, 1);
  const Tensor& x = as_tensor(b[0], "interpolate");
  if (b.has(6) && as_bool(b[6], "interpolate(): antialias")) return antialiased_interpolate(ev, b);
  InterpolateOptions opt;
  if (b.has(1)) opt.size = int_or_ints(b[1], "interpolate(): size");
  if (b.has(2)) opt.scale_factor = number_or_numbers(b[2], "interpolate(): scale_factor");
  if (b.has(3)) opt.mode = interpolate_mode(str_arg(b[3], "interpolate(): mode"), x.dim());
  if (b.has(4)) opt.align_corners = as_bool(b[4], "interpolate(): align_corners");
  if (b.has(5)) opt.recompute_scale_factor = as_bool(b[5], "interpolate(): recompute_scale_factor");
  // A list gives one value per spatial dim, as PyTorch's (a 1-list of a 4-D input was
  // spread over both dims as an int is); interpolate() names the rank's own errors.
  const int64_t spatial = x.dim() - 2;
  for (size_t k : {size_t(1), size_t(2)}) {
    if (!b.has(k) || (b[k].tag != Tag::List && b[k].tag != Tag::Tuple) || spatial < 1 || spatial > 3) continue;
    const size_t n = b[k].as<ListObj>()->items.size();
    if (static_cast<int64_t>(n) != spatial)
      fail(std::string("interpolate(): ") + (k == 1 ? "size" : "scale_factor") +
           " must have one value per spatial dim (" + std::to_string(spatial) + " for input of shape " +
           x.shape_str() + "), got " + std::to_string(n) + " values");
  }
  return Value::tensor(interpolate(x, opt));
}

Value pad_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("pad", a, {"input", "pad", "mode", "value"}, 2);
  PadMode mode = b.has(2) ? pad_mode(str_arg(b[2], "pad(): mode")) : PadMode::constant;
  if (b.has(3) && mode != PadMode::constant) fail("pad(): value may only be given with mode 'constant'");
  return Value::tensor(
      pad(as_tensor(b[0], "pad"), as_ints(b[1], "pad(): pad"), mode, b.has(3) ? as_num(b[3], "pad(): value") : 0.0));
}

Value transpose_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("transpose", a, {"input", "dim0", "dim1"}, 3);
  return Value::tensor(transpose(as_tensor(b[0], "transpose"), as_int(b[1], "transpose(): dim0"),
                                 as_int(b[2], "transpose(): dim1")));
}

// softmax and log_softmax with PyTorch's dtype=: the input converted first (a softmax
// of f16 logits computed and returned in f32, as F.softmax(x, dim, dtype=torch.float32)).
Tensor softmax_input(const Bound& b, const char* fname) {
  Tensor x = as_tensor(b[0], fname);
  return b.has(2) && !b[2].is_none() ? to_dtype(x, as_dtype(b[2], std::string(fname) + "(): argument 'dtype'")) : x;
}
Value softmax_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("softmax", a, {"input", "dim", "dtype"}, 1);
  return Value::tensor(softmax(softmax_input(b, "softmax"), b.has(1) ? as_int(b[1], "softmax(): dim") : -1));
}
Value log_softmax_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("log_softmax", a, {"input", "dim", "dtype"}, 1);
  return Value::tensor(log_softmax(softmax_input(b, "log_softmax"), b.has(1) ? as_int(b[1], "log_softmax(): dim") : -1));
}

// flip and repeat take their dims or sizes as a list or as varargs (x.flip(0, 1),
// x.repeat(2, 3)), as PyTorch's methods do.
Value ints_varargs(const char* name, CallArgs& a) {
  if (a.pos.size() < 2 || !a.kw.empty()) return row_call(name, a);
  const Tensor& x = as_tensor(a.pos[0], name);
  std::vector<int64_t> ints = shape_args(a.pos, 1, name);
  return Value::tensor(std::string_view(name) == "flip" ? flip(x, ints) : repeat(x, ints));
}
Value flip_builtin(Evaluator&, CallArgs& a) { return ints_varargs("flip", a); }
Value repeat_builtin(Evaluator&, CallArgs& a) { return ints_varargs("repeat", a); }

Value argsort_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("argsort", a, {"input", "dim", "descending", "stable"}, 1);
  return Value::tensor(argsort(as_tensor(b[0], "argsort"), b.has(1) ? as_int(b[1], "argsort(): argument 'dim'") : -1,
                               b.has(2) && as_bool(b[2], "argsort(): argument 'descending'"),
                               b.has(3) && as_bool(b[3], "argsort(): argument 'stable'")));
}

// repeats: an int, or an integer tensor (or list) with one count per slice.
Value repeat_interleave_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("repeat_interleave", a, {"input", "repeats", "dim"}, 2);
  const Tensor& x = as_tensor(b[0], "repeat_interleave");
  std::optional<int64_t> dim;
  if (b.has(2)) dim = as_int(b[2], "repeat_interleave(): argument 'dim'");
  if (b[1].tag == Tag::Int) return Value::tensor(repeat_interleave(x, b[1].i, dim));
  return Value::tensor(repeat_interleave(x, required_input_of(b[1], "repeat_interleave", "repeats"), dim));
}

Value one_hot_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("one_hot", a, {"input", "num_classes"}, 1);
  return Value::tensor(one_hot(required_input_of(b[0], "one_hot", "input"),
                               b.has(1) ? as_int(b[1], "one_hot(): argument 'num_classes'") : -1));
}

// These replace the generic call of the row of the same name (or compose rows, as
// matmul does), for the builtin and the tensor method alike. An entry for an op of the
// table has no doc of its own (nullptr): the row's doc describes the op as these call
// it, so that each op is documented once (convention_doc).
const BuiltinEntry kOpConventions[] = {
    {"einsum", einsum_builtin, "einsum(equation, *operands)",
     "Einstein summation as torch.einsum: labels shared by operands multiply, labels missing from the output are "
     "summed, '...' broadcasts. Example: einsum(\"bij,bjk->bik\", randn(2, 3, 4), randn(2, 4, 5))"},
    {"matmul", matmul_builtin, "matmul(self, other)", nullptr},
    {"conv1d", conv1d_builtin, "conv1d(input, weight, bias=none, stride=[1], padding=[0], dilation=[1], groups=1)",
     nullptr},
    {"conv2d", conv2d_builtin,
     "conv2d(input, weight, bias=none, stride=[1, 1], padding=[0, 0], dilation=[1, 1], groups=1)", nullptr},
    {"conv3d", conv3d_builtin,
     "conv3d(input, weight, bias=none, stride=[1, 1, 1], padding=[0, 0, 0], dilation=[1, 1, 1], groups=1)", nullptr},
    {"conv_transpose1d", conv_transpose1d_builtin,
     "conv_transpose1d(input, weight, bias=none, stride=[1], padding=[0], output_padding=[0], groups=1, "
     "dilation=[1])",
     nullptr},
    {"conv_transpose2d", conv_transpose2d_builtin,
     "conv_transpose2d(input, weight, bias=none, stride=[1, 1], padding=[0, 0], output_padding=[0, 0], groups=1, "
     "dilation=[1, 1])",
     nullptr},
    {"contiguous", contiguous_builtin, "contiguous(input)", nullptr},
    {"add", add_builtin, "add(input, other, alpha=1)", nullptr},
    {"sub", sub_builtin, "sub(input, other, alpha=1)", nullptr},
    {"div", div_builtin, "div(input, other, rounding_mode=none)", nullptr},
    {"gelu", gelu_builtin, "gelu(input, approximate=\"none\")", nullptr},
    {"to_dtype", to_dtype_builtin, "to_dtype(input, dtype)", nullptr},
    {"view", view_builtin, "view(input, *shape)", nullptr},
    {"reshape", reshape_builtin, "reshape(input, *shape)", nullptr},
    {"expand", expand_builtin, "expand(input, *shape)", nullptr},
    {"permute", permute_builtin, "permute(input, *dims)", nullptr},
    {"squeeze", squeeze_builtin, "squeeze(input, dim=none)", nullptr},
    {"flatten", flatten_builtin, "flatten(input, start_dim=0, end_dim=-1)",
     "The dims from start_dim to end_dim merged into one, as torch.flatten (a view when the strides allow it). "
     "Example: flatten(randn(2, 3, 4), start_dim=1)"},
    {"max", max_builtin, "max(input, dim=none, keepdim=false)", nullptr},
    {"min", min_builtin, "min(input, dim=none, keepdim=false)", nullptr},
    {"argmax", argmax_builtin, "argmax(input, dim=none, keepdim=false)", nullptr},
    {"argmin", argmin_builtin, "argmin(input, dim=none, keepdim=false)", nullptr},
    {"clamp", clamp_builtin, "clamp(input, min=none, max=none)", nullptr},
    {"masked_fill", masked_fill_builtin, "masked_fill(input, mask, value)", nullptr},
    {"split", split_builtin, "split(input, split_size_or_sections, dim=0)", nullptr},
    {"max_pool2d", max_pool2d_builtin,
     "max_pool2d(input, kernel_size, stride=kernel_size, padding=[0, 0], dilation=[1, 1], ceil_mode=false, "
     "return_indices=false)",
     nullptr},
    {"max_pool1d", max_pool1d_builtin,
     "max_pool1d(input, kernel_size, stride=kernel_size, padding=[0], dilation=[1], ceil_mode=false, "
     "return_indices=false)",
     nullptr},
    {"adaptive_max_pool2d", adaptive_max_pool2d_builtin,
     "adaptive_max_pool2d(input, output_size, return_indices=false)", nullptr},
    {"avg_pool1d", avg_pool1d_builtin,
     "avg_pool1d(input, kernel_size, stride=[], padding=[0], ceil_mode=false, count_include_pad=true)", nullptr},
    {"avg_pool2d", avg_pool2d_builtin,
     "avg_pool2d(input, kernel_size, stride=[], padding=[0, 0], ceil_mode=false, count_include_pad=true, "
     "divisor_override=none)",
     nullptr},
    {"adaptive_avg_pool1d", adaptive_avg_pool1d_builtin, "adaptive_avg_pool1d(input, output_size)", nullptr},
    {"adaptive_avg_pool2d", adaptive_avg_pool2d_builtin, "adaptive_avg_pool2d(input, output_size)", nullptr},
    {"dropout", dropout_builtin, "dropout(input, p=0.5, training=true)", nullptr},
    {"scaled_dot_product_attention", attention_builtin,
     "scaled_dot_product_attention(query, key, value, attn_mask=none, dropout_p=0.0, is_causal=false, scale=none, "
     "enable_gqa=false)",
     nullptr},
    {"fake_quantize_per_tensor", fake_quantize_per_tensor_builtin,
     "fake_quantize_per_tensor(input, scale, zero_point, quant_min, quant_max)", nullptr},
    {"fake_quantize_per_channel", fake_quantize_per_channel_builtin,
     "fake_quantize_per_channel(input, scales, zero_points, axis, quant_min, quant_max)", nullptr},
    {"gather", gather_builtin, "gather(input, dim, index)", nullptr},
    {"index_select", index_select_builtin, "index_select(input, dim, index)", nullptr},
    {"scatter_add", scatter_add_builtin, "scatter_add(input, dim, index, src)", nullptr},
    {"embedding", embedding_builtin,
     "embedding(input, weight, padding_idx=none, max_norm=none, norm_type=2.0, scale_grad_by_freq=false, "
     "sparse=false)",
     nullptr},
    {"layer_norm", layer_norm_builtin, "layer_norm(input, normalized_shape, weight=none, bias=none, eps=1e-05)",
     nullptr},
    {"batch_norm", batch_norm_builtin,
     "batch_norm(input, running_mean, running_var, weight=none, bias=none, training=false, momentum=0.1, eps=1e-05)",
     nullptr},
    {"group_norm", group_norm_builtin, "group_norm(input, num_groups, weight=none, bias=none, eps=1e-05)", nullptr},
    {"instance_norm", instance_norm_builtin,
     "instance_norm(input, running_mean=none, running_var=none, weight=none, bias=none, use_input_stats=true, "
     "momentum=0.1, eps=1e-05)",
     "Normalizes each channel of each sample over the spatial dims (group_norm with one group per channel); "
     "given running statistics, moves them in training and normalizes with them when use_input_stats=false. "
     "Example: instance_norm(randn(2, 3, 4, 4))"},
    {"rms_norm", rms_norm_builtin, "rms_norm(input, normalized_shape, weight=none, eps=none)", nullptr},
    {"interpolate", interpolate_builtin,
     "interpolate(input, size=none, scale_factor=none, mode=\"nearest\", align_corners=none, "
     "recompute_scale_factor=none, antialias=false)",
     nullptr},
    {"pad", pad_builtin, "pad(input, pad, mode=\"constant\", value=none)", nullptr},
    {"transpose", transpose_builtin, "transpose(input, dim0, dim1)", nullptr},
    {"softmax", softmax_builtin, "softmax(input, dim=-1, dtype=none)", nullptr},
    {"log_softmax", log_softmax_builtin, "log_softmax(input, dim=-1, dtype=none)", nullptr},
    {"flip", flip_builtin, "flip(input, *dims)", nullptr},
    {"repeat", repeat_builtin, "repeat(input, *sizes)", nullptr},
    {"argsort", argsort_builtin, "argsort(input, dim=-1, descending=false, stable=false)",
     "The indices that sort input along dim (sort's second output), as torch.argsort. "
     "Example: argsort(tensor([3.0, 1.0, 2.0]), descending=true)"},
    {"repeat_interleave", repeat_interleave_builtin, "repeat_interleave(input, repeats, dim=none)",
     "Each element (or slice along dim) repeated repeats times, repeats an int or one count per slice, as "
     "torch.repeat_interleave. Example: repeat_interleave(tensor([1, 2, 3]), tensor([1, 0, 2]), dim=0)"},
    {"one_hot", one_hot_builtin, "one_hot(input, num_classes=-1)", nullptr},
    {"cross_entropy", cross_entropy_builtin,
     "cross_entropy(input, target, reduction=\"mean\", ignore_index=-100, label_smoothing=0.0, weight=none)", nullptr},
    {"nll_loss", nll_loss_builtin, "nll_loss(input, target, reduction=\"mean\", ignore_index=-100, weight=none)", nullptr},
    {"binary_cross_entropy", binary_cross_entropy_builtin,
     "binary_cross_entropy(input, target, reduction=\"mean\", weight=none)", nullptr},
    {"binary_cross_entropy_with_logits", binary_cross_entropy_with_logits_builtin,
     "binary_cross_entropy_with_logits(input, target, reduction=\"mean\", weight=none, pos_weight=none)", nullptr},
    {"ctc_loss", ctc_loss_entry,
     "ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=\"mean\", zero_infinity=false)",
     "The connectionist temporal classification loss of log-probabilities [T, N, C] against targets (padded [N, S] or "
     "concatenated), each sequence at its input and target length, as F.ctc_loss; the mean divides each loss by its "
     "target length. Example: ctc_loss(log_softmax(randn(6, 2, 4), 2), tensor([[1, 2], [3, 3]]), [6, 5], [2, 2])"},
};

std::unordered_map<std::string, Fn> make_op_functions() {
  std::unordered_map<std::string, Fn> table;
  for (const OpDef& def : op_table()) {
    const OpDef* d = &def;
    table[def.name] = [d](Evaluator&, CallArgs& a) { return call_row(*d, a, d->name); };
  }
  for (const BuiltinEntry& e : op_conventions()) table[e.name] = e.function;
  add_inplace_args(table);  // inplace_args.cpp
  return table;
}

}  // namespace

const std::unordered_map<std::string, Fn>& op_functions() {
  static const std::unordered_map<std::string, Fn> table = make_op_functions();
  return table;
}

// The rows' conventions, then the composites made of rows (composites.hpp): one list,
// as dispatch, completion and :help read it.
std::span<const BuiltinEntry> op_conventions() {
  static const std::vector<BuiltinEntry> all = [] {
    std::vector<BuiltinEntry> out(std::begin(kOpConventions), std::end(kOpConventions));
    for (auto table : {composite_math(), composite_nn(), composite_tensor(), composite_spatial(), composite_extra_shape(),
                        composite_extra_ordering(), composite_extra_math(), composite_torch_aliases(),
                        composite_integer_ops(), composite_torch_search(), composite_torch_build(), composite_torch_more(),
                        composite_torch_gaps7(), composite_torch_gaps8(), composite_torch_gaps9()})
      out.insert(out.end(), table.begin(), table.end());
    return out;
  }();
  return all;
}

void install_op_builtins(Evaluator& ev) {
  for (auto& [name, fn] : op_functions()) install_function(ev, name, fn);
}

}  // namespace nabla::interp
