# distributions: the few of PyTorch's torch.distributions that training programs use,
# with PyTorch's arguments and formulas: Categorical (REINFORCE's policy), Normal
# (Gaussian policies, mixture densities, the VAE's reparameterization) and Bernoulli.
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

fn _shape_list(s) = [n for n in s]

# sample_shape as a list of sizes >= 0 (PyTorch's torch.Size); a float, a str, none or
# a negative size failed inside expand or multinomial, naming them
fn _sample_shape(who, sample_shape) {
  let sizes = [sample_shape] if type(sample_shape) == "int" else sample_shape
  let ok = type(sizes) in ["list", "tuple"] and all([type(n) == "int" and n >= 0 for n in sizes])
  if not ok { fail(f"distributions.{who}: sample_shape must be a list of sizes >= 0 (or one int), got {repr(sample_shape)}") }
  return list(sizes)
}

# a number as a 0-dim tensor of `like`'s dtype (PyTorch's broadcast_all)
fn _as_tensor(v, like=none) {
  if type(v) == "tensor" { return v }
  assert(type(v) in ["int", "float"], f"distributions: expected a tensor or a number, got {type(v)}")
  return tensor(float(v), dtype=(like.dtype if like != none else f32))
}

# An integer or bool tensor of probs or logits as f32 (Categorical's division does the
# same): Bernoulli(probs=tensor([1, 0])) failed in finfo() of its eps, logits=tensor([1, 2])
# in binary_cross_entropy_with_logits.
fn _as_floating(v) {
  let t = _as_tensor(v)
  return t if t.dtype.is_floating_point else t.to(f32)
}

fn _one_of(who, probs, logits) {
  let got = "both" if probs != none else "neither"
  assert((probs == none) != (logits == none), f"distributions.{who}(): give exactly one of probs or logits, got {got}")
}

# Note [Validated arguments]
# As PyTorch's (whose validate_args is on unless Python runs with -O), a distribution
# checks its parameters when made and the values given to log_prob and cdf, unless
# validate_args=false: Normal(0.0, -1.0) sampled N(0, 1) mirrored and gave a NaN
# log_prob, Categorical(probs=[-1, 2]) and Bernoulli(probs=1.5) made NaN log_probs,
# Categorical's log_prob(0.5) read category 0 and Bernoulli's log_prob(0.5) a value
# between the two, all silently. Each check fails at the user's line naming the
# distribution, the argument, the constraint and the first value that breaks it.
# The checks read values, so compile() records the code without them (is_compiling(),
# as nn.functional's class checks); under vmap they fail as PyTorch's do (data-
# dependent control flow), and validate_args=false is the way, as there.
fn _validating(validate_args) = validate_args != false and not is_compiling()

# the first element of t where the bool tensor `bad` is true, as a number
fn _first_bad(t, bad) = t.reshape(-1)[bad.reshape(-1)][0].item()

fn _require(t, ok, who, what, constraint) {
  let bad = ok.logical_not()
  if bad.any().item() { fail(f"distributions.{who}: {what} must be {constraint}, got {_first_bad(t, bad)}") }
}

# probs or logits given to Categorical: a tensor of one dim or more with a category
fn _check_categorical_arg(name, t) {
  if type(t) != "tensor" { fail(f"distributions.Categorical(): {name} must be a tensor, got {type(t)}") }
  if t.dim() == 0 { fail(f"distributions.Categorical(): {name} must have at least one dim (the categories), got a 0-dim tensor") }
  if t.shape[-1] == 0 { fail(f"distributions.Categorical(): {name} must have at least one category in its last dim, got shape {list(t.shape)}") }
}

# Categorical's probs: each finite and at least 0, each row's sum above 0 (PyTorch's
# Simplex() after normalizing); `normalized` is the field, `given` the argument
fn _check_probs_simplex(normalized, given) {
  _require(given, isfinite(given).logical_and(given >= 0), "Categorical()", "probs", "finite and at least 0")
  _require(given.sum(-1), normalized.sum(-1) > 0, "Categorical()", "the sum of probs along the last dim", "above 0")
  return true
}

# Categorical's logits: real numbers or -inf, not -inf in every category of a row
fn _check_logits_real(normalized, given) {
  _require(given, given.isnan().logical_not().logical_and(given != float("inf")), "Categorical()", "logits", "a real number or -inf")
  _require(given.amax(-1), normalized.isnan().logical_not().all(-1), "Categorical()", "the largest of logits along the last dim", "above -inf")
  return true
}

fn _value_tensor(who, value) {
  if type(value) != "tensor" { fail(f"distributions.{who}: value must be a tensor, got {type(value)}") }
  return value
}

fn _check_real(who, what, t) {
  if type(t) in ["int", "float"] { t = tensor(float(t)) }  # Normal's formulas take numbers too
  _require(t, _value_tensor(who, t).isnan().logical_not(), who, what, "a real number (not nan)")
  return true
}

fn _checked_value(validate_args, who, value) {
  if _validating(validate_args) { _check_real(who, "value", value) }
  return value
}

fn _check_category(value, num_events) {
  let v = _value_tensor("Categorical.log_prob()", value).to(f64)
  _require(value, (v == v.floor()).logical_and(v >= 0).logical_and(v < num_events), "Categorical.log_prob()", "value",
           f"a category index from 0 to {num_events - 1}")
  return true
}

fn _check_normal(loc, scale) {
  _require(loc, loc.isnan().logical_not(), "Normal()", "loc", "a real number (not nan)")
  _require(scale, scale > 0, "Normal()", "scale", "above 0")
  return true
}

fn _check_bernoulli(probs_given, logits_given, probs, logits) {
  if probs_given != none { _require(probs, (probs >= 0).logical_and(probs <= 1), "Bernoulli()", "probs", "in [0, 1]") }
  if logits_given != none { _check_real("Bernoulli()", "logits", logits) }
  return true
}

fn _check_binary(value) {
  let v = _value_tensor("Bernoulli.log_prob()", value)
  _require(value, (v == 0).logical_or(v == 1), "Bernoulli.log_prob()", "value", "0 or 1")
  return true
}

# PyTorch's clamp_probs: probabilities kept in [eps, 1 - eps] before a log
fn _clamp_probs(p) {
  let eps = finfo(p.dtype).eps
  return p.clamp(eps, 1 - eps)
}

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
