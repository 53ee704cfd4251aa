# Assignment into part of a tensor with gradients on (Note [A write into part of a
# tensor with gradients], autograd/inplace.cpp): written in place, x's history
# PyTorch's CopySlices. Expected values are PyTorch 1.13's (f64), from the same
# programs written with torch (inputs sin(arange(n) * 0.37 + k)).

fn src(shape, k) {
  let n = 1
  for s in shape { n = n * s }
  return sin(arange(n, dtype=f64) * 0.37 + k).reshape(shape)
}

test "an RNN writing out[t] = h: loss, gradient and grad of grad equal PyTorch's" {
  let w = src([3, 3], 1).requires_grad_()
  let x = src([5, 2, 3], 2)
  let out = zeros([5, 2, 3], dtype=f64)
  let h = zeros([2, 3], dtype=f64)
  for t in range(5) {
    h = tanh(h @ w + x[t])
    out[t] = h
  }
  let loss = (out * src([5, 2, 3], 3)).sum() + out[:, 0].pow(2).sum()
  # torch: the same loop, out = torch.zeros(5, 2, 3); out[t] = h
  expect_close(loss, tensor(6.214863868001151, dtype=f64), rtol=1e-12, atol=0)
  let g = grad(loss, w, create_graph=true)
  expect_close(g.flatten(), tensor([2.038708315986786, 1.0747829193830463, -2.2034742656024173, 1.510804531854712,
                                    0.4591206806647004, -2.928202267385982, 0.7074978774646294, -0.2919652668326941,
                                    -3.0395455989229503], dtype=f64), rtol=1e-10, atol=1e-12)
  let gg = grad((g * g).sum(), w)
  expect_close(gg.flatten(), tensor([23.352058145609963, 33.25853845094648, -13.386276513903937, 12.060099632035676,
                                     36.27481078589508, -13.936998979727996, -11.716816183994666, 12.272586442363028,
                                     -24.87102445149204], dtype=f64), rtol=1e-10, atol=1e-12)
}

test "partial writes over a computed tensor, broadcast and overwritten: gradients to both sides equal PyTorch's" {
  let a = src([4, 3], 4).requires_grad_()
  let v = src([3], 5).requires_grad_()
  let y = a * 2.0
  y[1:3] = v
  y[:, 0] = v[0] * 3.0
  let l2 = (y * src([4, 3], 6)).sum()
  let (ga, gv) = grad(l2, [a, v])
  expect_close(ga.flatten(), tensor([0.0, 0.17341136642000265, 0.8821833143024047, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                                     -0.5435212528218849, -1.2027517103801117], dtype=f64), rtol=1e-12, atol=1e-14)
  expect_close(gv, tensor([4.454275039309136, 1.6720276045260887, 1.4482164002465037], dtype=f64), rtol=1e-12, atol=0)
}

test "the write goes into x's own memory: a view taken before sees it, and the node is CopySlices" {
  let h = ones([2], dtype=f64, requires_grad=true)
  let out = zeros([3, 2], dtype=f64)
  let row = out[1]
  out[1] = h * 4.0
  expect_close(row, tensor([4.0, 4.0], dtype=f64))
  expect(out.requires_grad)
  expect("CopySlices" in str(out.grad_fn), str(out.grad_fn))
}

test "a value an op saved is refused after the write, as PyTorch refuses it" {
  let a = ones([3], dtype=f64, requires_grad=true)
  let y = a * 1.0
  let z = y * y
  y[0] = 5.0
  expect_error(fn() = z.sum().backward(), "modified by an in-place operation")
}

fn set_first(t) {
  t[0] = 1.0
}

test "a write into a leaf that requires grad is refused; under no_grad it is allowed" {
  let p = zeros([3], dtype=f64, requires_grad=true)
  expect_error(fn() = set_first(p), "a leaf tensor that requires grad cannot be modified in place")
  no_grad { p[0] = 1.0 }
  expect_close(p, tensor([1.0, 0.0, 0.0], dtype=f64))
}

test "a source of another dtype is cast, and its gradient comes back in its own dtype" {
  let v = ones([2], dtype=f32, requires_grad=true)
  let y = zeros([2, 2], dtype=f64)
  y[0] = v * 3.0
  (y * 2.0).sum().backward()
  expect(v.grad.dtype == f32, str(v.grad.dtype))
  expect_close(v.grad, tensor([6.0, 6.0], dtype=f32))
}

test "a 0-dim integer index tensor writes as an int does: the part in place, CopySlices, the same gradients" {
  let w = ones([2], dtype=f64, requires_grad=true)
  let a = zeros([3, 2], dtype=f64)
  let b = zeros([3, 2], dtype=f64)
  for t in range(3) {
    a[tensor(t)] = w * (t + 1)
    b[t] = w * (t + 1)
  }
  a[tensor(-1)] = w * 7.0
  b[-1] = w * 7.0
  expect_close(a, b, rtol=0, atol=0)
  expect("CopySlices" in str(a.grad_fn), str(a.grad_fn))
  let ga = grad((a * a).sum(), w)
  let gb = grad((b * b).sum(), w)
  expect_close(ga, gb, rtol=0, atol=0)
}
