"""Writes vs_torch8.safetensors for the round-8 gap tests against PyTorch 1.13
(tests/stdlib/test_gaps_vs_torch8.dsl, test_gaps_vs_torch8_linalg.dsl). Each case is
saved by make_layer_options.record (inputs x<k>, outputs y<k>, upstream gradient g, the
gradients of sum(y0 * g) for every floating input) or, for values without a gradient, as
x<k> and y<k> directly; the tests compare dtypes too (vs_torch5_check.inc's check_in).

- rsample_cases: the implicit gradients of Gamma and Dirichlet draws on fixed draws
  (torch._standard_gamma_grad(alpha, x) and torch._dirichlet_grad(x, alpha, total), over
  every region of their approximations), and _Dirichlet_backward on a fixed draw and
  upstream gradient;
- integer_cases: gcd and lcm (signs, zeros, broadcasting);
- float_cases: frexp (mantissa and its gradient, exponent; subnormals, the largest
  number, powers of 2) and nextafter in f64 and f32 (0, subnormals, powers of 2 both
  ways, the largest number, infinities);
- index_reduce_cases: prod, mean, amax and amin with include_self both ways, and a prod
  with a zero, with gradients;
- linalg_cases: lu_factor, lu_factor_ex, lu (square and rectangular, batched), lu_solve
  (left, right, adjoint), solve_triangular (upper, lower, right, unitriangular),
  householder_product, tensorinv, tensorsolve (with dims), cond (each p), pinv (atol,
  rtol, hermitian), matrix_rank (atol, tol, hermitian), eigvalsh with UPLO, cholesky
  with upper, cholesky_ex, inv_ex and solve_ex (info);
- fft_cases: fftfreq, rfftfreq, fftshift and ifftshift;
- more_cases: vdot, diagonal_scatter (offsets, other dims, a batch; gradients in input
  and src), narrow_copy (values: PyTorch 1.13 has no derivative of it) and the windows (hann, hamming, blackman, bartlett, kaiser;
  periodic both ways, in f64);
- dist_more_cases: LogNormal, HalfNormal, Cauchy, Gumbel, StudentT, Chi2, Poisson and
  Geometric (log_prob, cdf, icdf, entropy, mean, mode, variance where PyTorch has them,
  and the gradients of log_prob, cdf and entropy in the parameters and the value), and
  kl_divergence of two of each kind but StudentT (PyTorch has no formula for it);
- spectral_norm_cases: nn.utils.spectral_norm of a Linear and a ConvTranspose2d (dim 1): the
  initial u and v, two training forwards (the buffers after each, the outputs), an eval
  forward, the gradients in weight_orig and bias, and remove_spectral_norm's weight.

    /usr/bin/python3 tests/stdlib/reference/make_vs_torch8.py
"""
import pathlib
import sys

import torch
from torch.distributions.dirichlet import _Dirichlet_backward

HERE = pathlib.Path(__file__).parent
sys.path.insert(0, str(HERE.parents[2] / "scripts" / "reference"))
sys.path.insert(0, str(HERE))
from safetensors_file import write_safetensors  # noqa: E402
from make_layer_options import fn, record  # noqa: E402

OUT = HERE / "vs_torch8.safetensors"
LA = torch.linalg


def put(out, name, inputs, outputs):
    for k, t in enumerate(inputs):
        out[f"{name}.x{k}"] = t.detach().clone()
    for k, t in enumerate(outputs):
        out[f"{name}.y{k}"] = t.detach().clone()


def rsample_cases(out):
    t = torch.tensor
    # x < 0.8 (the series), alpha > 8 inside and outside the band around x = alpha, and
    # the rational fit between
    alpha = t([0.3, 1.5, 5.0, 0.05, 10.0, 10.0, 10.0, 20.0, 9.0, 2.0, 2.0, 0.5, 6.0, 1.0, 3.0])
    x = t([0.1, 0.5, 0.7, 1e-6, 9.5, 5.0, 16.0, 22.0, 10.5, 1.5, 4.0, 2.0, 8.0, 0.9, 0.8])
    put(out, "standard_gamma_grad", [alpha, x], [torch._standard_gamma_grad(alpha, x)])
    # x near 0 (total x (1 - x) < 2.5), near 1 (< 0.75), both concentrations above 6
    # (inside and outside a tenth of a standard deviation of the mean), and the rest
    dx = t([0.01, 0.2, 0.99, 0.9, 0.45, 0.4545, 0.7, 0.4, 0.6, 0.3, 0.05])
    da = t([0.5, 1.0, 2.0, 0.5, 10.0, 10.0, 10.0, 2.0, 3.0, 1.5, 4.0])
    dt = t([3.0, 2.0, 2.5, 1.0, 22.0, 22.0, 22.0, 5.0, 9.0, 4.0, 40.0])
    put(out, "dirichlet_grad", [dx, da, dt], [torch._dirichlet_grad(dx, da, dt)])
    conc = t([[1.0, 2.0, 3.0], [0.5, 0.5, 4.0]])
    draw = t([[0.2, 0.3, 0.5], [0.1, 0.6, 0.3]])
    g = torch.randn(2, 3)
    put(out, "dirichlet_backward", [draw, conc, g], [_Dirichlet_backward(draw, conc, g)])


def integer_cases(out):
    t = torch.tensor
    a = t([12, -18, 0, 0, 7, 1071, -48, 2**40])
    b = t([8, 27, 5, 0, -21, 462, -180, 6**12])
    put(out, "gcd", [a, b], [torch.gcd(a, b)])
    put(out, "lcm", [a[:-1], b[:-1]], [torch.lcm(a[:-1], b[:-1])])
    col, row = t([[4], [6], [9]]), t([6, 10, 15, 0])
    put(out, "gcd_broadcast", [col, row], [torch.gcd(col, row)])
    put(out, "lcm_broadcast", [col, row], [torch.lcm(col, row)])
    i32 = t([12, 18, -7], dtype=torch.int32)
    put(out, "gcd_i32", [i32, t([8, 4, 21], dtype=torch.int32)], [torch.gcd(i32, t([8, 4, 21], dtype=torch.int32))])


def float_cases(out):
    t = torch.tensor
    x = t([8.0, -0.3, 0.0, 5e-324, 1.7976931348623157e308, 0.5, 1.0, -1e-310, 3.0, -2.0 ** -1022, 1e-300, 123.456])
    record(out, "frexp", None, [x], fn(lambda v: list(torch.frexp(v))))
    f32 = t([8.0, -0.3, 1e-45, 3.4028234663852886e38, 0.75, -6.0], dtype=torch.float32)
    record(out, "frexp_f32", None, [f32], fn(lambda v: list(torch.frexp(v))))
    inf = float("inf")
    a = t([0.0, 0.0, 1.0, 1.0, -1.0, 5e-324, 5e-324, 2.0, 2.0, -2.0, -2.0, 1.7976931348623157e308, inf, -inf, 3.0, 0.1,
           2.0 ** -1022, 1e300])
    b = t([1.0, -1.0, 2.0, 0.0, -2.0, 0.0, 1.0, 0.0, 3.0, 0.0, -3.0, inf, 0.0, 0.0, 3.0, -1.0, 0.0, inf])
    put(out, "nextafter", [a, b], [torch.nextafter(a, b)])
    put(out, "nextafter_f32", [a.float(), b.float()], [torch.nextafter(a.float(), b.float())])


def index_reduce_cases(out):
    x, src = torch.randn(4, 3), torch.randn(5, 3)
    index = torch.tensor([0, 2, 0, 3, 2])
    out["index_reduce.index"] = index
    for reduce in ("prod", "mean", "amax", "amin"):
        for include_self in (True, False):
            record(out, f"index_reduce_{reduce}_{int(include_self)}", None, [x, src],
                   fn(lambda a, s, r=reduce, i=include_self: a.index_reduce(0, index, s, r, include_self=i)))
    x2, src2 = torch.randn(2, 4), torch.randn(2, 3)
    src2[1, 0] = 0.0
    record(out, "index_reduce_dim1_prod", None, [x2, src2],
           fn(lambda a, s: a.index_reduce(1, torch.tensor([3, 0, 3]), s, "prod")))


def lu_cases(out):
    n3 = torch.randn(3, 3)
    batch = torch.randn(2, 4, 4)
    record(out, "lu_factor", None, [n3], fn(lambda a: list(LA.lu_factor(a))))
    record(out, "lu_factor_batch", None, [batch], fn(lambda a: list(LA.lu_factor(a))))
    record(out, "lu_factor_ex", None, [n3], fn(lambda a: list(LA.lu_factor_ex(a))))
    wide, tall = torch.randn(3, 5), torch.randn(5, 3)
    record(out, "lu_factor_wide", None, [wide], fn(lambda a: list(LA.lu_factor(a))))
    for name, a in (("lu", n3), ("lu_batch", batch), ("lu_wide", wide), ("lu_tall", tall)):
        record(out, name, None, [a], fn(lambda v: list(LA.lu(v))[::-1]))  # (U first: its gradient is checked)
        record(out, name + "_L", None, [a], fn(lambda v: LA.lu(v).L))
    singular = torch.tensor([[1.0, 2.0], [2.0, 4.0]])
    out["lu_factor_ex_singular.x0"] = singular
    for k, v in enumerate(LA.lu_factor_ex(singular)):
        out[f"lu_factor_ex_singular.y{k}"] = v
    b = torch.randn(3, 2)
    for left in (True, False):
        for adjoint in (False, True):
            rhs = b if left else b.T.clone()
            record(out, f"lu_solve_{int(left)}{int(adjoint)}", None, [n3, rhs],
                   fn(lambda a, r, left=left, adjoint=adjoint: LA.lu_solve(*LA.lu_factor(a), r, left=left, adjoint=adjoint)))
    record(out, "lu_solve_batch", None, [batch, torch.randn(4, 3)], fn(lambda a, r: LA.lu_solve(*LA.lu_factor(a), r)))


def triangular_cases(out):
    a = torch.randn(3, 3) + 3 * torch.eye(3)
    b = torch.randn(3, 2)
    for upper in (True, False):
        for left in (True, False):
            for unit in (False, True):
                rhs = b if left else b.T.clone()
                record(out, f"solve_triangular_{int(upper)}{int(left)}{int(unit)}", None, [a, rhs],
                       fn(lambda m, r, u=upper, l=left, t=unit: LA.solve_triangular(m, r, upper=u, left=l, unitriangular=t)))
    record(out, "solve_triangular_batch", None, [torch.randn(2, 3, 3) + 3 * torch.eye(3), torch.randn(3, 4)],
           fn(lambda m, r: LA.solve_triangular(m, r, upper=False)))
    h = torch.randn(4, 3)
    record(out, "householder_product", None, [h, torch.randn(3)], fn(LA.householder_product))
    record(out, "householder_product_k", None, [torch.randn(2, 5, 3), torch.randn(2, 2)], fn(LA.householder_product))
    qr_a = torch.randn(4, 3)
    geqrf, tau = torch.geqrf(qr_a)
    record(out, "householder_product_geqrf", None, [geqrf, tau], fn(LA.householder_product))
    record(out, "tensorinv", None, [torch.randn(4, 2, 2)], fn(lambda v: LA.tensorinv(v, ind=1)))
    record(out, "tensorinv_2", None, [torch.randn(2, 3, 6)], fn(lambda v: LA.tensorinv(v, ind=2)))
    record(out, "tensorsolve", None, [torch.randn(2, 3, 6), torch.randn(2, 3)], fn(LA.tensorsolve))
    record(out, "tensorsolve_dims", None, [torch.randn(6, 2, 3), torch.randn(2, 3)],
           fn(lambda a, v: LA.tensorsolve(a, v, dims=(0,))))


def spectral_cases(out):
    a = torch.randn(3, 3)
    for p in (None, 2, -2, "fro", "nuc", float("inf"), -float("inf"), 1, -1):
        tag = {None: "none", float("inf"): "inf", -float("inf"): "ninf"}.get(p, str(p))
        if p in (None, 2, -2):
            record(out, f"cond_{tag}", None, [a], fn(lambda v, p=p: LA.cond(v, p)))
            continue
        # (PyTorch 1.13's cond by a norm fails in backward, an in-place write to inv_ex's
        # result: the gradient is that of its definition, whose value is checked equal)
        record(out, f"cond_{tag}", None, [a], fn(lambda v, p=p: LA.matrix_norm(v, p) * LA.matrix_norm(LA.inv(v), p)))
        assert torch.allclose(out[f"cond_{tag}.y0"], LA.cond(a, p), rtol=1e-12)
    record(out, "cond_rect", None, [torch.randn(2, 4, 3)], fn(LA.cond))
    s = torch.randn(4, 4)
    sym = s @ s.T - 2 * torch.eye(4)
    low = torch.randn(4, 3) @ torch.randn(3, 4)  # rank 3
    record(out, "pinv_atol", None, [torch.randn(4, 3)], fn(lambda v: LA.pinv(v, atol=0.5)))
    record(out, "pinv_rtol_atol", None, [torch.randn(4, 3)], fn(lambda v: LA.pinv(v, atol=0.1, rtol=0.3)))
    record(out, "pinv_hermitian", None, [sym], fn(lambda v: LA.pinv(v, hermitian=True)))
    record(out, "pinv_hermitian_low", None, [low @ low.T], fn(lambda v: LA.pinv(v, hermitian=True)))
    put(out, "matrix_rank_atol", [low], [LA.matrix_rank(low, atol=1.0)])
    put(out, "matrix_rank_tol", [low], [LA.matrix_rank(low, tol=1.0)])
    put(out, "matrix_rank_hermitian", [low @ low.T], [LA.matrix_rank(low @ low.T, hermitian=True)])
    put(out, "matrix_rank_rtol", [low], [LA.matrix_rank(low, rtol=0.2)])
    general = torch.randn(4, 4)
    for uplo in ("L", "U"):
        record(out, f"eigvalsh_{uplo}", None, [general], fn(lambda v, u=uplo: LA.eigvalsh(v, UPLO=u)))
    spd = s @ s.T + torch.eye(4)
    record(out, "cholesky_upper", None, [spd], fn(lambda v: LA.cholesky(v, upper=True)))
    record(out, "cholesky_ex", None, [spd], fn(lambda v: list(LA.cholesky_ex(v))))
    bad = torch.stack([spd, -spd, torch.diag(torch.tensor([1.0, 2.0, -1.0, 3.0]))])
    out["cholesky_ex_bad.x0"], out["cholesky_ex_bad.y1"] = bad, LA.cholesky_ex(bad).info
    record(out, "inv_ex", None, [spd], fn(lambda v: list(LA.inv_ex(v))))
    record(out, "solve_ex", None, [spd, torch.randn(4)], fn(lambda v, r: list(LA.solve_ex(v, r))))
    record(out, "solve_ex_right", None, [spd, torch.randn(2, 4)], fn(lambda v, r: list(LA.solve_ex(v, r, left=False))))
    sing = torch.stack([spd, torch.tensor([[1.0, 2.0, 0, 0], [2.0, 4.0, 0, 0], [0, 0, 1.0, 0], [0, 0, 0, 1.0]])])
    out["inv_ex_singular.x0"], out["inv_ex_singular.y1"] = sing, LA.inv_ex(sing).info


def fft_cases(out):
    F = torch.fft
    for n in (1, 5, 6):
        out[f"fftfreq_{n}.y0"] = F.fftfreq(n, d=0.25)
        out[f"rfftfreq_{n}.y0"] = F.rfftfreq(n, d=0.25)
    a = torch.randn(3, 5, 4)
    record(out, "fftshift", None, [a], fn(F.fftshift))
    record(out, "fftshift_dim", None, [a], fn(lambda v: F.fftshift(v, dim=(0, -2))))
    record(out, "ifftshift", None, [a], fn(F.ifftshift))
    record(out, "ifftshift_dim", None, [a], fn(lambda v: F.ifftshift(v, dim=1)))


def more_cases(out):
    record(out, "vdot", None, [torch.randn(4), torch.randn(4)], fn(torch.vdot))
    for name, shape, src, args in (("diagonal_scatter", (3, 4), (3,), ()), ("diagonal_scatter_up", (3, 4), (3,), (1,)),
                                   ("diagonal_scatter_down", (3, 4), (2,), (-1,)),
                                   ("diagonal_scatter_dims", (2, 3, 3), (3, 2), (0, 0, 2)),
                                   ("diagonal_scatter_neg", (4, 2, 3), (2, 2), (-1, -1, 0))):
        record(out, name, None, [torch.randn(*shape), torch.randn(*src)],
               fn(lambda a, b, args=args: torch.diagonal_scatter(a, b, *args)))
    nc = torch.randn(3, 5)
    put(out, "narrow_copy", [nc], [torch.narrow_copy(nc, 1, 1, 3)])  # (no derivative in PyTorch 1.13)
    for n in (0, 1, 2, 5, 8):
        for periodic in (True, False):
            tag = f"{n}_{int(periodic)}"
            d = dict(dtype=torch.float64)
            out[f"hann_window_{tag}.y0"] = torch.hann_window(n, periodic, **d)
            out[f"hamming_window_{tag}.y0"] = torch.hamming_window(n, periodic, 0.6, 0.3, **d)
            out[f"blackman_window_{tag}.y0"] = torch.blackman_window(n, periodic, **d)
            out[f"bartlett_window_{tag}.y0"] = torch.bartlett_window(n, periodic, **d)
            out[f"kaiser_window_{tag}.y0"] = torch.kaiser_window(n, periodic, 5.0, **d)


def dist_more_cases(out):
    t = torch.tensor
    D = torch.distributions
    q = t([0.1, 0.5, 0.95])
    loc, scale = t([0.2, -1.0, 1.5]), t([1.0, 0.5, 2.0])
    pos = t([0.5, 1.5, 3.0])
    real = t([-0.7, 0.3, 2.5])

    def full(d, v, cdf=True):
        return [d.log_prob(v), d.entropy(), d.mean, d.variance] + ([d.cdf(v), d.icdf(q)] if cdf else [])
    record(out, "lognormal", None, [loc, scale, pos], fn(lambda m, s_, v: full(D.LogNormal(m, s_), v) + [D.LogNormal(m, s_).mode]))
    record(out, "lognormal_cdf", None, [loc, scale, pos], fn(lambda m, s_, v: D.LogNormal(m, s_).cdf(v)))
    record(out, "lognormal_entropy", None, [loc, scale], fn(lambda m, s_: D.LogNormal(m, s_).entropy()))
    record(out, "halfnormal", None, [scale, pos], fn(lambda s_, v: full(D.HalfNormal(s_), v)))
    record(out, "halfnormal_cdf", None, [scale, pos], fn(lambda s_, v: D.HalfNormal(s_).cdf(v)))
    record(out, "cauchy", None, [loc, scale, real], fn(lambda m, s_, v: [D.Cauchy(m, s_).log_prob(v), D.Cauchy(m, s_).entropy(),
                                                                          D.Cauchy(m, s_).cdf(v), D.Cauchy(m, s_).icdf(q)]))
    record(out, "cauchy_cdf", None, [loc, scale, real], fn(lambda m, s_, v: D.Cauchy(m, s_).cdf(v)))
    record(out, "gumbel", None, [loc, scale, real], fn(lambda m, s_, v: full(D.Gumbel(m, s_), v)))
    record(out, "gumbel_cdf", None, [loc, scale, real], fn(lambda m, s_, v: D.Gumbel(m, s_).cdf(v)))
    record(out, "gumbel_entropy", None, [scale], fn(lambda s_: D.Gumbel(0.0, s_).entropy()))
    df = t([0.8, 2.5, 5.0])
    record(out, "studentt", None, [df, loc, scale, real],
           fn(lambda n, m, s_, v: [D.StudentT(n, m, s_).log_prob(v), D.StudentT(n, m, s_).entropy(), D.StudentT(n, m, s_).mean,
                                   D.StudentT(n, m, s_).variance]))
    record(out, "studentt_entropy", None, [df, scale], fn(lambda n, s_: D.StudentT(n, 0.0, s_).entropy()))
    record(out, "chi2", None, [df, pos], fn(lambda n, v: [D.Chi2(n).log_prob(v), D.Chi2(n).entropy(), D.Chi2(n).mean, D.Chi2(n).variance]))
    record(out, "chi2_entropy", None, [df], fn(lambda n: D.Chi2(n).entropy()))
    rate, counts = t([0.5, 3.0, 40.0, 2.0]), t([0.0, 2.0, 37.0, 5.0])
    record(out, "poisson", None, [rate, counts], fn(lambda r, k: [D.Poisson(r).log_prob(k), D.Poisson(r).mean, D.Poisson(r).variance]))
    pg, kg = t([0.2, 0.7, 1.0, 0.05]), t([3.0, 0.0, 0.0, 10.0])
    record(out, "geometric", None, [pg, kg], fn(lambda p_, k: [D.Geometric(probs=p_).log_prob(k), D.Geometric(probs=p_).mean,
                                                               D.Geometric(probs=p_).variance]))
    record(out, "geometric_entropy", None, [pg[:2].clone()], fn(lambda p_: D.Geometric(probs=p_).entropy()))
    record(out, "geometric_logits", None, [t([-1.0, 0.5, 2.0]), t([2.0, 1.0, 0.0])],
           fn(lambda l_, k: D.Geometric(logits=l_).log_prob(k)))
    kl = D.kl_divergence
    loc2, scale2 = t([0.0, 0.5, 1.0]), t([2.0, 0.7, 1.0])
    record(out, "kl_lognormal", None, [loc, scale, loc2, scale2], fn(lambda a, b, c, d: kl(D.LogNormal(a, b), D.LogNormal(c, d))))
    record(out, "kl_halfnormal", None, [scale, scale2], fn(lambda a, b: kl(D.HalfNormal(a), D.HalfNormal(b))))
    record(out, "kl_cauchy", None, [loc, scale, loc2, scale2], fn(lambda a, b, c, d: kl(D.Cauchy(a, b), D.Cauchy(c, d))))
    record(out, "kl_gumbel", None, [loc, scale, loc2, scale2], fn(lambda a, b, c, d: kl(D.Gumbel(a, b), D.Gumbel(c, d))))
    record(out, "kl_chi2", None, [df, scale2], fn(lambda a, b: kl(D.Chi2(a), D.Chi2(b))))
    record(out, "kl_poisson", None, [rate, t([1.0, 3.5, 30.0, 0.5])], fn(lambda a, b: kl(D.Poisson(a), D.Poisson(b))))
    record(out, "kl_geometric", None, [t([0.2, 0.7, 0.5]), t([0.4, 0.1, 0.5])],
           fn(lambda a, b: kl(D.Geometric(probs=a), D.Geometric(probs=b))))


def spectral_norm_cases(out):
    import torch.nn as nn
    for name, layer, x in (("spectral_linear", nn.Linear(4, 3), torch.randn(2, 4)),
                           ("spectral_convt", nn.ConvTranspose2d(2, 3, 2), torch.randn(1, 2, 3, 3))):
        out[f"{name}.weight"], out[f"{name}.bias"] = layer.weight.detach().clone(), layer.bias.detach().clone()
        m = nn.utils.spectral_norm(layer, n_power_iterations=2)
        out[f"{name}.u0"], out[f"{name}.v0"] = m.weight_u.clone(), m.weight_v.clone()
        out[f"{name}.x"] = x
        y1 = m(x)
        out[f"{name}.u1"], out[f"{name}.v1"] = m.weight_u.clone(), m.weight_v.clone()
        y2 = m(x * 2)
        out[f"{name}.y1"], out[f"{name}.y2"] = y1.detach(), y2.detach()
        g = torch.randn(y2.shape)
        out[f"{name}.g"] = g
        (y2 * g).sum().backward()
        out[f"{name}.grad_orig"], out[f"{name}.grad_bias"] = m.weight_orig.grad.clone(), m.bias.grad.clone()
        m.eval()
        out[f"{name}.y3"] = m(x).detach()
        nn.utils.remove_spectral_norm(m)
        out[f"{name}.removed"] = m.weight.detach().clone()


def main():
    torch.manual_seed(0)
    out = {}
    torch.set_default_dtype(torch.float64)
    rsample_cases(out)
    integer_cases(out)
    float_cases(out)
    index_reduce_cases(out)
    lu_cases(out)
    triangular_cases(out)
    spectral_cases(out)
    fft_cases(out)
    more_cases(out)
    dist_more_cases(out)
    spectral_norm_cases(out)
    write_safetensors(OUT, out)
    print(f"{OUT}: {len(out)} tensors")


if __name__ == "__main__":
    main()
