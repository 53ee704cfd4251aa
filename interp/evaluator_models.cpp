// Models: instances (constructor bodies, fields, methods), the builtin model methods
// (parameters, buffers, zero_grad, train/eval, children) and member access on any
// value (get_attr, set_attr, call_method, member_names). Tensor and container
// members are the builtins' (builtins_tensor.cpp, container_methods.cpp).
#include "interp/evaluator.hpp"

#include <algorithm>

#include "autograd/engine.hpp"
#include "autograd/grad_mode.hpp"
#include "autograd/ops.hpp"
#include "interp/evaluator_impl.hpp"
#include "tensor/cuda/cuda_runtime.hpp"

namespace nabla::interp {

Value Evaluator::Impl::instantiate(const std::shared_ptr<ModelClassObj>& cls, CallArgs& args) {
  auto inst = std::make_shared<InstanceObj>();
  inst->cls = cls;
  Value self = Value::object(Tag::Instance, inst);
  const ModelDecl& d = *cls->decl;
  const ModelInfo& mi = *cls->info;
  const SourceSpan* site = call_site;
  ev.check_interrupt();
  ev.count_step();
  if (static_cast<int>(stack.size()) >= ev.max_depth) fail("maximum recursion depth exceeded");
  auto fr = std::make_shared<Frame>(mi.ctor.nslots);
  fr->parent = cls->env;
  fr->self = self;
  {
    FrameGuard g(*this);
    frame = cls->env.get();
    module = cls->module.get();
    bind_args(d.name, d.params, &cls->defaults, args, *fr, 0);
  }
  FrameGuard g(*this);
  stack.push_back({site, &d.name});
  frame = fr.get();
  module = cls->module.get();
  struct Pop {
    Frame& f;
    ~Pop() { f.self = Value(); }  // break the instance <-> constructor frame cycle
  } pop{*fr};
  for (auto& s : d.body.stmts) {
    if (s->kind == StmtKind::Assign) {
      auto& a = static_cast<const AssignStmt&>(*s);
      if (a.target->kind == ExprKind::Name) {
        try {
          Value v = eval(*a.value);
          set_field(*inst, static_cast<const Name&>(*a.target).id, std::move(v), false);
        } catch (...) {
          rethrow_located(s->span);
        }
        continue;
      }
    }
    Flow f = exec(*s);
    if (f == Flow::Return) fail("'return' in a model body");
    if (f != Flow::Normal) fail(stray_flow_message(f));
  }
  inst->ctor_frame = fr;
  return self;
}

Value Evaluator::Impl::call_model_method(const Value& self, const std::string& name, CallArgs& args) {
  auto* inst = self.as<InstanceObj>();
  auto& methods = inst->cls->info->methods;
  auto it = methods.find(name);
  if (it == methods.end()) {
    if (Field* f = inst->find(name)) return ev.call_value(f->value, args);
    if (name == "forward") fail("model " + inst->cls->decl->name + " has no forward method, so it cannot be called");
    return builtin_model_method(self, name, args);
  }
  const FnDecl& d = *it->second;
  const FnInfo& info = fn_infos.at(&d);
  std::string qn = inst->cls->decl->name + "." + name;
  // The name must outlive the call record: keep it in a stable place.
  const std::string& stable = intern(qn);
  return invoke(d, info, inst->ctor_frame, inst->cls->module.get(), nullptr, self, args, stable);
}

// Forward pre-hooks, fn(module, input) with input the tuple of positional arguments:
// a result other than none replaces the arguments (a tuple gives all of them, anything
// else the only one), as in PyTorch. Pruning (stdlib/prune.dsl) recomputes
// `weight = weight_orig * weight_mask` in one.
void Evaluator::Impl::run_forward_pre_hooks(const Value& self, CallArgs& args) {
  auto hooks = self.as<InstanceObj>()->forward_pre_hooks;  // a hook may remove itself
  for (auto& [id, fn] : hooks) {
    CallArgs a;
    a.pos = {self, make_tuple(args.pos)};
    Value r = ev.call_value(fn, a);
    if (r.is_none()) continue;
    if (r.tag == Tag::Tuple) args.pos = r.as<ListObj>()->items;
    else args.pos = {r};
  }
}

// Calling an instance: forward pre-hooks, then forward, then its forward hooks (fn(module, input, output); a
// hook that returns something other than none replaces the output), then, when the
// output is a tensor that requires grad and backward hooks exist, a tensor hook on
// the output that calls them with (module, grad_output) during backward (a returned
// tensor replaces the gradient). Hooks are read when they run, so a removed hook
// stops firing at once.
Value Evaluator::Impl::call_instance(const Value& self, CallArgs& args) {
  auto* inst = self.as<InstanceObj>();
  if (!inst->forward_pre_hooks.empty()) run_forward_pre_hooks(self, args);
  if (inst->forward_hooks.empty() && inst->backward_hooks.empty() && inst->full_backward_hooks.empty())
    return call_model_method(self, "forward", args);
  Value input = make_tuple(args.pos);
  // Full backward hooks: every tensor input that requires grad goes into forward
  // through an alias (a view node) whose gradient is the gradient with respect to that
  // input through this call only; when all have arrived the hooks get (module,
  // grad_input, grad_output), none for inputs that need no gradient.
  struct FullState {
    std::vector<Value> grad_in;
    Value grad_out;
    size_t pending = 0;
  };
  std::shared_ptr<FullState> full;
  if (!inst->full_backward_hooks.empty() && grad_enabled()) {
    full = std::make_shared<FullState>();
    full->grad_in.assign(args.pos.size(), Value());
    for (size_t k = 0; k < args.pos.size(); ++k) {
      Value& a = args.pos[k];
      if (a.tag != Tag::Tensor || !a.t.defined() || !a.t.requires_grad()) continue;
      Tensor alias = view(a.t, IntList(a.t.sizes().begin(), a.t.sizes().end()));
      ++full->pending;
      Evaluator* e = &ev;
      std::weak_ptr<Obj> weak = self.o;
      register_hook(alias, [e, weak, full, k](const Tensor& g) {
        full->grad_in[k] = Value::tensor(g);
        if (--full->pending > 0) return Tensor();
        auto o = weak.lock();
        if (!o) return Tensor();
        auto hooks = static_cast<InstanceObj*>(o.get())->full_backward_hooks;
        for (auto& [id, fn] : hooks) {
          CallArgs c;
          c.pos = {Value::object(Tag::Instance, o), make_tuple(full->grad_in), make_tuple({full->grad_out})};
          e->call_value(fn, c);
        }
        return Tensor();
      });
      a = Value::tensor(alias);
    }
  }
  Value out = call_model_method(self, "forward", args);
  auto hooks = inst->forward_hooks;  // a hook may remove itself
  for (auto& [id, fn] : hooks) {
    CallArgs a;
    a.pos = {self, input, out};
    Value r = ev.call_value(fn, a);
    if (!r.is_none()) out = r;
  }
  if ((!inst->backward_hooks.empty() || full) && out.tag == Tag::Tensor && out.t.defined() && out.t.requires_grad()) {
    Evaluator* e = &ev;
    std::weak_ptr<Obj> weak = self.o;
    register_hook(out.t, [e, weak, full](const Tensor& g) {
      auto o = weak.lock();
      if (!o) return Tensor();
      Value module = Value::object(Tag::Instance, o);
      auto bh = static_cast<InstanceObj*>(o.get())->backward_hooks;
      Tensor grad = g;
      bool changed = false;
      for (auto& [id, fn] : bh) {
        CallArgs a;
        a.pos = {module, Value::tensor(grad)};
        Value r = e->call_value(fn, a);
        if (r.is_none()) continue;
        if (r.tag != Tag::Tensor) fail(std::string("a backward hook must return a tensor or none, got ") + type_name(r));
        grad = r.t;
        changed = true;
      }
      if (full) {
        full->grad_out = Value::tensor(grad);
        if (full->pending == 0) {  // no input needs a gradient: the hooks run now
          auto fh = static_cast<InstanceObj*>(o.get())->full_backward_hooks;
          for (auto& [id, fn] : fh) {
            CallArgs a;
            a.pos = {module, make_tuple(full->grad_in), make_tuple({full->grad_out})};
            e->call_value(fn, a);
          }
        }
      }
      return changed ? grad : Tensor();
    });
  }
  return out;
}

// ---- model builtins ------------------------------------------------------------------

namespace {

void collect_params(const Value& v, const std::string& prefix, std::vector<std::pair<std::string, Value>>& out,
                    bool buffers, std::unordered_set<const void*>& seen) {
  if (v.tag == Tag::Instance) {
    for (const Field& f : v.as<InstanceObj>()->fields) {
      std::string name = prefix.empty() ? f.name : prefix + "." + f.name;
      bool want = buffers ? f.kind == FieldKind::buffer : f.kind == FieldKind::parameter;
      if (want) {
        if (seen.insert(f.value.t.impl()).second) out.emplace_back(name, f.value);
      } else if (f.kind == FieldKind::submodule || f.value.tag == Tag::List || f.value.tag == Tag::Tuple ||
                 f.value.tag == Tag::Dict) {
        collect_params(f.value, name, out, buffers, seen);
      }
    }
  } else if (v.tag == Tag::List || v.tag == Tag::Tuple) {
    auto& items = v.as<ListObj>()->items;
    for (size_t k = 0; k < items.size(); ++k)
      if (items[k].tag == Tag::Instance) collect_params(items[k], prefix + "." + std::to_string(k), out, buffers, seen);
  } else if (v.tag == Tag::Dict) {
    for (auto& [k, x] : v.as<DictObj>()->entries)
      if (x.tag == Tag::Instance) collect_params(x, prefix + "." + str(k), out, buffers, seen);
  }
}

// Parameters and buffers in field order, recursively: the keys of state_dict().
void collect_state(const Value& v, const std::string& prefix, std::vector<std::pair<std::string, Value>>& out) {
  auto sub = [&](const std::string& k) { return prefix.empty() ? k : prefix + "." + k; };
  if (v.tag == Tag::Instance) {
    for (const Field& f : v.as<InstanceObj>()->fields) {
      if (f.kind == FieldKind::parameter || f.kind == FieldKind::buffer) out.emplace_back(sub(f.name), f.value);
      else if (f.kind == FieldKind::submodule || f.value.tag == Tag::List || f.value.tag == Tag::Tuple ||
               f.value.tag == Tag::Dict)
        collect_state(f.value, sub(f.name), out);
    }
  } else if (v.tag == Tag::List || v.tag == Tag::Tuple) {
    auto& items = v.as<ListObj>()->items;
    for (size_t k = 0; k < items.size(); ++k)
      if (items[k].tag == Tag::Instance) collect_state(items[k], sub(std::to_string(k)), out);
  } else if (v.tag == Tag::Dict) {
    for (auto& [k, x] : v.as<DictObj>()->entries)
      if (x.tag == Tag::Instance) collect_state(x, sub(str(k)), out);
  }
}

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

void set_training(const Value& v, bool mode) {
  if (v.tag == Tag::Instance) {
    auto* inst = v.as<InstanceObj>();
    bool found = false;
    for (Field& f : inst->fields) {
      if (f.name == "training") {
        f.value = Value::boolean(mode);
        found = true;
      } else if (f.kind == FieldKind::submodule || f.value.tag == Tag::List || f.value.tag == Tag::Tuple) {
        set_training(f.value, mode);
      }
    }
    if (!found) inst->fields.push_back({"training", Value::boolean(mode), FieldKind::attribute});
  } else if (v.tag == Tag::List || v.tag == Tag::Tuple) {
    for (auto& x : v.as<ListObj>()->items) set_training(x, mode);
  }
}

void no_args(const CallArgs& args, const std::string& name) {
  if (!args.pos.empty() || !args.kw.empty()) fail(name + "() takes no arguments");
}

// m.to(dtype): every floating parameter and buffer converted in place (integer
// buffers such as counters stay), as PyTorch's Module.to(dtype). Returns m.
Value retype_model(const Value& self, DType dtype) {
  if (!is_floating(dtype)) fail(std::string("to(): a model converts to a floating dtype, got ") + dtype_name(dtype));
  std::vector<std::pair<std::string, Value>> state;
  collect_state(self, "", state);
  for (auto& [n, v] : state)
    if (is_floating(v.t.dtype())) retype(v.t, dtype);
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
  std::vector<std::pair<std::string, Value>> state;
  collect_state(self, "", state);
  for (auto& [n, v] : state) relocate(v.t, device);
  return self;
}

}  // namespace

const char* const kModelMethods[] = {"parameters",
                                     "named_parameters",
                                     "buffers",
                                     "named_buffers",
                                     "zero_grad",
                                     "train",
                                     "eval",
                                     "to",
                                     "cuda",
                                     "cpu",
                                     "children",
                                     "named_children",
                                     "state_dict",
                                     "load_state_dict",
                                     "register_buffer",
                                     "register_forward_pre_hook",
                                     "register_forward_hook",
                                     "register_backward_hook",
                                     "register_full_backward_hook"};

Value Evaluator::Impl::builtin_model_method(const Value& self, const std::string& name, CallArgs& args) {
  if (name == "parameters" || name == "named_parameters" || name == "buffers" || name == "named_buffers") {
    no_args(args, name);
    std::vector<std::pair<std::string, Value>> out;
    std::unordered_set<const void*> seen;
    collect_params(self, "", out, name.find("buffers") != std::string::npos, seen);
    std::vector<Value> items;
    bool named = name.rfind("named_", 0) == 0;
    for (auto& [n, v] : out) items.push_back(named ? make_tuple({make_str(n), v}) : v);
    return make_list(std::move(items));
  }
  if (name == "zero_grad") {
    no_args(args, name);
    std::vector<std::pair<std::string, Value>> out;
    std::unordered_set<const void*> seen;
    collect_params(self, "", out, false, seen);
    for (auto& [n, v] : out) v.t.set_grad(Tensor());
    return Value();
  }
  if (name == "train" || name == "eval") {
    bool mode = name == "train";
    if (name == "train" && !args.pos.empty()) mode = truthy(args.pos[0]);
    set_training(self, mode);
    return self;
  }
  if (name == "to" || name == "cuda" || name == "cpu") return move_model(self, name, args);
  if (name == "state_dict") {
    no_args(args, name);
    std::vector<std::pair<std::string, Value>> out;
    collect_state(self, "", out);
    auto d = std::make_shared<DictObj>();
    for (auto& [n, v] : out) d->set(make_str(n), Value::tensor(detach(v.t)));
    return Value::object(Tag::Dict, d);
  }
  if (name == "load_state_dict") {
    // load_state_dict(d, strict=true): copies every tensor of d into the parameter or
    // buffer of the same name, under no-grad. With strict, missing keys, unexpected keys
    // and shape mismatches are all reported in one error; without it only shapes are.
    if (args.pos.size() != 1) fail("load_state_dict() takes one argument, the state dict");
    bool strict = true;
    for (auto& [k, v] : args.kw) {
      if (k == "strict") strict = truthy(v);
      else fail("load_state_dict() got an unexpected keyword argument '" + k + "'");
    }
    const Value& dv = args.pos[0];
    if (dv.tag != Tag::Dict) fail(std::string("load_state_dict() needs a dict, got ") + type_name(dv));
    auto* d = dv.as<DictObj>();
    std::vector<std::pair<std::string, Value>> own;
    collect_state(self, "", own);
    std::vector<std::string> problems;
    std::vector<std::pair<Tensor, Tensor>> copies;
    std::unordered_set<std::string> known;
    for (auto& [n, v] : own) {
      known.insert(n);
      Value* src = d->find(make_str(n));
      if (!src) {
        if (strict) problems.push_back("missing key '" + n + "'");
        continue;
      }
      if (src->tag != Tag::Tensor) {
        problems.push_back("'" + n + "' is " + type_name(*src) + ", not a tensor");
        continue;
      }
      if (src->t.sizes() != v.t.sizes()) {
        problems.push_back("shape mismatch for '" + n + "': the dict has " + src->t.shape_str() + ", the model " +
                           v.t.shape_str());
        continue;
      }
      copies.emplace_back(v.t, src->t);
    }
    if (strict)
      for (auto& [k, x] : d->entries)
        if (k.tag != Tag::Str || !known.count(k.as<StrObj>()->s)) problems.push_back("unexpected key " + repr(k));
    if (!problems.empty()) {
      std::string msg = "load_state_dict() into " + self.as<InstanceObj>()->cls->decl->name + ": " +
                        std::to_string(problems.size()) + (problems.size() == 1 ? " problem" : " problems");
      for (auto& p : problems) msg += "\n  " + p;
      fail(msg);
    }
    NoGradGuard ng;
    for (auto& [dst, src] : copies) copy_(dst, src);
    return Value();
  }
  if (name == "register_buffer") {
    // register_buffer(name, tensor): a buffer as the `buffer` member makes one (kept
    // by state_dict, moved by to(), never a parameter); replaces a field of that name.
    if (args.pos.size() != 2 || !args.kw.empty()) fail("register_buffer() takes two arguments, the name and the tensor");
    if (args.pos[0].tag != Tag::Str)
      fail(std::string("register_buffer(): name must be a str, got ") + type_name(args.pos[0]));
    set_field(*self.as<InstanceObj>(), args.pos[0].as<StrObj>()->s, args.pos[1], true);
    return Value();
  }
  if (name == "register_forward_pre_hook" || name == "register_forward_hook" || name == "register_backward_hook" ||
      name == "register_full_backward_hook") {
    if (args.pos.size() != 1 || !args.kw.empty()) fail(name + "() takes one argument, the hook function");
    auto* inst = self.as<InstanceObj>();
    int64_t id = inst->next_hook_id++;
    hook_list(*inst, name).emplace_back(id, args.pos[0]);
    return make_hook_handle(self, name, id);
  }
  if (name == "children" || name == "named_children") {
    no_args(args, name);
    bool named = name == "named_children";
    std::vector<Value> items;
    for (const Field& f : self.as<InstanceObj>()->fields)
      if (f.kind == FieldKind::submodule) items.push_back(named ? make_tuple({make_str(f.name), f.value}) : f.value);
    return make_list(std::move(items));
  }
  fail("model " + self.as<InstanceObj>()->cls->decl->name + " has no attribute '" + name + "'");
}

Value Evaluator::get_attr(const Value& obj, const std::string& name) {
  switch (obj.tag) {
    case Tag::Tensor: {
      bool found = false;
      Value v = tensor_attr(*this, obj, name, &found);
      if (found) return v;
      return Impl::bound(obj, name);
    }
    case Tag::Instance: {
      auto* inst = obj.as<InstanceObj>();
      if (Field* f = inst->find(name)) return f->value;
      if (inst->cls->info->methods.count(name)) return Impl::bound(obj, name);
      for (const char* m : kModelMethods)
        if (name == m) return Impl::bound(obj, name);
      fail("model " + inst->cls->decl->name + " has no attribute '" + name + "'");
    }
    case Tag::Module: {
      auto* m = obj.as<Module>();
      if (const Value* v = m->get(name)) return *v;
      fail("module '" + m->name + "' has no attribute '" + name + "'");
    }
    case Tag::Object: {
      auto* o = obj.as<ObjectObj>();
      if (Value* v = o->find(name)) return *v;
      if (o->methods.count(name)) return Impl::bound(obj, name);
      fail(o->type_name + " has no attribute '" + name + "'");
    }
    case Tag::ModelClass:
    case Tag::FnClass:
      if (name == "name") return make_str(obj.as<ModelClassObj>()->decl->name);
      if (obj.tag == Tag::FnClass && name == "apply") return Impl::bound(obj, name);
      break;
    case Tag::Func:
      if (name == "name") return make_str(obj.as<FuncObj>()->qualname);
      break;
    case Tag::DType:
      if (name == "is_floating_point") return Value::boolean(is_floating(obj.dt));
      if (name == "itemsize") return Value::integer(static_cast<int64_t>(dtype_size(obj.dt)));
      break;
    case Tag::Range: {
      auto* r = obj.as<RangeObj>();
      if (name == "start") return Value::integer(r->start);
      if (name == "stop") return Value::integer(r->stop);
      if (name == "step") return Value::integer(r->step);
      break;
    }
    case Tag::Str:
    case Tag::List:
    case Tag::Dict:
    case Tag::Tuple:
      if (has_container_method(obj.tag, name)) return Impl::bound(obj, name);
      break;
    default: break;
  }
  fail(std::string(type_name(obj)) + " has no attribute '" + name + "'");
}

void Evaluator::set_attr(const Value& obj, const std::string& name, Value v) {
  switch (obj.tag) {
    case Tag::Instance: Impl::set_field(*obj.as<InstanceObj>(), name, std::move(v), false); return;
    case Tag::Object: obj.as<ObjectObj>()->set(name, std::move(v)); return;
    case Tag::Module: obj.as<Module>()->set(name, std::move(v)); return;
    case Tag::Tensor: {
      Tensor t = obj.t;
      if (name == "grad") {
        if (v.is_none()) t.set_grad(Tensor());
        else if (v.tag == Tag::Tensor) t.set_grad(v.t);
        else fail(std::string("tensor.grad must be a tensor or none, got ") + type_name(v));
        return;
      }
      if (name == "requires_grad") {
        t.set_requires_grad(truthy(v));
        return;
      }
      fail("cannot set attribute '" + name + "' of a tensor (only grad and requires_grad)");
    }
    default: fail(std::string("cannot set attribute '") + name + "' on " + type_name(obj));
  }
}

Value Evaluator::call_method(const Value& obj, const std::string& name, CallArgs& args) {
  switch (obj.tag) {
    case Tag::Tensor: return tensor_method(*this, obj, name, args);
    case Tag::Instance: return impl->call_model_method(obj, name, args);
    case Tag::Object: {
      auto* o = obj.as<ObjectObj>();
      auto it = o->methods.find(name);
      if (it != o->methods.end()) {
        args.pos.insert(args.pos.begin(), obj);
        return it->second(*this, args);
      }
      return call_value(get_attr(obj, name), args);
    }
    case Tag::FnClass:
      if (name == "apply") return impl->apply_custom(std::static_pointer_cast<ModelClassObj>(obj.o), args);
      break;
    case Tag::Str:
    case Tag::List:
    case Tag::Dict:
    case Tag::Tuple:
      if (has_container_method(obj.tag, name)) return container_method(*this, obj, name, args);
      break;
    default: break;
  }
  Value fn = get_attr(obj, name);
  return call_value(fn, args);
}

std::vector<std::string> Evaluator::member_names(const Value& v) {
  std::vector<std::string> out;
  switch (v.tag) {
    case Tag::Tensor: out = tensor_member_names(); break;
    case Tag::Instance: {
      auto* inst = v.as<InstanceObj>();
      for (auto& f : inst->fields) out.push_back(f.name);
      for (auto& [n, d] : inst->cls->info->methods) out.push_back(n);
      for (const char* m : kModelMethods) out.push_back(m);
      break;
    }
    case Tag::Module: {
      auto* m = v.as<Module>();
      for (size_t k = 0; k < m->slot_names.size(); ++k)
        if (m->defined[k] && m->names.count(m->slot_names[k])) {
          bool builtin = false;
          for (auto& [n, b] : builtins)
            if (n == m->slot_names[k] && values_equal(b, m->slots[k])) builtin = true;
          if (!builtin) out.push_back(m->slot_names[k]);
        }
      break;
    }
    case Tag::Object: {
      auto* o = v.as<ObjectObj>();
      for (auto& [n, x] : o->attrs) out.push_back(n);
      for (auto& [n, f] : o->methods) out.push_back(n);
      break;
    }
    default: out = container_method_names(v.tag); break;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace nabla::interp
