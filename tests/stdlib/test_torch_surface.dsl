# PyTorch's tensor surface that ordinary programs use (aliases, storage methods,
# integer pow and bitwise ops, NaN-skipping statistics, searches, builders, clamp with
# tensor bounds, sizes as separate arguments, str by code point): each value here was
# computed with PyTorch 1.13 and written in; gradcheck and gradgradcheck in f64 where
# differentiable (run by `nabla test tests/stdlib`; ctest dsl_tests).
import copy
let nan = float("nan")

fn same(a, b) = a.dtype == b.dtype and a.shape == b.shape and equal(a, b)

test "aliases: PyTorch's other names give the same values" {
  let x = tensor([1.0, 2.0])
  expect(same(true_divide(tensor([1, 2]), 2), tensor([0.5, 1.0])))
  expect(same(multiply(x, 2), tensor([2.0, 4.0])))
  expect(same(x.subtract(x, alpha=2), tensor([-1.0, -2.0])))
  expect(same(greater(x, 1.5), tensor([false, true])) and same(less_equal(x, 1), tensor([true, false])))
  expect(same(greater_equal(x, 2), tensor([false, true])) and same(not_equal(x, 1), tensor([false, true])))
  expect(same(less(x, 2), tensor([true, false])))
  expect(same(negative(tensor([1.0, -2.0])), tensor([-1.0, 2.0])) and same(tensor([1, -2]).absolute(), tensor([1, 2])))
  expect_close(arccos(tensor([0.5], dtype=f64)), tensor([1.0471975511965979], dtype=f64))
  expect_close(arcsinh(tensor([0.5], dtype=f64)), tensor([0.48121182505960347], dtype=f64))
  expect_close(arctanh(tensor([0.5], dtype=f64)), tensor([0.5493061443340549], dtype=f64))
  expect_close(arccosh(tensor([2.0], dtype=f64)), tensor([1.3169578969248166], dtype=f64))
  expect(same(fix(tensor([-1.5, 2.7])), tensor([-1.0, 2.0])) and same(sgn(tensor([-2.0, 0.0, 3.0])), tensor([-1.0, 0.0, 1.0])))
  let y = tensor([0.5, 3.0])
  y.multiply_(2)
  expect(same(y, tensor([1.0, 6.0])))
}

test "storage methods: stride, element_size, type, dtype predicates" {
  let x = zeros(2, 3)
  expect(x.stride() == (3, 1) and x.stride(1) == 1 and x.stride(-2) == 3 and x.t().stride() == (1, 3))
  expect(x.element_size() == 4 and zeros(2, dtype=f16).element_size() == 2 and zeros(1, dtype=bool).element_size() == 1)
  expect(x.type() == "torch.FloatTensor" and zeros(1, dtype=i64).type() == "torch.LongTensor")
  expect(zeros(1, dtype=bool).type() == "torch.BoolTensor" and zeros(1, dtype=bf16).type() == "torch.BFloat16Tensor")
  expect(x.type(i64).dtype == i64 and x.type("torch.DoubleTensor").dtype == f64)
  expect(is_floating_point(x) and not zeros(1, dtype=i32).is_floating_point() and not is_complex(x))
  expect(tensor([1]).is_signed() and not zeros(1, dtype=u8).is_signed())
}

test "integer pow keeps integers, exactly and wrapping as PyTorch's" {
  expect(same(tensor([5]) ** 2, tensor([25])) and same(pow(tensor([5]), 3), tensor([125])))
  expect(same(tensor([2, 3, -2]) ** tensor([-1, 0, 3]), tensor([0, 1, -8])))
  expect(same(tensor([1, -1, -1]) ** tensor([-2, -3, -2]), tensor([1, -1, 1])))
  expect(same(2 ** tensor([3, 62, 64]), tensor([8, 4611686018427387904, 0])))
  expect(same(tensor([3], dtype=i32) ** 2, tensor([9], dtype=i32)) and (tensor([3], dtype=i32) ** tensor([2])).dtype == i64)
  expect(same(tensor([3, 4], dtype=u8) ** 3, tensor([27, 64], dtype=u8)) and same(tensor([3], dtype=i8) ** 5, tensor([-13], dtype=i8)))
  expect(same(tensor([3]) ** 0, tensor([1])) and same(tensor([true]) ** 2, tensor([1])))
  expect(same(tensor([3]) ** 2.0, tensor([9.0])) and same(2.0 ** tensor([3]), tensor([8.0])))
  expect_close(tensor([3]) ** tensor(2.5), tensor([15.588457268119896]))
  expect(same(tensor([3037000499]) ** 2, tensor([9223372030926249001])))  # past 2^53, exact
  let x = tensor([2, 3])
  x.pow_(2)
  expect(same(x, tensor([4, 9])))
  expect_error(fn() = tensor([5]) ** -1, "Integers to negative integer powers are not allowed.")
}

test "bitwise operators and functions on integer tensors" {
  let x = tensor([5, 3])
  expect(same(x & 1, tensor([1, 1])) and same(x | 8, tensor([13, 11])) and same(x ^ 3, tensor([6, 0])) and same(~x, tensor([-6, -4])))
  expect(same(bitwise_and(x, 1), tensor([1, 1])) and same(x.bitwise_or(2), tensor([7, 3])) and same(bitwise_not(x), tensor([-6, -4])))
  expect(same(bitwise_left_shift(tensor([5, -3]), 2), tensor([20, -12])) and same(bitwise_right_shift(tensor([-8, 8]), 1), tensor([-4, 4])))
  expect(same(tensor([12], dtype=u8) ^ tensor([10], dtype=u8), tensor([6], dtype=u8)) and same(~tensor([0, 255], dtype=u8), tensor([255, 0], dtype=u8)))
  expect(same(bitwise_and(tensor([true, false]), tensor([true, true])), tensor([true, false])) and same(tensor([true]) & 3, tensor([1])))
  expect(same(tensor([true, false]) & tensor([true, true]), tensor([true, false])))
  expect_error(fn() = tensor([1.5]) & 1, "combines bool masks")
}

test "aminmax, msort, nanmedian, nanquantile and quantile's interpolations" {
  let m = tensor([[1.0, 5.0], [3.0, 2.0]])
  let r = aminmax(m)
  expect(same(r.min, tensor(1.0)) and same(r.max, tensor(5.0)))
  let c = m.aminmax(dim=0, keepdim=true)
  expect(same(c[0], tensor([[1.0, 2.0]])) and same(c[1], tensor([[3.0, 5.0]])))
  expect(same(msort(tensor([[3.0, 1.0], [2.0, 4.0]])), tensor([[2.0, 1.0], [3.0, 4.0]])))
  let x = tensor([[1.0, 5.0, nan, 2.0], [3.0, 2.0, 4.0, 0.5]], dtype=f64)
  let med = nanmedian(x, 1)
  expect(same(med.values, tensor([2.0, 2.0], dtype=f64)) and same(med.indices, tensor([3, 1])))
  expect(same(nanmedian(tensor([[1.0, 5.0, nan], [3.0, 2.0, 4.0]])), tensor(3.0)))
  let all_nan = nanmedian(tensor([[nan, nan], [1.0, 2.0]]), 1)
  expect(allclose(all_nan.values, tensor([nan, 1.0]), equal_nan=true) and same(all_nan.indices, tensor([0, 0])))
  expect_close(nanquantile(x, 0.3, dim=1), tensor([1.6, 1.85], dtype=f64), rtol=1e-12, atol=1e-12)
  let nq = nanquantile(tensor([[nan, nan], [1.0, 2.0]]), tensor([0.25, 0.5]), dim=1, keepdim=true)
  expect(allclose(nq, tensor([[[nan], [1.25]], [[nan], [1.5]]]), equal_nan=true))
  let q = tensor([1.0, 2.0, 3.0, 4.0])
  expect(same(quantile(q, 0.4, interpolation="lower"), tensor(2.0)) and same(quantile(q, 0.4, interpolation="higher"), tensor(3.0)))
  expect(same(quantile(q, 0.4, interpolation="nearest"), tensor(2.0)) and same(quantile(q, 0.5, interpolation="nearest"), tensor(3.0)))
  expect(same(quantile(q, 0.4, interpolation="midpoint"), tensor(2.5)))
  # gradients: PyTorch's (nanmedian's to the chosen element, nanquantile's to the two around the rank)
  let a = x.clone().requires_grad_(true)
  (nanmedian(a, 1).values * tensor([1.0, 2.0], dtype=f64)).sum().backward()
  expect(same(a.grad, tensor([[0.0, 0.0, 0.0, 1.0], [0.0, 2.0, 0.0, 0.0]], dtype=f64)))
  let b = x.clone().requires_grad_(true)
  nanquantile(b, 0.3, dim=1).sum().backward()
  expect_close(b.grad, tensor([[0.4, 0.0, 0.0, 0.6], [0.0, 0.9, 0.0, 0.1]], dtype=f64), rtol=1e-12, atol=1e-12)
  let g = tensor([[1.0, 5.0, 3.0, 2.0], [3.0, 2.5, 4.0, 0.5]], dtype=f64, requires_grad=true)
  expect(gradcheck(fn(t) = nanquantile(t, 0.3, dim=1), g) and gradgradcheck(fn(t) = nanquantile(t, 0.3, dim=1), g))
  expect(gradcheck(fn(t) = quantile(t, [0.2, 0.9], dim=0, interpolation="midpoint"), g))
  expect(gradcheck(fn(t) = nanmedian(t, 1).values, g) and gradcheck(fn(t) = aminmax(t, dim=1).max, g))
}

test "isin, bucketize and searchsorted" {
  expect(same(isin(tensor([1, 2, 3]), tensor([2.0, 3.5])), tensor([false, true, false])) and same(isin(2, tensor([1, 2])), tensor(true)))
  expect(same(isin(tensor([1, 2, 3]), tensor([2]), invert=true), tensor([true, false, true])) and same(isin(tensor([1, 2, 3]), 2), tensor([false, true, false])))
  let b = tensor([1, 3, 5])
  expect(same(bucketize(tensor([0, 3, 6, 5]), b), tensor([0, 1, 3, 2])) and same(bucketize(tensor([0, 3, 6, 5]), b, right=true), tensor([0, 2, 3, 3])))
  expect(same(bucketize(3, b), tensor(1)) and bucketize(tensor([0, 3]), b, out_int32=true).dtype == i32)
  let s = tensor([[1, 3, 5], [2, 4, 6]])
  expect(same(searchsorted(s, tensor([[3, 6], [1, 4]])), tensor([[1, 3], [0, 1]])))
  expect(same(searchsorted(s, tensor([[3, 6], [1, 4]]), side="right"), tensor([[2, 3], [0, 2]])))
  expect(same(searchsorted(tensor([1.0, 3.0]), 2.5), tensor(1)) and same(searchsorted(tensor([5, 1, 3]), tensor([2, 4]), sorter=tensor([1, 2, 0])), tensor([1, 2])))
}

test "tril_indices, triu_indices, meshgrid, cartesian_prod, block_diag, vander, stacks, tensordot" {
  expect(same(tril_indices(3, 3), tensor([[0, 1, 1, 2, 2, 2], [0, 0, 1, 0, 1, 2]])))
  expect(same(triu_indices(3, 4, 1), tensor([[0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3]])) and same(tril_indices(2, 3, -1), tensor([[1], [0]])))
  let g = meshgrid(tensor([1, 2]), tensor([3, 4, 5]), indexing="ij")
  expect(g[0].shape == (2, 3) and same(g[1], tensor([[3, 4, 5], [3, 4, 5]])))
  let gx = meshgrid(tensor([1, 2]), tensor([3, 4, 5]), indexing="xy")
  expect(gx[0].shape == (3, 2) and same(gx[0], tensor([[1, 2], [1, 2], [1, 2]])))
  expect(same(cartesian_prod(tensor([1, 2]), tensor([3, 4])), tensor([[1, 3], [1, 4], [2, 3], [2, 4]])) and same(cartesian_prod(tensor([1, 2])), tensor([1, 2])))
  expect(same(block_diag(tensor([[1.0]]), tensor([2, 3]), tensor(7), zeros(0, 2)),
              tensor([[1.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 2.0, 3.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 7.0, 0.0, 0.0]])))
  expect(same(vander(tensor([1, 2, 3])), tensor([[1, 1, 1], [4, 2, 1], [9, 3, 1]])) and same(vander(tensor([1.0, 2.0]), N=3, increasing=true), tensor([[1.0, 1.0, 1.0], [1.0, 2.0, 4.0]])))
  expect(vander(tensor([true, false])).dtype == i64 and vander(tensor([1, 2], dtype=i32)).dtype == i64)
  expect(same(dstack([tensor([1, 2]), tensor([3, 4])]), tensor([[[1, 3], [2, 4]]])) and same(column_stack([tensor([1, 2]), tensor([3, 4])]), tensor([[1, 3], [2, 4]])))
  expect(same(row_stack([tensor([1, 2]), tensor([3, 4])]), tensor([[1, 2], [3, 4]])) and atleast_3d(ones(2, 3)).shape == (2, 3, 1) and atleast_3d(tensor([1, 2])).shape == (1, 2, 1))
  expect(same(tensordot(arange(24.0).reshape(2, 3, 4), arange(12.0).reshape(4, 3), dims=([1, 2], [1, 0])), tensor([440.0, 1232.0])))
  expect(same(logspace(0, 2, 3), tensor([1.0, 10.0, 100.0])))
  let u = tensor([1.0, 2.0, 3.0], dtype=f64, requires_grad=true)
  let v = tensor([0.5, -1.0], dtype=f64, requires_grad=true)
  expect(gradcheck(fn(p, q) = cartesian_prod(p, q), u, v) and gradgradcheck(fn(p, q) = block_diag(p, q.reshape(2, 1)), u, v))
  expect(gradcheck(fn(p) = vander(p, N=4), u) and gradgradcheck(fn(p) = vander(p, N=4), u))
  expect(gradcheck(fn(p, q) = meshgrid(p, q, indexing="xy")[0] * meshgrid(p, q, indexing="xy")[1], u, v))
  let w = randn(2, 3, dtype=f64, requires_grad=true)
  expect(gradcheck(fn(p, q) = tensordot(p, q, dims=([1], [0])), w, u) and gradgradcheck(fn(p) = tensordot(p, p, dims=([0, 1], [0, 1])), w))
}

test "clamp and clip with tensor bounds: broadcast, promoted, PyTorch's gradients" {
  let x = tensor([-2.0, 0.5, 3.0, 1.0], dtype=f64, requires_grad=true)
  let lo = tensor([0.0, 1.0, 0.0, 1.0], dtype=f64, requires_grad=true)
  let hi = tensor([1.0, 2.0, 2.0, 2.0], dtype=f64, requires_grad=true)
  let y = clamp(x, min=lo, max=hi)
  expect(same(y.detach(), tensor([0.0, 1.0, 2.0, 1.0], dtype=f64)))
  (y * tensor([1.0, 2.0, 3.0, 4.0], dtype=f64)).sum().backward()
  expect(same(x.grad, tensor([0.0, 0.0, 0.0, 4.0], dtype=f64)) and same(lo.grad, tensor([1.0, 2.0, 0.0, 0.0], dtype=f64)))
  expect(same(hi.grad, tensor([0.0, 0.0, 3.0, 0.0], dtype=f64)))
  expect(same(clamp(tensor([1, 5]), min=tensor([2.5, 0.0])), tensor([2.5, 5.0])) and same(clamp(tensor([1, 5]), min=tensor(2.5)), tensor([2.5, 5.0])))
  expect(clamp(tensor([1.0, 5.0]), min=tensor([2.0], dtype=f64)).dtype == f64 and clamp(tensor([1.0, 5.0]), min=tensor(2.0, dtype=f64)).dtype == f32)
  expect(same(tensor([-2.0, 0.5, 3.0]).clip(max=tensor([1.0, 2.0, 2.0])), tensor([-2.0, 0.5, 2.0])))
  let z = tensor([[-1.0, 0.2], [0.7, 2.0]], dtype=f64, requires_grad=true)
  expect(gradcheck(fn(t, l) = clamp(t, min=l, max=1.5), z, tensor([0.0, 0.5], dtype=f64, requires_grad=true)))
}

test "sizes as separate arguments or one list; PyTorch's keyword conventions" {
  let x = zeros(2, dtype=f64)
  expect(x.new_zeros(2, 2).shape == (2, 2) and x.new_ones(2, 3).dtype == f64 and x.new_empty(2).shape == (2,))
  expect(x.new_zeros((2, 2)).shape == (2, 2) and same(x.new_full((2,), 3.0), tensor([3.0, 3.0], dtype=f64)))
  expect(x.new_zeros(3, dtype=i64).dtype == i64 and x.new_ones([1], requires_grad=true).requires_grad)
  let t = tensor([1.0, 2.0])
  t.add_(tensor([1.0, 1.0]), alpha=2)
  expect(same(t, tensor([3.0, 4.0])))
  t.sub_(1, alpha=3)
  expect(same(t, tensor([0.0, 1.0])))
  let d = tensor([7.0, -7.0])
  d.div_(2, rounding_mode="floor")
  expect(same(d, tensor([3.0, -4.0])))
  expect(same(where(tensor([[0, 1], [1, 0]]))[0], tensor([0, 1])))
  let m = tensor([[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]], dtype=f64)
  expect_close(m.var(dim=1, unbiased=false), tensor([1.5555555555555556, 6.222222222222222], dtype=f64))
  expect_close(m.std(1, false), tensor([1.247219128924647, 2.494438257849294], dtype=f64))
  expect(same(tensor([1, 2, 3]).mean(dtype=f32), tensor(2.0)) and same(tensor([1, 2, 3]).sum(dtype=f64), tensor(6.0, dtype=f64)))
  expect(same(cumsum(tensor([1, 2]), 0, dtype=f32), tensor([1.0, 3.0])))
  expect_close(tensor([1.2345]).round(decimals=2), tensor([1.23])) 
  expect(same(tensor([1234.5]).round(decimals=-2), tensor([1200.0])))
}

test "str counts code points, as Python's" {
  let s = "héllo"
  expect(len(s) == 5 and len("😀") == 1 and len("") == 0)
  expect(list("aé😀b") == ["a", "é", "😀", "b"] and tuple("é😀") == ("é", "😀"))
  expect("aé😀b".find("b") == 3 and "aé😀b".index("😀") == 2 and "aé😀b".rfind("é") == 1 and "héllo".find("l", 3) == 3)
  expect("héllo".rindex("l") == 3 and "héllo".find("z") == -1 and "héllo".find("l", -2) == 3 and "héllo".find("", 9) == -1)
  expect("aé😀b".split("😀") == ["aé", "b"])
  expect(ord("é") == 233 and chr(233) == "é" and chr(128512) == "😀" and ord("😀") == 128512)
  expect_error(fn() = "héllo".index("z"), "substring not found")
  expect(s[1] == "é" and s[-1] == "o" and "héllo😀"[-1] == "😀", "indexing by character")
  expect(s[1:3] == "él" and "héllo😀"[::-1] == "😀olléh" and s[::2] == "hlo", "slicing by character")
  let chars = []
  for c in "añ😀" { chars.append(c) }
  expect(chars == ["a", "ñ", "😀"] and [c for c in "é😀"] == ["é", "😀"], "iteration by character")
  expect_error(fn() = s[5], "out of range")
}

test "cat leaves out 1-D empty tensors beside others, as PyTorch's legacy rule" {
  expect(cat([zeros(0), ones(2, 2)]).shape == (2, 2))
  expect(cat([tensor([]), ones(2, 2, dtype=i64)]).dtype == f32, "the empty tensor's dtype still promotes")
  expect(cat([zeros(0), ones(2, 3), zeros(0)], 1).shape == (2, 3), "dims wrap by the tensors kept")
  expect(cat([zeros(0), zeros(0)]).shape == (0,) and cat([zeros(0, 2), ones(2, 2)]).shape == (2, 2))
  let preds = tensor([])
  for i in range(3) { preds = cat([preds, ones(2, 4) * i]) }
  expect(preds.shape == (6, 4) and preds[4, 0].item() == 2.0, "the accumulating idiom")
  let x = randn(2, 3, dtype=f64, requires_grad=true)
  cat([zeros(0, dtype=f64), x, x]).sum().backward()
  expect(equal(x.grad, full([2, 3], 2.0, dtype=f64)))
  expect_error(fn() = cat([zeros(1), ones(2, 2)]), "cat")
  let f = compile(fn(a) = cat([zeros(0), a]), ones(2, 2))
  expect(equal(f(ones(2, 2)), ones(2, 2)))
}

test "a 1-D empty leaf beside others in cat gets its empty .grad, as in PyTorch" {
  let e = zeros(0, dtype=f64, requires_grad=true)
  let x = randn(2, 3, dtype=f64, requires_grad=true)
  let y = cat([e, x, e], dim=-1)
  expect(y.shape == (2, 3))
  (y * y).sum().backward()
  expect(e.grad != none and e.grad.shape == (0,) and e.grad.dtype == f64, "the empty leaf's grad")
  expect(equal(x.grad, 2 * x.detach()))
  expect(gradcheck(fn(a, b) = cat([a, b]), [zeros(0, dtype=f64, requires_grad=true), randn(3, 2, dtype=f64, requires_grad=true)]))
  expect_error(fn() = cat([tensor([]), tensor(5.0)]), "zero-dimensional tensor 1")
}

test "deepcopy keeps views of one storage views of one copied storage, as PyTorch's" {
  let a = randn(4)
  let d = copy.deepcopy([a, a[1:3], a])
  d[0][1] = 100.0
  expect(d[1][0].item() == 100.0, "the slice's copy sees its base's copy")
  expect(d[0] is d[2] and a[1].item() != 100.0, "the same tensor twice is one copy; the original is untouched")
  let x = randn(3, 4, dtype=f64)
  let (c1, c2) = copy.deepcopy((x, x.T))
  c1[0, 1] = 7.0
  expect(c2[1, 0].item() == 7.0 and c2.shape == (4, 3) and not c2.is_contiguous())
  let p = randn(3, requires_grad=true)
  (p * 2).sum().backward()
  let q = copy.deepcopy(p)
  expect(q.requires_grad and q.is_leaf and equal(q, p) and not (q is p))
  expect(copy.deepcopy(zeros(0)).shape == (0,) and copy.deepcopy(tensor(3.0)).item() == 3.0)
  expect(copy.deepcopy(ones(2, dtype=f16)).dtype == f16)
}
