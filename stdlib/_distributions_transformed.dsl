# _distributions_transformed: torch.distributions.TransformedDistribution and the
# transforms ExpTransform, AffineTransform, SigmoidTransform, TanhTransform,
# PowerTransform, AbsTransform and ComposeTransform, with PyTorch 1.13's formulas (round 9,
# tests/stdlib/test_gaps_vs_torch9_dist.dsl). distributions re-exports them (and this
# module as distributions.transforms); import distributions, not this module.
#
# Note [Transforms as models]
# A transform is a model: t(x) is its forward map, t.inv(y) the inverse,
# t.log_abs_det_jacobian(x, y) log |dy/dx| (summed over its event_dim rightmost dims),
# t.sign the sign of the derivative (+1 or -1, a tensor for an AffineTransform of a
# tensor scale) and t.event_dim the dims one event spans (the same for its domain and
# codomain, as for every transform here). PyTorch's t.inv is a transform object;
# nabla's is a method, so t.inv(y) reads the same in both.
import math
import _distributions_base

let _b = _distributions_base
let _sign_of = sign  # the builtin, before the transforms' fields named sign

fn _tensor_arg(who, what, v) {
  if type(v) != "tensor" { fail(f"distributions.{who}: {what} must be a tensor, got {type(v)}") }
  return v
}

# x summed over its n rightmost dims (PyTorch's _sum_rightmost)
fn _sum_rightmost(x, n) = x if n <= 0 else x.reshape(list(x.shape)[:x.dim() - n] + [-1]).sum(-1)

fn _is_transform(t) = type(t) != "tensor" and getattr(t, "log_abs_det_jacobian", none) != none and getattr(t, "inv", none) != none

model ExpTransform() {
  "y = exp(x), as torch.distributions.transforms.ExpTransform (Note [Transforms as models]). Example: distributions.ExpTransform()(zeros(2))"
  event_dim = 0
  sign = 1
  forward(x) = exp(_tensor_arg("ExpTransform()", "x", x))
  inv(y) = log(_tensor_arg("ExpTransform.inv()", "y", y))
  log_abs_det_jacobian(x, y) = x
}

model SigmoidTransform() {
  "y = sigmoid(x) (clamped into the dtype's open unit interval), as torch.distributions.transforms.SigmoidTransform. Example: distributions.SigmoidTransform()(zeros(2))"
  event_dim = 0
  sign = 1
  forward(x) {
    let f = finfo(_tensor_arg("SigmoidTransform()", "x", x).dtype)
    return sigmoid(x).clamp(min=f.tiny, max=1.0 - f.eps)
  }
  inv(y) {
    let f = finfo(_tensor_arg("SigmoidTransform.inv()", "y", y).dtype)
    let c = y.clamp(min=f.tiny, max=1.0 - f.eps)
    return c.log() - (-c).log1p()
  }
  log_abs_det_jacobian(x, y) = -softplus(-x) - softplus(x)
}

model TanhTransform() {
  "y = tanh(x), as torch.distributions.transforms.TanhTransform. Example: distributions.TanhTransform()(zeros(2))"
  event_dim = 0
  sign = 1
  forward(x) = tanh(_tensor_arg("TanhTransform()", "x", x))
  inv(y) = atanh(_tensor_arg("TanhTransform.inv()", "y", y))
  # PyTorch's stable form of log(1 - tanh(x)^2)
  log_abs_det_jacobian(x, y) = 2.0 * (math.log(2.0) - x - softplus(-2.0 * x))
}

model AffineTransform(loc, scale, event_dim=0) {
  "y = loc + scale * x (numbers or tensors, broadcast), as torch.distributions.transforms.AffineTransform; event_dim dims make one event. Example: distributions.AffineTransform(1.0, 2.0)(zeros(2))"
  let _who = "AffineTransform()"
  let _ok = (type(loc) in ["int", "float", "tensor"] or fail(f"distributions.{_who}: loc must be a number or a tensor, got {type(loc)}")) and (type(scale) in ["int", "float", "tensor"] or fail(f"distributions.{_who}: scale must be a number or a tensor, got {type(scale)}")) and ((type(event_dim) == "int" and event_dim >= 0) or fail(f"distributions.{_who}: event_dim must be an int >= 0, got {repr(event_dim)}"))
  loc = loc
  scale = scale
  event_dim = event_dim
  sign = _sign_of(scale) if type(scale) == "tensor" else (1 if scale > 0 else (-1 if scale < 0 else 0))
  forward(x) = self.loc + self.scale * _tensor_arg("AffineTransform()", "x", x)
  inv(y) = (_tensor_arg("AffineTransform.inv()", "y", y) - self.loc) / self.scale
  log_abs_det_jacobian(x, y) {
    let shape = list(x.shape)
    let r = abs(self.scale).log() if type(self.scale) == "tensor" else full_like(x, math.log(abs(self.scale)))
    if self.event_dim > 0 {
      r = r.reshape(list(r.shape)[:r.dim() - self.event_dim] + [-1]).sum(-1)
      shape = shape[:len(shape) - self.event_dim]
    }
    return r.expand(shape)
  }
}

model PowerTransform(exponent) {
  "y = x ** exponent (a number or a tensor, broadcast) for x > 0, as torch.distributions.transforms.PowerTransform. Example: distributions.PowerTransform(2.0)(ones(2) * 3)"
  let _ok = type(exponent) in ["int", "float", "tensor"] or fail(f"distributions.PowerTransform(): exponent must be a number or a tensor, got {type(exponent)}")
  exponent = exponent
  event_dim = 0
  sign = _sign_of(exponent) if type(exponent) == "tensor" else (1 if exponent > 0 else (-1 if exponent < 0 else 0))
  forward(x) = _tensor_arg("PowerTransform()", "x", x) ** self.exponent
  inv(y) = _tensor_arg("PowerTransform.inv()", "y", y) ** (1.0 / self.exponent)
  log_abs_det_jacobian(x, y) = (self.exponent * y / x).abs().log()
}

model AbsTransform() {
  "y = |x|, as torch.distributions.transforms.AbsTransform (not bijective: inv(y) is y, and it has no log_abs_det_jacobian). Example: distributions.AbsTransform()(tensor([-1.0, 2.0]))"
  event_dim = 0
  sign = 1
  forward(x) = _tensor_arg("AbsTransform()", "x", x).abs()
  inv(y) = _tensor_arg("AbsTransform.inv()", "y", y)
  log_abs_det_jacobian(x, y) = fail("distributions.AbsTransform.log_abs_det_jacobian(): |x| is not bijective, so it has none (as PyTorch's); use a distribution that defines log_prob itself, such as HalfCauchy")
}

model ComposeTransform(parts) {
  "The transforms of parts applied in order (parts[0] first), as torch.distributions.transforms.ComposeTransform. Example: distributions.ComposeTransform([distributions.AffineTransform(0.0, 2.0), distributions.ExpTransform()])(zeros(2))"
  let _ok = (type(parts) in ["list", "tuple"] and all([_is_transform(p) for p in parts])) or fail(f"distributions.ComposeTransform(): parts must be a list of transforms, got {type(parts)}")
  parts = list(parts)
  event_dim = max([0] + [p.event_dim for p in self.parts])
  sign = _signs(self.parts)
  forward(x) {
    for p in self.parts { x = p(x) }
    return x
  }
  inv(y) {
    for p in reversed(self.parts) { y = p.inv(y) }
    return y
  }
  log_abs_det_jacobian(x, y) {
    if len(self.parts) == 0 { return zeros_like(x) }
    let xs = [x]
    for p in self.parts[:-1] { xs.append(p(xs[-1])) }
    xs.append(y)
    let total = 0.0
    for k in range(len(self.parts)) {
      let p = self.parts[k]
      total = total + _sum_rightmost(p.log_abs_det_jacobian(xs[k], xs[k + 1]), self.event_dim - p.event_dim)
    }
    return total
  }
}

fn _signs(parts) {
  let s = 1
  for p in parts { s = s * p.sign }
  return s
}

fn _transform_list(transforms) {
  let ts = list(transforms) if type(transforms) in ["list", "tuple"] else [transforms]
  for t in ts {
    if not _is_transform(t) {
      fail(f"distributions.TransformedDistribution(): transforms must be a transform or a list of transforms, got {type(t)}")
    }
  }
  return ts
}

fn _is_distribution(d) = type(d) != "tensor" and getattr(d, "log_prob", none) != none and getattr(d, "batch_shape", none) != none

model TransformedDistribution(base_distribution, transforms, validate_args=none) {
  "The distribution of transforms applied in order to draws of base_distribution, as torch.distributions.TransformedDistribution: sample, rsample, log_prob (the base's less the log-Jacobians), cdf and icdf (for monotone transforms). Example: distributions.TransformedDistribution(distributions.Normal(0.0, 1.0), [distributions.ExpTransform()]).sample([3])"
  let _ok = _is_distribution(base_distribution) or fail(f"distributions.TransformedDistribution(): base_distribution must be a distribution, got {type(base_distribution)}")
  base_dist = base_distribution
  transforms = _transform_list(transforms)
  let _shape = list(base_distribution.batch_shape) + list(base_distribution.event_shape)
  let _event_dim = max([len(base_distribution.event_shape)] + [t.event_dim for t in self.transforms])
  let _fits = _event_dim <= len(_shape) or fail(f"distributions.TransformedDistribution(): the transforms' event_dim {_event_dim} is more than the base distribution's {len(_shape)} dims (shape {_shape})")
  batch_shape = _shape[:len(_shape) - _event_dim]
  event_shape = _shape[len(_shape) - _event_dim:]
  has_rsample = getattr(base_distribution, "rsample", none) != none
  rsample(sample_shape=[]) {
    let x = self.base_dist.rsample(sample_shape)
    for t in self.transforms { x = t(x) }
    return x
  }
  sample(sample_shape=[]) {
    let x = none
    no_grad {
      x = self.base_dist.sample(sample_shape)
      for t in self.transforms { x = t(x) }
    }
    return x
  }
  log_prob(value) {
    let y = _tensor_arg("TransformedDistribution.log_prob()", "value", value)
    let event_dim = len(self.event_shape)
    let lp = 0.0
    for t in reversed(self.transforms) {
      let x = t.inv(y)
      lp = lp - _sum_rightmost(t.log_abs_det_jacobian(x, y), event_dim - t.event_dim)
      y = x
    }
    return lp + _sum_rightmost(self.base_dist.log_prob(y), event_dim - len(self.base_dist.event_shape))
  }
  # PyTorch's _monotonize_cdf: a decreasing composition turns F into 1 - F
  _monotonize(v) {
    let s = _signs(self.transforms)
    return v if type(s) == "int" and s == 1 else s * (v - 0.5) + 0.5
  }
  cdf(value) {
    let y = _tensor_arg("TransformedDistribution.cdf()", "value", value)
    for t in reversed(self.transforms) { y = t.inv(y) }
    return self._monotonize(self.base_dist.cdf(y))
  }
  icdf(value) {
    let x = self.base_dist.icdf(self._monotonize(_tensor_arg("TransformedDistribution.icdf()", "value", value)))
    for t in self.transforms { x = t(x) }
    return x
  }
}
