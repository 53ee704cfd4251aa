// The function transforms, as JAX's and torch.func's: grad, value_and_grad, vjp,
// jvp, jacrev, jacfwd, hessian, hvp and vmap. Each takes a function and returns a
// function (or calls it at once: vjp, jvp, hvp). Arguments and results may be
// tensors or pytrees of them (interp/values/pytree.hpp). The table at the end is
// the family's (Note [Builtin tables]); they are global builtins and the native
// module `func` alike.
//
// Reverse mode is autograd's tape: the transform runs the function on aliases of
// its arguments that require grad, then one backward pass. jvp and vmap open levels
// (Note [Transform levels] in autograd/transforms/levels.hpp); jacrev is vmap over
// vjp, jacfwd vmap over jvp, hessian jacfwd over jacrev, hvp jvp over grad.
//
// Note [Per-example gradients]
// Inside vmap a tensor is a wrapper around a physical tensor with a batch dim, and
// autograd records the physical ops. grad inside vmap (vmap(grad(f))) therefore
// differentiates physical tensors: each differentiated argument is batched at every
// open batch level (expanded where it is not), its physical tensor becomes the leaf,
// and the per-example outputs are seeded with ones. The examples of a batch never mix
// (that is what vmap means), so the gradient of the summed outputs with respect to
// the physical leaf holds each example's own gradient in its slot.
#include "autograd/engine.hpp"

#include <algorithm>
#include <unordered_set>

#include "autograd/grad_mode.hpp"
#include "autograd/node.hpp"
#include "autograd/ops.hpp"
#include "autograd/transforms/forward.hpp"
#include "autograd/transforms/reverse.hpp"
#include "autograd/transforms/vmap.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "interp/builtins/func_transforms.hpp"
#include "interp/values/pytree.hpp"

namespace nabla::interp {

namespace func {

// How many reverse-mode transforms (grad, vjp, jacrev) are running their function on
// this thread: one inside another keeps the graph of its results, so that the outer
// one can differentiate them. (Forward mode needs no graph: tangents flow through the
// backward pass's ops as through any others.)
thread_local int t_reverse_depth = 0;

// What a transform can call: functions, builtins, methods, models, custom functions,
// and objects with __call__ (a compiled graph module, which runs its function eagerly
// inside a transform: Note [Gradients through an inference graph]).
bool is_function(const Value& v) {
  return v.tag == Tag::Func || v.tag == Tag::Native || v.tag == Tag::Bound || v.tag == Tag::Instance ||
         v.tag == Tag::FnClass || (v.tag == Tag::Object && v.as<ObjectObj>()->methods.count("__call__") > 0);
}

Value call_function(Evaluator& ev, const Value& f, std::vector<Value> pos,
                    std::vector<std::pair<std::string, Value>> kw, Mode mode) {
  CallArgs a;
  a.pos = std::move(pos);
  a.kw = std::move(kw);
  int entered = mode == Mode::reverse ? 1 : 0;
  t_reverse_depth += entered;
  struct Leave {
    int n;
    ~Leave() { t_reverse_depth -= n; }
  } leave{entered};
  return ev.call_value(f, a);
}

// The tensor whose graph autograd records for t: t, or the physical tensor inside
// vmap's wrappers.
const Tensor& recorded_tensor(const Tensor& t) {
  if (t.defined() && t.impl()->batched) return recorded_tensor(t.impl()->batched->physical);
  return t.defined() && t.impl()->lifted ? recorded_tensor(t.impl()->lifted->inner) : t;
}

// Whether the graph behind `outputs` reaches a tensor that requires grad other than
// `leaves` (a parameter the function captured).
bool reaches_other_leaves(const std::vector<Tensor>& outputs, const std::vector<Tensor>& leaves) {
  std::unordered_set<const TensorImpl*> ours;
  for (const Tensor& l : leaves) ours.insert(l.impl());
  std::unordered_set<const Node*> seen;
  std::vector<std::shared_ptr<Node>> stack;
  for (const Tensor& o : outputs) {
    const Tensor& t = recorded_tensor(o);
    if (t.requires_grad()) stack.push_back(gradient_edge(t).fn);
  }
  while (!stack.empty()) {
    std::shared_ptr<Node> node = std::move(stack.back());
    stack.pop_back();
    if (!node || !seen.insert(node.get()).second) continue;
    if (auto* acc = dynamic_cast<AccumulateGrad*>(node.get())) {
      auto leaf = acc->leaf.lock();
      if (leaf && !ours.count(leaf.get())) return true;
      continue;
    }
    for (const Edge& e : node->next_edges) stack.push_back(e.fn);
  }
  return false;
}

// Whether the gradients a reverse transform computes must stay differentiable: grad
// mode was on where it was called (`recording`), and an outer backward may want them:
// inside another reverse transform, for arguments that require grad, or for outputs
// that depend on captured tensors that do (as torch.func's grad keeps them).
bool keep_graph(bool recording, const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs,
                const std::vector<Tensor>& leaves) {
  if (!recording) return false;
  if (t_reverse_depth > 0) return true;
  for (const Tensor& t : inputs)
    if (t.defined() && t.requires_grad()) return true;
  return reaches_other_leaves(outputs, leaves);
}

ArgNums parse_argnums(const Value& v, const std::string& fname) {
  ArgNums out;
  // An int, not a float that happens to be whole: functorch rejects argnums=1.0.
  auto one = [&](const Value& x) {
    if (x.tag != Tag::Int) fail(fname + "(): argnums must be an int or a tuple of ints, got " + type_name(x));
    // Named twice as written: an error where the transform is made, as functorch's; (0, -2)
    // for two arguments is found at the call (check_argnums).
    if (std::find(out.given.begin(), out.given.end(), x.i) != out.given.end())
      fail(fname + "(): argnums holds " + std::to_string(x.i) + " twice; give each argument once");
    out.given.push_back(x.i);
  };
  if (v.tag == Tag::Tuple || v.tag == Tag::List) {
    out.tuple = true;
    for (const Value& x : v.as<ListObj>()->items) one(x);
    if (out.given.empty()) fail(fname + "(): argnums is an empty tuple");
  } else {
    one(v);
  }
  return out;
}

ArgNums check_argnums(const ArgNums& argnums, size_t nargs, const std::string& fname) {
  if (argnums.given.empty()) {
    for (size_t k : argnums.which)
      if (k >= nargs)
        fail(fname + "(): argnums " + std::to_string(k) + " is out of range: the function was called with " +
             std::to_string(nargs) + " positional argument" + (nargs == 1 ? "" : "s"));
    return argnums;
  }
  ArgNums out;
  out.tuple = argnums.tuple;
  const auto n = static_cast<int64_t>(nargs);
  for (int64_t k : argnums.given) {
    if (k < -n || k >= n)
      fail(fname + "(): argnums " + std::to_string(k) + " is out of range: the function was called with " +
           std::to_string(nargs) + " positional argument" + (nargs == 1 ? "" : "s"));
    auto at = static_cast<size_t>(k < 0 ? k + n : k);
    // Each argument is differentiated once: a second entry for it replaced the first's
    // tensors, whose gradient then came back as zeros.
    if (std::find(out.which.begin(), out.which.end(), at) != out.which.end())
      fail(fname + "(): argnums holds " + std::to_string(at) + " twice; give each argument once");
    out.which.push_back(at);
  }
  return out;
}

Value function_arg(CallArgs& a, const std::string& fname) {
  if (a.pos.empty()) fail(fname + "() missing required argument 'func'");
  Value f = a.pos[0];
  if (!is_function(f)) fail(fname + "(): func must be a function, got " + type_name(f));
  return f;
}

// The batch levels a reverse transform differentiates through (Note [Per-example
// gradients]): those open now, innermost first, down to the innermost jvp. A jvp
// between a vmap and this transform (hessian's jacfwd over jacrev) gives tangents
// batched at that vmap; those levels stay outside, where the tape records the batched
// tangent ops as it records any others.
std::vector<std::pair<uint64_t, int64_t>> open_batch_levels() {
  std::vector<std::pair<uint64_t, int64_t>> out;
  const Level* forward = transforms::innermost_visible(LevelKind::forward);
  uint64_t newest_forward = forward ? forward->id : 0;
  std::vector<std::unique_ptr<transforms::HideLevels>> hidden;
  while (Level* l = transforms::innermost_visible(LevelKind::batch)) {
    if (l->id < newest_forward) break;
    out.emplace_back(l->id, l->batch_size);
    hidden.push_back(std::make_unique<transforms::HideLevels>(l->id));
  }
  // Innermost last: each HideLevels restores what the one before it saw, and a vector
  // destroys front to back, which left the inner level hidden when two vmaps were
  // open (vmap(vmap(grad(f))) ran its ops on the wrappers' kernels).
  while (!hidden.empty()) hidden.pop_back();
  return out;
}

// t as the physical tensor of every batch level in `levels` (batch dims first,
// outermost first), expanded at the levels where it is not batched.
Tensor to_physical(const Tensor& t, const std::vector<std::pair<uint64_t, int64_t>>& levels,
                   const std::string& fname) {
  Tensor p = t;
  for (const auto& [id, size] : levels) {
    if (!transforms::level_open(id)) fail(fname + ": called after the vmap it was made in returned");
    p = transforms::unbatch(p, id, size, 0);
  }
  return p;
}

Tensor to_logical(const Tensor& p, const std::vector<std::pair<uint64_t, int64_t>>& levels) {
  Tensor t = p;
  for (auto it = levels.rbegin(); it != levels.rend(); ++it) t = transforms::make_batched(t, it->first, 0);
  return t;
}

// t without its autograd history, keeping its jvp tangents (jvp of grad needs them),
// also those on the physical tensor of a vmap wrapper.
Tensor without_history(const Tensor& t) {
  Tensor d;
  if (const auto& b = t.impl()->batched)
    d = transforms::make_batched(without_history(b->physical), b->level, b->bdim);
  else
    d = detach(t);
  transforms::share_tangents(t, d);
  return d;
}

// Whether a vmap lies outside a jvp that is open here: the tape cannot differentiate
// through both, and a reverse level does (Note [Reverse levels]).
bool needs_reverse_level() {
  const Level* forward = transforms::innermost_visible(LevelKind::forward);
  const Level* batch = transforms::outermost_visible(LevelKind::batch);
  return forward && batch && batch->id < forward->id;
}

Differentiated differentiate(const std::vector<Tensor>& tensors, const std::string& fname) {
  Differentiated d;
  if (needs_reverse_level()) {
    d.reverse_scope = std::make_unique<LevelScope>(LevelKind::reverse);
    d.reverse_level = d.reverse_scope->id();
  } else {
    d.levels = open_batch_levels();
  }
  for (const Tensor& t : tensors) {
    if (!is_floating(t.dtype()))
      fail(fname + ": an argument to differentiate has dtype " + dtype_name(t.dtype()) +
           "; gradients need floating tensors (convert it with .to(f32) or leave it out of argnums)");
    Tensor leaf = d.reverse_level ? transforms::lift(t, d.reverse_level) : alias(to_physical(t, d.levels, fname));
    if (!leaf.requires_grad()) leaf.set_requires_grad(true);
    d.leaves.push_back(leaf);
    d.logical.push_back(to_logical(leaf, d.levels));
  }
  return d;
}

void function_returned(Differentiated& d) { d.reverse_scope.reset(); }

Value returned_value(const Differentiated& d, const Value& value) {
  if (!d.reverse_level) return value;
  std::vector<Tensor> leaves = tree_leaves(value);
  if (leaves.empty()) return value;
  for (Tensor& t : leaves) t = transforms::lowered(t, d.reverse_level);
  return tree_rebuild(value, leaves);
}

// Gradients of `outputs` (logical) weighted by `cotangents` (logical; undefined: ones
// for a one-element output) with respect to the differentiated leaves, as logical
// tensors; zeros where an output does not depend on a leaf.
std::vector<Tensor> reverse_pass(const Differentiated& d, const std::vector<Tensor>& outputs,
                                 const std::vector<Tensor>& cotangents, bool keep, const std::string& fname) {
  TensorList roots, seeds;
  for (size_t k = 0; k < outputs.size(); ++k) {
    Tensor out = to_physical(outputs[k], d.levels, fname);
    bool depends = d.reverse_level ? transforms::lifted_at(out, d.reverse_level) && out.requires_grad()
                                   : out.requires_grad();
    if (!depends) continue;  // does not depend on what is differentiated
    roots.push_back(out);
    seeds.push_back(cotangents[k].defined() ? to_physical(cotangents[k], d.levels, fname) : ones_like(out));
  }
  std::vector<Tensor> grads(d.leaves.size());
  if (!roots.empty()) grads = grad(roots, d.leaves, seeds, /*retain_graph=*/true, keep, /*allow_unused=*/true);
  std::vector<Tensor> out;
  for (size_t i = 0; i < d.leaves.size(); ++i) {
    Tensor g = grads[i].defined() ? grads[i] : zeros_like(d.leaves[i]);
    if (!keep) g = without_history(g);
    out.push_back(to_logical(g, d.levels));
  }
  return out;
}

std::vector<Tensor> checked_outputs(const Value& out, const std::string& fname) {
  std::vector<Tensor> leaves = tree_leaves(out);
  if (leaves.empty())
    fail(fname + ": the function must return a tensor (or a list, tuple or dict of tensors), got " + type_name(out));
  return leaves;
}

std::vector<Tensor> checked_inputs(const Value& v, const std::string& fname, const std::string& what) {
  std::vector<Tensor> leaves = tree_leaves(v);
  if (leaves.empty())
    fail(fname + ": " + what + " has no tensor to differentiate: expected a tensor (or a list, tuple or dict of "
         "tensors), got " + type_name(v));
  return leaves;
}

// Splits (output, aux) when has_aux.
std::pair<Value, Value> split_aux(const Value& out, bool has_aux, const std::string& fname) {
  if (!has_aux) return {out, Value()};
  if (out.tag != Tag::Tuple || out.as<ListObj>()->items.size() != 2)
    fail(fname + "(has_aux=true): the function must return a tuple (output, aux), got " + type_name(out));
  const auto& items = out.as<ListObj>()->items;
  return {items[0], items[1]};
}

// ---- grad and value_and_grad ----------------------------------------------------------

GradSpec grad_spec(CallArgs& a, const std::string& fname) {
  Value f = function_arg(a, fname);
  CallArgs rest;
  rest.pos.assign(a.pos.begin() + 1, a.pos.end());
  rest.kw = a.kw;
  Bound b = bind(fname, rest, {"argnums", "has_aux"}, 0);
  // argnums=0 as given, so that each call checks it against its arguments: a call
  // with none (grad(f)()) read argument 0 past the end (SIGSEGV).
  GradSpec s{f, ArgNums{{}, false, {0}}, b.has(1) && as_bool(b[1], fname + "(): has_aux"), fname};
  if (b.has(0)) s.argnums = parse_argnums(b[0], fname);
  return s;
}

// (value, gradients, aux) of one call of a grad transform.
struct ValueAndGrad {
  Value value, grads, aux;
};

ValueAndGrad run_value_and_grad(Evaluator& ev, const GradSpec& spec, CallArgs& a) {
  GradSpec s = spec;
  s.argnums = check_argnums(spec.argnums, a.pos.size(), spec.name);
  std::vector<Value> args = a.pos;
  std::vector<Tensor> all;
  for (size_t k : s.argnums.which) {
    std::vector<Tensor> leaves = checked_inputs(args[k], s.name, "argument " + std::to_string(k) + " (in argnums)");
    all.insert(all.end(), leaves.begin(), leaves.end());
  }
  bool recording = grad_enabled();
  GradModeGuard enable(true);
  Differentiated d = differentiate(all, s.name);
  size_t next = 0;
  for (size_t j = 0; j < s.argnums.which.size(); ++j)
    args[s.argnums.which[j]] = tree_replace(args[s.argnums.which[j]], d.logical, next);
  Value out = call_function(ev, s.f, args, a.kw, Mode::reverse);
  function_returned(d);
  auto [value, aux] = split_aux(out, s.has_aux, s.name);
  if (value.tag != Tag::Tensor)
    fail(s.name + ": the function must return a tensor, got " + type_name(value) +
         (s.has_aux ? "" : " (pass has_aux=true to return (output, aux))"));
  if (value.t.numel() != 1)
    fail(s.name + ": the function must return a single number (one element), got a tensor of shape " +
         value.t.shape_str() + "; use vjp or jacrev for other outputs");
  bool keep = keep_graph(recording, all, {value.t}, d.leaves);
  std::vector<Tensor> g = reverse_pass(d, {value.t}, {Tensor()}, keep, s.name);
  std::vector<Value> differentiated;
  for (size_t k : s.argnums.which) differentiated.push_back(a.pos[k]);
  std::vector<Value> per = tree_rebuild_each(differentiated, g);
  ValueAndGrad r;
  r.grads = s.argnums.tuple ? make_tuple(std::move(per)) : per[0];
  Tensor v = transforms::lowered(value.t, d.reverse_level);
  r.value = tensor_value(keep ? v : without_history(v));
  r.aux = returned_value(d, aux);
  return r;
}

Value grad_transform(Evaluator&, CallArgs& a) {
  GradSpec s = grad_spec(a, "grad");
  return make_native("grad(" + std::string(type_name(s.f)) + ")", [s](Evaluator& ev, CallArgs& call) {
    ValueAndGrad r = run_value_and_grad(ev, s, call);
    return s.has_aux ? make_tuple({r.grads, r.aux}) : r.grads;
  });
}

Value value_and_grad_builtin(Evaluator&, CallArgs& a) {
  GradSpec s = grad_spec(a, "value_and_grad");
  return make_native("value_and_grad", [s](Evaluator& ev, CallArgs& call) {
    ValueAndGrad r = run_value_and_grad(ev, s, call);
    Value value = s.has_aux ? make_tuple({r.value, r.aux}) : r.value;
    return make_tuple({value, r.grads});
  });
}

// ---- vjp ------------------------------------------------------------------------------------

Value vjp_builtin(Evaluator& ev, CallArgs& a) {
  Value f = function_arg(a, "vjp");
  bool has_aux = false;
  for (auto& [k, v] : a.kw) {
    if (k == "has_aux") has_aux = as_bool(v, "vjp(): has_aux");
    else fail_unexpected_keyword("vjp", k, {"has_aux"});
  }
  std::vector<Value> primals(a.pos.begin() + 1, a.pos.end());
  if (primals.empty()) fail("vjp() missing the primals: vjp(func, *primals)");
  std::vector<Tensor> all;
  for (size_t k = 0; k < primals.size(); ++k) {
    std::vector<Tensor> leaves = checked_inputs(primals[k], "vjp", "primal " + std::to_string(k));
    all.insert(all.end(), leaves.begin(), leaves.end());
  }
  bool recording = grad_enabled();
  GradModeGuard enable(true);
  auto d = std::make_shared<Differentiated>(differentiate(all, "vjp"));
  std::vector<Value> args;
  size_t next = 0;
  for (const Value& p : primals) args.push_back(tree_replace(p, d->logical, next));
  Value out = call_function(ev, f, args, {}, Mode::reverse);
  function_returned(*d);
  auto [value, aux] = split_aux(out, has_aux, "vjp");
  std::vector<Tensor> outputs = checked_outputs(value, "vjp");
  bool keep = keep_graph(recording, all, outputs, d->leaves);
  Value shape_of_out = value;
  Value vjp_fn = make_native("vjp_fn", [d, outputs, shape_of_out, primals, keep](Evaluator&, CallArgs& call) {
    if (call.pos.size() != 1 || !call.kw.empty())
      fail("vjp_fn() takes one argument: the cotangents, shaped like the function's output");
    std::vector<Tensor> cot = tree_leaves(call.pos[0]);
    if (cot.empty())  // vjp_fn(5) said "0 cotangent(s) were given"
      fail("vjp_fn(): the cotangents must be tensors shaped like the function's output, got " +
           std::string(type_name(call.pos[0])));
    if (cot.size() != outputs.size())
      fail("vjp_fn(): the function returned " + std::to_string(outputs.size()) + " tensor(s) but " +
           std::to_string(cot.size()) + " cotangent(s) were given");
    for (size_t k = 0; k < cot.size(); ++k)
      if (!(cot[k].sizes() == outputs[k].sizes()))
        fail("vjp_fn(): cotangent " + std::to_string(k) + " has shape " + cot[k].shape_str() + " but output " +
             std::to_string(k) + " has shape " + outputs[k].shape_str());
    // Cotangents that require grad keep the products differentiable in them too (the
    // transpose of the transpose: jvp by a double vjp), as functorch's vjp_fn does.
    std::vector<Tensor> g = reverse_pass(*d, outputs, cot, keep || keep_graph(grad_enabled(), cot, {}, {}), "vjp_fn");
    return make_tuple(tree_rebuild_each(primals, g));
  });
  std::vector<Tensor> shown;
  for (const Tensor& t : outputs) {
    Tensor v = transforms::lowered(t, d->reverse_level);
    shown.push_back(keep ? v : without_history(v));
  }
  std::vector<Value> result{tree_rebuild(value, shown), vjp_fn};
  if (has_aux) result.push_back(returned_value(*d, aux));
  return make_tuple(std::move(result));
}

// ---- jvp ------------------------------------------------------------------------------------

// One tangent per primal, with its tensors shaped as the primal's.
void check_tangents(const std::vector<Value>& primals, const std::vector<Value>& tangents, const std::string& fname) {
  if (tangents.size() != primals.size())
    fail(fname + ": " + std::to_string(primals.size()) + " primals but " + std::to_string(tangents.size()) +
         " tangents");
  for (size_t k = 0; k < primals.size(); ++k) {
    std::vector<Tensor> p = checked_inputs(primals[k], fname, "primal " + std::to_string(k)), t = tree_leaves(tangents[k]);
    if (p.size() != t.size())
      fail(fname + ": primal " + std::to_string(k) + " has " + std::to_string(p.size()) + " tensor(s) but its tangent " +
           std::to_string(t.size()));
    for (size_t i = 0; i < p.size(); ++i)
      if (!(t[i].sizes() == p[i].sizes()))
        fail(fname + ": primal " + std::to_string(k) + ": the tangent has shape " + t[i].shape_str() +
             " but its primal has shape " + p[i].shape_str());
  }
}

// (outputs, their tangents) of f at primals with tangents, in one forward pass.
std::pair<Value, Value> run_jvp(Evaluator& ev, const Value& f, const std::vector<Value>& primals,
                                const std::vector<Value>& tangents, Value* aux, const std::string& fname) {
  // No primal: nothing to push a tangent through (jvp(f, (), ()) gave a tangent of
  // zeros for f's output); functorch refuses it.
  if (primals.empty()) fail(fname + ": primals must hold at least one tensor, got none");
  check_tangents(primals, tangents, fname);
  LevelScope scope(LevelKind::forward);
  Level& level = *transforms::visible_level(scope.id());
  std::vector<Value> args;
  for (size_t k = 0; k < primals.size(); ++k) {
    std::vector<Tensor> p = tree_leaves(primals[k]), t = tree_leaves(tangents[k]);
    std::vector<Tensor> duals;
    for (size_t i = 0; i < p.size(); ++i)
      duals.push_back(transforms::make_dual(p[i], t[i], level, fname + ": primal " + std::to_string(k)));
    args.push_back(tree_rebuild(primals[k], duals));
  }
  Value out = call_function(ev, f, args, {}, Mode::forward);
  if (aux) {
    auto [value, extra] = split_aux(out, true, fname);
    out = value;
    *aux = extra;
  }
  std::vector<Tensor> outs = checked_outputs(out, fname), primal_out, tangent_out;
  for (const Tensor& o : outs) {
    Tensor t = transforms::tangent_at(o, level.id);
    primal_out.push_back(transforms::primal_at(o, level.id));
    tangent_out.push_back(t.defined() ? t : zeros_like(primal_out.back()));
  }
  return {tree_rebuild(out, primal_out), tree_rebuild(out, tangent_out)};
}

std::vector<Value> items_of(const Value& v, const std::string& what) {
  if (v.tag == Tag::Tuple || v.tag == Tag::List) return v.as<ListObj>()->items;
  if (v.tag == Tag::Tensor) return {v};
  fail(what + " must be a tuple of tensors (one per argument of the function), got " + type_name(v));
}

Value jvp_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("jvp", a, {"func", "primals", "tangents", "has_aux", "strict"}, 3);
  if (!is_function(b[0])) fail("jvp(): func must be a function, got " + std::string(type_name(b[0])));
  // functorch 1.13 takes strict and does nothing with it; so does nabla.
  if (b.has(4)) as_bool(b[4], "jvp(): strict");
  bool has_aux = b.has(3) && as_bool(b[3], "jvp(): has_aux");
  Value aux;
  auto [out, tangent] = run_jvp(ev, b[0], items_of(b[1], "jvp(): primals"), items_of(b[2], "jvp(): tangents"),
                                has_aux ? &aux : nullptr, "jvp");
  std::vector<Value> r{out, tangent};
  if (has_aux) r.push_back(aux);
  return make_tuple(std::move(r));
}

// hvp(f, primals, tangents): (f(primals), H·tangents), forward over reverse.
Value hvp_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("hvp", a, {"func", "primals", "tangents"}, 3);
  if (!is_function(b[0])) fail("hvp(): func must be a function, got " + std::string(type_name(b[0])));
  std::vector<Value> primals = items_of(b[1], "hvp(): primals");
  std::vector<Value> tangents = items_of(b[2], "hvp(): tangents");
  ArgNums every;
  every.tuple = true;
  for (size_t k = 0; k < primals.size(); ++k) every.which.push_back(k);
  GradSpec spec{b[0], every, false, "hvp"};
  Value value;
  Value grad_fn = make_native("grad", [spec, &value](Evaluator& inner, CallArgs& call) {
    ValueAndGrad r = run_value_and_grad(inner, spec, call);
    value = r.value;
    return r.grads;
  });
  Value hv = run_jvp(ev, grad_fn, primals, tangents, nullptr, "hvp").second;
  Value product = b[1].tag == Tag::Tensor ? hv.as<ListObj>()->items[0] : hv;
  Value plain = value.tag == Tag::Tensor ? tensor_value(detach(value.t)) : value;
  return make_tuple({plain, product});
}

const BuiltinEntry kFuncBuiltins[] = {
    {"value_and_grad", value_and_grad_builtin, "value_and_grad(func, argnums=0, has_aux=false)",
     "A function returning (func(*args), its gradient with respect to the argnums arguments); func returns one "
     "number. Example: let (loss, g) = value_and_grad(fn(w) = (w * w).sum())(randn(3))"},
    {"vjp", vjp_builtin, "vjp(func, *primals, has_aux=false)",
     "(func(*primals), vjp_fn): vjp_fn(cotangents) gives the vector-Jacobian products for every primal, as a tuple. "
     "Example: let (y, pull) = vjp(fn(x) = x.sin(), randn(3)); let (gx,) = pull(ones_like(y))"},
    {"jvp", jvp_builtin, "jvp(func, primals, tangents, has_aux=false, strict=false)",
     "(func(*primals), the Jacobian times the tangents), in one forward pass of dual tensors. "
     "Example: let (y, dy) = jvp(fn(x) = x.sin(), (randn(3),), (ones(3),))"},
    {"hvp", hvp_builtin, "hvp(func, primals, tangents)",
     "(func(*primals), the Hessian of func times the tangents), forward over reverse; func returns one number. "
     "Example: let (f, hv) = hvp(fn(x) = (x ** 3).sum(), (randn(3),), (ones(3),))"},
    {"jacrev", jacrev_builtin, "jacrev(func, argnums=0, has_aux=false)",
     "A function returning the Jacobian of func (output dims, then input dims), by reverse mode batched over the "
     "outputs. Example: jacrev(fn(x) = x.tanh())(randn(3))"},
    {"jacfwd", jacfwd_builtin, "jacfwd(func, argnums=0, has_aux=false, randomness=\"error\")",
     "A function returning the Jacobian of func by forward mode batched over the inputs. "
     "Example: jacfwd(fn(x) = x.tanh())(randn(3))"},
    {"hessian", hessian_builtin, "hessian(func, argnums=0)",
     "A function returning the Hessian of func (jacfwd of jacrev). Example: hessian(fn(x) = (x ** 3).sum())(randn(3))"},
    {"vmap", vmap_builtin, "vmap(func, in_dims=0, out_dims=0, randomness=\"error\")",
     "A function that maps func over a batch dim of its arguments (in_dims: an int or none for all, or one per "
     "argument), running its ops batched. Example: let w = randn(4); vmap(fn(x) = (x * w).sum())(randn(8, 4))"},
};

}  // namespace func

Value grad_of_function(Evaluator& ev, CallArgs& a) { return func::grad_transform(ev, a); }
bool is_callable_value(const Value& v) { return func::is_function(v); }

const BuiltinLibrary kFuncLibrary = {"func", nullptr, func::kFuncBuiltins, nullptr};
Value func_module_functional_call(Evaluator& ev, CallArgs& a);  // builtins_models.cpp
// The module's rows: grad (the function form only; the global grad is autograd's,
// which takes both forms), then the family's, then functional_call (a global builtin
// too), as torch.func has it.
const std::vector<BuiltinEntry> kFuncModuleRows = [] {
  std::vector<BuiltinEntry> rows{{"grad", func::grad_transform, "grad(func, argnums=0, has_aux=false)",
                                  "The function that returns func's gradient with respect to argument argnums, as "
                                  "JAX's grad. Example: func.grad(fn(x) = (x * x).sum())(randn(3))"}};
  rows.insert(rows.end(), std::begin(func::kFuncBuiltins), std::end(func::kFuncBuiltins));
  rows.push_back({"functional_call", func_module_functional_call,
                  "functional_call(model, params_and_buffers, args, kwargs=none)",
                  "Calls model(*args, **kwargs) with the dict's tensors in place of its parameters and buffers, for "
                  "this call only (torch.func.functional_call). Example: func.functional_call(nn.Linear(4, 2), "
                  "{\"weight\": zeros(2, 4)}, (randn(3, 4),))"});
  return rows;
}();
const BuiltinLibrary kFuncModule = {"func", "func", kFuncModuleRows, nullptr};

}  // namespace nabla::interp
