# The transforms compose: every two-level nesting of grad, jvp and vmap (and jacrev
# and jacfwd over themselves) against what the tensor form of grad gives, or the loop
# that vmap stands for, in f64 on seeded random inputs.

import "checks.dsl" as checks

manual_seed(2839)

let close = checks.close
let table = checks.table
let leaf = checks.leaf

let W = randn(4, 3, dtype=f64)

# A scalar function of a [4] vector, and a vector-valued one.
fn f(x) = ((x @ W).tanh() ** 2).sum() + (x.sin() * x.exp()).sum()
fn g(x) = (x @ W).tanh() * x[:3]

# The gradient and the Hessian of f at x from the tape (the tensor form of grad).
fn tape_grad(x) {
  let xl = leaf(x)
  return grad(f(xl), [xl])[0]
}
fn tape_hessian(x) {
  let xl = leaf(x)
  let gx = grad(f(xl), [xl], create_graph=true)[0]
  return stack(table(4, fn(k) = grad(gx[k], [xl], retain_graph=true)[0]))
}
# g's Jacobian [3, 4] at x from the tape.
fn tape_jacobian(x) {
  let xl = leaf(x)
  let y = g(xl)
  return stack(table(3, fn(k) = grad(y[k], [xl], retain_graph=true)[0]))
}

# Calls check(x, u, v) with random [4] vectors, a few times.
fn draws(check, n=3) {
  for k in range(n) { check(randn(4, dtype=f64), randn(4, dtype=f64), randn(4, dtype=f64)) }
}

test "grad(grad): the derivative of <grad f, v> is H v; of a scalar function, f''" {
  draws(fn(x, u, v) = close(grad(fn(y) = (grad(f)(y) * v).sum())(x), tape_hessian(x) @ v))
  # a function of one number: d2/dx2 sin(x) x^3 = -sin x x^3 + 6 cos x x^2 + 6 sin x x
  let s = randn([], dtype=f64)
  let exact = -s.sin() * s ** 3 + 6.0 * s.cos() * s ** 2 + 6.0 * s.sin() * s
  close(grad(grad(fn(x) = x.sin() * x ** 3))(s), exact)
}

test "jvp(jvp): the second directional derivative is u' H v" {
  draws(fn(x, u, v) = close(jvp(fn(y) = jvp(f, (y,), (u,))[1], (x,), (v,))[1], u @ tape_hessian(x) @ v))
}

test "jvp(grad) (hvp) and grad(jvp) both give H v" {
  draws(fn(x, u, v) = close(jvp(grad(f), (x,), (v,))[1], tape_hessian(x) @ v))
  draws(fn(x, u, v) = close(grad(fn(y) = jvp(f, (y,), (v,))[1])(x), tape_hessian(x) @ v))
  draws(fn(x, u, v) = close(hvp(f, (x,), (v,))[1][0], tape_hessian(x) @ v))
}

test "jacrev(jacrev), jacfwd(jacfwd), jacfwd(jacrev), jacrev(jacfwd) give the Hessian" {
  draws(fn(x, u, v) = close(jacrev(jacrev(f))(x), tape_hessian(x)))
  draws(fn(x, u, v) = close(jacfwd(jacfwd(f))(x), tape_hessian(x)))
  draws(fn(x, u, v) = close(jacfwd(jacrev(f))(x), tape_hessian(x)))
  draws(fn(x, u, v) = close(jacrev(jacfwd(f))(x), tape_hessian(x)))
  draws(fn(x, u, v) = close(jacrev(grad(f))(x), tape_hessian(x)))
}

# Batches of 5 vectors, for the vmap nestings.
fn batch() = randn(5, 4, dtype=f64)

test "vmap(vmap): both batch dims, in any placement" {
  let X = randn(2, 5, 4, dtype=f64)
  let loop = stack(table(2, fn(i) = stack(table(5, fn(j) = g(X[i, j])))))
  close(vmap(vmap(g))(X), loop)
  close(vmap(vmap(g), in_dims=1)(X.transpose(0, 1)), loop)
  close(vmap(vmap(g, in_dims=1), in_dims=0)(X.transpose(1, 2)), loop)
  close(vmap(vmap(g), out_dims=1)(X), loop.transpose(0, 1))
  # the inner vmap over a tensor the outer one does not batch
  let Y = batch()
  close(vmap(fn(x) = vmap(fn(y) = (x * y).sum())(Y))(Y), Y @ Y.T)
}

test "vmap(grad) is the loop of grads; grad(vmap) the gradient of the batch's sum" {
  let X = batch()
  let loop = stack(table(5, fn(i) = tape_grad(X[i])))
  close(vmap(grad(f))(X), loop)
  close(grad(fn(xs) = vmap(f)(xs).sum())(X), loop)
  # a weight shared by the batch: its gradient sums over the examples
  let h = fn(w, x) = ((x @ w).tanh() ** 2).sum()
  let Wl = leaf(W)
  let want = grad(stack(table(5, fn(i) = h(Wl, X[i]))).sum(), [Wl])[0]
  close(grad(fn(w) = vmap(h, in_dims=(none, 0))(w, X).sum())(W), want)
  close(vmap(grad(h), in_dims=(none, 0))(W, X).sum(0), want)
}

test "jvp(vmap) and vmap(jvp) are the loop of jvps" {
  let X = batch()
  let U = batch()
  let loop = stack(table(5, fn(i) = jvp(g, (X[i],), (U[i],))[1]))
  close(loop, stack(table(5, fn(i) = tape_jacobian(X[i]) @ U[i])))
  close(jvp(vmap(g), (X,), (U,))[1], loop)
  close(vmap(fn(x, u) = jvp(g, (x,), (u,))[1])(X, U), loop)
  # a tangent shared by the batch
  let u = U[0]
  close(vmap(fn(x) = jvp(g, (x,), (u,))[1])(X), stack(table(5, fn(i) = tape_jacobian(X[i]) @ u)))
}

test "vmap over jacrev, jacfwd, hessian and hvp: per-example Jacobians, Hessians and their products" {
  let X = batch()
  let V = batch()
  close(vmap(jacrev(g))(X), stack(table(5, fn(i) = tape_jacobian(X[i]))))
  close(vmap(jacfwd(g))(X), stack(table(5, fn(i) = tape_jacobian(X[i]))))
  close(vmap(hessian(f))(X), stack(table(5, fn(i) = tape_hessian(X[i]))))
  let products = stack(table(5, fn(i) = tape_hessian(X[i]) @ V[i]))
  close(vmap(fn(x, v) = hvp(f, (x,), (v,))[1][0])(X, V), products)
  close(vmap(fn(x, v) = hvp(f, x, v)[1])(X, V), products)
  close(vmap(fn(x) = hvp(f, (x,), (V[0],))[1][0])(X), stack(table(5, fn(i) = tape_hessian(X[i]) @ V[0])))
  close(vmap(fn(x) = hvp(f, x, x)[0])(X), vmap(f)(X))
  # over two arguments, against hvp outside vmap
  let two = fn(x, y) = ((x @ W).tanh() * (y @ W)).sum() + (x * y.sin()).sum()
  let Y = batch()
  let U = batch()
  let (hx, hy) = vmap(fn(x, y, v, u) = hvp(two, (x, y), (v, u))[1])(X, Y, V, U)
  for i in range(5) {
    let (wx, wy) = hvp(two, (X[i], Y[i]), (V[i], U[i]))[1]
    close(hx[i], wx)
    close(hy[i], wy)
  }
  # inside jacfwd's batch of basis tangents: the derivative of H v, by either mode
  let d = fn(x) = hvp(f, (x,), (V[0],))[1][0]
  close(jacfwd(d)(X[0]), jacrev(d)(X[0]))
}

test "three levels: grad(grad(grad)), jvp(vmap(grad)), jacfwd(vmap(grad))" {
  let s = randn([], dtype=f64)
  # d3/dx3 x^5 = 60 x^2
  close(grad(grad(grad(fn(x) = x ** 5)))(s), 60.0 * s ** 2)
  let X = batch()
  let V = batch()
  close(jvp(vmap(grad(f)), (X,), (V,))[1], stack(table(5, fn(i) = tape_hessian(X[i]) @ V[i])))
  # the Jacobian of the per-example gradients is block diagonal, one Hessian per example
  let J = jacfwd(vmap(grad(f)))(X)
  for i in range(5) { close(J[i, :, i], tape_hessian(X[i])) }
  close(J[0, :, 1], zeros([4, 4], dtype=f64))
}

# <vjp_fn(c), u> differentiated in c is J u.
fn jvp_by_double_vjp(x, u) {
  let (y, pull) = vjp(g, x)
  let c = zeros([3], dtype=f64)
  c.requires_grad = true
  let (gx,) = pull(c)
  return grad((gx * u).sum(), [c])[0]
}

test "vjp_fn is differentiable in its cotangent: a double vjp gives the jvp" {
  draws(fn(x, u, v) = close(jvp_by_double_vjp(x, u), jvp(g, (x,), (u,))[1]))
}

# Writes into a value being differentiated (the in-place path of a reverse level).
fn written(x) {
  let y = x * 2.0
  y.add_(x.sin())
  return (y * y).sum()
}

# A reverse transform inside a jvp inside a vmap differentiates on a reverse level of
# its own (Note [Reverse levels]): the tape alone would lose the jvp's tangents.
test "vmap(jacfwd(jacrev)) and vmap(jvp(grad)): per-example Hessians by forward over reverse" {
  let X = batch()
  let V = batch()
  let hessians = stack(table(5, fn(i) = tape_hessian(X[i])))
  close(vmap(jacfwd(jacrev(f)))(X), hessians)
  close(vmap(jacfwd(grad(f)))(X), hessians)
  close(vmap(fn(x, v) = jvp(grad(f), (x,), (v,))[1])(X, V), stack(table(5, fn(i) = hessians[i] @ V[i])))
  # the gradient itself (the jvp's primal output) is the per-example gradient
  close(vmap(fn(x, v) = jvp(grad(f), (x,), (v,))[0])(X, V), stack(table(5, fn(i) = tape_grad(X[i]))))
  # vjp's pullback called inside the jvp, after vjp has returned
  let pulled = fn(y) = vjp(f, y)[1](ones([], dtype=f64))[0]
  close(vmap(fn(x, v) = jvp(pulled, (x,), (v,))[1])(X, V), stack(table(5, fn(i) = hessians[i] @ V[i])))
  # batch dims elsewhere, and two of them
  close(vmap(jacfwd(jacrev(f)), in_dims=1, out_dims=2)(X.T), hessians.permute(1, 2, 0))
  let X2 = randn(2, 3, 4, dtype=f64)
  let H2 = vmap(vmap(jacfwd(jacrev(f))))(X2)
  for i in range(2) { for j in range(3) { close(H2[i, j], tape_hessian(X2[i, j])) } }
}

test "a reverse level: vector outputs, two arguments, aux, captured primals, in-place writes" {
  let X = batch()
  # third derivatives of a vector function
  close(vmap(jacfwd(jacrev(g)))(X), stack(table(5, fn(i) = jacrev(jacrev(g))(X[i]))))
  # two differentiated arguments: every block of each per-example Hessian
  let two = fn(x, y) = ((x @ W).tanh() * (y @ W)).sum() + (x * y.sin()).sum()
  let Y = batch()
  let H = vmap(jacfwd(jacrev(two, argnums=(0, 1)), argnums=(0, 1)))(X, Y)
  for i in range(5) {
    let want = jacrev(jacrev(two, argnums=(0, 1)), argnums=(0, 1))(X[i], Y[i])
    for a in range(2) { for b in range(2) { close(H[a][b][i], want[a][b]) } }
  }
  # has_aux: the aux value comes out unwrapped, batched like the output
  let (hx, aux) = vmap(jacfwd(jacrev(fn(x) = (f(x), x.cos()), has_aux=true), has_aux=true))(X)
  close(hx, vmap(jacfwd(jacrev(f)))(X))
  close(aux, X.cos())
  # a primal from outside the vmap, and the gradient of a batched capture
  let c = randn(4, dtype=f64)
  close(vmap(fn(x) = jvp(fn(y) = grad(fn(z) = (z * x).sum())(y), (c,), (c,))[0])(X), X)
  close(vmap(fn(x) = jvp(fn(y) = grad(fn(z) = (z * z * x).sum())(y), (c,), (c,))[1])(X), 2.0 * X * c)
  # an in-place write into a value being differentiated (one without a tangent: a jvp
  # refuses writes into tensors with tangents)
  let out_of_place = vmap(grad(fn(x) = ((x * 2.0 + x.sin()) ** 2).sum()))(X)
  close(vmap(fn(x) = jvp(fn(t) = grad(written)(x) * t, (c,), (c,))[0])(X), out_of_place * c)
}

test "a reverse level stays differentiable: grad over vmap(jacfwd(jacrev)) gives third derivatives" {
  let X = batch()
  let w0 = randn(4, dtype=f64)
  let fw = fn(x, w) = ((x * w).tanh() ** 3).sum() + (x.sin() * w).sum()
  let outer = grad(fn(w) = vmap(jacfwd(jacrev(fn(x) = fw(x, w))))(X).sum())(w0)
  let loop = zeros([4], dtype=f64)
  for i in range(5) { loop = loop + grad(fn(w) = jacrev(jacrev(fn(x) = fw(x, w)))(X[i]).sum())(w0) }
  close(outer, loop)
}
