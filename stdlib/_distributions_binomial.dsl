# _distributions_binomial: distributions.Binomial (round 8b,
# tests/stdlib/test_gaps_vs_torch8b.dsl) with PyTorch 1.13's parameters, formulas and
# checks (Note [Validated arguments] in stdlib/_distributions_base.dsl). distributions
# re-exports it; import distributions, not this module.
import _distributions_base

let _b = _distributions_base

# PyTorch's _clamp_by_zero: max(x, 0) with the gradient 1/2 at 0
fn _clamp_by_zero(x) = (x.clamp(min=0) + x - x.clamp(max=0)) / 2

# Note [Binomial draws]
# PyTorch's two samplers, vectorized as the Poisson draws are (each element redrawn
# until accepted, a bounded number of rounds): with p the smaller of probs and 1 - probs
# (a draw for 1 - probs is counted down from n), n p < 10 counts geometric waiting
# times (inversion: successes until the sum of the gaps passes n, about n p + 1
# rounds); n p >= 10 is Hörmann's transformed rejection (BTRS, 1993) whose squeeze
# test is the exact log ratio of the probabilities (lgamma) in place of Stirling's
# series: the same accepted distribution.
fn _geometric_counts(n, p, going) {
  let count = zeros_like(n)
  let total = zeros_like(n)
  let log_q = log1p(-where(going, p, full_like(p, 0.5)))
  let tiny = finfo(n.dtype).tiny
  for _ in range(100000) {
    if not going.any().item() { break }
    let gap = ceil(log(rand(list(n.shape), dtype=n.dtype, device=n.device).clamp(min=tiny)) / log_q)
    total = total + where(going, gap, zeros_like(gap))
    going = going & (total <= n)
    count = count + going.to(n.dtype)
  }
  if going.any().item() { fail("distributions.Binomial: a draw did not finish in 100000 rounds") }
  return count
}

fn _btrs_counts(n, p, pending) {
  let out = zeros_like(n)
  let safe_n = where(pending, n, full_like(n, 100.0))
  let safe_p = where(pending, p, full_like(p, 0.5))
  let stddev = sqrt(safe_n * safe_p * (1 - safe_p))
  let b = 1.15 + 2.53 * stddev
  let a = -0.0873 + 0.0248 * b + 0.01 * safe_p
  let c = safe_n * safe_p + 0.5
  let v_r = 0.92 - 4.2 / b
  let r = safe_p / (1 - safe_p)
  let alpha = (2.83 + 5.1 / b) * stddev
  let m = floor((safe_n + 1) * safe_p)
  let log_fm = -lgamma(m + 1) - lgamma(safe_n - m + 1) + m * log(r)
  for _ in range(1000) {
    if not pending.any().item() { break }
    let u = rand(list(n.shape), dtype=n.dtype, device=n.device) - 0.5
    let v = rand(list(n.shape), dtype=n.dtype, device=n.device)
    let us = 0.5 - abs(u)
    let k = floor((2 * a / us + b) * u + c)
    let inside = (k >= 0) & (k <= safe_n)
    let quick = (us >= 0.07) & (v <= v_r)
    let kk = k.clamp(0.0).minimum(safe_n)
    let log_ratio = -lgamma(kk + 1) - lgamma(safe_n - kk + 1) + kk * log(r) - log_fm
    let slow = log(v * alpha / (a / (us * us) + b)) <= log_ratio
    let ok = pending & inside & (quick | slow)
    out = where(ok, k, out)
    pending = pending & ok.logical_not()
  }
  if pending.any().item() { fail("distributions.Binomial: a draw was rejected 1000 times") }
  return out
}

fn _binomial_draws(n, probs) {
  let flip = probs > 0.5
  let p = where(flip, 1 - probs, probs)
  let large = n * p >= 10
  let k = where(large, _btrs_counts(n, p, large), _geometric_counts(n, p, large.logical_not() & (n > 0) & (p > 0)))
  return where(flip, n - k, k)
}

fn _ok_count_upto(n) = fn(v) = (v >= 0).logical_and(v <= n).logical_and(v == v.floor())

fn _homogeneous(who, n) {
  let top = n.max().item()
  if n.min().item() != top { fail(f"distributions.Binomial.{who}(): total_count must be one number for all the batch (PyTorch: inhomogeneous total count not supported), got {n.min().item()} to {top}") }
  return int(top)
}

model Binomial(total_count=1, probs=none, logits=none, validate_args=none) {
  "The number of successes in total_count Bernoulli(probs) trials (probs in [0, 1], or logits; total_count a count, broadcast), as torch.distributions.Binomial. Example: distributions.Binomial(10, probs=tensor([0.2, 0.7])).sample([3])"
  let _checked = _b._one_of("Binomial", probs, logits)
  let _param = _b._as_floating(_b._param("Binomial()", "probs" if probs != none else "logits", probs if probs != none else logits))
  let _n = _b._as_tensor(_b._param("Binomial()", "total_count", total_count), _param).to(_param.dtype)
  let _bc = broadcast_tensors(_n, _param)
  total_count = _bc[0]
  probs = _bc[1] if probs != none else sigmoid(_bc[1])
  logits = _bc[1] if logits != none else log(_b._clamp_probs(self.probs)) - log1p(-_b._clamp_probs(self.probs))
  let _valid_n = _b._validating(validate_args) and _b._require(self.total_count, (self.total_count >= 0).logical_and(self.total_count == self.total_count.floor()), "Binomial()", "total_count", "an integer at least 0")
  let _valid_p = _b._validating(validate_args) and probs != none and _b._require(self.probs, (self.probs >= 0).logical_and(self.probs <= 1), "Binomial()", "probs", "in [0, 1]")
  batch_shape = _b._shape_list(self.probs.shape)
  event_shape = []
  mean = self.total_count * self.probs
  mode = ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)
  variance = self.total_count * self.probs * (1 - self.probs)
  stddev = self.variance.sqrt()
  sample(sample_shape=[]) {
    let shape = _b._sample_shape("Binomial.sample()", sample_shape) + self.batch_shape
    let out = none
    no_grad { out = _binomial_draws(self.total_count.detach().expand(shape).contiguous(), self.probs.detach().expand(shape).contiguous()) }
    return out
  }
  log_prob(value) {
    let v = _b._check_support(validate_args, "Binomial.log_prob()", value, _ok_count_upto(self.total_count), "a count in [0, total_count]")
    let (lg, x, n) = broadcast_tensors(self.logits, _b._as_tensor(v, self.logits).to(self.logits.dtype), self.total_count)
    let normalize = n * _clamp_by_zero(lg) + n * log1p(exp(-abs(lg))) - lgamma(n + 1)
    return x * lg - lgamma(x + 1) - lgamma(n - x + 1) - normalize
  }
  enumerate_support(expand=true) {
    let top = _homogeneous("enumerate_support", self.total_count)
    let values = arange(1 + top, dtype=self.probs.dtype, device=self.probs.device).reshape([-1] + [1 for _ in self.batch_shape])
    return values.expand([-1] + self.batch_shape) if expand else values
  }
  entropy() {
    _homogeneous("entropy", self.total_count)
    let lp = self.log_prob(self.enumerate_support(false))
    return -(exp(lp) * lp).sum(0)
  }
}

# PyTorch's _kl_binomial_binomial: infinite where p's total_count exceeds q's; q's above
# p's has no formula there either
fn _kl_binomial(p, q) {
  if (p.total_count < q.total_count).any().item() {
    fail("distributions.kl_divergence(): KL between two Binomials where q.total_count > p.total_count has no formula (PyTorch's NotImplementedError)")
  }
  let kl = p.total_count * (p.probs * (p.logits - q.logits) + log1p(-p.probs) - log1p(-q.probs))
  return where(p.total_count > q.total_count, full_like(kl, float("inf")), kl)
}

# ---- NegativeBinomial (round 9, tests/stdlib/test_gaps_vs_torch9_dist.dsl) --------------
# The number of successes before total_count failures, each trial a success with
# probability probs (or sigmoid(logits)), as PyTorch's: a Gamma(total_count, e^logits)
# rate drawn, then a Poisson count of it (sample, no gradient), and PyTorch's log_prob
# (0 where total_count + value is 0).
model NegativeBinomial(total_count, probs=none, logits=none, validate_args=none) {
  "The number of successes before total_count failures of Bernoulli(probs) trials (or logits), as torch.distributions.NegativeBinomial. Example: distributions.NegativeBinomial(5.0, probs=tensor([0.3, 0.6])).sample([2])"
  let _checked = _b._one_of("NegativeBinomial", probs, logits)
  let _param = _b._as_floating(_b._param("NegativeBinomial()", "probs" if probs != none else "logits", probs if probs != none else logits))
  let _n = _b._as_tensor(_b._param("NegativeBinomial()", "total_count", total_count), _param).to(_param.dtype)
  let _bc = broadcast_tensors(_n, _param)
  total_count = _bc[0]
  probs = _bc[1] if probs != none else sigmoid(_bc[1])
  logits = _bc[1] if logits != none else log(_b._clamp_probs(self.probs)) - log1p(-_b._clamp_probs(self.probs))
  let _valid_n = _b._validating(validate_args) and _b._require(self.total_count, self.total_count >= 0, "NegativeBinomial()", "total_count", "at least 0")
  let _valid_p = _b._validating(validate_args) and probs != none and _b._require(self.probs, (self.probs >= 0).logical_and(self.probs < 1), "NegativeBinomial()", "probs", "in [0, 1)")
  batch_shape = _b._shape_list(self.probs.shape)
  event_shape = []
  mean = self.total_count * exp(self.logits)
  mode = ((self.total_count - 1) * exp(self.logits)).floor().clamp(min=0.0)
  variance = self.total_count * exp(self.logits) / sigmoid(-self.logits)
  sample(sample_shape=[]) {
    import _distributions_more
    let out = none
    no_grad {
      let rate = _b._gamma_draws("NegativeBinomial.sample()", sample_shape, self.batch_shape, self.total_count) * exp(self.logits)
      out = _distributions_more.Poisson(rate, validate_args=false).sample()
    }
    return out
  }
  log_prob(value) {
    let v = _b._check_support(validate_args, "NegativeBinomial.log_prob()", value, fn(v) = (v >= 0).logical_and(v == v.floor()), "a count (an integer at least 0)")
    let unnormalized = self.total_count * logsigmoid(-self.logits) + v * logsigmoid(self.logits)
    let normalization = -lgamma(self.total_count + v) + lgamma(1.0 + v) + lgamma(self.total_count)
    return unnormalized - where(self.total_count + v == 0, 0.0, normalization)
  }
}
