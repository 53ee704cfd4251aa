// Tensor attributes (shape, dtype, grad, ...) and methods (size, item, backward,
// in-place ops, hooks); any op of the table is a method too (tensor_method falls
// back to op_functions). The ops themselves are builtins_ops.cpp's.
#include "autograd/engine.hpp"
#include "autograd/grad_mode.hpp"
#include "autograd/node.hpp"
#include "autograd/ops.hpp"
#include "autograd/trace.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "tensor/cpu/copy.hpp"
#include "tensor/cuda/cuda_runtime.hpp"

namespace nabla::interp {

namespace {

std::unordered_map<std::string, Fn>& tensor_methods() {
  static std::unordered_map<std::string, Fn> table;
  return table;
}

const char* const kTensorAttrs[] = {"shape", "dtype", "ndim", "T", "grad", "requires_grad", "grad_fn",
                                    "is_leaf", "device", "is_cuda", "data"};

Tensor clone_tensor(const Tensor& x) {
  if (x.requires_grad() && grad_enabled()) {
    Value zero = is_floating(x.dtype()) ? Value::number(0.0) : Value::integer(0);
    return add(x, to_tensor_arg(zero, "clone"));
  }
  Tensor c = empty(x.sizes(), x.dtype(), x.device());
  copy_into(c, x);
  return c;
}

}  // namespace

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
    notify_value_read(x, "item()");
    if (is_floating(x.dtype())) return Value::number(x.item());
    if (x.dtype() == DType::b8) return Value::boolean(x.item_int() != 0);
    return Value::integer(x.item_int());
  };
  m["tolist"] = [=](Evaluator&, CallArgs& a) {
    const Tensor& x = self_only("tolist", a);
    notify_value_read(x, "tolist()");
    return tolist(x);
  };
  m["backward"] = [](Evaluator&, CallArgs& a) {
    Bound b = bind("backward", a, {"self", "gradient", "retain_graph", "create_graph"}, 1);
    Tensor g = b.has(1) ? input_of(b[1], "backward", "gradient") : Tensor();
    bool create = b.has(3) && as_bool(b[3], "backward(): create_graph");
    bool retain = b.has(2) ? as_bool(b[2], "backward(): retain_graph") : create;
    nabla::backward(b[0].t, g, retain, create);
    return Value();
  };
  m["detach"] = [=](Evaluator&, CallArgs& a) { return Value::tensor(detach(self_only("detach", a))); };
  m["clone"] = [=](Evaluator&, CallArgs& a) { return Value::tensor(clone_tensor(self_only("clone", a))); };
  // to(device), to(dtype), to(device, dtype), to(other_tensor), with device=, dtype=
  // and non_blocking= keywords, as in PyTorch. Moving is differentiable.
  m["to"] = [](Evaluator&, CallArgs& a) {
    Bound b = bind("to", a, {"self", "target", "dtype", "device", "non_blocking"}, 1);
    Tensor x = b[0].t;
    std::optional<Device> device;
    std::optional<DType> dtype;
    if (b.has(1)) {
      const Value& t = b[1];
      Device d;
      if (t.tag == Tag::Tensor) {
        device = t.t.device();
        dtype = t.t.dtype();
      } else if (t.tag == Tag::Str && parse_device(t.as<StrObj>()->s, &d)) {
        device = as_device(t, "to()");
      } else if (t.tag == Tag::Str) {
        DType parsed;
        if (!dtype_from_name(t.as<StrObj>()->s, &parsed))
          fail("to(): unknown device or dtype '" + t.as<StrObj>()->s + "' (devices: \"cpu\", \"cuda\", \"cuda:N\")");
        dtype = parsed;
      } else {
        dtype = as_dtype(t, "to()");
      }
    }
    if (b.has(2)) dtype = as_dtype(b[2], "to(): dtype");
    if (b.has(3)) device = as_device(b[3], "to(): device");
    bool non_blocking = b.has(4) && as_bool(b[4], "to(): non_blocking");
    if (device) x = to_device(x, *device, non_blocking);
    if (dtype) x = to_dtype(x, *dtype);
    return Value::tensor(x);
  };
  m["cuda"] = [](Evaluator&, CallArgs& a) {
    Bound b = bind("cuda", a, {"self", "device", "non_blocking"}, 1);
    Device d = cuda_device(0);
    if (b.has(1)) d = b[1].tag == Tag::Int ? cuda_device(static_cast<int>(as_int(b[1], "cuda(): device")))
                                          : as_device(b[1], "cuda(): device");
    if (d.kind != DeviceKind::cuda) fail("cuda(): expected a cuda device, got " + d.str());
    cuda::check_device(d.index);
    return Value::tensor(to_device(b[0].t, d, b.has(2) && as_bool(b[2], "cuda(): non_blocking")));
  };
  // Page-locked host memory: uploads from it can overlap compute (to(..., non_blocking=true)).
  m["pin_memory"] = [=](Evaluator&, CallArgs& a) {
    const Tensor& x = self_only("pin_memory", a);
    if (x.device().kind != DeviceKind::cpu) fail("pin_memory(): only CPU tensors can be pinned, this one is on " +
                                                 x.device().str());
    if (x.storage()->pinned) return a.pos[0];
    if (cuda::device_count() == 0) fail("pin_memory(): pinned memory needs a GPU, and this machine has none");
    Tensor p = empty_pinned(x.sizes(), x.dtype());
    copy_into(p, x);
    return Value::tensor(p);
  };
  m["is_pinned"] = [=](Evaluator&, CallArgs& a) {
    return Value::boolean(self_only("is_pinned", a).storage()->pinned);
  };
  for (auto [nm, dt] : std::initializer_list<std::pair<const char*, DType>>{
           {"float", DType::f32}, {"double", DType::f64}, {"half", DType::f16}, {"bfloat16", DType::bf16},
           {"long", DType::i64}, {"int", DType::i32}, {"bool", DType::b8},
           {"char", DType::i8}, {"byte", DType::u8}}) {
    std::string name = nm;
    DType d = dt;
    m[name] = [=](Evaluator&, CallArgs& a) { return Value::tensor(to_dtype(self_only(name, a), d)); };
  }
  m["cpu"] = [=](Evaluator&, CallArgs& a) { return Value::tensor(to_device(self_only("cpu", a), cpu_device())); };
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
  if (name == "is_cuda") return Value::boolean(x.device().kind == DeviceKind::cuda);
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

}  // namespace nabla::interp
