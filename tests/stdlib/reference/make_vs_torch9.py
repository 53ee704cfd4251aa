"""Writes vs_torch9.safetensors for the round-9 gap tests against PyTorch 1.13
(tests/stdlib/test_gaps_vs_torch9.dsl, test_gaps_vs_torch9_nn.dsl and
test_gaps_vs_torch9_dist.dsl). Each case is saved by make_layer_options.record (inputs
x<k>, outputs y<k>, upstream gradient g, the gradients of sum(y0 * g) for every floating
input) or, for values without a gradient, as x<k> and y<k> directly; the tests compare
dtypes too (vs_torch5_check.inc's check_in).

- strided_cases: Tensor.as_strided on a contiguous base (with and without a
  storage_offset, overlapping windows), a transposed view and a sliced view (whose
  storage_offset is the default), with gradients, and as_strided_scatter (values);
- histogramdd_cases: torch.histogramdd with even bins per dim, a range, edge tensors,
  weights and density, and points in more than 2 dims;
- gradient_cases: torch.gradient with a uniform spacing (0 too: PyTorch's inf) and
  edge_order 2;
- fractional_cases: F.fractional_max_pool2d with given _random_samples (output_size,
  output_ratio, a rectangular kernel, an unbatched input, output_size 1) and
  F.fractional_max_pool3d (batched with indices, unbatched by output_ratio): the
  output, its indices and the gradient in the input;
- antialias_cases: F.interpolate(antialias=True), bilinear and bicubic, shrinking, growing,
  by a scale_factor and with align_corners, with gradients;
- orthogonal_cases: nn.utils.parametrizations.orthogonal of a Linear's weight for each
  orthogonal_map, square, tall and wide: the weight at registration, the base buffer,
  then (the original set to a fixed matrix) the weight, the Linear's output and the
  gradients in the original and the bias;
- spectral_param_cases: nn.utils.parametrizations.spectral_norm of a Linear and a
  ConvTranspose2d (dim 1): the buffers after registration, two training forwards (the
  buffers after the first), the gradients in the original and the bias, an eval forward;
- transformed_cases: distributions.TransformedDistribution of a Normal through
  ExpTransform (equal to LogNormal), AffineTransform + SigmoidTransform (decreasing:
  cdf is 1 - F), ComposeTransform, TanhTransform and an AffineTransform with
  event_dim=1: log_prob, cdf and icdf (where PyTorch has them) with gradients in loc,
  scale and the value, and each transform's forward, inverse and log_abs_det_jacobian;
- more_dist_cases: MixtureSameFamily of Normals (log_prob, mean, variance, cdf) and of
  Independent Normals (an event dim), Pareto, Weibull and HalfCauchy (log_prob, cdf,
  icdf, moments, entropy) with gradients in every parameter, PowerTransform, and
  OneHotCategorical, Multinomial, RelaxedOneHotCategorical and RelaxedBernoulli
  (log_prob and moments, with gradients in the logits, probs, temperature and value),
  LowRankMultivariateNormal (log_prob, entropy, variance, covariance_matrix), VonMises,
  Kumaraswamy and FisherSnedecor (log_prob and moments),
  NegativeBinomial (probs and logits: log_prob, mean, mode, variance, with gradients),
  and kl_divergence of two Paretos (one inf: p below q's scale) and two OneHotCategoricals.

    /usr/bin/python3 tests/stdlib/reference/make_vs_torch9.py
"""
import pathlib
import sys

import torch
import torch.nn.functional as F

HERE = pathlib.Path(__file__).parent
sys.path.insert(0, str(HERE.parents[2] / "scripts" / "reference"))
sys.path.insert(0, str(HERE))
from safetensors_file import write_safetensors  # noqa: E402
from make_layer_options import fn, record  # noqa: E402

OUT = HERE / "vs_torch9.safetensors"


def put(out, name, inputs, outputs):
    for k, t in enumerate(inputs):
        out[f"{name}.x{k}"] = t.detach().clone()
    for k, t in enumerate(outputs):
        out[f"{name}.y{k}"] = t.detach().clone()


def strided_cases(out):
    x = torch.randn(12)
    record(out, "as_strided", None, [x], fn(lambda a: a.as_strided([3, 3], [2, 1])))
    record(out, "as_strided_offset", None, [x], fn(lambda a: a.as_strided([2, 4], [3, 1], 2)))
    record(out, "as_strided_windows", None, [x], fn(lambda a: a.as_strided([5, 4], [2, 1])))
    record(out, "as_strided_zero_stride", None, [x], fn(lambda a: a.as_strided([3, 2], [0, 5], 1)))
    record(out, "as_strided_transposed", None, [x], fn(lambda a: a.view(3, 4).t().as_strided([2, 3], [1, 4])))
    record(out, "as_strided_sliced", None, [x], fn(lambda a: a.view(3, 4)[1:].as_strided([2, 2], [1, 1])))
    # values only: PyTorch 1.13's gradient of as_strided_scatter in input is wrong (1 at the
    # replaced elements, 0 elsewhere: the reverse); the test checks nabla's by gradcheck
    base, src = torch.randn(3, 4), torch.randn(2, 3)
    put(out, "as_strided_scatter", [base, src], [torch.as_strided_scatter(base, src, [2, 3], [4, 1], 1)])
    record(out, "as_strided_3d", None, [x.view(2, 2, 3)], fn(lambda a: a.as_strided([2, 2, 2], [6, 1, 2], 1)))


def histogramdd_cases(out):
    pts = torch.randn(40, 2)
    h = torch.histogramdd(pts, bins=[3, 4])
    put(out, "histogramdd", [pts], [h.hist, *h.bin_edges])
    h = torch.histogramdd(pts, bins=3, range=[-1.0, 1.0, -0.5, 2.0])
    put(out, "histogramdd_range", [pts], [h.hist, *h.bin_edges])
    w = torch.rand(40)
    e0, e1 = torch.tensor([-2.0, -0.5, 0.0, 1.5]), torch.tensor([-1.0, 0.3, 2.0])
    h = torch.histogramdd(pts, bins=[e0, e1], weight=w, density=True)
    put(out, "histogramdd_edges", [pts, w, e0, e1], [h.hist, *h.bin_edges])
    p3 = torch.rand(2, 15, 3)
    h = torch.histogramdd(p3, bins=[2, 3, 2], density=True)
    put(out, "histogramdd_3d", [p3], [h.hist, *h.bin_edges])


def gradient_cases(out):
    f = torch.tensor([1.0, 2.0, 4.0, 7.0, 11.0])
    put(out, "gradient_zero", [f], list(torch.gradient(f, spacing=0.0)))
    put(out, "gradient_uniform2", [f], list(torch.gradient(f, spacing=0.3, edge_order=2)))
    g2 = torch.randn(4, 5)
    put(out, "gradient_2d", [g2], list(torch.gradient(g2, spacing=[0.5, 2.0], edge_order=2)))


def fractional_cases(out):
    x = torch.randn(2, 3, 7, 6)
    u = torch.rand(2, 3, 2)
    out["fractional.u"] = u
    record(out, "fractional_size", None, [x], fn(lambda a: list(F.fractional_max_pool2d(
        a, 2, output_size=(4, 3), return_indices=True, _random_samples=u))))
    record(out, "fractional_ratio", None, [x], fn(lambda a: F.fractional_max_pool2d(
        a, (3, 2), output_ratio=(0.5, 0.7), _random_samples=u)))
    record(out, "fractional_one", None, [x], fn(lambda a: list(F.fractional_max_pool2d(
        a, 3, output_size=1, return_indices=True, _random_samples=u))))
    u1 = torch.rand(1, 3, 2)
    out["fractional_unbatched.u"] = u1
    record(out, "fractional_unbatched", None, [x[0]], fn(lambda a: list(F.fractional_max_pool2d(
        a, 2, output_size=5, return_indices=True, _random_samples=u1))))
    v = torch.randn(2, 2, 5, 6, 7)
    u3 = torch.rand(2, 2, 3)
    out["fractional3d.u"] = u3
    record(out, "fractional3d", None, [v], fn(lambda a: list(F.fractional_max_pool3d(
        a, (2, 3, 2), output_size=(3, 3, 4), return_indices=True, _random_samples=u3))))
    record(out, "fractional3d_ratio", None, [v[0]], fn(lambda a: F.fractional_max_pool3d(
        a, 2, output_ratio=0.5, _random_samples=u3[:1])))


def antialias_cases(out):
    x = torch.randn(2, 3, 11, 9)
    record(out, "aa_bilinear", None, [x], fn(lambda a: F.interpolate(a, size=(4, 5), mode="bilinear", antialias=True)))
    record(out, "aa_bicubic", None, [x], fn(lambda a: F.interpolate(a, size=(3, 7), mode="bicubic", antialias=True)))
    record(out, "aa_up", None, [x], fn(lambda a: F.interpolate(a, size=(15, 4), mode="bilinear", antialias=True)))
    record(out, "aa_factor", None, [x], fn(lambda a: F.interpolate(a, scale_factor=0.35, mode="bicubic", antialias=True)))
    record(out, "aa_corners", None, [x], fn(lambda a: F.interpolate(a, size=(5, 4), mode="bilinear", align_corners=True,
                                                                   antialias=True)))


def orthogonal_cases(out):
    P = torch.nn.utils.parametrizations
    for name, (rows, cols), mp in [("orth_exp", (3, 3), None), ("orth_cayley", (3, 3), "cayley"),
                                   ("orth_house", (3, 3), "householder"), ("orth_tall", (4, 2), None),
                                   ("orth_tall_cayley", (4, 2), "cayley"), ("orth_wide", (2, 4), "matrix_exp"),
                                   ("orth_wide_house", (2, 4), None)]:
        m = torch.nn.Linear(cols, rows)
        out[f"{name}.weight"] = m.weight.detach().clone()
        out[f"{name}.bias"] = m.bias.detach().clone()
        P.orthogonal(m, orthogonal_map=mp)
        out[f"{name}.w_init"] = m.weight.detach().clone()
        out[f"{name}.base"] = m.parametrizations.weight[0].base.clone()
        # the diagonal stays -1 (householder's signs; training never moves it: no gradient)
        X = torch.randn(rows, cols) * 0.4
        X.diagonal().fill_(-1.0)
        with torch.no_grad():
            m.parametrizations.weight.original.copy_(X)
        out[f"{name}.original"] = X
        x, g = torch.randn(5, cols), torch.randn(5, rows)
        out[f"{name}.x"], out[f"{name}.g"] = x, g
        out[f"{name}.w"] = m.weight.detach().clone()
        y = m(x)
        out[f"{name}.y"] = y.detach()
        (y * g).sum().backward()
        out[f"{name}.grad_original"] = m.parametrizations.weight.original.grad.clone()
        out[f"{name}.grad_bias"] = m.bias.grad.clone()
    sq = torch.linalg.qr(torch.randn(3, 3)).Q * torch.tensor([1.0, -1.0, -1.0])  # already orthogonal
    m = torch.nn.Linear(3, 3)
    with torch.no_grad():
        m.weight.copy_(sq)
    P.orthogonal(m)
    out["orth_kept.weight"], out["orth_kept.base"] = sq, m.parametrizations.weight[0].base.clone()


def spectral_param_cases(out):
    P = torch.nn.utils.parametrizations
    for name, m, shape in [("sn_linear", torch.nn.Linear(5, 4), (3, 5)),
                           ("sn_convt", torch.nn.ConvTranspose2d(3, 2, 3), (1, 3, 4, 4))]:
        out[f"{name}.weight"], out[f"{name}.bias"] = m.weight.detach().clone(), m.bias.detach().clone()
        P.spectral_norm(m)
        sn = m.parametrizations.weight[0]
        out[f"{name}.u0"], out[f"{name}.v0"] = sn._u.clone(), sn._v.clone()
        x1, x2 = torch.randn(*shape), torch.randn(*shape)
        out[f"{name}.x1"], out[f"{name}.x2"] = x1, x2
        out[f"{name}.y1"] = m(x1).detach()
        out[f"{name}.u1"], out[f"{name}.v1"] = sn._u.clone(), sn._v.clone()
        y2 = m(x2)
        out[f"{name}.y2"] = y2.detach()
        g = torch.randn(y2.shape)
        out[f"{name}.g"] = g
        (y2 * g).sum().backward()
        out[f"{name}.grad_original"] = m.parametrizations.weight.original.grad.clone()
        out[f"{name}.grad_bias"] = m.bias.grad.clone()
        m.eval()
        out[f"{name}.y3"] = m(x1).detach()


def transformed_cases(out):
    D = torch.distributions
    T = D.transforms
    loc, scale = torch.tensor([0.3, -1.2, 0.8]), torch.tensor([0.7, 1.5, 2.0])
    v = torch.tensor([0.4, 2.5, 1.1])
    q = torch.tensor([0.2, 0.5, 0.9])

    def exp_case(lc, sc, val, qq):
        d = D.TransformedDistribution(D.Normal(lc, sc), [T.ExpTransform()])
        return [d.log_prob(val), d.cdf(val), d.icdf(qq), D.LogNormal(lc, sc).log_prob(val)]
    record(out, "td_exp", None, [loc, scale, v, q], fn(exp_case))
    u = torch.tensor([0.15, 0.6, 0.85])

    def affine_sigmoid(lc, sc, val, qq):
        d = D.TransformedDistribution(D.Normal(lc, sc), [T.AffineTransform(0.5, -2.0), T.SigmoidTransform()])
        return [d.log_prob(val), d.cdf(val), d.icdf(qq)]
    record(out, "td_affine_sigmoid", None, [loc, scale, u, q], fn(affine_sigmoid))
    a_loc, a_scale = torch.tensor([1.0, -0.5, 2.0]), torch.tensor([0.5, 3.0, 1.5])

    def compose(lc, sc, al, asc, val):
        d = D.TransformedDistribution(D.Normal(lc, sc), T.ComposeTransform([T.AffineTransform(al, asc), T.ExpTransform()]))
        return [d.log_prob(val), d.cdf(val)]
    record(out, "td_compose", None, [loc, scale, a_loc, a_scale, v], fn(compose))
    t = torch.tensor([-0.3, 0.55, 0.9])
    record(out, "td_tanh", None, [loc, scale, t],
           fn(lambda lc, sc, val: D.TransformedDistribution(D.Normal(lc, sc), T.TanhTransform()).log_prob(val)))
    record(out, "td_event", None, [loc, scale, a_loc, a_scale, v],
           fn(lambda lc, sc, al, asc, val: D.TransformedDistribution(
               D.Normal(lc, sc), T.AffineTransform(al, asc, event_dim=1)).log_prob(val)))
    z = torch.tensor([-2.0, -0.1, 0.0, 0.7, 3.0])
    for name, tr in [("exp", T.ExpTransform()), ("sigmoid", T.SigmoidTransform()), ("tanh", T.TanhTransform()),
                     ("affine", T.AffineTransform(0.5, -2.0))]:
        record(out, f"tf_{name}", None, [z], fn(lambda a, tr=tr: [tr(a), tr.inv(tr(a)), tr.log_abs_det_jacobian(a, tr(a))]))


def more_dist_cases(out):
    D = torch.distributions
    logits = torch.tensor([[0.1, -0.3, 0.5], [1.0, 0.0, -1.0]])
    mu = torch.tensor([[-1.0, 0.0, 1.0], [0.5, 2.0, -2.0]])
    sd = torch.tensor([[0.7, 1.2, 0.4], [1.0, 0.3, 2.0]])
    x = torch.tensor([0.3, -0.2])

    def mixture(lg, m, s, v):
        d = D.MixtureSameFamily(D.Categorical(logits=lg), D.Normal(m, s))
        return [d.log_prob(v), d.mean, d.variance, d.cdf(v)]
    record(out, "mixture", None, [logits, mu, sd, x], fn(mixture))
    mu2 = torch.randn(2, 3, 4)
    x2 = torch.randn(5, 2, 4)

    def mixture_event(lg, m, v):
        d = D.MixtureSameFamily(D.Categorical(logits=lg), D.Independent(D.Normal(m, 0.8), 1))
        return [d.log_prob(v), d.mean, d.variance]
    record(out, "mixture_event", None, [logits, mu2, x2], fn(mixture_event))
    scale, alpha = torch.tensor([1.0, 2.0, 0.5]), torch.tensor([3.0, 1.5, 0.8])
    v = torch.tensor([1.5, 4.0, 0.9])
    q = torch.tensor([0.2, 0.5, 0.9])

    def pareto(sc, al, val, qq):
        d = D.Pareto(sc, al)
        return [d.log_prob(val), d.cdf(val), d.icdf(qq), d.mean, d.variance, d.entropy()]
    record(out, "pareto", None, [scale, alpha, v, q], fn(pareto))
    conc = torch.tensor([0.5, 3.0, 1.2])

    def weibull(sc, c, val, qq):
        d = D.Weibull(sc, c)
        return [d.log_prob(val), d.cdf(val), d.icdf(qq), d.mean, d.mode, d.variance, d.entropy()]
    record(out, "weibull", None, [scale, conc, v, q], fn(weibull))

    def half_cauchy(sc, val, qq):
        d = D.HalfCauchy(sc)
        return [d.log_prob(val), d.cdf(val), d.icdf(qq), d.entropy()]
    record(out, "half_cauchy", None, [scale, v, q], fn(half_cauchy))
    lg = torch.tensor([[0.1, -0.3, 0.5], [1.0, 0.0, -1.0]])
    onehot = torch.tensor([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
    record(out, "onehot", None, [lg, onehot], fn(lambda g, v: [D.OneHotCategorical(logits=g).log_prob(v),
                                                               D.OneHotCategorical(logits=g).entropy(),
                                                               D.OneHotCategorical(logits=g).mean,
                                                               D.OneHotCategorical(logits=g).variance]))
    counts = torch.tensor([[2.0, 3.0, 5.0], [10.0, 0.0, 0.0]])
    record(out, "multinomial", None, [lg, counts], fn(lambda g, v: [D.Multinomial(10, logits=g).log_prob(v),
                                                                    D.Multinomial(10, logits=g).mean,
                                                                    D.Multinomial(10, logits=g).variance]))
    pr = torch.tensor([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])
    record(out, "relaxed_onehot", None, [torch.tensor(0.5), lg, pr],
           fn(lambda t, g, v: D.RelaxedOneHotCategorical(t, logits=g).log_prob(v)))
    record(out, "relaxed_bernoulli", None, [torch.tensor(0.7), torch.tensor([0.3, 0.8]), torch.tensor([0.2, 0.9])],
           fn(lambda t, p, v: D.RelaxedBernoulli(t, probs=p).log_prob(v)))
    record(out, "kl_pareto", None, [scale, alpha, torch.tensor([0.8, 2.5, 0.4]), torch.tensor([2.0, 1.0, 1.5])],
           fn(lambda s1, a1, s2, a2: D.kl_divergence(D.Pareto(s1, a1), D.Pareto(s2, a2))))
    record(out, "kl_onehot", None, [lg, lg.flip(-1)],
           fn(lambda g1, g2: D.kl_divergence(D.OneHotCategorical(logits=g1), D.OneHotCategorical(logits=g2))))
    nbc, nbp, nbv = torch.tensor([5.0, 2.5, 0.5]), torch.tensor([0.3, 0.6, 0.5]), torch.tensor([2.0, 7.0, 0.0])
    record(out, "negative_binomial", None, [nbc, nbp, nbv], fn(lambda n, p, v: [
        D.NegativeBinomial(n, probs=p).log_prob(v), D.NegativeBinomial(n, probs=p).mean,
        D.NegativeBinomial(n, probs=p).mode, D.NegativeBinomial(n, probs=p).variance]))
    record(out, "negative_binomial_logits", None, [nbc, torch.tensor([-1.0, 0.5, 2.0]), nbv],
           fn(lambda n, g, v: D.NegativeBinomial(n, logits=g).log_prob(v)))
    lr_loc = torch.tensor([[0.3, -1.0, 0.5], [1.0, 0.0, 2.0]])
    lr_w, lr_d = torch.tensor([[0.5, -0.2], [1.0, 0.3], [0.0, 0.7]]), torch.tensor([0.5, 1.5, 0.8])
    lr_v = torch.tensor([[0.1, 0.2, -0.3], [2.0, -1.0, 0.4]])

    def lowrank(lc, w, d, v):
        m = D.LowRankMultivariateNormal(lc, w, d)
        return [m.log_prob(v), m.entropy(), m.variance, m.covariance_matrix]
    record(out, "lowrank_mvn", None, [lr_loc, lr_w, lr_d, lr_v], fn(lowrank))
    record(out, "von_mises", None, [torch.tensor([0.3, -2.0, 1.0]), torch.tensor([0.5, 4.0, 10.0]), torch.tensor([0.1, 3.0, 1.2])],
           fn(lambda lc, k, v: [D.VonMises(lc, k).log_prob(v), D.VonMises(lc, k).variance]))
    record(out, "kumaraswamy", None, [torch.tensor([2.0, 0.5, 1.2]), torch.tensor([3.0, 0.7, 0.4]), torch.tensor([0.3, 0.8, 0.5])],
           fn(lambda a, b, v: [D.Kumaraswamy(a, b).log_prob(v), D.Kumaraswamy(a, b).mean, D.Kumaraswamy(a, b).variance,
                               D.Kumaraswamy(a, b).entropy()]))
    record(out, "fisher_snedecor", None, [torch.tensor([3.0, 1.5, 6.0]), torch.tensor([5.0, 10.0, 3.0]), torch.tensor([0.7, 2.0, 1.1])],
           fn(lambda a, b, v: [D.FisherSnedecor(a, b).log_prob(v), D.FisherSnedecor(a, b).mean, D.FisherSnedecor(a, b).mode,
                               D.FisherSnedecor(a, b).variance]))
    z = torch.tensor([0.3, 1.0, 2.5])
    record(out, "tf_power", None, [z], fn(lambda a: [D.transforms.PowerTransform(2.5)(a),
                                                      D.transforms.PowerTransform(2.5).log_abs_det_jacobian(a, a ** 2.5)]))


def main():
    torch.manual_seed(0)
    out = {}
    torch.set_default_dtype(torch.float64)
    strided_cases(out)
    histogramdd_cases(out)
    gradient_cases(out)
    fractional_cases(out)
    orthogonal_cases(out)
    transformed_cases(out)
    antialias_cases(out)
    spectral_param_cases(out)
    more_dist_cases(out)
    write_safetensors(OUT, out)
    print(f"{OUT}: {len(out)} tensors")


if __name__ == "__main__":
    main()
