# _distributions_rsample: the reparameterized draws of Gamma, Dirichlet and Beta
# (round 8, tests/stdlib/test_gaps_vs_torch8_dist.dsl). distributions re-exports what it
# needs; import distributions, not this module.
#
# Note [Implicit gradients of Gamma draws]
# A Gamma(a, 1) draw x has no closed-form inverse CDF to reparameterize through, but
# F(x; a) = u holds for the uniform u the draw stands for, so the derivative of x in a
# at fixed u is implicit: dx/da = -(dF/da)(x; a) / f(x; a). PyTorch (after Jankowiak and
# Obermeyer, "Pathwise Derivatives Beyond the Reparameterization Trick", 2018) computes
# it by approximations chosen by region, and nabla uses the same ones, so a gradient
# through rsample() equals PyTorch's for the same draw:
# - x < 0.8: F's power series in x, 6 terms, and its derivative in a;
# - a > 8: Rice's saddle-point expansion (a polynomial in a band of +-10% around x = a,
#   where the expansion is singular);
# - otherwise: a bivariate rational fit in log(x / a) and log(a).
# A Dirichlet draw's derivative is that of each coordinate's Beta(a_i, total - a_i)
# marginal (_dirichlet_grad, PyTorch's torch._dirichlet_grad, by regions alike), then
# projected onto the simplex (_DirichletDraw's backward); Beta(c1, c0) draws the first
# coordinate of a Dirichlet([c1, c0]), as PyTorch's. The derivative formulas are values
# only (PyTorch's backward is once_differentiable): they are computed detached, so a
# second derivative through a draw sees them as constants.
import math

let _tiny64 = 2.2250738585072014e-308
let _tiny32 = 1.1754943508222875e-38
fn _tiny(t) = _tiny64 if t.dtype == f64 else _tiny32

# PyTorch's region bounds are the f32 literals 0.8f, 0.9f and 1.1f, compared in f64: their
# f32 values, so that a draw on a bound falls on the same side
let _F32_0_8 = 0.800000011920929
let _F32_0_9 = 0.8999999761581421
let _F32_1_1 = 1.100000023841858

# d x / d alpha of a standard Gamma(alpha) draw x (torch._standard_gamma_grad(alpha, x)),
# in f64 as PyTorch's CPU kernel (its accscalar_t): in f32 the band's a^4 overflowed
# from a = 1e10 on, and the gradient was NaN.
fn _standard_gamma_grad(alpha, x) {
  let a = alpha.detach().to(f64)
  let v = x.detach().to(f64)
  let out = none
  no_grad { out = where(v < _F32_0_8, _gamma_grad_small_x(a, v), where(a > 8.0, _gamma_grad_large_alpha(a, v), _gamma_grad_rational(a, v))) }
  return out.to(alpha.dtype)
}

# -dF/da / f by F's series x^a sum_n (-x)^n / (n! (a + n)), n = 0..5 (NaN where it
# under- or overflows is 0, as PyTorch's)
fn _gamma_grad_small_x(a, x) {
  let numer = ones_like(x)
  let denom = a
  let series1 = numer / denom
  let series2 = numer / (denom * denom)
  for i in range(1, 6) {
    numer = numer * (-x / i)
    denom = denom + 1.0
    series1 = series1 + numer / denom
    series2 = series2 + numer / (denom * denom)
  }
  let pow_x_a = x ** a
  let pdf = x ** (a - 1.0) * exp(-x)
  let cdf = pow_x_a * series1
  let cdf_a = (log(x) - digamma(a)) * cdf - pow_x_a * series2
  let r = -cdf_a / pdf
  return where(isnan(r), zeros_like(r), r)
}

fn _gamma_grad_large_alpha(a, x) {
  # the band around x = a: a polynomial in x and a
  let numer_1 = 1.0 + 24.0 * a * (1.0 + 12.0 * a)
  let numer_2 = 1440.0 * a * a + 6.0 * x * (53.0 - 120.0 * x) - 65.0 * x * x / a + a * (107.0 + 3600.0 * x)
  let band = numer_1 * numer_2 / (1244160.0 * a * a * a * a)
  # outside it: the saddle-point terms
  let denom = sqrt(8.0 * a)
  let term2 = denom / (a - x)
  let term3 = (x - a - a * log(x / a)) ** -1.5
  let term23 = where(x < a, term2 - term3, term2 + term3)
  let term1 = log(x / a) * term23 - sqrt(2.0 / a) * (a + x) / ((a - x) * (a - x))
  let stirling = 1.0 + 1.0 / (12.0 * a) * (1.0 + 1.0 / (24.0 * a))
  let outside = -stirling * x * term1 / denom
  return where((x >= _F32_0_9 * a).logical_and(x <= _F32_1_1 * a), band, outside)
}

# exp(p / q), p and q cubic in log(a) with coefficients quadratic in log(x / a)
let _GAMMA_UV = [[0.16009398, -0.094634809, 0.025146376, -0.0030648343, 1.0, 0.32668115, 0.10406089, 0.0014179084],
                 [0.53487893, 0.1298071, 0.065735949, -0.0015649758, 0.16639465, 0.020070113, -0.0035938915, -0.00058392623],
                 [0.040121004, -0.0065914022, -0.0026286047, -0.0013441777, 0.017050642, -0.0021309326, 0.00085092367, -1.5247877e-07]]
fn _gamma_grad_rational(a, x) {
  let u = log(x / a)
  let v = log(a)
  let c = [_GAMMA_UV[0][i] + u * (_GAMMA_UV[1][i] + u * _GAMMA_UV[2][i]) for i in range(8)]
  let p = c[0] + v * (c[1] + v * (c[2] + v * c[3]))
  let q = c[4] + v * (c[5] + v * (c[6] + v * c[7]))
  return exp(p / q)
}

# -(dF/dalpha)(x; alpha, total - alpha) / f(x) / (1 - x) of a Beta(alpha, total - alpha)
# draw x (torch._dirichlet_grad(x, alpha, total)).
fn _dirichlet_grad(x, alpha, total) {
  let (v, a, t) = broadcast_tensors(x.detach().to(f64), alpha.detach().to(f64), total.detach().to(f64))  # as _standard_gamma_grad
  let out = none
  no_grad {
    let b = t - a
    let boundary = t * v * (1.0 - v)
    let near0 = (v <= 0.5).logical_and(boundary < 2.5)
    let near1 = (v >= 0.5).logical_and(boundary < 0.75)
    let mid = (a > 6.0).logical_and(b > 6.0)
    out = where(near0, _beta_grad_alpha_small(v, a, b),
                where(near1, -_beta_grad_beta_small(1.0 - v, b, a),
                      where(mid, _beta_grad_alpha_mid(v, a, b), _beta_grad_rational(v, a, t))))
  }
  return out.to(x.dtype)
}

fn _zero_nan(r) = where(isnan(r), zeros_like(r), r)

# x near 0: a series in x of the derivative in alpha
fn _beta_grad_alpha_small(x, a, b) {
  let factor = digamma(a) - digamma(a + b) - log(x)
  let numer = ones_like(x)
  let series = numer / a * (factor + 1.0 / a)
  for i in range(1, 11) {
    numer = numer * (i - b) * x / i
    let denom = a + i
    series = series + numer / denom * (factor + 1.0 / denom)
  }
  return _zero_nan(x * (1.0 - x) ** (-b) * series)
}

# x near 0: a series in x of the derivative in beta (called with 1 - x, beta and alpha
# swapped for x near 1)
fn _beta_grad_beta_small(x, a, b) {
  let factor = digamma(a + b) - digamma(b)
  let numer = ones_like(x)
  let betas = ones_like(x)
  let dbetas = zeros_like(x)
  let series = factor / a
  for i in range(1, 9) {
    numer = numer * (-x / i)
    dbetas = dbetas * (b - i) + betas
    betas = betas * (b - i)
    series = series + numer / (a + i) * (dbetas + factor * betas)
  }
  return _zero_nan(-((1.0 - x) ** (1.0 - b)) * series)
}

# alpha and beta both above 6: a saddle-point expansion (a polynomial within a tenth of
# a standard deviation of the mean, where the expansion is singular)
fn _beta_grad_alpha_mid(x, a, b) {
  let total = a + b
  let mean = a / total
  let std = sqrt(a * b / (total + 1.0)) / total
  let poly = 47.0 * x * (b * b) * (b * b) + a * ((43.0 + 20.0 * (16.0 + 27.0 * b) * x) * (b * b) * b + a * (
             3.0 * (59.0 + 180.0 * b - 90.0 * x) * (b * b) + a * ((453.0 + 1620.0 * b * (1.0 - x) - 455.0 * x) * b + a * (
             8.0 * (1.0 - x) * (135.0 * b - 11.0)))))
  let prefactor_num = (1.0 + 12.0 * a) * (1.0 + 12.0 * b) / (total * total)
  let prefactor_den = 12960.0 * a * a * a * b * b * (1.0 + 12.0 * total)
  let band = prefactor_num / (1.0 - x) * poly / prefactor_den
  let prefactor = -x / sqrt(2.0 * a * b / total)
  let stirling = (1.0 + 1.0 / (12.0 * a) + 1.0 / (288.0 * a * a)) * (1.0 + 1.0 / (12.0 * b) + 1.0 / (288.0 * b * b)) /
                 (1.0 + 1.0 / (12.0 * total) + 1.0 / (288.0 * total * total))
  let term1_num = 2.0 * (a * a) * (x - 1.0) + a * b * (x - 1.0) - x * (b * b)
  let axbx = a * (x - 1.0) + b * x
  let term1 = term1_num / (sqrt(2.0 * a / b) * total ** 1.5 * axbx * axbx)
  let term2 = 0.5 * log(a / (total * x))
  let term3 = sqrt(8.0 * a * b / total) / (b * x + a * (x - 1.0))
  let term4 = (b * log(b / (total * (1.0 - x))) + a * log(a / (total * x))) ** -1.5
  let outside = stirling * prefactor * (term1 + term2 * (term3 + where(x < mean, term4, -term4)))
  return where((x >= mean - 0.1 * std).logical_and(x <= mean + 0.1 * std), band, outside)
}

# elsewhere: a rational correction (p / q, each a polynomial in log(x), log(alpha / x)
# and log(total) - log(alpha / x)) to x (digamma(total) - digamma(alpha)) / beta;
# _BETA_C[k][i][j] holds the cubic's coefficients of u^i a^j in p (k = 0) and q (k = 1)
let _BETA_C = [[[[1.003668233, -0.01061107488, -0.0657888334, 0.01201642863],
                 [0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033],
                 [-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013]],
                [[0.221950385, -0.3187676331, 0.01799915743, 0.01074823814],
                 [-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057],
                 [0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05]],
                [[-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565],
                 [0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181],
                 [0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05]]],
               [[[1.0, -0.02924021934, -0.04438342661, 0.007285809825],
                 [0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521],
                 [-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149]],
                [[0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273],
                 [0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956],
                 [-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05]],
                [[0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05],
                 [0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05],
                 [-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06]]]]

fn _cubic(c, b) = c[0] + b * (c[1] + b * (c[2] + b * c[3]))

fn _beta_grad_rational(x, alpha, total) {
  let u = log(x)
  let a = log(alpha) - u
  let b = log(total) - a
  let pow_u = [ones_like(u), u, u * u]
  let pow_a = [ones_like(a), a, a * a]
  let p = zeros_like(x)
  let q = zeros_like(x)
  for i in range(3) {
    for j in range(3) {
      let ua = pow_u[i] * pow_a[j]
      p = p + ua * _cubic(_BETA_C[0][i][j], b)
      q = q + ua * _cubic(_BETA_C[1][i][j], b)
    }
  }
  let approx = x * (digamma(total) - digamma(alpha)) / (total - alpha)
  return p / q * approx
}

# Note [Gamma draws] (distributions.dsl) draws; `draw` is its _standard_gamma.
# A standard Gamma(alpha) draw (alpha already expanded to the sample's shape), clamped
# to the dtype's smallest normal number as PyTorch's, whose gradient in alpha is
# the implicit one.
function _GammaDraw {
  forward(ctx, alpha, draw) {
    let x = none
    no_grad { x = draw(alpha.detach()).clamp(min=_tiny(alpha)) }
    ctx.save(alpha, x)
    return x
  }
  backward(ctx, g) {
    let (alpha, x) = ctx.saved
    return (g * _standard_gamma_grad(alpha, x), none)
  }
}

# Gamma(concentration, rate).rsample(): the draw over the rate (whose gradient is
# -x / rate^2), clamped as PyTorch's
fn _gamma_rsample(concentration, rate, draw) {
  let x = _GammaDraw(concentration, draw)
  return (x / rate).clamp(min=_tiny(x))
}

# A Dirichlet(concentration) draw (concentration [..., k] already expanded), the
# normalized Gamma draws; its gradient is PyTorch's _Dirichlet_backward.
function _DirichletDraw {
  forward(ctx, concentration, draw) {
    let x = none
    no_grad {
      let g = draw(concentration.detach()).clamp(min=_tiny(concentration))
      x = g / g.sum(-1, keepdim=true)
    }
    ctx.save(concentration, x)
    return x
  }
  backward(ctx, g) {
    let (c, x) = ctx.saved
    let total = c.sum(-1, keepdim=true).expand(list(c.shape))
    return (_dirichlet_grad(x, c, total) * (g - (x * g).sum(-1, keepdim=true)), none)
  }
}
