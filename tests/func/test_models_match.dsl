# tests/func/models.dsl against PyTorch: each function's value equals the reference
# (tests/func/reference/transforms.safetensors, scripts/reference/func_transforms.py),
# and the references' derivatives equal what today's tensor form of grad gives (the
# gradient, per-sample gradients as a loop, Jacobian rows, Hessian rows, jvp as the
# derivative of a vjp, vjp, hvp), all in f64. So the models and the references agree
# before any transform is checked against them.
import "models.dsl" as models

let ref = load("tests/func/reference/transforms.safetensors")

# A leaf that requires grad, holding t's values.
fn leaf(t) {
  let x = t.detach().clone()
  x.requires_grad = true
  return x
}

# The dict's tensors as leaves (same keys), to differentiate with respect to them.
fn leaves(p) {
  let out = {}
  for (k, t) in p.items() { out[k] = leaf(t) }
  return out
}

fn close(a, b) = expect_close(a, b, rtol=1e-9, atol=1e-11)

# Each tensor of the dict `got` against the reference tensors under `start`.
fn close_dict(got, start) {
  let want = models.prefixed(ref, start)
  expect(sorted(list(got.keys())) == sorted(list(want.keys())), f"keys under {start}")
  for (k, t) in want.items() { close(got[k], t) }
}

# [f(0), ..., f(n - 1)]
fn table(n, f) {
  let out = []
  for i in range(n) { out.append(f(i)) }
  return out
}

# The gradient of a scalar w.r.t. a dict of leaves, as a dict of the same keys.
fn grad_dict(y, p) {
  let keys = list(p.keys())
  let gs = grad(y, table(len(keys), fn(i) = p[keys[i]]))
  let out = {}
  for i in range(len(keys)) { out[keys[i]] = gs[i] }
  return out
}

# The Jacobian of f at x by rows (one backward per output element): shape out + x's.
fn jacobian_rows(f, x) {
  let xl = leaf(x)
  let y = f(xl)
  let flat = y.reshape([-1])
  let rows = table(flat.shape[0], fn(k) = grad(flat[k], [xl], retain_graph=true, allow_unused=true)[0])
  return stack(rows).reshape(list(y.shape) + list(x.shape))
}

# The Hessian of a scalar function of one tensor, by rows of the gradient's Jacobian.
fn hessian_rows(f, x) = jacobian_rows(fn(v) = grad(f(v), [v], create_graph=true)[0], x)

# jvp of f at x with tangent u, from two backward passes: d/dc <vjp(c), u> = J u.
fn jvp_by_double_vjp(f, x, u) {
  let xl = leaf(x)
  let y = f(xl)
  let c = leaf(zeros_like(y))
  let g = grad(y, [xl], grad_outputs=[c], create_graph=true)[0]
  return grad((g * u).sum(), [c])[0]
}

# The value, gradient, per-sample gradients, Jacobian, Hessian, jvp, vjp and hvp of
# one network ("mlp" or "cnn") against the references under its name.
fn check_network(name, net, loss, loss_one, hess_key, hvp_key) {
  let p = models.params(ref, name)
  let x = ref[name + ".x"]
  let t = ref[name + ".targets"]
  close(net(p, x), ref[name + ".out"])
  let pl = leaves(p)
  let l = loss(pl, x, t)
  close(l, ref[name + ".loss"])
  close_dict(grad_dict(l, pl), name + ".grad.")
  let per_sample = models.prefixed(ref, name + ".per_sample_grads.")
  for i in range(x.shape[0]) {
    let g = grad_dict(loss_one(pl, x[i], t[i]), pl)
    for (k, want) in per_sample.items() { close(g[k], want[i]) }
  }
  let jac = jacobian_rows(fn(r) = net(p, r.unsqueeze(0))[0], ref[name + ".x_row"])
  close(jac, ref[name + ".jacrev"])
  close(jac, ref[name + ".jacfwd"])
  let hess_name = name + ".hessian_" + hess_key.replace(".", "_")
  close(hessian_rows(fn(b) = loss(models.with_key(p, hess_key, b), x, t), p[hess_key]), ref[hess_name])
  close(jvp_by_double_vjp(fn(v) = net(p, v), x, ref[name + ".jvp.tangent"]), ref[name + ".jvp.tangent_out"])
  close(net(p, x), ref[name + ".jvp.out"])
  let xl = leaf(x)
  let g_x = grad(net(p, xl), [xl], grad_outputs=[ref[name + ".vjp.cotangent"]])[0]
  close(g_x, ref[name + ".vjp.grad_x"])
  let b = leaf(p[hvp_key])
  let gb = grad(loss(models.with_key(p, hvp_key, b), x, t), [b], create_graph=true)[0]
  close(grad((gb * ref[name + ".hvp.vector"]).sum(), [b])[0], ref[name + ".hvp.hvp"])
  close(loss(p, x, t), ref[name + ".hvp.value"])
}

test "the MLP matches PyTorch: value, gradient, per-sample gradients, Jacobian, Hessian, jvp, vjp, hvp" {
  check_network("mlp", models.mlp, models.mlp_loss, models.mlp_loss_one, "fc1.bias", "fc1.bias")
}

test "the CNN matches PyTorch: value, gradient, per-sample gradients, Jacobian, Hessian, jvp, vjp, hvp" {
  check_network("cnn", models.cnn, models.cnn_loss, models.cnn_loss_one, "fc.bias", "conv.bias")
}

test "the MLP's jvp over its parameters matches PyTorch" {
  let p = models.params(ref, "mlp")
  let x = ref["mlp.x"]
  let tangent = models.prefixed(ref, "mlp.jvp_params.tangent.")
  # J u over the parameters: d/dc sum_k <grad_k(<y, c>), u_k>.
  let pl = leaves(p)
  let y = models.mlp(pl, x)
  let c = leaf(zeros_like(y))
  let keys = list(p.keys())
  let gs = grad(y, table(len(keys), fn(i) = pl[keys[i]]), grad_outputs=[c], create_graph=true)
  let s = stack(table(len(keys), fn(i) = (gs[i] * tangent[keys[i]]).sum())).sum()
  close(grad(s, [c])[0], ref["mlp.jvp_params.tangent_out"])
}

test "the layer norm function matches PyTorch: value, Jacobians, jvp" {
  let (x, w, b) = (ref["layer_norm.x"], ref["layer_norm.weight"], ref["layer_norm.bias"])
  close(models.layer_norm_fn(x, w, b), ref["layer_norm.out"])
  close(jacobian_rows(fn(v) = models.layer_norm_fn(v, w, b), x), ref["layer_norm.jacrev_x"])
  close(jacobian_rows(fn(v) = models.layer_norm_fn(x, v, b), w), ref["layer_norm.jacrev_w"])
  let tx = ref["layer_norm.jvp.tangent_x"]
  let tw = ref["layer_norm.jvp.tangent_w"]
  let tb = ref["layer_norm.jvp.tangent_b"]
  let jvp = jvp_by_double_vjp(fn(v) = models.layer_norm_fn(v, w, b), x, tx) +
            jvp_by_double_vjp(fn(v) = models.layer_norm_fn(x, v, b), w, tw) + tb
  close(jvp, ref["layer_norm.jvp.tangent_out"])
}

test "softmax and cross-entropy match PyTorch: value, gradient, Hessian, softmax's Jacobian" {
  let logits = ref["softmax_ce.logits"]
  let t = ref["softmax_ce.targets"]
  close(models.softmax_ce(logits, t), ref["softmax_ce.loss"])
  let z = leaf(logits)
  close(grad(models.softmax_ce(z, t), [z])[0], ref["softmax_ce.grad"])
  close(hessian_rows(fn(v) = models.softmax_ce(v, t), logits), ref["softmax_ce.hessian"])
  close(jacobian_rows(fn(v) = softmax(v, dim=-1), ref["softmax.z"]), ref["softmax.jacrev"])
}

test "the function of two arguments matches PyTorch: value, gradients, Hessian blocks, jvp, vjp" {
  let (x, y) = (ref["two_arg.x"], ref["two_arg.y"])
  close(models.two_arg(x, y), ref["two_arg.value"])
  let (xl, yl) = (leaf(x), leaf(y))
  let (gx, gy) = grad(models.two_arg(xl, yl), [xl, yl], create_graph=true)
  close(gx, ref["two_arg.grad_x"])
  close(gy, ref["two_arg.grad_y"])
  close(gx, ref["two_arg.jacfwd_x"])
  close(gy, ref["two_arg.jacfwd_y"])
  let rows = fn(g, v) = stack(table(3, fn(k) = grad(g[k], [v], retain_graph=true)[0]))
  close(rows(gx, xl), ref["two_arg.hessian_xx"])
  close(rows(gx, yl), ref["two_arg.hessian_xy"])
  close(rows(gy, xl), ref["two_arg.hessian_yx"])
  close(rows(gy, yl), ref["two_arg.hessian_yy"])
  let (tx, ty) = (ref["two_arg.jvp.tangent_x"], ref["two_arg.jvp.tangent_y"])
  close((gx * tx).sum() + (gy * ty).sum(), ref["two_arg.jvp.tangent_out"])
  let c = ref["two_arg.vjp.cotangent"]
  close(gx * c, ref["two_arg.vjp.grad_x"])
  close(gy * c, ref["two_arg.vjp.grad_y"])
}

test "the vmap references are the loops they stand for" {
  let W = ref["vmap.W"]
  let X = ref["vmap.X"]
  let (f, h) = models.vmap_functions(W)
  close(stack(table(5, fn(i) = f(X[i]))), ref["vmap.f"])
  close(stack(table(5, fn(i) = models.vmap_g(X[i], W))), ref["vmap.g_in_dims_0_none"])
  close(stack(table(5, fn(i) = f(ref["vmap.XT"][:, i]))), ref["vmap.f_in_dims_1"])
  close(stack(table(5, fn(i) = h(X[i])), dim=1), ref["vmap.h_out_dims_1"])
  let X3 = ref["vmap.X3"]
  close(stack(table(2, fn(i) = stack(table(5, fn(j) = f(X3[i, j]))))), ref["vmap.nested"])
}
