# Indexing with several index tensors and assignment through index tensors (Note
# [Advanced indexing], interp/values/advanced_indexing.cpp): where the broadcast index
# shape goes, masks among them, negative indices, a value broadcast into the indexed
# places, a position named twice, and gradients (and grad of grad) through both. Every
# expected value is PyTorch 1.13's for the same expression.

let x = arange(24.0).reshape(2, 3, 4)

test "two index tensors pick elementwise, and their shape stands where the indexed dims stood" {
  expect(x[tensor([0, 1]), tensor([2, 0])].tolist() == [[8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0]])
  let r = x[:, [0, 2], [[1], [3]]]
  expect(r.shape == (2, 2, 2), "dims next to each other: B in their place, after dim 0")
  expect(r.flatten().tolist() == [1.0, 9.0, 3.0, 11.0, 13.0, 21.0, 15.0, 23.0])
  let b = x[tensor([[0], [1]]), tensor([0, 2, 1])]
  expect(b.shape == (2, 3, 4) and b.sum().item() == 276.0, "index shapes [2, 1] and [3] broadcast to [2, 3]")
}

test "index tensors apart from each other put their shape first; negative indices count from the end" {
  expect(x[[1, 0], :, [-1, 0]].tolist() == [[15.0, 19.0, 23.0], [0.0, 4.0, 8.0]])
  expect(x[[0, 1], :, [1, 3]].tolist() == [[1.0, 5.0, 9.0], [15.0, 19.0, 23.0]])
}

test "a mask among index tensors indexes the dims it covers by its true positions" {
  let m = tensor([[true, false, true], [false, true, false]])
  expect(x[m, tensor([0, 1, 3])].tolist() == [0.0, 9.0, 19.0])
}

test "the picked log-probabilities of a batch, as a loss is written, with PyTorch's gradient" {
  let logits = tensor([[0.1, 0.7, 0.2], [0.5, 0.3, 0.2]], dtype=f64, requires_grad=true)
  let loss = -logits.log_softmax(1)[arange(2), tensor([1, 0])].mean()
  loss.backward()
  expect(abs(loss.item() - 0.8538903048740425) < 1e-14)
  let want = tensor([[0.12731426399457996, -0.26801828601759536, 0.14070402202301532],
                     [-0.3046530833650921, 0.15993652816795986, 0.1447165551971323]], dtype=f64)
  expect(allclose(logits.grad, want, rtol=0, atol=1e-14))
}

test "gradients and grad of grad through several index tensors" {
  let a = randn(3, 4, dtype=f64, requires_grad=true)
  expect(gradcheck(fn(t) = (t[tensor([0, 2, 2]), tensor([1, -1, 0])] ** 2).sum(), a))
  expect(gradgradcheck(fn(t) = (t[[1, 0], [[3], [0]]] ** 3).sum(), a))
}

test "assignment through index tensors writes the indexed places, a value broadcast into them" {
  let y = zeros(3, 4)
  y[[0, 2], [1, 3]] = 5.0
  expect(y.tolist() == [[0.0, 5.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 5.0]])
  y[:, tensor([0])] = -1.0
  expect(y[:, 0].tolist() == [-1.0, -1.0, -1.0] and y[0, 1].item() == 5.0)
  let z = zeros(5)
  z[tensor(2)] = 9.0
  z[tensor([true, false, false, false, true])] = tensor([1.0, 2.0])
  expect(z.tolist() == [1.0, 0.0, 9.0, 0.0, 2.0])
  let rows = zeros(3, 2)
  rows[tensor([2, 0])] = tensor([7.0, 8.0])
  expect(rows.tolist() == [[7.0, 8.0], [0.0, 0.0], [7.0, 8.0]], "a row value broadcast to each indexed row")
}

test "a position named twice takes the last value written, as PyTorch's CPU index_put_" {
  let a = zeros(4)
  a[[1, 1, 3]] = tensor([1.0, 2.0, 3.0])
  expect(a.tolist() == [0.0, 2.0, 0.0, 3.0])
}

test "gradients through an assignment reach the tensor (not where it was overwritten) and the value" {
  let w = tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=f64, requires_grad=true)
  let v = tensor([10.0, 20.0], dtype=f64, requires_grad=true)
  let y = w * 2
  y[[0, 1], [2, 0]] = v * 3
  expect(y.tolist() == [[2.0, 4.0, 30.0], [60.0, 10.0, 12.0]])
  (y * arange(6.0, dtype=f64).reshape(2, 3)).sum().backward()
  expect(w.grad.tolist() == [[0.0, 2.0, 0.0], [0.0, 8.0, 10.0]])
  expect(v.grad.tolist() == [6.0, 9.0])
}

test "assignment through a view writes into its base" {
  let base = zeros(2, 3)
  let row = base[1]
  row[tensor([0, 2])] = 4.0
  expect(base.tolist() == [[0.0, 0.0, 0.0], [4.0, 0.0, 4.0]])
}

test "an assignment stored directly still counts as an in-place write for autograd" {
  let w = randn(3, requires_grad=true)
  let x = ones(3)
  let y = (w * x).sum()
  x[tensor([0])] = 2.0
  expect(x.tolist() == [2.0, 1.0, 1.0])
  expect_error(fn() = y.backward(), "modified by an in-place operation")
}
