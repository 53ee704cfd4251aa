// Python builtins that reshape models from outside: deepcopy (copy.deepcopy) and
// delattr. The pruning library (stdlib/prune.dsl) copies a model before it cuts it
// and removes `weight_orig` / `weight_mask` when pruning is made permanent.
#include <unordered_map>

#include "interp/builtins/builtins_internal.hpp"
#include "interp/values/value_walk.hpp"
#include "tensor/cpu/copy.hpp"

namespace nabla::interp {

namespace {

// What was copied already, by address: a tensor or a module reached twice (tied
// weights, a layer shared by two blocks) stays shared in the copy, and a cycle ends.
using Memo = std::unordered_map<const void*, Value>;

// A copy still to make: `src`'s copy goes into *dst, a slot of a copy made already.
// Copies are made from a work list, not by recursion, so a list nested a million
// deep or a chain of a million modules is copied too (Note [Module walk]).
struct CopyTask {
  Value src;
  Value* dst;
};

Value copy_tensor(const Tensor& t) {
  Tensor c = empty(t.sizes(), t.dtype(), t.device());
  copy_into(c, t);
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
  if (v.tag == Tag::Tensor) return memo[key] = copy_tensor(v.t);
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

const BuiltinEntry kModelBuiltins[] = {
    {"deepcopy", deepcopy_builtin, "deepcopy(x)",
     "A copy of x all the way down (tensors, models, containers); what is shared in x is shared in the copy. "
     "Example: let teacher = deepcopy(model)"},
    {"delattr", delattr_builtin, "delattr(obj, name)",
     "Removes the field of a model (or attribute of an object) called name. Example: delattr(layer, \"weight_orig\")"},
};

}  // namespace

const BuiltinLibrary kModelLibrary = {"models", nullptr, kModelBuiltins, nullptr};

}  // namespace nabla::interp
