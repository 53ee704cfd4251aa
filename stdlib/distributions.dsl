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

fn _sample_shape(sample_shape) {
  if type(sample_shape) == "int" { return [sample_shape] }
  return _shape_list(sample_shape)
}

# a number as a 0-dim tensor of `like`'s dtype (PyTorch's broadcast_all)
fn _as_tensor(v, like=none) {
  if type(v) == "tensor" { return v }
  assert(type(v) in ["int", "float"], f"distributions: expected a tensor or a number, got {type(v)}")
  return tensor(float(v), dtype=(like.dtype if like != none else f32))
}

fn _one_of(who, probs, logits) {
  let got = "both" if probs != none else "neither"
  assert((probs == none) != (logits == none), f"distributions.{who}(): give exactly one of probs or logits, got {got}")
}

# PyTorch's clamp_probs: probabilities kept in [eps, 1 - eps] before a log
fn _clamp_probs(p) {
  let eps = finfo(p.dtype).eps
  return p.clamp(eps, 1 - eps)
}

model Categorical(probs=none, logits=none, validate_args=none) {
  "A distribution over the categories 0..K-1 of the last dim, by probs (normalized along it) or unnormalized logits, as torch.distributions.Categorical. Example: distributions.Categorical(logits=randn(4, 3)).sample()"
  let _checked = _one_of("Categorical", probs, logits)
  logits = (logits - logits.logsumexp(-1, keepdim=true)) if logits != none else log(_clamp_probs(probs / probs.sum(-1, keepdim=true)))
  probs = softmax(logits, dim=-1) if probs == none else probs / probs.sum(-1, keepdim=true)
  batch_shape = _shape_list(self.probs.shape)[:-1]
  event_shape = []
  num_events = self.probs.shape[-1]
  param_shape = _shape_list(self.probs.shape)
  mean = full(self.batch_shape, float("nan"), dtype=self.probs.dtype)
  sample(sample_shape=[]) {
    let extra = _sample_shape(sample_shape)
    let n = 1
    for s in extra { n = n * s }
    let out = none
    no_grad {
      let flat = self.probs.reshape(-1, self.num_events)
      out = multinomial(flat, n, replacement=true).t()                   # [n, prod(batch)]
    }
    return out.reshape(extra + self.batch_shape)
  }
  log_prob(value) {
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
  loc = _pair[0]
  scale = _pair[1]
  batch_shape = _shape_list(self.loc.shape)
  event_shape = []
  mean = self.loc
  mode = self.loc
  stddev = self.scale
  variance = self.scale ** 2
  rsample(sample_shape=[]) {
    let shape = _sample_shape(sample_shape) + self.batch_shape
    return self.loc.expand(shape) + randn(shape, dtype=self.loc.dtype, device=self.loc.device) * self.scale.expand(shape)
  }
  sample(sample_shape=[]) {
    let out = none
    no_grad { out = self.rsample(sample_shape) }
    return out
  }
  log_prob(value) {
    let var = self.scale ** 2
    return -((value - self.loc) ** 2) / (2 * var) - self.scale.log() - math.log(math.sqrt(2 * math.pi))
  }
  cdf(value) = 0.5 * (1 + erf((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)))
  entropy() = 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log()
}

model Bernoulli(probs=none, logits=none, validate_args=none) {
  "A distribution over {0, 1} with P(1) = probs (or sigmoid(logits)), as torch.distributions.Bernoulli. Example: distributions.Bernoulli(logits=randn(5)).sample()"
  let _checked = _one_of("Bernoulli", probs, logits)
  logits = logits if logits != none else log(_clamp_probs(_as_tensor(probs))) - log1p(-_clamp_probs(_as_tensor(probs)))
  probs = sigmoid(logits) if probs == none else _as_tensor(probs)
  batch_shape = _shape_list(self.probs.shape)
  event_shape = []
  mean = self.probs
  variance = self.probs * (1 - self.probs)
  sample(sample_shape=[]) {
    let shape = _sample_shape(sample_shape) + self.batch_shape
    let out = none
    no_grad { out = bernoulli(self.probs.expand(shape)) }
    return out
  }
  log_prob(value) {
    let (logits, v) = broadcast_tensors(self.logits, value.to(self.logits.dtype))
    return -binary_cross_entropy_with_logits(logits, v, reduction="none")
  }
  entropy() = binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")
}
