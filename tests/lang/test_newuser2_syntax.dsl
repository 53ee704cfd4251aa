# Python's syntax that the second round of PyTorch-style training programs
# (tests/stdlib/train/test_newuser2_*.dsl) needed: `is` and `is not` (identity), line
# breaks before an operator, a call, an index or `.name` inside brackets (PEP 8's
# style), assigning a tensor's .data, PyTorch's dtype names (long, double, half),
# finfo/iinfo, broadcast_shapes/broadcast_tensors, and the init idioms isinstance(m,
# (A, B)) and m.__class__.__name__. The errors are tests/lang/errors_newuser2.dsl.
import nn

test "is and is not: identity of models, tensors and containers; value for numbers and none" {
  let emb = nn.Embedding(5, 3)
  let dec = nn.Linear(3, 5)
  dec.weight = emb.weight
  expect(dec.weight is emb.weight)
  expect(emb.weight.detach() is not emb.weight)
  let l = [1, 2]
  expect(l is l and not ([1, 2] is l) and l == [1, 2])
  let d = {"a": 1}
  expect(d is d and {"a": 1} is not d)
  expect(none is none and emb is not none)
  let x = none
  expect(x is none)
  expect(1 is 1 and not (1 is true) and not (1 is 1.0) and f32 is f32 and "ab" is "ab")
  fn f(a) = a
  expect(f is f)
  # `is` binds as the other comparisons: looser than arithmetic, tighter than not/and
  expect(not 1 + 1 is 3)
  expect((2 is 2) == true)
  # `is` stays usable as a name
  let is = 4
  expect(is + 1 == 5)
}

test "a line break inside brackets continues the expression, before an operator too" {
  let a = 2
  let b = 3
  let s = (a
           + b
           * 4)
  expect(s == 14)
  let t = [a
           - b, b]
  expect(t == [-1, 3])
  let u = ([1, 2, 3]
           .index(2))
  expect(u == 1)
  let v = (a if a > b
           else b)
  expect(v == 3)
  let w = max(a,
              b) + 1
  expect(w == 4)
  let z = (a > 1
           and b > 1
           or false)
  expect(z)
  let m = {"k": a
                * 10}
  expect(m["k"] == 20)
  let idx = [10, 20, 30][a
                         - 1]
  expect(idx == 20)
  # outside brackets a newline still ends the statement
  let h = a
  -b
  expect(h == 2)
}

test "assigning .data writes the values in place, outside autograd" {
  let lin = nn.Linear(2, 2)
  let w = lin.weight
  lin.weight.data = ones(2, 2)
  expect(lin.weight is w and w.is_leaf and w.requires_grad and w.grad_fn == none)
  expect(equal(w, ones(2, 2)))
  w.data *= tensor([[1.0, 0.0], [0.0, 1.0]])
  expect(equal(w.detach(), eye(2)))
  # hand-written SGD as PyTorch tutorials write it
  (lin(ones(1, 2)).sum()).backward()
  let before = lin.bias.detach().clone()
  for p in lin.parameters() { p.data = p.data - 0.1 * p.grad }
  expect_close(lin.bias, before - 0.1, atol=1e-6)
  # a dtype converts, as copy_ does
  w.data = tensor([[1, 2], [3, 4]])
  expect(w.dtype == f32 and w[1, 1].item() == 4.0)
}

test "PyTorch's dtype names, and finfo and iinfo as torch's" {
  expect(long == i64 and double == f64 and half == f16 and float16 == f16 and bfloat16 == bf16)
  expect(zeros(2, dtype=long).dtype == i64)
  # torch.finfo(torch.float32): eps 2**-23, max (2 - 2**-23) * 2**127, tiny 2**-126
  expect(finfo(f32).eps == 2.0 ** -23 and finfo().eps == finfo(f32).eps)
  expect(finfo(f32).max == (2 - 2.0 ** -23) * 2.0 ** 127 and finfo(f32).min == -finfo(f32).max)
  expect(finfo(f32).tiny == 2.0 ** -126 and finfo(f32).smallest_normal == finfo(f32).tiny)
  expect(finfo(f64).eps == 2.0 ** -52 and finfo(f16).max == 65504.0 and finfo(bf16).eps == 2.0 ** -7)
  expect(finfo(f32).bits == 32 and finfo(f64).dtype == "float64")
  expect(iinfo(i32).max == 2 ** 31 - 1 and iinfo(i64).min == -2 ** 62 * 2 and iinfo(u8).max == 255)
  expect(str(iinfo(i8)) == "iinfo(min=-128, max=127, bits=8, dtype='int8')", str(iinfo(i8)))
  # finfo(x.dtype).min as a mask value: finite, so a fully masked row stays finite
  let scores = tensor([[1.0, 2.0], [3.0, 4.0]])
  let masked = scores.masked_fill(tensor([[false, true], [true, true]]), finfo(scores.dtype).min)
  expect(softmax(masked, dim=-1).isfinite().all().item())
  expect_error(fn() = iinfo(f32), "iinfo(): f32 is not an integer dtype")
}

test "PyTorch's init idioms: isinstance with a tuple of classes, m.__class__.__name__" {
  let net = nn.Sequential(nn.Conv2d(1, 2, 3), nn.GroupNorm(1, 2), nn.ReLU(), nn.Linear(4, 2))
  let seen = []
  fn init_weights(m) {
    if isinstance(m, (nn.Conv2d, nn.Linear)) {
      nn.init.zeros_(m.bias)
      seen.append(m.__class__.__name__)
    } elif isinstance(m, (nn.GroupNorm, (nn.BatchNorm2d, nn.LayerNorm))) {
      nn.init.constant_(m.weight, 2.0)
      seen.append(type(m))
    }
  }
  net.apply(init_weights)
  expect(seen == ["Conv2d", "GroupNorm", "Linear"], f"{seen}")
  expect(net[1].weight.sum().item() == 4.0 and net[3].bias.abs().sum().item() == 0.0)
  expect(isinstance(ones(2), ("list", tensor)) and not isinstance(3, ()))
  expect(net[0].__class__ == nn.Conv2d and nn.Conv2d.__name__ == "Conv2d")
  # DCGAN's weights_init: classname.find("Conv") != -1
  expect(net[0].__class__.__name__.find("Conv") != -1)
  expect_error(fn() = isinstance(1, (nn.Linear, 3)), "a tuple of them, got int")
}

test "broadcast_shapes and broadcast_tensors as torch's" {
  # torch.broadcast_shapes((2, 1, 3), 1, (5, 1)) == torch.Size([2, 5, 3]); () for none
  expect(broadcast_shapes((2, 1, 3), 1, (5, 1)) == (2, 5, 3) and broadcast_shapes() == ())
  expect(broadcast_shapes([0, 1], [3]) == (0, 3))
  let a = randn(3, 1, requires_grad=true)
  let (x, y) = broadcast_tensors(a, ones(4))
  expect(x.shape == (3, 4) and y.shape == (3, 4) and equal(x[:, 2], a.detach()[:, 0]))
  x.sum().backward()
  expect(equal(a.grad, full([3, 1], 4.0)))
  expect(broadcast_tensors([ones(2), ones(1, 2)])[0].shape == (1, 2))
  expect_error(fn() = broadcast_tensors(ones(2, 3), ones(4, 3)),
               "tensor 1 of shape [4, 3] cannot be broadcast with [2, 3], the shape of those before it (dim -2: 4 vs 2)")
}
