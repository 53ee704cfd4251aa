// Models: instances (constructor bodies, fields, methods), the builtin model methods
// (parameters, buffers, zero_grad, train/eval, children) and member access on any
// value (get_attr, set_attr, call_method, member_names). Tensor and container
// members are the builtins' (builtins_tensor.cpp, container_methods.cpp).
#include "interp/evaluator.hpp"

#include <algorithm>

#include "interp/evaluator_impl.hpp"

namespace nabla::interp {

Value Evaluator::Impl::instantiate(const std::shared_ptr<ModelClassObj>& cls, CallArgs& args) {
  auto inst = std::make_shared<InstanceObj>();
  inst->cls = cls;
  Value self = Value::object(Tag::Instance, inst);
  const ModelDecl& d = *cls->decl;
  const ModelInfo& mi = *cls->info;
  const SourceSpan* site = call_site;
  ev.check_interrupt();
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

}  // namespace

const char* const kModelMethods[] = {"parameters", "named_parameters", "buffers", "named_buffers",
                                     "zero_grad",  "train",            "eval",    "children"};

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
  if (name == "children") {
    no_args(args, name);
    std::vector<Value> items;
    for (const Field& f : self.as<InstanceObj>()->fields)
      if (f.kind == FieldKind::submodule) items.push_back(f.value);
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
