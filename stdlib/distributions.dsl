# distributions: the few of PyTorch's torch.distributions that training programs use,
# with PyTorch's arguments and formulas: Categorical (REINFORCE's policy), Normal
# (Gaussian policies, mixture densities, the VAE's reparameterization) and Bernoulli;
# Uniform, Exponential, Laplace, MultivariateNormal, Independent, Gamma, Beta, Dirichlet
# and kl_divergence (round 7, tests/stdlib/test_gaps_vs_torch7.dsl); the rsample() of
# Gamma, Beta and Dirichlet (round 8, stdlib/_distributions_rsample.dsl); LogNormal,
# HalfNormal, Cauchy, Gumbel, StudentT, Chi2, Poisson and Geometric (round 8,
# stdlib/_distributions_more.dsl). The helpers they share are stdlib/_distributions_base.dsl's.
#
#   let dist = distributions.Categorical(logits=policy(state))
#   let action = dist.sample()
#   let loss = -(dist.log_prob(action) * returns).sum()
#
# Note [Distributions as models]
# A distribution is a model whose fields hold its tensors, so it prints, deep-copies
# and flows through functions like one; it has no parameters of its own (a tensor
# argument that is a leaf requiring grad is held as given: gradients reach it through
# log_prob, rsample and entropy, as PyTorch's). sample() draws under no-grad (its
# result has no gradient); rsample() (Normal) draws by the reparameterization trick.
# Shapes follow PyTorch's: batch_shape is the parameters' broadcast shape (without the
# categories for Categorical), sample(sample_shape) puts sample_shape in front of it.
import math
import _distributions_rsample
import _distributions_base
import _distributions_more
import _distributions_binomial
import _distributions_transformed
import _distributions_mixture
import _distributions_categorical
import _distributions_extra

# the shared helpers (stdlib/_distributions_base.dsl)
let _b = _distributions_base
let _shape_list = _b._shape_list
let _sample_shape = _b._sample_shape
let _as_tensor = _b._as_tensor
let _as_floating = _b._as_floating
let _one_of = _b._one_of
let _validating = _b._validating
let _first_bad = _b._first_bad
let _require = _b._require
let _check_categorical_arg = _b._check_categorical_arg
let _check_probs_simplex = _b._check_probs_simplex
let _check_logits_real = _b._check_logits_real
let _value_tensor = _b._value_tensor
let _check_real = _b._check_real
let _event_value = _b._event_value
let _checked_value = _b._checked_value
let _check_category = _b._check_category
let _check_normal = _b._check_normal
let _check_bernoulli = _b._check_bernoulli
let _check_binary = _b._check_binary
let _clamp_probs = _b._clamp_probs
let _param = _b._param
let _pair = _b._pair
let _check_support = _b._check_support
let _unit_draws = _b._unit_draws
let _kind_of = _b._kind_of
let _standard_gamma = _b._standard_gamma
let _gamma_draws = _b._gamma_draws
let _check_positive = _b._check_positive
let _gamma_log_prob = _b._gamma_log_prob
let _gamma_entropy = _b._gamma_entropy

model Categorical(probs=none, logits=none, validate_args=none) {
  "A distribution over the categories 0..K-1 of the last dim, by probs (normalized along it) or unnormalized logits, as torch.distributions.Categorical. Example: distributions.Categorical(logits=randn(4, 3)).sample()"
  let _checked = _one_of("Categorical", probs, logits)
  let _arg_checked = _check_categorical_arg("probs" if probs != none else "logits", probs if probs != none else logits)
  logits = (logits - logits.logsumexp(-1, keepdim=true)) if logits != none else log(_clamp_probs(probs / probs.sum(-1, keepdim=true)))
  probs = softmax(logits, dim=-1) if probs == none else probs / probs.sum(-1, keepdim=true)
  let _valid = _validating(validate_args) and (_check_probs_simplex(self.probs, probs) if probs != none else _check_logits_real(self.logits, logits))
  batch_shape = _shape_list(self.probs.shape)[:-1]
  event_shape = []
  num_events = self.probs.shape[-1]
  param_shape = _shape_list(self.probs.shape)
  mean = full(self.batch_shape, float("nan"), dtype=self.probs.dtype)
  sample(sample_shape=[]) {
    let extra = _sample_shape("Categorical.sample()", sample_shape)
    let n = 1
    for s in extra { n = n * s }
    # no draws (a 0 in sample_shape): PyTorch's empty sample; multinomial wants 1 or more
    if n == 0 { return zeros(extra + self.batch_shape, dtype=i64, device=self.probs.device) }
    let out = none
    no_grad {
      let flat = self.probs.reshape(-1, self.num_events)
      out = multinomial(flat, n, replacement=true).t()                   # [n, prod(batch)]
    }
    return out.reshape(extra + self.batch_shape)
  }
  log_prob(value) {
    if _validating(validate_args) { _check_category(value, self.num_events) }
    let v = value.long().unsqueeze(-1)
    let shape = list(broadcast_shapes(v.shape, self.param_shape))
    let lp = self.logits.expand(shape)
    return lp.gather(-1, v.expand(shape[:-1] + [1])).squeeze(-1)
  }
  entropy() {
    # -inf logits (probability 0) add 0, not nan: PyTorch clamps them to the dtype's min
    let logits = self.logits.clamp(min=finfo(self.logits.dtype).min)
    return -(self.probs * logits).sum(-1)
  }
  enumerate_support() = arange(self.num_events).reshape([self.num_events] + [1 for s in self.batch_shape]).expand([self.num_events] + self.batch_shape)
}

model Normal(loc, scale, validate_args=none) {
  "A Gaussian with mean loc and standard deviation scale (tensors or numbers, broadcast), as torch.distributions.Normal. Example: distributions.Normal(zeros(3), ones(3)).log_prob(randn(3))"
  let _l = _as_tensor(loc, scale if type(scale) == "tensor" else none)
  let _s = _as_tensor(scale, _l)
  let _pair = broadcast_tensors(_l, _s)
  let _valid = _validating(validate_args) and _check_normal(_pair[0], _pair[1])
  loc = _pair[0]
  scale = _pair[1]
  batch_shape = _shape_list(self.loc.shape)
  event_shape = []
  mean = self.loc
  mode = self.loc
  stddev = self.scale
  variance = self.scale ** 2
  rsample(sample_shape=[]) {
    let shape = _sample_shape("Normal.rsample()", sample_shape) + self.batch_shape
    return self.loc.expand(shape) + randn(shape, dtype=self.loc.dtype, device=self.loc.device) * self.scale.expand(shape)
  }
  sample(sample_shape=[]) {
    let out = none
    no_grad { out = self.rsample(_sample_shape("Normal.sample()", sample_shape)) }
    return out
  }
  log_prob(value) {
    let x = _checked_value(validate_args, "Normal.log_prob()", value)
    let var = self.scale ** 2
    return -((x - self.loc) ** 2) / (2 * var) - self.scale.log() - math.log(math.sqrt(2 * math.pi))
  }
  cdf(value) = 0.5 * (1 + erf((_checked_value(validate_args, "Normal.cdf()", value) - self.loc) * self.scale.reciprocal() / math.sqrt(2)))
  icdf(value) = self.loc + self.scale * erfinv(2 * value - 1) * math.sqrt(2)
  entropy() = 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log()
}

model Bernoulli(probs=none, logits=none, validate_args=none) {
  "A distribution over {0, 1} with P(1) = probs (or sigmoid(logits)), as torch.distributions.Bernoulli. Example: distributions.Bernoulli(logits=randn(5)).sample()"
  let _checked = _one_of("Bernoulli", probs, logits)
  logits = _as_floating(logits) if logits != none else log(_clamp_probs(_as_floating(probs))) - log1p(-_clamp_probs(_as_floating(probs)))
  probs = sigmoid(logits) if probs == none else _as_floating(probs)
  let _valid = _validating(validate_args) and _check_bernoulli(probs, logits, self.probs, self.logits)
  batch_shape = _shape_list(self.probs.shape)
  event_shape = []
  mean = self.probs
  variance = self.probs * (1 - self.probs)
  sample(sample_shape=[]) {
    let shape = _sample_shape("Bernoulli.sample()", sample_shape) + self.batch_shape
    let out = none
    no_grad { out = bernoulli(self.probs.expand(shape)) }
    return out
  }
  log_prob(value) {
    if _validating(validate_args) { _check_binary(value) }
    let (logits, v) = broadcast_tensors(self.logits, value.to(self.logits.dtype))
    return -binary_cross_entropy_with_logits(logits, v, reduction="none")
  }
  entropy() = binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")
}

# ---- Uniform, Exponential and Laplace (round 7) ---------------------------------------

model Uniform(low, high, validate_args=none) {
  "Uniform on [low, high) (tensors or numbers, broadcast), as torch.distributions.Uniform. Example: distributions.Uniform(0.0, ones(3)).rsample()"
  let _p = _pair("Uniform()", "low", low, "high", high)
  let _valid = _validating(validate_args) and _require(_p[0], _p[0] < _p[1], "Uniform()", "low", "below high")
  low = _p[0]
  high = _p[1]
  batch_shape = _shape_list(self.low.shape)
  event_shape = []
  mean = (self.low + self.high) / 2
  mode = full_like(self.low, float("nan"))
  stddev = (self.high - self.low) / math.sqrt(12.0)
  variance = (self.high - self.low) ** 2 / 12
  rsample(sample_shape=[]) = self.low + _unit_draws("Uniform.rsample()", sample_shape, self.batch_shape, self.low) * (self.high - self.low)
  sample(sample_shape=[]) {
    let out = none
    no_grad { out = self.rsample(sample_shape) }
    return out
  }
  log_prob(value) {
    let v = _check_support(validate_args, "Uniform.log_prob()", value, fn(v) = (v >= self.low).logical_and(v <= self.high), f"in [low, high]")
    let inside = (v >= self.low).logical_and(v < self.high).to(self.low.dtype)
    return log(inside) - log(self.high - self.low)
  }
  cdf(value) {
    let v = _check_support(validate_args, "Uniform.cdf()", value, fn(v) = (v >= self.low).logical_and(v <= self.high), f"in [low, high]")
    return ((v - self.low) / (self.high - self.low)).clamp(0, 1)
  }
  icdf(value) = value * (self.high - self.low) + self.low
  entropy() = log(self.high - self.low)
}

model Exponential(rate, validate_args=none) {
  "The exponential distribution of the given rate (a tensor or a number), as torch.distributions.Exponential. Example: distributions.Exponential(tensor([0.5, 2.0])).rsample()"
  rate = _as_floating(_param("Exponential()", "rate", rate))
  let _valid = _validating(validate_args) and _require(self.rate, self.rate > 0, "Exponential()", "rate", "above 0")
  batch_shape = _shape_list(self.rate.shape)
  event_shape = []
  mean = self.rate.reciprocal()
  mode = zeros_like(self.rate)
  stddev = self.rate.reciprocal()
  variance = self.rate ** -2
  rsample(sample_shape=[]) = -log1p(-_unit_draws("Exponential.rsample()", sample_shape, self.batch_shape, self.rate)) / self.rate
  sample(sample_shape=[]) {
    let out = none
    no_grad { out = self.rsample(sample_shape) }
    return out
  }
  log_prob(value) {
    let v = _check_support(validate_args, "Exponential.log_prob()", value, fn(v) = v >= 0, "at least 0")
    return log(self.rate) - self.rate * v
  }
  cdf(value) = 1 - exp(-self.rate * _check_support(validate_args, "Exponential.cdf()", value, fn(v) = v >= 0, "at least 0"))
  icdf(value) = -log1p(-value) / self.rate
  entropy() = 1.0 - log(self.rate)
}

model Laplace(loc, scale, validate_args=none) {
  "The Laplace distribution of the given loc and scale (tensors or numbers, broadcast), as torch.distributions.Laplace. Example: distributions.Laplace(0.0, ones(3)).rsample()"
  let _p = _pair("Laplace()", "loc", loc, "scale", scale)
  let _valid = _validating(validate_args) and _check_normal(_p[0], _p[1], "Laplace()")
  loc = _p[0]
  scale = _p[1]
  batch_shape = _shape_list(self.loc.shape)
  event_shape = []
  mean = self.loc
  mode = self.loc
  stddev = math.sqrt(2.0) * self.scale
  variance = 2 * self.scale ** 2
  rsample(sample_shape=[]) {
    # u uniform in (-1, 1): PyTorch's draw, its -1 end moved in by eps (log1p(-1) = -inf)
    let eps = finfo(self.loc.dtype).eps
    let u = _unit_draws("Laplace.rsample()", sample_shape, self.batch_shape, self.loc) * (2 - eps) - 1 + eps
    return self.loc - self.scale * sign(u) * log1p(-u.abs())
  }
  sample(sample_shape=[]) {
    let out = none
    no_grad { out = self.rsample(sample_shape) }
    return out
  }
  log_prob(value) {
    let v = _checked_value(validate_args, "Laplace.log_prob()", value)
    return -log(2 * self.scale) - (v - self.loc).abs() / self.scale
  }
  cdf(value) {
    let d = _checked_value(validate_args, "Laplace.cdf()", value) - self.loc
    return 0.5 - 0.5 * sign(d) * expm1(-d.abs() / self.scale)
  }
  icdf(value) {
    let term = value - 0.5
    return self.loc - self.scale * sign(term) * log1p(-2 * term.abs())
  }
  entropy() = 1 + log(2 * self.scale)
}

# ---- MultivariateNormal and Independent (round 7) ---------------------------------------

# L^-1 b and log det(L) of a Cholesky factor: stdlib/_distributions_base.dsl's (LowRankMultivariateNormal's too)
let _tril_solve = _b._tril_solve
let _half_log_det = _b._half_log_det

# a value for an error: a tensor's shape, or the type of anything else

fn _check_square(who, name, m) {
  if type(m) != "tensor" { fail(f"distributions.{who}: {name} must be a tensor, got {type(m)}") }
  if m.dim() < 2 or m.shape[-1] != m.shape[-2] {
    fail(f"distributions.{who}: {name} must be a batch of square matrices [..., k, k], got shape {list(m.shape)}")
  }
  return m
}

fn _check_mvn(given_name, given, L) {
  if given_name == "scale_tril" {
    _require(given.triu(1), given.triu(1) == 0, "MultivariateNormal()", "scale_tril", "lower triangular (zeros above the diagonal)")
    _require(diagonal(given, 0, -2, -1), diagonal(given, 0, -2, -1) > 0, "MultivariateNormal()", "scale_tril's diagonal", "above 0")
  } else {
    let asym = (given - given.transpose(-2, -1)).abs().amax([-2, -1])
    _require(asym, asym <= 1e-6 * given.abs().amax([-2, -1]).clamp(min=1), "MultivariateNormal()", f"{given_name} minus its transpose", "0 (the matrix must be symmetric)")
  }
  return true
}

# the Cholesky factor of the covariance, from whichever matrix was given
fn _mvn_scale_tril(covariance_matrix, precision_matrix, scale_tril) {
  # tril(): only the lower triangle is read (PyTorch's triangular solves), so the upper
  # one gets no gradient, as there
  if scale_tril != none { return scale_tril.tril() }
  if covariance_matrix != none { return cholesky(covariance_matrix) }
  return cholesky(inverse(precision_matrix))
}

model MultivariateNormal(loc, covariance_matrix=none, precision_matrix=none, scale_tril=none, validate_args=none) {
  "A Gaussian over vectors [..., k] with mean loc and one of covariance_matrix, precision_matrix or scale_tril [..., k, k], as torch.distributions.MultivariateNormal. Example: distributions.MultivariateNormal(zeros(2), covariance_matrix=eye(2)).rsample([3])"
  let _given = [n for (n, m) in [("covariance_matrix", covariance_matrix), ("precision_matrix", precision_matrix), ("scale_tril", scale_tril)] if m != none]
  let _one = len(_given) == 1 or fail(f"distributions.MultivariateNormal(): give exactly one of covariance_matrix, precision_matrix or scale_tril, got {len(_given)}")
  let _m = _check_square("MultivariateNormal()", _given[0], [m for m in [covariance_matrix, precision_matrix, scale_tril] if m != none][0])
  let _loc_ok = (type(loc) == "tensor" and loc.dim() >= 1) or fail(f"distributions.MultivariateNormal(): loc must be a tensor of at least 1 dim (the event), got {_kind_of(loc)}")
  let _k_ok = loc.shape[-1] == _m.shape[-1] or fail(f"distributions.MultivariateNormal(): loc has {loc.shape[-1]} elements in its last dim, the matrix is {_m.shape[-1]} x {_m.shape[-1]}")
  let _valid = _validating(validate_args) and _check_mvn(_given[0], _m, none)
  batch_shape = list(broadcast_shapes(loc.shape[:-1], _m.shape[:-2]))
  event_shape = [loc.shape[-1]]
  loc = loc.expand(self.batch_shape + self.event_shape)
  scale_tril = _mvn_scale_tril(covariance_matrix, precision_matrix, scale_tril).expand(self.batch_shape + self.event_shape + self.event_shape)
  covariance_matrix = self.scale_tril @ self.scale_tril.transpose(-2, -1)
  precision_matrix = inverse(self.covariance_matrix)
  mean = self.loc
  mode = self.loc
  variance = (self.scale_tril ** 2).sum(-1)
  stddev = self.variance.sqrt()
  rsample(sample_shape=[]) {
    let shape = _sample_shape("MultivariateNormal.rsample()", sample_shape) + self.batch_shape + self.event_shape
    let eps = randn(shape, dtype=self.loc.dtype, device=self.loc.device)
    return self.loc + (self.scale_tril @ eps.unsqueeze(-1)).squeeze(-1)
  }
  sample(sample_shape=[]) {
    let out = none
    no_grad { out = self.rsample(sample_shape) }
    return out
  }
  log_prob(value) {
    let diff = _event_value("MultivariateNormal.log_prob()", _checked_value(validate_args, "MultivariateNormal.log_prob()", value), self.event_shape) - self.loc
    let m = (_tril_solve(self.scale_tril, diff) ** 2).sum(-1)
    return -0.5 * (self.event_shape[0] * math.log(2 * math.pi) + m) - _half_log_det(self.scale_tril)
  }
  entropy() = 0.5 * self.event_shape[0] * (1.0 + math.log(2 * math.pi)) + _half_log_det(self.scale_tril)
}

fn _sum_rightmost(t, n) = t if n == 0 else t.sum([-(k + 1) for k in range(n)])

model Independent(base_distribution, reinterpreted_batch_ndims, validate_args=none) {
  "base_distribution with its last reinterpreted_batch_ndims batch dims read as event dims (log_prob and entropy summed over them), as torch.distributions.Independent. Example: distributions.Independent(distributions.Normal(zeros(3), ones(3)), 1).log_prob(zeros(3))"
  let _base_ok = hasattr(base_distribution, "batch_shape") or fail(f"distributions.Independent(): base_distribution must be a distribution, got {type(base_distribution)}")
  let _n_ok = (type(reinterpreted_batch_ndims) == "int" and reinterpreted_batch_ndims >= 0 and reinterpreted_batch_ndims <= len(base_distribution.batch_shape)) or fail(f"distributions.Independent(): reinterpreted_batch_ndims must be an int from 0 to the base's {len(base_distribution.batch_shape)} batch dims, got {repr(reinterpreted_batch_ndims)}")
  base_dist = base_distribution
  reinterpreted_batch_ndims = reinterpreted_batch_ndims
  batch_shape = base_distribution.batch_shape[:len(base_distribution.batch_shape) - reinterpreted_batch_ndims]
  event_shape = base_distribution.batch_shape[len(base_distribution.batch_shape) - reinterpreted_batch_ndims:] + base_distribution.event_shape
  mean = base_distribution.mean
  variance = base_distribution.variance
  rsample(sample_shape=[]) = self.base_dist.rsample(sample_shape)
  sample(sample_shape=[]) = self.base_dist.sample(sample_shape)
  log_prob(value) = _sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)
  entropy() = _sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)
}

# ---- Gamma, Beta and Dirichlet (round 7) -------------------------------------------------

# concentration expanded to sample_shape + shape, for a reparameterized draw
fn _expanded(who, sample_shape, shape, concentration) = concentration.expand(_sample_shape(who, sample_shape) + shape)
let _rs = _distributions_rsample


model Gamma(concentration, rate, validate_args=none) {
  "The Gamma distribution of the given concentration and rate (tensors or numbers, broadcast), as torch.distributions.Gamma. Example: distributions.Gamma(2.0, tensor([1.0, 3.0])).log_prob(tensor([0.5, 1.0]))"
  let _p = _pair("Gamma()", "concentration", concentration, "rate", rate)
  let _valid = _validating(validate_args) and _check_positive("Gamma()", "concentration", _p[0]) and _check_positive("Gamma()", "rate", _p[1])
  concentration = _p[0]
  rate = _p[1]
  batch_shape = _shape_list(self.rate.shape)
  event_shape = []
  mean = self.concentration / self.rate
  mode = ((self.concentration - 1) / self.rate).clamp(min=0)
  variance = self.concentration / self.rate ** 2
  sample(sample_shape=[]) = (_gamma_draws("Gamma.sample()", sample_shape, self.batch_shape, self.concentration) / self.rate.detach()).clamp(min=finfo(self.rate.dtype).tiny)
  rsample(sample_shape=[]) = _rs._gamma_rsample(_expanded("Gamma.rsample()", sample_shape, self.batch_shape, self.concentration), self.rate, _standard_gamma)
  log_prob(value) {
    let v = _check_support(validate_args, "Gamma.log_prob()", value, fn(v) = v >= 0, "at least 0")
    return _gamma_log_prob(self.concentration, self.rate, v)
  }
  entropy() = _gamma_entropy(self.concentration, self.rate)
}

# Dirichlet's formulas on concentrations [..., k], which Beta stacks as [c1, c0].
fn _dirichlet_log_prob(c, v) = xlogy(c - 1.0, v).sum(-1) + lgamma(c.sum(-1)) - lgamma(c).sum(-1)

fn _dirichlet_entropy(c) {
  let k = c.shape[-1]
  let a0 = c.sum(-1)
  return lgamma(c).sum(-1) - lgamma(a0) - (k - a0) * digamma(a0) - ((c - 1.0) * digamma(c)).sum(-1)
}

model Dirichlet(concentration, validate_args=none) {
  "The Dirichlet distribution over the simplex of the last dim of concentration [..., k], as torch.distributions.Dirichlet. Example: distributions.Dirichlet(tensor([1.0, 2.0, 3.0])).log_prob(tensor([0.2, 0.3, 0.5]))"
  let _t = (type(concentration) == "tensor" and concentration.dim() >= 1) or fail(f"distributions.Dirichlet(): concentration must be a tensor of at least 1 dim (the categories), got {_kind_of(concentration)}")
  concentration = _as_floating(concentration)
  let _valid = _validating(validate_args) and _check_positive("Dirichlet()", "concentration", self.concentration)
  batch_shape = _shape_list(self.concentration.shape)[:-1]
  event_shape = [self.concentration.shape[-1]]
  mean = self.concentration / self.concentration.sum(-1, keepdim=true)
  variance = self.concentration * (self.concentration.sum(-1, keepdim=true) - self.concentration) / (self.concentration.sum(-1, keepdim=true) ** 2 * (self.concentration.sum(-1, keepdim=true) + 1))
  sample(sample_shape=[]) {
    let g = _gamma_draws("Dirichlet.sample()", sample_shape, self.batch_shape + self.event_shape, self.concentration)
    return g / g.sum(-1, keepdim=true)
  }
  rsample(sample_shape=[]) = _rs._DirichletDraw(_expanded("Dirichlet.rsample()", sample_shape, self.batch_shape + self.event_shape, self.concentration), _standard_gamma)
  log_prob(value) {
    let ok = fn(v) = (v >= 0).logical_and(((v.sum(-1, keepdim=true) - 1).abs() <= 1e-6).expand(list(v.shape)))
    let v = _check_support(validate_args, "Dirichlet.log_prob()", _event_value("Dirichlet.log_prob()", _value_tensor("Dirichlet.log_prob()", value), self.event_shape), ok, "on the simplex (each at least 0, summing to 1 along the last dim)")
    return _dirichlet_log_prob(self.concentration, v)
  }
  entropy() = _dirichlet_entropy(self.concentration)
}

model Beta(concentration1, concentration0, validate_args=none) {
  "The Beta distribution on [0, 1] of the given concentrations (tensors or numbers, broadcast), as torch.distributions.Beta. Example: distributions.Beta(2.0, tensor([1.0, 3.0])).log_prob(tensor([0.5, 0.25]))"
  let _p = _pair("Beta()", "concentration1", concentration1, "concentration0", concentration0)
  let _valid = _validating(validate_args) and _check_positive("Beta()", "concentration1", _p[0]) and _check_positive("Beta()", "concentration0", _p[1])
  concentration1 = _p[0]
  concentration0 = _p[1]
  batch_shape = _shape_list(self.concentration1.shape)
  event_shape = []
  mean = self.concentration1 / (self.concentration1 + self.concentration0)
  variance = self.concentration1 * self.concentration0 / ((self.concentration1 + self.concentration0) ** 2 * (self.concentration1 + self.concentration0 + 1))
  sample(sample_shape=[]) {
    let x = _gamma_draws("Beta.sample()", sample_shape, self.batch_shape, self.concentration1)
    let y = _gamma_draws("Beta.sample()", sample_shape, self.batch_shape, self.concentration0)
    return x / (x + y)
  }
  rsample(sample_shape=[]) {
    let c = stack(broadcast_tensors(self.concentration1, self.concentration0), -1)
    return _rs._DirichletDraw(_expanded("Beta.rsample()", sample_shape, self.batch_shape + [2], c), _standard_gamma).select(-1, 0)
  }
  log_prob(value) {
    let v = _check_support(validate_args, "Beta.log_prob()", value, fn(v) = (v >= 0).logical_and(v <= 1), "in [0, 1]")
    let c = stack(broadcast_tensors(self.concentration1, self.concentration0), -1)
    let (v1, c1) = broadcast_tensors(v.to(c.dtype), self.concentration1)
    return _dirichlet_log_prob(c.expand(list(c1.shape) + [2]), stack([v1, 1.0 - v1], -1))
  }
  entropy() = _dirichlet_entropy(stack([self.concentration1, self.concentration0], -1))
}

# ---- kl_divergence --------------------------------------------------------------------

# Note [KL formulas by pair]
# kl_divergence(p, q) looks up the closed form of KL(p || q) for the pair of types, as
# torch.distributions.kl_divergence's registry does, with PyTorch's formulas (inf where
# q gives zero probability to what p does not); a pair without one is an error naming it.
fn _kl_normal(p, q) {
  let var_ratio = (p.scale / q.scale) ** 2
  let t1 = ((p.loc - q.loc) / q.scale) ** 2
  return 0.5 * (var_ratio + t1 - 1 - log(var_ratio))
}

fn _kl_bernoulli(p, q) {
  let t1 = p.probs * (softplus(-q.logits) - softplus(-p.logits))
  t1 = where(p.probs == 0, 0.0, where(q.probs == 0, float("inf"), t1))
  let t2 = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
  t2 = where(p.probs == 1, 0.0, where(q.probs == 1, float("inf"), t2))
  return t1 + t2
}

fn _kl_categorical(p, q) {
  let shape = list(broadcast_shapes(p.probs.shape, q.probs.shape))
  let (pp, pl, qp, ql) = (p.probs.expand(shape), p.logits.expand(shape), q.probs.expand(shape), q.logits.expand(shape))
  let t = where(pp == 0, 0.0, where(qp == 0, float("inf"), pp * (pl - ql)))
  return t.sum(-1)
}

fn _kl_exponential(p, q) {
  let ratio = q.rate / p.rate
  return -log(ratio) + ratio - 1
}

fn _kl_uniform(p, q) {
  let out = log((q.high - q.low) / (p.high - p.low))
  return where((q.low > p.low).logical_or(q.high < p.high), float("inf"), out)
}

fn _kl_laplace(p, q) {
  let scale_ratio = p.scale / q.scale
  let d = (p.loc - q.loc).abs()
  return -log(scale_ratio) + d / q.scale + scale_ratio * exp(-d / p.scale) - 1
}

fn _kl_mvn(p, q) {
  let k = p.event_shape[0]
  let shape = list(broadcast_shapes(p.scale_tril.shape, q.scale_tril.shape))
  let (lp, lq) = (p.scale_tril.expand(shape), q.scale_tril.expand(shape))
  let term2 = (linalg_solve(lq, lp) ** 2).sum([-2, -1])
  let term3 = (_tril_solve(q.scale_tril, q.loc - p.loc) ** 2).sum(-1)
  return _half_log_det(q.scale_tril) - _half_log_det(p.scale_tril) + 0.5 * (term2 + term3 - k)
}

fn _kl_gamma(p, q) {
  let t1 = q.concentration * log(p.rate / q.rate)
  let t2 = lgamma(q.concentration) - lgamma(p.concentration)
  let t3 = (p.concentration - q.concentration) * digamma(p.concentration)
  return t1 + t2 + t3 + (q.rate - p.rate) * (p.concentration / p.rate)
}

fn _kl_dirichlet_of(pc, qc) {
  let (sum_p, sum_q) = (pc.sum(-1), qc.sum(-1))
  let t4 = digamma(pc) - digamma(sum_p).unsqueeze(-1)
  return lgamma(sum_p) - lgamma(sum_q) - (lgamma(pc) - lgamma(qc)).sum(-1) + ((pc - qc) * t4).sum(-1)
}

fn _kl_dirichlet(p, q) = _kl_dirichlet_of(p.concentration, q.concentration)

fn _beta_pair(d) = stack(broadcast_tensors(d.concentration1, d.concentration0), -1)

fn _kl_beta(p, q) {
  let (pc, qc) = broadcast_tensors(_beta_pair(p), _beta_pair(q))
  return _kl_dirichlet_of(pc, qc)
}

fn _kl_independent(p, q) {
  if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims {
    fail(f"distributions.kl_divergence(): two Independent distributions need the same reinterpreted_batch_ndims, got {p.reinterpreted_batch_ndims} and {q.reinterpreted_batch_ndims}")
  }
  return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)
}

let _kl_table = {"Normal": _kl_normal, "Bernoulli": _kl_bernoulli, "Categorical": _kl_categorical,
                 "Exponential": _kl_exponential, "Uniform": _kl_uniform, "Laplace": _kl_laplace,
                 "MultivariateNormal": _kl_mvn, "Independent": _kl_independent, "Gamma": _kl_gamma,
                 "Beta": _kl_beta, "Dirichlet": _kl_dirichlet, "LogNormal": _kl_normal, "Chi2": _kl_gamma,
                 "HalfNormal": _distributions_more._kl_halfnormal, "Cauchy": _distributions_more._kl_cauchy,
                 "Gumbel": _distributions_more._kl_gumbel, "Poisson": _distributions_more._kl_poisson,
                 "Geometric": _distributions_more._kl_geometric, "Binomial": _distributions_binomial._kl_binomial,
                 "OneHotCategorical": fn(p, q) = _kl_categorical(p._categorical, q._categorical), "Pareto": fn(p, q) = _kl_pareto(p, q)}

# PyTorch's _kl_pareto_pareto: inf where p reaches below q's scale
fn _kl_pareto(p, q) {
  let alpha_ratio = q.alpha / p.alpha
  let r = q.alpha * (p.scale / q.scale).log() - alpha_ratio.log() + alpha_ratio - 1
  return where(p.scale < q.scale, float("inf"), r)
}

fn kl_divergence(p, q) {
  """KL(p || q) of two distributions of the same kind, batched, as torch.distributions.kl_divergence.

  Example: distributions.kl_divergence(distributions.Normal(0.0, 1.0), distributions.Normal(1.0, 2.0))
  """
  let (tp, tq) = (type(p), type(q))
  if tp != tq or not (tp in _kl_table) {
    fail(f"distributions.kl_divergence(): no formula for the pair ({tp}, {tq}); the pairs are two of the same kind among {sorted(list(_kl_table.keys()))}")
  }
  if list(p.event_shape) != list(q.event_shape) {
    fail(f"distributions.kl_divergence(): two {tp} distributions of different event shapes ({list(p.event_shape)} and {list(q.event_shape)}) have no KL divergence")
  }
  return _kl_table[tp](p, q)
}

# round 8's distributions (stdlib/_distributions_more.dsl)
let LogNormal = _distributions_more.LogNormal
let HalfNormal = _distributions_more.HalfNormal
let Cauchy = _distributions_more.Cauchy
let Gumbel = _distributions_more.Gumbel
let StudentT = _distributions_more.StudentT
let Chi2 = _distributions_more.Chi2
let Poisson = _distributions_more.Poisson
let Geometric = _distributions_more.Geometric
# round 8b (stdlib/_distributions_binomial.dsl)
let Binomial = _distributions_binomial.Binomial
let NegativeBinomial = _distributions_binomial.NegativeBinomial  # round 9
# round 9 (stdlib/_distributions_transformed.dsl): TransformedDistribution and its
# transforms, here and as distributions.transforms.<name> (PyTorch's module path)
let transforms = _distributions_transformed
let TransformedDistribution = _distributions_transformed.TransformedDistribution
let ExpTransform = _distributions_transformed.ExpTransform
let AffineTransform = _distributions_transformed.AffineTransform
let SigmoidTransform = _distributions_transformed.SigmoidTransform
let TanhTransform = _distributions_transformed.TanhTransform
let PowerTransform = _distributions_transformed.PowerTransform
let AbsTransform = _distributions_transformed.AbsTransform
let MixtureSameFamily = _distributions_mixture.MixtureSameFamily
let LowRankMultivariateNormal = _distributions_mixture.LowRankMultivariateNormal
let VonMises = _distributions_extra.VonMises
let Kumaraswamy = _distributions_extra.Kumaraswamy
let FisherSnedecor = _distributions_extra.FisherSnedecor
# round 9's distributions on a Categorical (stdlib/_distributions_categorical.dsl)
let OneHotCategorical = _distributions_categorical.OneHotCategorical
let Multinomial = _distributions_categorical.Multinomial
let RelaxedOneHotCategorical = _distributions_categorical.RelaxedOneHotCategorical
let RelaxedBernoulli = _distributions_categorical.RelaxedBernoulli
let ExpRelaxedCategorical = _distributions_categorical.ExpRelaxedCategorical
let LogitRelaxedBernoulli = _distributions_categorical.LogitRelaxedBernoulli

# Round 9's distributions made of a base and transforms, as PyTorch's (each holds its
# TransformedDistribution as _td and adds its moments).
let _td_of = _distributions_transformed.TransformedDistribution
let _tr = _distributions_transformed
let _euler = 0.5772156649015329

model Pareto(scale, alpha, validate_args=none) {
  "The Pareto distribution scale * exp(X), X ~ Exponential(alpha), as torch.distributions.Pareto. Example: distributions.Pareto(1.0, tensor([2.0, 3.0])).sample()"
  let _p = _pair("Pareto()", "scale", scale, "alpha", alpha)
  scale = _p[0]
  alpha = _p[1]
  let _valid_scale = _validating(validate_args) and _check_positive("Pareto()", "scale", self.scale)
  let _valid_alpha = _validating(validate_args) and _check_positive("Pareto()", "alpha", self.alpha)
  _td = _td_of(Exponential(self.alpha, validate_args=validate_args), [_tr.ExpTransform(), _tr.AffineTransform(0.0, self.scale)])
  batch_shape = _shape_list(self.scale.shape)
  event_shape = []
  mean = self.alpha.clamp(min=1) * self.scale / (self.alpha.clamp(min=1) - 1)
  mode = self.scale
  variance = self.scale ** 2 * self.alpha.clamp(min=2) / ((self.alpha.clamp(min=2) - 1) ** 2 * (self.alpha.clamp(min=2) - 2))
  sample(sample_shape=[]) = self._td.sample(sample_shape)
  rsample(sample_shape=[]) = self._td.rsample(sample_shape)
  log_prob(value) = self._td.log_prob(value)
  cdf(value) = self._td.cdf(value)
  icdf(value) = self._td.icdf(value)
  entropy() = (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())
}

model Weibull(scale, concentration, validate_args=none) {
  "The Weibull distribution scale * X ** (1 / concentration), X ~ Exponential(1), as torch.distributions.Weibull. Example: distributions.Weibull(1.0, tensor([0.5, 2.0])).sample()"
  let _p = _pair("Weibull()", "scale", scale, "concentration", concentration)
  scale = _p[0]
  concentration = _p[1]
  let _valid_scale = _validating(validate_args) and _check_positive("Weibull()", "scale", self.scale)
  let _valid_concentration = _validating(validate_args) and _check_positive("Weibull()", "concentration", self.concentration)
  concentration_reciprocal = self.concentration.reciprocal()
  _td = _td_of(Exponential(ones_like(self.scale), validate_args=validate_args), [_tr.PowerTransform(self.concentration_reciprocal), _tr.AffineTransform(0.0, self.scale)])
  batch_shape = _shape_list(self.scale.shape)
  event_shape = []
  mean = self.scale * exp(lgamma(1 + self.concentration_reciprocal))
  mode = self.scale * ((self.concentration - 1) / self.concentration) ** self.concentration_reciprocal
  variance = self.scale ** 2 * (exp(lgamma(1 + 2 * self.concentration_reciprocal)) - exp(2 * lgamma(1 + self.concentration_reciprocal)))
  sample(sample_shape=[]) = self._td.sample(sample_shape)
  rsample(sample_shape=[]) = self._td.rsample(sample_shape)
  log_prob(value) = self._td.log_prob(value)
  cdf(value) = self._td.cdf(value)
  icdf(value) = self._td.icdf(value)
  entropy() = _euler * (1 - self.concentration_reciprocal) + log(self.scale * self.concentration_reciprocal) + 1
}

model HalfCauchy(scale, validate_args=none) {
  "The distribution of |X| for X ~ Cauchy(0, scale), as torch.distributions.HalfCauchy. Example: distributions.HalfCauchy(ones(3)).sample()"
  _td = _td_of(Cauchy(0.0, scale, validate_args=validate_args), _tr.AbsTransform())
  scale = self._td.base_dist.scale
  batch_shape = _shape_list(self.scale.shape)
  event_shape = []
  mean = full_like(self.scale, float("inf"))
  mode = zeros_like(self.scale)
  variance = self._td.base_dist.variance
  sample(sample_shape=[]) = self._td.sample(sample_shape)
  rsample(sample_shape=[]) = self._td.rsample(sample_shape)
  log_prob(value) {
    let v = _check_support(validate_args, "HalfCauchy.log_prob()", _as_tensor(value, self.scale), fn(v) = v >= 0, "at least 0")
    return where(v >= 0, self._td.base_dist.log_prob(v) + math.log(2), -float("inf"))
  }
  cdf(value) = 2 * self._td.base_dist.cdf(value) - 1
  icdf(value) = self._td.base_dist.icdf((value + 1) / 2)
  entropy() = self._td.base_dist.entropy() - math.log(2)
}
let ComposeTransform = _distributions_transformed.ComposeTransform
