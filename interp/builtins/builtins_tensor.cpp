// Tensor attributes (shape, dtype, grad, ...) and methods (size, item, backward,
// in-place ops, hooks), the methods one table (Note [Builtin tables]); any op of the
// table is a method too (tensor_method falls back to op_functions). The ops
// themselves are builtins_ops.cpp's.
#include "autograd/engine.hpp"
#include "autograd/grad_mode.hpp"
#include "autograd/node.hpp"
#include "autograd/ops.hpp"
#include "autograd/trace.hpp"
#include "autograd/transforms/levels.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "interp/builtins/composites/composites.hpp"
#include "interp/eval/script/script_mode.hpp"
#include "tensor/cpu/copy.hpp"
#include "tensor/cuda/cuda_runtime.hpp"

namespace nabla::interp {

// An op when autograd, a jvp, a vmap or a graph capture must see the copy (Note
// [Transform levels]; a raw copy inside compile() was a constant of the capture's run).
Tensor clone_tensor(const Tensor& x) {
  if ((x.requires_grad() && grad_enabled()) || transforms::any_level_visible() || op_observer()) {
    Value zero = is_floating(x.dtype()) ? Value::number(0.0) : Value::integer(0);
    Tensor c = add(x, to_tensor_arg(zero, "clone"));
    return c.dtype() == x.dtype() ? c : to_dtype(c, x.dtype());  // bool + 0 is an integer
  }
  Tensor c = empty(x.sizes(), x.dtype(), x.device());
  copy_into(c, x);
  return c;
}

namespace {

const char* const kTensorAttrs[] = {"shape", "dtype", "ndim", "T", "mT", "H", "mH", "nbytes", "grad", "requires_grad",
                                    "grad_fn", "is_leaf", "retains_grad", "device", "is_cuda", "is_cpu", "data"};

// The receiver of a method that takes no arguments (it is a.pos[0], as for the ops).
const Tensor& self_only(const std::string& name, CallArgs& a) {
  if (a.pos.size() != 1 || !a.kw.empty()) fail(name + "() takes no arguments");
  return a.pos[0].t;
}

Value dim_method(Evaluator&, CallArgs& a) { return Value::integer(self_only("dim", a).dim()); }
Value numel_method(Evaluator&, CallArgs& a) { return Value::integer(self_only("numel", a).numel()); }
Value is_contiguous_method(Evaluator&, CallArgs& a) {
  return Value::boolean(self_only("is_contiguous", a).is_contiguous());
}

Value size_method(Evaluator&, CallArgs& a) {
  Bound b = bind("size", a, {"self", "dim"}, 1);
  const Tensor& x = b[0].t;
  if (b.has(1)) return Value::integer(x.size(wrap_dim(as_int(b[1], "size(): dim"), x.dim(), "size")));
  std::vector<Value> items;
  for (int64_t s : x.sizes()) items.push_back(Value::integer(s));
  return make_tuple(std::move(items));
}

Value item_method(Evaluator& ev, CallArgs& a) {
  const Tensor& x = self_only("item", a);
  if (Tensor n = condition_number(ev, x, "item()"); n.defined()) return Value::tensor(n);  // if t.item() > 0
  notify_value_read(x, "item()");
  if (is_floating(x.dtype())) return Value::number(x.item());
  if (x.dtype() == DType::b8) return Value::boolean(x.item_int() != 0);
  return Value::integer(x.item_int());
}

Value tolist_method(Evaluator&, CallArgs& a) {
  const Tensor& x = self_only("tolist", a);
  notify_value_read(x, "tolist()");
  return tolist(x);
}

Value backward_method(Evaluator&, CallArgs& a) {
  Bound b = bind("backward", a, {"self", "gradient", "retain_graph", "create_graph"}, 1);
  Tensor g = b.has(1) ? input_of(b[1], "backward", "gradient") : Tensor();
  bool create = b.has(3) && as_bool(b[3], "backward(): create_graph");
  bool retain = b.has(2) ? as_bool(b[2], "backward(): retain_graph") : create;
  notify_untraced_effect("backward() writes the leaves' .grad");
  nabla::backward(b[0].t, g, retain, create);
  return Value();
}

Value detach_method(Evaluator&, CallArgs& a) { return Value::tensor(detach_op(self_only("detach", a))); }

// x.detach_(): x itself leaves the autograd graph, as PyTorch's (it was the generic
// in-place form, copy_ of x.detach() into x, which kept x in the graph behind a
// CopyBackward: the ops that made x got zero gradients where PyTorch's give none).
// Under a capture the stop is recorded too (a detach written into x), for the regions
// whose gradient replays their ops (Note [Detach in a graph]).
Value detach_in_place_method(Evaluator&, CallArgs& a) {
  Tensor x = self_only("detach_", a);
  if (x.requires_grad() && x.impl()->is_view)
    fail("detach_(): this tensor is a view of another, which cannot leave the graph in place (as in PyTorch): "
         "use x = x.detach()");
  if (op_observer() && x.requires_grad() && !x.is_leaf()) copy_(x, detach_op(x));
  AutogradMeta& meta = x.impl()->autograd_meta();
  meta.requires_grad = false;
  meta.grad_fn = nullptr;
  meta.output_nr = 0;
  return Value::tensor(x);
}
// x.clone(memory_format=torch.preserve_format): memory_format_arg reads the keyword.
Value clone_method(Evaluator&, CallArgs& a) {
  Bound b = bind("clone", a, {"input", "memory_format"}, 1);
  memory_format_arg(b, 1, "clone");
  return Value::tensor(clone_tensor(b[0].t));
}

// The device or dtype (or both) that to()'s `target` names: a tensor gives both.
void read_to_target(const Value& t, std::optional<Device>& device, std::optional<DType>& dtype) {
  Device d;
  if (t.tag == Tag::Tensor) {
    device = t.t.device();
    dtype = t.t.dtype();
  } else if (t.tag == Tag::Str && parse_device(t.as<StrObj>()->s, &d)) {
    device = as_device(t, "to()");
  } else if (t.tag == Tag::Str) {
    DType parsed;
    if (!dtype_from_user_name(t.as<StrObj>()->s, &parsed))
      fail("to(): unknown device or dtype '" + t.as<StrObj>()->s + "' (devices: \"cpu\", \"cuda\", \"cuda:N\")");
    dtype = parsed;
  } else {
    dtype = as_dtype(t, "to()");
  }
}

// to(device), to(dtype), to(device, dtype), to(other_tensor), with device=, dtype=
// and non_blocking= keywords, as in PyTorch. Moving is differentiable.
Value to_method(Evaluator&, CallArgs& a) {
  Bound b = bind("to", a, {"self", "target", "dtype", "device", "non_blocking"}, 1);
  Tensor x = b[0].t;
  std::optional<Device> device;
  std::optional<DType> dtype;
  if (b.has(1)) read_to_target(b[1], device, dtype);
  // Given twice (x.to(f64, f32), x.to(f64, dtype=i64)): the second won, silently;
  // PyTorch has no such signature and refuses it.
  if (b.has(2) && dtype) fail("to(): the dtype is given twice, by the first argument and as dtype");
  if (b.has(2)) dtype = as_dtype(b[2], "to(): dtype");
  if (b.has(3) && device) fail("to(): the device is given twice, by the first argument and as device");
  if (b.has(3)) device = as_device(b[3], "to(): device");
  bool non_blocking = b.has(4) && as_bool(b[4], "to(): non_blocking");
  if (device) x = to_device(x, *device, non_blocking);
  if (dtype) x = to_dtype(x, *dtype);
  return Value::tensor(x);
}

Value cuda_method(Evaluator&, CallArgs& a) {
  Bound b = bind("cuda", a, {"self", "device", "non_blocking"}, 1);
  Device d = cuda_device(0);
  if (b.has(1)) d = b[1].tag == Tag::Int ? cuda_device(static_cast<int>(as_int(b[1], "cuda(): device")))
                                        : as_device(b[1], "cuda(): device");
  if (d.kind != DeviceKind::cuda) fail("cuda(): expected a cuda device, got " + d.str());
  cuda::check_device(d.index);
  return Value::tensor(to_device(b[0].t, d, b.has(2) && as_bool(b[2], "cuda(): non_blocking")));
}

Value cpu_method(Evaluator&, CallArgs& a) { return Value::tensor(to_device(self_only("cpu", a), cpu_device())); }

// Page-locked host memory: uploads from it can overlap compute (to(..., non_blocking=true)).
Value pin_memory_method(Evaluator&, CallArgs& a) {
  const Tensor& x = self_only("pin_memory", a);
  if (x.device().kind != DeviceKind::cpu)
    fail("pin_memory(): only CPU tensors can be pinned, this one is on " + x.device().str());
  if (x.storage()->pinned) return a.pos[0];
  if (cuda::device_count() == 0) fail("pin_memory(): pinned memory needs a GPU, and this machine has none");
  Tensor p = empty_pinned(x.sizes(), x.dtype());
  copy_into(p, x);
  return Value::tensor(p);
}

Value is_pinned_method(Evaluator&, CallArgs& a) { return Value::boolean(self_only("is_pinned", a).storage()->pinned); }

// PyTorch's name of the method that converts to `dtype`: x.float(), x.long(), ...
const char* conversion_method_name(DType dtype) {
  switch (dtype) {
    case DType::f32: return "float";
    case DType::f64: return "double";
    case DType::f16: return "half";
    case DType::bf16: return "bfloat16";
    case DType::i64: return "long";
    case DType::i32: return "int";
    case DType::b8: return "bool";
    case DType::i8: return "char";
    case DType::u8: return "byte";
    case DType::i16: return "short";
    default: return "to";
  }
}

template <DType dtype>
Value convert_method(Evaluator&, CallArgs& a) {
  return Value::tensor(to_dtype(self_only(conversion_method_name(dtype), a), dtype));
}

Value t_method(Evaluator&, CallArgs& a) {
  const Tensor& x = self_only("t", a);
  if (x.dim() != 2) fail("t() expects a 2-D tensor, got shape " + x.shape_str());
  return Value::tensor(transpose(x, 0, 1));
}

// Note [t_ rewrites the tensor's layout]
// x.t_() transposes x itself (PyTorch's in-place Tensor.t_): the transpose is made as a
// view (with its history when autograd tracks x) and its sizes, strides and autograd
// state become x's, so every name bound to x sees the new layout; views taken of x
// before keep theirs, as PyTorch's. A leaf that requires grad is refused outside
// no_grad, as copy_ refuses it; under a transform or a graph capture, which see ops and
// not layouts, x.t() is the way. The other in-place view ops (unsqueeze_, squeeze_,
// transpose_, swapdims_, swapaxes_: tensor_method below) take their view's layout the same way.
static void take_layout(Tensor x, const Tensor& v, const std::string& name) {
  if (x.impl()->batched || x.impl()->lifted || transforms::any_level_visible() || op_observer())
    fail(name + "() cannot rewrite a tensor's layout inside vmap, grad, jvp or a graph capture; use x = x." +
         name.substr(0, name.size() - 1) + "(...)");
  const bool tracked = x.requires_grad() && grad_enabled();
  if (tracked && x.is_leaf())
    fail(name + "(): a leaf tensor that requires grad cannot be modified in place (wrap the update in no_grad)");
  TensorImpl* impl = x.impl();
  impl->sizes = v.sizes();
  impl->strides = v.strides();
  impl->offset = v.impl()->offset;
  impl->refresh_layout();
  if (tracked) impl->autograd = std::move(v.impl()->autograd);
}

Value t_in_place_method(Evaluator&, CallArgs& a) {
  Tensor x = self_only("t_", a);
  if (x.dim() > 2) fail("t_() expects a tensor of at most 2 dims, got shape " + x.shape_str() + " (use transpose_ of a view: x = x.transpose(d0, d1))");
  if (x.dim() < 2) return a.pos[0];
  take_layout(x, transpose(x, 0, 1), "t_");
  return a.pos[0];
}

Value zero_method(Evaluator&, CallArgs& a) {
  Tensor x = self_only("zero_", a);
  zero_(x);
  return a.pos[0];
}

Value fill_method(Evaluator&, CallArgs& a) {
  Bound b = bind("fill_", a, {"self", "value"}, 2);
  Tensor x = b[0].t;
  check_fits_dtype(b[1], x.dtype(), "fill_(): argument 'value'");  // Note [A number into a dtype]
  copy_(x, to_tensor_arg(b[1], "fill_"));
  return b[0];
}

// add_, sub_, mul_, div_ and copy_: `op` in place on self with other.
using InPlaceOp = Tensor& (*)(Tensor&, const Tensor&);
Value in_place(const char* name, InPlaceOp op, CallArgs& a) {
  Bound b = bind(name, a, {"self", "other"}, 2);
  Tensor x = b[0].t;
  op(x, to_tensor_arg(b[1], name));
  return b[0];
}
// add_ and sub_ take PyTorch's alpha: other * alpha (a wrapped number, so other's dtype).
Value in_place_alpha(const char* name, InPlaceOp op, CallArgs& a) {
  Bound b = bind(name, a, {"self", "other", "alpha"}, 2);
  Tensor x = b[0].t;
  Tensor other = to_tensor_arg(b[1], name);
  if (b.has(2)) check_alpha_kind(x, b[1], b[2], name);
  op(x, b.has(2) ? mul(other, to_tensor_arg(b[2], name)) : other);
  return b[0];
}
Value add_method(Evaluator&, CallArgs& a) { return in_place_alpha("add_", add_, a); }
Value sub_method(Evaluator&, CallArgs& a) { return in_place_alpha("sub_", sub_, a); }
Value mul_method(Evaluator&, CallArgs& a) { return in_place("mul_", mul_, a); }
// div_(other, rounding_mode=...): div's result copied into self, as PyTorch's.
Value div_method(Evaluator& ev, CallArgs& a) {
  if (!a.find_kw("rounding_mode")) return in_place("div_", div_, a);
  Value self = a.pos.at(0);
  Value result = op_functions().at("div")(ev, a);
  Tensor x = self.t;
  copy_(x, result.t);
  return self;
}
Value copy_method(Evaluator&, CallArgs& a) { return in_place("copy_", copy_, a); }

Value requires_grad_method(Evaluator&, CallArgs& a) {
  Bound b = bind("requires_grad_", a, {"self", "requires_grad"}, 1);
  Tensor x = b[0].t;
  bool v = b.has(1) ? as_bool(b[1], "requires_grad_()") : true;
  if (v && !is_floating(x.dtype()))
    fail(std::string("requires_grad_(): only floating tensors can require gradients, got ") + dtype_name(x.dtype()));
  if (!x.is_leaf() && !v) fail("requires_grad_(false) on a non-leaf tensor: use detach()");
  if (x.requires_grad() != v) notify_flag_change(x, "requires_grad_()");  // Note [Flags changed inside a lowered region]
  x.set_requires_grad(v);
  return b[0];
}

Value retain_grad_method(Evaluator&, CallArgs& a) {
  retain_grad(self_only("retain_grad", a));
  return Value();
}

Value register_hook_method(Evaluator& ev, CallArgs& a) {
  Bound b = bind("register_hook", a, {"self", "hook"}, 2);
  Value fn = b[1];
  // Checked here: a hook that cannot be called failed only in a later backward(), at
  // that line ("'int' object is not callable"), far from the register_hook that erred.
  if (!is_callable_value(fn)) fail(std::string("register_hook(): hook must be a function of the gradient, got ") + type_name(fn));
  note_gradient_hook(ev.script);  // Note [Gradient hooks inside a lowered region]
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
}

// The methods that are not ops (every op is a method too: tensor_method falls back to
// op_functions). Each takes the tensor as a.pos[0], so that its errors count
// arguments as the op functions' do.
const BuiltinEntry kTensorMethods[] = {
    {"dim", dim_method, "dim()", "The number of dimensions, as .ndim. Example: randn(2, 3).dim()"},
    {"numel", numel_method, "numel()", "The number of elements. Example: randn(2, 3).numel()"},
    {"is_contiguous", is_contiguous_method, "is_contiguous()",
     "Whether the elements lie in row-major order with no gaps. Example: randn(2, 3).T.is_contiguous()"},
    {"size", size_method, "size(dim=none)",
     "The shape as a tuple, or the size of one dim. Example: randn(2, 3).size(0)"},
    {"item", item_method, "item()",
     "The value of a one-element tensor as a number or bool. Example: randn(3).sum().item()"},
    {"tolist", tolist_method, "tolist()",
     "The elements as nested lists of numbers. Example: arange(4).view(2, 2).tolist()"},
    {"backward", backward_method, "backward(gradient=none, retain_graph=create_graph, create_graph=false)",
     "Accumulates the gradient of this tensor into the .grad of the leaves it came from. Example: let w = randn(3, "
     "requires_grad=true); (w * w).sum().backward(); print(w.grad)"},
    {"detach", detach_method, "detach()",
     "The same values without autograd history (shares storage). Example: randn(3, requires_grad=true).detach()"},
    {"detach_", detach_in_place_method, "detach_()",
     "Takes this tensor out of the autograd graph in place (not a view's); returns it. Example: (randn(3, "
     "requires_grad=true) * 2).detach_()"},
    {"clone", clone_method, "clone(memory_format=\"preserve_format\")",
     "A copy with its own storage; differentiable. Example: let y = randn(3).clone()"},
    {"to", to_method, "to(target=none, dtype=none, device=none, non_blocking=false)",
     "This tensor on another device or in another dtype (a tensor target gives both). Example: randn(3).to(\"cpu\", "
     "f16)"},
    {"cuda", cuda_method, "cuda(device=0, non_blocking=false)", "This tensor on a GPU. Example: randn(3).cuda()"},
    {"cpu", cpu_method, "cpu()", "This tensor on the CPU. Example: randn(3).cpu()"},
    {"pin_memory", pin_memory_method, "pin_memory()",
     "A copy in page-locked host memory, so that uploads can overlap compute. Example: randn(3).pin_memory()"},
    {"is_pinned", is_pinned_method, "is_pinned()",
     "Whether this tensor is in page-locked host memory. Example: randn(3).is_pinned()"},
    {"float", convert_method<DType::f32>, "float()", "This tensor as f32. Example: arange(3).float()"},
    {"double", convert_method<DType::f64>, "double()", "This tensor as f64. Example: randn(3).double()"},
    {"half", convert_method<DType::f16>, "half()", "This tensor as f16. Example: randn(3).half()"},
    {"bfloat16", convert_method<DType::bf16>, "bfloat16()", "This tensor as bf16. Example: randn(3).bfloat16()"},
    {"long", convert_method<DType::i64>, "long()", "This tensor as i64. Example: tensor([1.0, 2.0]).long()"},
    {"int", convert_method<DType::i32>, "int()", "This tensor as i32. Example: tensor([1.7, -2.2]).int()"},
    {"bool", convert_method<DType::b8>, "bool()", "This tensor as bool. Example: arange(3).bool()"},
    {"char", convert_method<DType::i8>, "char()", "This tensor as i8. Example: tensor([1, -2]).char()"},
    {"byte", convert_method<DType::u8>, "byte()", "This tensor as u8. Example: tensor([1, 255]).byte()"},
    {"short", convert_method<DType::i16>, "short()", "This tensor as i16. Example: tensor([1000, -2]).short()"},
    {"t", t_method, "t()", "The transpose of a 2-D tensor. Example: randn(2, 3).t()"},
    {"t_", t_in_place_method, "t_()",
     "Transposes this tensor of at most 2 dims in place (Note [t_ rewrites the tensor's layout]); returns it. "
     "Example: let x = randn(2, 3); x.t_()"},
    {"zero_", zero_method, "zero_()",
     "Sets every element to 0 in place; returns this tensor. Example: let w = randn(3, requires_grad=true); "
     "w.sum().backward(); w.grad.zero_()"},
    {"fill_", fill_method, "fill_(value)",
     "Sets every element to value in place; returns this tensor. Example: zeros(3).fill_(1.0)"},
    {"add_", add_method, "add_(other, alpha=1)", "Adds other (times alpha) in place; returns this tensor. Example: zeros(3).add_(ones(3))"},
    {"sub_", sub_method, "sub_(other, alpha=1)",
     "Subtracts other (times alpha) in place; returns this tensor. Example: ones(3).sub_(0.1 * ones(3))"},
    {"mul_", mul_method, "mul_(other)",
     "Multiplies by other in place; returns this tensor. Example: ones(3).mul_(0.9)"},
    {"div_", div_method, "div_(other, rounding_mode=none)", "Divides by other in place (rounding_mode as div's); returns this tensor. Example: ones(3).div_(2)"},
    {"copy_", copy_method, "copy_(other)",
     "Copies other's values in place; returns this tensor. Example: zeros(3).copy_(randn(3))"},
    {"requires_grad_", requires_grad_method, "requires_grad_(requires_grad=true)",
     "Sets whether autograd records operations on this leaf; returns this tensor. Example: randn(3).requires_grad_()"},
    {"retain_grad", retain_grad_method, "retain_grad()",
     "Keeps the .grad of this non-leaf tensor after backward. Example: let h = randn(3, requires_grad=true) * 2; "
     "h.retain_grad(); h.sum().backward(); print(h.grad)"},
    {"register_hook", register_hook_method, "register_hook(hook)",
     "Calls hook(grad) when this tensor's gradient is computed; a returned tensor replaces it. Returns a handle with "
     "remove(). Example: let x = randn(3, requires_grad=true); x.register_hook(fn(g) = g * 2); x.sum().backward()"},
};

// The index of the method table, built once: tensor methods are called in hot loops.
const std::unordered_map<std::string_view, const BuiltinEntry*>& tensor_method_index() {
  static const auto index = [] {
    std::unordered_map<std::string_view, const BuiltinEntry*> m;
    for (const BuiltinEntry& e : tensor_methods()) m.emplace(e.name, &e);
    return m;
  }();
  return index;
}

const BuiltinEntry* find_tensor_method(const std::string& name) {
  auto it = tensor_method_index().find(name);
  return it == tensor_method_index().end() ? nullptr : it->second;
}

}  // namespace

// The methods above, then the composites PyTorch has only as methods, and the methods
// whose arguments differ from the global function's (composites.hpp).
std::span<const BuiltinEntry> tensor_methods() {
  static const std::vector<BuiltinEntry> all = [] {
    std::vector<BuiltinEntry> out(std::begin(kTensorMethods), std::end(kTensorMethods));
    for (const BuiltinEntry& e : composite_methods()) out.push_back(e);
    for (const BuiltinEntry& e : composite_method_forms()) out.push_back(e);
    return out;
  }();
  return all;
}

namespace {
// The function whose in-place form `name` is (clamp_ -> clamp), or null: a name ending
// in '_' whose stem is a function (tensor_method writes its result into the tensor).
const Fn* in_place_base(const std::string& name) {
  if (name.size() < 2 || name.back() != '_') return nullptr;
  auto it = op_functions().find(name.substr(0, name.size() - 1));
  return it == op_functions().end() ? nullptr : &it->second;
}
}  // namespace

Value tensor_attr(Evaluator& ev, const Value& self, const std::string& name, bool* found) {
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
  if (name == "mT") {  // the last two dims swapped, for a batch of matrices
    if (x.dim() < 2) fail(".mT expects a tensor with at least 2 dims, got shape " + x.shape_str());
    return Value::tensor(transpose(x, -2, -1));
  }
  // .H and .mH: the conjugate transposes, which for nabla's real tensors are .T of a
  // matrix and .mT (PyTorch's .H is for matrices only, as its message says)
  if (name == "H") {
    if (x.dim() != 2) fail(".H expects a 2-D tensor (a matrix), got shape " + x.shape_str() + " (use .mH for a batch)");
    return Value::tensor(transpose(x, 0, 1));
  }
  if (name == "mH") {
    if (x.dim() < 2) fail(".mH expects a tensor with at least 2 dims, got shape " + x.shape_str());
    return Value::tensor(transpose(x, -2, -1));
  }
  if (name == "nbytes") return Value::integer(x.numel() * static_cast<int64_t>(dtype_size(x.dtype())));
  if (name == "grad") return tensor_value(x.grad());
  if (name == "requires_grad") return Value::boolean(x.requires_grad());
  if (name == "grad_fn") {
    const auto& fn = x.grad_fn();
    return fn ? make_str(fn->name()) : Value();
  }
  if (name == "is_leaf") return Value::boolean(x.is_leaf());
  if (name == "retains_grad") return Value::boolean(x.impl()->autograd && x.impl()->autograd->retains_grad);
  if (name == "device") return make_str(x.device().str());
  if (name == "is_cuda") return Value::boolean(x.device().kind == DeviceKind::cuda);
  if (name == "is_cpu") return Value::boolean(x.device().kind != DeviceKind::cuda);
  if (name == "data") return Value::tensor(detach_op(x));
  *found = false;
  if (find_tensor_method(name) || op_functions().count(name) || in_place_base(name)) return Value();
  fail("tensor has no attribute '" + name + "'" + ev.attribute_hint(self, name));
}

Value tensor_method(Evaluator& ev, const Value& self, const std::string& name, CallArgs& args) {
  if (const BuiltinEntry* m = find_tensor_method(name)) {
    args.pos.insert(args.pos.begin(), self);
    return m->function(ev, args);
  }
  auto op = op_functions().find(name);
  if (op != op_functions().end()) {
    args.pos.insert(args.pos.begin(), self);
    return op->second(ev, args);
  }
  // x.op_(...) for any function op without an in-place row of its own (clamp_,
  // masked_fill_, exp_, ...): op's result written into x by copy_, as PyTorch's in-place
  // variants (autograd's in-place rules: a leaf that requires grad is refused). When x
  // is in a graph, op reads a clone: its backward may need x as it was, which the write
  // then changes.
  if (const Fn* base = in_place_base(name)) {
    const std::string stem = name.substr(0, name.size() - 1);
    if (stem == "unsqueeze" || stem == "squeeze" || stem == "transpose" || stem == "swapdims" || stem == "swapaxes") {
      args.pos.insert(args.pos.begin(), self);  // the view of x itself (Note [t_ rewrites the tensor's layout])
      Value view = (*base)(ev, args);
      if (view.tag == Tag::Tensor) take_layout(self.t, view.t, name);
      return self;
    }
    args.pos.insert(args.pos.begin(), self.t.requires_grad() ? Value::tensor(clone_tensor(self.t)) : self);
    Value out = (*base)(ev, args);
    if (out.tag != Tag::Tensor) fail(name + "(): " + stem + " does not return one tensor, so it has no in-place form");
    Tensor x = self.t;
    if (out.t.sizes() != x.sizes())
      fail(name + "(): the result of " + stem + " has shape " + out.t.shape_str() + ", not this tensor's " + x.shape_str());
    // A result of a higher category (exp_ of an int, clamp_(0.5, 1.5) of an int) was
    // truncated into x without a word; PyTorch refuses it (canCast).
    if (!can_cast(out.t.dtype(), x.dtype()))
      fail(name + "(): the result's dtype " + dtype_name(out.t.dtype()) + " cannot be written into a tensor of dtype " +
           dtype_name(x.dtype()) + " in place (it would be truncated; PyTorch refuses it too): use " + stem +
           "(), or convert the tensor first (.to(" + dtype_name(out.t.dtype()) + "))");
    copy_(x, out.t);
    return self;
  }
  bool found = false;
  Value v = tensor_attr(ev, self, name, &found);
  if (found) return ev.call_value(v, args);
  fail("tensor has no attribute '" + name + "'" + ev.attribute_hint(self, name));
}

std::vector<std::string> tensor_member_names() {
  std::vector<std::string> out;
  for (const char* a : kTensorAttrs) out.push_back(a);
  for (const BuiltinEntry& m : tensor_methods()) out.push_back(m.name);
  for (auto& [n, f] : op_functions()) out.push_back(n);
  return out;
}

}  // namespace nabla::interp
