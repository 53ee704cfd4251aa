// Python builtins that reshape models from outside: deepcopy (copy.deepcopy) and
// delattr. The pruning library (stdlib/prune.dsl) copies a model before it cuts it
// and removes `weight_orig` / `weight_mask` when pruning is made permanent.
#include <unordered_map>

#include "interp/builtins_internal.hpp"
#include "interp/value_walk.hpp"
#include "tensor/cpu/copy.hpp"

namespace nabla::interp {

namespace {

// What was copied already, by address: a tensor or a module reached twice (tied
// weights, a layer shared by two blocks) stays shared in the copy, and a cycle ends.
using Memo = std::unordered_map<const void*, Value>;

// depth: how many containers deep the copy is (Note [Walks over nested values]: a
// deeper value than the stack allows is an error; a cycle ends at the memo).
Value deepcopy_value(const Value& v, Memo& memo, int depth = 0);

Value copy_tensor(const Tensor& t) {
  Tensor c = empty(t.sizes(), t.dtype(), t.device());
  copy_into(c, t);
  // A parameter stays a parameter; any other tensor (a buffer, a tensor computed from
  // parameters such as a pruned weight) comes back without history.
  if (t.is_leaf() && t.requires_grad()) c.set_requires_grad(true);
  return Value::tensor(c);
}

Value copy_instance(const Value& v, Memo& memo, int depth) {
  auto* src = v.as<InstanceObj>();
  auto inst = std::make_shared<InstanceObj>();
  Value out = Value::object(Tag::Instance, inst);
  memo[src] = out;
  inst->cls = src->cls;
  inst->ctor_frame = src->ctor_frame;  // methods reach fields through self, not the frame
  inst->forward_pre_hooks = src->forward_pre_hooks;
  inst->forward_hooks = src->forward_hooks;
  inst->backward_hooks = src->backward_hooks;
  inst->full_backward_hooks = src->full_backward_hooks;
  inst->next_hook_id = src->next_hook_id;
  for (const Field& f : src->fields) inst->fields.push_back({f.name, deepcopy_value(f.value, memo, depth + 1), f.kind});
  return out;
}

Value deepcopy_value(const Value& v, Memo& memo, int depth) {
  const void* key = v.tag == Tag::Tensor ? static_cast<const void*>(v.t.impl()) : nullptr;
  if (v.tag == Tag::Instance || v.tag == Tag::List || v.tag == Tag::Tuple || v.tag == Tag::Dict) key = v.o.get();
  if (!key) return v;  // numbers, strings, functions, classes, native objects: shared
  if (auto it = memo.find(key); it != memo.end()) return it->second;
  check_walk_depth("deepcopy()", v, depth);
  switch (v.tag) {
    case Tag::Tensor: return memo[key] = copy_tensor(v.t);
    case Tag::Instance: return copy_instance(v, memo, depth);
    case Tag::Dict: {
      auto d = std::make_shared<DictObj>();
      Value out = Value::object(Tag::Dict, d);
      memo[key] = out;
      for (auto& [k, x] : v.as<DictObj>()->entries) d->set(k, deepcopy_value(x, memo, depth + 1));
      return out;
    }
    default: {
      auto l = std::make_shared<ListObj>();
      Value out = Value::object(v.tag, l);
      memo[key] = out;
      for (const Value& x : v.as<ListObj>()->items) l->items.push_back(deepcopy_value(x, memo, depth + 1));
      return out;
    }
  }
}

}  // namespace

void install_model_builtins(Evaluator& ev) {
  // deepcopy(x): Python's copy.deepcopy for values of the language. Tensors are copied
  // (parameters stay leaves that require grad, without .grad), models field by field
  // with their hooks, lists, tuples and dicts item by item; anything else is shared.
  install_function(ev, "deepcopy", [](Evaluator&, CallArgs& a) {
    Bound b = bind("deepcopy", a, {"x"}, 1);
    Memo memo;
    return deepcopy_value(b[0], memo);
  });
  // delattr(obj, name): removes a field of a model (a parameter, buffer, submodule or
  // attribute) or an attribute of an object, as Python's.
  install_function(ev, "delattr", [](Evaluator&, CallArgs& a) {
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
  });
}

}  // namespace nabla::interp
