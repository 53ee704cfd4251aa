// Models: instances (constructor bodies, fields, methods, hooks around forward) and
// member access on any value (get_attr, set_attr, call_method, member_names). The
// builtin members of tensors, containers and models are tables of the builtins
// (builtins_tensor.cpp, container_methods.cpp, interp/models/model_methods.cpp; Note
// [Builtin tables]).
#include "interp/eval/evaluator.hpp"

#include <algorithm>

#include "autograd/engine.hpp"
#include "autograd/grad_mode.hpp"
#include "autograd/ops.hpp"
#include "autograd/trace.hpp"
#include "interp/builtins/builtin_table.hpp"
#include "interp/builtins/help.hpp"
#include "interp/eval/capture_reads.hpp"
#include "interp/eval/evaluator_impl.hpp"
#include "interp/eval/script/script_mode.hpp"
#include "interp/values/object_regions.hpp"
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
  push_call(site, &d.name);
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
    // m.name(...) of a name that is no method, field or builtin method: what m.name
    // reads, __getattr__'s answer, is called (the call said "no attribute" though the
    // read worked).
    if (!find_entry(model_methods(), name) && methods.count("__getattr__"))
      return ev.call_value(ev.call_attr_hook(self, "__getattr__", name, nullptr), args);
    return builtin_model_method(ev, self, name, args);
  }
  const FnDecl& d = *it->second;
  const FnInfo& info = fn_infos.at(&d);
  std::string qn = inst->cls->decl->name + "." + name;
  // The name must outlive the call record: keep it in a stable place.
  const std::string& stable = intern(qn);
  if (d.is_static) return invoke(d, info, inst->cls->env, inst->cls->module.get(), nullptr, Value(), args, stable);
  LayerScope layer(*this, *inst);  // the module path of the library's ops (Note [User line])
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

namespace {

// What a full backward hook returned: none, or a tuple with an entry per input of the
// call (PyTorch's grad_input), which replaces grad_in for the hooks after it and for
// the input whose gradient arrived last, `last`: the gradients of the other inputs
// have already gone on by then (each input's gradient passes through its own alias), so
// a hook may only give them back unchanged.
void take_returned_grad_input(const Value& r, std::vector<Value>& grad_in, size_t last) {
  if (r.is_none()) return;
  if (r.tag != Tag::Tuple && r.tag != Tag::List)
    fail(std::string("a full backward hook must return none or a tuple of grad_input, got ") + type_name(r));
  const auto& items = r.as<ListObj>()->items;
  if (items.size() != grad_in.size())
    fail("a full backward hook returned " + std::to_string(items.size()) + " grad_input entries, but the call had " +
         std::to_string(grad_in.size()) + " inputs");
  for (size_t j = 0; j < items.size(); ++j) {
    const Value& v = items[j];
    if (v.is_none() || grad_in[j].is_none()) continue;
    if (v.tag != Tag::Tensor)
      fail("a full backward hook's grad_input[" + std::to_string(j) + "] must be a tensor or none, got " + type_name(v));
    const Tensor& was = grad_in[j].t;
    if (v.t.sizes() != was.sizes())
      fail("a full backward hook's grad_input[" + std::to_string(j) + "] has shape " + v.t.shape_str() +
           ", but the input's gradient has shape " + was.shape_str());
    if (j != last && v.t.impl() != was.impl())
      fail("a full backward hook replaced grad_input[" + std::to_string(j) +
           "], which has already gone on: nabla takes a replaced gradient only for the input whose gradient "
           "arrives last (index " + std::to_string(last) + ")");
    grad_in[j] = v;
  }
}

}  // namespace

// Calling an instance: forward pre-hooks, then forward, then its forward hooks (fn(module, input, output); a
// hook that returns something other than none replaces the output), then, when the
// output is a tensor that requires grad and backward hooks exist, a tensor hook on
// the output that calls them with (module, grad_output) during backward (a returned
// tensor replaces the gradient). Hooks are read when they run, so a removed hook
// stops firing at once.
Value Evaluator::Impl::call_instance(const Value& self, CallArgs& args) {
  auto* inst = self.as<InstanceObj>();
  if (noting_reads()) [[unlikely]] note_structure_read(self);  // Note [A model's structure is a read too]
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
          take_returned_grad_input(e->call_value(fn, c), full->grad_in, k);
        }
        return full->grad_in[k].t.impl() == g.impl() ? Tensor() : full->grad_in[k].t;
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
    note_gradient_hook(ev.script);  // Note [Gradient hooks inside a lowered region]
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

// A model's attribute hooks, as Python's: `__getattr__(name)` answers a read of a name
// that is neither a field nor a method, `__setattr__(name, value)` an assignment to a
// name that is not a field (fields assign as usual, so the hooks never see them).
// optim's optimizers use them to read and set the hyperparameters of their groups.
Value Evaluator::call_attr_hook(const Value& obj, const char* hook, const std::string& name, const Value* value) {
  CallArgs a;
  a.pos.push_back(make_str(name));
  if (value) a.pos.push_back(*value);
  return call_method(obj, hook, a);
}

// Note [A model's __len__ and __iter__]
// len(m) is what m.__len__() returns, checked as Python checks it: an int >= 0 (a
// negative or a str came back from len() as it was, silently). The truth of a model
// with __len__ is its length's (Python's rule, and PyTorch's: an empty nn.Sequential,
// nn.ModuleList or nn.ModuleDict is false; `if self.layers` ran the empty branch's
// opposite). `for x in m` walks what m.__iter__() returns; a model it returns is
// walked through its own __iter__ in turn, and one that comes back to a model already
// asked is refused (`__iter__() = self` recursed until the native stack was full).
int64_t Evaluator::model_length(const Value& inst) {
  const std::string& cls = inst.as<InstanceObj>()->cls->decl->name;
  CallArgs none;
  Value n = call_method(inst, "__len__", none);
  if (n.tag != Tag::Int) fail(cls + ".__len__() must return an int, got " + type_name(n));
  if (n.i < 0) fail(cls + ".__len__() must return a length >= 0, got " + std::to_string(n.i));
  return n.i;
}

bool Evaluator::truth(const Value& v) {
  if (v.tag == Tag::Instance && v.as<InstanceObj>()->cls->info->methods.count("__len__")) return model_length(v) != 0;
  return truthy(v);
}

// What `for x in m` walks for a model m with __iter__ (Note [A model's __len__ and __iter__]).
Value Evaluator::model_items(const Value& inst) {
  std::vector<const Obj*> asked;
  Value cur = inst;
  while (cur.tag == Tag::Instance && cur.as<InstanceObj>()->cls->info->methods.count("__iter__")) {
    if (std::find(asked.begin(), asked.end(), cur.o.get()) != asked.end())
      fail("'" + inst.as<InstanceObj>()->cls->decl->name + "' object is not iterable: its __iter__() leads back to " +
           (cur.o == inst.o ? "the model itself" : "a " + cur.as<InstanceObj>()->cls->decl->name + " it already asked") +
           " (return a list of the items)");
    asked.push_back(cur.o.get());
    CallArgs none;
    cur = call_method(cur, "__iter__", none);
  }
  return cur;
}

// get_attr's misses below, read without the error: a model with no such field,
// method or __getattr__ hook (and not one of the names every model answers), an object
// or a module without it. Note [Lookups that expect to miss]
bool Evaluator::lacks_attr(const Value& obj, const std::string& name) {
  switch (obj.tag) {
    case Tag::Instance: {
      auto* inst = obj.as<InstanceObj>();
      const auto& methods = inst->cls->info->methods;
      return !inst->find(name) && !methods.count(name) && !find_entry(model_methods(), name) &&
             !methods.count("__getattr__") && name != "__class__" && name != "training";
    }
    case Tag::Object: {
      auto* o = obj.as<ObjectObj>();
      return !o->find(name) && !o->methods.count(name);
    }
    case Tag::Module: return !obj.as<Module>()->get(name);
    default: return false;
  }
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
      if (Field* f = inst->find(name)) {
        if (noting_reads()) note_field_read(obj, name, f->value);  // Note [What a capture read]
        return f->value;
      }
      if (inst->cls->info->methods.count(name)) return Impl::bound(obj, name);
      if (find_entry(model_methods(), name)) return Impl::bound(obj, name);
      if (inst->cls->info->methods.count("__getattr__")) return call_attr_hook(obj, "__getattr__", name, nullptr);
      // Python's m.__class__ (DCGAN's weights_init reads m.__class__.__name__)
      if (name == "__class__") return Value::object(inst->cls->decl->is_function ? Tag::FnClass : Tag::ModelClass, inst->cls);
      // A model is in training mode from construction, as PyTorch's Module.training; the
      // field exists once train() or eval() sets it, so `if self.training` in a user's
      // forward failed before either was called.
      if (name == "training" && !inst->cls->decl->is_function) return Value::boolean(true);
      fail("model " + inst->cls->decl->name + " has no attribute '" + name + "'" + attribute_hint(obj, name));
    }
    case Tag::Module: {
      auto* m = obj.as<Module>();
      if (const Value* v = m->get(name)) return *v;
      fail("module '" + m->shown_name() + "' has no attribute '" + name + "'" + attribute_hint(obj, name));
    }
    case Tag::Object: {
      auto* o = obj.as<ObjectObj>();
      if (Value* v = o->find(name)) return *v;
      if (o->methods.count(name)) return Impl::bound(obj, name);
      fail(o->type_name + " has no attribute '" + name + "'" + attribute_hint(obj, name));
    }
    case Tag::ModelClass:
    case Tag::FnClass:
      if (name == "name" || name == "__name__") return make_str(obj.as<ModelClassObj>()->decl->name);
      if (name == "doc" || name == "__doc__") return make_str(obj.as<ModelClassObj>()->decl->doc);
      if (obj.tag == Tag::FnClass && name == "apply") return Impl::bound(obj, name);
      // Class.method: Python's unbound method, called with an instance first (and
      // what help(optim.SGD.step) describes).
      if (obj.as<ModelClassObj>()->info->methods.count(name)) return Impl::bound(obj, name);
      break;
    case Tag::Func:
      if (name == "name") return make_str(obj.as<FuncObj>()->qualname);
      if (name == "doc") return make_str(obj.as<FuncObj>()->decl->doc);
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
    case Tag::Tuple:
      if (const auto* names = obj.as<ListObj>()->field_names)
        for (size_t k = 0; k < names->size(); ++k)
          if ((*names)[k] == name) return obj.as<ListObj>()->items[k];
      [[fallthrough]];
    case Tag::Str:
    case Tag::List:
    case Tag::Dict:
      if (has_container_method(obj.tag, name)) return Impl::bound(obj, name);
      break;
    default: break;
  }
  fail(std::string(type_name(obj)) + " has no attribute '" + name + "'" + attribute_hint(obj, name));
}

namespace {
// A gradient assigned to `x.grad` must be one backward could have made: the tensor's
// shape, dtype and device (PyTorch refuses the others the same way); an i64 .grad
// would turn every later accumulation into integers.
Tensor checked_grad(const Tensor& t, const Tensor& g) {
  if (g.sizes() != t.sizes())
    fail("tensor.grad: the assigned gradient has shape " + g.shape_str() + ", the tensor " + t.shape_str());
  if (g.dtype() != t.dtype())
    fail(std::string("tensor.grad: the assigned gradient has dtype ") + dtype_name(g.dtype()) + ", the tensor " +
         dtype_name(t.dtype()) + " (convert it with .to(" + dtype_name(t.dtype()) + "))");
  if (g.device() != t.device())
    fail("tensor.grad: the assigned gradient is on " + g.device().str() + ", the tensor on " + t.device().str());
  return g;
}
}  // namespace

// Note [Assigning .data]
// PyTorch code writes parameters through .data, outside autograd: PixelCNN's
// `self.weight.data *= self.mask` (which reads `weight.data = weight.data * mask`),
// hand-written SGD's `p.data = p.data - lr * p.grad`. Here it copies the values into
// the tensor in place under no-grad (converting the dtype), so parameters, optimizers
// and tied weights keep holding the same tensor; the shape must stay (PyTorch would
// swap the storage for one of any shape, and share it with the right side).
static void assign_data(Tensor t, const Value& v) {
  if (v.tag != Tag::Tensor) fail(std::string("tensor.data must be a tensor, got ") + type_name(v));
  if (v.t.sizes() != t.sizes())
    fail("tensor.data = ...: the new data has shape " + v.t.shape_str() + ", the tensor " + t.shape_str() +
         " (nabla copies the values in place; a new shape needs a new tensor)");
  NoGradGuard ng;
  copy_(t, v.t);
}

void Evaluator::set_attr(const Value& obj, const std::string& name, Value v) {
  switch (obj.tag) {
    case Tag::Instance: {
      auto* inst = obj.as<InstanceObj>();
      check_change_in_region(*inst, "set attribute '" + name + "' of a " + inst->cls->decl->name);
      if (current_capture()) {  // Note [A tensor field written in a capture]
        FieldWrite w = tensor_field_write(*inst, name, v);
        if (w == FieldWrite::written) return;
        if (w == FieldWrite::check) check_change_in_capture(*inst, "set attribute '" + name + "' of a " + inst->cls->decl->name);
      }
      if (!inst->find(name) && inst->cls->info->methods.count("__setattr__")) {
        call_attr_hook(obj, "__setattr__", name, &v);
        return;
      }
      Impl::set_field(*inst, name, std::move(v), false);
      return;
    }
    case Tag::Object:
      check_change_in_compiled(*obj.as<ObjectObj>(), "set attribute '" + name + "' of an object");
      obj.as<ObjectObj>()->set(name, std::move(v));
      return;
    case Tag::Module:
      check_change_in_capture(*obj.as<Module>(), "set attribute '" + name + "' of a module");
      obj.as<Module>()->set(name, std::move(v));
      return;
    case Tag::Tensor: {
      Tensor t = obj.t;
      if (name == "grad") {
        notify_untraced_effect("assigning .grad");
        if (v.is_none()) t.set_grad(Tensor());
        else if (v.tag == Tag::Tensor) t.set_grad(checked_grad(t, v.t));
        else fail(std::string("tensor.grad must be a tensor or none, got ") + type_name(v));
        return;
      }
      if (name == "requires_grad") {
        if (t.requires_grad() != truthy(v)) notify_flag_change(t, "setting .requires_grad");  // Note [Flags changed inside a lowered region]
        t.set_requires_grad(truthy(v));
        return;
      }
      if (name == "data") {
        notify_untraced_effect("assigning .data");
        assign_data(t, v);
        return;
      }
      fail("cannot set attribute '" + name + "' of a tensor (only grad, requires_grad and data)");
    }
    default: fail(std::string("cannot set attribute '") + name + "' on " + type_name(obj));
  }
}

// Class.method(instance, args...): the method of `cls` called on an instance of it.
Value Evaluator::call_unbound_method(const Value& cls, const std::string& name, CallArgs& args) {
  auto* c = cls.as<ModelClassObj>();
  std::string shown = c->decl->name + "." + name + "()";
  const FnDecl& d = *c->info->methods.at(name);
  if (d.is_static)  // Class.method(args): no instance
    return impl->invoke(d, impl->fn_infos.at(&d), c->env, c->module.get(), nullptr, Value(), args,
                        impl->intern(c->decl->name + "." + name));
  if (args.pos.empty()) fail(shown + " needs an instance of " + c->decl->name + " as its first argument");
  const Value& self = args.pos.front();
  if (self.tag != Tag::Instance || self.as<InstanceObj>()->cls.get() != c)
    fail(shown + " needs an instance of " + c->decl->name + " as its first argument, got " + type_name(self));
  Value receiver = self;
  args.pos.erase(args.pos.begin());
  return impl->call_model_method(receiver, name, args);
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
    case Tag::ModelClass:
      if (obj.as<ModelClassObj>()->info->methods.count(name)) return call_unbound_method(obj, name, args);
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
      for (auto& f : inst->fields)
        if (!is_private_name(f.name)) out.push_back(f.name);
      for (auto& [n, d] : inst->cls->info->methods)
        if (!is_private_name(n)) out.push_back(n);
      for (const MethodEntry& m : model_methods()) out.push_back(m.name);
      break;
    }
    case Tag::Module: {
      auto* m = v.as<Module>();
      bool hide_private = m != main_module.get();  // the session's own names all show
      for (size_t k = 0; k < m->slot_names.size(); ++k)
        if (m->defined[k] && m->names.count(m->slot_names[k]) && !(hide_private && is_private_name(m->slot_names[k]))) {
          bool builtin = false;
          for (auto& [n, b] : builtins)
            if (n == m->slot_names[k] && values_equal(b, m->slots[k])) builtin = true;
          if (!builtin) out.push_back(m->slot_names[k]);
        }
      break;
    }
    case Tag::ModelClass: {  // its methods, which Class.method names (and help shows)
      out = {"doc", "name"};
      for (auto& [n, d] : v.as<ModelClassObj>()->info->methods)
        if (!is_private_name(n)) out.push_back(n);
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
