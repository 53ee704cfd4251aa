# Integer matmul on the CPU, as PyTorch's (no BLAS: tensor/cpu/linalg.cpp's
# integer_gemm). Expected values are PyTorch 1.13's for the same tensors.

let a = arange(24).reshape([2, 3, 4]) - 7
let b = arange(20).reshape([4, 5]) * 3 - 11

test "batched, broadcast and transposed integer matmul, mv, dot, bmm and einsum equal PyTorch's" {
  let want = tensor([-178, -244, -310, -376, -442, 6, -12, -30, -48, -66, 190, 220, 250, 280, 310, 374, 452, 530,
                     608, 686, 558, 684, 810, 936, 1062, 742, 916, 1090, 1264, 1438])
  let got = a @ b
  expect(got.dtype == i64, str(got.dtype))
  expect(equal(got.flatten(), want), str(got))
  # strided operands (a transposed copy read back as a view)
  let at = a.transpose(1, 2).contiguous().transpose(1, 2)
  let bt = b.T.contiguous().T
  expect(equal((at @ bt).flatten(), want))
  expect(equal(einsum("bij,jk->bik", a, b).flatten(), want))
  expect(equal(mv(b.T, arange(4) - 2), tensor([52, 46, 40, 34, 28])))
  expect(dot(arange(5), arange(5) + 1).item() == 40)
  expect(equal(bmm(a, a.transpose(1, 2)).flatten(),
               tensor([126, 38, -50, 38, 14, -10, -50, -10, 30, 174, 278, 382, 278, 446, 614, 382, 614, 846])))
}

test "integer sums wrap as PyTorch's: int8, uint8, int32, int64" {
  let x8 = tensor([[100, 100], [-100, 50]], dtype=i8)
  expect(equal((x8 @ x8).flatten(), tensor([0, -104, 104, -76], dtype=i8)))
  let w8 = tensor([[200, 100], [3, 250]], dtype=u8)
  expect(equal((w8 @ w8).flatten(), tensor([108, 200, 70, 80], dtype=u8)))
  let i32t = tensor([[1073741824, 3], [5, 536870912]], dtype=i32)
  expect(equal((i32t @ i32t).flatten(), tensor([15, 536870912, -536870912, 15], dtype=i32)))
  let big = tensor([[4611686018427387904, 3], [5, 7]])
  expect(equal((big @ big).flatten(), tensor([15, -4611686018427387883, 4611686018427387939, 64])))
}

test "bool matrices and mixed integer dtypes are refused, as PyTorch refuses them" {
  expect_error(fn() = ones([2, 2], dtype=bool) @ ones([2, 2], dtype=bool), "must be a floating tensor, got bool")
  expect_error(fn() = ones([2, 2], dtype=i32) @ ones([2, 2], dtype=i64), "must have the same dtype, got i32 and i64")
}
