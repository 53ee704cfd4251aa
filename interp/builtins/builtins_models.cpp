// Builtins that work on models from outside: deepcopy (copy.deepcopy), delattr, and
// functional_call (torch.func.functional_call). The pruning library (stdlib/prune.dsl)
// copies a model before it cuts it and removes `weight_orig` / `weight_mask` when
// pruning is made permanent; the function transforms (grad, vmap, ...) run over a
// model's parameters through functional_call.
#include <algorithm>
#include <unordered_map>

#include "interp/builtins/builtins_internal.hpp"
#include "interp/models/module_walk.hpp"
#include "interp/values/value_walk.hpp"
#include "lang/did_you_mean.hpp"
#include "tensor/cpu/copy.hpp"
#include "tensor/storage_views.hpp"

namespace nabla::interp {

namespace {

// What was copied already, by address: a tensor or a module reached twice (tied
// weights, a layer shared by two blocks) stays shared in the copy, and a cycle ends.
// A tensor's storage is copied once too (its key is the Storage's address), so views
// of one storage (a slice beside its base, `x` and `x.T`) come back as views of one
// copied storage, as PyTorch's deepcopy keeps them.
using Memo = std::unordered_map<const void*, Value>;

// A copy still to make: `src`'s copy goes into *dst, a slot of a copy made already.
// Copies are made from a work list, not by recursion, so a list nested a million
// deep or a chain of a million modules is copied too (Note [Module walk]).
struct CopyTask {
  Value src;
  Value* dst;
};

// t's copy: its layout over the copy of its storage (made at the first tensor of that
// storage, kept in the memo as a u8 tensor of its bytes).
Tensor copy_with_storage(const Tensor& t, Memo& memo) {
  const void* key = t.storage().get();
  auto it = memo.find(key);
  if (it == memo.end()) {
    Tensor bytes = bytes_of(std::make_shared<Storage>(t.storage()->nbytes, t.device(), t.storage()->pinned));
    copy_into(bytes, bytes_of(t.storage()));
    it = memo.emplace(key, Value::tensor(bytes)).first;
  }
  Tensor c = over_storage(it->second.t.storage(), t);
  c.impl()->is_view = t.impl()->is_view;
  return c;
}

Value copy_tensor(const Tensor& t, Memo& memo) {
  Tensor c;
  if (t.impl()->batched || t.impl()->lifted) {  // a transform's tensor: its values, not its storage
    c = empty(t.sizes(), t.dtype(), t.device());
    copy_into(c, t);
  } else {
    c = copy_with_storage(t, memo);
  }
  // A parameter stays a parameter; any other tensor (a buffer, a tensor computed from
  // parameters such as a pruned weight) comes back without history.
  if (t.is_leaf() && t.requires_grad()) c.set_requires_grad(true);
  return Value::tensor(c);
}

// The copy of v with its own slots still holding the originals, each slot queued to
// be replaced by its copy.
Value copy_shell(const Value& v, Memo& memo, std::vector<CopyTask>& tasks) {
  const void* key = v.tag == Tag::Tensor ? static_cast<const void*>(v.t.impl()) : nullptr;
  if (v.tag == Tag::Instance || v.tag == Tag::List || v.tag == Tag::Tuple || v.tag == Tag::Dict) key = v.o.get();
  if (!key) return v;  // numbers, strings, functions, classes, native objects: shared
  if (auto it = memo.find(key); it != memo.end()) return it->second;
  if (v.tag == Tag::Tensor) {
    Value copy = copy_tensor(v.t, memo);
    return memo[key] = copy;
  }
  if (v.tag == Tag::Instance) {
    auto* src = v.as<InstanceObj>();
    auto inst = std::make_shared<InstanceObj>();
    inst->cls = src->cls;
    inst->ctor_frame = src->ctor_frame;  // methods reach fields through self, not the frame
    inst->forward_pre_hooks = src->forward_pre_hooks;
    inst->forward_hooks = src->forward_hooks;
    inst->backward_hooks = src->backward_hooks;
    inst->full_backward_hooks = src->full_backward_hooks;
    inst->next_hook_id = src->next_hook_id;
    inst->fields = src->fields;
    for (Field& f : inst->fields) tasks.push_back({f.value, &f.value});
    return memo[key] = Value::object(Tag::Instance, inst);
  }
  if (v.tag == Tag::Dict) {
    auto d = std::make_shared<DictObj>();
    d->entries = v.as<DictObj>()->entries;  // keys are immutable: shared
    d->index = v.as<DictObj>()->index;
    for (auto& [k, x] : d->entries) tasks.push_back({x, &x});
    return memo[key] = Value::object(Tag::Dict, d);
  }
  auto l = std::make_shared<ListObj>();
  l->items = v.as<ListObj>()->items;
  for (Value& x : l->items) tasks.push_back({x, &x});
  return memo[key] = Value::object(v.tag, l);
}

Value deepcopy_value(const Value& v) {
  Memo memo;
  Value out;
  std::vector<CopyTask> tasks{{v, &out}};
  while (!tasks.empty()) {
    CopyTask t = std::move(tasks.back());
    tasks.pop_back();
    *t.dst = copy_shell(t.src, memo, tasks);
  }
  return out;
}

// deepcopy(x): Python's copy.deepcopy for values of the language. Tensors are copied
// (parameters stay leaves that require grad, without .grad), models field by field
// with their hooks, lists, tuples and dicts item by item; anything else is shared.
Value deepcopy_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("deepcopy", a, {"x"}, 1);
  return deepcopy_value(b[0]);
}

// delattr(obj, name): removes a field of a model (a parameter, buffer, submodule or
// attribute) or an attribute of an object, as Python's.
Value delattr_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("delattr", a, {"obj", "name"}, 2);
  if (b[1].tag != Tag::Str) fail(std::string("delattr(): name must be a str, got ") + type_name(b[1]));
  const std::string& name = b[1].as<StrObj>()->s;
  if (b[0].tag == Tag::Instance) {
    auto* inst = b[0].as<InstanceObj>();
    if (std::erase_if(inst->fields, [&](const Field& f) { return f.name == name; }) == 0)
      fail("model " + inst->cls->decl->name + " has no field '" + name + "'");
    return Value();
  }
  if (b[0].tag == Tag::Object) {
    auto* o = b[0].as<ObjectObj>();
    if (std::erase_if(o->attrs, [&](const auto& kv) { return kv.first == name; }) == 0)
      fail(o->type_name + " has no attribute '" + name + "'");
    return Value();
  }
  fail(std::string("delattr(): cannot delete attribute '") + name + "' of " + type_name(b[0]));
}

// ---- functional_call -----------------------------------------------------------------------
//
// Note [functional_call]
// functional_call(model, tensors, args) calls the model with the dict's tensors in
// the fields of its parameters and buffers, and puts the model's own tensors back
// when the call ends, by return or by error, so the model is never changed by it. The
// forward reads the dict's tensors themselves: gradients flow to them, and in-place
// updates (batch norm's running statistics in training mode) go to them, as in
// PyTorch. A field the forward reassigns (`self.count = self.count + 1`) passes its
// new value to the dict, as PyTorch 1.13's functional_call writes it there. A tied
// tensor (one tensor in the fields of two modules, which state_dict lists once) is
// replaced in every field that holds it, as torch.func's functional_call does.

std::string last_part(const std::string& key) { return key.substr(key.rfind('.') + 1); }

// The names of `names` a mistyped `key` most likely meant (a few edits away, or the
// same last part: "weight" for "fc1.weight"), nearest first; all of them when none is near.
std::vector<std::string> close_names(const std::string& key, const std::vector<std::string>& names) {
  std::vector<std::pair<size_t, std::string>> near;
  size_t limit = std::max<size_t>(2, key.size() / 3);
  for (const std::string& n : names) {
    size_t d = lang::edit_distance(key, n);
    if (d <= limit || last_part(n) == last_part(key)) near.emplace_back(d, n);
  }
  if (near.empty()) return names;
  std::stable_sort(near.begin(), near.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (auto& [d, n] : near) out.push_back(n);
  return out;
}

[[noreturn]] void fail_unknown_key(const Value& model, const std::string& key) {
  std::vector<std::string> names;
  for (auto& [n, t] : named_tensors(model, TensorKinds::both)) names.push_back(n);
  std::string msg = "functional_call(): model " + model.as<InstanceObj>()->cls->decl->name +
                    " has no parameter or buffer '" + key + "'";
  if (names.empty()) fail(msg + " (it has none)");
  std::vector<std::string> close = close_names(key, names);
  bool all = close.size() == names.size();
  msg += all ? "; its parameters and buffers are " : "; did you mean ";
  const size_t shown = 12;
  for (size_t k = 0; k < close.size() && k < shown; ++k) msg += (k ? ", '" : "'") + close[k] + "'";
  if (close.size() > shown) msg += ", ... (" + std::to_string(close.size()) + " in all)";
  fail(msg);
}

// A field of a module that holds a parameter or buffer: where a dict's tensor goes.
struct TensorField {
  Value module;  // the instance (kept alive while swapped)
  std::string name;
};

// Every parameter and buffer field under root, by the tensor it holds: a tied tensor
// has several fields.
std::unordered_map<const void*, std::vector<TensorField>> tensor_fields(const Value& root) {
  std::unordered_map<const void*, std::vector<TensorField>> out;
  for (const ModuleVisit& visit : walk_modules(root))
    for (const Field& f : visit.module.as<InstanceObj>()->fields)
      if ((f.kind == FieldKind::parameter || f.kind == FieldKind::buffer) && f.value.tag == Tag::Tensor)
        out[f.value.t.impl()].push_back({visit.module, f.name});
  return out;
}

// One replacement: the dict's key and tensor, and the model's own tensor it stands for.
struct Replacement {
  Value key;
  Value tensor;
  Tensor own;
};

// The dict's entries checked against the model: every key names a parameter or
// buffer (else an error that suggests names), every value is a tensor, and two keys
// of one tied tensor do not bring two different tensors.
std::vector<Replacement> replacements(const Value& model, const DictObj& d) {
  std::vector<Replacement> out;
  std::unordered_map<const void*, size_t> by_own;
  for (auto& [k, v] : d.entries) {
    if (k.tag != Tag::Str) fail(std::string("functional_call(): the dict's keys must be str, got ") + repr(k));
    const std::string& key = k.as<StrObj>()->s;
    const Tensor* own = resolve_key(model, key);
    if (!own) fail_unknown_key(model, key);
    if (v.tag != Tag::Tensor)
      fail("functional_call(): the value of '" + key + "' must be a tensor, got " + type_name(v));
    auto [it, fresh] = by_own.emplace(own->impl(), out.size());
    if (!fresh) {
      const Replacement& first = out[it->second];
      if (first.tensor.t.impl() != v.t.impl())
        fail("functional_call(): '" + str(first.key) + "' and '" + key +
             "' name one tensor of the model (tied weights), and the dict gives them different tensors");
      continue;
    }
    out.push_back({k, v, *own});
  }
  return out;
}

// The fields of the model holding the dict's tensors for one call; restore() puts the
// model's own back and passes reassigned fields to the dict (Note [functional_call]).
class SwappedFields {
 public:
  SwappedFields(const Value& model, DictObj& dict, const std::vector<Replacement>& reps) : dict_(dict) {
    auto fields = tensor_fields(model);
    for (const Replacement& r : reps)
      for (const TensorField& tf : fields[r.own.impl()]) {
        Field* f = tf.module.as<InstanceObj>()->find(tf.name);
        swaps_.push_back({tf, f->kind, f->value, r});
        f->value = r.tensor;
      }
  }

  void restore() {
    for (auto it = swaps_.rbegin(); it != swaps_.rend(); ++it) {
      auto* inst = it->field.module.as<InstanceObj>();
      Field* f = inst->find(it->field.name);
      if (!f) {  // the call deleted the field
        inst->fields.push_back({it->field.name, it->original, it->kind});
        continue;
      }
      bool reassigned = f->value.tag != Tag::Tensor || f->value.t.impl() != it->rep.tensor.t.impl();
      if (reassigned) dict_.set(it->rep.key, f->value);
      f->value = it->original;
      f->kind = it->kind;  // a reassignment may have made a parameter a plain field
    }
    swaps_.clear();
  }

 private:
  struct Swap {
    TensorField field;
    FieldKind kind;
    Value original;
    Replacement rep;
  };
  DictObj& dict_;
  std::vector<Swap> swaps_;
};

// What an error inside the call adds when the dict's shapes differ from the model's
// own: the likely cause, which PyTorch leaves to the op that fails.
std::string shape_note(const std::vector<Replacement>& reps) {
  std::string note;
  for (const Replacement& r : reps)
    if (r.tensor.t.sizes() != r.own.sizes())
      note += "\n  note: functional_call() was given '" + str(r.key) + "' of shape " + r.tensor.t.shape_str() +
              " where the model's own has shape " + r.own.shape_str();
  return note;
}

// The positional arguments: a tuple gives each of its items, any other value is the
// only one (PyTorch's rule); kwargs, when not none, is a dict of str keys.
CallArgs model_call_args(const Value& args, const Value& kwargs) {
  CallArgs call;
  call.pos = args.tag == Tag::Tuple ? args.as<ListObj>()->items : std::vector<Value>{args};
  if (kwargs.is_none()) return call;
  if (kwargs.tag != Tag::Dict)
    fail(std::string("functional_call(): kwargs must be a dict or none, got ") + type_name(kwargs));
  for (auto& [k, v] : kwargs.as<DictObj>()->entries) {
    if (k.tag != Tag::Str) fail(std::string("functional_call(): the keys of kwargs must be str, got ") + repr(k));
    call.kw.emplace_back(k.as<StrObj>()->s, v);
  }
  return call;
}

// functional_call(model, params_and_buffers, args, kwargs=none): see Note [functional_call].
Value functional_call_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("functional_call", a, {"model", "params_and_buffers", "args", "kwargs"}, 3);
  const Value& model = b[0];
  if (model.tag != Tag::Instance)
    fail(std::string("functional_call(): model must be a model instance, got ") + type_name(model));
  if (b[1].tag != Tag::Dict)
    fail(std::string("functional_call(): params_and_buffers must be a dict of tensors, got ") + type_name(b[1]));
  CallArgs call = model_call_args(b[2], b[3]);
  std::vector<Replacement> reps = replacements(model, *b[1].as<DictObj>());
  SwappedFields swapped(model, *b[1].as<DictObj>(), reps);
  try {
    Value out = ev.call_value(model, call);
    swapped.restore();
    return out;
  } catch (LangError& e) {
    swapped.restore();
    if (!e.interrupted) e.message += shape_note(reps);
    throw;
  } catch (Error& e) {
    swapped.restore();
    std::string note = shape_note(reps);
    if (note.empty()) throw;
    throw Error(e.what() + note);
  } catch (...) {
    swapped.restore();
    throw;
  }
}

const BuiltinEntry kModelBuiltins[] = {
    {"deepcopy", deepcopy_builtin, "deepcopy(x)",
     "A copy of x all the way down (tensors, models, containers); what is shared in x is shared in the copy. "
     "Example: let teacher = deepcopy(nn.Linear(4, 2))"},
    {"delattr", delattr_builtin, "delattr(obj, name)",
     "Removes the field of a model (or attribute of an object) called name. Example: delattr(nn.Linear(4, 2), "
     "\"bias\")"},
    {"functional_call", functional_call_builtin, "functional_call(model, params_and_buffers, args, kwargs=none)",
     "Calls model(*args, **kwargs) with the dict's tensors (state_dict names) in place of its parameters and buffers, "
     "for this call only. Example: functional_call(nn.Linear(4, 2), {\"weight\": zeros(2, 4)}, (randn(3, 4),))"},
};

}  // namespace

// torch.func.functional_call, the func module's row (builtins_func.cpp).
Value func_module_functional_call(Evaluator& ev, CallArgs& a) { return functional_call_builtin(ev, a); }

const BuiltinLibrary kModelLibrary = {"models", nullptr, kModelBuiltins, nullptr};

}  // namespace nabla::interp
