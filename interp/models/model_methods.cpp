// The builtin methods of every model, one table (Note [Builtin tables] in
// interp/builtins/builtin_table.hpp) that get_attr, calls, completion and :help read:
// parameters and buffers, modules and children, apply, zero_grad, train/eval, to,
// state_dict and load_state_dict, register_buffer and the module hooks. Every one
// that reaches into submodules goes through the module walk (Note [Module walk] in
// interp/models/module_walk.hpp), so each module and each tensor is visited once.
#include <unordered_map>
#include <unordered_set>

#include "autograd/grad_mode.hpp"
#include "autograd/ops.hpp"
#include "autograd/trace.hpp"
#include "interp/builtins/builtin_table.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "interp/eval/capture_reads.hpp"
#include "interp/eval/evaluator.hpp"
#include "interp/eval/evaluator_impl.hpp"
#include "interp/models/field_assign.hpp"
#include "interp/models/module_walk.hpp"
#include "interp/values/object_regions.hpp"
#include "tensor/cuda/cuda_runtime.hpp"

namespace nabla::interp {

namespace {

using HookList = std::vector<std::pair<int64_t, Value>>;

HookList& hook_list(InstanceObj& inst, const std::string& method) {
  if (method == "register_forward_pre_hook") return inst.forward_pre_hooks;
  if (method == "register_forward_hook") return inst.forward_hooks;
  if (method == "register_backward_hook") return inst.backward_hooks;
  return inst.full_backward_hooks;
}

Value make_hook_handle(const Value& self, const std::string& method, int64_t id) {
  auto obj = std::make_shared<ObjectObj>();
  obj->type_name = "hook handle";
  std::weak_ptr<Obj> weak = self.o;
  obj->methods["remove"] = [weak, method, id](Evaluator&, CallArgs&) {
    if (auto o = weak.lock()) {
      auto& hooks = hook_list(*static_cast<InstanceObj*>(o.get()), method);
      std::erase_if(hooks, [id](const auto& h) { return h.first == id; });
    }
    return Value();
  };
  return Value::object(Tag::Object, obj);
}

// train(mode) / eval(): the `training` flag of every module under v, each once.
void set_training(const Value& v, bool mode) {
  for (const ModuleVisit& visit : walk_modules(v)) {
    auto* inst = visit.module.as<InstanceObj>();
    Field* f = inst->find("training");
    // Note [Objects changed inside a lowered region]: train()/eval() on a side of a
    // lowered if changed the mode once, at capture, whichever side a call took.
    if (!f || truthy(f->value) != mode)
      check_change_in_region(*inst, std::string("switch to ") + (mode ? "train" : "eval") + " mode a " +
                                        inst->cls->decl->name);
    if (f) f->value = Value::boolean(mode);
    else inst->fields.push_back({"training", Value::boolean(mode), FieldKind::attribute});
  }
}

void no_args(const CallArgs& args, const std::string& name) {
  if (!args.pos.empty() || !args.kw.empty()) fail(name + "() takes no arguments");
}

// m.to(dtype): every floating parameter and buffer converted in place (integer
// buffers such as counters stay), as PyTorch's Module.to(dtype). Returns m.
Value retype_model(const Value& self, DType dtype) {
  if (!is_floating(dtype)) fail(std::string("to(): a model converts to a floating dtype, got ") + dtype_name(dtype));
  for (const ModuleVisit& visit : walk_modules(self))  // model.double() inside compile(): it would convert once
    check_change_in_compiled(*visit.module.as<InstanceObj>(), std::string("convert to ") + dtype_name(dtype) +
                                                                  " the parameters and buffers of a " +
                                                                  visit.module.as<InstanceObj>()->cls->decl->name);
  for (auto& [n, t] : named_tensors(self, TensorKinds::both, false)) {
    if (!is_floating(t.dtype()) || t.dtype() == dtype) continue;
    if (!op_observer()) {
      retype(t, dtype);
      continue;
    }
    // Under compile() (a layer made inside the compiled function, nn.Linear(..., dtype=f64)):
    // the capture records the conversion as an op and the tensor as its result; it read the
    // tensor as its old dtype otherwise, and the graph failed to verify.
    Tensor converted;
    {
      NoGradGuard no_grad;
      converted = to_dtype(t, dtype);
    }
    retype(t, dtype);
    notify_inplace(t, converted, std::string("to(") + dtype_name(dtype) + ")");
  }
  return self;
}

// m.to(device), m.cuda(), m.cpu(): every parameter and buffer moves in place (PyTorch's
// Module.to), so an optimizer made before the move still holds them. Returns m.
Value move_model(const Value& self, const std::string& name, CallArgs& args) {
  if (name == "to" && args.pos.size() == 1 && args.kw.empty() && args.pos[0].tag == Tag::DType)
    return retype_model(self, args.pos[0].dt);
  Device device = cpu_device();
  if (name == "cuda") device = cuda_device(0);
  if (args.pos.size() > 1 || !args.kw.empty()) fail(name + "() takes one argument, the device");
  if (!args.pos.empty()) {
    const Value& d = args.pos[0];
    device = d.tag == Tag::Int && name == "cuda" ? cuda_device(static_cast<int>(d.i)) : as_device(d, name + "()");
  } else if (name == "to") {
    fail("to() takes one argument, a device (\"cpu\", \"cuda\" or \"cuda:N\") or a floating dtype");
  }
  if (device.kind == DeviceKind::cuda) cuda::check_device(device.index);
  for (auto& [n, t] : named_tensors(self, TensorKinds::both, false)) relocate(t, device);
  return self;
}

// m.children() / m.named_children(): the models held directly in fields, in field
// order, each once as in PyTorch (a layer held in two fields is listed under the
// first); remove_duplicate=false lists every field (nn.Sequential([l, l]) runs l twice).
Value children(const Value& self, const std::string& name, CallArgs& args) {
  if (!args.pos.empty()) fail(name + "() takes no positional arguments");
  bool remove_duplicate = true;
  for (auto& [k, v] : args.kw) {
    if (k == "remove_duplicate") remove_duplicate = as_bool(v, name + "(): remove_duplicate");
    else fail_unexpected_keyword(name, k, {"remove_duplicate"});
  }
  bool named = name == "named_children";
  std::unordered_set<const Obj*> seen;
  std::vector<Value> items;
  for (const Field& f : self.as<InstanceObj>()->fields) {
    if (f.value.tag != Tag::Instance) continue;
    if (remove_duplicate && !seen.insert(f.value.o.get()).second) continue;
    items.push_back(named ? make_tuple({make_str(f.name), f.value}) : f.value);
  }
  return make_list(std::move(items));
}

// Calls fn on every module under root, each once, children before their parent and
// in field order (PyTorch's Module.apply), over the tree of first paths.
template <class Fn>
void apply_post_order(const Value& root, Fn fn) {
  std::vector<ModuleVisit> visits = walk_modules(root);
  std::vector<std::vector<size_t>> kids(visits.size());
  for (size_t k = 1; k < visits.size(); ++k) kids[visits[k].parent].push_back(k);
  std::vector<std::pair<size_t, size_t>> stack;  // (visit, next child)
  if (!visits.empty()) stack.emplace_back(0, 0);
  while (!stack.empty()) {
    auto& [v, next] = stack.back();
    if (next < kids[v].size()) {
      size_t child = kids[v][next++];
      stack.emplace_back(child, 0);
      continue;
    }
    Value m = visits[v].module;
    stack.pop_back();
    fn(m);
  }
}

// The keys a load did not match, as PyTorch's load_state_dict returns them.
struct KeyMismatch {
  std::vector<std::string> missing, unexpected;
};

// load_state_dict(d, strict=true): copies every tensor of d into the parameter or
// buffer of the same name, under no-grad. With strict, missing keys, unexpected keys
// and shape mismatches are all reported in one error; without it only shapes are,
// and the missing and unexpected keys are returned.
// A key may name a tensor by any path to it (resolve_key): the names state_dict()
// gives, or another path of a shared module or tied weight (PyTorch's state_dict
// lists every path); a tensor is missing when no key reaches it.
KeyMismatch load_state(const Value& self, DictObj& d, bool strict) {
  KeyMismatch keys;
  std::vector<std::string> problems;
  std::vector<std::pair<Tensor, Tensor>> copies;
  AddressSet reached;
  auto take = [&](const std::string& n, const Tensor& dst, const Value& src) {
    reached.insert(dst.impl());
    if (src.tag != Tag::Tensor) {
      problems.push_back("'" + n + "' is " + type_name(src) + ", not a tensor");
    } else if (src.t.sizes() != dst.sizes()) {
      problems.push_back("shape mismatch for '" + n + "': the dict has " + src.t.shape_str() + ", the model " +
                         dst.shape_str());
    } else {
      copies.emplace_back(dst, src.t);
    }
  };
  auto own = named_tensors(self, TensorKinds::state);
  std::unordered_map<std::string, Tensor> by_name(own.begin(), own.end());
  // a non-persistent buffer is not part of the state, under any of its names
  std::unordered_set<const void*> transient;
  for (auto& [n, t] : named_tensors(self, TensorKinds::buffers, false)) transient.insert(t.impl());
  for (auto& [n, t] : own) transient.erase(t.impl());
  for (auto& [k, x] : d.entries) {
    if (k.tag == Tag::Str) {
      const std::string& key = k.as<StrObj>()->s;
      if (auto it = by_name.find(key); it != by_name.end()) {
        take(key, it->second, x);
        continue;
      }
      if (const Tensor* alias = resolve_key(self, key); alias && !transient.contains(alias->impl())) {
        take(key, *alias, x);
        continue;
      }
    }
    keys.unexpected.push_back(k.tag == Tag::Str ? k.as<StrObj>()->s : repr(k));
    if (strict) problems.push_back("unexpected key " + repr(k));
  }
  for (auto& [n, t] : own)
    if (!reached.contains(t.impl())) {
      keys.missing.push_back(n);
      if (strict) problems.push_back("missing key '" + n + "'");
    }
  if (!problems.empty()) {
    std::string msg = "load_state_dict() into " + self.as<InstanceObj>()->cls->decl->name + ": " +
                      std::to_string(problems.size()) + (problems.size() == 1 ? " problem" : " problems");
    for (auto& p : problems) msg += "\n  " + p;
    fail(msg);
  }
  NoGradGuard ng;
  for (auto& [dst, src] : copies) copy_(dst, src);
  return keys;
}

// PyTorch's _IncompatibleKeys: .missing_keys and .unexpected_keys (lists of str), shown
// as PyTorch shows them.
Value incompatible_keys(const KeyMismatch& keys) {
  auto strs = [](const std::vector<std::string>& v) {
    std::vector<Value> out;
    for (const std::string& k : v) out.push_back(make_str(k));
    return make_list(std::move(out));
  };
  auto o = std::make_shared<ObjectObj>();
  o->type_name = "_IncompatibleKeys";
  o->set("missing_keys", strs(keys.missing));
  o->set("unexpected_keys", strs(keys.unexpected));
  ObjectObj* raw = o.get();
  o->describe = [raw] {
    if (raw->find("missing_keys")->as<ListObj>()->items.empty() &&
        raw->find("unexpected_keys")->as<ListObj>()->items.empty())
      return std::string("<All keys matched successfully>");
    return "_IncompatibleKeys(missing_keys=" + repr(*raw->find("missing_keys")) +
           ", unexpected_keys=" + repr(*raw->find("unexpected_keys")) + ")";
  };
  return Value::object(Tag::Object, o);
}

// ---- the methods -------------------------------------------------------------------------

// parameters(), named_parameters(), buffers(), named_buffers(): each tensor once;
// recurse=false, the model's own only (no submodule's), as PyTorch's.
Value tensor_list(const Value& self, const std::string& name, TensorKinds kinds, bool named, const CallArgs& args) {
  bool recurse = true;
  if (!args.pos.empty()) fail(name + "() takes no positional arguments");
  for (auto& [k, v] : args.kw) {
    if (k != "recurse") fail_unexpected_keyword(name, k, {"recurse"});
    recurse = as_bool(v, name + "(): recurse");
  }
  std::vector<Value> items;
  for (auto& [n, t] : named_tensors(self, kinds, named || !recurse)) {
    if (!recurse && n.find('.') != std::string::npos) continue;
    items.push_back(named ? make_tuple({make_str(n), Value::tensor(t)}) : Value::tensor(t));
  }
  return make_list(std::move(items));
}
Value parameters(Evaluator&, const Value& self, CallArgs& args) {
  return tensor_list(self, "parameters", TensorKinds::parameters, false, args);
}
Value named_parameters(Evaluator&, const Value& self, CallArgs& args) {
  return tensor_list(self, "named_parameters", TensorKinds::parameters, true, args);
}
Value buffers(Evaluator&, const Value& self, CallArgs& args) {
  return tensor_list(self, "buffers", TensorKinds::buffers, false, args);
}
Value named_buffers(Evaluator&, const Value& self, CallArgs& args) {
  return tensor_list(self, "named_buffers", TensorKinds::buffers, true, args);
}

// modules() / named_modules(): every module under self, each once, self first.
Value module_list(const Value& self, const std::string& name, const CallArgs& args) {
  no_args(args, name);
  std::vector<Value> items;
  std::vector<ModuleVisit> visits = walk_modules(self);
  for (size_t k = 0; k < visits.size(); ++k)
    items.push_back(name == "modules" ? visits[k].module : make_tuple({make_str(path_of(visits, k)), visits[k].module}));
  return make_list(std::move(items));
}
Value modules(Evaluator&, const Value& self, CallArgs& args) { return module_list(self, "modules", args); }
Value named_modules(Evaluator&, const Value& self, CallArgs& args) { return module_list(self, "named_modules", args); }

Value children_of(Evaluator&, const Value& self, CallArgs& args) { return children(self, "children", args); }
Value named_children(Evaluator&, const Value& self, CallArgs& args) { return children(self, "named_children", args); }

Value apply_to_modules(Evaluator& ev, const Value& self, CallArgs& args) {
  if (args.pos.size() != 1 || !args.kw.empty()) fail("apply() takes one argument, the function to call on each module");
  apply_post_order(self, [&](const Value& m) {
    CallArgs a;
    a.pos = {m};
    ev.call_value(args.pos[0], a);
  });
  return self;
}

// zero_grad(set_to_none=true): PyTorch's set_to_none=false (1.13's default) zeroes
// each existing .grad in place instead, and leaves a missing one missing.
Value zero_grad(Evaluator&, const Value& self, CallArgs& args) {
  const Value* flag = args.find_kw("set_to_none");
  if (args.pos.size() + args.kw.size() > 1 || (!args.kw.empty() && !flag))
    fail("zero_grad() takes one argument, set_to_none");
  if (!flag && !args.pos.empty()) flag = &args.pos[0];
  if (flag && flag->tag != Tag::Bool)
    fail(std::string("zero_grad(): argument 'set_to_none' must be a bool, got ") + type_name(*flag));
  const bool to_none = !flag || flag->b;
  notify_untraced_effect("zero_grad() clears the parameters' .grad");
  for (auto& [n, t] : named_tensors(self, TensorKinds::parameters, false))
    t.set_grad(to_none || !t.grad().defined() ? Tensor() : zeros_like(t.grad()));
  return Value();
}

// train(mode=true) and eval(): as PyTorch's, they return the model.
// A mode that is not a bool is an error, as PyTorch's ("training mode is expected to be
// boolean"): train("eval") would otherwise be train(true).
Value set_train_mode(Evaluator&, const Value& self, CallArgs& args) {
  if (args.pos.size() + args.kw.size() > 1) fail("train() takes one argument, mode");
  bool mode = true;
  if (!args.pos.empty()) mode = as_bool(args.pos[0], "train(): mode");
  for (auto& [k, v] : args.kw) {
    if (k != "mode") fail_unexpected_keyword("train", k, {"mode"});
    mode = as_bool(v, "train(): mode");
  }
  set_training(self, mode);
  return self;
}
Value set_eval_mode(Evaluator&, const Value& self, CallArgs& args) {
  no_args(args, "eval");
  set_training(self, false);
  return self;
}

Value move_to(Evaluator&, const Value& self, CallArgs& args) { return move_model(self, "to", args); }
// half(), float(), double(), bfloat16(): to(dtype) by PyTorch's names.
template <DType kDType>
Value retype_to(Evaluator&, const Value& self, CallArgs& args) {
  no_args(args, dtype_name(kDType));
  return retype_model(self, kDType);
}

// requires_grad_(requires_grad=true): every parameter's flag, in place (freezing a
// model, or a part of it, for fine-tuning); returns the model.
Value requires_grad_of_parameters(Evaluator&, const Value& self, CallArgs& args) {
  if (args.pos.size() + args.kw.size() > 1) fail("requires_grad_() takes one argument, requires_grad");
  bool flag = true;
  if (!args.pos.empty()) flag = as_bool(args.pos[0], "requires_grad_(): requires_grad");
  for (auto& [k, v] : args.kw) {
    if (k != "requires_grad") fail_unexpected_keyword("requires_grad_", k, {"requires_grad"});
    flag = as_bool(v, "requires_grad_(): requires_grad");
  }
  for (auto& [n, t] : named_tensors(self, TensorKinds::parameters, false)) t.set_requires_grad(flag);
  return self;
}

// get_submodule("encoder.layers.0"): the module at a dotted path of fields.
Value get_submodule(Evaluator& ev, const Value& self, CallArgs& args) {
  if (args.pos.size() != 1 || !args.kw.empty() || args.pos[0].tag != Tag::Str)
    fail("get_submodule() takes one argument, a dotted path of fields");
  const std::string& path = args.pos[0].as<StrObj>()->s;
  Value at = self;
  size_t start = 0;
  while (!path.empty() && start <= path.size()) {
    size_t dot = path.find('.', start);
    std::string name = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    const Field* f = at.tag == Tag::Instance ? at.as<InstanceObj>()->find(name) : nullptr;
    if (!f || f->value.tag != Tag::Instance)
      fail("get_submodule(): " + std::string(type_name(at)) + " has no submodule '" + name + "' (path '" + path + "')" +
           (at.tag == Tag::Instance ? ev.attribute_hint(at, name) : ""));
    at = f->value;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return at;
}

// A name a member is registered under by add_module() or register_buffer(): state_dict
// keys join names with '.', so "" and "a.b" made keys that name something else (PyTorch
// refuses both: "module name can't contain \".\"").
void check_member_name(const char* fname, const std::string& name) {
  if (name.empty()) fail(std::string(fname) + "(): the name must not be empty");
  if (name.find('.') != std::string::npos)
    fail(std::string(fname) + "(): the name '" + name + "' must not contain '.' (state_dict keys join names with it)");
}

// add_module(name, module): the module as field `name` (register_module), as PyTorch's.
Value add_module(Evaluator& ev, const Value& self, CallArgs& args) {
  if (args.pos.size() != 2 || !args.kw.empty() || args.pos[0].tag != Tag::Str)
    fail("add_module() takes two arguments, a name and a module");
  check_member_name("add_module", args.pos[0].as<StrObj>()->s);
  if (args.pos[1].tag != Tag::Instance && !args.pos[1].is_none())
    fail(std::string("add_module(): the module must be a model instance, got ") + type_name(args.pos[1]));
  ev.set_attr(self, args.pos[0].as<StrObj>()->s, args.pos[1]);
  return Value();
}
Value move_to_cuda(Evaluator&, const Value& self, CallArgs& args) { return move_model(self, "cuda", args); }
Value move_to_cpu(Evaluator&, const Value& self, CallArgs& args) { return move_model(self, "cpu", args); }

Value state_dict(Evaluator&, const Value& self, CallArgs& args) {
  no_args(args, "state_dict");
  auto d = std::make_shared<DictObj>();
  for (auto& [n, t] : named_tensors(self, TensorKinds::state)) d->set(make_str(n), Value::tensor(detach(t)));
  return Value::object(Tag::Dict, d);
}

// strict is a bool, given by name or second as in PyTorch; strict="no" was truthy, so
// strict, the opposite of what it said.
Value load_state_dict(Evaluator&, const Value& self, CallArgs& args) {
  if (args.pos.empty() || args.pos.size() > 2)
    fail("load_state_dict() takes the state dict and strict=true, got " + std::to_string(args.pos.size()) +
         " positional arguments");
  bool strict = args.pos.size() < 2 || as_bool(args.pos[1], "load_state_dict(): strict");
  for (auto& [k, v] : args.kw) {
    if (k != "strict") fail_unexpected_keyword("load_state_dict", k, {"strict"});
    if (args.pos.size() == 2) fail("load_state_dict(): strict given twice (second and by name)");
    strict = as_bool(v, "load_state_dict(): strict");
  }
  const Value& dv = args.pos[0];
  if (dv.tag != Tag::Dict) fail(std::string("load_state_dict() needs a dict, got ") + type_name(dv));
  return incompatible_keys(load_state(self, *dv.as<DictObj>(), strict));
}

// register_buffer(name, tensor, persistent=true): a buffer as the `buffer` member makes
// one (kept by state_dict unless persistent=false, moved by to(), never a parameter);
// replaces a field of that name.
Value register_buffer(Evaluator&, const Value& self, CallArgs& args) {
  bool persistent = true;
  for (auto& [k, v] : args.kw) {
    if (k != "persistent") fail_unexpected_keyword("register_buffer", k, {"persistent"});
    persistent = as_bool(v, "register_buffer(): persistent");
  }
  if (args.pos.size() == 3 && args.kw.empty()) persistent = as_bool(args.pos[2], "register_buffer(): persistent");
  else if (args.pos.size() != 2)
    fail("register_buffer() takes the name, the tensor and persistent=true, got " + std::to_string(args.pos.size()) +
         " positional arguments");
  if (args.pos[0].tag != Tag::Str)
    fail(std::string("register_buffer(): name must be a str, got ") + type_name(args.pos[0]));
  const std::string& name = args.pos[0].as<StrObj>()->s;
  check_member_name("register_buffer", name);
  // As PyTorch's "attribute already exists": a buffer in place of a parameter or a
  // submodule took it out of parameters() and the optimizer, silently.
  auto* inst = self.as<InstanceObj>();
  if (const Field* f = inst->find(name); f && (f->kind == FieldKind::parameter || f->kind == FieldKind::submodule))
    fail("register_buffer(): " + inst->cls->decl->name + " already has a " +
         (f->kind == FieldKind::parameter ? "parameter" : "submodule") + " named '" + name +
         "' (a buffer cannot take its place; choose another name)");
  Evaluator::Impl::set_field(*inst, name, args.pos[1], true);
  inst->find(name)->persistent = persistent;
  return Value();
}

// The four register_*_hook methods: `method` names the list the hook joins.
Value register_module_hook(const Value& self, const std::string& method, CallArgs& args) {
  if (args.pos.size() != 1 || !args.kw.empty()) fail(method + "() takes one argument, the hook function");
  // Checked here, as a tensor's register_hook is: one that cannot be called failed only
  // at the next forward or backward, far from the line that registered it.
  if (!is_callable_value(args.pos[0])) fail(method + "(): hook must be a function, got " + type_name(args.pos[0]));
  auto* inst = self.as<InstanceObj>();
  int64_t id = inst->next_hook_id++;
  hook_list(*inst, method).emplace_back(id, args.pos[0]);
  return make_hook_handle(self, method, id);
}
Value register_forward_pre_hook(Evaluator&, const Value& self, CallArgs& args) {
  return register_module_hook(self, "register_forward_pre_hook", args);
}
Value register_forward_hook(Evaluator&, const Value& self, CallArgs& args) {
  return register_module_hook(self, "register_forward_hook", args);
}
Value register_backward_hook(Evaluator&, const Value& self, CallArgs& args) {
  return register_module_hook(self, "register_backward_hook", args);
}
Value register_full_backward_hook(Evaluator&, const Value& self, CallArgs& args) {
  return register_module_hook(self, "register_full_backward_hook", args);
}

const MethodEntry kModelMethods[] = {
    {"parameters", parameters, "parameters(recurse=true)",
     "Every parameter of this model and its submodules, each once. Example: optim.Adam(nn.Linear(4, 2).parameters(), "
     "lr=1e-3)"},
    {"named_parameters", named_parameters, "named_parameters()",
     "Every parameter as a (dotted name, tensor) pair. Example: for (n, p) in nn.Linear(4, 2).named_parameters() { "
     "print(n, p.shape) }"},
    {"buffers", buffers, "buffers()",
     "Every buffer of this model and its submodules, each once. Example: len(nn.BatchNorm1d(4).buffers())"},
    {"named_buffers", named_buffers, "named_buffers()",
     "Every buffer as a (dotted name, tensor) pair. Example: for (n, b) in nn.BatchNorm1d(4).named_buffers() { "
     "print(n) }"},
    {"zero_grad", zero_grad, "zero_grad(set_to_none=true)",
     "Clears the .grad of every parameter (set_to_none=false: zeroes it). Example: nn.Linear(4, 2).zero_grad()"},
    {"train", set_train_mode, "train(mode=true)",
     "Sets the training flag of every module (dropout and batch norm read it); returns the model. Example: "
     "nn.Dropout(0.5).train()"},
    {"eval", set_eval_mode, "eval()",
     "Clears the training flag of every module, as train(false); returns the model. Example: nn.Dropout(0.5).eval()"},
    {"to", move_to, "to(device_or_dtype)",
     "Moves every parameter and buffer to a device, or converts the floating ones to a dtype, in place; returns the "
     "model. "
     "Example: nn.Linear(4, 2).to(f64)"},
    {"cuda", move_to_cuda, "cuda(device=0)",
     "Moves every parameter and buffer to a GPU, in place; returns the model. Example: nn.Linear(4, 2).cuda()"},
    {"cpu", move_to_cpu, "cpu()",
     "Moves every parameter and buffer to the CPU, in place; returns the model. Example: nn.Linear(4, 2).cpu()"},
    {"half", retype_to<DType::f16>, "half()",
     "Converts the floating parameters and buffers to f16, in place, as to(f16). Example: nn.Linear(4, 2).half()"},
    {"float", retype_to<DType::f32>, "float()",
     "Converts the floating parameters and buffers to f32, in place, as to(f32). Example: nn.Linear(4, 2).float()"},
    {"double", retype_to<DType::f64>, "double()",
     "Converts the floating parameters and buffers to f64, in place, as to(f64). Example: nn.Linear(4, 2).double()"},
    {"bfloat16", retype_to<DType::bf16>, "bfloat16()",
     "Converts the floating parameters and buffers to bf16, in place, as to(bf16). Example: nn.Linear(4, 2).bfloat16()"},
    {"requires_grad_", requires_grad_of_parameters, "requires_grad_(requires_grad=true)",
     "Sets every parameter's requires_grad (false freezes the model); returns the model. "
     "Example: nn.Linear(4, 2).requires_grad_(false)"},
    {"get_submodule", get_submodule, "get_submodule(target)",
     "The module at a dotted path of fields. Example: nn.Sequential([nn.Linear(4, 2)]).get_submodule(\"0\")"},
    {"add_module", add_module, "add_module(name, module)",
     "Adds module as the field name (a submodule). Example: nn.Sequential([]).add_module(\"fc\", nn.Linear(4, 2))"},
    {"children", children_of, "children(remove_duplicate=true)",
     "The models held directly in fields, in field order. Example: for c in nn.Sequential([nn.Linear(4, 8), "
     "nn.ReLU()]).children() { print(c) }"},
    {"named_children", named_children, "named_children(remove_duplicate=true)",
     "The models held directly in fields as (field name, model) pairs. Example: for (n, c) in "
     "nn.Sequential([nn.Linear(4, 8), nn.ReLU()]).named_children() { print(n) }"},
    {"modules", modules, "modules()",
     "This model and every module under it, each once. Example: len(nn.Sequential([nn.Linear(4, 8), "
     "nn.ReLU()]).modules())"},
    {"named_modules", named_modules, "named_modules()",
     "This model and every module under it as (dotted path, module) pairs, the model's path \"\". "
     "Example: for (n, s) in nn.Sequential([nn.Linear(4, 8), nn.ReLU()]).named_modules() { print(n) }"},
    {"apply", apply_to_modules, "apply(fn)",
     "Calls fn(module) on every module, children before their parent; returns the model. Example: "
     "nn.Sequential([nn.Linear(4, 8), nn.ReLU()]).apply(fn(mod) = print(type(mod)))"},
    {"state_dict", state_dict, "state_dict()",
     "Every parameter and buffer by dotted name, detached. Example: nn.Linear(4, 2).state_dict()[\"weight\"].shape"},
    {"load_state_dict", load_state_dict, "load_state_dict(state, strict=true)",
     "Copies each tensor of state into the parameter or buffer of its name; returns .missing_keys and "
     ".unexpected_keys (strict=false lets them be). Example: nn.Linear(4, 2).load_state_dict(nn.Linear(4, "
     "2).state_dict())"},
    {"register_buffer", register_buffer, "register_buffer(name, tensor, persistent=true)",
     "Makes tensor a buffer of this model (to() moves it; state_dict keeps it unless persistent=false). "
     "Example: nn.Linear(4, 2).register_buffer(\"mask\", ones([4]), persistent=false)"},
    {"register_forward_pre_hook", register_forward_pre_hook, "register_forward_pre_hook(hook)",
     "Calls hook(module, input) before each call; a result other than none replaces the input. Returns a handle "
     "with remove(). Example: nn.Linear(4, 2).register_forward_pre_hook(fn(mod, inp) = none)"},
    {"register_forward_hook", register_forward_hook, "register_forward_hook(hook)",
     "Calls hook(module, input, output) after each call; a result other than none replaces the output. Returns a "
     "handle with remove(). Example: let m = nn.Linear(4, 2); let h = m.register_forward_hook(fn(mod, inp, out) = "
     "print(out.shape)); m(randn(3, 4))"},
    {"register_backward_hook", register_backward_hook, "register_backward_hook(hook)",
     "Calls hook(module, grad_output) during backward; a returned tensor replaces the gradient. Returns a handle "
     "with remove(). Example: nn.Linear(4, 2).register_backward_hook(fn(mod, g) = g * 0.5)"},
    {"register_full_backward_hook", register_full_backward_hook, "register_full_backward_hook(hook)",
     "Calls hook(module, grad_input, grad_output) during backward, as PyTorch's. Returns a handle with remove(). "
     "Example: nn.Linear(4, 2).register_full_backward_hook(fn(mod, gin, gout) = print(gout[0].shape))"},
};

}  // namespace

std::span<const MethodEntry> model_methods() { return kModelMethods; }

// A model's own methods and fields come first (call_model_method); this is the last
// place a name is looked for.
Value builtin_model_method(Evaluator& ev, const Value& self, const std::string& name, CallArgs& args) {
  if (const MethodEntry* m = find_entry(model_methods(), name)) {
    if (noting_reads()) note_structure_read(self, true);  // Note [A model's structure is a read too]
    return m->function(ev, self, args);
  }
  fail("model " + self.as<InstanceObj>()->cls->decl->name + " has no attribute '" + name + "'" +
       ev.attribute_hint(self, name));
}

}  // namespace nabla::interp

namespace nabla::interp {

namespace {

// How an assigned value is named in the errors below: a tensor by its dtype and why
// it is not a parameter, anything else by its type, as PyTorch names it.
std::string assigned_value(const Value& v) {
  if (v.tag != Tag::Tensor || !v.t.defined()) return std::string("'") + type_name(v) + "'";
  std::string t = std::string("an ") + dtype_name(v.t.dtype()) + " tensor";
  if (!v.t.requires_grad()) return t + " that does not require grad";
  return t + " that is not a leaf (the result of an op)";
}

}  // namespace

// Note [A field named as a method]
// A model's method answers its calls, `m.g(x)`, `m(x)` for forward, before its fields
// do, while a read `m.g` finds the field first: `m.forward = fn(x) = ...` or a
// constructor's `g = 1` beside a method g() made a field that reads showed and calls
// ignored, silently. Such a field is refused where it is set (constructor, assignment,
// setattr, add_module, register_buffer), as a name the class already uses. Python lets
// an instance attribute shadow a method; nabla's calls and compile() go to the class's
// method, so the field could only mislead.
void check_not_a_method(const InstanceObj& inst, const std::string& name) {
  if (!inst.cls->info->methods.count(name)) return;
  const std::string& cls = inst.cls->decl->name;
  fail("cannot set field '" + name + "' of " + cls + ": " + cls + " has a method " + name +
       "(), which calls would still run (a field cannot replace a method; give the field another name)");
}

// Note [Assigning to a registered field]
// As PyTorch's Module.__setattr__: once a field holds a parameter, a submodule or a
// buffer, only a value of that kind (or none) may replace it. Without the check,
// `m.w = m.w - lr * g` under no_grad, or `m.w = randn([3])`, quietly turned the
// parameter into a plain attribute: it left parameters(), state_dict() and the
// optimizer, and training went on without it. none empties the field (an attribute
// from then on), as fsdp's unbinding and prune rely on. The very tensor the field
// holds may be given back even when frozen (requires_grad false): it stays a parameter.
FieldKind checked_field_kind(const InstanceObj& inst, const Field& f, const Value& v, FieldKind kind) {
  if (v.is_none() || kind == f.kind) return kind;
  const std::string where = "'" + f.name + "' of " + inst.cls->decl->name;
  switch (f.kind) {
    case FieldKind::parameter:
      if (v.tag == Tag::Tensor && f.value.tag == Tag::Tensor && v.t.defined() && v.t.impl() == f.value.t.impl())
        return FieldKind::parameter;
      fail("cannot assign " + assigned_value(v) + " as parameter " + where +
           " (a parameter or none expected: a leaf tensor that requires grad, such as t.detach().requires_grad_(true); "
           "to change a parameter's values, write into it: no_grad { m." + f.name + ".copy_(t) })");
    case FieldKind::submodule:
      fail("cannot assign " + assigned_value(v) + " as submodule " + where + " (a model or none expected)");
    case FieldKind::buffer:
      if (v.tag == Tag::Tensor) return FieldKind::buffer;
      fail("cannot assign " + assigned_value(v) + " as buffer " + where + " (a tensor or none expected)");
    default: return kind;
  }
}

}  // namespace nabla::interp
