// Registration of the language's builtins (install_builtins): every op of the table
// by name, dtypes, Python builtins, tensor factories, grad, gradcheck and the test
// builtins. This is the one place that names them; their bodies live in the
// builtins_*.cpp files by concept (see builtins_internal.hpp).
#include <cstdio>
#include <iostream>
#include <algorithm>
#include <cmath>
#include <optional>

#include "autograd/engine.hpp"
#include "autograd/grad_mode.hpp"
#include "autograd/ops.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "tensor/cuda/cuda_runtime.hpp"
#include "tensor/random.hpp"

namespace nabla::interp {

namespace {

// Factories: shape as a list or as varargs; dtype= and requires_grad= keywords.
struct FactoryOpts {
  std::optional<DType> dtype;
  std::optional<Device> device;
  bool requires_grad = false;
};
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
      if (!ok) fail(fname + "() got an unexpected keyword argument '" + k + "'");
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
  if (o.device && *o.device != t.device()) t = cuda::to_device(t, *o.device);
  if (o.requires_grad) {
    if (!is_floating(t.dtype()))
      fail(fname + "(): only floating tensors can require gradients, got " + dtype_name(t.dtype()));
    t.set_requires_grad(true);
  }
  return Value::tensor(std::move(t));
}

// A tensor, or a list or tuple of tensors (none entries stay undefined), as a TensorList.
TensorList tensor_list_arg(const Value& v, const std::string& what) {
  TensorList out;
  if (v.tag == Tag::Tensor) {
    out.push_back(v.t);
  } else if (v.tag == Tag::List || v.tag == Tag::Tuple) {
    for (auto& x : v.as<ListObj>()->items) out.push_back(x.tag == Tag::None ? Tensor() : as_tensor(x, what));
  } else {
    fail(what + " must be a tensor or a list of tensors, got " + type_name(v));
  }
  return out;
}

}  // namespace

// Adds (or replaces) the builtin `name`; every builtins_*.cpp registers through this.
void install_function(Evaluator& ev, const std::string& name, Fn fn) {
  for (auto& [n, v] : ev.builtins)
    if (n == name) {
      v = make_native(name, std::move(fn));
      return;
    }
  ev.builtins.emplace_back(name, make_native(name, std::move(fn)));
}


void install_builtins(Evaluator& ev) {
  install_op_functions();
  install_tensor_methods();
  install_optim_builtins(ev);
  install_memory_builtins(ev);
  install_model_builtins(ev);
  install_dist_builtins(ev);
  install_profile_builtins(ev);
  // Every op of the table by its name (some names are Python builtins too: those
  // dispatch on their first argument below).
  for (auto& [name, fn] : op_functions()) install_function(ev, name, fn);
  for (auto [nm, dt] : std::initializer_list<std::pair<const char*, DType>>{
           {"f32", DType::f32}, {"f64", DType::f64}, {"f16", DType::f16}, {"bf16", DType::bf16},
           {"i64", DType::i64}, {"i32", DType::i32}, {"float32", DType::f32}, {"float64", DType::f64},
           {"int64", DType::i64}, {"int32", DType::i32}, {"i8", DType::i8}, {"u8", DType::u8},
           {"int8", DType::i8}, {"uint8", DType::u8}})
    ev.builtins.emplace_back(nm, Value::dtype(dt));

  install_function(ev, "print", [](Evaluator& ev, CallArgs& a) {
    std::string sep = " ", end = "\n";
    bool flush = false;
    for (auto& [k, v] : a.kw) {
      if (k == "sep") sep = v.is_none() ? " " : str(v);
      else if (k == "end") end = v.is_none() ? "\n" : str(v);
      else if (k == "flush") flush = truthy(v);
      else fail("print() got an unexpected keyword argument '" + k + "'");
    }
    std::string out;
    for (size_t k = 0; k < a.pos.size(); ++k) {
      if (k) out += sep;
      out += str(a.pos[k]);
    }
    ev.output(out + end);
    if (flush) std::cout.flush(), std::fflush(stdout);  // print(..., flush=true): a reader of a pipe sees it now
    return Value();
  });
  install_function(ev, "len", len_builtin);
  install_function(ev, "ord", ord_builtin);
  install_function(ev, "chr", chr_builtin);
  install_function(ev, "read_text", read_text_builtin);
  install_function(ev, "range", range_builtin);
  // env(name, default=none): an environment variable (RANK, WORLD_SIZE, ...), or default.
  // In sandbox mode only the ranks' variables that nabla launch sets can be read (the
  // environment holds tokens, paths and user names): any other name is an error.
  install_function(ev, "env", [](Evaluator& ev, CallArgs& a) {
    Bound b = bind("env", a, {"name", "default"}, 1);
    if (b[0].tag != Tag::Str) fail(std::string("env(): name must be a str, got ") + type_name(b[0]));
    const std::string& name = b[0].as<StrObj>()->s;
    static const char* const kSandboxEnv[] = {"RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE"};
    if (ev.sandbox && std::none_of(std::begin(kSandboxEnv), std::end(kSandboxEnv), [&](const char* n) { return name == n; }))
      fail("env(" + repr(b[0]) + ") is not available in sandbox mode (only RANK, LOCAL_RANK, WORLD_SIZE and LOCAL_WORLD_SIZE are)");
    const char* value = std::getenv(name.c_str());
    if (value) return make_str(value);
    return b.has(1) ? b[1] : Value::none();
  });
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
          check_dict_key(item.as<ListObj>()->items[0]);
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
  install_function(ev, "divmod", divmod_builtin);
  install_function(ev, "pow", [tensor_pow = op_functions()["pow"]](Evaluator& ev, CallArgs& a) {
    return pow_builtin(ev, a, tensor_pow);
  });
  install_function(ev, "enumerate", [](Evaluator& ev, CallArgs& a) {
    Bound b = bind("enumerate", a, {"iterable", "start"}, 1);
    int64_t k = b.has(1) ? as_int(b[1], "enumerate(): start") : 0;
    std::vector<Value> out;
    std::vector<Value> items = ev.iterate(b[0]);
    for (size_t i = 0; i < items.size(); ++i) {
      if (i > 0 && __builtin_add_overflow(k, 1, &k)) fail("integer overflow in enumerate(): the index passed 2**63 - 1");
      out.push_back(make_tuple({Value::integer(k), std::move(items[i])}));
    }
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
  // getattr/setattr by name, as Python's; nn.Sequential names its layers "0", "1", ...
  // (PyTorch's state_dict keys) with setattr(self, "0", layer).
  install_function(ev, "getattr", [](Evaluator& ev, CallArgs& a) {
    Bound b = bind("getattr", a, {"obj", "name", "default"}, 2);
    if (b[1].tag != Tag::Str) fail(std::string("getattr(): name must be a str, got ") + type_name(b[1]));
    if (!b.given[2]) return ev.get_attr(b[0], b[1].as<StrObj>()->s);  // a default of none counts
    try {
      return ev.get_attr(b[0], b[1].as<StrObj>()->s);
    } catch (LangError& e) {
      if (e.interrupted) throw;
      return b[2];
    }
  });
  install_function(ev, "setattr", [](Evaluator& ev, CallArgs& a) {
    Bound b = bind("setattr", a, {"obj", "name", "value"}, 3);
    if (b[1].tag != Tag::Str) fail(std::string("setattr(): name must be a str, got ") + type_name(b[1]));
    ev.set_attr(b[0], b[1].as<StrObj>()->s, b[2]);
    return Value();
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
      Device device = factory_device(o);
      Tensor t = name == "zeros" ? zeros(shape, dt, device)
                 : name == "ones" ? ones(shape, dt, device)
                 : name == "empty" ? zeros(shape, dt, device)
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
      if (!o.device) o.device = x.device();  // *_like stays on x's device unless told
      Tensor t = name == "zeros_like" ? zeros(x.sizes(), dt, *o.device)
                 : name == "ones_like" ? ones(x.sizes(), dt, *o.device)
                 : name == "rand_like" ? rand(x.sizes(), dt)
                                       : randn(x.sizes(), dt);
      return finish(t, o, name);
    });
  }
  install_function(ev, "full", [](Evaluator&, CallArgs& a) {
    FactoryOpts o = take_factory_kw(a, "full", {"fill_value", "size"});
    Bound b = bind("full", a, {"size", "fill_value"}, 2);
    DType dt = o.dtype.value_or(b[1].tag == Tag::Float ? DType::f32 : b[1].tag == Tag::Bool ? DType::b8 : DType::i64);
    return finish(full(Shape(as_ints(b[0], "full(): size")), as_num(b[1], "full(): fill_value"), dt, factory_device(o)),
                  o, "full");
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
    int64_t n = std::max<int64_t>(0, int_from_double(std::ceil((e - s) / st), "arange(): the number of values"));
    // The tensor first, so that a huge count meets the allocator's checks (the memory
    // budget, out of memory) before any work.
    Tensor values = empty({n}, DType::f64);
    double* v = values.data<double>();
    for (int64_t k = 0; k < n; ++k) v[k] = s + static_cast<double>(k) * st;
    DType dt = o.dtype.value_or(floating ? DType::f32 : DType::i64);
    return finish(to_dtype(values, dt), o, "arange");
  });
  install_function(ev, "linspace", [](Evaluator&, CallArgs& a) {
    FactoryOpts o = take_factory_kw(a, "linspace");
    Bound b = bind("linspace", a, {"start", "end", "steps"}, 3);
    double s = as_num(b[0], "linspace()"), e = as_num(b[1], "linspace()");
    int64_t n = as_int(b[2], "linspace(): steps");
    if (n < 0) fail("linspace(): steps must be non-negative, got " + std::to_string(n));
    // The tensor first, as arange's: a huge count meets the allocator's checks at once.
    Tensor values = empty({n}, DType::f64);
    double* v = values.data<double>();
    for (int64_t k = 0; k < n; ++k) v[k] = n == 1 ? s : s + (e - s) * static_cast<double>(k) / static_cast<double>(n - 1);
    return finish(to_dtype(values, o.dtype.value_or(DType::f32)), o, "linspace");
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
    TensorList outs = tensor_list_arg(b[0], "grad(): outputs");
    TensorList ins = tensor_list_arg(b[1], "grad(): inputs");
    TensorList gos;
    if (b.has(2)) gos = tensor_list_arg(b[2], "grad(): grad_outputs");
    bool create = b.has(3) && as_bool(b[3], "grad(): create_graph");
    std::optional<bool> retain;
    if (b.has(4)) retain = as_bool(b[4], "grad(): retain_graph");
    bool allow_unused = b.has(5) && as_bool(b[5], "grad(): allow_unused");
    TensorList g = grad(outs, ins, gos, retain, create, allow_unused);
    if (b[1].tag == Tag::Tensor) return tensor_value(g[0]);
    std::vector<Value> items;
    for (auto& t : g) items.push_back(tensor_value(t));
    return make_list(std::move(items));
  });
  // backward(tensors, grad_tensors): torch.autograd.backward, one pass from several
  // roots (each with its own output gradient), accumulating into the leaves' .grad.
  install_function(ev, "backward", [](Evaluator&, CallArgs& a) {
    Bound b = bind("backward", a, {"tensors", "grad_tensors", "retain_graph", "create_graph"}, 1);
    TensorList roots = tensor_list_arg(b[0], "backward(): tensors");
    TensorList grads = b.has(1) ? tensor_list_arg(b[1], "backward(): grad_tensors") : TensorList(roots.size());
    if (grads.size() != roots.size())
      fail("backward(): " + std::to_string(roots.size()) + " tensors but " + std::to_string(grads.size()) +
           " grad_tensors");
    bool create = b.has(3) && as_bool(b[3], "backward(): create_graph");
    bool retain = b.has(2) ? as_bool(b[2], "backward(): retain_graph") : create;
    nabla::backward(roots, grads, retain, create);
    return Value();
  });
  install_function(ev, "gradcheck", gradcheck_builtin);
  install_function(ev, "gradgradcheck", gradgradcheck_builtin);
  install_function(ev, "expect", expect_builtin);
  install_function(ev, "expect_close", expect_close_builtin);
  install_function(ev, "expect_error", expect_error_builtin);
  install_checkpoint_builtins(ev);

  ev.native_modules["math"] = math_module;
  ev.native_modules["time"] = time_module;
  ev.native_modules["cuda"] = cuda_module;
  install_data_builtins(ev);
  install_graph_builtins(ev);
}

}  // namespace nabla::interp
