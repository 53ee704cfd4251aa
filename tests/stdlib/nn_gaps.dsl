# masked_fill with a tensor value, pad of integer and bool tensors, and interpolate's
# area mode and 1-D inputs from the language (run by ctest stdlib_tests).
import nn

test "masked_fill takes a number or a 0-dim tensor, which gets the filled positions' gradient" {
  let x = tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=true)
  let v = tensor(-1.0, requires_grad=true)
  let m = tensor([true, false, true])
  let y = masked_fill(x, m, v)
  expect_close(y, tensor([[-1.0, 2.0, -1.0], [-1.0, 5.0, -1.0]]))
  (y * tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).sum().backward()
  expect_close(v.grad, tensor(14.0))
  expect_close(x.grad, tensor([[0.0, 2.0, 0.0], [0.0, 5.0, 0.0]]))
  expect_close(x.masked_fill(m, 7), masked_fill(x, m, tensor(7.0)))
  expect(arange(4).masked_fill(tensor([false, true, false, true]), tensor(9)).tolist() == [0, 9, 2, 9])
}

test "pad takes integer and bool tensors in every mode" {
  let a = arange(5).reshape([1, 1, 5])
  expect(pad(a, [2, 1], mode="reflect").tolist() == [[[2, 1, 0, 1, 2, 3, 4, 3]]])
  expect(pad(a, [2, 1], mode="replicate").tolist() == [[[0, 0, 0, 1, 2, 3, 4, 4]]])
  expect(pad(a, [2, 1], mode="circular").tolist() == [[[3, 4, 0, 1, 2, 3, 4, 0]]])
  expect(pad(a, [1, 1], value=-7).tolist() == [[[-7, 0, 1, 2, 3, 4, -7]]])
  let b = pad(a > 2, [1, 2], mode="reflect")
  expect(str(b.dtype) == "bool")
  expect(b.tolist() == [[[false, false, false, false, true, true, true, false]]])
}

test "interpolate area averages windows as adaptive average pooling" {
  let z = arange(20.0).reshape([1, 1, 4, 5])
  expect_close(interpolate(z, size=[2, 3], mode="area"), tensor([[[[3.0, 4.5, 6.0], [13.0, 14.5, 16.0]]]]))
  expect_close(interpolate(z, size=[2, 3], mode="area"), adaptive_avg_pool2d(z, [2, 3]))
  let w = arange(7.0).reshape([1, 1, 7])
  expect_close(interpolate(w, size=3, mode="area"), tensor([[[1.0, 3.0, 5.0]]]))
  expect_close(nn.Upsample(scale_factor=0.5, mode="area")(z), interpolate(z, size=[2, 2], mode="area"))
  expect(interpolate(w, scale_factor=2, mode="linear", align_corners=true).shape[2] == 14)
}
