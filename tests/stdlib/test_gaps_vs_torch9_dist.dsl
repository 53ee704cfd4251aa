# Round 9's distributions against PyTorch 1.13 (tests/stdlib/reference/vs_torch9.safetensors,
# written by tests/stdlib/reference/make_vs_torch9.py): TransformedDistribution and its
# transforms (stdlib/_distributions_transformed.dsl), Pareto, Weibull and HalfCauchy on it,
# MixtureSameFamily (stdlib/_distributions_mixture.dsl), OneHotCategorical, Multinomial and
# the relaxed ones (stdlib/_distributions_categorical.dsl), NegativeBinomial and two more
# kl_divergence pairs: log_prob, cdf, icdf and moments with gradients in the parameters
# and the value, draws by their moments.
import "vs_torch5_check.inc" as v5
import distributions
import math

let D = distributions
let T = distributions.transforms
let ref = load("tests/stdlib/reference/vs_torch9.safetensors")
fn check(name, n, f, rtol=1e-10, atol=1e-12) = v5.check_in(ref, name, n, f, rtol, atol)

test "TransformedDistribution: through ExpTransform it is LogNormal, as PyTorch's" {
  fn exp_case(xs) {
    let d = D.TransformedDistribution(D.Normal(xs[0], xs[1]), [D.ExpTransform()])
    return [d.log_prob(xs[2]), d.cdf(xs[2]), d.icdf(xs[3]), D.LogNormal(xs[0], xs[1]).log_prob(xs[2])]
  }
  check("td_exp", 4, exp_case)
}

test "TransformedDistribution: a decreasing affine map and a sigmoid (cdf is 1 - F), a composition, tanh, event_dim 1" {
  fn affine_sigmoid(xs) {
    let d = D.TransformedDistribution(D.Normal(xs[0], xs[1]), [D.AffineTransform(0.5, -2.0), D.SigmoidTransform()])
    return [d.log_prob(xs[2]), d.cdf(xs[2]), d.icdf(xs[3])]
  }
  check("td_affine_sigmoid", 4, affine_sigmoid)
  fn compose(xs) {
    let d = D.TransformedDistribution(D.Normal(xs[0], xs[1]), T.ComposeTransform([T.AffineTransform(xs[2], xs[3]), T.ExpTransform()]))
    return [d.log_prob(xs[4]), d.cdf(xs[4])]
  }
  check("td_compose", 5, compose)
  check("td_tanh", 3, fn(xs) = D.TransformedDistribution(D.Normal(xs[0], xs[1]), T.TanhTransform()).log_prob(xs[2]))
  check("td_event", 5, fn(xs) = D.TransformedDistribution(D.Normal(xs[0], xs[1]), T.AffineTransform(xs[2], xs[3], event_dim=1)).log_prob(xs[4]))
}

test "transforms: forward, inverse and log_abs_det_jacobian equal PyTorch's" {
  fn each(t) = fn(xs) = [t(xs[0]), t.inv(t(xs[0])), t.log_abs_det_jacobian(xs[0], t(xs[0]))]
  check("tf_exp", 1, each(T.ExpTransform()))
  check("tf_sigmoid", 1, each(T.SigmoidTransform()))
  check("tf_tanh", 1, each(T.TanhTransform()))
  check("tf_affine", 1, each(T.AffineTransform(0.5, -2.0)))
}

test "TransformedDistribution: shapes, sample without a gradient, rsample with one" {
  let loc = tensor([0.3, -1.2], dtype=f64, requires_grad=true)
  let d = D.TransformedDistribution(D.Normal(loc, 1.0), [D.ExpTransform()])
  expect(d.batch_shape == [2] and d.event_shape == [] and d.has_rsample, f"{d.batch_shape} {d.event_shape}")
  let s = d.sample([4])
  expect(list(s.shape) == [4, 2] and not s.requires_grad and bool((s > 0).all()), f"{s}")
  let r = d.rsample([3])
  r.sum().backward()
  expect_close(loc.grad, r.detach().sum(0), rtol=1e-12)   # d exp(loc + z) / d loc
  let e = D.TransformedDistribution(D.Normal(zeros(3), 1.0), D.AffineTransform(zeros(3), 2.0, event_dim=1))
  expect(e.batch_shape == [] and e.event_shape == [3] and list(e.log_prob(ones(3)).shape) == [], f"{e.batch_shape} {e.event_shape}")
  expect(D.ComposeTransform([D.AffineTransform(0.0, -1.0), D.ExpTransform(), D.AffineTransform(1.0, -3.0)]).sign == 1, "signs multiply")
}

test "TransformedDistribution: bad arguments are errors naming them" {
  let n = D.Normal(0.0, 1.0)
  expect_error(fn() = D.TransformedDistribution(n, [1.0]), "transforms must be a transform or a list of transforms, got float")
  expect_error(fn() = D.TransformedDistribution(ones(2), D.ExpTransform()), "base_distribution must be a distribution, got tensor")
  expect_error(fn() = D.TransformedDistribution(n, D.AffineTransform(0.0, 1.0, event_dim=1)), "event_dim 1 is more than the base distribution's 0 dims")
  expect_error(fn() = D.AffineTransform("a", 1.0), "loc must be a number or a tensor, got str")
  expect_error(fn() = D.AffineTransform(0.0, 1.0, event_dim=-1), "event_dim must be an int >= 0, got -1")
  expect_error(fn() = D.ComposeTransform(D.ExpTransform()), "parts must be a list of transforms")
  expect_error(fn() = D.TransformedDistribution(n, D.ExpTransform()).log_prob(1.0), "value must be a tensor, got float")
}

test "MixtureSameFamily: log_prob, mean, variance and cdf equal PyTorch's, with gradients; an event dim too" {
  fn mixture(xs) {
    let d = D.MixtureSameFamily(D.Categorical(logits=xs[0]), D.Normal(xs[1], xs[2]))
    return [d.log_prob(xs[3]), d.mean, d.variance, d.cdf(xs[3])]
  }
  check("mixture", 4, mixture)
  fn mixture_event(xs) {
    let d = D.MixtureSameFamily(D.Categorical(logits=xs[0]), D.Independent(D.Normal(xs[1], 0.8), 1))
    return [d.log_prob(xs[2]), d.mean, d.variance]
  }
  check("mixture_event", 3, mixture_event)
  let m = D.MixtureSameFamily(D.Categorical(logits=ref["mixture.x0"]), D.Normal(ref["mixture.x1"], ref["mixture.x2"]))
  expect(m.batch_shape == [2] and m.event_shape == [], f"{m.batch_shape}")
  let s = m.sample([4000])
  expect(list(s.shape) == [4000, 2] and not s.requires_grad, f"{s.shape}")
  expect_close(s.mean(0), m.mean, atol=0.15)
  let e = D.MixtureSameFamily(D.Categorical(logits=ref["mixture.x0"]), D.Independent(D.Normal(ref["mixture_event.x1"], 0.8), 1))
  expect(list(e.sample([3]).shape) == [3, 2, 4], "a draw per point of the event's shape")
}

test "Pareto, Weibull, HalfCauchy and PowerTransform equal PyTorch's, with gradients" {
  check("pareto", 4, fn(xs) = [D.Pareto(xs[0], xs[1]).log_prob(xs[2]), D.Pareto(xs[0], xs[1]).cdf(xs[2]), D.Pareto(xs[0], xs[1]).icdf(xs[3]),
                               D.Pareto(xs[0], xs[1]).mean, D.Pareto(xs[0], xs[1]).variance, D.Pareto(xs[0], xs[1]).entropy()])
  fn weibull(xs) {
    let d = D.Weibull(xs[0], xs[1])
    return [d.log_prob(xs[2]), d.cdf(xs[2]), d.icdf(xs[3]), d.mean, d.mode, d.variance, d.entropy()]
  }
  check("weibull", 4, weibull)
  fn half_cauchy(xs) {
    let d = D.HalfCauchy(xs[0])
    return [d.log_prob(xs[1]), d.cdf(xs[1]), d.icdf(xs[2]), d.entropy()]
  }
  check("half_cauchy", 3, half_cauchy)
  check("tf_power", 1, fn(xs) = [T.PowerTransform(2.5)(xs[0]), T.PowerTransform(2.5).log_abs_det_jacobian(xs[0], xs[0] ** 2.5)])
  let p = D.Pareto(2.0, 3.0).sample([500])
  expect(bool((p >= 2.0).all()), "Pareto's draws are at least its scale")
  expect(bool((D.HalfCauchy(ones(3)).sample([50]) >= 0).all()), "HalfCauchy's draws are at least 0")
  expect(bool(D.HalfCauchy(1.0).mean.isinf()), "HalfCauchy's mean is inf")
}

test "OneHotCategorical, Multinomial, RelaxedOneHotCategorical, RelaxedBernoulli equal PyTorch's, with gradients" {
  fn onehot(xs) {
    let d = D.OneHotCategorical(logits=xs[0])
    return [d.log_prob(xs[1]), d.entropy(), d.mean, d.variance]
  }
  check("onehot", 2, onehot)
  check("multinomial", 2, fn(xs) = [D.Multinomial(10, logits=xs[0]).log_prob(xs[1]), D.Multinomial(10, logits=xs[0]).mean, D.Multinomial(10, logits=xs[0]).variance])
  check("relaxed_onehot", 3, fn(xs) = D.RelaxedOneHotCategorical(xs[0], logits=xs[1]).log_prob(xs[2]))
  check("relaxed_bernoulli", 3, fn(xs) = D.RelaxedBernoulli(xs[0], probs=xs[1]).log_prob(xs[2]))
  let lg = ref["onehot.x0"]
  let o = D.OneHotCategorical(logits=lg).sample([5])
  expect(list(o.shape) == [5, 2, 3] and bool((o.sum(-1) == 1).all()), "one-hot draws")
  let m = D.Multinomial(7, probs=tensor([0.2, 0.3, 0.5])).sample([4])
  expect(list(m.shape) == [4, 3] and bool((m.sum(-1) == 7).all()), "counts sum to total_count")
  let logits = lg.clone().requires_grad_(true)
  let r = D.RelaxedOneHotCategorical(0.5, logits=logits).rsample([3])
  expect_close(r.sum(-1), ones([3, 2], dtype=f64), rtol=1e-12)
  (r[..., 0]).sum().backward()
  expect(logits.grad != none and bool((logits.grad != 0).any()), "rsample is differentiable in the logits")
  let b = D.RelaxedBernoulli(0.5, logits=tensor([0.0, 2.0])).rsample([10])
  expect(bool(((b > 0) & (b < 1)).all()), "relaxed Bernoulli draws lie in (0, 1)")
  check("kl_pareto", 4, fn(xs) = D.kl_divergence(D.Pareto(xs[0], xs[1]), D.Pareto(xs[2], xs[3])))
  check("kl_onehot", 2, fn(xs) = D.kl_divergence(D.OneHotCategorical(logits=xs[0]), D.OneHotCategorical(logits=xs[1])))
  expect_error(fn() = D.Multinomial(ones(2), probs=tensor([0.5, 0.5])), "total_count must be an int >= 0")
  expect_error(fn() = D.RelaxedBernoulli(-1.0, probs=tensor([0.5])), "temperature must be above 0")
}

test "LowRankMultivariateNormal: log_prob, entropy and moments equal PyTorch's, with gradients" {
  fn lowrank(xs) {
    let m = D.LowRankMultivariateNormal(xs[0], xs[1], xs[2])
    return [m.log_prob(xs[3]), m.entropy(), m.variance, m.covariance_matrix]
  }
  check("lowrank_mvn", 4, lowrank)
  let m = D.LowRankMultivariateNormal(ref["lowrank_mvn.x0"], ref["lowrank_mvn.x1"], ref["lowrank_mvn.x2"])
  expect_close(m.log_prob(ref["lowrank_mvn.x3"]), D.MultivariateNormal(m.loc, covariance_matrix=m.covariance_matrix).log_prob(ref["lowrank_mvn.x3"]), rtol=1e-12)
  let s = m.sample([20000])
  expect(list(s.shape) == [20000, 2, 3], f"{s.shape}")
  expect_close(s.var(0), m.variance, rtol=0.05)
  expect_error(fn() = D.LowRankMultivariateNormal(zeros(3), ones([2, 1]), ones(3)), "cov_factor must be a tensor [..., 3, rank]")
  expect_error(fn() = D.LowRankMultivariateNormal(zeros(3), ones([3, 1]), -ones(3)), "cov_diag must be above 0")
}

test "VonMises, Kumaraswamy and FisherSnedecor: log_prob and moments equal PyTorch's, with gradients; draws" {
  check("von_mises", 3, fn(xs) = [D.VonMises(xs[0], xs[1]).log_prob(xs[2]), D.VonMises(xs[0], xs[1]).variance])
  check("kumaraswamy", 3, fn(xs) = [D.Kumaraswamy(xs[0], xs[1]).log_prob(xs[2]), D.Kumaraswamy(xs[0], xs[1]).mean,
                                    D.Kumaraswamy(xs[0], xs[1]).variance, D.Kumaraswamy(xs[0], xs[1]).entropy()])
  check("fisher_snedecor", 3, fn(xs) = [D.FisherSnedecor(xs[0], xs[1]).log_prob(xs[2]), D.FisherSnedecor(xs[0], xs[1]).mean,
                                        D.FisherSnedecor(xs[0], xs[1]).mode, D.FisherSnedecor(xs[0], xs[1]).variance])
  let vm = D.VonMises(tensor([0.5, -3.0], dtype=f64), tensor([8.0, 2.0], dtype=f64))
  let s = vm.sample([8000])
  expect(bool((s >= -math.pi).all()) and bool((s < math.pi).all()), "draws in [-pi, pi)")
  # the circular mean and 1 - |mean resultant|, the circular variance
  let resultant = stack([cos(s).mean(0), sin(s).mean(0)])
  expect_close(atan2(resultant[1], resultant[0]), vm.loc, atol=0.05)
  expect_close(1 - (resultant ** 2).sum(0).sqrt(), vm.variance, atol=0.02)
  let k = D.Kumaraswamy(2.0, tensor([3.0, 5.0])).rsample([2000])
  expect(bool(((k > 0) & (k < 1)).all()), "Kumaraswamy draws lie in (0, 1)")
  expect_close(D.FisherSnedecor(4.0, 12.0).rsample([20000]).mean(), tensor(1.2), rtol=0.05)
  expect_error(fn() = D.VonMises(0.0, -1.0), "concentration must be above 0")
  expect_error(fn() = D.FisherSnedecor(1.0, 2.0).log_prob(tensor([-1.0])), "above 0")
}

test "NegativeBinomial: log_prob and moments equal PyTorch's, with gradients; draws by their moments" {
  fn nb(xs) {
    let d = D.NegativeBinomial(xs[0], probs=xs[1])
    return [d.log_prob(xs[2]), d.mean, d.mode, d.variance]
  }
  check("negative_binomial", 3, nb)
  check("negative_binomial_logits", 3, fn(xs) = D.NegativeBinomial(xs[0], logits=xs[1]).log_prob(xs[2]))
  let d = D.NegativeBinomial(tensor(5.0, dtype=f64), probs=tensor(0.3, dtype=f64))
  let s = d.sample([6000])
  expect(bool((s == s.floor()).all()) and not s.requires_grad, "counts")
  expect(abs(s.mean().item() - d.mean.item()) < 0.15 and abs(s.var().item() - d.variance.item()) < 0.4, f"{s.mean()} {s.var()}")
  expect_error(fn() = D.NegativeBinomial(5.0, probs=tensor([1.0])), "probs must be in [0, 1)")
  expect_error(fn() = D.NegativeBinomial(5.0, probs=tensor([0.5])).log_prob(tensor([1.5])), "a count")
}

test "MixtureSameFamily, Pareto, Weibull, HalfCauchy, AbsTransform: bad arguments are errors naming them" {
  let mix = D.Categorical(logits=zeros(3))
  expect_error(fn() = D.MixtureSameFamily(D.Normal(0.0, 1.0), D.Normal(zeros(3), 1.0)), "mixture_distribution must be a distributions.Categorical")
  expect_error(fn() = D.MixtureSameFamily(mix, ones(3)), "component_distribution must be a distribution, got tensor")
  expect_error(fn() = D.MixtureSameFamily(mix, D.Normal(zeros(4), 1.0)), "the mixture has 3 components but component_distribution's batch_shape [4] ends in 4")
  expect_error(fn() = D.MixtureSameFamily(D.Categorical(logits=zeros([2, 3])), D.Normal(zeros([5, 3]), 1.0)), "does not broadcast")
  expect_error(fn() = D.Pareto(-1.0, 2.0), "scale must be above 0")
  expect_error(fn() = D.Weibull(1.0, 0.0), "concentration must be above 0")
  expect_error(fn() = D.HalfCauchy(1.0).log_prob(tensor([-1.0])), "at least 0")
  expect_error(fn() = D.TransformedDistribution(D.Normal(0.0, 1.0), D.AbsTransform()).log_prob(tensor([1.0])), "is not bijective")
}
