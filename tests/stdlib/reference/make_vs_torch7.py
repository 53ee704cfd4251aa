"""Writes vs_torch7.safetensors for the round-7 gap tests against PyTorch 1.13
(tests/stdlib/test_gaps_vs_torch7.dsl): torch.special's functions nabla lacked (the
`special` module, stdlib/special.dsl). Each case is saved by make_layer_options.record
(inputs x<k>, outputs y<k>, upstream gradient g, the gradients of sum(y0 * g) for every
floating input); the tests compare dtypes too (vs_torch5_check.inc's check_in).

- tail_cases: erfc, erfcx, erfinv, ndtr, log_ndtr and ndtri, from the middle to the far
  tails (erfc(26), log_ndtr(-40), ndtri(1e-20)), with their gradients;
- bessel_cases: i0, i0e, i1 and i1e on both sides of the switch from the power series to
  the asymptote (|x| = 20), negative arguments, large ones (i0e(700));
- other_cases: zeta (its gradient in q only: PyTorch 1.13 has none in x), gammainc and
  gammaincc (gradient in x only, likewise; large a against mpmath, where PyTorch 1.13 is
  1e-9 off), multigammaln for p = 1..3, xlog1py, entr, and an f32 input of each family;
- dist_cases: torch.distributions' Uniform, Exponential and Laplace (log_prob, cdf,
  entropy, mean, variance, stddev, icdf and the gradients of log_prob, cdf and entropy
  in the parameters) and kl_divergence of each pair of the same kind (Normal, Bernoulli,
  Categorical, Exponential, Uniform, Laplace), with its infinite cases;
- gamma_family_cases: Gamma, Beta and Dirichlet (log_prob, entropy, mean, variance and
  their gradients, kl_divergence of each pair);
- mvn_cases: MultivariateNormal from each of its three matrices (log_prob, entropy,
  variance, a batch, kl_divergence) and Independent over Normal (log_prob, entropy,
  kl_divergence), with the gradients in every parameter and the value;
- tensor_cases: gradient (all dims, one dim, edge_order 2, a spacing per dim, sample
  coordinates), ldexp, diagflat, adjoint, hsplit, vsplit, dsplit, combinations and
  histogram (bins, range, edges, weight, density), addmv, addr, addbmm, chain_matmul,
  select_scatter, slice_scatter, cumulative_trapezoid, masked_scatter and put;
- functional_cases: torch.autograd.functional's jacobian, hessian, vjp, jvp, hvp and vhp
  (a tensor and a tuple of inputs, with create_graph both ways: the gradients of the
  results are second derivatives when it is true and absent when it is false).

    /usr/bin/python3 tests/stdlib/reference/make_vs_torch7.py
"""
import pathlib
import sys

import torch

HERE = pathlib.Path(__file__).parent
sys.path.insert(0, str(HERE.parents[2] / "scripts" / "reference"))
sys.path.insert(0, str(HERE))
from safetensors_file import write_safetensors  # noqa: E402
from make_layer_options import fn, record  # noqa: E402

OUT = HERE / "vs_torch7.safetensors"
S = torch.special


def tail_cases(out):
    t = torch.tensor
    wide = t([-5.0, -2.5, -1.0, -0.3, 0.0, 0.4, 1.0, 1.9, 2.0, 2.1, 3.5, 6.0, 10.0, 26.0])
    record(out, "erfc", None, [wide], fn(S.erfc))
    record(out, "torch_erfc", None, [wide], fn(torch.erfc))
    big = t([-3.0, -0.5, 0.0, 0.5, 1.99, 2.01, 5.0, 30.0, 1e3, 1e8])
    record(out, "erfcx", None, [big], fn(S.erfcx))
    # (not nearer 1: PyTorch's erfinv(1 - 1e-10) is 1e-8 off, the test checks nabla's by erfc)
    inner = t([-0.999999, -0.9, -0.5, -1e-3, 0.0, 0.2, 0.7, 0.99, 0.9999999])
    record(out, "erfinv", None, [inner], fn(S.erfinv))
    record(out, "torch_erfinv", None, [inner], fn(torch.erfinv))
    z = t([-40.0, -20.0, -8.0, -3.0, -1.0, 0.0, 0.7, 2.0, 5.0, 9.0])
    record(out, "ndtr", None, [z], fn(S.ndtr))
    record(out, "log_ndtr", None, [z], fn(S.log_ndtr))
    p = t([1e-20, 1e-8, 1e-4, 0.0009, 0.02, 0.3, 0.5, 0.6, 0.95, 0.9999, 1 - 1e-12])
    record(out, "ndtri", None, [p], fn(S.ndtri))
    edges = t([-1.0, 1.0, 1.5, 0.0])
    out["erfinv_edges.x0"], out["erfinv_edges.y0"] = edges, torch.erfinv(edges)
    pe = t([0.0, 1.0, -0.5, 2.0])
    out["ndtri_edges.x0"], out["ndtri_edges.y0"] = pe, S.ndtri(pe)
    f32 = wide.float()
    record(out, "erfc_f32", None, [f32], fn(S.erfc))
    record(out, "log_ndtr_f32", None, [z.float()], fn(S.log_ndtr))


def bessel_cases(out):
    t = torch.tensor
    x = t([-30.0, -19.5, -5.0, -0.5, 0.0, 0.5, 3.0, 12.0, 19.9, 20.1, 25.0, 100.0])
    record(out, "i0", None, [x], fn(S.i0))
    record(out, "torch_i0", None, [x], fn(torch.i0))
    record(out, "i1", None, [x], fn(S.i1))
    wide = torch.cat([x, t([700.0, -700.0])])
    record(out, "i0e", None, [wide], fn(S.i0e))
    record(out, "i1e", None, [wide], fn(S.i1e))
    record(out, "i0_f32", None, [x[:-1].float()], fn(S.i0))  # i0(100) overflows f32


def other_cases(out):
    t = torch.tensor
    s = t([2.0, 3.0, 1.5, 4.5, 10.0, 50.0, 2.0])
    q = t([1.0, 0.5, 3.0, 10.0, 0.3, 0.7, 100.0])
    out["zeta_q.s"] = s
    record(out, "zeta_q", None, [q], fn(lambda v: S.zeta(s, v)))
    out["zeta_edges.x0"], out["zeta_edges.x1"] = t([1.0, 0.5, 2.0, 2.0]), t([2.0, 1.0, 0.0, -1.5])
    out["zeta_edges.y0"] = S.zeta(out["zeta_edges.x0"], out["zeta_edges.x1"])
    ga = t([0.5, 1.0, 2.5, 10.0, 3.0, 7.5])
    gx = t([0.1, 0.5, 3.0, 15.0, 1e-3, 40.0])
    out["gammainc.a"] = ga
    record(out, "gammainc", None, [gx], fn(lambda v: S.gammainc(ga, v)))  # (no gradient in a in PyTorch 1.13)
    record(out, "gammaincc", None, [gx], fn(lambda v: S.gammaincc(ga, v)))
    ea, ex = t([3.0, 0.0, 0.0, -1.0, 2.0, 2.0, float("nan")]), t([0.0, 1.0, 0.0, 1.0, -1.0, float("inf"), 1.0])
    out["gammainc_edges.x0"], out["gammainc_edges.x1"], out["gammainc_edges.y0"] = ea, ex, S.gammainc(ea, ex)
    # large a: PyTorch 1.13's gammainc is 1e-9 off there (0.15822098907532103 at a = 100,
    # x = 90); the reference is mpmath's, to 30 digits
    import mpmath
    mpmath.mp.dps = 30
    la, lx = t([100.0, 1000.0, 50.0]), t([90.0, 1010.0, 80.0])
    out["gammainc_large.x0"], out["gammainc_large.x1"] = la, lx
    out["gammainc_large.y0"] = t([float(mpmath.gammainc(float(p), 0, float(q), regularized=True)) for p, q in zip(la, lx)])
    a = t([2.5, 3.0, 4.25, 10.0])
    for p in (1, 2, 3):
        record(out, f"multigammaln_{p}", None, [a], fn(lambda v, p=p: S.multigammaln(v, p)))
    record(out, "mvlgamma", None, [a], fn(lambda v: torch.mvlgamma(v, 2)))
    x = t([0.5, 2.0, -1.5, 3.0])
    y = t([-0.5, 0.5, 2.0, 1e-10])
    record(out, "xlog1py", None, [x, y], fn(S.xlog1py))
    record(out, "xlog1py_number", None, [x], fn(lambda v: S.xlog1py(v, 2.0)))
    out["xlog1py_zero.x0"], out["xlog1py_zero.x1"] = t([0.0, 0.0, 0.0]), t([-1.0, 3.0, float("nan")])
    out["xlog1py_zero.y0"] = S.xlog1py(out["xlog1py_zero.x0"], out["xlog1py_zero.x1"])
    record(out, "entr", None, [t([0.25, 0.5, 1.0, 3.0])], fn(S.entr))
    out["entr_edges.x0"] = t([0.0, -1.0, float("nan"), float("inf")])
    out["entr_edges.y0"] = S.entr(out["entr_edges.x0"])


def dist_cases(out):
    t = torch.tensor
    D = torch.distributions
    low, high, v = t([0.0, -2.0, 1.5]), t([1.0, 3.0, 1.75]), t([0.25, 3.0, 1.6])
    q = t([0.1, 0.5, 0.95])

    def moments(d, value):
        return [d.log_prob(value), d.cdf(value), d.entropy(), d.mean, d.variance, d.stddev, d.icdf(q)]
    record(out, "uniform", None, [low, high, v], fn(lambda a, b, x: moments(D.Uniform(a, b), x)))
    record(out, "uniform_cdf", None, [low, high, v], fn(lambda a, b, x: D.Uniform(a, b).cdf(x)))
    record(out, "uniform_entropy", None, [low, high], fn(lambda a, b: D.Uniform(a, b).entropy()))
    rate, ev = t([0.5, 1.0, 3.0]), t([0.0, 1.5, 0.2])
    record(out, "exponential", None, [rate, ev], fn(lambda r, x: moments(D.Exponential(r), x)))
    record(out, "exponential_cdf", None, [rate, ev], fn(lambda r, x: D.Exponential(r).cdf(x)))
    record(out, "exponential_entropy", None, [rate], fn(lambda r: D.Exponential(r).entropy()))
    loc, scale, lv = t([0.0, -1.0, 2.0]), t([1.0, 0.5, 3.0]), t([0.7, -1.2, 2.0 + 1e-3])
    record(out, "laplace", None, [loc, scale, lv], fn(lambda m, b, x: moments(D.Laplace(m, b), x)))
    record(out, "laplace_cdf", None, [loc, scale, lv], fn(lambda m, b, x: D.Laplace(m, b).cdf(x)))
    record(out, "laplace_entropy", None, [scale], fn(lambda b: D.Laplace(0.0, b).entropy()))
    record(out, "laplace_icdf", None, [loc, scale], fn(lambda m, b: D.Laplace(m, b).icdf(q)))
    kl = D.kl_divergence
    record(out, "kl_normal", None, [loc, scale, t([0.5, -1.0, 1.0]), t([2.0, 0.5, 1.0])],
           fn(lambda a, b, c, d: kl(D.Normal(a, b), D.Normal(c, d))))
    record(out, "kl_exponential", None, [rate, t([1.0, 0.25, 3.0])], fn(lambda a, b: kl(D.Exponential(a), D.Exponential(b))))
    record(out, "kl_laplace", None, [loc, scale, t([0.5, -1.0, 1.0]), t([2.0, 0.5, 1.0])],
           fn(lambda a, b, c, d: kl(D.Laplace(a, b), D.Laplace(c, d))))
    record(out, "kl_uniform", None, [low, high, t([-1.0, -2.0, 1.6]), t([2.0, 3.5, 2.0])],
           fn(lambda a, b, c, d: kl(D.Uniform(a, b), D.Uniform(c, d))))
    record(out, "kl_bernoulli", None, [t([0.2, 0.0, 0.7, 1.0]), t([0.5, 0.3, 0.7, 0.4])],
           fn(lambda a, b: kl(D.Bernoulli(probs=a), D.Bernoulli(probs=b))))
    record(out, "kl_categorical", None, [torch.randn(2, 4), torch.randn(4)],
           fn(lambda a, b: kl(D.Categorical(logits=a), D.Categorical(logits=b))))
    pz, qz = t([[0.5, 0.5, 0.0], [0.2, 0.3, 0.5]]), t([[0.25, 0.25, 0.5], [0.5, 0.5, 0.0]])
    out["kl_categorical_zero.x0"], out["kl_categorical_zero.x1"] = pz, qz
    out["kl_categorical_zero.y0"] = kl(D.Categorical(probs=pz), D.Categorical(probs=qz))


def mvn_cases(out):
    t = torch.tensor
    D = torch.distributions
    a = torch.randn(3, 3)
    cov = a @ a.T + torch.eye(3)
    loc, value = torch.randn(3), torch.randn(4, 3)
    tril = torch.linalg.cholesky(cov)
    record(out, "mvn_cov", None, [loc, cov, value],
           fn(lambda m, c, v: [D.MultivariateNormal(m, covariance_matrix=c).log_prob(v), D.MultivariateNormal(m, covariance_matrix=c).entropy()]))
    record(out, "mvn_tril", None, [loc, tril, value],
           fn(lambda m, L, v: [D.MultivariateNormal(m, scale_tril=L).log_prob(v), D.MultivariateNormal(m, scale_tril=L).variance]))
    record(out, "mvn_precision", None, [loc, torch.linalg.inv(cov), value],
           fn(lambda m, P, v: D.MultivariateNormal(m, precision_matrix=P).log_prob(v)))
    record(out, "mvn_entropy", None, [tril], fn(lambda L: D.MultivariateNormal(torch.zeros(3), scale_tril=L).entropy()))
    batch_loc = torch.randn(2, 3)
    record(out, "mvn_batch", None, [batch_loc, tril, value[:2]],
           fn(lambda m, L, v: D.MultivariateNormal(m, scale_tril=L).log_prob(v)))
    b = torch.randn(3, 3)
    tril2 = torch.linalg.cholesky(b @ b.T + 0.5 * torch.eye(3))
    record(out, "mvn_kl", None, [loc, tril, torch.randn(3), tril2],
           # (p's L.tril(): PyTorch's kl reads p's whole scale_tril, its log_prob only the lower
           # triangle; nabla reads the lower triangle everywhere)
           fn(lambda m, L, m2, L2: D.kl_divergence(D.MultivariateNormal(m, scale_tril=L.tril()),
                                                   D.MultivariateNormal(m2, scale_tril=L2))))
    mu, sd, x = torch.randn(2, 3), torch.rand(2, 3) + 0.5, torch.randn(2, 3)
    record(out, "independent", None, [mu, sd, x],
           fn(lambda m, s, v: [D.Independent(D.Normal(m, s), 1).log_prob(v), D.Independent(D.Normal(m, s), 1).entropy()]))
    record(out, "independent_2", None, [mu, sd, x], fn(lambda m, s, v: D.Independent(D.Normal(m, s), 2).log_prob(v)))
    record(out, "independent_kl", None, [mu, sd, x, sd.flip(0)],
           fn(lambda m, s, m2, s2: D.kl_divergence(D.Independent(D.Normal(m, s), 1), D.Independent(D.Normal(m2, s2), 1))))


def gamma_family_cases(out):
    t = torch.tensor
    D = torch.distributions
    kl = D.kl_divergence
    a, r, v = t([0.5, 2.0, 9.0]), t([1.0, 3.0, 0.5]), t([0.5, 1.0, 2.0])
    record(out, "gamma", None, [a, r, v],
           fn(lambda c, b, x: [D.Gamma(c, b).log_prob(x), D.Gamma(c, b).entropy(), D.Gamma(c, b).mean, D.Gamma(c, b).variance]))
    record(out, "gamma_entropy", None, [a, r], fn(lambda c, b: D.Gamma(c, b).entropy()))
    # (not 0 or 1 with a concentration of 1: PyTorch 1.13 gives log(0) * 0 = NaN there, nabla
    # xlogy's 0, as PyTorch 2's; the test checks that apart)
    c1, c0, bv = t([0.5, 2.0, 1.0]), t([3.0, 2.0, 1.0]), t([0.2, 0.7, 0.1])
    record(out, "beta", None, [c1, c0, bv],
           fn(lambda p, q, x: [D.Beta(p, q).log_prob(x), D.Beta(p, q).entropy(), D.Beta(p, q).mean, D.Beta(p, q).variance]))
    record(out, "beta_entropy", None, [c1, c0], fn(lambda p, q: D.Beta(p, q).entropy()))
    dc, dv = t([[1.0, 2.0, 3.0], [0.5, 0.5, 4.0]]), t([[0.2, 0.3, 0.5], [0.1, 0.6, 0.3]])
    record(out, "dirichlet", None, [dc, dv],
           fn(lambda c, x: [D.Dirichlet(c).log_prob(x), D.Dirichlet(c).entropy(), D.Dirichlet(c).mean, D.Dirichlet(c).variance]))
    record(out, "dirichlet_entropy", None, [dc], fn(lambda c: D.Dirichlet(c).entropy()))
    record(out, "kl_gamma", None, [a, r, t([1.0, 1.0, 4.0]), t([2.0, 0.5, 1.0])],
           fn(lambda p1, p2, q1, q2: kl(D.Gamma(p1, p2), D.Gamma(q1, q2))))
    record(out, "kl_beta", None, [c1, c0, t([1.0, 1.0, 4.0]), t([2.0, 0.5, 1.0])],
           fn(lambda p1, p2, q1, q2: kl(D.Beta(p1, p2), D.Beta(q1, q2))))
    record(out, "kl_dirichlet", None, [dc, dc.flip(-1) + 0.5], fn(lambda p, q: kl(D.Dirichlet(p), D.Dirichlet(q))))


def tensor_cases(out):
    t = torch.tensor
    f = torch.randn(4, 5)
    record(out, "gradient_all", None, [f], fn(torch.gradient))
    record(out, "gradient_dim", None, [f], fn(lambda v: torch.gradient(v, dim=1)))
    record(out, "gradient_edge2", None, [f], fn(lambda v: torch.gradient(v, spacing=0.5, edge_order=2)))
    record(out, "gradient_spacings", None, [f], fn(lambda v: torch.gradient(v, spacing=[2.0, 0.25])))
    xs0, xs1 = t([0.0, 0.5, 2.0, 2.25]), t([-1.0, 0.0, 0.3, 1.5, 4.0])
    for order in (1, 2):
        record(out, f"gradient_coords_{order}", None, [f, xs0, xs1],
               fn(lambda v, a, b, order=order: torch.gradient(v, spacing=[a.detach(), b.detach()], edge_order=order)))
    record(out, "gradient_1d", None, [t([1.0, 4.0, 9.0, 16.0, 30.0])], fn(lambda v: torch.gradient(v, edge_order=2)))
    record(out, "ldexp", None, [t([1.0, -2.5, 3.0]), t([2, -1, 10])], fn(torch.ldexp))
    record(out, "ldexp_float", None, [t([1.0, -2.5, 3.0]), t([0.5, 1.5, -2.0])], fn(torch.ldexp))
    record(out, "diagflat", None, [torch.randn(2, 2)], fn(lambda v: torch.diagflat(v, 1)))
    record(out, "diagflat_neg", None, [torch.randn(3)], fn(lambda v: torch.diagflat(v, -2)))
    record(out, "adjoint", None, [torch.randn(2, 3, 4)], fn(torch.adjoint))
    a = torch.randn(4, 6, 2)
    record(out, "hsplit", None, [a], fn(lambda v: torch.hsplit(v, 3)))
    record(out, "hsplit_list", None, [a], fn(lambda v: torch.hsplit(v, [1, 4])))
    record(out, "vsplit", None, [a], fn(lambda v: torch.vsplit(v, 2)))
    record(out, "dsplit", None, [a], fn(lambda v: torch.dsplit(v, [1])))
    record(out, "hsplit_1d", None, [torch.randn(6)], fn(lambda v: torch.hsplit(v, 2)))
    m, vec, vec2 = torch.randn(2, 3), torch.randn(3), torch.randn(2)
    record(out, "addmv", None, [vec2, m, vec], fn(lambda i, a, b: torch.addmv(i, a, b, beta=2.0, alpha=0.5)))
    record(out, "addr", None, [torch.randn(2, 3), vec2, vec], fn(lambda i, a, b: torch.addr(i, a, b, alpha=3.0)))
    record(out, "addbmm", None, [torch.randn(2, 4), torch.randn(3, 2, 5), torch.randn(3, 5, 4)],
           fn(lambda i, a, b: torch.addbmm(i, a, b, beta=0.5)))
    record(out, "chain_matmul", None, [m, torch.randn(3, 4), torch.randn(4, 2)], fn(torch.chain_matmul))
    record(out, "select_scatter", None, [m, torch.randn(2)], fn(lambda i, sv: torch.select_scatter(i, sv, 1, -1)))
    record(out, "slice_scatter", None, [torch.randn(5, 2), torch.randn(2, 2)], fn(lambda i, sv: torch.slice_scatter(i, sv, 0, 1, 5, 2)))
    record(out, "cumulative_trapezoid", None, [torch.randn(3, 5)], fn(torch.cumulative_trapezoid))
    record(out, "cumulative_trapezoid_x", None, [torch.randn(3, 5), t([0.0, 0.5, 1.5, 1.75, 3.0])],
           fn(lambda v, xs: torch.cumulative_trapezoid(v, xs)))
    record(out, "cumulative_trapezoid_dx", None, [torch.randn(3, 5)], fn(lambda v: torch.cumulative_trapezoid(v, dx=0.25, dim=0)))
    ms_mask = t([[True, False, True, True], [False, True, False, True], [True, True, False, False]])
    record(out, "masked_scatter", None, [torch.randn(3, 4), ms_mask, torch.randn(10)], fn(torch.masked_scatter))
    record(out, "masked_scatter_row", None, [torch.randn(3, 4), ms_mask[0], torch.randn(3, 4)], fn(torch.masked_scatter))
    record(out, "put", None, [torch.randn(3, 4), t([0, 5, -1, 7]), torch.randn(4)], fn(torch.put))
    record(out, "put_accumulate", None, [torch.randn(3, 4), t([0, 5, 0, -1]), torch.randn(4)],
           fn(lambda i, idx, src: torch.put(i, idx, src, accumulate=True)))
    h = torch.randn(50)
    # (on a grid with min 0 and max 17.5, so the 7 bins' edges are exact: PyTorch 1.13's edges
    # are start + k * step, whose last can fall below the maximum, which it then leaves out;
    # nabla's last edge is the maximum; elements on inner edges go right in both)
    grid = torch.randint(0, 71, (50,)).double() * 0.25
    grid[0], grid[1] = 0.0, 17.5
    record(out, "histogram", None, [grid], fn(lambda v: list(torch.histogram(v.detach(), 7))))
    record(out, "histogram_range", None, [h], fn(lambda v: list(torch.histogram(v.detach(), 4, range=(-1.0, 0.5)))))
    record(out, "histogram_edges", None, [h, t([-2.0, -0.5, 0.0, 0.1, 3.0])],
           fn(lambda v, e: list(torch.histogram(v.detach(), e.detach(), density=True))))
    record(out, "histogram_weight", None, [h, torch.rand(50)],
           fn(lambda v, w: list(torch.histogram(v.detach(), 5, weight=w.detach(), density=True))))
    c = torch.randn(4)
    record(out, "combinations", None, [c], fn(torch.combinations))
    record(out, "combinations_r3", None, [c], fn(lambda v: torch.combinations(v, r=3)))
    record(out, "combinations_repl", None, [c], fn(lambda v: torch.combinations(v, r=2, with_replacement=True)))
    record(out, "combinations_int", None, [t([5, 6, 7])], fn(lambda v: torch.combinations(v, 2, True)))


def functional_cases(out):
    AF = torch.autograd.functional
    x, y = torch.randn(3), torch.randn(3)
    v3 = torch.randn(3)
    out["af.v"] = v3

    def cube(a):
        return a ** 3 * a.sin()

    def two(a, b):
        return (a * b.exp(), (a ** 2 * b).sum())

    def scalar2(a, b):
        return (a ** 3 * b + b.sin() * a).sum()
    for cg in (True, False):
        tag = "cg" if cg else "nocg"
        record(out, f"af_jacobian_{tag}", None, [x], fn(lambda a, cg=cg: AF.jacobian(cube, a, create_graph=cg)))
        record(out, f"af_jacobian_tuple_{tag}", None, [x, y],
               fn(lambda a, b, cg=cg: AF.jacobian(two, (a, b), create_graph=cg)))
        record(out, f"af_hessian_{tag}", None, [x], fn(lambda a, cg=cg: AF.hessian(lambda t: cube(t).sum(), a, create_graph=cg)))
        record(out, f"af_hessian_tuple_{tag}", None, [x, y], fn(lambda a, b, cg=cg: AF.hessian(scalar2, (a, b), create_graph=cg)))
        record(out, f"af_vjp_{tag}", None, [x], fn(lambda a, cg=cg: AF.vjp(cube, a, v3, create_graph=cg)[::-1]))
        record(out, f"af_jvp_{tag}", None, [x], fn(lambda a, cg=cg: AF.jvp(cube, a, v3, create_graph=cg)[::-1]))
        record(out, f"af_hvp_{tag}", None, [x, y], fn(lambda a, b, cg=cg: AF.hvp(scalar2, (a, b), (v3, v3), create_graph=cg)[::-1]))
        record(out, f"af_vhp_{tag}", None, [x, y], fn(lambda a, b, cg=cg: AF.vhp(scalar2, (a, b), (v3, v3), create_graph=cg)[::-1]))
    record(out, "af_vjp_scalar", None, [x], fn(lambda a: AF.vjp(lambda t: cube(t).sum(), a, create_graph=True)[::-1]))


def main():
    torch.manual_seed(0)
    out = {}
    torch.set_default_dtype(torch.float64)
    tail_cases(out)
    bessel_cases(out)
    other_cases(out)
    dist_cases(out)
    mvn_cases(out)
    gamma_family_cases(out)
    tensor_cases(out)
    functional_cases(out)
    write_safetensors(OUT, out)
    print(f"{OUT}: {len(out)} tensors")


if __name__ == "__main__":
    main()
