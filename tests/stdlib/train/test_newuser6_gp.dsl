# Gaussian-process regression as a PyTorch user writes it: an RBF kernel with learnable
# log-lengthscale, log-signal and log-noise, the negative log marginal likelihood from
# linalg.cholesky and torch.cholesky_solve (alpha = K^-1 y, log det K = 2 sum log diag L),
# hyperparameters fitted by LBFGS with line_search_fn="strong_wolfe" and a closure, and
# the posterior mean and variance (solve_triangular). The likelihood and its gradients,
# the hyperparameters after each of two LBFGS steps (with the evaluations they took),
# and the predictions are checked against PyTorch 1.13 at f64
# (tests/stdlib/reference/make_newuser6.py), as are cholesky_solve (batched, with its
# gradient) and cholesky_inverse; then an exact GP fits a noisy sine.
import math
import nn
import optim
import linalg

let ref = load("tests/stdlib/reference/newuser6.safetensors")

model GP() {
  log_lengthscale = nn.Parameter(tensor(0.0))
  log_signal = nn.Parameter(tensor(0.0))
  log_noise = nn.Parameter(tensor(-1.0))
  kernel(a, b) {
    let d2 = (a.unsqueeze(1) - b.unsqueeze(0)).pow(2).sum(-1)
    return self.log_signal.exp() ** 2 * exp(-0.5 * d2 / self.log_lengthscale.exp() ** 2)
  }
  gram(x) = self.kernel(x, x) + (self.log_noise.exp() ** 2 + 1e-6) * eye(x.shape[0], dtype=x.dtype)
  nll(x, y) {
    let n = x.shape[0]
    let L = linalg.cholesky(self.gram(x))
    let alpha = linalg.cholesky_solve(y.unsqueeze(1), L)
    return (0.5 * (y.unsqueeze(1) * alpha).sum() + log(diagonal(L)).sum() + 0.5 * n * math.log(2 * math.pi)) / n
  }
  predict(x, y, xs) {
    let L = linalg.cholesky(self.gram(x))
    let Ks = self.kernel(x, xs)
    let mean = Ks.T @ linalg.cholesky_solve(y.unsqueeze(1), L)
    let v = linalg.solve_triangular(L, Ks, upper=false)
    return (mean.squeeze(1), self.log_signal.exp() ** 2 - (v * v).sum(0))
  }
}

fn fit_lbfgs(gp, x, y, steps) {
  let opt = optim.LBFGS(gp.parameters(), lr=1, max_iter=20, history_size=10, line_search_fn="strong_wolfe")
  fn closure() {
    opt.zero_grad()
    let loss = gp.nll(x, y)
    loss.backward()
    return loss
  }
  let firsts = []
  for s in range(steps) { firsts.append(opt.step(closure)) }
  return (opt, firsts)
}

test "the log marginal likelihood, its gradients, two strong-Wolfe LBFGS steps and the posterior match PyTorch" {
  let gp = GP().double()
  let (x, y) = (ref["gp.x"], ref["gp.y"])
  let loss = gp.nll(x, y)
  expect_close(loss, ref["gp.nll"], rtol=1e-12, atol=1e-14)
  loss.backward()
  for (name, p) in gp.named_parameters() { expect_close(p.grad, ref["gp.grad." + name], rtol=1e-10, atol=1e-13) }
  let opt = optim.LBFGS(gp.parameters(), lr=1, max_iter=20, history_size=10, line_search_fn="strong_wolfe")
  fn closure() {
    opt.zero_grad()
    let l = gp.nll(x, y)
    l.backward()
    return l
  }
  let first = [opt.step(closure)]
  expect_close(stack([p.detach() for p in gp.parameters()]), ref["gp.step1"], rtol=1e-8, atol=1e-10)
  let state = opt.state[0]   # PyTorch: opt.state[p]; here the state of parameter 0
  expect(state["func_evals"] == ref["gp.func_evals1"].item() and state["n_iter"] == ref["gp.n_iter1"].item(),
         f"evaluations {state['func_evals']}, iterations {state['n_iter']}")
  first.append(opt.step(closure))
  expect_close(stack([f.detach() for f in first]), ref["gp.first_losses"], rtol=1e-10, atol=1e-12)
  expect_close(stack([p.detach() for p in gp.parameters()]), ref["gp.step2"], rtol=1e-7, atol=1e-9)
  expect_close(gp.nll(x, y), ref["gp.final_nll"], rtol=1e-10, atol=1e-12)
  let (mean, var) = gp.predict(x, y, ref["gp.xs"])
  expect_close(mean, ref["gp.mean"], rtol=1e-7, atol=1e-9)
  expect_close(var, ref["gp.var"], rtol=1e-7, atol=1e-9)
}

test "cholesky_solve (batched B, its gradient) and cholesky_inverse match PyTorch and solve" {
  let S = ref["cs.S"]
  let L = linalg.cholesky(S)
  let B = ref["cs.B"].clone().requires_grad_()
  let X = linalg.cholesky_solve(B, L)
  expect_close(X, ref["cs.X"], rtol=1e-11, atol=1e-13)
  (X * ref["cs.g"]).sum().backward()
  expect_close(B.grad, ref["cs.grad_B"], rtol=1e-11, atol=1e-13)
  expect_close(linalg.cholesky_inverse(L), ref["cs.inverse"], rtol=1e-11, atol=1e-13)
  expect_close(linalg.cholesky_solve(ref["cs.B"], L.T, upper=true), ref["cs.X"], rtol=1e-11, atol=1e-13)
  expect_close(cholesky_solve(ref["cs.B"], L), ref["cs.X"], rtol=1e-11, atol=1e-13)   # torch.cholesky_solve
  expect_close(S @ X.detach(), ref["cs.B"], rtol=1e-10, atol=1e-12)
  # the gradient to a factor that came from cholesky reaches the matrix as PyTorch's does
  let A = S.clone().requires_grad_()
  let b = ref["cs.B"][0]
  let (gA,) = grad((linalg.cholesky_solve(b, linalg.cholesky(A)) * ref["cs.g"][0]).sum(), [A])
  let (gA_solve,) = grad((linalg.solve(A, b) * ref["cs.g"][0]).sum(), [A])
  expect_close(gA + gA.T, gA_solve + gA_solve.T, rtol=1e-9, atol=1e-11)
}

test "cholesky_solve refuses a factor of the wrong size, naming both shapes" {
  expect_error(fn() = linalg.cholesky_solve(ones(3, 1), eye(2)), "B of shape [3, 1] must have 2 rows")
  expect_error(fn() = linalg.cholesky_solve(ones(2, 1), ones(2, 3)), "square")
}

test "an exact GP fitted by LBFGS follows a noisy sine and is unsure far from the data" {
  manual_seed(0)
  let x = linspace(-3, 3, 25, dtype=f64).unsqueeze(1)
  let y = sin(2 * x).squeeze(1) + 0.05 * randn(25, dtype=f64)
  let gp = GP().double()
  let before = gp.nll(x, y).item()
  fit_lbfgs(gp, x, y, 3)
  let after = gp.nll(x, y).item()
  expect(after < before - 0.3, f"nll {before} -> {after}")
  let xs = tensor([[-1.0], [0.5], [8.0]], dtype=f64)
  let (mean, var) = no_grad_predict(gp, x, y, xs)
  expect_close(mean[:2], sin(2 * xs[:2, 0]), atol=0.1)
  expect(var[2].item() > 10 * var[1].item(), f"variance far away {var[2].item()} near {var[1].item()}")
  expect(gp.log_noise.exp().item() < 0.2, f"noise {gp.log_noise.exp().item()}")
}

fn no_grad_predict(gp, x, y, xs) {
  let out = none
  no_grad { out = gp.predict(x, y, xs) }
  return out
}
