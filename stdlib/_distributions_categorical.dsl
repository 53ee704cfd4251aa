# _distributions_categorical: the distributions built on a Categorical (round 9,
# tests/stdlib/test_gaps_vs_torch9_dist.dsl): OneHotCategorical, Multinomial,
# RelaxedOneHotCategorical (the Gumbel-softmax's, on ExpRelaxedCategorical) and
# RelaxedBernoulli (on LogitRelaxedBernoulli), with PyTorch 1.13's formulas.
# distributions re-exports them; import distributions, not this module.
#
# Note [Distributions on a Categorical]
# Each holds a distributions.Categorical (made at construction, when the distributions
# module, which imports this one, is loaded: _make_categorical imports it then) and answers
# from it, as PyTorch's hold self._categorical; the relaxed ones are
# TransformedDistributions of their Exp/Logit base by ExpTransform and SigmoidTransform,
# as PyTorch's, so their log_prob is the base's less the log-Jacobian.
import math
import _distributions_base
import _distributions_transformed

let _b = _distributions_base
let _tr = _distributions_transformed

fn _make_categorical(probs, logits, validate_args) {
  import distributions
  return distributions.Categorical(probs=probs, logits=logits, validate_args=validate_args)
}

fn _temperature(who, t, like) {
  let v = _b._as_tensor(_b._param(who, "temperature", t), like).to(like.dtype)
  _b._check_positive(who, "temperature", v)
  return v
}

model OneHotCategorical(probs=none, logits=none, validate_args=none) {
  "A one-hot vector of the last dim's size with its 1 at a Categorical(probs or logits) draw, as torch.distributions.OneHotCategorical. Example: distributions.OneHotCategorical(logits=zeros(3)).sample([2])"
  _categorical = _make_categorical(probs, logits, validate_args)
  probs = self._categorical.probs
  logits = self._categorical.logits
  batch_shape = self._categorical.batch_shape
  event_shape = [self._categorical.num_events]
  mean = self._categorical.probs
  mode = one_hot(self._categorical.probs.argmax(-1), self._categorical.num_events).to(self._categorical.probs.dtype)
  variance = self._categorical.probs * (1 - self._categorical.probs)
  sample(sample_shape=[]) = one_hot(self._categorical.sample(sample_shape), self._categorical.num_events).to(self.probs.dtype)
  log_prob(value) = self._categorical.log_prob(_b._as_tensor(value, self.probs).argmax(-1))
  entropy() = self._categorical.entropy()
  enumerate_support(expand=true) {
    let n = self.event_shape[0]
    let values = eye(n, dtype=self.probs.dtype, device=self.probs.device).reshape([n] + [1] * len(self.batch_shape) + [n])
    return values.expand([n] + self.batch_shape + [n]) if expand else values
  }
}

model Multinomial(total_count=1, probs=none, logits=none, validate_args=none) {
  "The counts of total_count Categorical(probs or logits) draws per category, as torch.distributions.Multinomial (one int total_count). Example: distributions.Multinomial(10, probs=tensor([0.2, 0.3, 0.5])).sample()"
  let _n_ok = (type(total_count) == "int" and total_count >= 0) or fail(f"distributions.Multinomial(): total_count must be an int >= 0 (PyTorch has no per-batch total_count), got {repr(total_count)}")
  total_count = total_count
  _categorical = _make_categorical(probs, logits, validate_args)
  probs = self._categorical.probs
  logits = self._categorical.logits
  batch_shape = self._categorical.batch_shape
  event_shape = [self._categorical.num_events]
  mean = self.probs * self.total_count
  variance = self.total_count * self.probs * (1 - self.probs)
  sample(sample_shape=[]) {
    let shape = _b._sample_shape("Multinomial.sample()", sample_shape)
    let counts = zeros(shape + self.batch_shape + self.event_shape, dtype=self.probs.dtype, device=self.probs.device)
    if self.total_count == 0 { return counts }
    let draws = self._categorical.sample([self.total_count] + shape).movedim(0, -1)   # [S, B, n]
    return counts.scatter_add(-1, draws, ones(list(draws.shape), dtype=self.probs.dtype, device=self.probs.device))
  }
  log_prob(value) {
    let v = _b._as_tensor(value, self.logits)
    let pair = broadcast_tensors(self.logits, v)
    # a category of probability 0 counted 0 times adds 0, not 0 * -inf
    let lg = where((pair[1] == 0) & (pair[0] == -float("inf")), 0.0, pair[0])
    return lgamma(pair[1].sum(-1) + 1) - lgamma(pair[1] + 1).sum(-1) + (lg * pair[1]).sum(-1)
  }
}

model ExpRelaxedCategorical(temperature, probs=none, logits=none, validate_args=none) {
  "The log of a RelaxedOneHotCategorical draw (the Gumbel-softmax's log-probabilities), as torch.distributions.ExpRelaxedCategorical. Example: distributions.ExpRelaxedCategorical(0.5, logits=zeros(3)).rsample()"
  _categorical = _make_categorical(probs, logits, validate_args)
  probs = self._categorical.probs
  logits = self._categorical.logits
  temperature = _temperature("ExpRelaxedCategorical()", temperature, self._categorical.logits)
  batch_shape = self._categorical.batch_shape
  event_shape = [self._categorical.num_events]
  rsample(sample_shape=[]) {
    let shape = _b._sample_shape("ExpRelaxedCategorical.rsample()", sample_shape) + self.batch_shape + self.event_shape
    let u = _b._clamp_probs(rand(shape, dtype=self.logits.dtype, device=self.logits.device))
    let scores = (self.logits - (-u.log()).log()) / self.temperature
    return scores - scores.logsumexp(-1, keepdim=true)
  }
  sample(sample_shape=[]) {
    let out = none
    no_grad { out = self.rsample(sample_shape) }
    return out
  }
  log_prob(value) {
    let k = self.event_shape[0]
    let pair = broadcast_tensors(self.logits, _b._as_tensor(value, self.logits))
    let log_scale = full_like(self.temperature, float(k)).lgamma() + (k - 1) * self.temperature.log()
    let score = pair[0] - pair[1] * self.temperature
    return (score - score.logsumexp(-1, keepdim=true)).sum(-1) + log_scale
  }
}

model RelaxedOneHotCategorical(temperature, probs=none, logits=none, validate_args=none) {
  "A point of the simplex near a one-hot Categorical(probs or logits) draw, nearer as temperature falls (the Gumbel-softmax), as torch.distributions.RelaxedOneHotCategorical: rsample is differentiable in the logits. Example: distributions.RelaxedOneHotCategorical(0.5, logits=zeros(3)).rsample()"
  _td = _tr.TransformedDistribution(ExpRelaxedCategorical(temperature, probs, logits, validate_args), _tr.ExpTransform())
  temperature = self._td.base_dist.temperature
  probs = self._td.base_dist.probs
  logits = self._td.base_dist.logits
  batch_shape = self._td.batch_shape
  event_shape = self._td.event_shape
  rsample(sample_shape=[]) = self._td.rsample(sample_shape)
  sample(sample_shape=[]) = self._td.sample(sample_shape)
  log_prob(value) = self._td.log_prob(_b._as_tensor(value, self.logits))
}

model LogitRelaxedBernoulli(temperature, probs=none, logits=none, validate_args=none) {
  "The logit of a RelaxedBernoulli draw, as torch.distributions.LogitRelaxedBernoulli. Example: distributions.LogitRelaxedBernoulli(0.5, probs=tensor([0.3])).rsample()"
  let _checked = _b._one_of("LogitRelaxedBernoulli", probs, logits)
  let _p = _b._as_floating(_b._param("LogitRelaxedBernoulli()", "probs" if probs != none else "logits", probs if probs != none else logits))
  probs = _p if probs != none else sigmoid(_p)
  logits = _p if logits != none else log(_b._clamp_probs(_p)) - log1p(-_b._clamp_probs(_p))
  temperature = _temperature("LogitRelaxedBernoulli()", temperature, _p)
  batch_shape = _b._shape_list(_p.shape)
  event_shape = []
  rsample(sample_shape=[]) {
    let shape = _b._sample_shape("LogitRelaxedBernoulli.rsample()", sample_shape) + self.batch_shape
    let p = _b._clamp_probs(self.probs.expand(shape))
    let u = _b._clamp_probs(rand(shape, dtype=p.dtype, device=p.device))
    return (u.log() - (-u).log1p() + p.log() - (-p).log1p()) / self.temperature
  }
  sample(sample_shape=[]) {
    let out = none
    no_grad { out = self.rsample(sample_shape) }
    return out
  }
  log_prob(value) {
    let pair = broadcast_tensors(self.logits, _b._as_tensor(value, self.logits))
    let diff = pair[0] - pair[1] * self.temperature
    return self.temperature.log() + diff - 2 * diff.exp().log1p()
  }
}

model RelaxedBernoulli(temperature, probs=none, logits=none, validate_args=none) {
  "A number in (0, 1) near a Bernoulli(probs or logits) draw, nearer as temperature falls (the binary Concrete), as torch.distributions.RelaxedBernoulli: rsample is differentiable. Example: distributions.RelaxedBernoulli(0.5, probs=tensor([0.3, 0.8])).rsample()"
  _td = _tr.TransformedDistribution(LogitRelaxedBernoulli(temperature, probs, logits, validate_args), _tr.SigmoidTransform())
  temperature = self._td.base_dist.temperature
  probs = self._td.base_dist.probs
  logits = self._td.base_dist.logits
  batch_shape = self._td.batch_shape
  event_shape = []
  rsample(sample_shape=[]) = self._td.rsample(sample_shape)
  sample(sample_shape=[]) = self._td.sample(sample_shape)
  log_prob(value) = self._td.log_prob(_b._as_tensor(value, self.logits))
}
