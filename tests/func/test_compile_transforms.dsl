# Graph mode records what the transforms run: compile of a function that calls
# vmap(grad(...)) captures the batched forward and backward ops, compile of one that
# calls jvp captures the tangent ops, and the graph module equals eager on the
# example inputs and on new ones (f64).

manual_seed(7)
let W = randn(5, 3, dtype=f64)

fn close(a, b) = expect_close(a, b, rtol=1e-12, atol=1e-12)

test "compile(vmap(grad(f))): per-example gradients as one graph" {
  let xs = randn(4, 5, dtype=f64)
  fn per_example(xs) = vmap(grad(fn(x) = (x @ W).tanh().sum()))(xs)
  let gm = compile(per_example, xs)
  close(gm(xs), per_example(xs))
  let other = randn(4, 5, dtype=f64)
  close(gm(other), per_example(other))
  # each row is that example's own gradient
  close(gm(other)[2], grad(fn(x) = (x @ W).tanh().sum())(other[2]))
  # the graph has the batched matmul and no per-example loop
  let ir = gm.ir()
  expect("matmul" in ir, "the batched forward is in the graph")
  expect(not ("stack" in ir), "no loop over the examples")
}

test "compile(jvp): the tangent ops are in the graph" {
  let x = randn(6, dtype=f64)
  let v = randn(6, dtype=f64)
  fn directional(x, v) = jvp(fn(x) = (x.sin() * x).exp(), (x,), (v,))[1]
  let gm = compile(directional, x, v)
  close(gm(x, v), directional(x, v))
  let x2 = randn(6, dtype=f64)
  let v2 = randn(6, dtype=f64)
  close(gm(x2, v2), directional(x2, v2))
  # the closed form: d/dx exp(x sin x) = exp(x sin x) (sin x + x cos x)
  close(gm(x2, v2), (x2.sin() * x2).exp() * (x2.sin() + x2 * x2.cos()) * v2)
}

test "compile(hvp): forward over reverse in one graph" {
  let x = randn(4, dtype=f64)
  let v = randn(4, dtype=f64)
  fn product(x, v) = hvp(fn(x) = (x ** 3).sum(), (x,), (v,))[1][0]
  let gm = compile(product, x, v)
  close(gm(x, v), 6.0 * x * v)
  let x2 = randn(4, dtype=f64)
  close(gm(x2, v), 6.0 * x2 * v)
}

test "compile(vmap(hessian)): a reverse level inside a jvp inside vmap, in one graph" {
  let W = randn(4, 3, dtype=f64)
  fn f(x) = ((x @ W).tanh() ** 2).sum() + (x.sin() * x.exp()).sum()
  fn per_example(X) = vmap(hessian(f))(X)
  let gm = compile(per_example, randn(5, 4, dtype=f64))
  let X = randn(5, 4, dtype=f64)
  close(gm(X), stack([jacrev(jacrev(f))(X[0]), jacrev(jacrev(f))(X[1]), jacrev(jacrev(f))(X[2]),
                      jacrev(jacrev(f))(X[3]), jacrev(jacrev(f))(X[4])]))
}
