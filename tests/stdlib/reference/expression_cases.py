"""The tests of make_composites.py and make_tensor_extra.py: each case is
(name, torch function, inputs, the nabla expression[, gradient rtol]). For each, PyTorch's
f64 output, an upstream gradient g and PyTorch's gradients of sum(output * g) go into
`tensors`, and the lines of a test block that runs the same expression in nabla and
compares values and gradients.
"""
import torch

D = torch.float64
INF, NAN = float("inf"), float("nan")
NAMES = "abcd"  # what the nabla expression calls its inputs


def r(*shape):
    return torch.randn(*shape, dtype=D)


def t(values):
    return torch.tensor(values, dtype=D)


class Fixed:
    """An input that takes no gradient (a loss's target, as PyTorch requires)."""

    def __init__(self, tensor):
        self.tensor = tensor


def case_tests(cases, tensors):
    """The test blocks (each a list of lines) of `cases`; their tensors go into `tensors`."""
    return [case_test(tensors, *case) for case in cases]


def case_test(tensors, name, fn, inputs, expr, rtol=1e-9):
    fixed = [isinstance(x, Fixed) for x in inputs]
    inputs = [x.tensor.clone() if f else x.clone().requires_grad_(True) for x, f in zip(inputs, fixed)]
    out = fn(*inputs)
    for k, x in enumerate(inputs):
        tensors[f"{name}.x{k}"] = x.detach()
    tensors[f"{name}.y"] = out.detach()
    lines = [f"test \"{name}\" {{"]
    for k in range(len(inputs)):
        grad_flag = "" if fixed[k] else ".requires_grad_(true)"
        lines.append(f"  let {NAMES[k]} = ref[\"{name}.x{k}\"].clone(){grad_flag}")
    lines.append(f"  let out = {expr}")
    lines.append(f"  let want = ref[\"{name}.y\"]")
    lines.append("  expect(out.shape == want.shape, f\"shape {out.shape}, PyTorch's {want.shape}\")")
    if out.is_floating_point() and out.isnan().any():  # NaN where PyTorch's is: compare them as a number
        lines.append("  expect_close(nan_to_num(out, nan=123.0), nan_to_num(want, nan=123.0), rtol=1e-9, atol=1e-12)")
    else:
        lines.append("  expect_close(out, want, rtol=1e-9, atol=1e-12)")
    g = torch.randn(out.shape, dtype=D)
    wrt = [x for x, f in zip(inputs, fixed) if not f]
    try:
        grads = torch.autograd.grad(out, wrt, g, allow_unused=True) if out.requires_grad and wrt else None
    except RuntimeError:  # not differentiable in PyTorch (floor_divide)
        grads = None
    if grads is not None and out.numel() > 0:
        tensors[f"{name}.g"] = g
        lines.append(f"  let gs = grad([out], [{', '.join(NAMES[k] for k in range(len(inputs)) if not fixed[k])}], "
                     f"grad_outputs=[ref[\"{name}.g\"]], allow_unused=true)")
        for k, gk in enumerate(grads):
            if gk is not None and gk.abs().sum() > 0:
                tensors[f"{name}.grad{k}"] = gk
                lines.append(f"  expect_close(gs[{k}], ref[\"{name}.grad{k}\"], rtol={rtol}, atol=1e-12)")
    lines.append("}")
    return lines
