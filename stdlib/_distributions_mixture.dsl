# _distributions_mixture: torch.distributions.MixtureSameFamily, the mixture density
# networks' distribution, and LowRankMultivariateNormal, a Gaussian of a low-rank plus
# diagonal covariance (round 9, tests/stdlib/test_gaps_vs_torch9_dist.dsl). distributions
# re-exports them; import distributions, not this module.
#
# Note [Mixtures of one family]
# MixtureSameFamily(mix, comp): mix a Categorical over k components with batch shape B
# (or one that broadcasts to it), comp a distribution with batch shape B + [k] and event
# shape E. log_prob(x) is logsumexp over k of comp.log_prob(x unsqueezed before E) plus
# the mixture's log-probabilities, so gradients reach both; mean and variance by the law
# of total variance; sample draws a component per point and gathers its draw (no
# gradient, as PyTorch's, which has no rsample). The mixture's probabilities are padded
# to comp's batch dims as PyTorch means to (its _pad_mixture_dimensions counts elements
# where it means dims; the two agree when the batch shapes are equal, the usual case).
import math
import _distributions_base

let _b = _distributions_base

# the law of total variance: E[Var(Y | X)] + Var(E[Y | X])
fn _total_variance(m) {
  let probs = m._pad_mixture(m.mixture_distribution.probs)
  let within = (probs * m.component_distribution.variance).sum(-1 - m._event_ndims)
  let between = (probs * (m.component_distribution.mean - m._pad(m.mean)) ** 2).sum(-1 - m._event_ndims)
  return within + between
}

fn _is_distribution(d) = type(d) != "tensor" and getattr(d, "log_prob", none) != none and getattr(d, "batch_shape", none) != none

model MixtureSameFamily(mixture_distribution, component_distribution, validate_args=none) {
  "A mixture of k distributions of one family: mixture_distribution a Categorical over the k, component_distribution one with batch shape [..., k], as torch.distributions.MixtureSameFamily (Note [Mixtures of one family]). Example: distributions.MixtureSameFamily(distributions.Categorical(logits=zeros(3)), distributions.Normal(tensor([-1.0, 0.0, 1.0]), 0.5)).log_prob(zeros(2))"
  let _who = "distributions.MixtureSameFamily()"
  let _m_ok = (_is_distribution(mixture_distribution) and getattr(mixture_distribution, "logits", none) != none and getattr(mixture_distribution, "num_events", none) != none) or fail(f"{_who}: mixture_distribution must be a distributions.Categorical, got {type(mixture_distribution)}")
  let _c_ok = _is_distribution(component_distribution) or fail(f"{_who}: component_distribution must be a distribution, got {type(component_distribution)}")
  let _cb = list(component_distribution.batch_shape)
  let _has_k = len(_cb) > 0 or fail(f"{_who}: component_distribution must have a batch dim of the k components, got batch_shape {_cb}")
  let _k = mixture_distribution.num_events
  let _k_ok = _cb[-1] == _k or fail(f"{_who}: the mixture has {_k} components but component_distribution's batch_shape {_cb} ends in {_cb[-1]}")
  let _mb = list(mixture_distribution.batch_shape)
  let _fits = (len(_mb) <= len(_cb) - 1 and all([_mb[len(_mb) - 1 - i] in [1, _cb[len(_cb) - 2 - i]] for i in range(len(_mb))])) or fail(f"{_who}: mixture_distribution's batch_shape {_mb} does not broadcast with component_distribution's {_cb[:-1]}")
  mixture_distribution = mixture_distribution
  component_distribution = component_distribution
  batch_shape = _cb[:-1]
  event_shape = list(component_distribution.event_shape)
  _event_ndims = len(self.event_shape)
  # the mixture's [..., k] padded to comp's batch dims and followed by E's
  _pad_mixture(x) = x.reshape(list(x.shape)[:-1] + [1] * (len(self.batch_shape) - (x.dim() - 1)) + [x.shape[-1]] + [1] * self._event_ndims)
  _pad(x) = x.unsqueeze(-1 - self._event_ndims)
  mean = (self._pad_mixture(self.mixture_distribution.probs) * self.component_distribution.mean).sum(-1 - self._event_ndims)
  variance = _total_variance(self)
  log_prob(value) {
    let x = self._pad(_b._as_tensor(value, self.mixture_distribution.logits))
    let lp = self.component_distribution.log_prob(x)
    return (lp + log_softmax(self.mixture_distribution.logits, dim=-1)).logsumexp(-1)
  }
  cdf(value) = (self.component_distribution.cdf(self._pad(_b._as_tensor(value, self.mixture_distribution.logits))) * self.mixture_distribution.probs).sum(-1)
  sample(sample_shape=[]) {
    let shape = _b._sample_shape("MixtureSameFamily.sample()", sample_shape)
    let out = none
    no_grad {
      let which = self.mixture_distribution.sample(shape)                    # [S, B_mix]
      let draws = self.component_distribution.sample(shape)                  # [S, B, k, E]
      let at = len(shape) + len(self.batch_shape)
      let index = which.reshape(list(which.shape) + [1] * (len(self.batch_shape) - len(which.shape) + len(shape)) + [1] + [1] * self._event_ndims)
      index = index.expand(list(draws.shape)[:at] + [1] + self.event_shape)
      out = draws.gather(at, index).squeeze(at)
    }
    return out
  }
}

# Note [Low-rank covariance]
# LowRankMultivariateNormal(loc, cov_factor W [..., n, r], cov_diag D [..., n]): covariance
# W W^T + diag(D), as PyTorch's, computed through the capacitance K = I + W^T D^-1 W
# (r x r) and its Cholesky factor L: log det = 2 sum log diag(L) + sum log D (the matrix
# determinant lemma) and the Mahalanobis term x^T D^-1 x - |L^-1 W^T D^-1 x|^2
# (Woodbury), so nothing n x n is factored; rsample is loc + W e_r + sqrt(D) e_n.
model LowRankMultivariateNormal(loc, cov_factor, cov_diag, validate_args=none) {
  "A Gaussian over vectors [..., n] with covariance cov_factor @ cov_factor^T + diag(cov_diag) (cov_factor [..., n, r]), as torch.distributions.LowRankMultivariateNormal (Note [Low-rank covariance]). Example: distributions.LowRankMultivariateNormal(zeros(3), ones([3, 1]), ones(3)).log_prob(zeros(3))"
  let _who = "distributions.LowRankMultivariateNormal()"
  let _loc_ok = (type(loc) == "tensor" and loc.dim() >= 1) or fail(f"{_who}: loc must be a tensor of at least 1 dim (the event), got {_b._kind_of(loc)}")
  let _w_ok = (type(cov_factor) == "tensor" and cov_factor.dim() >= 2 and cov_factor.shape[-2] == loc.shape[-1]) or fail(f"{_who}: cov_factor must be a tensor [..., {loc.shape[-1]}, rank], got {_b._kind_of(cov_factor)}")
  let _d_ok = (type(cov_diag) == "tensor" and cov_diag.dim() >= 1 and cov_diag.shape[-1] == loc.shape[-1]) or fail(f"{_who}: cov_diag must be a tensor [..., {loc.shape[-1]}], got {_b._kind_of(cov_diag)}")
  let _valid = _b._validating(validate_args) and _b._check_positive("LowRankMultivariateNormal()", "cov_diag", cov_diag)
  batch_shape = list(broadcast_shapes(loc.shape[:-1], cov_factor.shape[:-2], cov_diag.shape[:-1]))
  event_shape = [loc.shape[-1]]
  loc = loc.expand(self.batch_shape + self.event_shape)
  cov_factor = cov_factor.expand(self.batch_shape + list(cov_factor.shape)[-2:])
  cov_diag = cov_diag.expand(self.batch_shape + self.event_shape)
  _capacitance_tril = cholesky(self.cov_factor.transpose(-2, -1) / self.cov_diag.unsqueeze(-2) @ self.cov_factor + eye(self.cov_factor.shape[-1], dtype=self.loc.dtype, device=self.loc.device))
  mean = self.loc
  mode = self.loc
  variance = (self.cov_factor ** 2).sum(-1) + self.cov_diag
  covariance_matrix = self.cov_factor @ self.cov_factor.transpose(-2, -1) + diag_embed(self.cov_diag)
  _log_det() = 2 * _b._half_log_det(self._capacitance_tril) + self.cov_diag.log().sum(-1)
  rsample(sample_shape=[]) {
    let shape = _b._sample_shape("LowRankMultivariateNormal.rsample()", sample_shape) + self.batch_shape
    let e_w = randn(shape + [self.cov_factor.shape[-1]], dtype=self.loc.dtype, device=self.loc.device)
    let e_d = randn(shape + self.event_shape, dtype=self.loc.dtype, device=self.loc.device)
    return self.loc + (self.cov_factor @ e_w.unsqueeze(-1)).squeeze(-1) + self.cov_diag.sqrt() * e_d
  }
  sample(sample_shape=[]) {
    let out = none
    no_grad { out = self.rsample(sample_shape) }
    return out
  }
  log_prob(value) {
    let x = _b._as_tensor(value, self.loc) - self.loc
    let wt_dinv_x = ((self.cov_factor.transpose(-2, -1) / self.cov_diag.unsqueeze(-2)) @ x.unsqueeze(-1)).squeeze(-1)
    let m = (x ** 2 / self.cov_diag).sum(-1) - (_b._tril_solve(self._capacitance_tril, wt_dinv_x) ** 2).sum(-1)
    return -0.5 * (self.event_shape[0] * math.log(2 * math.pi) + self._log_det() + m)
  }
  entropy() = 0.5 * (self.event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._log_det())
}
