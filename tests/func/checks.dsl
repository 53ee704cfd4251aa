# The comparisons the transform tests share. Import it:
#
#   import "checks.dsl" as checks
#   checks.close(jacfwd(f)(x), jacrev(f)(x))

# a equals b within f64 tolerances, with b's shape and dtype (expect_close alone
# broadcasts). `what` names the function in a failure.
fn close(a, b, what="", rtol=1e-9, atol=1e-10) {
  expect(a.shape == b.shape, f"{what}: shape {a.shape} where {b.shape} was expected")
  expect(a.dtype == b.dtype, f"{what}: dtype {a.dtype} where {b.dtype} was expected")
  expect_close(a, b, rtol=rtol, atol=atol, msg=what)
}

# [f(0), ..., f(n - 1)]
fn table(n, f) {
  let out = []
  for i in range(n) { out.append(f(i)) }
  return out
}

# A leaf that requires grad, holding t's values.
fn leaf(t) {
  let x = t.detach().clone()
  x.requires_grad = true
  return x
}
