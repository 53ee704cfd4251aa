// deepcopy(x): Python's copy.deepcopy for the language's values, so that a transform
// (quant.quantize_dynamic, quant.prepare_qat) can hand back a new model and leave the
// one it was given untouched. Tensors are copied (a leaf that requires grad stays
// one; .grad is not copied), model instances get new field lists, lists, tuples and
// dicts new items; everything else (numbers, strings, functions, classes, modules)
// is immutable or shared by nature and is returned as is. A memo keeps sharing inside
// the copy: a tensor or submodule reached twice (tied weights) is copied once.
// Constructor-local variables (a model's `let`s, which its methods may read) stay
// shared with the original, like a class's methods.
#include <unordered_map>

#include "autograd/grad_mode.hpp"
#include "autograd/ops.hpp"
#include "interp/builtins_internal.hpp"
#include "tensor/cpu/copy.hpp"

namespace nabla::interp {

namespace {

class DeepCopy {
 public:
  Value copy(const Value& v) {
    switch (v.tag) {
      case Tag::Tensor: return copy_tensor(v);
      case Tag::List:
      case Tag::Tuple:
      case Tag::Dict:
      case Tag::Instance: return copy_object(v);
      default: return v;
    }
  }

 private:
  std::unordered_map<const void*, Value> memo_;

  Value copy_tensor(const Value& v) {
    if (!v.t.defined()) return v;
    auto it = memo_.find(v.t.impl());
    if (it != memo_.end()) return it->second;
    Tensor c = empty(v.t.sizes(), v.t.dtype(), v.t.device());
    copy_into(c, v.t);
    if (v.t.requires_grad() && v.t.is_leaf()) c.set_requires_grad(true);
    return memo_[v.t.impl()] = Value::tensor(c);
  }

  Value copy_object(const Value& v) {
    auto it = memo_.find(v.o.get());
    if (it != memo_.end()) return it->second;
    if (v.tag == Tag::Instance) return copy_instance(v);
    if (v.tag == Tag::Dict) {
      auto d = std::make_shared<DictObj>();
      Value out = memo_[v.o.get()] = Value::object(Tag::Dict, d);
      for (auto& [k, x] : v.as<DictObj>()->entries) d->set(k, copy(x));
      return out;
    }
    auto l = std::make_shared<ListObj>();
    Value out = memo_[v.o.get()] = Value::object(v.tag, l);
    for (const Value& x : v.as<ListObj>()->items) l->items.push_back(copy(x));
    return out;
  }

  Value copy_instance(const Value& v) {
    auto* from = v.as<InstanceObj>();
    auto inst = std::make_shared<InstanceObj>();
    Value out = memo_[v.o.get()] = Value::object(Tag::Instance, inst);
    inst->cls = from->cls;
    inst->ctor_frame = from->ctor_frame;
    inst->forward_hooks = from->forward_hooks;
    inst->backward_hooks = from->backward_hooks;
    inst->full_backward_hooks = from->full_backward_hooks;
    inst->next_hook_id = from->next_hook_id;
    for (const Field& f : from->fields) inst->fields.push_back({f.name, copy(f.value), f.kind});
    return out;
  }
};

}  // namespace

void install_copy_builtins(Evaluator& ev) {
  install_function(ev, "deepcopy", [](Evaluator&, CallArgs& a) {
    Bound b = bind("deepcopy", a, {"x"}, 1);
    NoGradGuard no_grad;
    return DeepCopy().copy(b[0]);
  });
}

}  // namespace nabla::interp
