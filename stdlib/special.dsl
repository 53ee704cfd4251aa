# special: torch.special's functions (`import special`, then special.erfcx(x), ...),
# each a composite of table ops, so gradients and gradients of gradients come from the
# ops (no row of its own). The ones PyTorch has as plain torch.* functions too are the
# builtins under their torch.special names (special.expit is sigmoid, special.gammaln
# lgamma, special.psi digamma, ...).
#
# Note [Accurate tails from composites]
# erfc, erfcx, log_ndtr and ndtri are the functions users take for their tails, where
# 1 - erf(x) has no digits left (erfc(6) is 2e-17). erfcx(x) = exp(x^2) erfc(x) is
# Laplace's continued fraction for x >= 2 (60 terms: full f64 precision from 2 on), and
# exp(x^2) (1 - erf(x)) below 2, where 1 - erf(x) >= 0.0047 keeps 14 digits; erfc,
# log_ndtr and ndtri are built on it. Each branch of a where() computes on an input
# clamped into its own range (the other elements replaced by a harmless value), so an
# unselected branch's overflow never turns the gradient into NaN (0 * inf).
# erfinv and ndtri are Newton iterations from a rough start (Winitzki's closed form,
# the tail's asymptote); the iterations are differentiated like any ops, and at the
# converged point their derivative is the inverse function's (1 / f'), to rounding.
import math

# The builtins this module re-exports under torch.special's names, taken before those
# names are this module's.
let _erf_row = erf
let _expm1_row = expm1
let _exp2_row = exp2
let _log1p_row = log1p
let _lgamma_row = lgamma
let _digamma_row = digamma
let _polygamma_row = polygamma
let _xlogy_row = xlogy
let _logit_row = logit
let _sinc_row = sinc
let _round_row = round
let _softmax_row = softmax
let _log_softmax_row = log_softmax
let _logsumexp_row = logsumexp

let _inf = float("inf")
let _nan = float("nan")
let _sqrt2 = math.sqrt(2.0)
let _sqrtpi = math.sqrt(math.pi)
let _log_sqrt_2pi = 0.5 * math.log(2.0 * math.pi)

# The argument checks, named at the user's call.
fn _tensor(who, what, v) {
  if type(v) != "tensor" { fail(f"special.{who}: {what} must be a tensor, got {type(v)}") }
}

fn _floating(who, x) {
  _tensor(who, "input", x)
  return x if x.dtype.is_floating_point else x.to(f32)
}

# A tensor or a number as a floating tensor; two operands in their promoted floating dtype.
fn _operands(who, a, b, an, bn) {
  let ta = type(a) == "tensor"
  let tb = type(b) == "tensor"
  if not ta and not tb { fail(f"special.{who}: {an} or {bn} must be a tensor, got {type(a)} and {type(b)}") }
  for (v, n) in [(a, an), (b, bn)] {
    if not (type(v) in ["tensor", "int", "float"]) { fail(f"special.{who}: {n} must be a tensor or a number, got {type(v)}") }
  }
  # both dtypes promoted (nabla has no result_type; a 0-dim tensor widens here)
  let dt = (zeros([], dtype=a.dtype) + zeros([], dtype=b.dtype)).dtype if ta and tb else (a.dtype if ta else b.dtype)
  if not dt.is_floating_point { dt = f32 }
  let x = a.to(dt) if ta else tensor(float(a), dtype=dt, device=b.device)
  let y = b.to(dt) if tb else tensor(float(b), dtype=dt, device=a.device)
  return broadcast_tensors(x, y)
}

# ---- the error function's family --------------------------------------------------------

# Laplace's continued fraction for erfcx at x >= 2 (Note [Accurate tails from composites]).
fn _erfcx_fraction(x) {
  let t = x
  for k in range(60, 0, -1) { t = x + (k / 2.0) / t }
  return 1.0 / (t * _sqrtpi)
}

fn erfcx(input) {
  """The scaled complementary error function exp(x^2) * erfc(x) of each element, as torch.special.erfcx.

  Example: special.erfcx(tensor([0.0, 1.0, 30.0]))
  """
  let x = _floating("erfcx()", input)
  let far = x >= 2.0
  let xf = where(far, x, 2.0)
  let xn = where(far, 0.0, x)
  return where(far, _erfcx_fraction(xf), exp(xn * xn) * (1.0 - _erf_row(xn)))
}

fn erfc(input) {
  """The complementary error function 1 - erf(x) of each element, accurate in the tail, as torch.special.erfc.

  Example: special.erfc(tensor([0.0, 1.0, 10.0]))
  """
  let x = _floating("erfc()", input)
  let far = x >= 2.0
  let xf = where(far, x, 2.0)
  return where(far, exp(-xf * xf) * _erfcx_fraction(xf), 1.0 - _erf_row(where(far, 0.0, x)))
}

# Winitzki's closed form, 2e-3 from erfinv: the start of erfinv's Newton iterations.
fn _erfinv_start(y) {
  let a = 0.147
  let l = _log1p_row(-y * y)
  let b = 2.0 / (math.pi * a) + l / 2.0
  return sign(y) * sqrt(sqrt(b * b - l / a) - b)
}

fn erfinv(input) {
  """The inverse error function of each element (+-inf at +-1, NaN outside [-1, 1]), as torch.special.erfinv.

  Example: special.erfinv(tensor([0.0, 0.5, -0.9]))
  """
  let x = _floating("erfinv()", input)
  let inside = x.abs() < 1.0
  let y = where(inside, x, 0.0)
  let r = _erfinv_start(y).detach()  # only a start: its own derivative is no use (inf at 0)
  # erf(r) - y, from erfc beyond |y| = 0.5, where 1 - |y| is exact and erf(r) has lost
  # the digits of its distance to 1
  fn residual(r) = where(y > 0.5, (1.0 - y) - erfc(where(y > 0.5, r, 1.0)),
                         where(y < -0.5, erfc(where(y < -0.5, -r, 1.0)) - (1.0 + y), _erf_row(r) - y))
  for _ in range(5) { r = r - residual(r) / (2.0 / _sqrtpi * exp(-r * r)) }
  # +-inf at +-1 with PyTorch's derivative there, inf (atanh has both); NaN beyond with a
  # NaN derivative (the root of a negative number), as PyTorch's sqrt(pi) / 2 exp(erfinv^2)
  let at_edge = x.abs() == 1.0
  let edge = where(at_edge, atanh(where(at_edge, x, 0.0)), sqrt(where(at_edge, -1.0, 1.0 - x * x)))
  return where(inside, r, edge)
}

fn ndtr(input) {
  """The standard normal CDF of each element, as torch.special.ndtr.

  Example: special.ndtr(tensor([-1.0, 0.0, 1.0]))
  """
  let x = _floating("ndtr()", input)
  return 0.5 * erfc(-x / _sqrt2)
}

fn log_ndtr(input) {
  """The log of the standard normal CDF of each element, accurate in both tails, as torch.special.log_ndtr.

  Example: special.log_ndtr(tensor([-40.0, 0.0, 5.0]))
  """
  let x = _floating("log_ndtr()", input)
  let low = x < 0.0
  let xl = where(low, x, 0.0)
  let xh = where(low, 0.0, x)
  return where(low, log(0.5 * erfcx(-xl / _sqrt2)) - xl * xl / 2.0, _log1p_row(-0.5 * erfc(xh / _sqrt2)))
}

# ndtri of q in (0, 0.5]: a start (sqrt(2) erfinv(2q - 1), or the tail's asymptote
# below 1e-3, where 2q - 1 has lost q's digits), then Newton on log_ndtr(y) = log(q).
fn _ndtri_lower(q) {
  let tail = q < 1e-3
  let qt = where(tail, q, 1e-3)
  let l = -2.0 * log(qt)
  let asym = -sqrt(l - log(l) - math.log(2.0 * math.pi))
  let y = where(tail, asym, _sqrt2 * erfinv(2.0 * where(tail, 0.25, q) - 1.0)).detach()
  let lq = log(q)
  for _ in range(6) {
    let ln = log_ndtr(y)
    y = y - (ln - lq) * exp(ln + y * y / 2.0 + _log_sqrt_2pi)
  }
  return y
}

fn ndtri(input) {
  """The inverse of the standard normal CDF of each element (-inf at 0, inf at 1, NaN outside [0, 1]), as torch.special.ndtri.

  Example: special.ndtri(tensor([0.025, 0.5, 0.975]))
  """
  let p = _floating("ndtri()", input)
  let inside = (p > 0.0) & (p < 1.0)
  let upper = p > 0.5
  let q = where(inside, where(upper, 1.0 - p, p), 0.5)
  let y = _ndtri_lower(q)
  let edge = where(p == 0.0, -_inf, where(p == 1.0, _inf, _nan))
  return where(inside, where(upper, -y, y), edge).to(p.dtype)  # the edges' numbers are f32: f16 stays f16
}

# ---- modified Bessel functions of order 0 and 1 -----------------------------------------

# Note [Bessel series and asymptotes]
# I0 and I1 are their power series (all terms positive, 60 of them: full precision up to
# |x| = 20) and above 20 Hankel's asymptotic series e^|x| / sqrt(2 pi |x|) sum_k c_k / |x|^k
# (25 terms; its smallest term near k = 2|x| is e^-40 of the sum). The scaled forms i0e and
# i1e multiply the series by e^-|x| and leave e^|x| out of the asymptote, so they never
# overflow.
fn _bessel_series(x, order) {
  let q = x * x / 4.0
  let term = x / 2.0 if order == 1 else ones_like(x)
  let total = term
  for k in range(1, 60) {
    term = term * q / (k * (k + order))
    total = total + term
  }
  return total
}

# Hankel's series sum_k c_k / |x|^k for |x| > 20: I_order(|x|) = e^|x| / sqrt(2 pi |x|) times it.
fn _bessel_asymptotic_series(ax, order) {
  let mu = 4.0 * order * order
  let term = ones_like(ax)
  let total = term
  for k in range(1, 25) {
    term = -term * (mu - (2 * k - 1) ** 2) / (k * 8.0 * ax)
    total = total + term
  }
  return total
}

fn _bessel(who, input, order, scaled) {
  let x = _floating(who, input)
  let far = x.abs() > 20.0
  let xs = where(far, 0.0, x)
  let ax = where(far, x.abs(), 21.0)
  let near = _bessel_series(xs, order)
  if scaled { near = near * exp(-xs.abs()) }
  # e^|x| / sqrt(2 pi |x|) taken in logs: 2 pi |x| overflows for |x| near the largest
  # float, and e^|x| times the (positive) series as one exp gives inf, not inf * 0
  let log_front = -0.5 * (math.log(2.0 * math.pi) + log(ax))
  let series = _bessel_asymptotic_series(ax, order)
  let asym = series * exp(log_front) if scaled else exp(ax + log_front + log(series))
  if order == 1 { asym = asym * sign(x) }
  return where(far, asym, near)
}

fn i0(input) {
  """The modified Bessel function of the first kind of order 0 of each element, as torch.special.i0 (torch.i0).

  Example: special.i0(tensor([0.0, 1.0, 5.0]))
  """
  return _bessel("i0()", input, 0, false)
}

fn i0e(input) {
  """exp(-|x|) * i0(x) of each element, as torch.special.i0e.

  Example: special.i0e(tensor([0.0, 1.0, 500.0]))
  """
  return _bessel("i0e()", input, 0, true)
}

fn i1(input) {
  """The modified Bessel function of the first kind of order 1 of each element, as torch.special.i1.

  Example: special.i1(tensor([0.0, 1.0, -5.0]))
  """
  return _bessel("i1()", input, 1, false)
}

fn i1e(input) {
  """exp(-|x|) * i1(x) of each element, as torch.special.i1e.

  Example: special.i1e(tensor([0.0, 1.0, 500.0]))
  """
  return _bessel("i1e()", input, 1, true)
}

# ---- the gamma family and Hurwitz's zeta --------------------------------------------------

fn multigammaln(input, p) {
  """The multivariate log-gamma of dimension p of each element (each > (p - 1) / 2), as torch.special.multigammaln (torch.mvlgamma).

  Example: special.multigammaln(tensor([2.5, 3.0]), 2)
  """
  let a = _floating("multigammaln()", input)
  if type(p) != "int" or p < 1 { fail(f"special.multigammaln(): p must be an int >= 1, got {repr(p)}") }
  if not is_compiling() and (a <= (p - 1) / 2.0).any().item() {
    fail(f"special.multigammaln(): all elements must be greater than (p-1)/2 = {(p - 1) / 2.0}")
  }
  let total = _lgamma_row(a)
  for j in range(1, p) { total = total + _lgamma_row(a - j / 2.0) }
  return total + p * (p - 1) / 4.0 * math.log(math.pi)
}

# B_2k / (2k)! for k = 1..12: the Euler-Maclaurin tail of zeta.
let _bernoulli_ratios = [1.0 / 6.0 / 2.0, -1.0 / 30.0 / 24.0, 1.0 / 42.0 / 720.0, -1.0 / 30.0 / 40320.0,
                         5.0 / 66.0 / 3628800.0, -691.0 / 2730.0 / 479001600.0, 7.0 / 6.0 / 87178291200.0,
                         -3617.0 / 510.0 / 20922789888000.0, 43867.0 / 798.0 / 6402373705728000.0,
                         -174611.0 / 330.0 / 2432902008176640000.0, 854513.0 / 138.0 / 1.1240007277776077e21,
                         -236364091.0 / 2730.0 / 6.204484017332394e23]

fn zeta(input, other) {
  """Hurwitz's zeta function sum_k (q + k)^-x of each pair (x, q), as torch.special.zeta: inf at x = 1 and at q = 0, -1, ..., NaN for x < 1.

  Example: special.zeta(tensor([2.0, 3.0]), 1.0)
  """
  let (x, q) = _operands("zeta()", input, other, "input", "other")
  # A negative non-integer q with an integer x (Cephes' rule, as PyTorch's): the first
  # m = ceil(-q) terms summed apart, the rest from q + m in (0, 1).
  let shifted = (x > 1.0) & (q < 0.0) & (q != floor(q)) & (x == floor(x))
  let ok = ((x > 1.0) & (q > 0.0)) | shifted
  let xs = where(ok, x, 2.0)
  let m = where(shifted, ceil(-q), 0.0)
  let total = zeros_like(xs)
  let most = 0 if is_compiling() or not shifted.any().item() else int(m.max().item())
  for k in range(most) { total = total + where(m > k, (where(shifted, q, 0.5) + k) ** -xs, 0.0) }
  let qs = where(ok, q + m, 1.0)
  # the first 9 terms, then Euler-Maclaurin from a = q + 9
  for k in range(9) { total = total + (qs + k) ** -xs }
  let a = qs + 9.0
  total = total + a ** (1.0 - xs) / (xs - 1.0) + 0.5 * a ** -xs
  let rising = xs
  let power = a ** (-xs - 1.0)
  for j in range(12) {
    total = total + where(power == 0.0, 0.0, _bernoulli_ratios[j] * rising * power)  # 0, not inf * 0, for a huge x
    rising = rising * (xs + 2 * j + 1) * (xs + 2 * j + 2)
    power = power / (a * a)
  }
  let pole = (x == 1.0) | ((x > 1.0) & (q <= 0.0) & (q == floor(q)))
  return where(ok, total, where(pole, _inf, _nan)).to(x.dtype)  # the edges' numbers are f32: f16 stays f16
}

# Note [Regularized incomplete gamma]
# P(a, x) (gammainc) and Q(a, x) = 1 - P (gammaincc), Numerical Recipes' way: below
# x = a + 1 the series x^a e^-x / Gamma(a + 1) sum_n x^n / ((a + 1) ... (a + n)), at and
# above it Legendre's continued fraction for Q (modified Lentz); each gives the smaller of
# P and Q directly, the other as 1 minus it. A fixed 500 series terms and 300 fraction
# steps: full f64 precision for a up to about 10^4.
fn _gamma_front(a, x) = exp(a * log(x) - x - _lgamma_row(a))

fn _gammainc_series(a, x) {
  let term = 1.0 / a
  let total = term
  for n in range(1, 500) {
    term = term * x / (a + n)
    total = total + term
  }
  return total * _gamma_front(a, x)
}

fn _gammaincc_fraction(a, x) {
  let tiny = 1e-300
  let b = x + 1.0 - a
  let c = 1.0 / tiny + zeros_like(x)
  let d = 1.0 / b
  let h = d
  for i in range(1, 300) {
    let an = -i * (i - a)
    b = b + 2.0
    d = an * d + b
    d = where(d.abs() < tiny, tiny, d)
    c = b + an / c
    c = where(c.abs() < tiny, tiny, c)
    d = 1.0 / d
    h = h * d * c
  }
  return h * _gamma_front(a, x)
}

# (P, Q) on elements with a > 0 and x > 0, each computed where it is the small one.
fn _incomplete_gamma(who, input, other) {
  let (a, x) = _operands(who, input, other, "input", "other")
  let ok = (a > 0.0) & (x > 0.0) & isfinite(x)
  let series = ok & (x < a + 1.0)
  let aa = where(ok, a, 1.0)
  let p_small = _gammainc_series(aa, where(series, x, 0.5))
  let q_small = _gammaincc_fraction(aa, where(ok & series.logical_not(), x, aa + 1.0))
  let p = where(series, p_small, 1.0 - q_small)
  let q = where(series, 1.0 - p_small, q_small)
  # edges, as PyTorch's (Cephes'): x = 0 is P = 0, x = inf is P = 1, a = 0 is P = 1 for
  # x > 0, a < 0, x < 0 and a = x = 0 are NaN
  let bad = (a < 0.0) | (x < 0.0) | ((a == 0.0) & (x == 0.0)) | a.isnan() | x.isnan()
  let p_edge = where(bad, _nan, where((x == 0.0) & (a > 0.0), 0.0, 1.0))
  return (where(ok, p, p_edge).to(a.dtype), where(ok, q, 1.0 - p_edge).to(a.dtype))  # p_edge is f32: f16 stays f16
}

fn gammainc(input, other) {
  """The regularized lower incomplete gamma function P(a, x) of each pair (a = input, x = other), as torch.special.gammainc.

  Example: special.gammainc(tensor([1.0, 2.5]), tensor([0.5, 3.0]))
  """
  return _incomplete_gamma("gammainc()", input, other)[0]
}

fn gammaincc(input, other) {
  """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x), as torch.special.gammaincc.

  Example: special.gammaincc(tensor([1.0, 2.5]), tensor([0.5, 3.0]))
  """
  return _incomplete_gamma("gammaincc()", input, other)[1]
}

# ---- the rest of torch.special ---------------------------------------------------------

fn xlog1py(input, other) {
  """x * log1p(y) of each pair, 0 where x is 0 (unless y is NaN), as torch.special.xlog1py.

  Example: special.xlog1py(tensor([0.0, 2.0]), tensor([-1.0, 0.5]))
  """
  let (x, y) = _operands("xlog1py()", input, other, "input", "other")
  let zero = (x == 0.0) & (y == y)
  return where(zero, 0.0, x * _log1p_row(where(zero, 0.0, y)))
}

fn entr(input) {
  """The elementwise entropy -x * log(x): 0 at 0, -inf below, as torch.special.entr.

  Example: special.entr(tensor([0.0, 0.5, 1.0]))
  """
  let x = _floating("entr()", input)
  let pos = x > 0.0
  let xp = where(pos, x, 1.0)
  return where(pos, -xp * log(xp), where(x == 0.0, 0.0, where(x < 0.0, -_inf, x)))
}

fn expit(input) {
  "The logistic sigmoid 1 / (1 + exp(-x)) of each element, as torch.special.expit. Example: special.expit(tensor([0.0, 2.0]))"
  return sigmoid(_floating("expit()", input))
}

# torch.special's names for the builtins (the functions above use the builtins directly).
let erf = _erf_row
let expm1 = _expm1_row
let exp2 = _exp2_row
let log1p = _log1p_row
let gammaln = _lgamma_row
let digamma = _digamma_row
let psi = _digamma_row
let polygamma = _polygamma_row
let xlogy = _xlogy_row
let logit = _logit_row
let sinc = _sinc_row
let round = _round_row
let softmax = _softmax_row
let log_softmax = _log_softmax_row
let logsumexp = _logsumexp_row
