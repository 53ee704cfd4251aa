# Batching rules that transforms reach through: linear with a batched weight or bias
# (the per-example parameters that vmap(grad(f)) makes), one batched matmul; and
# slice_backward (jacrev of a function that indexes its argument). Each gives the same
# values as a loop over examples.

# f under vmap against stack([f(x_i)]) over the batch, in f64.
fn expect_like_loop(f, args, in_dims) {
  let batched = vmap(f, in_dims=in_dims)(*args)
  let n = 0
  for (a, d) in zip(args, in_dims) {
    if d != none { n = a.shape[d] }
  }
  let each = []
  for i in range(n) {
    let one = []
    for (a, d) in zip(args, in_dims) { one.append(a if d == none else a.select(d, i)) }
    each.append(f(*one))
  }
  expect_close(batched, stack(each), rtol=1e-10, atol=1e-12)
}

test "linear: batched weight, bias or both, with batched or unbatched inputs of any rank" {
  let x = randn([3, 2, 5], dtype=f64)
  let w = randn([3, 4, 5], dtype=f64)
  let b = randn([3, 4], dtype=f64)
  expect_like_loop(linear, [x, w, b], [0, 0, 0])
  expect_like_loop(linear, [x[0], w, b], [none, 0, 0])
  expect_like_loop(linear, [x, w[0], b], [0, none, 0])
  expect_like_loop(linear, [x[0], w[0], b], [none, none, 0])
  expect_like_loop(fn(x, w) = linear(x, w), [x[:, 0], w], [0, 0])
  expect_like_loop(linear, [x.permute([1, 2, 0]), w.permute([1, 2, 0]), b.T], [2, 2, 1])
}

test "vmap(grad) of an MLP over a params dict: per-example gradients equal a loop of grad" {
  let p = {"w1": randn([6, 5], dtype=f64), "b1": randn([6], dtype=f64), "w2": randn([3, 6], dtype=f64)}
  fn loss(p, x, t) = cross_entropy(linear(tanh(linear(x.unsqueeze(0), p["w1"], p["b1"])), p["w2"]), t.unsqueeze(0))
  let x = randn([4, 5], dtype=f64)
  let t = tensor([0, 2, 1, 2])
  let per_example = vmap(grad(loss), in_dims=(none, 0, 0))(p, x, t)
  for i in range(4) {
    let g = grad(loss)(p, x[i], t[i])
    for k in ["w1", "b1", "w2"] { expect_close(per_example[k][i], g[k], rtol=1e-10, atol=1e-12) }
  }
}

test "slice_backward: jacrev of a function that indexes its argument, under vmap" {
  let x = randn([4, 5, 3], dtype=f64)
  expect_like_loop(fn(g) = slice_backward(g, [5, 3], 0, 1, 4, 2), [randn([4, 2, 3], dtype=f64)], [0])
  expect_like_loop(fn(g) = slice_backward(g, [5, 3], 1, 0, 2), [randn([5, 4, 2], dtype=f64)], [1])
  expect_like_loop(jacrev(fn(v) = v[1:4, 0] * v[0, 2]), [x], [0])
}
