# What the hardening of round 5 (tests/lang/errors_hostile5.dsl) keeps working, each
# value checked against PyTorch 1.13's: float floor division by zero and infinity,
# the methods whose arguments differ from the global function (Tensor.where,
# Tensor.unfold), numbers stored into a dtype (checked, and exact past 2^53), clamp's
# int bounds, NaN through norm, median, quantile, unique, threshold and hardshrink,
# i64 floor division past 2^53, and the masks and sequences of nn's layers.
import nn

let inf = float("inf")
let nan = float("nan")

test "float floor division by zero or infinity gives PyTorch's values, not NaN" {
  let a = tensor([1.0, -1.0, 0.0, inf, -inf, 5.0, -5.0, inf, nan, 7.5])
  let b = tensor([0.0, 0.0, 0.0, 2.0, 2.0, inf, inf, inf, 1.0, -0.0])
  let want = tensor([inf, -inf, nan, nan, nan, 0.0, -1.0, nan, nan, -inf])
  expect(allclose(a // b, want, equal_nan=true))
  expect(allclose(div(a, b, rounding_mode="floor"), want, equal_nan=true))
  expect(allclose(floor_divide(a, b), want, equal_nan=true))
  expect((tensor([7.5, -7.5]) // inf).tolist() == [0.0, -1.0])
  expect((tensor([5.0]) // -inf).tolist() == [-1.0])
  expect(str((tensor([-0.0]) // inf).tolist()) == "[-0.0]", "the zero keeps its sign")
  expect(fmod(tensor([-5.0, 5.0]), inf).tolist() == [-5.0, 5.0])
  expect(fmod(tensor([-5.0, 5.0]), -inf).tolist() == [-5.0, 5.0])
  expect((tensor([7.0, -7.0]) // 2.0).tolist() == [3.0, -4.0], "ordinary divisors unchanged")
  let x = tensor([3.0, -3.0], requires_grad=true)
  (x // 0.0).sum().backward()
  expect(x.grad.tolist() == [0.0, 0.0], "the quotient has no gradient, the edges add none")
}

test "i64 floor division is exact past 2^53" {
  expect((tensor([-9223372036854775807]) // -1).tolist() == [9223372036854775807])
  expect((tensor([-9223372036854775807 - 1]) // 3).tolist() == [-3074457345618258603])
  expect((tensor([9223372036854775807]) // 2).tolist() == [4611686018427387903])
  let q = tensor([9223372036854775807, -9223372036854775807, 7, -7, 5]) // tensor([3, 7, -2, 2, 9223372036854775807])
  expect(q.tolist() == [3074457345618258602, -1317624576693539401, -4, -4, 0])
  expect(div(tensor([-9223372036854775807]), 10, rounding_mode="trunc").tolist() == [-922337203685477580])
  expect((tensor([7, -7], dtype="i32") // 2).tolist() == [3, -4])
}

test "Tensor.where(condition, other) is where(condition, self, other)" {
  expect(tensor([1.0, 2.0, 3.0]).where(tensor([true, false, true]), 0.5).tolist() == [1.0, 0.5, 3.0])
  expect(tensor([1.0, 2.0]).where(condition=tensor([false, true]), other=tensor([7.0, 8.0])).tolist() == [7.0, 2.0])
  let a = tensor([1.0, 2.0], requires_grad=true)
  a.where(tensor([true, false]), 0.0).sum().backward()
  expect(a.grad.tolist() == [1.0, 0.0])
  expect(where(tensor([true, false]), tensor([1.0, 2.0]), 0.0).tolist() == [1.0, 0.0], "the function is unchanged")
}

test "Tensor.unfold(dimension, size, step) is PyTorch's sliding window" {
  let x = arange(12.0).reshape([3, 4])
  expect(x.unfold(1, 2, 2).tolist() == [[[0.0, 1.0], [2.0, 3.0]], [[4.0, 5.0], [6.0, 7.0]], [[8.0, 9.0], [10.0, 11.0]]])
  expect(x.unfold(0, 2, 1).shape == (2, 4, 2))
  expect(x.unfold(-1, 3, 2).tolist() == [[[0.0, 1.0, 2.0]], [[4.0, 5.0, 6.0]], [[8.0, 9.0, 10.0]]])
  expect(x.unfold(1, 0, 1).shape == (3, 5, 0))
  expect(tensor(5.0).unfold(0, 1, 1).tolist() == [5.0])
  expect(arange(16.0).reshape([1, 1, 4, 4]).unfold(2, 2, 1).shape == (1, 1, 3, 4, 2))
  let y = arange(5.0, requires_grad=true)
  y.unfold(0, 3, 1).sum().backward()
  expect(y.grad.tolist() == [1.0, 2.0, 3.0, 2.0, 1.0])
  expect(unfold(ones([1, 2, 4, 4]), 2).shape == (1, 8, 9), "the global unfold is still F.unfold")
  expect_error(fn() = x.unfold(1, 5, 1), "argument 'size' is 5 but dim 1")
  expect_error(fn() = x.unfold(1, 2, 0), "argument 'step' must be > 0")
}

test "a number stored into a dtype: what PyTorch takes still works, exactly" {
  expect(full([2], -1, dtype="u8").tolist() == [255, 255], "an unsigned dtype wraps a negative down to -max")
  expect(full([2], -255, dtype="u8").tolist() == [1, 1])
  expect(full([2], 2.7, dtype="i32").tolist() == [2, 2])
  expect(full([2], -2147483648, dtype="i32").tolist() == [-2147483648, -2147483648])
  expect(full([1], inf, dtype="f16").tolist() == [inf])
  expect(full([1], 65504.0, dtype="f16").tolist() == [65504.0])
  expect(full([1], 5, dtype="bool").tolist() == [true])
  expect(full([2], 9223372036854775807).tolist() == [9223372036854775807, 9223372036854775807])
  expect(full([1], 9007199254740993).tolist() == [9007199254740993], "2^53 + 1 is not a double")
  expect(full_like(zeros([1], dtype="i64"), 9007199254740993).tolist() == [9007199254740993])
  expect(zeros([1], dtype="i64").new_full([1], -9223372036854775807 - 1).tolist() == [-9223372036854775807 - 1])
  expect(zeros([1], dtype="i64").fill_(9223372036854775807).tolist() == [9223372036854775807])
  let q = zeros([2], dtype="i64")
  q[1] = 9007199254740993
  expect(q.tolist() == [0, 9007199254740993])
  expect(zeros([2], dtype="i64").masked_fill(tensor([true, false]), 9007199254740993).tolist() == [9007199254740993, 0])
  expect(zeros([3], dtype="i32").masked_fill(tensor([true, false, true]), 2.5).tolist() == [2, 0, 2])
  expect(tensor([-1], dtype="u8").tolist() == [255])
  expect(tensor([1e40], dtype="f16").tolist() == [inf], "tensor() takes an overflowing float, as PyTorch's")
  expect_error(fn() = full([2], 300, dtype="u8"), "300 cannot be converted to u8 without overflow")
  expect_error(fn() = zeros([2], dtype="i8").fill_(tensor(300)), "cannot be converted to i8")
}

test "arithmetic with an int beside an i64 tensor is exact; it wraps as PyTorch's" {
  expect((tensor([0]) + 9007199254740993).tolist() == [9007199254740993])
  expect((tensor([1]) * 9223372036854775807).tolist() == [9223372036854775807])
  expect((tensor([9007199254740993]) == 9007199254740992).tolist() == [false])
  expect((tensor([9223372036854775807]) + 1).tolist() == [-9223372036854775807 - 1])
  expect((tensor([100], dtype="i8") * 100).tolist() == [16])
}

test "clamp's int bounds keep an int tensor's dtype" {
  expect(str(clamp(tensor([1, 7]), 2, 5).dtype) == "i64")
  expect(clamp(tensor([1, 7]), 2, 5).tolist() == [2, 5])
  expect(tensor([1, 7]).clamp(2.5).tolist() == [2.5, 7.0], "a float bound makes a float")
  expect(tensor([1, 7], dtype="i32").clamp_min(3).tolist() == [3, 7])
  expect(str(tensor([1, 7], dtype="i32").clamp_max(3).dtype) == "i32")
  expect(clip(tensor([1, 7]), 2, 5).tolist() == [2, 5])
  expect(clamp(tensor([0.5, 2.0]), 0, 1).tolist() == [0.5, 1.0])
  expect(zeros([3], dtype="u8").clamp(-1, 5).tolist() == [5, 5, 5], "PyTorch's: -1 as a u8 bound is 255")
}

test "NaN propagates through norm, median, quantile, threshold and hardshrink" {
  let n = tensor([1.0, nan, 3.0, -1.0])
  expect(n.norm().isnan().item())
  expect(n.norm(1).isnan().item())
  expect(allclose(tensor([[3.0, 4.0], [nan, 1.0]]).norm(dim=1), tensor([5.0, nan]), equal_nan=true))
  expect(n.median().isnan().item())
  let m = n.median(0)
  expect(m[0].isnan().item() and m[1].item() == 1, "the value NaN at the first NaN")
  let rows = tensor([[1.0, nan, 0.0], [3.0, 2.0, 1.0]]).median(1)
  expect(allclose(rows[0], tensor([nan, 2.0]), equal_nan=true) and rows[1].tolist() == [1, 1])
  expect(allclose(tensor([[1.0, nan, 0.0], [3.0, 2.0, 1.0]]).quantile(0.5, 1), tensor([nan, 2.0]), equal_nan=true))
  expect(allclose(threshold(tensor([1.0, nan, -1.0]), 0.5, 9.0), tensor([1.0, nan, 9.0]), equal_nan=true))
  expect(allclose(hardshrink(n), tensor([1.0, nan, 3.0, -1.0]), equal_nan=true))
  let g = tensor([3.0, 4.0, 0.0], requires_grad=true)
  g.norm().backward()
  expect(allclose(g.grad, tensor([0.6, 0.8, 0.0])))
  let z = zeros([3], requires_grad=true)
  z.norm().backward()
  expect(z.grad.tolist() == [0.0, 0.0, 0.0], "the norm of zeros still has a zero gradient")
  expect(tensor([1.0, 5.0, 2.0]).median().item() == 2.0)
}

test "unique keeps each NaN as its own value, after the numbers" {
  let u = tensor([1.0, nan, 3.0, -1.0]).unique(return_counts=true, return_inverse=true)
  expect(allclose(u[0], tensor([-1.0, 1.0, 3.0, nan]), equal_nan=true))
  expect(u[1].tolist() == [1, 3, 2, 0])
  expect(u[2].tolist() == [1, 1, 1, 1], "the NaN was counted with 1.0")
  let two = tensor([nan, 2.0, nan, 2.0]).unique(return_counts=true)
  expect(allclose(two[0], tensor([2.0, nan, nan]), equal_nan=true) and two[1].tolist() == [2, 1, 1])
  expect(tensor([3, 1, 3]).unique().tolist() == [1, 3])
}

test "MultiheadAttention takes bool, u8 (as bool) and float masks; recurrent layers need a step" {
  let mha = nn.MultiheadAttention(8, 2)
  let q = randn([3, 2, 8])
  let byte_mask = tensor([[0, 1, 1], [0, 0, 1], [0, 0, 0]], dtype="u8")
  expect(equal(mha(q, q, q, attn_mask=byte_mask)[1], mha(q, q, q, attn_mask=byte_mask == 1)[1]))
  expect(mha(q, q, q, attn_mask=zeros([3, 3]))[0].shape == (3, 2, 8))
  expect(mha(q, q, q, key_padding_mask=zeros([2, 3], dtype="bool"))[0].shape == (3, 2, 8))
  expect_error(fn() = mha(q, q, q, attn_mask=zeros([3, 3], dtype="i64")), "attn_mask must be a bool, u8 or floating tensor, got i64")
  expect_error(fn() = nn.GRU(4, 3)(randn([0, 4])), "GRU: expected a sequence length larger than 0")
  expect(nn.LSTM(4, 3)(randn([5, 0, 4]))[0].shape == (5, 0, 3), "an empty batch still runs")
}

test "relu keeps a NaN and -0.0, and its gradient passes where the result is NaN (PyTorch's)" {
  let x = tensor([-0.0, nan, -1.0, 2.0], dtype=f64, requires_grad=true)
  let y = relu(x)
  expect(str(y[0].item()) == "-0.0" and isnan(y[1]).item() and y[2].item() == 0.0 and y[3].item() == 2.0)
  y.backward(ones(4, dtype=f64))
  expect(x.grad.tolist() == [0.0, 1.0, 0.0, 1.0])
  expect(isnan(relu(tensor([nan], dtype=f32))).item() and isnan(relu(tensor([nan]).half().float())).item())
  expect(relu(tensor([-3, 0, 4])).tolist() == [0, 0, 4])
}
