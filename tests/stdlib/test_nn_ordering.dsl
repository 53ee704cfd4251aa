# The scans, ordering and indexing ops from the language (autograd/ops/ordering.cpp):
# PyTorch's names, argument orders and method forms, the composites argsort and
# repeat_interleave, and multinomial's statistics (run by ctest dsl_tests).
import math

test "sort, argsort and topk as PyTorch's" {
  let x = tensor([[3.0, 1.0, 2.0], [0.5, 9.0, -1.0]])
  let (v, i) = x.sort()
  expect_close(v, tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 9.0]]))
  expect(i.tolist() == [[1, 2, 0], [2, 0, 1]])
  expect(x.argsort(dim=1, descending=true).tolist() == [[0, 2, 1], [1, 0, 2]])
  expect(argsort(x, 0).tolist() == [[1, 0, 1], [0, 1, 0]])
  let (tv, ti) = x.topk(2)
  expect_close(tv, tensor([[3.0, 2.0], [9.0, 0.5]]))
  expect(ti.tolist() == [[0, 2], [1, 0]])
  let (sv, si) = topk(x, 1, dim=0, largest=false)
  expect(si.tolist() == [[1, 0, 1]])
}

test "NaN sorts above every number" {
  let x = tensor([1.0, 0.0, -2.0])
  x[1] = math.nan
  let (v, i) = x.sort()
  expect(i.tolist() == [2, 0, 1])
  expect(x.sort(descending=true)[1].tolist() == [1, 0, 2])
}

test "scans, flips, rolls and triangles" {
  let x = tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
  expect_close(x.cumsum(1), tensor([[1.0, 3.0, 6.0], [4.0, 9.0, 15.0]]))
  expect_close(x.cumprod(dim=0), tensor([[1.0, 2.0, 3.0], [4.0, 10.0, 18.0]]))
  expect_close(x.flip(0, 1), tensor([[6.0, 5.0, 4.0], [3.0, 2.0, 1.0]]))
  expect_close(x.flip([1]), tensor([[3.0, 2.0, 1.0], [6.0, 5.0, 4.0]]))
  expect_close(x.roll(1, 1), tensor([[3.0, 1.0, 2.0], [6.0, 4.0, 5.0]]))
  expect_close(roll(x, 1), tensor([[6.0, 1.0, 2.0], [3.0, 4.0, 5.0]]))
  expect_close(x.tril(), tensor([[1.0, 0.0, 0.0], [4.0, 5.0, 0.0]]))
  expect_close(x.triu(1), tensor([[0.0, 2.0, 3.0], [0.0, 0.0, 6.0]]))
}

test "masked_fill, repeat, repeat_interleave and one_hot" {
  let x = tensor([[1.0, 2.0], [3.0, 4.0]])
  expect_close(x.masked_fill(tensor([true, false]), -1.0), tensor([[-1.0, 2.0], [-1.0, 4.0]]))
  expect(x.repeat(2, 1).shape == (4, 2))
  expect_close(tensor([1.0, 2.0]).repeat(2), tensor([1.0, 2.0, 1.0, 2.0]))
  expect_close(repeat_interleave(tensor([1.0, 2.0]), 2), tensor([1.0, 1.0, 2.0, 2.0]))
  expect_close(x.repeat_interleave(tensor([1, 2]), dim=0), tensor([[1.0, 2.0], [3.0, 4.0], [3.0, 4.0]]))
  expect(x.repeat_interleave(2).shape == (8,))
  expect(one_hot(tensor([2, 0])).tolist() == [[0, 0, 1], [1, 0, 0]])
  expect(one_hot(tensor([1]), num_classes=4).tolist() == [[0, 1, 0, 0]])
}

test "gradients flow through sort, topk, repeat_interleave and masked_fill" {
  let x = tensor([3.0, 1.0, 2.0], requires_grad=true)
  let (v, i) = x.topk(2)
  (v * tensor([10.0, 1.0])).sum().backward()
  expect_close(x.grad, tensor([10.0, 0.0, 1.0]))
  let y = tensor([1.0, 2.0], requires_grad=true)
  repeat_interleave(y, tensor([3, 1])).sum().backward()
  expect_close(y.grad, tensor([3.0, 1.0]))
}

test "multinomial follows the distribution and is seeded" {
  manual_seed(7)
  let p = tensor([0.1, 0.2, 0.7])
  let s = multinomial(p, 20000, replacement=true)
  let counts = one_hot(s, 3).sum(0).to_dtype(f64) / 20000.0
  expect_close(counts, p, atol=0.02)
  manual_seed(3)
  let a = multinomial(tensor([[1.0, 2.0, 3.0, 4.0]]), 4)
  manual_seed(3)
  let b = multinomial(tensor([[1.0, 2.0, 3.0, 4.0]]), 4)
  expect(a.tolist() == b.tolist())
  expect(a.sort()[0].tolist() == [[0, 1, 2, 3]])
}

test "top-k sampling: topk, softmax, multinomial" {
  manual_seed(0)
  let logits = randn([4, 50])
  let (values, indices) = logits.topk(5)
  let probs = softmax(values, dim=-1)
  let pick = multinomial(probs, 1)
  let token = indices.gather(1, pick)
  expect(token.shape == (4, 1))
  let best = logits.argmax(dim=1, keepdim=true)
  let chosen = logits.gather(1, token)
  expect((chosen <= logits.gather(1, best)).sum().item() == 4)
  expect((chosen >= values[:, 4:5]).sum().item() == 4)
}
