# _distributions_more: round 8's distributions (tests/stdlib/test_gaps_vs_torch8_dist.dsl):
# LogNormal, HalfNormal, Cauchy, Gumbel, StudentT, Chi2, Poisson and Geometric, with
# PyTorch's parameters, formulas and checks (Note [Validated arguments] in
# stdlib/_distributions_base.dsl). distributions re-exports them; import distributions,
# not this module.
import math
import _distributions_base
import _distributions_rsample

let _b = _distributions_base
let _rs = _distributions_rsample
let _euler = 0.5772156649015329

# A distribution of one real parameter besides its loc, both broadcast: (loc, scale),
# with loc real and scale above 0 unless validate_args=false.
fn _loc_scale(who, loc, scale, validate_args) {
  let p = _b._pair(who, "loc", loc, "scale", scale)
  let _v = _b._validating(validate_args) and _b._check_normal(p[0], p[1], who)
  return p
}

fn _positive_param(who, name, v, validate_args) {
  let t = _b._as_floating(_b._param(who, name, v))
  let _v = _b._validating(validate_args) and _b._check_positive(who, name, t)
  return t
}

fn _drawn(who, sample_shape, batch, like, f) {
  let out = none
  no_grad { out = f(_b._unit_draws(who, sample_shape, batch, like)) }
  return out
}

fn _real_value(validate_args, who, value) = _b._checked_value(validate_args, who, value)
fn _ok_positive(v) = v > 0
fn _ok_nonnegative(v) = v >= 0
fn _ok_count(v) = (v >= 0).logical_and(v == v.floor())

model LogNormal(loc, scale, validate_args=none) {
  "The distribution of exp(X) for X ~ Normal(loc, scale) (tensors or numbers, broadcast), as torch.distributions.LogNormal. Example: distributions.LogNormal(0.0, ones(3)).rsample()"
  let _p = _loc_scale("LogNormal()", loc, scale, validate_args)
  loc = _p[0]
  scale = _p[1]
  batch_shape = _b._shape_list(self.loc.shape)
  event_shape = []
  mean = exp(self.loc + self.scale ** 2 / 2)
  mode = exp(self.loc - self.scale ** 2)
  variance = (exp(self.scale ** 2) - 1) * exp(2 * self.loc + self.scale ** 2)
  stddev = self.variance.sqrt()
  rsample(sample_shape=[]) {
    let shape = _b._sample_shape("LogNormal.rsample()", sample_shape) + self.batch_shape
    return exp(self.loc.expand(shape) + randn(shape, dtype=self.loc.dtype, device=self.loc.device) * self.scale.expand(shape))
  }
  sample(sample_shape=[]) {
    let out = none
    no_grad { out = self.rsample(sample_shape) }
    return out
  }
  log_prob(value) {
    let y = log(_b._check_support(validate_args, "LogNormal.log_prob()", value, _ok_positive, "above 0"))
    return -((y - self.loc) ** 2) / (2 * self.scale ** 2) - log(self.scale) - math.log(math.sqrt(2 * math.pi)) - y
  }
  cdf(value) = 0.5 * (1 + erf((log(_b._check_support(validate_args, "LogNormal.cdf()", value, _ok_positive, "above 0")) - self.loc) / (self.scale * math.sqrt(2))))
  icdf(value) = exp(self.loc + self.scale * erfinv(2 * value - 1) * math.sqrt(2))
  entropy() = 0.5 + 0.5 * math.log(2 * math.pi) + log(self.scale) + self.loc
}

model HalfNormal(scale, validate_args=none) {
  "The distribution of |X| for X ~ Normal(0, scale), as torch.distributions.HalfNormal. Example: distributions.HalfNormal(ones(3)).rsample()"
  scale = _positive_param("HalfNormal()", "scale", scale, validate_args)
  batch_shape = _b._shape_list(self.scale.shape)
  event_shape = []
  mean = self.scale * math.sqrt(2 / math.pi)
  mode = zeros_like(self.scale)
  variance = self.scale ** 2 * (1 - 2 / math.pi)
  stddev = self.variance.sqrt()
  rsample(sample_shape=[]) {
    let shape = _b._sample_shape("HalfNormal.rsample()", sample_shape) + self.batch_shape
    return (randn(shape, dtype=self.scale.dtype, device=self.scale.device) * self.scale.expand(shape)).abs()
  }
  sample(sample_shape=[]) {
    let out = none
    no_grad { out = self.rsample(sample_shape) }
    return out
  }
  log_prob(value) {
    let v = _b._check_support(validate_args, "HalfNormal.log_prob()", value, _ok_nonnegative, "at least 0")
    let lp = -(v ** 2) / (2 * self.scale ** 2) - log(self.scale) - math.log(math.sqrt(2 * math.pi)) + math.log(2)
    return where(v >= 0, lp, -float("inf"))
  }
  cdf(value) = erf(_b._check_support(validate_args, "HalfNormal.cdf()", value, _ok_nonnegative, "at least 0") / (self.scale * math.sqrt(2)))
  icdf(value) = self.scale * erfinv(value) * math.sqrt(2)
  entropy() = 0.5 + 0.5 * math.log(2 * math.pi) + log(self.scale) - math.log(2)
}

model Cauchy(loc, scale, validate_args=none) {
  "The Cauchy distribution of the given loc and scale (tensors or numbers, broadcast), as torch.distributions.Cauchy (its mean is NaN and its variance inf). Example: distributions.Cauchy(0.0, ones(3)).rsample()"
  let _p = _loc_scale("Cauchy()", loc, scale, validate_args)
  loc = _p[0]
  scale = _p[1]
  batch_shape = _b._shape_list(self.loc.shape)
  event_shape = []
  mean = full_like(self.loc, float("nan"))
  mode = self.loc
  variance = full_like(self.loc, float("inf"))
  stddev = self.variance
  rsample(sample_shape=[]) = self.loc + tan(math.pi * (_b._unit_draws("Cauchy.rsample()", sample_shape, self.batch_shape, self.loc) - 0.5)) * self.scale
  sample(sample_shape=[]) {
    let out = none
    no_grad { out = self.rsample(sample_shape) }
    return out
  }
  log_prob(value) = -math.log(math.pi) - log(self.scale) - log1p(((_real_value(validate_args, "Cauchy.log_prob()", value) - self.loc) / self.scale) ** 2)
  cdf(value) = atan((_real_value(validate_args, "Cauchy.cdf()", value) - self.loc) / self.scale) / math.pi + 0.5
  icdf(value) = tan(math.pi * (value - 0.5)) * self.scale + self.loc
  entropy() = math.log(4 * math.pi) + log(self.scale)
}

model Gumbel(loc, scale, validate_args=none) {
  "The Gumbel (type-I extreme value) distribution of the given loc and scale, as torch.distributions.Gumbel. Example: distributions.Gumbel(0.0, ones(3)).rsample()"
  let _p = _loc_scale("Gumbel()", loc, scale, validate_args)
  loc = _p[0]
  scale = _p[1]
  batch_shape = _b._shape_list(self.loc.shape)
  event_shape = []
  mean = self.loc + self.scale * _euler
  mode = self.loc
  stddev = (math.pi / math.sqrt(6)) * self.scale
  variance = self.stddev ** 2
  rsample(sample_shape=[]) {
    # PyTorch's base draws: uniform in [tiny, 1 - eps]
    let fi = finfo(self.loc.dtype)
    let u = _b._unit_draws("Gumbel.rsample()", sample_shape, self.batch_shape, self.loc).clamp(fi.tiny, 1 - fi.eps)
    return self.loc - self.scale * log(-log(u))
  }
  sample(sample_shape=[]) {
    let out = none
    no_grad { out = self.rsample(sample_shape) }
    return out
  }
  log_prob(value) {
    let y = (self.loc - _real_value(validate_args, "Gumbel.log_prob()", value)) / self.scale
    return (y - exp(y)) - log(self.scale)
  }
  cdf(value) = exp(-exp(-(_real_value(validate_args, "Gumbel.cdf()", value) - self.loc) / self.scale))
  icdf(value) = self.loc - self.scale * log(-log(value))
  entropy() = log(self.scale) + (1 + _euler)
}

# A Gamma(c, 1) draw of `shape` whose gradient in c is the implicit one (for Chi2 and StudentT)
fn _gamma_rdraw(c, shape) = _rs._gamma_rsample(c.expand(shape), 1.0, _b._standard_gamma)

model Chi2(df, validate_args=none) {
  "The chi-squared distribution of df degrees of freedom (Gamma(df / 2, 1 / 2)), as torch.distributions.Chi2. Example: distributions.Chi2(tensor([1.0, 4.0])).rsample()"
  df = _positive_param("Chi2()", "df", df, validate_args)
  concentration = 0.5 * self.df
  rate = full_like(self.df, 0.5)
  batch_shape = _b._shape_list(self.df.shape)
  event_shape = []
  mean = self.df
  mode = (self.df - 2).clamp(min=0)
  variance = 2 * self.df
  stddev = self.variance.sqrt()
  rsample(sample_shape=[]) = _gamma_rdraw(self.concentration, _b._sample_shape("Chi2.rsample()", sample_shape) + self.batch_shape) * 2.0
  sample(sample_shape=[]) {
    let out = none
    no_grad { out = self.rsample(sample_shape) }
    return out
  }
  log_prob(value) = _b._gamma_log_prob(self.concentration, self.rate, _b._check_support(validate_args, "Chi2.log_prob()", value, _ok_nonnegative, "at least 0"))
  entropy() = _b._gamma_entropy(self.concentration, self.rate)
}

model StudentT(df, loc=0.0, scale=1.0, validate_args=none) {
  "Student's t distribution of df degrees of freedom, loc and scale (broadcast), as torch.distributions.StudentT: rsample draws X / sqrt(Z / df) with Z ~ Chi2(df), reparameterized in df too. Example: distributions.StudentT(tensor([3.0, 10.0])).rsample()"
  let _df = _positive_param("StudentT()", "df", df, validate_args)
  let _p = _loc_scale("StudentT()", _b._as_tensor(_b._param("StudentT()", "loc", loc), _df), _b._as_tensor(_b._param("StudentT()", "scale", scale), _df), validate_args)
  let _dt = result_type(_df, _p[0])
  let _all = broadcast_tensors(_df.to(_dt), _p[0].to(_dt), _p[1].to(_dt))
  df = _all[0]
  loc = _all[1]
  scale = _all[2]
  batch_shape = _b._shape_list(self.df.shape)
  event_shape = []
  mean = where(self.df > 1, self.loc, float("nan"))
  mode = self.loc
  variance = where(self.df > 2, self.scale ** 2 * self.df / where(self.df > 2, self.df - 2, 1.0), where(self.df > 1, float("inf"), float("nan")))
  stddev = self.variance.sqrt()
  rsample(sample_shape=[]) {
    let shape = _b._sample_shape("StudentT.rsample()", sample_shape) + self.batch_shape
    let x = randn(shape, dtype=self.df.dtype, device=self.df.device)
    let z = _gamma_rdraw(0.5 * self.df, shape) * 2.0
    return self.loc + self.scale * x * rsqrt(z / self.df)
  }
  sample(sample_shape=[]) {
    let out = none
    no_grad { out = self.rsample(sample_shape) }
    return out
  }
  log_prob(value) {
    let y = (_real_value(validate_args, "StudentT.log_prob()", value) - self.loc) / self.scale
    let z = log(self.scale) + 0.5 * log(self.df) + 0.5 * math.log(math.pi) + lgamma(0.5 * self.df) - lgamma(0.5 * (self.df + 1.0))
    return -0.5 * (self.df + 1.0) * log1p(y ** 2 / self.df) - z
  }
  entropy() {
    let lbeta = lgamma(0.5 * self.df) + 0.5 * math.log(math.pi) - lgamma(0.5 * (self.df + 1))  # lgamma(0.5) = log(sqrt(pi))
    return log(self.scale) + 0.5 * (self.df + 1) * (digamma(0.5 * (self.df + 1)) - digamma(0.5 * self.df)) + 0.5 * log(self.df) + lbeta
  }
}

# Note [Poisson draws]
# Knuth's product of uniforms below a rate of 10 (count the factors until the product
# falls under exp(-rate)), Hörmann's transformed rejection (PTRS, 1993; PyTorch's
# choice too) from 10 up; both vectorized as the Gamma draws are, each element redrawn
# until it is accepted (a bounded number of rounds; a left-over one is an error).
fn _poisson_draws(rate) {
  let small = rate < 10
  let out = zeros_like(rate)
  # Knuth where small: every element multiplies until its product is below exp(-rate)
  let limit = exp(-where(small, rate, zeros_like(rate)))
  let prod = rand(list(rate.shape), dtype=rate.dtype, device=rate.device)
  let going = small & (prod > limit)
  for _ in range(1000) {
    if not going.any().item() { break }
    out = out + going.to(rate.dtype)
    prod = prod * where(going, rand(list(rate.shape), dtype=rate.dtype, device=rate.device), ones_like(prod))
    going = going & (prod > limit)
  }
  # PTRS where large
  let lam = where(small, full_like(rate, 10.0), rate)
  let slam = sqrt(lam)
  let loglam = log(lam)
  let b = 0.931 + 2.53 * slam
  let a = -0.059 + 0.02483 * b
  let invalpha = 1.1239 + 1.1328 / (b - 3.4)
  let vr = 0.9277 - 3.6224 / (b - 2)
  let pending = small.logical_not()
  for _ in range(1000) {
    if not pending.any().item() { break }
    let u = rand(list(rate.shape), dtype=rate.dtype, device=rate.device) - 0.5
    let v = rand(list(rate.shape), dtype=rate.dtype, device=rate.device)
    let us = 0.5 - abs(u)
    let k = floor((2 * a / us + b) * u + lam + 0.43)
    let quick = (us >= 0.07) & (v <= vr)
    let rejected = (k < 0) | ((us < 0.013) & (v > us))
    let slow = log(v) + log(invalpha) - log(a / (us * us) + b) <= -lam + k * loglam - lgamma(k + 1)
    let ok = pending & (quick | (rejected.logical_not() & slow))
    out = where(ok, k, out)
    pending = pending & ok.logical_not()
  }
  if pending.any().item() { fail("distributions.Poisson: a draw was rejected 1000 times") }
  return where(rate == 0, zeros_like(out), out)
}

model Poisson(rate, validate_args=none) {
  "The Poisson distribution of the given rate (a tensor or a number, at least 0), as torch.distributions.Poisson. Example: distributions.Poisson(tensor([1.0, 20.0])).sample([3])"
  rate = _b._as_floating(_b._param("Poisson()", "rate", rate))
  let _valid = _b._validating(validate_args) and _b._require(self.rate, self.rate >= 0, "Poisson()", "rate", "at least 0")
  batch_shape = _b._shape_list(self.rate.shape)
  event_shape = []
  mean = self.rate
  mode = self.rate.floor()
  variance = self.rate
  stddev = self.rate.sqrt()
  sample(sample_shape=[]) {
    let shape = _b._sample_shape("Poisson.sample()", sample_shape) + self.batch_shape
    let out = none
    no_grad { out = _poisson_draws(self.rate.detach().expand(shape).contiguous()) }
    return out
  }
  log_prob(value) {
    let v = _b._check_support(validate_args, "Poisson.log_prob()", value, _ok_count, "a count (an integer at least 0)")
    let (r, x) = broadcast_tensors(self.rate, v.to(self.rate.dtype))
    return xlogy(x, r) - r - lgamma(x + 1)
  }
}

model Geometric(probs=none, logits=none, validate_args=none) {
  "The number of failures before the first success of Bernoulli(probs) trials (probs in (0, 1], or logits), as torch.distributions.Geometric. Example: distributions.Geometric(probs=tensor([0.2, 0.7])).sample([3])"
  let _checked = _b._one_of("Geometric", probs, logits)
  probs = _b._as_floating(probs) if probs != none else sigmoid(_b._as_floating(logits))
  logits = _b._as_floating(logits) if logits != none else log(_b._clamp_probs(self.probs)) - log1p(-_b._clamp_probs(self.probs))
  let _valid = _b._validating(validate_args) and probs != none and _b._require(self.probs, (self.probs > 0).logical_and(self.probs <= 1), "Geometric()", "probs", "in (0, 1]")
  batch_shape = _b._shape_list(self.probs.shape)
  event_shape = []
  mean = 1.0 / self.probs - 1.0
  mode = zeros_like(self.probs)
  variance = (1.0 / self.probs - 1.0) / self.probs
  stddev = self.variance.sqrt()
  sample(sample_shape=[]) {
    let tiny = finfo(self.probs.dtype).tiny
    return _drawn("Geometric.sample()", sample_shape, self.batch_shape, self.probs, fn(u) = (log(u.clamp(min=tiny)) / log1p(-self.probs)).floor())
  }
  log_prob(value) {
    let v = _b._check_support(validate_args, "Geometric.log_prob()", value, _ok_count, "a count (an integer at least 0)")
    let (x, p) = broadcast_tensors(v.to(self.probs.dtype), self.probs)
    let q = where((p == 1).logical_and(x == 0), zeros_like(p), p)
    return x * log1p(-q) + log(self.probs)
  }
  entropy() = binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none") / self.probs
}

# ---- kl_divergence of two of a kind (PyTorch's formulas; LogNormal's is its Normals',
# Chi2's Gamma's: distributions' _kl_table joins these)
fn _kl_halfnormal(p, q) {
  let var_ratio = (p.scale / q.scale) ** 2
  return 0.5 * (var_ratio - 1 - log(var_ratio))
}

fn _kl_cauchy(p, q) = log((p.scale + q.scale) ** 2 + (p.loc - q.loc) ** 2) - log(4 * p.scale * q.scale)

fn _kl_gumbel(p, q) {
  let ct1 = p.scale / q.scale
  let ct2 = q.loc / q.scale
  let ct3 = p.loc / q.scale
  return -log(ct1) - ct2 + ct3 + ct1 * _euler + exp(ct2 + lgamma(1 + ct1) - ct3) - (1 + _euler)
}

fn _kl_poisson(p, q) = p.rate * (log(p.rate) - log(q.rate)) - (p.rate - q.rate)

fn _kl_geometric(p, q) = -p.entropy() - log1p(-q.probs) / p.probs - q.logits
