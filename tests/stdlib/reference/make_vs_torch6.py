"""Writes vs_torch6.safetensors for the round-6 gap tests against PyTorch 1.13
(tests/stdlib/test_gaps_vs_torch6.dsl): the PyTorch functions that round 5 found
missing, and the gradients that still differed. Each case is saved by
make_layer_options.record (inputs x<k>, outputs y<k>, upstream gradient g, the
gradients of sum(y0 * g) for every floating input); the tests compare dtypes too
(vs_torch5_check.inc's check_in).

- gamma_cases: lgamma, digamma and polygamma(n) for n = 0..4, on positive numbers,
  negative non-integers (the reflection formulas), large numbers (the asymptotic
  series) and the poles; their f32 forms and an integer input's f32 result; the
  gradients (lgamma' = digamma, digamma' = polygamma(1), polygamma(n)' = polygamma(n+1));
- composite_cases: rsub, clamp_min/clamp_max with a tensor bound, prod(dim, dtype=),
  logdet (positive, negative and zero determinants, a batch), trapezoid and trapz
  (x 1-D or broadcast, dx, dim, an empty dim), mse_loss with a broadcasting target,
  nn.init.dirac_ and eye_;
- nan_grad_cases: the gradients PyTorch makes NaN (xlogy at x = y = 0, amax/amin over
  a slice holding NaN, ctc_loss of an impossible alignment without zero_infinity);
- grid_cases: grid_sample's bicubic mode with align_corners both ways and each padding
  mode, with its gradients to the input and the grid.

    /usr/bin/python3 tests/stdlib/reference/make_vs_torch6.py
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

OUT = HERE / "vs_torch6.safetensors"
NAN, INF = float("nan"), float("inf")


def gamma_cases(out):
    t = torch.tensor
    smooth = t([0.1, 0.5, 1.0, 1.5, 2.0, 3.7, 9.5, 10.0, 12.25, 45.0, 1e3, -0.5, -1.25, -2.75, -7.3])
    record(out, "lgamma", None, [smooth], fn(torch.lgamma))
    record(out, "digamma", None, [smooth], fn(torch.digamma))
    for n in range(5):
        record(out, f"polygamma_{n}", None, [smooth], fn(lambda x, n=n: torch.polygamma(n, x)))
    record(out, "method_lgamma", None, [smooth], fn(lambda x: x.lgamma()))
    record(out, "method_polygamma", None, [smooth], fn(lambda x: x.polygamma(2)))
    poles = t([0.0, -0.0, -1.0, -2.0, -3.0, INF, -INF, NAN])
    record(out, "lgamma_poles", None, [poles], fn(torch.lgamma))
    record(out, "digamma_poles", None, [poles], fn(torch.digamma))
    record(out, "polygamma_1_poles", None, [poles], fn(lambda x: torch.polygamma(1, x)))
    record(out, "polygamma_3_poles", None, [poles], fn(lambda x: torch.polygamma(3, x)))
    f32 = smooth.float()
    record(out, "lgamma_f32", None, [f32], fn(torch.lgamma))
    record(out, "digamma_f32", None, [f32], fn(torch.digamma))
    record(out, "polygamma_2_f32", None, [f32], fn(lambda x: torch.polygamma(2, x)))
    ints = t([1, 2, 5, 10])
    torch.set_default_dtype(torch.float32)  # nabla's default: the dtype an integer computes in
    record(out, "lgamma_int", None, [ints], fn(torch.lgamma))
    record(out, "digamma_int", None, [ints], fn(torch.digamma))
    torch.set_default_dtype(torch.float64)


def composite_cases(out):
    t = torch.tensor
    a, b = torch.randn(3, 4), torch.randn(4)
    record(out, "rsub_tensor", None, [a, b], fn(lambda x, y: torch.rsub(x, y)))
    record(out, "rsub_alpha", None, [a, b], fn(lambda x, y: torch.rsub(x, y, alpha=2.5)))
    record(out, "rsub_number", None, [a], fn(lambda x: torch.rsub(x, 5.0)))
    record(out, "clamp_min_tensor", None, [a, b], fn(lambda x, lo: torch.clamp_min(x, lo)))
    record(out, "clamp_max_tensor", None, [a, b], fn(lambda x, hi: torch.clamp_max(x, hi)))
    record(out, "method_clamp_min_tensor", None, [a, b], fn(lambda x, lo: x.clamp_min(lo)))
    record(out, "method_clamp_max_tensor", None, [a, b], fn(lambda x, hi: x.clamp_max(hi)))
    a32 = torch.randn(3, 4, dtype=torch.float32)
    record(out, "prod_dtype", None, [a32], fn(lambda x: torch.prod(x, 1, dtype=torch.float64)))
    record(out, "prod_keepdim_dtype", None, [a32], fn(lambda x: torch.prod(x, 0, keepdim=True, dtype=torch.float64)))
    record(out, "prod_all_dtype", None, [a32], fn(lambda x: torch.prod(x, dtype=torch.float64)))
    record(out, "prod_int_dtype", None, [t([1, 2, 3])], fn(lambda x: torch.prod(x, 0, dtype=torch.float64)))
    spd = torch.randn(3, 3)
    spd = spd @ spd.T + 3 * torch.eye(3)
    record(out, "logdet_positive", None, [spd], fn(torch.logdet))
    record(out, "logdet_negative", None, [t([[0.0, 1.0], [1.0, 0.0]])], fn(torch.logdet))
    record(out, "logdet_singular", None, [t([[1.0, 2.0], [2.0, 4.0]])], fn(lambda x: torch.logdet(x)))
    batch = torch.stack([spd, spd * 2, spd + torch.eye(3)])
    record(out, "logdet_batch", None, [batch], fn(torch.logdet))
    y = torch.randn(3, 5)
    xs = t([0.0, 0.5, 1.5, 1.75, 3.0])
    record(out, "trapezoid_y", None, [y], fn(torch.trapezoid))
    record(out, "trapezoid_dx", None, [y], fn(lambda v: torch.trapezoid(v, dx=0.25)))
    record(out, "trapezoid_x", None, [y, xs], fn(lambda v, x: torch.trapezoid(v, x)))
    record(out, "trapezoid_x_full", None, [y, torch.randn(3, 5).cumsum(1)], fn(lambda v, x: torch.trapezoid(v, x)))
    record(out, "trapezoid_dim0", None, [y], fn(lambda v: torch.trapezoid(v, dim=0)))
    record(out, "trapezoid_x_dim0", None, [y, t([0.0, 2.0, 3.0])], fn(lambda v, x: torch.trapezoid(v, x, dim=0)))
    record(out, "trapezoid_empty", None, [torch.randn(3, 0)], fn(torch.trapezoid))
    record(out, "trapz_x", None, [y, xs], fn(lambda v, x: torch.trapz(v, x)))
    record(out, "trapz_dx", None, [y], fn(lambda v: torch.trapz(v, dx=2.0, dim=0)))
    target_row = torch.randn(4)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        record(out, "mse_broadcast_target", None, [a, target_row], fn(lambda x, y: F.mse_loss(x, y)))
        record(out, "mse_broadcast_sum", None, [a, target_row], fn(lambda x, y: F.mse_loss(x, y, reduction="sum")))
        record(out, "mse_broadcast_input", None, [torch.randn(3, 1), torch.randn(3, 4)],
               fn(lambda x, y: F.mse_loss(x, y, reduction="none")))
    w = torch.zeros(6, 2, 3, 3)
    record(out, "dirac_groups", None, [w], fn(lambda v: torch.nn.init.dirac_(v.detach().clone(), groups=2)))
    record(out, "dirac_1d", None, [torch.zeros(3, 4, 5)], fn(lambda v: torch.nn.init.dirac_(v.detach().clone())))
    record(out, "dirac_3d", None, [torch.zeros(2, 2, 3, 2, 3)], fn(lambda v: torch.nn.init.dirac_(v.detach().clone())))
    record(out, "eye_wide", None, [torch.zeros(3, 5)], fn(lambda v: torch.nn.init.eye_(v.detach().clone())))


def nan_grad_cases(out):
    t = torch.tensor
    x = t([0.0, 0.0, 0.0, 1.0, 0.0, 2.0])
    y = t([0.0, 2.0, -1.0, 0.0, NAN, 3.0])
    record(out, "xlogy_zeros", None, [x, y], fn(torch.xlogy))
    m = t([[1.0, NAN, 3.0], [1.0, 5.0, 5.0], [NAN, NAN, 0.0]])
    record(out, "amax_nan_dim", None, [m], fn(lambda v: torch.amax(v, 1)))
    record(out, "amin_nan_dim", None, [m], fn(lambda v: torch.amin(v, 1)))
    record(out, "amax_nan_dim0", None, [m], fn(lambda v: torch.amax(v, 0, keepdim=True)))
    record(out, "amax_nan_all", None, [m], fn(lambda v: torch.amax(v)))
    # logits through log_softmax, as test_reduce_loss_vs_torch5.dsl compares ctc_loss (PyTorch's
    # ctc backward returns the gradient with respect to logits under a log_softmax). Sample 0
    # needs 5 steps in 4, sample 2 needs 3 in 2: impossible; sample 2 stops before T.
    logits = torch.randn(4, 3, 3)
    targets = t([[1, 1, 1], [1, 2, 0], [2, 1, 0]])
    for reduction in ["none", "sum", "mean"]:
        record(out, f"ctc_impossible_{reduction}", None, [logits],
               fn(lambda v, r=reduction: F.ctc_loss(v.log_softmax(2), targets, [4, 3, 1], [3, 2, 2], reduction=r)))
    record(out, "ctc_impossible_zero_infinity", None, [logits],
           fn(lambda v: F.ctc_loss(v.log_softmax(2), targets, [4, 3, 1], [3, 2, 2], reduction="none",
                                   zero_infinity=True)))


def grid_cases(out):
    inp = torch.randn(2, 3, 5, 6)
    grid = torch.rand(2, 4, 3, 2) * 2.4 - 1.2  # some points outside [-1, 1]
    for align in [False, True]:
        for padding in ["zeros", "border", "reflection"]:
            name = f"bicubic_{padding}_{'align' if align else 'noalign'}"
            record(out, name, None, [inp, grid],
                   fn(lambda i, g, p=padding, a=align: F.grid_sample(i, g, mode="bicubic", padding_mode=p,
                                                                      align_corners=a)))


def main():
    torch.manual_seed(0)
    out = {}
    torch.set_default_dtype(torch.float64)
    gamma_cases(out)
    composite_cases(out)
    nan_grad_cases(out)
    grid_cases(out)
    write_safetensors(OUT, out)
    print(f"{OUT}: {len(out)} tensors")


if __name__ == "__main__":
    main()
