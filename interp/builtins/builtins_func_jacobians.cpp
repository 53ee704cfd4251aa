// The Jacobian transforms: jacrev (one vjp, its vjp_fn batched over the rows of the
// identity: vmap over vjp), jacfwd (jvp batched over the columns: vmap over jvp) and
// hessian (jacfwd over jacrev). The machinery is builtins_func.cpp's
// (func_transforms.hpp).
#include "autograd/grad_mode.hpp"
#include "autograd/ops.hpp"
#include "autograd/transforms/vmap.hpp"
#include "interp/builtins/func_transforms.hpp"
#include "interp/values/pytree.hpp"

namespace nabla::interp::func {

namespace {

// The identity of n elements shaped [n, *shape]: one basis tangent per row.
Tensor basis(const Tensor& like) {
  int64_t n = like.numel();
  Tensor eye = to_dtype(eq(unsqueeze(arange(n, DType::i64, like.device()), 1), arange(n, DType::i64, like.device())),
                        like.dtype());
  IntList shape{n};
  shape.insert(shape.end(), like.sizes().begin(), like.sizes().end());
  return reshape(eye, shape);
}

// A Jacobian given as [n_out, *in] (jacrev's rows) or [n_in, *out] (jacfwd's columns)
// reshaped to out's shape followed by in's.
Tensor jacobian_shape(const Tensor& rows, const Tensor& out, const Tensor& in, bool rows_are_outputs) {
  IntList shape(out.sizes().begin(), out.sizes().end());
  shape.insert(shape.end(), in.sizes().begin(), in.sizes().end());
  if (rows_are_outputs) return reshape(rows, shape);
  // [n_in, *out] -> [*out, n_in] -> [*out, *in]
  Tensor moved = reshape(rows, {in.numel(), out.numel()});
  return reshape(transpose(moved, 0, 1), shape);
}

// Nests per-output, per-argument Jacobians as torch.func does: the outputs' structure
// outside, the differentiated arguments' (a tuple when argnums is) inside.
Value nest_jacobians(const Value& out_tree, const std::vector<Value>& arg_trees, const ArgNums& argnums,
                     const std::vector<std::vector<Tensor>>& jac /*[out][in leaf]*/) {
  std::vector<Value> per_out;
  for (const std::vector<Tensor>& of_output : jac) {
    std::vector<Value> per_arg = tree_rebuild_each(arg_trees, of_output);
    per_out.push_back(argnums.tuple ? make_tuple(std::move(per_arg)) : per_arg[0]);
  }
  size_t next = 0;
  return tree_place(out_tree, per_out, next);
}

// jacrev: one vjp, then its vjp_fn batched over the rows of the identity (vmap over
// vjp), one output at a time.
Value run_jacrev(Evaluator& ev, const GradSpec& spec, CallArgs& a) {
  GradSpec s = spec;
  s.argnums = check_argnums(spec.argnums, a.pos.size(), spec.name);
  std::vector<Value> args = a.pos, arg_trees;
  std::vector<Tensor> all;
  for (size_t k : s.argnums.which) {
    arg_trees.push_back(args[k]);
    std::vector<Tensor> leaves = checked_inputs(args[k], s.name, "argument " + std::to_string(k) + " (in argnums)");
    all.insert(all.end(), leaves.begin(), leaves.end());
  }
  bool recording = grad_enabled();
  GradModeGuard enable(true);
  Differentiated d = differentiate(all, s.name);
  size_t next = 0;
  for (size_t k : s.argnums.which) args[k] = tree_replace(args[k], d.logical, next);
  Value out = call_function(ev, s.f, args, a.kw, Mode::reverse);
  function_returned(d);
  auto [value, aux] = split_aux(out, s.has_aux, s.name);
  std::vector<Tensor> outs = checked_outputs(value, s.name);
  bool keep = keep_graph(recording, all, outs, d.leaves);
  std::vector<std::vector<Tensor>> jac;
  for (const Tensor& o : outs) {
    Tensor rows = basis(o);
    std::vector<Tensor> per_leaf;
    {
      LevelScope scope(LevelKind::batch, rows.size(0));
      Tensor cotangent = transforms::make_batched(rows, scope.id(), 0);
      std::vector<Tensor> g = reverse_pass(d, {o}, {cotangent}, keep, s.name);
      for (const Tensor& x : g) per_leaf.push_back(transforms::unbatch(x, scope.id(), rows.size(0), 0));
    }
    std::vector<Tensor> shaped;
    for (size_t i = 0; i < per_leaf.size(); ++i) {
      Tensor j = jacobian_shape(per_leaf[i], o, all[i], true);
      shaped.push_back(keep ? j : without_history(j));
    }
    jac.push_back(shaped);
  }
  Value result = nest_jacobians(value, arg_trees, s.argnums, jac);
  return s.has_aux ? make_tuple({result, returned_value(d, aux)}) : result;
}

// jacfwd: jvp batched over the rows of the identity of each input (vmap over jvp).
Value run_jacfwd(Evaluator& ev, const GradSpec& spec, CallArgs& a) {
  GradSpec s = spec;
  s.argnums = check_argnums(spec.argnums, a.pos.size(), spec.name);
  std::vector<Value> arg_trees;
  std::vector<Tensor> all;
  for (size_t k : s.argnums.which) {
    arg_trees.push_back(a.pos[k]);
    std::vector<Tensor> leaves = checked_inputs(a.pos[k], s.name, "argument " + std::to_string(k) + " (in argnums)");
    all.insert(all.end(), leaves.begin(), leaves.end());
  }
  // func of the differentiated arguments alone, the others as given.
  Value f = s.f;
  std::vector<Value> given = a.pos;
  ArgNums argnums = s.argnums;
  auto kw = a.kw;
  Value partial = make_native("jacfwd", [f, given, argnums, kw](Evaluator& inner, CallArgs& call) {
    std::vector<Value> full = given;
    for (size_t j = 0; j < argnums.which.size(); ++j) full[argnums.which[j]] = call.pos[j];
    return call_function(inner, f, full, kw, Mode::forward);
  });
  Value value_tree, aux;
  std::vector<Tensor> outs;
  std::vector<std::vector<Tensor>> columns_of;  // [input leaf][output]: [n_in, *out]
  for (size_t i = 0; i < all.size(); ++i) {
    if (!is_floating(all[i].dtype()))
      fail(s.name + ": an argument to differentiate has dtype " + dtype_name(all[i].dtype()) +
           "; derivatives need floating tensors");
    Tensor columns = basis(all[i]);
    LevelScope batch(LevelKind::batch, columns.size(0), s.randomness);
    std::vector<Tensor> leaf_tangents;
    for (size_t l = 0; l < all.size(); ++l)
      leaf_tangents.push_back(l == i ? transforms::make_batched(columns, batch.id(), 0) : zeros_like(all[l]));
    std::vector<Value> tangents;
    size_t next = 0;
    for (const Value& tree : arg_trees) tangents.push_back(tree_replace(tree, leaf_tangents, next));
    auto [out, tangent_out] = run_jvp(ev, partial, arg_trees, tangents, s.has_aux ? &aux : nullptr, s.name);
    value_tree = out;
    outs = tree_leaves(out);
    std::vector<Tensor> columns_out;
    for (const Tensor& t : tree_leaves(tangent_out))
      columns_out.push_back(transforms::unbatch(t, batch.id(), columns.size(0), 0));
    columns_of.push_back(columns_out);
  }
  std::vector<std::vector<Tensor>> jac(outs.size());
  for (size_t o = 0; o < outs.size(); ++o)
    for (size_t i = 0; i < all.size(); ++i) jac[o].push_back(jacobian_shape(columns_of[i][o], outs[o], all[i], false));
  Value result = nest_jacobians(value_tree, arg_trees, s.argnums, jac);
  return s.has_aux ? make_tuple({result, aux}) : result;
}

}  // namespace

Value jacrev_builtin(Evaluator&, CallArgs& a) {
  GradSpec s = grad_spec(a, "jacrev");
  return make_native("jacrev", [s](Evaluator& ev, CallArgs& call) { return run_jacrev(ev, s, call); });
}

Value jacfwd_builtin(Evaluator&, CallArgs& a) {
  Value randomness;
  for (auto it = a.kw.begin(); it != a.kw.end(); ++it)
    if (it->first == "randomness") {
      randomness = it->second;
      a.kw.erase(it);
      break;
    }
  GradSpec s = grad_spec(a, "jacfwd");
  s.randomness = parse_randomness(randomness, "jacfwd");
  return make_native("jacfwd", [s](Evaluator& ev, CallArgs& call) { return run_jacfwd(ev, s, call); });
}

// hessian(f) = jacfwd(jacrev(f)), both over the same argnums. (Inside vmap, jacrev
// differentiates on a reverse level: Note [Reverse levels].)
Value hessian_builtin(Evaluator&, CallArgs& a) {
  GradSpec s = grad_spec(a, "hessian");
  if (s.has_aux) fail("hessian(): has_aux is not supported; use jacfwd(jacrev(f, has_aux=true)) instead");
  GradSpec inner{s.f, s.argnums, false, "hessian"};
  Value jacobian = make_native("jacrev", [inner](Evaluator& ev, CallArgs& call) { return run_jacrev(ev, inner, call); });
  GradSpec outer{jacobian, s.argnums, false, "hessian"};
  return make_native("hessian", [outer](Evaluator& ev, CallArgs& call) { return run_jacfwd(ev, outer, call); });
}

}  // namespace nabla::interp::func
