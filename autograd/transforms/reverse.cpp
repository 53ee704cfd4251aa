#include "autograd/transforms/reverse.hpp"

#include "autograd/grad_mode.hpp"
#include "autograd/node.hpp"
#include "autograd/ops.hpp"

namespace nabla::transforms {

Tensor lift(const Tensor& inner, uint64_t level) {
  auto impl = std::make_shared<TensorImpl>();
  const TensorImpl& from = *inner.impl();
  impl->storage = from.storage;  // reads of a lifted tensor are reads of the value it wraps
  impl->sizes = from.sizes;
  impl->strides = from.strides;
  impl->offset = from.offset;
  impl->dtype = from.dtype;
  impl->is_view = from.is_view;
  impl->wrapped_number = from.wrapped_number;
  impl->refresh_layout();
  impl->lifted = std::make_shared<LiftedInfo>(inner, level);
  return Tensor(std::move(impl));
}

bool lifted_at(const Tensor& t, uint64_t level) {
  return t.defined() && t.impl()->lifted && t.impl()->lifted->level == level;
}

Tensor lowered(const Tensor& t, uint64_t level) { return lifted_at(t, level) ? t.impl()->lifted->inner : t; }

Tensor relifted(const Tensor& t) { return lift(t.impl()->lifted->inner, t.impl()->lifted->level); }

namespace {

bool unseen(const Tensor& t) { return t.defined() && t.impl()->lifted && !visible_level(t.impl()->lifted->level); }

Tensor seen(const Tensor& t) { return unseen(t) ? seen(t.impl()->lifted->inner) : t; }

}  // namespace

bool has_unseen_lifted(const TensorList& inputs) {
  for (const Tensor& t : inputs)
    if (unseen(t)) return true;
  return false;
}

TensorList without_unseen_lifted(const TensorList& inputs) {
  TensorList out;
  out.reserve(inputs.size());
  for (const Tensor& t : inputs) out.push_back(seen(t));
  return out;
}

TensorList reverse_call(const OpDef& def, const TensorList& inputs, const Attrs& given, Level& level) {
  Attrs attrs = given.items().size() == def.attrs.size() ? given : complete_attrs(def, given);
  TensorList values(inputs.size());
  uint64_t constants = 0;  // inputs not lifted here: constants to this level
  bool differentiable = false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    values[i] = lowered(inputs[i], level.id);
    if (lifted_at(inputs[i], level.id)) differentiable |= inputs[i].requires_grad();
    else if (i < 64) constants |= uint64_t{1} << i;
  }
  TensorList outs;
  {
    HideLevels hide(level.id);
    outs = call(def.id, values, attrs);
  }
  for (Tensor& out : outs)
    if (out.defined()) out = lift(out, level.id);
  if (differentiable && def.backward && grad_enabled()) record_call(def, inputs, attrs, outs, constants);
  return outs;
}

}  // namespace nabla::transforms
