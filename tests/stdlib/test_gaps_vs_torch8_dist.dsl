# Round 8 against PyTorch 1.13, the torch.distributions nabla lacked
# (stdlib/_distributions_more.dsl): LogNormal, HalfNormal, Cauchy, Gumbel, StudentT, Chi2,
# Poisson and Geometric. Each check loads tests/stdlib/reference/vs_torch8.safetensors
# (written by tests/stdlib/reference/make_vs_torch8.py, each case's torch call under the
# same name) and compares dtypes, values and the gradients of sum(y0 * g); the draws are
# checked by their moments.
import "vs_torch5_check.inc" as v5
import distributions

let D = distributions
let ref = load("tests/stdlib/reference/vs_torch8.safetensors")
fn check(name, n, f, rtol=1e-10, atol=1e-12) = v5.check_in(ref, name, n, f, rtol, atol)
let q = tensor([0.1, 0.5, 0.95], dtype=f64)

fn full(d, v, cdf=true) = [d.log_prob(v), d.entropy(), d.mean, d.variance] + ([d.cdf(v), d.icdf(q)] if cdf else [])

test "LogNormal and HalfNormal: log_prob, cdf, icdf, entropy, moments, gradients" {
  check("lognormal", 3, fn(xs) = full(D.LogNormal(xs[0], xs[1]), xs[2]) + [D.LogNormal(xs[0], xs[1]).mode])
  check("lognormal_cdf", 3, fn(xs) = D.LogNormal(xs[0], xs[1]).cdf(xs[2]))
  check("lognormal_entropy", 2, fn(xs) = D.LogNormal(xs[0], xs[1]).entropy())
  check("halfnormal", 2, fn(xs) = full(D.HalfNormal(xs[0]), xs[1]))
  check("halfnormal_cdf", 2, fn(xs) = D.HalfNormal(xs[0]).cdf(xs[1]))
}

test "Cauchy and Gumbel: log_prob, cdf, icdf, entropy, moments, gradients" {
  check("cauchy", 3, fn(xs) = [D.Cauchy(xs[0], xs[1]).log_prob(xs[2]), D.Cauchy(xs[0], xs[1]).entropy(), D.Cauchy(xs[0], xs[1]).cdf(xs[2]), D.Cauchy(xs[0], xs[1]).icdf(q)])
  check("cauchy_cdf", 3, fn(xs) = D.Cauchy(xs[0], xs[1]).cdf(xs[2]))
  check("gumbel", 3, fn(xs) = full(D.Gumbel(xs[0], xs[1]), xs[2]))
  check("gumbel_cdf", 3, fn(xs) = D.Gumbel(xs[0], xs[1]).cdf(xs[2]))
  check("gumbel_entropy", 1, fn(xs) = D.Gumbel(0.0, xs[0]).entropy())
  let c = D.Cauchy(0.0, ones(2, dtype=f64))
  expect(bool(c.mean.isnan().all()) and bool((c.variance == float("inf")).all()), "Cauchy has no mean and an infinite variance")
}

test "StudentT and Chi2: log_prob, entropy, moments (NaN and inf where undefined), gradients" {
  check("studentt", 4, fn(xs) = [D.StudentT(xs[0], xs[1], xs[2]).log_prob(xs[3]), D.StudentT(xs[0], xs[1], xs[2]).entropy(),
                                  D.StudentT(xs[0], xs[1], xs[2]).mean, D.StudentT(xs[0], xs[1], xs[2]).variance])
  check("studentt_entropy", 2, fn(xs) = D.StudentT(xs[0], 0.0, xs[1]).entropy())
  check("chi2", 2, fn(xs) = [D.Chi2(xs[0]).log_prob(xs[1]), D.Chi2(xs[0]).entropy(), D.Chi2(xs[0]).mean, D.Chi2(xs[0]).variance])
  check("chi2_entropy", 1, fn(xs) = D.Chi2(xs[0]).entropy())
  let v = D.StudentT(tensor([1.5, 2.0, 3.0], dtype=f64)).variance
  expect(v[0].item() == float("inf") and v[1].item() == float("inf") and abs(v[2].item() - 3.0) < 1e-12, "variance: inf for 1 < df <= 2")
}

test "Poisson and Geometric: log_prob, entropy, moments, gradients" {
  check("poisson", 2, fn(xs) = [D.Poisson(xs[0]).log_prob(xs[1]), D.Poisson(xs[0]).mean, D.Poisson(xs[0]).variance])
  check("geometric", 2, fn(xs) = [D.Geometric(probs=xs[0]).log_prob(xs[1]), D.Geometric(probs=xs[0]).mean, D.Geometric(probs=xs[0]).variance])
  check("geometric_entropy", 1, fn(xs) = D.Geometric(probs=xs[0]).entropy())
  check("geometric_logits", 2, fn(xs) = D.Geometric(logits=xs[0]).log_prob(xs[1]))
  expect(D.Poisson(0.0).log_prob(tensor(0.0)).item() == 0.0, "Poisson(0) puts all its mass on 0")
}

test "kl_divergence of two of each kind" {
  check("kl_lognormal", 4, fn(xs) = D.kl_divergence(D.LogNormal(xs[0], xs[1]), D.LogNormal(xs[2], xs[3])))
  check("kl_halfnormal", 2, fn(xs) = D.kl_divergence(D.HalfNormal(xs[0]), D.HalfNormal(xs[1])))
  check("kl_cauchy", 4, fn(xs) = D.kl_divergence(D.Cauchy(xs[0], xs[1]), D.Cauchy(xs[2], xs[3])))
  check("kl_gumbel", 4, fn(xs) = D.kl_divergence(D.Gumbel(xs[0], xs[1]), D.Gumbel(xs[2], xs[3])))
  check("kl_chi2", 2, fn(xs) = D.kl_divergence(D.Chi2(xs[0]), D.Chi2(xs[1])))
  check("kl_poisson", 2, fn(xs) = D.kl_divergence(D.Poisson(xs[0]), D.Poisson(xs[1])))
  check("kl_geometric", 2, fn(xs) = D.kl_divergence(D.Geometric(probs=xs[0]), D.Geometric(probs=xs[1])))
  expect_error(fn() = D.kl_divergence(D.StudentT(2.0), D.StudentT(3.0)), "no formula for the pair (StudentT, StudentT)")
}

# Note [Poisson draws]: Knuth's products below a rate of 10, PTRS above.
test "the draws have their laws; rsample's gradients average to the mean's derivative" {
  manual_seed(0)
  let rate = tensor([0.0, 0.5, 4.0, 9.9, 10.0, 15.0, 200.0], dtype=f64)
  let ps = D.Poisson(rate).sample([20000])
  expect(bool((ps == ps.floor()).all()) and bool((ps >= 0).all()), "Poisson draws are counts")
  expect_close(ps.mean(0), rate, rtol=0.03, atol=0.02)
  expect_close(ps.var(0), rate, rtol=0.06, atol=0.02)
  let g = D.Geometric(probs=tensor([0.2, 0.7], dtype=f64)).sample([20000])
  expect_close(g.mean(0), tensor([4.0, 3.0 / 7.0], dtype=f64), rtol=0.05)
  for d in [D.LogNormal(0.1, tensor([0.3, 0.6], dtype=f64)), D.HalfNormal(tensor([0.5, 2.0], dtype=f64)),
            D.Gumbel(0.3, tensor([1.0, 2.0], dtype=f64)), D.Chi2(tensor([1.0, 6.0], dtype=f64)),
            D.StudentT(tensor([5.0, 9.0], dtype=f64), 0.5, 2.0)] {
    let s = d.rsample([40000])
    expect_close(s.mean(0), d.mean, rtol=0.05, atol=0.03)
    expect_close(s.var(0), d.variance, rtol=0.1)
  }
  let c = D.Cauchy(1.0, tensor([2.0], dtype=f64)).sample([20000])
  expect_close(c.median(0).values, tensor([1.0], dtype=f64), atol=0.1)
  # Chi2's and StudentT's rsample are reparameterized through the Gamma draws
  let df = tensor([3.0, 8.0], dtype=f64, requires_grad=true)
  D.Chi2(df).rsample([20000]).mean(0).sum().backward()
  expect_close(df.grad, ones(2, dtype=f64), rtol=0.05)
  let sc = tensor([2.0], dtype=f64, requires_grad=true)
  D.StudentT(tensor([6.0], dtype=f64), 0.0, sc).rsample([20000]).abs().mean().backward()
  expect(sc.grad != none and sc.grad.item() > 0, "StudentT's scale gets a gradient")
}

test "bad parameters and values are named at the call" {
  expect_error(fn() = D.LogNormal(0.0, -1.0), "distributions.LogNormal(): scale must be above 0, got -1.0")
  expect_error(fn() = D.LogNormal(0.0, 1.0).log_prob(tensor([-1.0])), "value must be above 0")
  expect_error(fn() = D.HalfNormal("a"), "scale must be a tensor or a number, got str")
  expect_error(fn() = D.StudentT(tensor([0.0])), "df must be above 0")
  expect_error(fn() = D.Poisson(tensor([-1.0])), "rate must be at least 0")
  expect_error(fn() = D.Poisson(2.0).log_prob(tensor([1.5])), "a count (an integer at least 0)")
  expect_error(fn() = D.Geometric(probs=tensor([0.0])), "probs must be in (0, 1]")
  expect_error(fn() = D.Geometric(probs=0.5, logits=0.0), "exactly one of probs or logits")
  expect_error(fn() = D.Chi2(1.0).rsample([-2]), "sample_shape must be a list of sizes >= 0")
  expect(D.HalfNormal(1.0, validate_args=false).log_prob(tensor([-1.0])).item() == -float("inf"), "validate_args=false: -inf outside")
}
