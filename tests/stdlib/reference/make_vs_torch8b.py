"""Writes vs_torch8b.safetensors for the round-8b gap tests against PyTorch 1.13
(tests/stdlib/test_gaps_vs_torch8b.dsl). Each case is saved by make_layer_options.record
(inputs x<k>, outputs y<k>, upstream gradient g, the gradients of sum(y0 * g) for every
floating input); the tests compare dtypes too (vs_torch5_check.inc's check_in).

- binomial_cases: distributions.Binomial made from probs and from logits (log_prob,
  entropy, mean, mode, variance, enumerate_support; the gradients of log_prob in
  total_count, the parameter and the value, and of entropy in the parameter), and
  kl_divergence of two Binomials (equal total_count, and p's above q's: infinite);
- parametrize_cases: nn.utils.parametrize on a Linear(3, 3): a Symmetric parametrization
  (triu + its transpose) and then a Scale one with a parameter of its own, chained;
  the weight, the output, the gradients in the original, the bias and Scale's parameter,
  and remove_parametrizations' weight both ways; a first parametrization with a
  right_inverse (the original it leaves);
- adaptive_cases: nn.AdaptiveLogSoftmaxWithLoss (head_bias both ways, div_value 2 and
  4, targets in every cluster, a 0-D target): forward's output and loss, log_prob and
  predict, the gradients in the input and every parameter.

    /usr/bin/python3 tests/stdlib/reference/make_vs_torch8b.py
"""
import pathlib
import sys

import torch

HERE = pathlib.Path(__file__).parent
sys.path.insert(0, str(HERE.parents[2] / "scripts" / "reference"))
sys.path.insert(0, str(HERE))
from safetensors_file import write_safetensors  # noqa: E402
from make_layer_options import fn, record  # noqa: E402

OUT = HERE / "vs_torch8b.safetensors"


def binomial_cases(out):
    t = torch.tensor
    D = torch.distributions
    n = t([10.0, 10.0, 10.0, 10.0])
    probs = t([0.2, 0.5, 0.93, 0.01])
    logits = t([-1.5, 0.0, 2.5, 0.4])
    value = t([3.0, 10.0, 0.0, 7.0])

    def full(d, v):
        return [d.log_prob(v), d.entropy(), d.mean, d.mode, d.variance, d.enumerate_support(), d.enumerate_support(False)]
    record(out, "binomial_probs", None, [n, probs, value], fn(lambda c, p, v: full(D.Binomial(c, probs=p), v)))
    record(out, "binomial_logits", None, [n, logits, value], fn(lambda c, lg, v: full(D.Binomial(c, logits=lg), v)))
    record(out, "binomial_entropy", None, [probs], fn(lambda p: D.Binomial(7, probs=p).entropy()))
    # a batch of total_counts (log_prob only: entropy needs one) and a number total_count
    counts = t([[0.0, 5.0, 40.0], [3.0, 100.0, 1.0]])
    pb = t([0.3, 0.6, 0.05])
    kb = t([[0.0, 2.0, 1.0], [3.0, 57.0, 1.0]])
    record(out, "binomial_batch", None, [counts, pb, kb], fn(lambda c, p, v: [D.Binomial(c, probs=p).log_prob(v), D.Binomial(c, probs=p).mean,
                                                                                D.Binomial(c, probs=p).mode, D.Binomial(c, probs=p).variance]))
    pq = t([0.4, 0.7, 0.1])
    record(out, "binomial_kl", None, [pb, pq], fn(lambda p, q: D.kl_divergence(D.Binomial(6, probs=p), D.Binomial(6, probs=q))))
    record(out, "binomial_kl_logits", None, [logits[:3], pq],
           fn(lambda lg, q: D.kl_divergence(D.Binomial(6, logits=lg), D.Binomial(6, probs=q))))
    record(out, "binomial_kl_inf", None, [pb, pq],
           fn(lambda p, q: D.kl_divergence(D.Binomial(t([6.0, 4.0, 8.0]), probs=p), D.Binomial(t([6.0, 4.0, 5.0]), probs=q))))


class Symmetric(torch.nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).T


class Scale(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.s = torch.nn.Parameter(torch.tensor(2.0))

    def forward(self, X):
        return X * self.s

    def right_inverse(self, W):
        return W / 2


def parametrize_cases(out):
    P = torch.nn.utils.parametrize
    m = torch.nn.Linear(3, 3)
    out["param.weight"], out["param.bias"] = m.weight.detach().clone(), m.bias.detach().clone()
    P.register_parametrization(m, "weight", Symmetric())
    P.register_parametrization(m, "weight", Scale())
    x, g = torch.randn(4, 3), torch.randn(4, 3)
    out["param.x"], out["param.g"] = x, g
    out["param.w"] = m.weight.detach().clone()
    y = m(x)
    out["param.y"] = y.detach()
    (y * g).sum().backward()
    out["param.grad_original"] = m.parametrizations.weight.original.grad.clone()
    out["param.grad_bias"] = m.bias.grad.clone()
    out["param.grad_s"] = m.parametrizations.weight[1].s.grad.clone()
    with torch.no_grad():
        m.parametrizations.weight[1].s.fill_(3.0)
    P.remove_parametrizations(m, "weight")
    out["param.removed"] = m.weight.detach().clone()
    m2 = torch.nn.Linear(3, 3)
    out["param_inv.weight"] = m2.weight.detach().clone()
    P.register_parametrization(m2, "weight", Scale())
    out["param_inv.original"] = m2.parametrizations.weight.original.detach().clone()
    out["param_inv.w"] = m2.weight.detach().clone()
    P.remove_parametrizations(m2, "weight", leave_parametrized=False)
    out["param_inv.removed"] = m2.weight.detach().clone()


def adaptive_cases(out):
    A = torch.nn.AdaptiveLogSoftmaxWithLoss
    x = torch.randn(7, 8) * 3
    target = torch.tensor([0, 3, 4, 8, 9, 14, 6])
    record(out, "adaptive", A(8, 15, [4, 9], div_value=2.0, head_bias=True), [x, target],
           lambda m, a, t: [m(a, t).output, m(a, t).loss, m.log_prob(a), m.predict(a)])
    record(out, "adaptive_loss", A(8, 15, [4, 9]), [x, target], lambda m, a, t: [m(a, t).loss, m(a, t).output])
    record(out, "adaptive_0d", A(8, 12, [3, 6, 10], div_value=2.0), [x[2], torch.tensor(7)],
           lambda m, a, t: [m(a, t).output, m(a, t).loss])


def main():
    torch.manual_seed(0)
    out = {}
    torch.set_default_dtype(torch.float64)
    binomial_cases(out)
    parametrize_cases(out)
    adaptive_cases(out)
    write_safetensors(OUT, out)
    print(f"{OUT}: {len(out)} tensors")


if __name__ == "__main__":
    main()
