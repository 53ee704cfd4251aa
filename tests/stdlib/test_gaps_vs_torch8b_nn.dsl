# Round 8b against PyTorch 1.13: nn.utils.parametrize (stdlib/_nn_parametrize.dsl, Note
# [Parametrizations]) and nn.AdaptiveLogSoftmaxWithLoss (stdlib/_nn_adaptive.dsl). The
# reference (tests/stdlib/reference/make_vs_torch8b.py's parametrize_cases and
# adaptive_cases) holds a Linear's weights, PyTorch's weight, output and gradients with
# two chained parametrizations, what remove_parametrizations leaves, and the adaptive
# softmax's weights, outputs and gradients.
import nn
import optim

let ref = load("tests/stdlib/reference/vs_torch8b.safetensors")
let P = nn.utils.parametrize

model Symmetric() {
  forward(X) = X.triu() + X.triu(1).T
}

model Scale() {
  s = nn.Parameter(tensor(2.0, dtype=f64))
  forward(X) = X * self.s
  right_inverse(W) = W / 2
}

model Wider() {
  forward(X) = cat([X, X], 0)
}

fn linear_of(prefix) {
  let m = nn.Linear(3, 3)
  m.double()
  no_grad {
    m.weight.copy_(ref[prefix + ".weight"])
    if prefix + ".bias" in ref.keys() { m.bias.copy_(ref[prefix + ".bias"]) }
  }
  return m
}

test "two chained parametrizations of a Linear's weight equal PyTorch's: weight, output, gradients, removal" {
  let m = linear_of("param")
  P.register_parametrization(m, "weight", Symmetric())
  P.register_parametrization(m, "weight", Scale())
  expect(list(m.state_dict().keys()) == ["bias", "parametrizations.weight.original", "parametrizations.weight.1.s"], f"{list(m.state_dict().keys())}")
  expect([p[0] for p in m.named_parameters()] == ["bias", "parametrizations.weight.original", "parametrizations.weight.1.s"], "the parameters, as PyTorch's")
  expect_close(m.weight, ref["param.w"], rtol=1e-12)
  let y = m(ref["param.x"])
  expect_close(y, ref["param.y"], rtol=1e-12, atol=1e-14)
  (y * ref["param.g"]).sum().backward()
  expect_close(m.parametrizations.weight.original.grad, ref["param.grad_original"], rtol=1e-12, atol=1e-14)
  expect_close(m.bias.grad, ref["param.grad_bias"], rtol=1e-12, atol=1e-14)
  expect_close(m.parametrizations.weight[1].s.grad, ref["param.grad_s"], rtol=1e-12)
  no_grad { m.parametrizations.weight[1].s.fill_(3.0) }
  P.remove_parametrizations(m, "weight")
  expect_close(m.weight, ref["param.removed"], rtol=1e-12)
  expect(list(m.state_dict().keys()) == ["bias", "weight"], f"{list(m.state_dict().keys())}")
  expect(m.weight.is_leaf and m.weight.requires_grad and not P.is_parametrized(m), "a parameter again")
}

test "right_inverse makes the original; leave_parametrized=false leaves it" {
  let m = linear_of("param_inv")
  P.register_parametrization(m, "weight", Scale())
  expect_close(m.parametrizations.weight.original, ref["param_inv.original"], rtol=1e-12)
  expect_close(m.weight, ref["param_inv.w"], rtol=1e-12)
  P.remove_parametrizations(m, "weight", leave_parametrized=false)
  expect_close(m.weight, ref["param_inv.removed"], rtol=1e-12)
}

test "parametrize: an optimizer steps the original and the next forward sees it; buffers; is_parametrized" {
  let m = nn.Linear(3, 3)
  P.register_parametrization(m, "weight", Symmetric())
  let opt = optim.SGD(m.parameters(), lr=0.1)
  m(randn(2, 3)).sum().backward()
  opt.step()
  let o = m.parametrizations.weight.original
  m(randn(2, 3))
  expect_close(m.weight, o.triu() + o.triu(1).T)
  expect(P.is_parametrized(m) and P.is_parametrized(m, "weight") and not P.is_parametrized(m, "bias"), "is_parametrized")
  expect(not P.is_parametrized(nn.Linear(2, 2)), "a plain Linear")
  let bn = nn.BatchNorm1d(3)
  P.register_parametrization(bn, "running_mean", Scale())
  expect(list(bn.state_dict().keys())[-2:] == ["parametrizations.running_mean.original", "parametrizations.running_mean.0.s"], f"{list(bn.state_dict().keys())}")
  expect(len(list(bn.parameters())) == 3, "the buffer's original stays a buffer")
  P.remove_parametrizations(bn, "running_mean")
  expect("running_mean" in bn.state_dict().keys() and len(list(bn.parameters())) == 2, "a buffer again")
}

test "parametrize: a shape-changing parametrization needs unsafe=true; bad arguments are named errors" {
  expect_error(fn() = P.register_parametrization(nn.Linear(2, 2), "weight", Wider()), "may not change the shape or dtype of 'weight' ([2, 2] f32 became [4, 2] f32) unless unsafe=true")
  let m = P.register_parametrization(nn.Linear(2, 2), "weight", Wider(), unsafe=true)
  expect(list(m.weight.shape) == [4, 2], "unsafe lets the shape change")
  expect_error(fn() = P.register_parametrization(nn.Linear(2, 2), "nope", Symmetric()), "has no parameter or buffer 'nope'")
  expect_error(fn() = P.register_parametrization(nn.Linear(2, 2), "weight", fn(x) = x), "parametrization must be a model")
  expect_error(fn() = P.register_parametrization(ones(2), "weight", Symmetric()), "module must be a model")
  expect_error(fn() = P.remove_parametrizations(nn.Linear(2, 2), "weight"), "has no parametrization on 'weight'")
}

# ---- nn.AdaptiveLogSoftmaxWithLoss (stdlib/_nn_adaptive.dsl; make_vs_torch8b.py's
# adaptive_cases: PyTorch's weights, outputs and gradients)
import "vs_torch2_check.inc" as vt
let A = nn.AdaptiveLogSoftmaxWithLoss

test "AdaptiveLogSoftmaxWithLoss: output, loss, log_prob, predict and gradients equal PyTorch's" {
  vt.check_in(ref, "adaptive", A(8, 15, [4, 9], div_value=2.0, head_bias=true), 2,
              fn(m, xs) = [m(xs[0], xs[1]).output, m(xs[0], xs[1]).loss, m.log_prob(xs[0]), m.predict(xs[0])])
  vt.check_in(ref, "adaptive_loss", A(8, 15, [4, 9]), 2, fn(m, xs) = [m(xs[0], xs[1]).loss, m(xs[0], xs[1]).output])
  vt.check_in(ref, "adaptive_0d", A(8, 12, [3, 6, 10], div_value=2.0), 2, fn(m, xs) = [m(xs[0], xs[1]).output, m(xs[0], xs[1]).loss])
}

test "AdaptiveLogSoftmaxWithLoss: its layout, log_prob sums to 1, predict is log_prob's argmax; bad arguments" {
  let m = A(16, 20, [5, 12], div_value=2.0)
  expect(list(m.state_dict().keys()) == ["head.weight", "tail.0.0.weight", "tail.0.1.weight", "tail.1.0.weight", "tail.1.1.weight"], f"{list(m.state_dict().keys())}")
  # a tail of width 0 (8 // 4 ** 2): Linear's backward counted rows by reshape(-1, 0) and failed
  let z = A(8, 15, [4, 9])
  expect(list(z.tail[1][0].weight.shape) == [0, 8], "the narrowest tail")
  z(randn(3, 8, requires_grad=true), tensor([1, 5, 12])).loss.backward()
  expect(bool((z.tail[1][1].weight.grad == 0).all()) and list(z.tail[1][1].weight.grad.shape) == [6, 0], "its gradient")
  expect(list(m.tail[1][0].weight.shape) == [4, 16] and list(m.head.weight.shape) == [7, 16], "hidden sizes in_features // div_value ** (i + 1)")
  let x = randn(9, 16) * 4
  expect_close(m.log_prob(x).exp().sum(1), ones(9), rtol=1e-5)
  expect(bool((m.predict(x) == m.log_prob(x).argmax(1)).all()), "predict")
  expect_error(fn() = A(16, 20, [12, 5]), "cutoffs must be a list of unique, positive ints in increasing order, each between 1 and n_classes - 1 = 19, got [12, 5]")
  expect_error(fn() = A(16, 20, [5, 20]), "each between 1 and n_classes - 1 = 19")
  expect_error(fn() = A(16, 20, [5, 5]), "unique")
  expect_error(fn() = m(x, tensor([0, 1, 2, 3, 4, 5, 6, 7, 20])), "target values must be in [0, 19], got values in [0, 20]")
  expect_error(fn() = m(x, tensor([0, 1])), "a 1-D target needs a 2-D input with as many rows")
  expect_error(fn() = m(x, x), "target must be 0-D or 1-D")
  expect_error(fn() = m(x[0], tensor([1])), "a 1-D target needs a 2-D input")
  expect_error(fn() = m(x, zeros(9)), "target must be an integer tensor")
  expect_error(fn() = m.log_prob(randn(3, 5)), "input must be a tensor [N, in_features = 16], got shape [3, 5]")
}
