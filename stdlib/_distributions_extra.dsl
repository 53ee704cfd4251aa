# _distributions_extra: round 9's VonMises, Kumaraswamy and FisherSnedecor with PyTorch
# 1.13's formulas (tests/stdlib/test_gaps_vs_torch9_dist.dsl). distributions re-exports
# them; import distributions, not this module.
#
# Note [VonMises by PyTorch's Bessel polynomials]
# VonMises's log_prob and variance need log I0 and log I1 of the concentration; PyTorch
# evaluates them with Abramowitz and Stegun's polynomials (9.8.1 to 9.8.4, about 1e-7
# relative), not an exact Bessel function, and so does nabla, so values match
# PyTorch's to rounding. Draws are Best and Fisher's (1979) rejection sampler, all
# elements at once, each redrawn until accepted (a bounded number of rounds), then
# wrapped into [-pi, pi) around loc.
import math
import _distributions_base
import _distributions_transformed

let _b = _distributions_base
let _tr = _distributions_transformed
let _euler = 0.5772156649015329

# the Uniform and Gamma of the distributions module, which imports this one (so at use)
fn _d() {
  import distributions
  return distributions
}

let _small = [[1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.0360768, 0.0045813],
              [0.5, 0.87890594, 0.51498869, 0.15084934, 0.02658733, 0.00301532, 0.00032411]]
let _large = [[0.39894228, 0.01328592, 0.00225319, -0.00157565, 0.00916281, -0.02057706, 0.02635537, -0.01647633, 0.00392377],
              [0.39894228, -0.03988024, -0.00362018, 0.00163801, -0.01031555, 0.02282967, -0.02895312, 0.01787654, -0.00420059]]

fn _poly(y, coef) {
  let r = coef[-1] + y * 0.0
  for k in range(len(coef) - 2, -1, -1) { r = coef[k] + y * r }
  return r
}

# log I_order(x) for x > 0, order 0 or 1 (PyTorch's _log_modified_bessel_fn)
fn _log_bessel(x, order) {
  let s = (x / 3.75) ** 2
  let small = _poly(s, _small[order])
  if order == 1 { small = x.abs() * small }
  let large = x - 0.5 * x.log() + _poly(3.75 / x, _large[order]).log()
  return where(x < 3.75, small.log(), large)
}

model VonMises(loc, concentration, validate_args=none) {
  "The von Mises (circular normal) distribution on [-pi, pi) around loc, as torch.distributions.VonMises (Note [VonMises by PyTorch's Bessel polynomials]). Example: distributions.VonMises(0.0, tensor([1.0, 4.0])).sample([3])"
  let _p = _b._pair("VonMises()", "loc", loc, "concentration", concentration)
  loc = _p[0]
  concentration = _p[1]
  let _valid = _b._validating(validate_args) and _b._check_positive("VonMises()", "concentration", self.concentration)
  batch_shape = _b._shape_list(self.loc.shape)
  event_shape = []
  mean = self.loc
  mode = self.loc
  variance = 1 - (_log_bessel(self.concentration, 1) - _log_bessel(self.concentration, 0)).exp()
  log_prob(value) = self.concentration * cos(_b._as_tensor(value, self.loc) - self.loc) - math.log(2 * math.pi) - _log_bessel(self.concentration, 0)
  sample(sample_shape=[]) {
    let shape = _b._sample_shape("VonMises.sample()", sample_shape) + self.batch_shape
    let out = none
    no_grad {
      let k = self.concentration.expand(shape)
      let tau = 1 + (1 + 4 * k ** 2).sqrt()
      let rho = (tau - (2 * tau).sqrt()) / (2 * k)
      let r = (1 + rho ** 2) / (2 * rho)
      let x = zeros(shape, dtype=self.loc.dtype, device=self.loc.device)
      let done = zeros(shape, dtype=bool, device=self.loc.device)
      let rounds = 0
      while not bool(done.all()) {
        rounds = rounds + 1
        if rounds > 1000 { fail("distributions.VonMises.sample(): a draw was rejected 1000 times (concentration too extreme?)") }
        let u1 = rand(shape, dtype=self.loc.dtype, device=self.loc.device)
        let u2 = rand(shape, dtype=self.loc.dtype, device=self.loc.device)
        let u3 = rand(shape, dtype=self.loc.dtype, device=self.loc.device)
        let z = cos(math.pi * u1)
        let f = (1 + r * z) / (r + z)
        let c = k * (r - f)
        let accept = (((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)) & done.logical_not()
        x = where(accept, (u3 - 0.5).sign() * f.clamp(-1.0, 1.0).acos(), x)
        done = done | accept
      }
      out = (x + math.pi + self.loc) % (2 * math.pi) - math.pi
    }
    return out
  }
}

# E[X^n] of a Kumaraswamy (PyTorch's _moments)
fn _kumaraswamy_moment(a, b, n) {
  let arg1 = 1 + n / a
  let log_value = lgamma(arg1) + lgamma(b) - lgamma(arg1 + b)
  return b * exp(log_value)
}

model Kumaraswamy(concentration1, concentration0, validate_args=none) {
  "The Kumaraswamy distribution on (0, 1), (1 - U^(1/concentration0))^(1/concentration1) for U uniform, as torch.distributions.Kumaraswamy. Example: distributions.Kumaraswamy(2.0, tensor([3.0, 5.0])).rsample()"
  let _p = _b._pair("Kumaraswamy()", "concentration1", concentration1, "concentration0", concentration0)
  concentration1 = _p[0]
  concentration0 = _p[1]
  let _valid1 = _b._validating(validate_args) and _b._check_positive("Kumaraswamy()", "concentration1", self.concentration1)
  let _valid0 = _b._validating(validate_args) and _b._check_positive("Kumaraswamy()", "concentration0", self.concentration0)
  _td = _tr.TransformedDistribution(_d().Uniform(zeros_like(self.concentration0), ones_like(self.concentration0), validate_args=validate_args),
                                    [_tr.PowerTransform(self.concentration0.reciprocal()), _tr.AffineTransform(1.0, -1.0), _tr.PowerTransform(self.concentration1.reciprocal())])
  batch_shape = _b._shape_list(self.concentration0.shape)
  event_shape = []
  mean = _kumaraswamy_moment(self.concentration1, self.concentration0, 1)
  mode = where((self.concentration0 < 1) | (self.concentration1 < 1), float("nan"),
               (self.concentration0.reciprocal() * (-self.concentration0).log1p() - (-self.concentration0 * self.concentration1).log1p()).exp())
  variance = _kumaraswamy_moment(self.concentration1, self.concentration0, 2) - self.mean ** 2
  sample(sample_shape=[]) = self._td.sample(sample_shape)
  rsample(sample_shape=[]) = self._td.rsample(sample_shape)
  log_prob(value) = self._td.log_prob(value)
  entropy() {
    let t1 = 1 - self.concentration1.reciprocal()
    let t0 = 1 - self.concentration0.reciprocal()
    return t0 + t1 * (digamma(self.concentration0 + 1) + _euler) - log(self.concentration1) - log(self.concentration0)
  }
}

model FisherSnedecor(df1, df2, validate_args=none) {
  "The F distribution of (X1 / df1) / (X2 / df2) for chi-squared X1, X2 of df1 and df2 degrees of freedom, as torch.distributions.FisherSnedecor. Example: distributions.FisherSnedecor(3.0, tensor([5.0, 10.0])).rsample()"
  let _p = _b._pair("FisherSnedecor()", "df1", df1, "df2", df2)
  df1 = _p[0]
  df2 = _p[1]
  let _valid1 = _b._validating(validate_args) and _b._check_positive("FisherSnedecor()", "df1", self.df1)
  let _valid2 = _b._validating(validate_args) and _b._check_positive("FisherSnedecor()", "df2", self.df2)
  _gamma1 = _d().Gamma(self.df1 * 0.5, self.df1)
  _gamma2 = _d().Gamma(self.df2 * 0.5, self.df2)
  batch_shape = _b._shape_list(self.df1.shape)
  event_shape = []
  mean = where(self.df2 <= 2, float("nan"), self.df2 / (self.df2 - 2))
  mode = where(self.df1 <= 2, float("nan"), (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2))
  variance = where(self.df2 <= 4, float("nan"), 2 * self.df2 ** 2 * (self.df1 + self.df2 - 2) / (self.df1 * (self.df2 - 2) ** 2 * (self.df2 - 4)))
  rsample(sample_shape=[]) {
    let tiny = finfo(self.df1.dtype).tiny
    return (self._gamma1.rsample(sample_shape) / self._gamma2.rsample(sample_shape).clamp(min=tiny)).clamp(min=tiny)
  }
  sample(sample_shape=[]) {
    let out = none
    no_grad { out = self.rsample(sample_shape) }
    return out
  }
  log_prob(value) {
    let v = _b._check_support(validate_args, "FisherSnedecor.log_prob()", value, fn(v) = v > 0, "above 0")
    let ct1 = self.df1 * 0.5
    let ct2 = self.df2 * 0.5
    let ct3 = self.df1 / self.df2
    let t1 = lgamma(ct1 + ct2) - lgamma(ct1) - lgamma(ct2)
    return t1 + ct1 * ct3.log() + (ct1 - 1) * log(v) - (ct1 + ct2) * log1p(ct3 * v)
  }
}
