// Builtin functions of the language, every op of the table by name (as a function and
// as a tensor method), tensor attributes and methods, tensor factories, grad,
// gradcheck and the test builtins (expect, expect_close, expect_error).
#include <algorithm>
#include <cmath>
#include <optional>

#include "autograd/engine.hpp"
#include "autograd/gradcheck.hpp"
#include "autograd/grad_mode.hpp"
#include "autograd/node.hpp"
#include "autograd/ops.hpp"
#include "interp/evaluator.hpp"
#include "tensor/cpu/copy.hpp"
#include "tensor/random.hpp"

namespace nabla::interp {

int compare_for_sort(const Value& a, const Value& b);

namespace {

// ---- argument binding -----------------------------------------------------------------

// Binds positional and keyword arguments to `names` (the first `required` must be
// given). Missing optional arguments are none, with given[k] false.
struct Bound {
  std::vector<Value> v;
  std::vector<bool> given;
  const Value& operator[](size_t k) const { return v[k]; }
  bool has(size_t k) const { return given[k] && !v[k].is_none(); }
};

Bound bind(const std::string& fname, CallArgs& a, std::initializer_list<const char*> names, size_t required) {
  Bound b;
  size_t n = names.size();
  b.v.resize(n);
  b.given.assign(n, false);
  std::vector<const char*> nm(names);
  if (a.pos.size() > n)
    fail(fname + "() takes at most " + std::to_string(n) + " argument" + (n == 1 ? "" : "s") + " but " +
         std::to_string(a.pos.size()) + " were given");
  for (size_t k = 0; k < a.pos.size(); ++k) {
    b.v[k] = std::move(a.pos[k]);
    b.given[k] = true;
  }
  for (auto& [key, val] : a.kw) {
    size_t k = 0;
    while (k < n && key != nm[k]) ++k;
    if (k == n) fail(fname + "() got an unexpected keyword argument '" + key + "'");
    if (b.given[k]) fail(fname + "() got multiple values for argument '" + key + "'");
    b.v[k] = std::move(val);
    b.given[k] = true;
  }
  for (size_t k = 0; k < required; ++k)
    if (!b.given[k]) fail(fname + "() missing required argument '" + nm[k] + "'");
  return b;
}

int64_t as_int(const Value& v, const std::string& what) {
  if (v.tag == Tag::Int) return v.i;
  if (v.tag == Tag::Bool) return v.b;
  if (v.tag == Tag::Float && v.f == std::floor(v.f)) return static_cast<int64_t>(v.f);
  if (v.tag == Tag::Tensor && v.t.numel() == 1 && !is_floating(v.t.dtype())) return static_cast<int64_t>(v.t.item());
  fail(what + ": expected an int, got " + type_name(v));
}

double as_num(const Value& v, const std::string& what) {
  if (v.is_num()) return v.as_double();
  if (v.tag == Tag::Tensor && v.t.numel() == 1) return v.t.item();
  fail(what + ": expected a number, got " + type_name(v));
}

bool as_bool(const Value& v, const std::string& what) {
  if (v.tag == Tag::Bool) return v.b;
  if (v.tag == Tag::Int) return v.i != 0;
  fail(what + ": expected a bool, got " + type_name(v));
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
    for (double d : to_double_vector(v.t)) out.push_back(static_cast<int64_t>(d));
    return out;
  }
  fail(what + ": expected a list of ints, got " + type_name(v));
}

DType as_dtype(const Value& v, const std::string& what) {
  if (v.tag == Tag::DType) return v.dt;
  if (v.tag == Tag::Str) {
    DType d;
    if (dtype_from_name(v.as<StrObj>()->s, &d)) return d;
    fail(what + ": unknown dtype '" + v.as<StrObj>()->s + "' (expected f32, f64, f16, bf16, i64, i32 or bool)");
  }
  if (v.tag == Tag::Native) {
    const std::string& n = v.as<NativeObj>()->name;
    if (n == "bool") return DType::b8;
    if (n == "float") return DType::f32;
    if (n == "int") return DType::i64;
  }
  fail(what + ": expected a dtype (f32, f64, f16, bf16, i64, i32, bool), got " + type_name(v));
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

}  // namespace

// ---- tensors from values ----------------------------------------------------------------

Tensor tensor_from_value(const Value& v, std::optional<DType> dtype) {
  if (v.tag == Tag::Tensor) {
    Tensor t = contiguous_raw(v.t);
    if (t.is_same(v.t)) {
      Tensor c = empty(v.t.sizes(), v.t.dtype());
      copy_into(c, v.t);
      t = c;
    }
    return dtype && *dtype != t.dtype() ? to_dtype_raw(t, *dtype) : t;
  }
  std::vector<int64_t> shape;
  std::vector<double> values;
  int kind = 0;  // 0 bool, 1 int, 2 float
  bool any = false;
  std::function<void(const Value&, size_t)> walk = [&](const Value& x, size_t depth) {
    if (x.tag == Tag::List || x.tag == Tag::Tuple) {
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
    } else if (x.tag == Tag::Int) {
      values.push_back(static_cast<double>(x.i));
      kind = std::max(kind, 1);
    } else if (x.tag == Tag::Float) {
      values.push_back(x.f);
      kind = 2;
    } else if (x.tag == Tag::Tensor && x.t.numel() == 1) {
      values.push_back(x.t.item());
      kind = std::max(kind, is_floating(x.t.dtype()) ? 2 : x.t.dtype() == DType::b8 ? 0 : 1);
    } else {
      fail(std::string("tensor(): expected numbers or nested lists of numbers, got ") + type_name(x));
    }
  };
  walk(v, 0);
  DType dt = dtype ? *dtype : kind == 2 ? DType::f32 : kind == 1 ? DType::i64 : DType::b8;
  if (!any && !dtype) dt = DType::f32;
  return tensor_from(values, Shape(shape), dt);
}

static Value tolist(const Tensor& t) {
  std::vector<double> v = to_double_vector(t);
  auto scalar = [&](double d) {
    if (is_floating(t.dtype())) return Value::number(d);
    if (t.dtype() == DType::b8) return Value::boolean(d != 0);
    return Value::integer(static_cast<int64_t>(d));
  };
  if (t.dim() == 0) return scalar(v[0]);
  size_t pos = 0;
  std::function<Value(int64_t)> build = [&](int64_t d) -> Value {
    std::vector<Value> items;
    for (int64_t k = 0; k < t.size(d); ++k)
      items.push_back(d + 1 == t.dim() ? scalar(v[pos++]) : build(d + 1));
    return make_list(std::move(items));
  };
  return build(0);
}

// ---- ops by name ---------------------------------------------------------------------------

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
      if (v.tag == Tag::Int && pair_attr(spec.name)) return std::vector<int64_t>{v.i, v.i};
      return as_ints(v, what);
    case AttrKind::dtype: return as_dtype(v, what);
  }
  return NoneAttr{};
}

Tensor input_of(const Value& v, const std::string& fname, const std::string& arg) {
  if (v.tag == Tag::Tensor) return v.t;
  if (v.is_num()) return to_tensor_arg(v, fname.c_str());
  if (v.is_none()) return Tensor();
  if (v.tag == Tag::List || v.tag == Tag::Tuple) return tensor_from_value(v, std::nullopt);
  fail(fname + "(): argument '" + arg + "' must be a tensor, got " + type_name(v));
}

// Generic call of a row: tensor arguments first (by position or by their input
// names), then attributes (by position in the row's order, or by name).
Value call_row(const OpDef& def, CallArgs& a, const std::string& fname) {
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
  for (auto& [key, val] : a.kw) {
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
    if (j == def.attrs.size()) fail(fname + "() got an unexpected keyword argument '" + key + "'");
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
  TensorList outs = call(def.id, inputs, attrs);
  if (outs.size() == 1 && def.num_outputs == 1) return tensor_value(outs[0]);
  return tuple_of(outs);
}

using Fn = std::function<Value(Evaluator&, CallArgs&)>;

// Functions that add semantics to a row (or compose rows); the rest go to call_row.
std::unordered_map<std::string, Fn>& op_functions() {
  static std::unordered_map<std::string, Fn> table;
  return table;
}

Value row_call(const char* name, CallArgs& a) { return call_row(*find_op(name), a, name); }

void install_op_functions() {
  auto& t = op_functions();
  if (!t.empty()) return;
  for (const OpDef& def : op_table()) {
    const OpDef* d = &def;
    t[def.name] = [d](Evaluator&, CallArgs& a) { return call_row(*d, a, d->name); };
  }
  t["matmul"] = [](Evaluator&, CallArgs& a) {
    Bound b = bind("matmul", a, {"self", "other"}, 2);
    return Value::tensor(matmul(input_of(b[0], "matmul", "self"), input_of(b[1], "matmul", "other")));
  };
  t["contiguous"] = [](Evaluator&, CallArgs& a) {
    Bound b = bind("contiguous", a, {"input"}, 1);
    return Value::tensor(contiguous(as_tensor(b[0], "contiguous")));
  };
  t["to_dtype"] = [](Evaluator&, CallArgs& a) {
    Bound b = bind("to_dtype", a, {"input", "dtype"}, 2);
    return Value::tensor(to_dtype(as_tensor(b[0], "to_dtype"), as_dtype(b[1], "to_dtype")));
  };
  for (const char* nm : {"view", "reshape", "expand"}) {
    std::string name = nm;
    t[name] = [name](Evaluator&, CallArgs& a) {
      if (a.pos.size() >= 1 && a.kw.empty()) {
        const Tensor& x = as_tensor(a.pos[0], name);
        std::vector<int64_t> shape = shape_args(a.pos, 1, name);
        if (name == "view") return Value::tensor(view(x, shape));
        if (name == "reshape") return Value::tensor(reshape(x, shape));
        return Value::tensor(expand(x, shape));
      }
      return row_call(name == "view" ? "view" : name == "reshape" ? "reshape" : "expand", a);
    };
  }
  t["permute"] = [](Evaluator&, CallArgs& a) {
    if (a.pos.size() >= 1 && a.kw.empty())
      return Value::tensor(permute(as_tensor(a.pos[0], "permute"), shape_args(a.pos, 1, "permute")));
    return row_call("permute", a);
  };
  t["squeeze"] = [](Evaluator&, CallArgs& a) {
    Bound b = bind("squeeze", a, {"input", "dim"}, 1);
    const Tensor& x = as_tensor(b[0], "squeeze");
    if (!b.has(1)) return Value::tensor(squeeze(x));
    return Value::tensor(squeeze(x, as_ints(b[1], "squeeze(): argument 'dim'")));
  };
  t["flatten"] = [](Evaluator&, CallArgs& a) {
    Bound b = bind("flatten", a, {"input", "start_dim", "end_dim"}, 1);
    return Value::tensor(flatten(as_tensor(b[0], "flatten"), b.has(1) ? as_int(b[1], "flatten") : 0,
                                 b.has(2) ? as_int(b[2], "flatten") : -1));
  };
  auto extremum = [](const char* nm, bool is_max) {
    std::string name = nm;
    return [name, is_max](Evaluator&, CallArgs& a) -> Value {
      Bound b = bind(name, a, {"input", "dim", "keepdim"}, 1);
      const Tensor& x = as_tensor(b[0], name);
      if (b.has(1) && b[1].tag == Tag::Tensor) {  // max(a, b) is elementwise, as in PyTorch
        return Value::tensor(is_max ? maximum(x, b[1].t) : minimum(x, b[1].t));
      }
      if (!b.has(1)) return Value::tensor(is_max ? max(x) : min(x));
      int64_t dim = as_int(b[1], name + "(): argument 'dim'");
      bool keep = b.has(2) && as_bool(b[2], name + "(): argument 'keepdim'");
      auto [v, i] = is_max ? max(x, dim, keep) : min(x, dim, keep);
      return make_tuple({Value::tensor(v), Value::tensor(i)});
    };
  };
  t["max"] = extremum("max", true);
  t["min"] = extremum("min", false);
  for (const char* nm : {"argmax", "argmin"}) {
    std::string name = nm;
    t[name] = [name](Evaluator&, CallArgs& a) {
      Bound b = bind(name, a, {"input", "dim", "keepdim"}, 1);
      const Tensor& x = as_tensor(b[0], name);
      std::optional<int64_t> dim;
      if (b.has(1)) dim = as_int(b[1], name + "(): argument 'dim'");
      bool keep = b.has(2) && as_bool(b[2], name + "(): argument 'keepdim'");
      return Value::tensor(name == "argmax" ? argmax(x, dim, keep) : argmin(x, dim, keep));
    };
  }
  t["clamp"] = [](Evaluator&, CallArgs& a) {
    Bound b = bind("clamp", a, {"input", "min", "max"}, 1);
    std::optional<double> lo, hi;
    if (b.has(1)) lo = as_num(b[1], "clamp(): argument 'min'");
    if (b.has(2)) hi = as_num(b[2], "clamp(): argument 'max'");
    return Value::tensor(clamp(as_tensor(b[0], "clamp"), lo, hi));
  };
  t["split"] = [](Evaluator&, CallArgs& a) {
    Bound b = bind("split", a, {"input", "split_size_or_sections", "dim"}, 2);
    const Tensor& x = as_tensor(b[0], "split");
    int64_t dim = b.has(2) ? as_int(b[2], "split(): argument 'dim'") : 0;
    if (b[1].tag == Tag::Int) return tuple_of(split(x, b[1].i, dim));
    return tuple_of(split(x, as_ints(b[1], "split(): argument 'split_size_or_sections'"), dim));
  };
  t["max_pool2d"] = [](Evaluator&, CallArgs& a) {
    bool with_indices = false;
    for (auto it = a.kw.begin(); it != a.kw.end(); ++it)
      if (it->first == "return_indices") {
        with_indices = as_bool(it->second, "max_pool2d(): argument 'return_indices'");
        a.kw.erase(it);
        break;
      }
    Value r = row_call("max_pool2d", a);
    if (with_indices) return r;
    return r.as<ListObj>()->items[0];
  };
  t["dropout"] = [](Evaluator&, CallArgs& a) {
    Value r = row_call("dropout", a);
    return r.as<ListObj>()->items[0];
  };
  // PyTorch's argument order: (input, dim, index[, src]).
  for (const char* nm : {"gather", "index_select", "scatter_add"}) {
    std::string name = nm;
    t[name] = [name](Evaluator&, CallArgs& a) {
      Bound b = name == "scatter_add" ? bind(name, a, {"input", "dim", "index", "src"}, 4)
                                      : bind(name, a, {"input", "dim", "index"}, 3);
      const Tensor& x = as_tensor(b[0], name);
      int64_t dim = as_int(b[1], name + "(): argument 'dim'");
      Tensor idx = input_of(b[2], name, "index");
      if (name == "gather") return Value::tensor(gather(x, dim, idx));
      if (name == "index_select") return Value::tensor(index_select(x, dim, idx));
      return Value::tensor(scatter_add(x, dim, idx, input_of(b[3], name, "src")));
    };
  }
  t["embedding"] = [](Evaluator&, CallArgs& a) {
    Bound b = bind("embedding", a, {"input", "weight"}, 2);
    Tensor p = input_of(b[0], "embedding", "input"), q = input_of(b[1], "embedding", "weight");
    // F.embedding(indices, weight); the row's own order (weight, indices) works too.
    if (is_floating(p.dtype()) && !is_floating(q.dtype())) std::swap(p, q);
    return Value::tensor(embedding(q, p));
  };
  t["layer_norm"] = [](Evaluator&, CallArgs& a) {
    Bound b = bind("layer_norm", a, {"input", "normalized_shape", "weight", "bias", "eps"}, 2);
    return Value::tensor(layer_norm(as_tensor(b[0], "layer_norm"), as_ints(b[1], "layer_norm(): normalized_shape"),
                                    b.has(2) ? as_tensor(b[2], "layer_norm(): weight") : Tensor(),
                                    b.has(3) ? as_tensor(b[3], "layer_norm(): bias") : Tensor(),
                                    b.has(4) ? as_num(b[4], "layer_norm(): eps") : 1e-5));
  };
  t["batch_norm"] = [](Evaluator&, CallArgs& a) {
    Bound b = bind("batch_norm", a,
                   {"input", "running_mean", "running_var", "weight", "bias", "training", "momentum", "eps"}, 3);
    auto opt = [&](size_t k) { return b.has(k) ? as_tensor(b[k], "batch_norm") : Tensor(); };
    return Value::tensor(batch_norm(as_tensor(b[0], "batch_norm"), opt(3), opt(4), opt(1), opt(2),
                                    b.has(5) && as_bool(b[5], "batch_norm(): training"),
                                    b.has(6) ? as_num(b[6], "batch_norm(): momentum") : 0.1,
                                    b.has(7) ? as_num(b[7], "batch_norm(): eps") : 1e-5));
  };
  t["transpose"] = [](Evaluator&, CallArgs& a) {
    Bound b = bind("transpose", a, {"input", "dim0", "dim1"}, 3);
    return Value::tensor(transpose(as_tensor(b[0], "transpose"), as_int(b[1], "transpose(): dim0"),
                                   as_int(b[2], "transpose(): dim1")));
  };
  t["softmax"] = [](Evaluator&, CallArgs& a) {
    Bound b = bind("softmax", a, {"input", "dim"}, 1);
    return Value::tensor(softmax(as_tensor(b[0], "softmax"), b.has(1) ? as_int(b[1], "softmax(): dim") : -1));
  };
  t["log_softmax"] = [](Evaluator&, CallArgs& a) {
    Bound b = bind("log_softmax", a, {"input", "dim"}, 1);
    return Value::tensor(log_softmax(as_tensor(b[0], "log_softmax"), b.has(1) ? as_int(b[1], "log_softmax(): dim") : -1));
  };
}

// ---- tensor attributes and methods ----------------------------------------------------------

std::unordered_map<std::string, Fn>& tensor_methods() {
  static std::unordered_map<std::string, Fn> table;
  return table;
}

const char* const kTensorAttrs[] = {"shape", "dtype", "ndim", "T", "grad", "requires_grad", "grad_fn",
                                    "is_leaf", "device", "data"};

Tensor clone_tensor(const Tensor& x) {
  if (x.requires_grad() && grad_enabled()) {
    Value zero = is_floating(x.dtype()) ? Value::number(0.0) : Value::integer(0);
    return add(x, to_tensor_arg(zero, "clone"));
  }
  Tensor c = empty(x.sizes(), x.dtype());
  copy_into(c, x);
  return c;
}

void install_tensor_methods() {
  auto& m = tensor_methods();
  if (!m.empty()) return;
  auto self_only = [](const std::string& name, CallArgs& a) -> const Tensor& {
    if (a.pos.size() != 1 || !a.kw.empty()) fail(name + "() takes no arguments");
    return a.pos[0].t;
  };
  m["dim"] = [=](Evaluator&, CallArgs& a) { return Value::integer(self_only("dim", a).dim()); };
  m["numel"] = [=](Evaluator&, CallArgs& a) { return Value::integer(self_only("numel", a).numel()); };
  m["size"] = [](Evaluator&, CallArgs& a) {
    Bound b = bind("size", a, {"self", "dim"}, 1);
    const Tensor& x = b[0].t;
    if (b.has(1)) return Value::integer(x.size(wrap_dim(as_int(b[1], "size(): dim"), x.dim(), "size")));
    std::vector<Value> items;
    for (int64_t s : x.sizes()) items.push_back(Value::integer(s));
    return make_tuple(std::move(items));
  };
  m["item"] = [=](Evaluator&, CallArgs& a) {
    const Tensor& x = self_only("item", a);
    double d = x.item();
    if (is_floating(x.dtype())) return Value::number(d);
    if (x.dtype() == DType::b8) return Value::boolean(d != 0);
    return Value::integer(static_cast<int64_t>(d));
  };
  m["tolist"] = [=](Evaluator&, CallArgs& a) { return tolist(self_only("tolist", a)); };
  m["backward"] = [](Evaluator&, CallArgs& a) {
    Bound b = bind("backward", a, {"self", "gradient", "retain_graph", "create_graph"}, 1);
    if (!b.given[1]) {
      for (auto& [k, v] : a.kw) (void)k, (void)v;
    }
    Tensor g = b.has(1) ? input_of(b[1], "backward", "gradient") : Tensor();
    bool create = b.has(3) && as_bool(b[3], "backward(): create_graph");
    bool retain = b.has(2) ? as_bool(b[2], "backward(): retain_graph") : create;
    nabla::backward(b[0].t, g, retain, create);
    return Value();
  };
  m["detach"] = [=](Evaluator&, CallArgs& a) { return Value::tensor(detach(self_only("detach", a))); };
  m["clone"] = [=](Evaluator&, CallArgs& a) { return Value::tensor(clone_tensor(self_only("clone", a))); };
  m["to"] = [](Evaluator&, CallArgs& a) {
    Bound b = bind("to", a, {"self", "dtype"}, 2);
    const Tensor& x = b[0].t;
    if (b[1].tag == Tag::Str) {
      const std::string& s = b[1].as<StrObj>()->s;
      if (s == "cpu") return b[0];
      DType d;
      if (dtype_from_name(s, &d)) return Value::tensor(to_dtype(x, d));
      fail("to(): unknown device or dtype '" + s + "' (this build runs on 'cpu')");
    }
    return Value::tensor(to_dtype(x, as_dtype(b[1], "to()")));
  };
  for (auto [nm, dt] : std::initializer_list<std::pair<const char*, DType>>{
           {"float", DType::f32}, {"double", DType::f64}, {"half", DType::f16}, {"bfloat16", DType::bf16},
           {"long", DType::i64}, {"int", DType::i32}, {"bool", DType::b8}}) {
    std::string name = nm;
    DType d = dt;
    m[name] = [=](Evaluator&, CallArgs& a) { return Value::tensor(to_dtype(self_only(name, a), d)); };
  }
  m["cpu"] = [=](Evaluator&, CallArgs& a) {
    self_only("cpu", a);
    return a.pos[0];
  };
  m["t"] = [=](Evaluator&, CallArgs& a) {
    const Tensor& x = self_only("t", a);
    if (x.dim() != 2) fail("t() expects a 2-D tensor, got shape " + x.shape_str());
    return Value::tensor(transpose(x, 0, 1));
  };
  m["zero_"] = [=](Evaluator&, CallArgs& a) {
    Tensor x = self_only("zero_", a);
    zero_(x);
    return a.pos[0];
  };
  m["fill_"] = [](Evaluator&, CallArgs& a) {
    Bound b = bind("fill_", a, {"self", "value"}, 2);
    Tensor x = b[0].t;
    copy_(x, to_tensor_arg(b[1], "fill_"));
    return b[0];
  };
  auto inplace = [](const std::string& name, Tensor& (*f)(Tensor&, const Tensor&)) {
    return [name, f](Evaluator&, CallArgs& a) {
      Bound b = bind(name, a, {"self", "other"}, 2);
      Tensor x = b[0].t;
      f(x, to_tensor_arg(b[1], name.c_str()));
      return b[0];
    };
  };
  m["add_"] = inplace("add_", add_);
  m["sub_"] = inplace("sub_", sub_);
  m["mul_"] = inplace("mul_", mul_);
  m["div_"] = inplace("div_", div_);
  m["copy_"] = inplace("copy_", copy_);
  m["requires_grad_"] = [](Evaluator&, CallArgs& a) {
    Bound b = bind("requires_grad_", a, {"self", "requires_grad"}, 1);
    Tensor x = b[0].t;
    bool v = b.has(1) ? as_bool(b[1], "requires_grad_()") : true;
    if (v && !is_floating(x.dtype()))
      fail(std::string("requires_grad_(): only floating tensors can require gradients, got ") + dtype_name(x.dtype()));
    if (!x.is_leaf() && !v) fail("requires_grad_(false) on a non-leaf tensor: use detach()");
    x.set_requires_grad(v);
    return b[0];
  };
  m["retain_grad"] = [=](Evaluator&, CallArgs& a) {
    retain_grad(self_only("retain_grad", a));
    return Value();
  };
  m["register_hook"] = [](Evaluator& ev, CallArgs& a) {
    Bound b = bind("register_hook", a, {"self", "hook"}, 2);
    Value fn = b[1];
    Evaluator* e = &ev;
    HookHandle h = register_hook(b[0].t, [e, fn](const Tensor& g) {
      CallArgs args;
      args.pos.push_back(Value::tensor(g));
      Value r = e->call_value(fn, args);
      if (r.is_none()) return Tensor();
      if (r.tag != Tag::Tensor) fail(std::string("a hook must return a tensor or none, got ") + type_name(r));
      return r.t;
    });
    auto obj = std::make_shared<ObjectObj>();
    obj->type_name = "hook handle";
    auto handle = std::make_shared<HookHandle>(h);
    obj->methods["remove"] = [handle](Evaluator&, CallArgs&) {
      remove_hook(*handle);
      return Value();
    };
    return Value::object(Tag::Object, obj);
  };
}

}  // namespace

Value tensor_attr(Evaluator&, const Value& self, const std::string& name, bool* found) {
  const Tensor& x = self.t;
  *found = true;
  if (name == "shape") {
    std::vector<Value> items;
    for (int64_t s : x.sizes()) items.push_back(Value::integer(s));
    return make_tuple(std::move(items));
  }
  if (name == "dtype") return Value::dtype(x.dtype());
  if (name == "ndim") return Value::integer(x.dim());
  if (name == "T") {
    if (x.dim() != 2) fail(".T expects a 2-D tensor, got shape " + x.shape_str() + " (use permute for other ranks)");
    return Value::tensor(transpose(x, 0, 1));
  }
  if (name == "grad") return tensor_value(x.grad());
  if (name == "requires_grad") return Value::boolean(x.requires_grad());
  if (name == "grad_fn") {
    const auto& fn = x.grad_fn();
    return fn ? make_str(fn->name()) : Value();
  }
  if (name == "is_leaf") return Value::boolean(x.is_leaf());
  if (name == "device") return make_str(x.device().str());
  if (name == "data") return Value::tensor(detach(x));
  *found = false;
  if (tensor_methods().count(name) || op_functions().count(name)) return Value();
  fail("tensor has no attribute '" + name + "'");
}

Value tensor_method(Evaluator& ev, const Value& self, const std::string& name, CallArgs& args) {
  auto it = tensor_methods().find(name);
  if (it != tensor_methods().end()) {
    args.pos.insert(args.pos.begin(), self);
    return it->second(ev, args);
  }
  auto op = op_functions().find(name);
  if (op != op_functions().end()) {
    args.pos.insert(args.pos.begin(), self);
    return op->second(ev, args);
  }
  bool found = false;
  Value v = tensor_attr(ev, self, name, &found);
  if (found) return ev.call_value(v, args);
  fail("tensor has no attribute '" + name + "'");
}

std::vector<std::string> tensor_member_names() {
  std::vector<std::string> out;
  for (const char* a : kTensorAttrs) out.push_back(a);
  for (auto& [n, f] : tensor_methods()) out.push_back(n);
  for (auto& [n, f] : op_functions()) out.push_back(n);
  return out;
}

// ---- gradcheck ----------------------------------------------------------------------------

namespace {

// gradcheck(fn, inputs..., eps=, atol=, rtol=): nabla::gradcheck on a DSL function.
// Tensor arguments that require grad are checked; other arguments are passed as
// they are. Prints the first mismatch and returns false, or returns true.
Value gradcheck_builtin(Evaluator& ev, CallArgs& a) {
  if (a.pos.empty()) fail("gradcheck() missing required argument 'fn'");
  GradcheckOptions opt;
  for (auto& [k, v] : a.kw) {
    if (k == "eps") opt.eps = as_num(v, "gradcheck(): eps");
    else if (k == "atol") opt.atol = as_num(v, "gradcheck(): atol");
    else if (k == "rtol") opt.rtol = as_num(v, "gradcheck(): rtol");
    else fail("gradcheck() got an unexpected keyword argument '" + k + "'");
  }
  Value fn = a.pos[0];
  std::vector<Value> args(a.pos.begin() + 1, a.pos.end());
  if (args.size() == 1 && (args[0].tag == Tag::List || args[0].tag == Tag::Tuple)) args = args[0].as<ListObj>()->items;
  TensorList tensors;  // the tensor arguments, in order
  std::vector<size_t> positions, which;
  for (size_t k = 0; k < args.size(); ++k) {
    if (args[k].tag != Tag::Tensor) continue;
    const Tensor& t = args[k].t;
    if (t.requires_grad()) {
      if (t.dtype() != DType::f64)
        ev.output("gradcheck: warning: input " + std::to_string(k) + " is " + dtype_name(t.dtype()) +
                  ", not f64; differences will be imprecise\n");
      which.push_back(tensors.size());
    }
    positions.push_back(k);
    tensors.push_back(t);
  }
  if (which.empty()) fail("gradcheck(): no input requires grad");
  GradcheckFn f = [&](const TensorList& ts) {
    CallArgs call;
    call.pos = args;
    for (size_t j = 0; j < ts.size(); ++j) call.pos[positions[j]] = Value::tensor(ts[j]);
    Value out = ev.call_value(fn, call);
    TensorList outs;
    if (out.tag == Tag::Tensor) outs.push_back(out.t);
    else if (out.tag == Tag::Tuple || out.tag == Tag::List)
      for (auto& x : out.as<ListObj>()->items)
        if (x.tag == Tag::Tensor) outs.push_back(x.t);
    if (outs.empty()) fail(std::string("gradcheck(): the function must return a tensor, got ") + type_name(out));
    return outs;
  };
  GradcheckResult r = nabla::gradcheck(f, tensors, which, opt);
  if (!r.ok) ev.output(r.message + "\n");
  return Value::boolean(r.ok);
}

// ---- test builtins -----------------------------------------------------------------------

void record_failure(Evaluator& ev, const std::string& message) {
  if (!ev.tests.active) fail(message);
  std::string where = ev.current_span ? lang::format_error(*ev.current_span, message) : "error: " + message;
  ev.tests.failures.push_back(where);
  ++ev.tests.failed_in_block;
}

Value expect_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("expect", a, {"cond", "msg"}, 1);
  if (!truthy(b[0])) record_failure(ev, "expectation failed" + (b.has(1) ? ": " + str(b[1]) : std::string()));
  return Value();
}

Value expect_close_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("expect_close", a, {"actual", "expected", "rtol", "atol", "msg"}, 2);
  double rtol = b.has(2) ? as_num(b[2], "expect_close(): rtol") : 1e-5;
  double atol = b.has(3) ? as_num(b[3], "expect_close(): atol") : 1e-8;
  auto values = [](const Value& v) -> std::pair<std::vector<double>, std::string> {
    if (v.tag == Tag::Tensor) return {to_double_vector(v.t), v.t.shape_str()};
    if (v.is_num()) return {{v.as_double()}, "[]"};
    if (v.tag == Tag::List || v.tag == Tag::Tuple) {
      Tensor t = tensor_from_value(v, DType::f64);
      return {to_double_vector(t), t.shape_str()};
    }
    fail(std::string("expect_close(): expected a tensor or a number, got ") + type_name(v));
  };
  auto [x, xs] = values(b[0]);
  auto [y, ys] = values(b[1]);
  std::string suffix = b.has(4) ? " (" + str(b[4]) + ")" : "";
  if (x.size() != y.size() && y.size() != 1) {
    record_failure(ev, "expect_close failed: shapes differ: " + xs + " vs " + ys + suffix);
    return Value();
  }
  for (size_t k = 0; k < x.size(); ++k) {
    double e = y.size() == 1 ? y[0] : y[k];
    bool ok = std::fabs(x[k] - e) <= atol + rtol * std::fabs(e) || (std::isnan(x[k]) && std::isnan(e)) || x[k] == e;
    if (!ok) {
      record_failure(ev, "expect_close failed at element " + std::to_string(k) + ": " + float_repr(x[k]) + " vs " +
                             float_repr(e) + " (rtol=" + float_repr(rtol) + ", atol=" + float_repr(atol) + ")" + suffix);
      return Value();
    }
  }
  return Value();
}

Value expect_error_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("expect_error", a, {"code", "message"}, 1);
  if (b[0].tag != Tag::Str) fail(std::string("expect_error(): 'code' must be a str, got ") + type_name(b[0]));
  std::string part = b.has(1) ? str(b[1]) : "";
  const lang::SourceSpan* span = ev.current_span;
  try {
    ev.eval_source(b[0].as<StrObj>()->s, "<expect_error>", ev.current_module(), false);
  } catch (LangError& e) {
    if (e.interrupted) throw;
    ev.current_span = span;
    if (e.message.find(part) == std::string::npos)
      record_failure(ev, "expect_error: the error '" + e.message + "' does not contain '" + part + "'");
    return Value();
  }
  ev.current_span = span;
  record_failure(ev, "expect_error: no error was raised" + (part.empty() ? std::string() : " (expected '" + part + "')"));
  return Value();
}

// ---- Python builtins ----------------------------------------------------------------------

Value len_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("len", a, {"obj"}, 1);
  const Value& v = b[0];
  switch (v.tag) {
    case Tag::Str: return Value::integer(static_cast<int64_t>(v.as<StrObj>()->s.size()));
    case Tag::List:
    case Tag::Tuple: return Value::integer(static_cast<int64_t>(v.as<ListObj>()->items.size()));
    case Tag::Dict: return Value::integer(static_cast<int64_t>(v.as<DictObj>()->entries.size()));
    case Tag::Range: return Value::integer(v.as<RangeObj>()->size());
    case Tag::Tensor:
      if (v.t.dim() == 0) fail("len() of a 0-d tensor");
      return Value::integer(v.t.size(0));
    default: fail(std::string("object of type '") + type_name(v) + "' has no len()");
  }
}

Value range_builtin(Evaluator&, CallArgs& a) {
  if (!a.kw.empty()) fail("range() takes no keyword arguments");
  auto r = std::make_shared<RangeObj>();
  if (a.pos.size() == 1) {
    r->stop = as_int(a.pos[0], "range()");
  } else if (a.pos.size() == 2 || a.pos.size() == 3) {
    r->start = as_int(a.pos[0], "range()");
    r->stop = as_int(a.pos[1], "range()");
    if (a.pos.size() == 3) r->step = as_int(a.pos[2], "range()");
    if (r->step == 0) fail("range() step must not be zero");
  } else {
    fail("range() takes 1 to 3 arguments but " + std::to_string(a.pos.size()) + " were given");
  }
  return Value::object(Tag::Range, r);
}

Value extremum_builtin(Evaluator& ev, CallArgs& a, bool is_max) {
  const char* name = is_max ? "max" : "min";
  if (!a.pos.empty() && a.pos[0].tag == Tag::Tensor) return op_functions()[name](ev, a);
  Value key;
  for (auto it = a.kw.begin(); it != a.kw.end(); ++it)
    if (it->first == "key") {
      key = it->second;
      a.kw.erase(it);
      break;
    }
  if (!a.kw.empty()) fail(std::string(name) + "() got an unexpected keyword argument '" + a.kw[0].first + "'");
  std::vector<Value> items = a.pos.size() == 1 ? ev.iterate(a.pos[0]) : a.pos;
  if (items.empty()) fail(std::string(name) + "() of an empty sequence");
  size_t best = 0;
  Value best_key;
  for (size_t k = 0; k < items.size(); ++k) {
    Value kv = items[k];
    if (!key.is_none()) {
      CallArgs ka;
      ka.pos.push_back(items[k]);
      kv = ev.call_value(key, ka);
    }
    if (k == 0) {
      best_key = kv;
      continue;
    }
    int c = compare_for_sort(kv, best_key);
    if (is_max ? c > 0 : c < 0) {
      best = k;
      best_key = kv;
    }
  }
  return items[best];
}

Value sorted_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("sorted", a, {"iterable", "key", "reverse"}, 1);
  std::vector<Value> items = ev.iterate(b[0]);
  std::vector<Value> keys = items;
  if (b.has(1))
    for (auto& k : keys) {
      CallArgs ka;
      ka.pos.push_back(k);
      k = ev.call_value(b[1], ka);
    }
  std::vector<size_t> order(items.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  bool rev = b.has(2) && truthy(b[2]);
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    int c = compare_for_sort(keys[x], keys[y]);
    return rev ? c > 0 : c < 0;
  });
  std::vector<Value> out;
  for (size_t k : order) out.push_back(items[k]);
  return make_list(std::move(out));
}

Value int_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("int", a, {"x"}, 0);
  const Value& v = b[0];
  if (!b.given[0]) return Value::integer(0);
  switch (v.tag) {
    case Tag::Int: return v;
    case Tag::Bool: return Value::integer(v.b);
    case Tag::Float:
      if (!std::isfinite(v.f)) fail("cannot convert " + float_repr(v.f) + " to int");
      return Value::integer(static_cast<int64_t>(v.f));
    case Tag::Str: {
      const std::string& s = v.as<StrObj>()->s;
      try {
        size_t used = 0;
        long long r = std::stoll(s, &used, 10);
        std::string rest = s.substr(used);
        if (rest.find_first_not_of(" \t\n") == std::string::npos) return Value::integer(r);
      } catch (...) {
      }
      fail("invalid literal for int(): " + repr(v));
    }
    case Tag::Tensor: {
      double d = v.t.item();
      return Value::integer(static_cast<int64_t>(d));
    }
    default: fail(std::string("int() argument must be a number, str or one-element tensor, not ") + type_name(v));
  }
}

Value float_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("float", a, {"x"}, 0);
  const Value& v = b[0];
  if (!b.given[0]) return Value::number(0.0);
  if (v.is_num()) return Value::number(v.as_double());
  if (v.tag == Tag::Tensor) return Value::number(v.t.item());
  if (v.tag == Tag::Str) {
    std::string s = v.as<StrObj>()->s;
    if (s == "inf" || s == "+inf") return Value::number(INFINITY);
    if (s == "-inf") return Value::number(-INFINITY);
    if (s == "nan") return Value::number(NAN);
    char* end = nullptr;
    double d = std::strtod(s.c_str(), &end);
    if (end != s.c_str() && std::string(end).find_first_not_of(" \t\n") == std::string::npos) return Value::number(d);
    fail("could not convert string to float: " + repr(v));
  }
  fail(std::string("float() argument must be a number, str or one-element tensor, not ") + type_name(v));
}

Value round_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("round", a, {"number", "ndigits"}, 1);
  double x = as_num(b[0], "round()");
  if (!b.has(1)) {
    if (b[0].tag == Tag::Int) return b[0];
    return Value::integer(static_cast<int64_t>(std::nearbyint(x)));
  }
  int64_t n = as_int(b[1], "round(): ndigits");
  double scale = std::pow(10.0, static_cast<double>(n));
  double r = std::nearbyint(x * scale) / scale;
  return b[0].tag == Tag::Int ? Value::integer(static_cast<int64_t>(r)) : Value::number(r);
}

// Factories: shape as a list or as varargs; dtype= and requires_grad= keywords.
struct FactoryOpts {
  std::optional<DType> dtype;
  bool requires_grad = false;
};
FactoryOpts take_factory_kw(CallArgs& a, const std::string& fname, std::initializer_list<const char*> extra = {}) {
  FactoryOpts o;
  std::vector<std::pair<std::string, Value>> rest;
  for (auto& [k, v] : a.kw) {
    if (k == "dtype") o.dtype = as_dtype(v, fname + "(): dtype");
    else if (k == "requires_grad") o.requires_grad = as_bool(v, fname + "(): requires_grad");
    else if (k == "device") {
      if (v.tag != Tag::Str || v.as<StrObj>()->s != "cpu") fail(fname + "(): only device='cpu' in this build");
    } else {
      bool ok = false;
      for (const char* e : extra) ok |= k == e;
      if (!ok) fail(fname + "() got an unexpected keyword argument '" + k + "'");
      rest.emplace_back(k, v);
    }
  }
  a.kw = std::move(rest);
  return o;
}

Value finish(Tensor t, const FactoryOpts& o, const std::string& fname) {
  if (o.requires_grad) {
    if (!is_floating(t.dtype()))
      fail(fname + "(): only floating tensors can require gradients, got " + dtype_name(t.dtype()));
    t.set_requires_grad(true);
  }
  return Value::tensor(std::move(t));
}

void install_function(Evaluator& ev, const std::string& name, Fn fn) {
  for (auto& [n, v] : ev.builtins)
    if (n == name) {
      v = make_native(name, std::move(fn));
      return;
    }
  ev.builtins.emplace_back(name, make_native(name, std::move(fn)));
}

std::shared_ptr<Module> math_module(Evaluator& ev) {
  auto m = std::make_shared<Module>();
  m->name = "math";
  m->set("pi", Value::number(M_PI));
  m->set("e", Value::number(M_E));
  m->set("inf", Value::number(INFINITY));
  m->set("nan", Value::number(NAN));
  auto unary = [&](const char* nm, double (*f)(double)) {
    std::string name = nm;
    m->set(name, make_native(name, [name, f](Evaluator&, CallArgs& a) {
             Bound b = bind(name, a, {"x"}, 1);
             return Value::number(f(as_num(b[0], name + "()")));
           }));
  };
  unary("sqrt", [](double x) { return std::sqrt(x); });
  unary("exp", [](double x) { return std::exp(x); });
  unary("log", [](double x) { return std::log(x); });
  unary("sin", [](double x) { return std::sin(x); });
  unary("cos", [](double x) { return std::cos(x); });
  unary("tan", [](double x) { return std::tan(x); });
  unary("tanh", [](double x) { return std::tanh(x); });
  unary("fabs", [](double x) { return std::fabs(x); });
  m->set("floor", make_native("floor", [](Evaluator&, CallArgs& a) {
           Bound b = bind("floor", a, {"x"}, 1);
           return Value::integer(static_cast<int64_t>(std::floor(as_num(b[0], "floor()"))));
         }));
  m->set("ceil", make_native("ceil", [](Evaluator&, CallArgs& a) {
           Bound b = bind("ceil", a, {"x"}, 1);
           return Value::integer(static_cast<int64_t>(std::ceil(as_num(b[0], "ceil()"))));
         }));
  m->set("isnan", make_native("isnan", [](Evaluator&, CallArgs& a) {
           Bound b = bind("isnan", a, {"x"}, 1);
           return Value::boolean(std::isnan(as_num(b[0], "isnan()")));
         }));
  m->set("isinf", make_native("isinf", [](Evaluator&, CallArgs& a) {
           Bound b = bind("isinf", a, {"x"}, 1);
           return Value::boolean(std::isinf(as_num(b[0], "isinf()")));
         }));
  (void)ev;
  return m;
}

}  // namespace

void install_builtins(Evaluator& ev) {
  install_op_functions();
  install_tensor_methods();
  // Every op of the table by its name (some names are Python builtins too: those
  // dispatch on their first argument below).
  for (auto& [name, fn] : op_functions()) install_function(ev, name, fn);
  for (auto [nm, dt] : std::initializer_list<std::pair<const char*, DType>>{
           {"f32", DType::f32}, {"f64", DType::f64}, {"f16", DType::f16}, {"bf16", DType::bf16},
           {"i64", DType::i64}, {"i32", DType::i32}, {"float32", DType::f32}, {"float64", DType::f64},
           {"int64", DType::i64}, {"int32", DType::i32}})
    ev.builtins.emplace_back(nm, Value::dtype(dt));

  install_function(ev, "print", [](Evaluator& ev, CallArgs& a) {
    std::string sep = " ", end = "\n";
    for (auto& [k, v] : a.kw) {
      if (k == "sep") sep = v.is_none() ? " " : str(v);
      else if (k == "end") end = v.is_none() ? "\n" : str(v);
      else if (k != "flush") fail("print() got an unexpected keyword argument '" + k + "'");
    }
    std::string out;
    for (size_t k = 0; k < a.pos.size(); ++k) {
      if (k) out += sep;
      out += str(a.pos[k]);
    }
    ev.output(out + end);
    return Value();
  });
  install_function(ev, "len", len_builtin);
  install_function(ev, "range", range_builtin);
  install_function(ev, "str", [](Evaluator&, CallArgs& a) {
    Bound b = bind("str", a, {"x"}, 0);
    return make_str(b.given[0] ? str(b[0]) : "");
  });
  install_function(ev, "repr", [](Evaluator&, CallArgs& a) {
    Bound b = bind("repr", a, {"x"}, 1);
    return make_str(repr(b[0]));
  });
  install_function(ev, "int", int_builtin);
  install_function(ev, "float", float_builtin);
  install_function(ev, "bool", [](Evaluator&, CallArgs& a) {
    Bound b = bind("bool", a, {"x"}, 0);
    return Value::boolean(b.given[0] && truthy(b[0]));
  });
  install_function(ev, "list", [](Evaluator& ev, CallArgs& a) {
    Bound b = bind("list", a, {"iterable"}, 0);
    return make_list(b.given[0] ? ev.iterate(b[0]) : std::vector<Value>{});
  });
  install_function(ev, "tuple", [](Evaluator& ev, CallArgs& a) {
    Bound b = bind("tuple", a, {"iterable"}, 0);
    return make_tuple(b.given[0] ? ev.iterate(b[0]) : std::vector<Value>{});
  });
  install_function(ev, "dict", [](Evaluator& ev, CallArgs& a) {
    auto d = std::make_shared<DictObj>();
    if (a.pos.size() > 1) fail("dict() takes at most 1 positional argument");
    if (!a.pos.empty()) {
      if (a.pos[0].tag == Tag::Dict) {
        *d = *a.pos[0].as<DictObj>();
      } else {
        for (auto& item : ev.iterate(a.pos[0])) {
          if ((item.tag != Tag::Tuple && item.tag != Tag::List) || item.as<ListObj>()->items.size() != 2)
            fail("dict() expects (key, value) pairs");
          d->set(item.as<ListObj>()->items[0], item.as<ListObj>()->items[1]);
        }
      }
    }
    for (auto& [k, v] : a.kw) d->set(make_str(k), v);
    return Value::object(Tag::Dict, d);
  });
  install_function(ev, "type", [](Evaluator&, CallArgs& a) {
    Bound b = bind("type", a, {"x"}, 1);
    return make_str(type_name(b[0]));
  });
  install_function(ev, "abs", [](Evaluator& ev, CallArgs& a) {
    if (a.pos.size() == 1 && a.pos[0].tag == Tag::Tensor) return op_functions()["abs"](ev, a);
    Bound b = bind("abs", a, {"x"}, 1);
    if (b[0].tag == Tag::Int) {
      if (b[0].i == INT64_MIN) fail("integer overflow in abs()");
      return Value::integer(b[0].i < 0 ? -b[0].i : b[0].i);
    }
    if (b[0].tag == Tag::Bool) return Value::integer(b[0].b);
    return Value::number(std::fabs(as_num(b[0], "abs()")));
  });
  install_function(ev, "max", [](Evaluator& ev, CallArgs& a) { return extremum_builtin(ev, a, true); });
  install_function(ev, "min", [](Evaluator& ev, CallArgs& a) { return extremum_builtin(ev, a, false); });
  install_function(ev, "sum", [](Evaluator& ev, CallArgs& a) {
    if (!a.pos.empty() && a.pos[0].tag == Tag::Tensor) return op_functions()["sum"](ev, a);
    Bound b = bind("sum", a, {"iterable", "start"}, 1);
    Value total = b.given[1] ? b[1] : Value::integer(0);
    for (auto& x : ev.iterate(b[0])) total = binary_op(lang::BinaryOp::Add, total, x);
    return total;
  });
  install_function(ev, "round", round_builtin);
  install_function(ev, "enumerate", [](Evaluator& ev, CallArgs& a) {
    Bound b = bind("enumerate", a, {"iterable", "start"}, 1);
    int64_t k = b.has(1) ? as_int(b[1], "enumerate(): start") : 0;
    std::vector<Value> out;
    for (auto& x : ev.iterate(b[0])) out.push_back(make_tuple({Value::integer(k++), x}));
    return make_list(std::move(out));
  });
  install_function(ev, "zip", [](Evaluator& ev, CallArgs& a) {
    if (!a.kw.empty()) fail("zip() takes no keyword arguments");
    std::vector<std::vector<Value>> seqs;
    size_t n = SIZE_MAX;
    for (auto& p : a.pos) {
      seqs.push_back(ev.iterate(p));
      n = std::min(n, seqs.back().size());
    }
    if (seqs.empty()) n = 0;
    std::vector<Value> out;
    for (size_t k = 0; k < n; ++k) {
      std::vector<Value> t;
      for (auto& s : seqs) t.push_back(s[k]);
      out.push_back(make_tuple(std::move(t)));
    }
    return make_list(std::move(out));
  });
  install_function(ev, "sorted", sorted_builtin);
  install_function(ev, "reversed", [](Evaluator& ev, CallArgs& a) {
    Bound b = bind("reversed", a, {"seq"}, 1);
    std::vector<Value> items = ev.iterate(b[0]);
    std::reverse(items.begin(), items.end());
    return make_list(std::move(items));
  });
  install_function(ev, "any", [](Evaluator& ev, CallArgs& a) {
    Bound b = bind("any", a, {"iterable"}, 1);
    for (auto& x : ev.iterate(b[0]))
      if (truthy(x)) return Value::boolean(true);
    return Value::boolean(false);
  });
  install_function(ev, "all", [](Evaluator& ev, CallArgs& a) {
    Bound b = bind("all", a, {"iterable"}, 1);
    for (auto& x : ev.iterate(b[0]))
      if (!truthy(x)) return Value::boolean(false);
    return Value::boolean(true);
  });
  install_function(ev, "assert", [](Evaluator&, CallArgs& a) {
    Bound b = bind("assert", a, {"cond", "msg"}, 1);
    if (!truthy(b[0])) fail("assertion failed" + (b.has(1) ? ": " + str(b[1]) : std::string()));
    return Value();
  });
  install_function(ev, "isinstance", [](Evaluator&, CallArgs& a) {
    Bound b = bind("isinstance", a, {"obj", "type"}, 2);
    if (b[1].tag == Tag::ModelClass)
      return Value::boolean(b[0].tag == Tag::Instance && b[0].as<InstanceObj>()->cls.get() == b[1].as<ModelClassObj>());
    if (b[1].tag == Tag::Str) return Value::boolean(type_name(b[0]) == b[1].as<StrObj>()->s);
    if (b[1].tag == Tag::Native) {
      const std::string& n = b[1].as<NativeObj>()->name;
      return Value::boolean(n == type_name(b[0]) || (n == "tensor" && b[0].tag == Tag::Tensor));
    }
    fail(std::string("isinstance(): expected a model, a builtin type or a type name, got ") + type_name(b[1]));
  });

  // Tensor factories.
  install_function(ev, "tensor", [](Evaluator&, CallArgs& a) {
    FactoryOpts o = take_factory_kw(a, "tensor");
    if (a.pos.size() != 1) fail("tensor() takes 1 positional argument (the data) but " + std::to_string(a.pos.size()) + " were given");
    return finish(tensor_from_value(a.pos[0], o.dtype), o, "tensor");
  });
  for (const char* nm : {"zeros", "ones", "empty", "rand", "randn"}) {
    std::string name = nm;
    install_function(ev, name, [name](Evaluator&, CallArgs& a) {
      FactoryOpts o = take_factory_kw(a, name);
      Shape shape(shape_args(a.pos, 0, name));
      for (int64_t s : shape)
        if (s < 0) fail(name + "(): negative size " + std::to_string(s));
      DType dt = o.dtype.value_or(DType::f32);
      Tensor t = name == "zeros" ? zeros(shape, dt)
                 : name == "ones" ? ones(shape, dt)
                 : name == "empty" ? zeros(shape, dt)
                 : name == "rand" ? rand(shape, dt)
                                  : randn(shape, dt);
      return finish(t, o, name);
    });
  }
  for (const char* nm : {"zeros_like", "ones_like", "rand_like", "randn_like"}) {
    std::string name = nm;
    install_function(ev, name, [name](Evaluator&, CallArgs& a) {
      FactoryOpts o = take_factory_kw(a, name);
      if (a.pos.size() != 1) fail(name + "() takes 1 positional argument");
      const Tensor& x = as_tensor(a.pos[0], name);
      DType dt = o.dtype.value_or(x.dtype());
      Tensor t = name == "zeros_like" ? zeros(x.sizes(), dt)
                 : name == "ones_like" ? ones(x.sizes(), dt)
                 : name == "rand_like" ? rand(x.sizes(), dt)
                                       : randn(x.sizes(), dt);
      return finish(t, o, name);
    });
  }
  install_function(ev, "full", [](Evaluator&, CallArgs& a) {
    FactoryOpts o = take_factory_kw(a, "full", {"fill_value", "size"});
    Bound b = bind("full", a, {"size", "fill_value"}, 2);
    DType dt = o.dtype.value_or(b[1].tag == Tag::Float ? DType::f32 : b[1].tag == Tag::Bool ? DType::b8 : DType::i64);
    return finish(full(Shape(as_ints(b[0], "full(): size")), as_num(b[1], "full(): fill_value"), dt), o, "full");
  });
  install_function(ev, "randint", [](Evaluator&, CallArgs& a) {
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
    return finish(randint(low, high, Shape(shape), o.dtype.value_or(DType::i64)), o, "randint");
  });
  install_function(ev, "arange", [](Evaluator&, CallArgs& a) {
    FactoryOpts o = take_factory_kw(a, "arange");
    Bound b = bind("arange", a, {"start", "end", "step"}, 1);
    Value start = b.has(1) ? b[0] : Value::integer(0);
    Value end = b.has(1) ? b[1] : b[0];
    Value step = b.has(2) ? b[2] : Value::integer(1);
    bool floating = start.tag == Tag::Float || end.tag == Tag::Float || step.tag == Tag::Float;
    double s = as_num(start, "arange()"), e = as_num(end, "arange()"), st = as_num(step, "arange()");
    if (st == 0) fail("arange(): step must not be zero");
    int64_t n = static_cast<int64_t>(std::ceil((e - s) / st));
    std::vector<double> v;
    for (int64_t k = 0; k < n; ++k) v.push_back(s + static_cast<double>(k) * st);
    DType dt = o.dtype.value_or(floating ? DType::f32 : DType::i64);
    return finish(tensor_from(v, {static_cast<int64_t>(v.size())}, dt), o, "arange");
  });
  install_function(ev, "linspace", [](Evaluator&, CallArgs& a) {
    FactoryOpts o = take_factory_kw(a, "linspace");
    Bound b = bind("linspace", a, {"start", "end", "steps"}, 3);
    double s = as_num(b[0], "linspace()"), e = as_num(b[1], "linspace()");
    int64_t n = as_int(b[2], "linspace(): steps");
    std::vector<double> v;
    for (int64_t k = 0; k < n; ++k) v.push_back(n == 1 ? s : s + (e - s) * static_cast<double>(k) / static_cast<double>(n - 1));
    return finish(tensor_from(v, {n}, o.dtype.value_or(DType::f32)), o, "linspace");
  });
  install_function(ev, "manual_seed", [](Evaluator&, CallArgs& a) {
    Bound b = bind("manual_seed", a, {"seed"}, 1);
    manual_seed(static_cast<uint64_t>(as_int(b[0], "manual_seed()")));
    return Value();
  });
  install_function(ev, "is_grad_enabled", [](Evaluator&, CallArgs& a) {
    bind("is_grad_enabled", a, {}, 0);
    return Value::boolean(grad_enabled());
  });
  install_function(ev, "grad", [](Evaluator&, CallArgs& a) {
    Bound b = bind("grad", a, {"outputs", "inputs", "grad_outputs", "create_graph", "retain_graph", "allow_unused"}, 2);
    auto tensors = [](const Value& v, const std::string& what, bool* single) {
      TensorList out;
      *single = v.tag == Tag::Tensor;
      if (v.tag == Tag::Tensor) out.push_back(v.t);
      else if (v.tag == Tag::List || v.tag == Tag::Tuple)
        for (auto& x : v.as<ListObj>()->items) {
          if (x.tag == Tag::None) {
            out.push_back(Tensor());
            continue;
          }
          out.push_back(as_tensor(x, "grad(): " + what));
        }
      else fail("grad(): " + what + " must be a tensor or a list of tensors, got " + type_name(v));
      return out;
    };
    bool s0, s1, s2;
    TensorList outs = tensors(b[0], "outputs", &s0);
    TensorList ins = tensors(b[1], "inputs", &s1);
    TensorList gos;
    if (b.has(2)) gos = tensors(b[2], "grad_outputs", &s2);
    bool create = b.has(3) && as_bool(b[3], "grad(): create_graph");
    std::optional<bool> retain;
    if (b.has(4)) retain = as_bool(b[4], "grad(): retain_graph");
    bool allow_unused = b.has(5) && as_bool(b[5], "grad(): allow_unused");
    TensorList g = grad(outs, ins, gos, retain, create, allow_unused);
    if (s1) return tensor_value(g[0]);
    std::vector<Value> items;
    for (auto& t : g) items.push_back(tensor_value(t));
    return make_list(std::move(items));
  });
  install_function(ev, "gradcheck", gradcheck_builtin);
  install_function(ev, "expect", expect_builtin);
  install_function(ev, "expect_close", expect_close_builtin);
  install_function(ev, "expect_error", expect_error_builtin);

  ev.native_modules["math"] = math_module;
}

}  // namespace nabla::interp
