# The function transforms against PyTorch 1.13's functorch, in f64: each test calls
# the transform as the reference's docstring says (scripts/reference/func_transforms.py,
# whose `calls` are in tests/func/reference/transforms.json) and compares with the
# committed values. The models are tests/func/models.dsl's; test_models_match.dsl checks
# that they and the references agree by the tensor form of grad.
import "models.dsl" as models
import "checks.dsl" as checks

let ref = load("tests/func/reference/transforms.safetensors")

fn close(a, b) = checks.close(a, b, atol=1e-11)

# Each tensor of the dict `got` against the reference tensors under `start`, same keys.
fn close_dict(got, start) {
  let want = models.prefixed(ref, start)
  expect(sorted(list(got.keys())) == sorted(list(want.keys())), f"keys under {start}")
  for (k, t) in want.items() { close(got[k], t) }
}

# The network's params, inputs and targets, and its loss over the params alone.
fn network(name) = (models.params(ref, name), ref[name + ".x"], ref[name + ".targets"])

fn loss_of(name) = models.mlp_loss if name == "mlp" else models.cnn_loss
fn loss_one_of(name) = models.mlp_loss_one if name == "mlp" else models.cnn_loss_one
fn forward_of(name) = models.mlp if name == "mlp" else models.cnn

# grad, value_and_grad and has_aux over the params dict.
fn check_gradients(name) {
  let (p, x, t) = network(name)
  let loss = loss_of(name)
  let net = forward_of(name)
  close_dict(grad(fn(q) = loss(q, x, t))(p), name + ".grad.")
  # argnums=0 over a function of three arguments: only the params are differentiated
  close_dict(grad(loss)(p, x, t), name + ".grad.")
  close_dict(grad(loss, argnums=(0,))(p, x, t)[0], name + ".grad.")
  let (value, g) = value_and_grad(loss)(p, x, t)
  close(value, ref[name + ".loss"])
  close_dict(g, name + ".grad.")
  let (g_aux, out) = grad(fn(q) = (loss(q, x, t), net(q, x)), has_aux=true)(p)
  close_dict(g_aux, name + ".grad.")
  close(out, ref[name + ".out"])
  let ((v2, out2), g2) = value_and_grad(fn(q) = (loss(q, x, t), net(q, x)), has_aux=true)(p)
  close(v2, ref[name + ".loss"])
  close(out2, ref[name + ".out"])
  close_dict(g2, name + ".grad.")
}

# Per-sample gradients: vmap(grad) with the params shared and x, t batched.
fn check_per_sample(name) {
  let (p, x, t) = network(name)
  let g = vmap(grad(loss_one_of(name)), in_dims=(none, 0, 0))(p, x, t)
  close_dict(g, name + ".per_sample_grads.")
}

# jacrev and jacfwd of one row, the Hessian and hvp w.r.t. one bias, jvp (over the
# input and over the params dict) and vjp.
fn check_derivatives(name, hess_key, hvp_key) {
  let (p, x, t) = network(name)
  let net = forward_of(name)
  let loss = loss_of(name)
  let row = fn(r) = net(p, r.unsqueeze(0))[0]
  close(jacrev(row)(ref[name + ".x_row"]), ref[name + ".jacrev"])
  close(jacfwd(row)(ref[name + ".x_row"]), ref[name + ".jacfwd"])
  let of_hess_key = fn(b) = loss(models.with_key(p, hess_key, b), x, t)
  close(hessian(of_hess_key)(p[hess_key]), ref[name + ".hessian_" + hess_key.replace(".", "_")])
  let (out, tangent_out) = jvp(fn(v) = net(p, v), (x,), (ref[name + ".jvp.tangent"],))
  close(out, ref[name + ".jvp.out"])
  close(tangent_out, ref[name + ".jvp.tangent_out"])
  let tangent = models.prefixed(ref, name + ".jvp_params.tangent.")
  let (out_p, tangent_p) = jvp(fn(q) = net(q, x), (p,), (tangent,))
  close(out_p, ref[name + ".out"])
  close(tangent_p, ref[name + ".jvp_params.tangent_out"])
  let (y, pull) = vjp(fn(v) = net(p, v), x)
  close(y, ref[name + ".out"])
  let pulled = pull(ref[name + ".vjp.cotangent"])
  expect(len(pulled) == 1, "vjp_fn gives one cotangent per primal")
  close(pulled[0], ref[name + ".vjp.grad_x"])
  let of_hvp_key = fn(b) = loss(models.with_key(p, hvp_key, b), x, t)
  let (value, hv) = hvp(of_hvp_key, (p[hvp_key],), (ref[name + ".hvp.vector"],))
  close(value, ref[name + ".hvp.value"])
  close(hv[0], ref[name + ".hvp.hvp"])
}

test "the MLP: grad, value_and_grad, has_aux over the params dict match functorch" {
  check_gradients("mlp")
}

test "the MLP: per-sample gradients by vmap(grad, in_dims=(none, 0, 0)) match functorch" {
  check_per_sample("mlp")
}

test "the MLP: jacrev, jacfwd, hessian, jvp, jvp over params, vjp, hvp match functorch" {
  check_derivatives("mlp", "fc1.bias", "fc1.bias")
}

test "the CNN: grad, value_and_grad, has_aux over the params dict match functorch" {
  check_gradients("cnn")
}

test "the CNN: per-sample gradients by vmap(grad, in_dims=(none, 0, 0)) match functorch" {
  check_per_sample("cnn")
}

test "the CNN: jacrev, jacfwd, hessian, jvp, jvp over params, vjp, hvp match functorch" {
  check_derivatives("cnn", "fc.bias", "conv.bias")
}

test "layer norm: jacrev (argnums 0 and 1), jacfwd and jvp over three arguments match functorch" {
  let (x, w, b) = (ref["layer_norm.x"], ref["layer_norm.weight"], ref["layer_norm.bias"])
  close(jacrev(models.layer_norm_fn)(x, w, b), ref["layer_norm.jacrev_x"])
  close(jacrev(models.layer_norm_fn, argnums=1)(x, w, b), ref["layer_norm.jacrev_w"])
  close(jacfwd(models.layer_norm_fn)(x, w, b), ref["layer_norm.jacrev_x"])
  close(jacfwd(models.layer_norm_fn, argnums=1)(x, w, b), ref["layer_norm.jacrev_w"])
  let (jx, jw) = jacrev(models.layer_norm_fn, argnums=(0, 1))(x, w, b)
  close(jx, ref["layer_norm.jacrev_x"])
  close(jw, ref["layer_norm.jacrev_w"])
  let tangents = (ref["layer_norm.jvp.tangent_x"], ref["layer_norm.jvp.tangent_w"], ref["layer_norm.jvp.tangent_b"])
  let (out, tangent_out) = jvp(models.layer_norm_fn, (x, w, b), tangents)
  close(out, ref["layer_norm.out"])
  close(tangent_out, ref["layer_norm.jvp.tangent_out"])
}

test "softmax and cross-entropy: grad, hessian, softmax's jacrev and jacfwd match functorch" {
  let logits = ref["softmax_ce.logits"]
  let t = ref["softmax_ce.targets"]
  close(grad(models.softmax_ce)(logits, t), ref["softmax_ce.grad"])
  let (loss, g) = value_and_grad(models.softmax_ce)(logits, t)
  close(loss, ref["softmax_ce.loss"])
  close(g, ref["softmax_ce.grad"])
  close(hessian(models.softmax_ce)(logits, t), ref["softmax_ce.hessian"])
  close(jacfwd(jacrev(models.softmax_ce))(logits, t), ref["softmax_ce.hessian"])
  close(jacrev(jacrev(models.softmax_ce))(logits, t), ref["softmax_ce.hessian"])
  let softmax_z = fn(z) = softmax(z, dim=-1)
  close(jacrev(softmax_z)(ref["softmax.z"]), ref["softmax.jacrev"])
  close(jacfwd(softmax_z)(ref["softmax.z"]), ref["softmax.jacrev"])
}

test "f(x, y): grad and jacfwd with argnums=(0, 1), hessian with argnums=(0, 1), jvp, vjp match functorch" {
  let (x, y) = (ref["two_arg.x"], ref["two_arg.y"])
  let (gx, gy) = grad(models.two_arg, argnums=(0, 1))(x, y)
  close(gx, ref["two_arg.grad_x"])
  close(gy, ref["two_arg.grad_y"])
  close(grad(models.two_arg, argnums=1)(x, y), ref["two_arg.grad_y"])
  let (value, (vx, vy)) = value_and_grad(models.two_arg, argnums=(0, 1))(x, y)
  close(value, ref["two_arg.value"])
  close(vx, ref["two_arg.grad_x"])
  close(vy, ref["two_arg.grad_y"])
  let (fx, fy) = jacfwd(models.two_arg, argnums=(0, 1))(x, y)
  close(fx, ref["two_arg.jacfwd_x"])
  close(fy, ref["two_arg.jacfwd_y"])
  let (rx, ry) = jacrev(models.two_arg, argnums=(0, 1))(x, y)
  close(rx, ref["two_arg.jacfwd_x"])
  close(ry, ref["two_arg.jacfwd_y"])
  let ((hxx, hxy), (hyx, hyy)) = hessian(models.two_arg, argnums=(0, 1))(x, y)
  close(hxx, ref["two_arg.hessian_xx"])
  close(hxy, ref["two_arg.hessian_xy"])
  close(hyx, ref["two_arg.hessian_yx"])
  close(hyy, ref["two_arg.hessian_yy"])
  close(hessian(models.two_arg)(x, y), ref["two_arg.hessian_xx"])
  close(hessian(models.two_arg, argnums=1)(x, y), ref["two_arg.hessian_yy"])
  let (out, tangent_out) = jvp(models.two_arg, (x, y), (ref["two_arg.jvp.tangent_x"], ref["two_arg.jvp.tangent_y"]))
  close(out, ref["two_arg.value"])
  close(tangent_out, ref["two_arg.jvp.tangent_out"])
  let (v, pull) = vjp(models.two_arg, x, y)
  close(v, ref["two_arg.value"])
  let (px, py) = pull(ref["two_arg.vjp.cotangent"])
  close(px, ref["two_arg.vjp.grad_x"])
  close(py, ref["two_arg.vjp.grad_y"])
  # hvp over both arguments: a tuple, the Hessian blocks times the tangents
  let (tx, ty) = (ref["two_arg.jvp.tangent_x"], ref["two_arg.jvp.tangent_y"])
  let (hv_value, (hvx, hvy)) = hvp(models.two_arg, (x, y), (tx, ty))
  close(hv_value, ref["two_arg.value"])
  close(hvx, ref["two_arg.hessian_xx"] @ tx + ref["two_arg.hessian_xy"] @ ty)
  close(hvy, ref["two_arg.hessian_yx"] @ tx + ref["two_arg.hessian_yy"] @ ty)
}

test "vmap: plain, in_dims=(0, none), in_dims=1, out_dims=1 and nested match functorch" {
  let W = ref["vmap.W"]
  let X = ref["vmap.X"]
  let (f, h) = models.vmap_functions(W)
  close(vmap(f)(X), ref["vmap.f"])
  close(vmap(models.vmap_g, in_dims=(0, none))(X, W), ref["vmap.g_in_dims_0_none"])
  close(vmap(f, in_dims=1)(ref["vmap.XT"]), ref["vmap.f_in_dims_1"])
  close(vmap(f, in_dims=-1)(ref["vmap.XT"]), ref["vmap.f_in_dims_1"])
  close(vmap(h, out_dims=1)(X), ref["vmap.h_out_dims_1"])
  close(vmap(h, out_dims=-1)(X), ref["vmap.h_out_dims_1"])
  close(vmap(h)(X), ref["vmap.h_out_dims_1"].T)
  close(vmap(vmap(f))(ref["vmap.X3"]), ref["vmap.nested"])
  # the outer vmap over dim 1, the inner over dim 0 of what is left
  close(vmap(vmap(f), in_dims=1)(ref["vmap.X3"].transpose(0, 1)), ref["vmap.nested"])
  close(vmap(vmap(f), in_dims=0, out_dims=1)(ref["vmap.X3"]), ref["vmap.nested"].T)
}

test "vmap over a reverse transform inside a jvp: per-example Hessians and H v match functorch" {
  let W = ref["vmap.W"]
  let X = ref["vmap.X"]
  let (f, h) = models.vmap_functions(W)
  close(vmap(jacfwd(jacrev(f)))(X), ref["vmap.hessians"])
  close(vmap(hessian(f))(X), ref["vmap.hessians"])
  close(vmap(fn(x, v) = jvp(grad(f), (x,), (v,))[1])(X, ref["vmap.V"]), ref["vmap.jvp_of_grad"])
  close(vmap(fn(x, v) = hvp(f, x, v)[1])(X, ref["vmap.V"]), ref["vmap.jvp_of_grad"])
}
