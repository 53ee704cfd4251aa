# A parametrized tensor assigned by hand (module.weight = v), as PyTorch's
# parametrization property takes it: through right_inverse into `original`
# (Note [Parametrizations] in stdlib/_nn_parametrize.dsl). It was silently overwritten
# by the next forward before.
import nn
import optim

model Double() {
  forward(x) = x * 2.0
  right_inverse(x) = x / 2.0
}

model AddOne() {
  forward(x) = x + 1.0
  right_inverse(x) = x - 1.0
}

test "an assigned weight reaches original through right_inverse; the forward uses it" {
  let lin = nn.Linear(2, 2)
  nn.utils.parametrize.register_parametrization(lin, "weight", Double())
  let original = lin.parametrizations.weight.original
  let opt = optim.SGD(lin.parameters(), lr=0.1)
  let v = tensor([[1.0, 2.0], [3.0, 4.0]])
  lin.weight = v
  let x = tensor([[1.0, -1.0]])
  expect_close(lin(x), matmul(x, v.t()) + lin.bias, 1e-12)
  expect_close(lin.parametrizations.weight.original, v / 2.0, 0.0)
  expect(lin.parametrizations.weight.original is original, "original kept in place (the optimizer holds it)")
  lin(x).sum().backward()
  opt.step()
  expect_close(lin.weight, v, 0.0)  # the last forward's weight, until the next forward
}

test "a chain: the value goes back through each right_inverse, last first" {
  let lin = nn.Linear(2, 2)
  nn.utils.parametrize.register_parametrization(lin, "weight", Double())
  nn.utils.parametrize.register_parametrization(lin, "weight", AddOne())
  let v = tensor([[1.0, 3.0], [5.0, 7.0]])
  lin.weight = v
  let y = lin(ones([1, 2]))
  expect_close(lin.parametrizations.weight.original, (v - 1.0) / 2.0, 0.0)
  expect_close(lin.weight, v, 0.0)
}

test "no assignment, no change; deepcopy and a forward leave the weight alone" {
  manual_seed(0)
  let lin = nn.Linear(3, 3)
  nn.utils.parametrize.register_parametrization(lin, "weight", nn.Tanh())
  let before = lin.parametrizations.weight.original.clone()
  let y = lin(ones([1, 3]))
  let copy = deepcopy(lin)
  let z = copy(ones([1, 3]))
  expect_close(copy.parametrizations.weight.original, before, 0.0)
  expect_close(lin.parametrizations.weight.original, before, 0.0)
}

test "without a right_inverse, an assignment is an error at the next forward" {
  let lin = nn.Linear(2, 2)
  nn.utils.parametrize.register_parametrization(lin, "weight", nn.Tanh())
  lin.weight = ones([2, 2])
  expect_error(fn() = lin(ones([1, 2])), "parametrization Tanh has no right_inverse")
}
