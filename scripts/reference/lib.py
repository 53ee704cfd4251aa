"""Helpers for writing op-table reference cases (see scripts/gen_op_reference.py).

A case names an op of the table, its input tensors, its attributes (with the names
the op's row declares), and a PyTorch function computing the expected outputs:

    case("add", [randn(2, 3), randn(3)], {}, lambda a, b: a + b)

Inputs are float64 unless made otherwise; their values are stored in the JSON, so
the C++ sweep needs no RNG in common with PyTorch. `grad` lists which inputs the
sweep gradchecks (default: every floating input); `gradgrad=False` skips the
second-order check for a case; `layouts=False` skips the non-contiguous-input rerun (for ops such as view
that must reject some layouts); `forward=False` skips comparing values (for random
ops such as dropout, which are checked by their own tests). The sweep reseeds
nabla's RNG before every evaluation, so a random op is a fixed function there.
`grad_reference=True` (rows whose backward is a straight-through estimator, not
the derivative of the forward) stores PyTorch's gradients of the inputs in `grad`
for a random gradient of output 0, which the sweep compares instead of gradchecking.
"""
import zlib

import torch

_GEN = torch.Generator().manual_seed(1234)


def reseed(family):
    """Gives each family its own fixed stream, so adding a family never changes the
    values of another family's cases."""
    _GEN.manual_seed(zlib.crc32(family.encode()))

DTYPES = {
    torch.float32: "f32", torch.float64: "f64", torch.float16: "f16", torch.bfloat16: "bf16",
    torch.int64: "i64", torch.int32: "i32", torch.bool: "bool", torch.int8: "i8", torch.uint8: "u8", torch.int16: "i16",
}


def randn(*shape, dtype=torch.float64):
    return torch.randn(*shape, generator=_GEN, dtype=torch.float64).to(dtype)


def rand(*shape, low=0.0, high=1.0, dtype=torch.float64):
    return (low + (high - low) * torch.rand(*shape, generator=_GEN, dtype=torch.float64)).to(dtype)


def randint(low, high, *shape, dtype=torch.int64):
    return torch.randint(low, high, shape, generator=_GEN).to(dtype)


def distinct(*shape):
    """Values with no ties, spaced 0.1 apart: a random permutation of a range (max
    pooling inputs, so that no window has a tie)."""
    n = 1
    for s in shape:
        n *= s
    perm = torch.argsort(randn(n)).to(torch.float64)  # a permutation from the family's stream
    return ((perm - n / 2) * 0.1).reshape(shape)


def away_from(x, points, gap=0.05):
    """Moves values that lie within `gap` of a kink (e.g. 0 for relu) off it, so
    central differences do not straddle a point where the op is not differentiable."""
    x = x.clone()
    for p in points:
        near = (x - p).abs() < gap
        x[near] = (p + gap * torch.where(x[near] >= p, 1.0, -1.0) * 2).to(x.dtype)
    return x


def _tensor_json(t):
    if t is None:
        return None
    t = t.detach()
    return {"shape": list(t.shape), "dtype": DTYPES[t.dtype],
            "data": [float(v) for v in t.reshape(-1).to(torch.float64).tolist()]}


def _attr_json(v):
    if isinstance(v, torch.dtype):
        return {"dtype": DTYPES[v]}
    return v


class Case:
    def __init__(self, op, inputs, attrs, fn, name, grad, gradgrad, forward, atol, rtol, eps):
        self.op, self.inputs, self.attrs, self.fn = op, inputs, attrs, fn
        self.name, self.grad, self.gradgrad, self.forward = name, grad, gradgrad, forward
        self.atol, self.rtol, self.eps = atol, rtol, eps

    def to_json(self):
        given = [None if t is None else t.clone() for t in self.inputs]
        outs = self.fn(*given)
        if not isinstance(outs, (tuple, list)):
            outs = [outs]
        updated = getattr(self, "updated", [])
        if updated:  # rows that write their inputs: the inputs fn wrote, after the call
            extra_updated = {"updated": [[i, _tensor_json(given[i])] for i in updated]}
        else:
            extra_updated = {}
        grad = self.grad
        if grad is None:
            grad = [i for i, t in enumerate(self.inputs) if t is not None and t.is_floating_point()]
        extra = self._reference_grads(grad) if getattr(self, "grad_reference", False) else {}
        return {**extra, **extra_updated, "op": self.op, "name": self.name or self.op,
                "inputs": [_tensor_json(t) for t in self.inputs],
                "attrs": {k: _attr_json(v) for k, v in self.attrs.items()},
                "outputs": [_tensor_json(o) for o in outs],
                "grad": grad, "gradgrad": self.gradgrad, "forward": self.forward,
                "atol": self.atol, "rtol": self.rtol, "eps": self.eps,
                "layouts": getattr(self, "layouts", True)}


    def _reference_grads(self, grad):
        """PyTorch's gradients of the inputs in `grad` for a random gradient of output 0
        (drawn from a generator seeded by the case's name, so other cases keep theirs)."""
        inputs = [None if t is None else t.clone().requires_grad_(i in grad) for i, t in enumerate(self.inputs)]
        out = self.fn(*inputs)
        out = out[0] if isinstance(out, (tuple, list)) else out
        gen = torch.Generator().manual_seed(zlib.crc32((self.name or self.op).encode()))
        grad_output = torch.randn(out.shape, generator=gen, dtype=torch.float64).to(out.dtype)
        grads = torch.autograd.grad(out, [inputs[i] for i in grad], grad_output)
        return {"grad_output": _tensor_json(grad_output), "input_grads": [_tensor_json(g) for g in grads]}


def case(op, inputs, attrs, fn, name=None, grad=None, gradgrad=True, forward=True, atol=1e-9, rtol=1e-7,
         eps=1e-6, layouts=True, grad_reference=False, updated=()):
    """atol/rtol compare forward values; eps is the central-difference step of the
    gradient checks (raise it only for ops whose output is rounded, e.g. to f32).
    `updated`: the inputs a row writes in place (an optimizer step), whose values after
    fn (which writes them in its own copies) the sweep compares too."""
    c = Case(op, inputs, attrs, fn, name, grad, gradgrad, forward, atol, rtol, eps)
    c.layouts = layouts
    c.grad_reference = grad_reference
    c.updated = list(updated)
    return c
