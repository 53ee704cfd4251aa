"""Writes einsum.safetensors: for each equation of tests/stdlib/test_einsum.dsl, random f64
operands, torch.einsum's output, and the operands' gradients for a random output
weight (the sum of output * weight), for the einsum tests.

    /usr/bin/python3 tests/stdlib/reference/make_einsum.py
"""
import pathlib
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).parents[3] / "scripts" / "reference"))
from safetensors_file import write_safetensors  # noqa: E402

OUT = pathlib.Path(__file__).with_name("einsum.safetensors")

# name: (equation, operand shapes)
CASES = {
    "matmul": ("ij,jk->ik", [(3, 4), (4, 5)]),
    "batched": ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    "heads": ("bhld,bhmd->bhlm", [(2, 3, 4, 5), (2, 3, 6, 5)]),
    "implicit": ("ij,jk", [(3, 4), (4, 2)]),
    "outer": ("i,j->ij", [(3,), (4,)]),
    "dot": ("i,i->", [(5,), (5,)]),
    "trace": ("ii->", [(4, 4)]),
    "diagonal": ("ii->i", [(4, 4)]),
    "transpose": ("ij->ji", [(3, 5)]),
    "sum_dim": ("ijk->ik", [(2, 3, 4)]),
    "ellipsis": ("...ij,...jk->...ik", [(2, 3, 4, 5), (3, 5, 2)]),
    "ellipsis_left": ("i...->...", [(3, 2, 4)]),
    "broadcast_one": ("bij,bjk->bik", [(1, 3, 4), (2, 4, 5)]),
    "three": ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    "bilinear": ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    "spaces": ("b i j , b j k -> b k i", [(2, 3, 4), (2, 4, 5)]),
    "repeated_in_two": ("iij,jk->ik", [(3, 3, 4), (4, 2)]),
}


def cases():
    torch.manual_seed(0)
    t = {}
    for name, (eq, shapes) in CASES.items():
        xs = [torch.randn(*s, dtype=torch.float64, requires_grad=True) for s in shapes]
        y = torch.einsum(eq, *xs)
        w = torch.randn_like(y)
        grads = torch.autograd.grad((y * w).sum(), xs)
        for i, (x, g) in enumerate(zip(xs, grads)):
            t[f"{name}.x{i}"] = x
            t[f"{name}.g{i}"] = g
        t[f"{name}.out"] = y
        t[f"{name}.w"] = w
    return t


if __name__ == "__main__":
    write_safetensors(OUT, cases())
    print(f"{OUT}: {OUT.stat().st_size} bytes")
