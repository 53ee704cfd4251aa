// Forward-mode automatic differentiation: dual tensors (a primal with a tangent at a
// level, Note [Transform levels]) and how an op call carries tangents from its inputs
// to its outputs (the row's jvp, Note [Forward-mode rules] in jvp_rules.cpp).
#pragma once
#include <vector>

#include "autograd/op_table.hpp"
#include "autograd/transforms/levels.hpp"

namespace nabla {

// What a row's forward rule (OpDef::jvp) sees.
class JvpContext {
 public:
  JvpContext(const OpDef& def, const TensorList& inputs, const TensorList& tangents, const TensorList& outputs,
             const Attrs& attrs)
      : def_(def), inputs_(inputs), tangents_(tangents), outputs_(outputs), attrs_(attrs) {}

  const OpDef& def() const { return def_; }
  size_t num_inputs() const { return inputs_.size(); }
  const Tensor& input(size_t i) const { return inputs_[i]; }
  const TensorList& inputs() const { return inputs_; }
  // The tangent of input i: undefined where the input has none (a zero tangent).
  const Tensor& tangent(size_t i) const { return tangents_[i]; }
  bool has_tangent(size_t i) const { return i < tangents_.size() && tangents_[i].defined(); }
  // The tangent of input i, or zeros of its shape (a broadcast view, no memory).
  Tensor tangent_or_zero(size_t i) const;
  const Tensor& output(size_t k) const { return outputs_[k]; }
  const TensorList& outputs() const { return outputs_; }
  const Attrs& attrs() const { return attrs_; }

 private:
  const OpDef& def_;
  const TensorList& inputs_;
  const TensorList& tangents_;
  const TensorList& outputs_;
  const Attrs& attrs_;
};

namespace transforms {

// An op call some of whose inputs have tangents at forward level `level`: the
// outputs, carrying their tangents at that level.
TensorList forward_call(const OpDef& def, const TensorList& inputs, const Attrs& attrs, Level& level);

// The tangents of a row's outputs (undefined: zero), by its JvpKind. Inputs and
// outputs are as the op saw them; runs with the level being differentiated hidden.
TensorList row_jvp(const OpDef& def, const TensorList& inputs, const TensorList& tangents, const TensorList& outputs,
                   const Attrs& attrs);

// The row's backward rule run on the given inputs, outputs and output gradients,
// outside any recorded graph; `needs` says which inputs want a gradient. The forward
// rules derived from backward rules call it.
TensorList row_backward(const OpDef& def, const Attrs& attrs, const TensorList& inputs, const TensorList& outputs,
                        const TensorList& grads, const std::vector<bool>& needs);

// A new tensor with primal's values (and its history, for grad) and `tangent` at
// forward level `level`. `what` names the transform and the argument in errors.
Tensor make_dual(const Tensor& primal, const Tensor& tangent, Level& level, const std::string& what);
// t's values without its tangent at `level` (its other levels stay), differentiable.
Tensor primal_at(const Tensor& t, uint64_t level);

}  // namespace transforms
}  // namespace nabla
