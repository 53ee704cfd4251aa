# What the hardening of round 15 (tests/lang/errors_hostile15.dsl) keeps working, and
# the values it fixed: an integer // or div(rounding_mode=) by a number past the
# tensor's dtype divides by the wrapped number, as % already did and PyTorch's does
# (i16 // 40000 was 1, neither 0 nor PyTorch's -1); addcmul of integer tensors stays
# an integer tensor (it was f32); numbers that fit the dtype pass add's alpha, where,
# scatter, put and new_tensor as before; kaiser_window of an infinite or huge beta is
# NaN where PyTorch's is (it was "Argument x too large in __bessel_ik"); an empty str,
# list or tuple repeated 2**62 times is empty at once (it looped 2^62 times); a Gamma
# of infinite concentration draws inf, as PyTorch's (it failed "rejected 64 times"),
# and the implicit gradients of Gamma and Dirichlet draws of huge concentrations are
# finite (in f32 their a^4 overflowed: NaN); int64 values past 2^53 stay exact through
# arange, randint, random_, unique, cummax/cummin, mode, clamp, scatter and sum (each
# went through a double, silently); a convolution's stride past 2^31 - 1 gives the
# one output position (oneDNN refused it); isclose and allclose of integer tensors
# take rtol and atol (they compared for equality only).
import distributions
import nn

# a == (a // d) * d + a % d, elementwise, for a number d beside an integer tensor
fn expect_division_identity(a, d) {
  let q = a // d
  let r = a % d
  expect(q.dtype == a.dtype and r.dtype == a.dtype)
  expect(((q * d + r) == a).all().item())
}

test "integer // and div by a number past the dtype divide by the wrapped number, as %" {
  let a = tensor([1, 2, 300, -7], dtype=i16)
  # 40000 as an i16 is -25536 (PyTorch's wrapped number)
  expect((a // 40000).tolist() == [-1, -1, -1, 0])
  expect((a // 40000).tolist() == (a // -25536).tolist())
  expect(a.div(40000, rounding_mode="floor").tolist() == [-1, -1, -1, 0])
  expect(a.div(40000, rounding_mode="trunc").tolist() == [0, 0, 0, 0])
  expect_division_identity(a, 40000)
  expect_division_identity(a, -3)
  let b = tensor([1, 2, 100, -100], dtype=i8)
  expect((b // 200).tolist() == [-1, -1, -2, 1])
  expect_division_identity(b, 200)
  let u = tensor([1, 2, 3], dtype=u8)
  expect((u // 300).tolist() == [0, 0, 0])
  expect_division_identity(u, 300)
  # numbers the dtype holds, and i64 and floats, as before
  expect((tensor([7, -7]) // 2).tolist() == [3, -4])
  expect(tensor([7, -7]).div(2, rounding_mode="trunc").tolist() == [3, -3])
  expect_close(tensor([7.0, -7.0]) // 2, tensor([3.0, -4.0]), 0.0)
}

test "addcmul of integer tensors stays an integer tensor; of floats as before" {
  let a = tensor([1, 2, 3])
  let r = addcmul(a, a, a, value=2)
  expect(r.dtype == i64 and r.tolist() == [3, 10, 21])
  expect(addcmul(a, a, a).tolist() == [2, 6, 12])
  let h = tensor([1, 2, 300], dtype=i16)
  # 300 * 300 * 2 + 300 wraps in i16, as PyTorch's
  expect(h.addcmul(h, h, value=2).tolist() == [3, 10, -16308])
  let f = tensor([1.0, 2.0, 3.0])
  expect_close(addcmul(f, f, f, value=0.5), tensor([1.5, 4.0, 7.5]), 0.0)
  expect_close(addcdiv(f, f, f, value=2), tensor([3.0, 4.0, 5.0]), 0.0)
  expect_close(addcmul(f, a, a, value=0.5), tensor([1.5, 4.0, 7.5]), 0.0)
}

test "numbers that fit the dtype pass alpha, where, scatter, put and new_tensor" {
  let a = tensor([1, 2, 300], dtype=i16)
  expect(a.add(1, alpha=2).tolist() == [3, 4, 302] and a.add(1, alpha=2).dtype == i16)
  expect(a.sub(1, alpha=-32768).tolist() == [-32767, -32766, -32468])
  expect(a.add(tensor([1]), alpha=40000).tolist() == [40001, 40002, 40300])  # an i64 result holds it
  let w = where(a > 1, a, -5)
  expect(w.dtype == i16 and w.tolist() == [-5, 2, 300])
  expect_close(where(a > 1, 1.5, a), tensor([1.0, 1.5, 1.5]), 0.0)  # a float number makes it f32
  expect(where(a > 1, 3, 4).tolist() == [4, 3, 3])
  expect(where(condition=a > 1, input=a, other=0).tolist() == [0, 2, 300])  # the row's name was 'self'
  expect(zeros(3, dtype=i8).scatter(0, tensor([0]), value=-100).tolist() == [-100, 0, 0])
  expect(zeros(3, dtype=i16).index_add(0, tensor([0]), tensor([2], dtype=i16), alpha=3).tolist() == [6, 0, 0])
  expect(a.put(tensor([0]), 7).tolist() == [7, 2, 300])
  expect(a.put(tensor([1]), tensor([9], dtype=i16)).tolist() == [1, 9, 300])
  expect(zeros(2).put(tensor([1]), 2.5).tolist() == [0.0, 2.5])
  expect(a.masked_scatter(tensor([true, false, true]), tensor([4, 5], dtype=i16)).tolist() == [4, 2, 5])
  let n = a.new_tensor([1.5, -2])
  expect(n.dtype == i16 and n.tolist() == [1, -2])
  expect(a.new_tensor(tensor([40000])).tolist() == [-25536])  # a tensor is cast, as PyTorch's
}

test "kaiser_window of an infinite or huge beta is NaN where PyTorch's is" {
  let inf_beta = kaiser_window(3, periodic=false, beta=float("inf"))
  expect(isnan(inf_beta).all().item())
  let huge = kaiser_window(3, periodic=false, beta=1e300)
  expect(huge[0].item() == 0.0 and isnan(huge[1]).item() and huge[2].item() == 0.0)
  # an ordinary beta: the centre is 1 and the window is symmetric
  let w = kaiser_window(5, periodic=false, beta=12.0)
  expect_close(w[2], tensor(1.0), 1e-6)
  expect_close(w, w.flip(0), 1e-6)
}

test "an empty str, list or tuple repeated 2**62 times is empty, at once" {
  expect("" * 2**62 == "")
  expect([] * 2**62 == [])
  expect(() * 2**62 == ())
  expect(2**62 * [] == [])
  let l = []
  l *= 2**62
  expect(l == [])
  expect("ab" * 3 == "ababab" and [1] * 0 == [])
}

test "a Gamma of infinite concentration draws inf; huge concentrations have finite gradients" {
  let g = distributions.Gamma(tensor([float("inf"), 2.0]), tensor([1.0, 1.0]))
  let x = g.rsample()
  expect(isinf(x[0]).item() and isfinite(x[1]).item())
  expect(isinf(g.sample()[0]).item())
  # d x / d alpha of a Gamma(alpha) draw is about 1 for a huge alpha (x is about alpha)
  let c = tensor([1e12], requires_grad=true)
  distributions.Gamma(c, tensor([1.0])).rsample([3]).sum().backward()
  expect(isfinite(c.grad).all().item())
  expect_close(c.grad, tensor([3.0]), 0.01)
  let d = tensor([1e12, 1e12], requires_grad=true)
  distributions.Dirichlet(d).rsample([3])[:, 0].sum().backward()
  expect(isfinite(d.grad).all().item())
  # an ordinary concentration's gradient keeps its dtype
  let s = tensor([0.5], requires_grad=true)
  distributions.Gamma(s, tensor([1.0])).rsample([4]).sum().backward()
  expect(s.grad.dtype == f32 and isfinite(s.grad).all().item())
}

test "an integer arange is exact past 2^53, as PyTorch's" {
  let big = 9007199254740992  # 2^53
  expect(arange(big, big + 5).tolist() == [big, big + 1, big + 2, big + 3, big + 4])
  expect(arange(big + 1, big + 6, 2).tolist() == list(range(big + 1, big + 6, 2)))
  expect(arange(9223372036854775806, 9223372036854775807).tolist() == [9223372036854775806])
  # a span past int64 (end - start is near 2^64) with a step that counts it
  expect(arange(-9223372036854775807, 9223372036854775807, 2**62).tolist() ==
         [-9223372036854775807, -4611686018427387903, 1, 4611686018427387905])
  expect(arange(0, -10, -9223372036854775807).tolist() == [0])
  expect(arange(10, 0, -3).tolist() == [10, 7, 4, 1] and arange(5, 0).tolist() == [])
  # bools and 0-dim tensors as numbers; a float (or a float tensor) makes it f32
  expect(arange(true).tolist() == [0] and arange(0, tensor(3)).tolist() == [0, 1, 2])
  expect(arange(0, tensor(2.5)).dtype == f32 and arange(0, 2.5).dtype == f32)
  expect(arange(0, 300, 100, dtype=u8).tolist() == [0, 100, 200])
  expect(arange(0, 10, 3, dtype=i16).dtype == i16)
}

test "int64 values past 2^53 stay exact through randint, unique, cummax, mode, clamp, scatter and sum" {
  let B = 4611686018427387904  # 2^62: the doubles near it are 1024 apart
  # randint's draws were cast through a double: 2^62 + 1 was never drawn
  manual_seed(0)
  expect(randint(B, B + 2, [200]).unique().tolist() == [B, B + 1])
  expect(empty(200, dtype=i64).random_(B, B + 2).unique().tolist() == [B, B + 1])
  let t = tensor([B + 1, B, B + 3, B + 2, B + 1])
  let (u, inverse, counts) = t.unique(return_inverse=true, return_counts=true)
  expect(u.tolist() == [B, B + 1, B + 2, B + 3])
  expect(inverse.tolist() == [1, 0, 3, 2, 1] and counts.tolist() == [1, 2, 1, 1])
  expect(tensor([B + 1, B, B]).unique_consecutive().tolist() == [B + 1, B])
  let (m, at) = t.cummax(0)
  expect(m.tolist() == [B + 1, B + 1, B + 3, B + 3, B + 3] and at.tolist() == [0, 0, 2, 2, 2])
  expect(t.cummin(0)[0].tolist() == [B + 1, B, B, B, B])
  expect(t.mode()[0].item() == B + 1)
  expect(t.clamp(min=B + 2).tolist() == [B + 2, B + 2, B + 3, B + 2, B + 2])
  expect(t.clamp(max=B + 1).tolist() == [B + 1, B, B + 1, B + 1, B + 1])
  expect(t.clamp(B + 1, B + 2).tolist() == [B + 1, B + 1, B + 2, B + 2, B + 1])
  expect(t.scatter(0, tensor([0]), B + 11)[0].item() == B + 11)
  # an i64 sum was stored through a double (the sum of [2^62 + 2] was 2^62)
  expect(tensor([B + 2]).sum().item() == B + 2 and tensor([B + 2, 1]).sum(0).item() == B + 3)
  expect(tensor([[B + 2], [1]]).sum(0).tolist() == [B + 3])
  expect(tensor([B, B + 2]).sum().item() == -9223372036854775806)  # 2^63 + 2 wraps, as PyTorch's
  # small integer sums into their own dtype wrap, as PyTorch's (they went through a double)
  expect(tensor([30000, 30000], dtype=i16).sum(dtype=i16).item() == -5536)
  expect(tensor([100, 100], dtype=i8).sum(dtype=i8).item() == -56)
  expect(tensor([200, 100], dtype=u8).sum(dtype=u8).item() == 44 and tensor([200, 100], dtype=u8).sum().item() == 300)
  # floats and small ints as before
  expect(tensor([1.0, float("nan"), 1.0]).unique(return_counts=true)[1].tolist() == [2, 1])
  expect(tensor([1, 5, 9], dtype=i16).clamp(2, 6).tolist() == [2, 5, 6])
  expect_close(tensor([1, 5, 9]).clamp(2.5, 6), tensor([2.5, 5.0, 6.0]), 0.0)
}

test "a convolution's stride past 2^31 - 1 where one window fits is PyTorch's one position" {
  let x = ones(1, 1, 5, requires_grad=true)
  let w = ones(1, 1, 3, requires_grad=true)
  let y = nn.functional.conv1d(x, w, stride=2**40)
  expect(y.shape == (1, 1, 1) and y.item() == 3.0)
  y.sum().backward()
  expect(x.grad.tolist() == [[[1.0, 1.0, 1.0, 0.0, 0.0]]] and w.grad.tolist() == [[[1.0, 1.0, 1.0]]])
  expect(nn.functional.conv2d(ones(1, 1, 5, 5), ones(1, 1, 3, 3), stride=[2**62, 1]).shape == (1, 1, 1, 3))
  expect(nn.functional.conv3d(ones(1, 1, 3, 3, 3), ones(1, 1, 2, 2, 2), stride=2**31).shape == (1, 1, 1, 1, 1))
  expect(nn.functional.conv_transpose1d(ones(1, 1, 1), ones(1, 1, 3), stride=2**31).tolist() == [[[1.0, 1.0, 1.0]]])
  # an ordinary stride as before
  expect(nn.functional.conv1d(ones(1, 1, 5), ones(1, 1, 3), stride=2).shape == (1, 1, 2))
}

test "isclose and allclose of integer tensors take the tolerances, as PyTorch's" {
  expect(allclose(tensor([101]), tensor([100]), rtol=0.1))
  expect(not allclose(tensor([101]), tensor([100])))
  expect(isclose(tensor([1000001]), tensor([1000000])).item())  # rtol 1e-5 of 10^6 is 10
  expect(isclose(tensor([3], dtype=u8), tensor([5], dtype=u8), atol=2).item())  # the gap is 2, not 3 - 5 wrapped
  expect(not isclose(tensor([5], dtype=u8), tensor([3], dtype=u8), atol=1).item())
  expect(isclose(tensor([true, false]), tensor([true, true])).tolist() == [true, false])
  expect(isclose(tensor([1, 2]), tensor([1, 3]), rtol=0, atol=0).tolist() == [true, false])
}
