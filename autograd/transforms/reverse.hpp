// Reverse levels: grad, vjp and jacrev as a transform level of their own, for the
// nestings the tape alone cannot differentiate.
//
// Note [Reverse levels]
// A reverse transform normally differentiates with autograd's tape, which records the
// ops that finally run (Note [Transform levels]): inside vmap those are the physical
// ops, so batch levels between the transform and its arguments are differentiated as
// one physical computation (Note [Per-example gradients]). That breaks when a vmap
// lies outside a jvp that lies outside the reverse transform, as in
// vmap(jacfwd(jacrev(f))) or vmap(x => jvp(grad(f), x, v)): the jvp's tangents live
// on tensors batched by that vmap, the tape's physical ops never see them, and the
// gradient would lose its tangent (or be summed over the batch).
//
// There the transform opens a reverse level instead, as functorch's grad does. Its
// arguments are lifted: a wrapper (TensorImpl::lifted) with the value's layout and
// storage and its own autograd history. An op with a lifted input goes to the
// reverse level (the innermost one, it being the newest): it runs on the wrapped
// values with the level hidden, so the jvp and vmap levels outside do their work, and
// records a node on the wrappers, whose edges go only to inputs lifted at this level
// (anything else is a constant to it). The backward pass runs after the function
// returns and the level has ended: an op meeting a wrapper whose level has ended (or
// is hidden) runs on the wrapped value, so the backward rules' ops are seen by every
// level still open, and gradients carry tangents and batch dims.
#pragma once
#include "autograd/op_table.hpp"
#include "autograd/transforms/levels.hpp"

namespace nabla::transforms {

// `inner` lifted to reverse level `level`: its layout and storage, no history yet.
Tensor lift(const Tensor& inner, uint64_t level);
// Whether t is lifted at `level`.
bool lifted_at(const Tensor& t, uint64_t level);
// The value t wraps at `level` (t itself when it is not lifted there).
Tensor lowered(const Tensor& t, uint64_t level);
// A new wrapper of the value t wraps at t's level, without t's history at that level
// (what autograd saves of a lifted output; a lifted tensor's detach).
Tensor relifted(const Tensor& t);

// Whether an input is lifted at a level that has ended or is hidden, and the inputs
// with each such wrapper replaced by what it wraps.
bool has_unseen_lifted(const TensorList& inputs);
TensorList without_unseen_lifted(const TensorList& inputs);

// An op call with inputs lifted at reverse level `level`.
TensorList reverse_call(const OpDef& def, const TensorList& inputs, const Attrs& attrs, Level& level);

}  // namespace nabla::transforms
