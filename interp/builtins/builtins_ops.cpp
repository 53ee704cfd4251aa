// Every op of the table by name: the generic call of a row (tensor inputs, then
// attributes by position or name) and the functions that add Python/PyTorch
// argument conventions to a row (view, max, split, gather, ...). Tensor methods
// and attributes are builtins_tensor.cpp's.
#include <optional>

#include "autograd/ops.hpp"
#include "interp/builtins/builtins_internal.hpp"

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
      if (v.tag == Tag::Int && pair_attr(spec.name)) return std::vector<int64_t>{v.i, v.i};
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

namespace {

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

}  // namespace

// Functions that add semantics to a row (or compose rows); the rest go to call_row.
std::unordered_map<std::string, Fn>& op_functions() {
  static std::unordered_map<std::string, Fn> table;
  return table;
}

namespace {

Value row_call(const char* name, CallArgs& a) { return call_row(*find_op(name), a, name); }

}  // namespace

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
  // Rows whose second output (a mask) only their backward reads: the function
  // returns the first, as PyTorch's do.
  for (const char* nm : {"dropout", "fake_quantize_per_tensor", "fake_quantize_per_channel"}) {
    t[nm] = [nm](Evaluator&, CallArgs& a) {
      Value r = row_call(nm, a);
      return r.as<ListObj>()->items[0];
    };
  }
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

}  // namespace nabla::interp
