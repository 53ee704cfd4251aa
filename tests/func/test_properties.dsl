# Properties of the transforms that hold whatever the function, checked in f64 on a
# few seeded random inputs for a representative set of functions (elementwise,
# matmul, reductions, softmax, normalization, views, indexing, joins, where, sorting,
# convolution, pooling, padding, losses): jacfwd == jacrev; jvp == Jacobian @
# tangent; vjp == cotangent @ Jacobian; Hessians are symmetric and all four ways to build one agree;
# vmap(f)(X) == stack([f(x_i)]) with in_dims and out_dims varied.

import "checks.dsl" as checks

manual_seed(2838)

let close = checks.close
let table = checks.table

# f applied to each slice of X along dim 0, stacked along out_dim: what vmap means.
fn loop_map(f, X, out_dim=0) = stack(table(X.shape[0], fn(i) = f(X[i])), dim=out_dim)

fn numel_of(shape) {
  let n = 1
  for s in shape { n = n * s }
  return n
}

# The Jacobian of f at x as a matrix [numel(out), numel(x)], by jacrev.
fn jacobian_matrix(f, x) {
  let j = jacrev(f)(x)
  return j.reshape([numel_of(j.shape) / x.numel(), x.numel()])
}

let W = randn(4, 5, dtype=f64)
let kernel = randn(2, 1, 2, 2, dtype=f64)
let kernel1d = randn(2, 3, 2, dtype=f64)

# Functions of one [3, 4] tensor, each with a name for the failure message.
let functions = [
  ("tanh(x @ W)", fn(x) = (x @ W).tanh()),
  ("sin * exp", fn(x) = x.sin() * x.exp()),
  ("x ** 3 / (1 + x * x)", fn(x) = x ** 3 / (1.0 + x * x)),
  ("sigmoid, gelu, softplus", fn(x) = sigmoid(x) * gelu(x) + softplus(x)),
  ("x @ x.T", fn(x) = x @ x.T),
  ("softmax over the last dim", fn(x) = softmax(x, dim=-1)),
  ("log_softmax over dim 0", fn(x) = log_softmax(x, dim=0)),
  ("sum over dim 1", fn(x) = (x * x).sum(1)),
  ("mean and var", fn(x) = x.mean(0) * x.var(0)),
  ("logsumexp", fn(x) = logsumexp(x, dim=1)),
  ("layer norm", fn(x) = layer_norm(x, [4])),
  ("transpose and reshape", fn(x) = x.T.reshape([2, 6]) * x.reshape([6, 2]).T),
  ("slicing", fn(x) = x[1:, ::2] * x[:2, 1::2]),
  ("cat", fn(x) = cat([x, x.sin()], dim=0)),
  ("stack", fn(x) = stack([x, x * x], dim=1)),
  ("where", fn(x) = where(x > 0.0, x * x, x.exp())),
  ("max over dim 1", fn(x) = x.max(dim=1)[0] * x.sum(1)),
  ("cumsum and flip", fn(x) = x.cumsum(1).flip([0]) * x),
  ("conv2d", fn(x) = conv2d(x.reshape([1, 1, 3, 4]), kernel, padding=1)),
  ("conv1d", fn(x) = conv1d(x.unsqueeze(0), kernel1d)),
  ("max_pool2d", fn(x) = max_pool2d(x.reshape([1, 1, 3, 4]), 2, stride=1)),
  ("avg_pool2d", fn(x) = avg_pool2d(x.reshape([1, 1, 3, 4]), 2, stride=1)),
  ("pad", fn(x) = pad(x, [1, 2], value=0.5) * x.sum()),
  ("sort", fn(x) = x.sort(dim=1)[0] * x),
  ("topk", fn(x) = x.topk(2, dim=1)[0]),
  ("tril and roll", fn(x) = x.tril() + x.roll(1, 0)),
  ("group norm", fn(x) = group_norm(x.reshape([1, 4, 3]), 2)),
  ("rms norm", fn(x) = rms_norm(x, [4])),
  ("clamp and abs", fn(x) = x.clamp(-0.5, 0.5) + x.abs() * (x * x).sum().sqrt()),
  ("cumprod", fn(x) = x.cumprod(1)),
  ("repeat", fn(x) = x.repeat([2, 1]) * x.sum(0)),
  ("masked_fill and std", fn(x) = x.masked_fill(x > 0.5, 0.0) + x.std(1, keepdim=true)),
  ("interpolate", fn(x) = interpolate(x.reshape([1, 3, 4]), scale_factor=2, mode="linear")),
  ("split", fn(x) = x.split(2, dim=1)[1] * x[:, :2]),
]

# Scalar functions of one [3, 4] tensor, for Hessians.
let targets = tensor([1, 0, 3])
let scalar_functions = [
  ("sum of tanh(x @ W) ** 2", fn(x) = ((x @ W).tanh() ** 2).sum()),
  ("sin(x) * exp(cos(x))", fn(x) = (x.sin() * x.cos().exp()).sum()),
  ("logsumexp of everything", fn(x) = logsumexp(x.reshape([-1]), dim=0)),
  ("cross entropy", fn(x) = cross_entropy(x, targets)),
  ("layer norm cubed", fn(x) = (layer_norm(x, [4]) ** 3).sum()),
  ("softmax against a weight", fn(x) = (softmax(x, dim=0) * x).sum()),
  ("mse and bce losses", fn(x) = mse_loss(x, x.sin()) + binary_cross_entropy_with_logits(x, sigmoid(x.cos()))),
]

# Calls check(name, f, x) for every function and a few random inputs.
fn each_input(fs, check, shape=[3, 4], draws=3) {
  for (name, f) in fs {
    for k in range(draws) { check(name, f, randn(shape, dtype=f64)) }
  }
}

test "jacfwd equals jacrev" {
  each_input(functions, fn(name, f, x) = close(jacfwd(f)(x), jacrev(f)(x), name))
  each_input(scalar_functions, fn(name, f, x) = close(jacfwd(f)(x), jacrev(f)(x), name))
}

fn jacrev_is_rows_of_grad(name, f, x) {
  let xl = x.clone()
  xl.requires_grad = true
  let y = f(xl).reshape([-1])
  let rows = stack(table(y.shape[0], fn(k) = grad(y[k], [xl], retain_graph=true, allow_unused=true)[0]))
  close(jacrev(f)(x), rows.reshape(list(f(x).shape) + list(x.shape)), name)
}

test "jacrev is what the tensor form of grad gives, row by row" {
  each_input(functions, jacrev_is_rows_of_grad, draws=1)
}

fn jvp_and_vjp_are_products(name, f, x) {
  let J = jacobian_matrix(f, x)
  let u = randn_like(x)
  let (y, tangent_out) = jvp(f, (x,), (u,))
  close(y, f(x), name)
  close(tangent_out.reshape([-1]), J @ u.reshape([-1]), name)
  let (y2, pull) = vjp(f, x)
  let c = randn_like(y2)
  close(pull(c)[0].reshape([-1]), c.reshape([-1]) @ J, name)
}

test "jvp equals the Jacobian times the tangent; vjp the cotangent times the Jacobian" {
  each_input(functions, jvp_and_vjp_are_products)
}

fn hessians_agree(name, f, x) {
  let H = hessian(f)(x)
  expect(H.shape == (3, 4, 3, 4), f"{name}: the Hessian has shape {H.shape}")
  let M = H.reshape([12, 12])
  close(M, M.T, name)
  close(jacfwd(jacrev(f))(x), H, name)
  close(jacrev(jacrev(f))(x), H, name)
  close(jacfwd(jacfwd(f))(x), H, name)
  close(jacrev(jacfwd(f))(x), H, name)
  let v = randn_like(x)
  let (value, hv) = hvp(f, (x,), (v,))
  close(value, f(x), name)
  close(hv[0].reshape([-1]), M @ v.reshape([-1]), name)
}

test "Hessians are symmetric, and hessian, jacfwd(jacrev), jacrev(jacrev), jacfwd(jacfwd), jacrev(jacfwd) agree" {
  each_input(scalar_functions, hessians_agree)
}

test "a Hessian over two arguments is symmetric as a block matrix" {
  let f = fn(x, y) = ((x @ W).tanh() * y).sum() + (x * x).sum() * y.sin().sum()
  for k in range(3) {
    let (x, y) = (randn(3, 4, dtype=f64), randn(3, 5, dtype=f64))
    let ((hxx, hxy), (hyx, hyy)) = hessian(f, argnums=(0, 1))(x, y)
    close(hxx.reshape([12, 12]), hxx.reshape([12, 12]).T)
    close(hyy.reshape([15, 15]), hyy.reshape([15, 15]).T)
    close(hxy.reshape([12, 15]), hyx.reshape([15, 12]).T)
    close(hxy, jacrev(jacrev(f, argnums=0), argnums=1)(x, y))
  }
}

fn vmap_is_the_loop(name, f, X) {
  close(vmap(f)(X), loop_map(f, X), name)
  close(vmap(f, in_dims=1)(X.transpose(0, 1)), loop_map(f, X), name)
  close(vmap(f, out_dims=1)(X), loop_map(f, X, out_dim=1), name)
}

test "vmap(f)(X) is the loop stack([f(x_i)]), over dim 0 and dim 1, with out_dims 0 and 1" {
  each_input(functions, vmap_is_the_loop, shape=[4, 3, 4], draws=2)
  each_input(scalar_functions, fn(name, f, X) = close(vmap(f)(X), loop_map(f, X), name), shape=[4, 3, 4], draws=2)
}

test "vmap of functions of two arguments: in_dims per argument, none for a shared one" {
  let f = fn(x, y) = (x @ y).tanh() + x.sum(1, keepdim=true)
  for k in range(2) {
    let X = randn(5, 3, 4, dtype=f64)
    let Y = randn(5, 4, 2, dtype=f64)
    let y0 = randn(4, 2, dtype=f64)
    let x0 = randn(3, 4, dtype=f64)
    close(vmap(f)(X, Y), stack(table(5, fn(i) = f(X[i], Y[i]))))
    close(vmap(f, in_dims=(0, none))(X, y0), stack(table(5, fn(i) = f(X[i], y0))))
    close(vmap(f, in_dims=(none, 0))(x0, Y), stack(table(5, fn(i) = f(x0, Y[i]))))
    close(vmap(f, in_dims=(2, 1))(X.permute([1, 2, 0]), Y.transpose(0, 1)), stack(table(5, fn(i) = f(X[i], Y[i]))))
  }
}

test "vmap of indexing ops: gather, index_select, embedding, a cross entropy with batched targets" {
  for k in range(2) {
    let X = randn(4, 3, 5, dtype=f64)
    let I = randint(0, 5, [4, 3, 2])
    let T = randint(0, 5, [4, 3])
    let E = randn(6, 3, dtype=f64)
    let ids = randint(0, 6, [4, 7])
    close(vmap(fn(x, i) = gather(x, 1, i))(X, I), stack(table(4, fn(b) = gather(X[b], 1, I[b]))))
    close(vmap(fn(x) = index_select(x, 1, tensor([4, 0, 0])))(X), stack(table(4, fn(b) = index_select(X[b], 1, tensor([4, 0, 0])))))
    close(vmap(fn(i) = embedding(i, E))(ids), stack(table(4, fn(b) = embedding(ids[b], E))))
    close(vmap(cross_entropy)(X, T), stack(table(4, fn(b) = cross_entropy(X[b], T[b]))))
  }
}

test "vmap with a tuple output and a dict argument: out_dims per output" {
  let f = fn(d) = (d["a"] * d["b"], d["a"].sum())
  let A = randn(4, 3, dtype=f64)
  let B = randn(4, 3, dtype=f64)
  let (prod, total) = vmap(f, out_dims=(1, 0))({"a": A, "b": B})
  close(prod, (A * B).T)
  close(total, A.sum(1))
  # an output that does not depend on the batch is expanded (out_dims 0) or left as is (out_dims none)
  let (same, per) = vmap(fn(x) = (W.sum(), x.sum()), out_dims=(none, 0))(A)
  close(same, W.sum())
  close(per, A.sum(1))
  close(vmap(fn(x) = W.sum())(A), W.sum().expand([4]))
}

test "Jacobians of a function returning a dict nest per output key" {
  let x = randn(3, dtype=f64)
  fn f(x) = {"scaled": x * 2.0, "total": (x * x).sum()}
  for jac in [jacrev(f), jacfwd(f)] {
    let j = jac(x)
    expect(sorted(list(j.keys())) == ["scaled", "total"], "one Jacobian per key")
    close(j["scaled"], to_dtype(eq(arange(3).unsqueeze(1), arange(3)), f64) * 2.0)
    close(j["total"], x * 2.0)
  }
}
