# Round 7 against PyTorch 1.13: torch.special's functions, which nabla lacked (`import
# special`, stdlib/special.dsl): erfc, erfcx, erfinv, ndtr, log_ndtr and ndtri into their
# far tails, the Bessel functions i0, i0e, i1 and i1e, Hurwitz's zeta, gammainc and
# gammaincc, multigammaln, xlog1py and entr (torch.erfc, erfinv, i0 and mvlgamma are the
# module's functions under their global names and as methods), torch.special's names
# for the builtins; the distributions Uniform, Exponential, Laplace, MultivariateNormal,
# Independent, Gamma, Beta and Dirichlet, and kl_divergence. Each check loads
# tests/stdlib/reference/vs_torch7.safetensors (written by
# tests/stdlib/reference/make_vs_torch7.py, where each case's torch call is, under the
# same name) and compares dtypes, values and the gradients of sum(y0 * g).
import math
import special
import distributions as D
import "vs_torch5_check.inc" as v5

let ref = load("tests/stdlib/reference/vs_torch7.safetensors")
fn check(name, n, f, rtol=1e-10, atol=1e-12) = v5.check_in(ref, name, n, f, rtol, atol)

test "erfc, erfcx and erfinv match PyTorch's values and gradients, into the tails" {
  check("erfc", 1, fn(xs) = special.erfc(xs[0]))
  check("torch_erfc", 1, fn(xs) = erfc(xs[0]))
  check("torch_erfc", 1, fn(xs) = xs[0].erfc())
  check("erfcx", 1, fn(xs) = special.erfcx(xs[0]))
  check("erfinv", 1, fn(xs) = special.erfinv(xs[0]), rtol=1e-9)
  check("torch_erfinv", 1, fn(xs) = erfinv(xs[0]), rtol=1e-9)
  check("torch_erfinv", 1, fn(xs) = xs[0].erfinv(), rtol=1e-9)
  check("erfinv_edges", 1, fn(xs) = special.erfinv(xs[0]))
}

# Nearer 1, PyTorch's erfinv loses digits (erfinv(1 - 1e-10) is 1e-8 off: erfc of it is
# 0.99999968e-10); nabla's Newton steps on erfc keep them.
test "erfinv near +-1 inverts erfc to full precision" {
  let d = tensor([1e-10, 1e-14, 3e-7], dtype=f64)
  expect_close(special.erfc(special.erfinv(1.0 - d)), (1.0 - d).neg() + 1.0, rtol=1e-13)
  expect_close(special.erfc(-special.erfinv(d - 1.0)), (d - 1.0) + 1.0, rtol=1e-13)
}

test "ndtr, log_ndtr and ndtri match PyTorch's values and gradients, into the tails" {
  check("ndtr", 1, fn(xs) = special.ndtr(xs[0]))
  check("log_ndtr", 1, fn(xs) = special.log_ndtr(xs[0]))
  check("ndtri", 1, fn(xs) = special.ndtri(xs[0]), rtol=1e-9)
  check("ndtri_edges", 1, fn(xs) = special.ndtri(xs[0]))
}

test "the error function's family in f32" {
  check("erfc_f32", 1, fn(xs) = special.erfc(xs[0]), rtol=1e-5, atol=1e-30)
  check("log_ndtr_f32", 1, fn(xs) = special.log_ndtr(xs[0]), rtol=1e-4, atol=1e-6)
}

test "i0, i0e, i1 and i1e on both sides of the series' range, negative and large" {
  check("i0", 1, fn(xs) = special.i0(xs[0]))
  check("torch_i0", 1, fn(xs) = i0(xs[0]))
  check("torch_i0", 1, fn(xs) = xs[0].i0())
  check("i1", 1, fn(xs) = special.i1(xs[0]))
  check("i0e", 1, fn(xs) = special.i0e(xs[0]))
  check("i1e", 1, fn(xs) = special.i1e(xs[0]))
  check("i0_f32", 1, fn(xs) = special.i0(xs[0]), rtol=1e-5)
  # near the largest float: 2 pi |x| overflowed, and i0 was 0, i0e 0 (PyTorch: inf, 3.99e-155)
  let big = tensor([1e308, -1e308], dtype=f64)
  expect(special.i0(big).tolist() == [float("inf"), float("inf")] and special.i1(big).tolist() == [float("inf"), -float("inf")], "i0, i1 overflow to inf")
  expect_close(special.i0e(big), tensor([3.989422804014327e-155, 3.989422804014327e-155], dtype=f64), rtol=1e-12)
}

test "zeta, multigammaln, xlog1py and entr" {
  let s = ref["zeta_q.s"]
  check("zeta_q", 1, fn(xs) = special.zeta(s, xs[0]))
  check("zeta_edges", 2, fn(xs) = special.zeta(xs[0], xs[1]))
  let ga = ref["gammainc.a"]
  check("gammainc", 1, fn(xs) = special.gammainc(ga, xs[0]), rtol=1e-12)
  check("gammaincc", 1, fn(xs) = special.gammaincc(ga, xs[0]), rtol=1e-12)
  check("gammainc_edges", 2, fn(xs) = special.gammainc(xs[0], xs[1]))
  check("gammainc_large", 2, fn(xs) = special.gammainc(xs[0], xs[1]), rtol=1e-12)
  for p in [1, 2, 3] { check(f"multigammaln_{p}", 1, fn(xs) = special.multigammaln(xs[0], p)) }
  check("mvlgamma", 1, fn(xs) = mvlgamma(xs[0], 2))
  check("mvlgamma", 1, fn(xs) = xs[0].mvlgamma(2))
  check("xlog1py", 2, fn(xs) = special.xlog1py(xs[0], xs[1]))
  check("xlog1py_number", 1, fn(xs) = special.xlog1py(xs[0], 2.0))
  check("xlog1py_zero", 2, fn(xs) = special.xlog1py(xs[0], xs[1]))
  check("entr", 1, fn(xs) = special.entr(xs[0]))
  check("entr_edges", 1, fn(xs) = special.entr(xs[0]))
}

# The composites differentiate twice through their ops: the second derivatives against
# the closed forms (erfc'' = 4x/sqrt(pi) e^-x^2, i0'' = i0 - i1/x, ndtri'' = ndtri / pdf^2).
test "second derivatives of erfc, i0 and ndtri" {
  let x = tensor([-1.0, 0.5, 2.5, 4.0], dtype=f64, requires_grad=true)
  let (g1,) = grad(special.erfc(x).sum(), [x], create_graph=true)
  expect_close(g1, -2.0 / math.sqrt(math.pi) * exp(-x * x), rtol=1e-12)
  let (g2,) = grad(g1.sum(), [x])
  expect_close(g2, 4.0 * x / math.sqrt(math.pi) * exp(-x * x), rtol=1e-10)
  let b = tensor([0.7, 3.0, 25.0], dtype=f64, requires_grad=true)
  let (b1,) = grad(special.i0(b).sum(), [b], create_graph=true)
  expect_close(b1, special.i1(b), rtol=1e-12)
  let (b2,) = grad(b1.sum(), [b])
  expect_close(b2, special.i0(b) - special.i1(b) / b, rtol=1e-10)
  let p = tensor([0.01, 0.4, 0.9], dtype=f64, requires_grad=true)
  let (p1,) = grad(special.ndtri(p).sum(), [p], create_graph=true)
  let y = special.ndtri(p)
  let pdf = exp(-y * y / 2.0) / math.sqrt(2.0 * math.pi)
  expect_close(p1, 1.0 / pdf, rtol=1e-10)
  let (p2,) = grad(p1.sum(), [p])
  expect_close(p2, y / (pdf * pdf), rtol=1e-8)
}

test "torch.special's names for the builtins" {
  let x = tensor([0.2, 0.5, 1.5, 3.0], dtype=f64)
  expect_close(special.expit(x), sigmoid(x))
  expect_close(special.gammaln(x), lgamma(x))
  expect_close(special.psi(x), digamma(x))
  expect_close(special.digamma(x), digamma(x))
  expect_close(special.polygamma(2, x), polygamma(2, x))
  expect_close(special.erf(x), erf(x))
  expect_close(special.expm1(x), expm1(x))
  expect_close(special.exp2(x), exp2(x))
  expect_close(special.log1p(x), log1p(x))
  expect_close(special.xlogy(x, x), xlogy(x, x))
  expect_close(special.logit(x / 4.0), logit(x / 4.0))
  expect_close(special.logit(x, eps=0.1), logit(x, eps=0.1))
  expect_close(special.sinc(x), sinc(x))
  expect_close(special.round(x, decimals=1), round(x, decimals=1))
  expect_close(special.softmax(x, 0), softmax(x, 0))
  expect_close(special.log_softmax(x, 0), log_softmax(x, 0))
  expect_close(special.logsumexp(x, 0), logsumexp(x, 0))
  expect(special.erfc(tensor([1, 2])).dtype == f32, "an integer input computes in f32")
}

fn moments(d, value, q) = [d.log_prob(value), d.cdf(value), d.entropy(), d.mean, d.variance, d.stddev, d.icdf(q)]
let q = tensor([0.1, 0.5, 0.95], dtype=f64)

test "Uniform, Exponential and Laplace: log_prob, cdf, entropy, moments, icdf and their gradients" {
  check("uniform", 3, fn(xs) = moments(D.Uniform(xs[0], xs[1]), xs[2], q))
  check("uniform_cdf", 3, fn(xs) = D.Uniform(xs[0], xs[1]).cdf(xs[2]))
  check("uniform_entropy", 2, fn(xs) = D.Uniform(xs[0], xs[1]).entropy())
  check("exponential", 2, fn(xs) = moments(D.Exponential(xs[0]), xs[1], q))
  check("exponential_cdf", 2, fn(xs) = D.Exponential(xs[0]).cdf(xs[1]))
  check("exponential_entropy", 1, fn(xs) = D.Exponential(xs[0]).entropy())
  check("laplace", 3, fn(xs) = moments(D.Laplace(xs[0], xs[1]), xs[2], q))
  check("laplace_cdf", 3, fn(xs) = D.Laplace(xs[0], xs[1]).cdf(xs[2]))
  check("laplace_entropy", 1, fn(xs) = D.Laplace(0.0, xs[0]).entropy())
  check("laplace_icdf", 2, fn(xs) = D.Laplace(xs[0], xs[1]).icdf(q))
}

test "kl_divergence of each pair of the same kind, with its infinite cases" {
  check("kl_normal", 4, fn(xs) = D.kl_divergence(D.Normal(xs[0], xs[1]), D.Normal(xs[2], xs[3])))
  check("kl_exponential", 2, fn(xs) = D.kl_divergence(D.Exponential(xs[0]), D.Exponential(xs[1])))
  check("kl_laplace", 4, fn(xs) = D.kl_divergence(D.Laplace(xs[0], xs[1]), D.Laplace(xs[2], xs[3])))
  check("kl_uniform", 4, fn(xs) = D.kl_divergence(D.Uniform(xs[0], xs[1]), D.Uniform(xs[2], xs[3])))
  check("kl_bernoulli", 2, fn(xs) = D.kl_divergence(D.Bernoulli(probs=xs[0]), D.Bernoulli(probs=xs[1])))
  check("kl_categorical", 2, fn(xs) = D.kl_divergence(D.Categorical(logits=xs[0]), D.Categorical(logits=xs[1])))
  check("kl_categorical_zero", 2, fn(xs) = D.kl_divergence(D.Categorical(probs=xs[0]), D.Categorical(probs=xs[1])))
}

# rsample is reparameterized: each draw is low + u (high - low), -log1p(-u) / rate and
# loc - scale sign(u) log1p(-|u|), so the gradients are the draw's own partials.
test "rsample of Uniform, Exponential and Laplace: shapes, supports and gradients" {
  manual_seed(7)
  let low = tensor([0.0, -2.0], dtype=f64, requires_grad=true)
  let high = tensor([1.0, 3.0], dtype=f64, requires_grad=true)
  let u = D.Uniform(low, high).rsample([500])
  expect(list(u.shape) == [500, 2] and u.dtype == f64, f"Uniform.rsample shape {u.shape}")
  expect(bool(((u >= low) & (u < high)).all()), "Uniform draws in [low, high)")
  u.sum().backward()
  let frac = ((u - low) / (high - low)).detach()
  expect_close(high.grad, frac.sum(0), rtol=1e-12)
  expect_close(low.grad, 500.0 - frac.sum(0), rtol=1e-12)
  let rate = tensor([0.5, 4.0], dtype=f64, requires_grad=true)
  let e = D.Exponential(rate).rsample([4000])
  expect(bool((e >= 0).all()), "Exponential draws at least 0")
  expect_close(e.mean(0), 1.0 / rate.detach(), rtol=0.1)
  e.sum().backward()
  expect_close(rate.grad, -(e.detach() / rate.detach()).sum(0), rtol=1e-12)
  let scale = tensor([1.0, 0.1], dtype=f64, requires_grad=true)
  let l = D.Laplace(tensor([3.0, -1.0], dtype=f64), scale).rsample([4000])
  expect_close(l.mean(0), tensor([3.0, -1.0], dtype=f64), atol=0.1)
  expect_close(l.var(0), 2 * scale.detach() ** 2, rtol=0.15)
  expect(list(D.Exponential(2.0).sample().shape) == [] and list(D.Laplace(0.0, 1.0).sample([3]).shape) == [3], "a number's batch is []")
}

test "MultivariateNormal from each matrix, a batch, kl_divergence; Independent" {
  check("mvn_cov", 3, fn(xs) = [D.MultivariateNormal(xs[0], covariance_matrix=xs[1]).log_prob(xs[2]), D.MultivariateNormal(xs[0], covariance_matrix=xs[1]).entropy()], rtol=1e-9)
  check("mvn_tril", 3, fn(xs) = [D.MultivariateNormal(xs[0], scale_tril=xs[1]).log_prob(xs[2]), D.MultivariateNormal(xs[0], scale_tril=xs[1]).variance], rtol=1e-9)
  check("mvn_precision", 3, fn(xs) = D.MultivariateNormal(xs[0], precision_matrix=xs[1]).log_prob(xs[2]), rtol=1e-9)
  check("mvn_entropy", 1, fn(xs) = D.MultivariateNormal(zeros(3, dtype=f64), scale_tril=xs[0]).entropy())
  check("mvn_batch", 3, fn(xs) = D.MultivariateNormal(xs[0], scale_tril=xs[1]).log_prob(xs[2]), rtol=1e-9)
  check("mvn_kl", 4, fn(xs) = D.kl_divergence(D.MultivariateNormal(xs[0], scale_tril=xs[1]), D.MultivariateNormal(xs[2], scale_tril=xs[3])), rtol=1e-9)
  check("independent", 3, fn(xs) = [D.Independent(D.Normal(xs[0], xs[1]), 1).log_prob(xs[2]), D.Independent(D.Normal(xs[0], xs[1]), 1).entropy()])
  check("independent_2", 3, fn(xs) = D.Independent(D.Normal(xs[0], xs[1]), 2).log_prob(xs[2]))
  check("independent_kl", 4, fn(xs) = D.kl_divergence(D.Independent(D.Normal(xs[0], xs[1]), 1), D.Independent(D.Normal(xs[2], xs[3]), 1)))
  manual_seed(3)
  let L = tensor([[1.0, 0.0], [0.6, 0.5]], dtype=f64)
  let s = D.MultivariateNormal(tensor([2.0, -1.0], dtype=f64), scale_tril=L).sample([20000])
  expect_close(s.mean(0), tensor([2.0, -1.0], dtype=f64), atol=0.05)
  let c = s - s.mean(0)
  expect_close(c.T @ c / 20000.0, L @ L.T, atol=0.05)
  let ind = D.Independent(D.Normal(zeros([4, 3]), ones([4, 3])), 1)
  expect(ind.batch_shape == [4] and ind.event_shape == [3] and list(ind.sample([2]).shape) == [2, 4, 3], "Independent's shapes")
}

fn moments4(d, value) = [d.log_prob(value), d.entropy(), d.mean, d.variance]

test "Gamma, Beta and Dirichlet: log_prob, entropy, moments, kl_divergence and gradients" {
  check("gamma", 3, fn(xs) = moments4(D.Gamma(xs[0], xs[1]), xs[2]))
  check("gamma_entropy", 2, fn(xs) = D.Gamma(xs[0], xs[1]).entropy())
  check("beta", 3, fn(xs) = moments4(D.Beta(xs[0], xs[1]), xs[2]))
  check("beta_entropy", 2, fn(xs) = D.Beta(xs[0], xs[1]).entropy())
  check("dirichlet", 2, fn(xs) = moments4(D.Dirichlet(xs[0]), xs[1]))
  check("dirichlet_entropy", 1, fn(xs) = D.Dirichlet(xs[0]).entropy())
  check("kl_gamma", 4, fn(xs) = D.kl_divergence(D.Gamma(xs[0], xs[1]), D.Gamma(xs[2], xs[3])))
  check("kl_beta", 4, fn(xs) = D.kl_divergence(D.Beta(xs[0], xs[1]), D.Beta(xs[2], xs[3])))
  check("kl_dirichlet", 2, fn(xs) = D.kl_divergence(D.Dirichlet(xs[0]), D.Dirichlet(xs[1])))
  # at the support's edge with a concentration of 1 the density is finite: xlogy's 0
  # (PyTorch 2's value; PyTorch 1.13 computed log(0) * 0 = NaN)
  expect(D.Beta(1.0, 1.0).log_prob(tensor([0.0, 1.0])).tolist() == [0.0, 0.0], "Beta(1, 1) at 0 and 1")
}

# Note [Gamma draws]: Marsaglia and Tsang's method, checked by its moments.
test "Gamma, Beta and Dirichlet samples have their laws" {
  manual_seed(0)
  let g = D.Gamma(tensor([0.5, 2.0, 9.0], dtype=f64), tensor([1.0, 3.0, 0.5], dtype=f64))
  let s = g.sample([20000])
  expect(list(s.shape) == [20000, 3] and bool((s > 0).all()), "Gamma draws are positive")
  expect_close(s.mean(0), g.mean, rtol=0.05)
  expect_close(s.var(0), g.variance, rtol=0.1)
  let b = D.Beta(tensor([0.5, 2.0], dtype=f64), tensor([3.0, 2.0], dtype=f64)).sample([20000])
  expect(bool(((b >= 0) & (b <= 1)).all()), "Beta draws in [0, 1]")
  expect_close(b.mean(0), tensor([0.5 / 3.5, 0.5], dtype=f64), atol=0.01)
  let d = D.Dirichlet(tensor([1.0, 2.0, 3.0], dtype=f64)).sample([5000])
  expect_close(d.sum(-1), ones(5000, dtype=f64))
  expect_close(d.mean(0), tensor([1.0, 2.0, 3.0], dtype=f64) / 6.0, atol=0.02)
  # (rsample, reparameterized since round 8: tests/stdlib/test_gaps_vs_torch8.dsl)
}
