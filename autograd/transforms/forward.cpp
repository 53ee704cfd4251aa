#include "autograd/transforms/forward.hpp"

#include "autograd/engine.hpp"
#include "autograd/grad_mode.hpp"
#include "autograd/node.hpp"
#include "autograd/ops.hpp"
#include "autograd/transforms/vmap.hpp"

namespace nabla {

Tensor JvpContext::tangent_or_zero(size_t i) const {
  if (has_tangent(i)) return tangents_[i];
  const Tensor& x = inputs_[i];
  return expand(zeros({}, x.dtype(), x.device()), IntList(x.sizes().begin(), x.sizes().end()));
}

namespace transforms {

namespace {

// The next edge of an input that wants a gradient in row_backward: rules only ask
// whether there is one (BackwardContext::needs_grad); nothing runs through it.
struct WantsGradient : Node {
  TensorList apply(TensorList&&) override { return {}; }
  std::string name() const override { return "WantsGradient"; }
};

bool differentiable_output(const OpDef& def, const Tensor& out, size_t k) {
  return out.defined() && is_floating(out.dtype()) && !(k < 32 && (def.nondiff_outputs >> k) & 1u);
}

// The tangent a rule gave for output `out`, in the output's dtype and shape (a rule
// may give the tangent of a broadcast input, or compute in another dtype).
Tensor fit_tangent(const OpDef& def, const Tensor& tangent, const Tensor& out) {
  Tensor t = tangent;
  if (t.dtype() != out.dtype()) t = to_dtype(t, out.dtype());
  if (!(t.sizes() == out.sizes())) {
    try {
      t = expand(t, IntList(out.sizes().begin(), out.sizes().end()));
    } catch (const Error&) {
      throw Error(std::string("jvp of ") + def.name + ": its forward rule gave a tangent of shape " + t.shape_str() +
                  " for an output of shape " + out.shape_str() + " (a bug in the rule)");
    }
  }
  return t;
}

// Note [Forward-mode rules] is in jvp_rules.cpp; these are the derived kinds.

// linear: the op applied to the tangents (zeros where an input has none); inputs
// that are not floating (indices, masks) stay as they are.
TensorList jvp_linear(const JvpContext& c) {
  TensorList args = c.inputs();
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].defined() && is_floating(args[i].dtype())) args[i] = c.tangent_or_zero(i);
  return call(c.def().id, args, c.attrs());
}

// multilinear: one call per input with a tangent, that input replaced by its tangent;
// a bias input (jvp_bias_input) is left out of every call but the first, which takes
// its tangent.
TensorList jvp_multilinear(const JvpContext& c) {
  int bias = c.def().jvp_bias_input;
  bool bias_pending = bias >= 0 && c.has_tangent(static_cast<size_t>(bias));
  TensorList total;
  auto add_term = [&](TensorList term) {
    if (total.empty()) {
      total = std::move(term);
      return;
    }
    for (size_t k = 0; k < total.size(); ++k) total[k] = add(total[k], term[k]);
  };
  for (size_t i = 0; i < c.num_inputs(); ++i) {
    if (static_cast<int>(i) == bias || !c.has_tangent(i)) continue;
    TensorList args = c.inputs();
    args[i] = c.tangent(i);
    if (bias >= 0) args[static_cast<size_t>(bias)] = bias_pending ? c.tangent(static_cast<size_t>(bias)) : Tensor();
    bias_pending = false;
    add_term(call(c.def().id, args, c.attrs()));
  }
  if (bias_pending) {  // only the bias moves: the op of zeros plus the bias tangent
    TensorList args = c.inputs();
    for (size_t i = 0; i < args.size(); ++i)
      if (static_cast<int>(i) != bias && args[i].defined() && is_floating(args[i].dtype())) {
        args[i] = zeros_like(args[i]);
        break;
      }
    args[static_cast<size_t>(bias)] = c.tangent(static_cast<size_t>(bias));
    add_term(call(c.def().id, args, c.attrs()));
  }
  return total;
}

// elementwise: the Jacobian of an input is diagonal once the inputs are broadcast to
// the output's shape, so J t equals J^T t: the backward rule with the tangent as the
// output gradient. Inputs are expanded first so that the rule does not sum over
// broadcast dims.
TensorList jvp_elementwise(const JvpContext& c) {
  const Tensor& out = c.output(0);
  IntList shape(out.sizes().begin(), out.sizes().end());
  TensorList expanded = c.inputs();
  for (size_t i = 0; i < expanded.size(); ++i) {
    Tensor& x = expanded[i];
    if (!x.defined() || x.sizes() == out.sizes() || (x.dim() == 0 && !c.has_tangent(i))) continue;
    x = expand(x, shape);
  }
  Tensor total;
  for (size_t i = 0; i < c.num_inputs(); ++i) {
    if (!c.has_tangent(i)) continue;
    std::vector<bool> needs(c.num_inputs(), false);
    needs[i] = true;
    Tensor t = c.tangent(i).sizes() == out.sizes() ? c.tangent(i) : expand(c.tangent(i), shape);
    TensorList g = row_backward(c.def(), c.attrs(), expanded, c.outputs(), {t}, needs);
    if (i >= g.size() || !g[i].defined()) continue;
    total = total.defined() ? add(total, g[i]) : g[i];
  }
  return {total};
}

// The batch levels whose physical ops the tape records here (innermost first): those
// visible and newer than every visible jvp level, as a reverse transform inside vmap
// takes them (Note [Per-example gradients] in interp/builtins/builtins_func.cpp).
std::vector<std::pair<uint64_t, int64_t>> tape_batch_levels() {
  std::vector<std::pair<uint64_t, int64_t>> out;
  if (!any_level_visible()) return out;
  const Level* forward = innermost_visible(LevelKind::forward);
  const uint64_t newest_forward = forward ? forward->id : 0;
  std::vector<std::unique_ptr<HideLevels>> hidden;
  while (Level* l = innermost_visible(LevelKind::batch)) {
    if (l->id < newest_forward) break;
    out.emplace_back(l->id, l->batch_size);
    hidden.push_back(std::make_unique<HideLevels>(l->id));
  }
  while (!hidden.empty()) hidden.pop_back();  // innermost last: each restores the one before
  return out;
}

Tensor physical_at(const Tensor& t, const std::vector<std::pair<uint64_t, int64_t>>& levels) {
  Tensor p = t;
  for (const auto& [id, size] : levels) p = unbatch(p, id, size, 0);
  return p;
}

Tensor logical_at(const Tensor& p, const std::vector<std::pair<uint64_t, int64_t>>& levels) {
  Tensor t = p;
  for (auto it = levels.rbegin(); it != levels.rend(); ++it) t = make_batched(t, it->first, 0);
  return t;
}

// transpose: the backward rule B(g) = J^T g is linear in g, so J t is the gradient of
// <B(g), t> with respect to g; one backward rule and one backward pass through it.
// Inside vmap the tape records physical ops, so g is a physical leaf with every batch
// dim (each example its own g): a g shared by the batch summed the examples' products
// into one, and a g without the batch dims had none of the tape's history, which gave
// vmap(x => jvp(layer_norm, (x,), (v,))) zeros.
TensorList jvp_transpose(const JvpContext& c) {
  const OpDef& def = c.def();
  bool record_result = grad_enabled();
  GradModeGuard enable(true);
  const auto levels = tape_batch_levels();
  TensorList grads, wrt;
  std::vector<size_t> wrt_output;
  for (size_t k = 0; k < c.outputs().size(); ++k) {
    const Tensor& out = c.output(k);
    if (!out.defined()) {
      grads.emplace_back();
      continue;
    }
    Shape shape = levels.empty() ? out.sizes() : physical_at(out, levels).sizes();
    Tensor g = zeros(shape, is_floating(out.dtype()) ? out.dtype() : DType::f32, out.device());
    if (differentiable_output(def, out, k)) {
      g.set_requires_grad(true);
      wrt.push_back(g);
      wrt_output.push_back(k);
    }
    grads.push_back(logical_at(g, levels));
  }
  std::vector<bool> needs(c.num_inputs());
  bool keep_graph = false;
  for (size_t i = 0; i < c.num_inputs(); ++i) {
    needs[i] = c.has_tangent(i);
    keep_graph |= c.input(i).defined() && c.input(i).requires_grad();
    keep_graph |= needs[i] && c.tangent(i).requires_grad();
  }
  keep_graph &= record_result;
  TensorList b = row_backward(def, c.attrs(), c.inputs(), c.outputs(), grads, needs);
  TensorList roots, seeds;
  for (size_t i = 0; i < c.num_inputs() && i < b.size(); ++i) {
    if (!needs[i] || !b[i].defined()) continue;
    Tensor root = physical_at(b[i], levels);
    if (!root.requires_grad()) continue;
    roots.push_back(root);
    seeds.push_back(physical_at(c.tangent(i), levels));
  }
  TensorList result(c.outputs().size());
  if (roots.empty() || wrt.empty()) return result;
  GradModeGuard restore(record_result);
  TensorList jt = grad(roots, wrt, seeds, keep_graph, keep_graph, /*allow_unused=*/true);
  for (size_t j = 0; j < wrt_output.size(); ++j)
    if (jt[j].defined()) result[wrt_output[j]] = logical_at(jt[j], levels);
  return result;
}

}  // namespace

TensorList row_backward(const OpDef& def, const Attrs& attrs, const TensorList& inputs, const TensorList& outputs,
                        const TensorList& grads, const std::vector<bool>& needs) {
  static const std::shared_ptr<Node> wants_gradient = std::make_shared<WantsGradient>();
  auto node = std::make_shared<OpNode>(def, attrs);
  node->inputs.resize(inputs.size());
  node->next_edges.resize(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = inputs[i];
    if (!t.defined()) {
      node->inputs[i].saved = SavedTensor::absent();
      continue;
    }
    node->inputs[i].meta = {t.sizes(), t.dtype(), t.device()};
    node->inputs[i].saved = SavedTensor(t, false);
    if (i < needs.size() && needs[i]) node->next_edges[i] = Edge{wants_gradient, 0};
  }
  // Kept as they are (not as outputs of this node): the rule's ops then record onto
  // the real history of each output.
  node->saved_outputs.reserve(outputs.size());
  for (const Tensor& out : outputs) node->saved_outputs.emplace_back(out, false);
  for (const Tensor& out : outputs) node->output_metas.push_back({out.sizes(), out.dtype(), out.device()});
  BackwardContext ctx(*node, grads);
  TensorList result = def.backward(ctx);
  result.resize(inputs.size());
  return result;
}

TensorList row_jvp(const OpDef& def, const TensorList& inputs, const TensorList& tangents, const TensorList& outputs,
                   const Attrs& attrs) {
  JvpContext c(def, inputs, tangents, outputs, attrs);
  switch (def.jvp_kind) {
    case JvpKind::none:
      if (def.backward)
        throw Error(std::string("jvp: ") + def.name + " has no forward-mode derivative" +
                    (def.straight_through ? std::string(" (its gradient is a surrogate: ") + def.straight_through + ")"
                                          : std::string()));
      return {};  // not differentiable: its outputs have no tangent, as PyTorch's
    case JvpKind::linear: return jvp_linear(c);
    case JvpKind::multilinear: return jvp_multilinear(c);
    case JvpKind::elementwise: return jvp_elementwise(c);
    case JvpKind::rule: return def.jvp(c);
    case JvpKind::transpose: return jvp_transpose(c);
  }
  return {};
}

TensorList forward_call(const OpDef& def, const TensorList& inputs, const Attrs& given, Level& level) {
  Attrs completed = given.items().size() == def.attrs.size() ? given : complete_attrs(def, given);
  TensorList tangents(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) tangents[i] = tangent_at(inputs[i], level.id);
  TensorList outs, out_tangents;
  {
    HideLevels hide(level.id);
    outs = call(def.id, inputs, completed);
    out_tangents = row_jvp(def, inputs, tangents, outs, completed);
    for (size_t k = 0; k < outs.size() && k < out_tangents.size(); ++k)
      if (out_tangents[k].defined() && differentiable_output(def, outs[k], k))
        out_tangents[k] = fit_tangent(def, out_tangents[k], outs[k]);
  }
  for (size_t k = 0; k < outs.size() && k < out_tangents.size(); ++k)
    if (out_tangents[k].defined() && differentiable_output(def, outs[k], k))
      set_tangent(outs[k], level, out_tangents[k]);
  return outs;
}

Tensor make_dual(const Tensor& primal, const Tensor& tangent, Level& level, const std::string& what) {
  if (!is_floating(primal.dtype()))
    throw Error(what + ": a tangent needs a floating primal, got " + dtype_name(primal.dtype()));
  if (!(tangent.sizes() == primal.sizes()))
    throw Error(what + ": the tangent has shape " + tangent.shape_str() + " but its primal has shape " +
                primal.shape_str());
  if (tangent.dtype() != primal.dtype())
    throw Error(what + ": the tangent is " + dtype_name(tangent.dtype()) + " but its primal is " +
                dtype_name(primal.dtype()));
  if (tangent.device() != primal.device())
    throw Error(what + ": the tangent is on " + tangent.device().str() + " but its primal is on " +
                primal.device().str());
  Tensor dual;
  {
    HideLevels hide(level.id);  // a primal that already has a tangent here keeps it out of the dual
    dual = alias(primal);
  }
  set_tangent(dual, level, tangent);
  return dual;
}

Tensor primal_at(const Tensor& t, uint64_t level) {
  HideLevels hide(level);
  return alias(t);
}

}  // namespace transforms
}  // namespace nabla
