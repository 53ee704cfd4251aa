# The elementwise activation layers (LeakyReLU, ELU, Softplus, Hardswish, Mish,
# Hardtanh) and the elementwise ops they call (run by `nabla test tests/stdlib`; ctest:
# dsl_tests). PyTorch's numbers come from torch 1.13, by the python line above each.
import nn

# x = torch.tensor([-3.5, -1.25, -0.5, 0.0, 0.75, 2.5, 4.0])
fn _x() = tensor([-3.5, -1.25, -0.5, 0.0, 0.75, 2.5, 4.0])

fn _close(a, b) = expect_close(a, tensor(b), rtol=1e-5, atol=1e-5)

test "the activation modules equal their functions" {
  manual_seed(0)
  let x = randn([4, 6]) * 3.0
  expect_close(nn.LeakyReLU()(x), leaky_relu(x))
  expect_close(nn.LeakyReLU(0.2)(x), leaky_relu(x, negative_slope=0.2))
  expect_close(nn.ELU()(x), elu(x))
  expect_close(nn.ELU(alpha=0.5)(x), elu(x, alpha=0.5))
  expect_close(nn.Softplus()(x), softplus(x))
  expect_close(nn.Softplus(beta=2.0, threshold=1.0)(x), softplus(x, beta=2.0, threshold=1.0))
  expect_close(nn.Hardswish()(x), hardswish(x))
  expect_close(nn.Mish()(x), mish(x))
  expect_close(nn.Hardtanh()(x), hardtanh(x))
  expect_close(nn.Hardtanh(-0.5, 2.0)(x), hardtanh(x, min_val=-0.5, max_val=2.0))
  for a in [nn.LeakyReLU(), nn.ELU(), nn.Softplus(), nn.Hardswish(), nn.Mish(), nn.Hardtanh()] {
    expect(a(x).shape == (4, 6))
    expect(len(a.state_dict()) == 0)
  }
}

test "the activation modules compute PyTorch's values" {
  let x = _x()
  # [round(v, 6) for v in nn.LeakyReLU()(x).tolist()]
  _close(nn.LeakyReLU()(x), [-0.035, -0.0125, -0.005, 0.0, 0.75, 2.5, 4.0])
  # [round(v, 6) for v in nn.LeakyReLU(0.2)(x).tolist()]
  _close(nn.LeakyReLU(0.2)(x), [-0.7, -0.25, -0.1, 0.0, 0.75, 2.5, 4.0])
  # [round(v, 6) for v in nn.ELU()(x).tolist()]
  _close(nn.ELU()(x), [-0.969803, -0.713495, -0.393469, 0.0, 0.75, 2.5, 4.0])
  # [round(v, 6) for v in nn.ELU(alpha=0.5)(x).tolist()]
  _close(nn.ELU(alpha=0.5)(x), [-0.484901, -0.356748, -0.196735, 0.0, 0.75, 2.5, 4.0])
  # [round(v, 6) for v in nn.Softplus()(x).tolist()]
  _close(nn.Softplus()(x), [0.02975, 0.251929, 0.474077, 0.693147, 1.136871, 2.57889, 4.01815])
  # [round(v, 6) for v in nn.Softplus(beta=2.0, threshold=1.0)(x).tolist()]
  _close(nn.Softplus(beta=2.0, threshold=1.0)(x), [0.000456, 0.039445, 0.156631, 0.346574, 0.75, 2.5, 4.0])
  # [round(v, 6) for v in nn.Hardswish()(x).tolist()]
  _close(nn.Hardswish()(x), [-0.0, -0.364583, -0.208333, 0.0, 0.46875, 2.291667, 4.0])
  # [round(v, 6) for v in nn.Mish()(x).tolist()]
  _close(nn.Mish()(x), [-0.104096, -0.308414, -0.220744, 0.0, 0.610018, 2.471392, 3.997413])
  # [round(v, 6) for v in nn.Hardtanh()(x).tolist()]
  _close(nn.Hardtanh()(x), [-1.0, -1.0, -0.5, 0.0, 0.75, 1.0, 1.0])
  # [round(v, 6) for v in nn.Hardtanh(-0.5, 2.0)(x).tolist()]
  _close(nn.Hardtanh(-0.5, 2.0)(x), [-0.5, -0.5, -0.5, 0.0, 0.75, 2.0, 2.0])
}

test "the elementwise ops compute PyTorch's values" {
  # torch.round(torch.tensor([0.5, 1.5, 2.5, -0.5, -2.5])).tolist()
  _close(round(tensor([0.5, 1.5, 2.5, -0.5, -2.5])), [0.0, 2.0, 2.0, -0.0, -2.0])
  expect(round(3.7) == 4 and round(2.5) == 2 and round(2.675, 2) == 2.67)
  expect(round(tensor([1, -2])).dtype == i64 and floor(tensor([1, -2])).dtype == i64)
  _close(floor(tensor([-1.5, 1.5])), [-2.0, 1.0])
  _close(ceil(tensor([-1.5, 1.5])), [-1.0, 2.0])
  _close(trunc(tensor([-1.5, 1.5])), [-1.0, 1.0])
  # torch.remainder(torch.tensor([5., -5., 5., -5.]), torch.tensor([3., 3., -3., -3.])).tolist()
  _close(remainder(tensor([5.0, -5.0, 5.0, -5.0]), tensor([3.0, 3.0, -3.0, -3.0])), [2.0, 1.0, -1.0, -2.0])
  expect(remainder(tensor([5, -5]), tensor([3, 3])).tolist() == [2, 1])
  expect((tensor([5, -5]) % 3).tolist() == [2, 1] and (tensor([5.0]) % -3.0).tolist() == [-1.0])
  # torch.atan2(torch.tensor([1., -1.]), torch.tensor([-1., -1.])).tolist()
  _close(atan2(tensor([1.0, -1.0]), tensor([-1.0, -1.0])), [2.356194496154785, -2.356194496154785])
  # torch.logaddexp(torch.tensor([1000., 0.]), torch.tensor([1000., -1.])).tolist()
  _close(logaddexp(tensor([1000.0, 0.0]), tensor([1000.0, -1.0])), [1000.6931762695312, 0.31326165795326233])
  # torch.logit(torch.tensor([0.1, 0.5, 0.99]), eps=0.2).tolist()
  _close(logit(tensor([0.1, 0.5, 0.99]), eps=0.2), [-1.3862943649291992, 0.0, 1.3862944841384888])
}

test "the activations' gradients are PyTorch's" {
  let x = tensor([-3.5, -1.25, -0.5, 0.75, 2.5, 4.0], requires_grad=true)
  # x = torch.tensor([-3.5, -1.25, -0.5, 0.75, 2.5, 4.0], requires_grad=True); F.hardtanh(x).sum().backward(); x.grad
  hardtanh(x).sum().backward()
  _close(x.grad, [0.0, 0.0, 1.0, 1.0, 0.0, 0.0])
  let y = tensor([-3.5, -1.25, 0.75, 4.0], requires_grad=true)
  # x = torch.tensor([-3.5, -1.25, 0.75, 4.0], requires_grad=True); F.hardswish(x).sum().backward(); x.grad
  hardswish(y).sum().backward()
  _close(y.grad, [0.0, 0.083333, 0.75, 1.0])
}

test "integer floor and truncated division stay integers, as PyTorch's; // on tensors is floor_divide" {
  let a = tensor([7, -7, 7, -7, 0, 9007199254740000])
  let b = tensor([2, 2, -2, -2, 3, 7])
  let floor_q = a // b
  expect(floor_q.dtype == i64 and floor_q.tolist() == [3, -4, -4, 3, 0, 1286742750677142], f"{floor_q}")
  expect(equal(floor_divide(a, b), floor_q) and equal(div(a, b, rounding_mode="floor"), floor_q))
  let trunc_q = div(a, b, rounding_mode="trunc")
  expect(trunc_q.dtype == i64 and trunc_q.tolist() == [3, -3, -3, 3, 0, 1286742750677142], f"{trunc_q}")
  expect((tensor([7.5, -7.5]) // 2).tolist() == [3.0, -4.0])
  let x = tensor([5, 6])
  x //= 4
  expect(x.tolist() == [1, 1] and x.dtype == i64)
  let n = -7
  n //= 2  # on numbers too (it used to read as n // (= 2))
  expect(n == -4)
  expect_error(fn() = tensor([1]) // tensor([0]), "zero")
}

test "softmax and log_softmax take PyTorch's dtype=: the input is converted first" {
  let x = randn([2, 3])
  let y = softmax(x.half(), 1, dtype=f32)
  expect(y.dtype == f32 and log_softmax(x, dim=1, dtype=f64).dtype == f64)
  expect_close(log_softmax(x, dim=1, dtype=f64), log_softmax(x.double(), dim=1))
  expect_close(y, softmax(x.half().float(), 1))
}
