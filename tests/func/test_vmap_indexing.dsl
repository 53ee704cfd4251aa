# Indexing with an index tensor that vmap batched (one index per example): the index's
# values cannot be read on the host, so indexing takes the ops a graph capture takes
# (interp/values/indexing.cpp, advanced_indexing.cpp). Each result equals the loop over
# the examples.

let A = arange(12.0).reshape([3, 4])
let I = tensor([1, -1, 2])

fn each(f, xs, ys) = stack([f(xs[k], ys[k]) for k in range(xs.shape[0])])

fn zero_at(b, i) {
  let c = b.clone()
  c[i] = 0.0
  return c
}

test "a[i], a[:, i], a[j] and c[i] = 0 with per-example indices equal the loop" {
  expect(equal(vmap(fn(a, i) = a[i])(A, I), tensor([1.0, 7.0, 10.0])))
  let B = arange(24.0).reshape([3, 2, 4])
  expect(equal(vmap(fn(b, i) = b[:, i])(B, I), each(fn(b, i) = b[:, i], B, I)))
  expect(equal(vmap(zero_at)(A, I), each(zero_at, A, I)))
  let J = tensor([[0, 1], [2, 3], [3, 3]])
  expect(equal(vmap(fn(a, j) = a[j])(A, J), each(fn(a, j) = a[j], A, J)))
}

test "per-example gradients through a per-example index equal the loop" {
  let f = fn(a, i) = (a[i] * a).sum()
  expect(equal(vmap(grad(f))(A, I), each(grad(f), A, I)))
}

test "a per-example index out of range is an error" {
  expect_error(fn() = vmap(fn(a, i) = a[i])(A, tensor([0, 9, 1])), "out of")
}

fn put_at(a, j) {
  let c = a.clone()
  c[j] = a[0] * 10.0 + arange(j.shape[0]) * 1.0
  return c
}

test "c[j] = v with a per-example index of several positions, repeats taking the last value, equals the loop" {
  let J = tensor([[0, 1], [2, 2], [-1, 3]])
  expect(equal(vmap(put_at)(A, J), each(put_at, A, J)))
  let f = fn(a, j) = (put_at(a, j) * arange(4) * 1.0).sum()
  expect(equal(vmap(grad(f))(A, J), each(grad(f), A, J)))
}

test "scatter, index_copy, index_fill and take with per-example indices equal the loop" {
  let J = tensor([[0, 3], [2, 2], [-1, 1]])
  let scat = fn(a, j) = a.scatter(0, j, tensor([5.0, 6.0]))
  expect(equal(vmap(scat)(A, J), each(scat, A, J)))
  let copy = fn(a, j) = a.index_copy(0, j, tensor([5.0, 6.0]))
  expect(equal(vmap(copy)(A, J), each(copy, A, J)))
  let fill = fn(a, j) = a.index_fill(0, j, -1.0)
  expect(equal(vmap(fill)(A, J), each(fill, A, J)))
  let tk = fn(a, j) = take(a, j)
  expect(equal(vmap(tk)(A, J), each(tk, A, J)))
}

test "index_select with a per-example index is one gather: batched and shared inputs, values and gradients equal the loop" {
  let J = tensor([[0, 3], [2, 2], [1, 0]])
  let sel = fn(a, j) = a.index_select(0, j)
  expect(equal(vmap(sel)(A, J), each(sel, A, J)))
  let B = arange(24.0).reshape([3, 2, 4])
  let sel1 = fn(b, j) = b.index_select(1, j)
  expect(equal(vmap(sel1)(B, J), each(sel1, B, J)))
  let shared = arange(8.0).reshape([4, 2])
  expect(equal(vmap(fn(j) = shared.index_select(0, j))(J), stack([shared.index_select(0, j) for j in J])))
  let f = fn(a, j) = (a.index_select(0, j) * tensor([1.0, 2.0])).sum()
  expect(equal(vmap(grad(f))(A, J), each(grad(f), A, J)))
  expect_error(fn() = vmap(sel)(A, tensor([[0, 4], [0, 0], [0, 0]])), "out of")
}
