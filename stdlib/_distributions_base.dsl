# _distributions_base: what the distributions share: sample shapes, parameters as
# broadcast tensors, and the checks of Note [Validated arguments]. distributions and its
# rooms (stdlib/_distributions_more.dsl) import it; import distributions, not this module.

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

# A value given to log_prob of a distribution over vectors: its rightmost dims must be
# the event's (PyTorch's check; a wrong size failed inside the formula's broadcast, as
# "sub: argument 'other' of shape [2] cannot be broadcast").
fn _event_value(who, value, event_shape) {
  let n = len(event_shape)
  if type(value) == "tensor" and (value.dim() < n or list(value.shape)[value.dim() - n:] != list(event_shape)) {
    fail(f"distributions.{who}: the rightmost size of value must match event_shape {list(event_shape)}, got shape {list(value.shape)}")
  }
  return value
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

fn _check_normal(loc, scale, who="Normal()") {
  _require(loc, loc.isnan().logical_not(), who, "loc", "a real number (not nan)")
  _require(scale, scale > 0, who, "scale", "above 0")
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


# A parameter that must be a tensor or a number, named at the user's call.
fn _param(who, what, v) {
  if not (type(v) in ["tensor", "int", "float"]) { fail(f"distributions.{who}: {what} must be a tensor or a number, got {type(v)}") }
  return v
}

# Two parameters as tensors of one dtype, broadcast (PyTorch's broadcast_all).
fn _pair(who, an, a, bn, b) {
  _param(who, an, a)
  _param(who, bn, b)
  let ta = _as_floating(_as_tensor(a, b if type(b) == "tensor" else none))
  return broadcast_tensors(ta, _as_tensor(b, ta).to(ta.dtype))
}

# A value given to log_prob or cdf inside the support [low, high] (PyTorch's check).
fn _check_support(validate_args, who, value, ok, constraint) {
  if _validating(validate_args) { _require(value, ok(_value_tensor(who, value)), who, "value", constraint) }
  return value
}

# Uniform draws in [0, 1) of the batch with sample_shape in front.
fn _unit_draws(who, sample_shape, batch_shape, like) {
  return rand(_sample_shape(who, sample_shape) + batch_shape, dtype=like.dtype, device=like.device)
}

fn _kind_of(v) = f"shape {list(v.shape)}" if type(v) == "tensor" else type(v)

fn _check_positive(who, name, t) {
  _require(t, t > 0, who, name, "above 0")
  return true
}

# Note [Gamma draws]
# Gamma(a, 1) by Marsaglia and Tsang's method, elementwise and vectorized: a candidate
# per element each round, the rejected ones drawn again (the acceptance rate is above
# 95%, so 64 rounds leave none in practice; a left-over one is an error, never a wrong
# draw); a < 1 is Gamma(a + 1) * u^(1/a). sample()'s draws carry no gradient;
# rsample()'s carry PyTorch's implicit one (Note [Implicit gradients of Gamma draws]
# in stdlib/_distributions_rsample.dsl).
fn _standard_gamma(a) {
  let small = a < 1
  let d = where(small, a + 1, a) - 1.0 / 3.0
  let c = 1.0 / sqrt(9.0 * d)
  # an infinite concentration draws inf, as PyTorch's (its candidates were all NaN)
  let out = where(isinf(a), a, zeros_like(a))
  let pending = isinf(a).logical_not()
  for _ in range(64) {
    if not pending.any().item() { break }
    let z = randn(list(a.shape), dtype=a.dtype, device=a.device)
    let v = (1 + c * z) ** 3
    let u = rand(list(a.shape), dtype=a.dtype, device=a.device)
    let ok = pending & (v > 0) & (log(u) < 0.5 * z * z + d - d * v + d * log(v.clamp(min=1e-300)))
    out = where(ok, d * v, out)
    pending = pending & ok.logical_not()
  }
  if pending.any().item() { fail("distributions: a Gamma draw was rejected 64 times (concentration too extreme?)") }
  let boost = rand(list(a.shape), dtype=a.dtype, device=a.device) ** (1.0 / a)
  return where(small, out * boost, out)
}

fn _gamma_draws(who, sample_shape, batch, concentration) {
  let shape = _sample_shape(who, sample_shape) + batch
  let out = none
  # clamped to the smallest positive normal number, as PyTorch's: a draw of a small
  # concentration (1e-3) underflows to 0, outside Gamma's support, and a Beta or
  # Dirichlet draw made of such zeros was 0 / 0 = NaN (PyTorch's is 0.5, or 1/k)
  no_grad { out = _standard_gamma(concentration.detach().expand(shape).contiguous()).clamp(min=finfo(concentration.dtype).tiny) }
  return out
}

# Gamma(c, r)'s log density at v (xlogy: 0 at the support's edge where the density is
# finite) and its entropy; Chi2 is Gamma(df / 2, 1 / 2)
fn _gamma_log_prob(c, r, v) = xlogy(c, r) + xlogy(c - 1, v) - r * v - lgamma(c)
fn _gamma_entropy(c, r) = c - log(r) + lgamma(c) + (1.0 - c) * digamma(c)

# L^-1 b for lower-triangular L [..., k, k] and b [..., k], batch dims broadcast, and the
# log det of L L^T halved (MultivariateNormal's and LowRankMultivariateNormal's)
fn _tril_solve(L, b) {
  let shape = list(broadcast_shapes(L.shape[:-2], b.shape[:-1]))
  let k = L.shape[-1]
  return linalg_solve(L.expand(shape + [k, k]), b.expand(shape + [k]).unsqueeze(-1)).squeeze(-1)
}
fn _half_log_det(L) = diagonal(L, 0, -2, -1).log().sum(-1)
