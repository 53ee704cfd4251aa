"""Writes tensor_extra.safetensors and the generated part of test_tensor_extra.dsl for the
composite functions of interp/builtins/composites/composite_extra_shape.cpp and
composite_extra_math.cpp (torch's tile, rot90, tensor_split, scatter, scatter_reduce,
index_add, unique, kthvalue, cummax, xlogy, nansum, kron, cross, cov, renorm, ...):
each case's f64 inputs, PyTorch's output, an upstream gradient g and PyTorch's
gradients of sum(output * g) for every floating input. The .dsl runs the same
expression in nabla (some on non-contiguous views, some with negative dims, some as
tensor methods) and compares values and gradients (rtol 1e-9). Integer and bool
results are compared as f64.

    /usr/bin/python3 tests/stdlib/reference/make_tensor_extra.py

Everything in test_tensor_extra.dsl after the line MARKER (the hand-written tests:
method forms, in-place forms, errors, the random fills) is kept as it is.
"""
import pathlib
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).parents[3] / "scripts" / "reference"))
from safetensors_file import write_safetensors  # noqa: E402

HERE = pathlib.Path(__file__).parent
OUT = HERE / "tensor_extra.safetensors"
DSL = HERE.parent / "test_tensor_extra.dsl"
MARKER = "# ---- hand-written tests (kept by make_tensor_extra.py) ----"
D = torch.float64
INF, NAN = float("inf"), float("nan")


def r(*shape):
    return torch.randn(*shape, dtype=D)


def t(values):
    return torch.tensor(values, dtype=D)


class Fixed:
    """An input that takes no gradient."""

    def __init__(self, tensor):
        self.tensor = tensor


def cases():
    """(name, torch function, inputs, nabla expression over a, b, c, d[, rtol])."""
    distinct = torch.randperm(24).to(D).reshape(4, 6) * 0.5 - 3  # no ties
    return [
        # shapes
        ("tile", lambda x: torch.tile(x, (2, 1, 3)), [r(2, 3)], "tile(a, [2, 1, 3])"),
        ("tile_short_dims_noncontig", lambda x: torch.tile(x.t(), (2,)), [r(2, 3)], "a.T.tile([2])"),
        ("broadcast_to", lambda x: torch.broadcast_to(x, (2, 4, 3)), [r(4, 1)], "broadcast_to(a, [2, -1, 3])"),
        ("moveaxis", lambda x: torch.moveaxis(x, (0, -1), (-1, 1)), [r(2, 3, 4, 5)], "moveaxis(a, [0, -1], [-1, 1])"),
        ("swapdims", lambda x: torch.swapdims(x, 0, -1), [r(2, 3, 4)], "a.swapdims(0, -1)"),
        ("fliplr", torch.fliplr, [r(3, 4, 2)], "fliplr(a)"),
        ("flipud_noncontig", lambda x: torch.flipud(x.t()), [r(3, 4)], "flipud(a.T)"),
        ("rot90", lambda x: torch.rot90(x), [r(3, 4)], "rot90(a)"),
        ("rot90_k3_dims", lambda x: torch.rot90(x, 3, (-1, 0)), [r(2, 3, 4)], "a.rot90(3, [-1, 0])"),
        ("rot90_k-2", lambda x: torch.rot90(x, -2, (1, 2)), [r(2, 3, 4)], "rot90(a, -2, [1, 2])"),
        ("tensor_split_sections", lambda x: torch.cat([p * (k + 1) for k, p in enumerate(torch.tensor_split(x, 3, dim=-1))], -1),
         [r(2, 7)], "cat([p * (k + 1) for k, p in enumerate(tensor_split(a, 3, dim=-1))], -1)"),
        ("tensor_split_indices", lambda x: torch.cat([p.sum(0, keepdim=True) * (k + 1) for k, p in
                                                      enumerate(torch.tensor_split(x, [1, 4, 9]))]),
         [r(7, 2)], "cat([p.sum(0, keepdim=true) * (k + 1) for k, p in enumerate(a.tensor_split([1, 4, 9]))])"),
        ("split_with_sizes", lambda x: torch.cat([p * (k + 1) for k, p in enumerate(x.split_with_sizes([1, 3, 2], 1))], 1),
         [r(2, 6)], "cat([p * (k + 1) for k, p in enumerate(split_with_sizes(a, [1, 3, 2], 1))], 1)"),
        ("take", lambda x: torch.take(x, torch.tensor([[0, -1], [5, 5]])), [r(2, 3)], "take(a, tensor([[0, -1], [5, 5]]))"),
        ("take_noncontig", lambda x: x.t().take(torch.tensor([1, 2, 3])), [r(2, 3)], "a.T.take(tensor([1, 2, 3]))"),
        ("diag_embed", lambda x: torch.diag_embed(x), [r(2, 3)], "diag_embed(a)"),
        ("diag_embed_offset_dims", lambda x: torch.diag_embed(x, offset=-1, dim1=0, dim2=2), [r(2, 3)],
         "a.diag_embed(offset=-1, dim1=0, dim2=2)"),
        ("diag_embed_offset2", lambda x: torch.diag_embed(x, 2, -1, -3), [r(2, 3)], "diag_embed(a, 2, -1, -3)"),
        ("sum_to_size", lambda x: x.sum_to_size(1, 3), [r(4, 2, 3)], "a.sum_to_size(1, 3)"),
        # scatters
        ("scatter_src", lambda x, s: torch.scatter(x, 1, torch.tensor([[2, 0], [1, 3]]), s), [r(2, 4), r(2, 3)],
         "scatter(a, 1, tensor([[2, 0], [1, 3]]), b)"),
        ("scatter_value_negdim", lambda x: torch.scatter(x, -2, torch.tensor([[2, 0, 1]]), 1.5), [r(3, 3)],
         "a.scatter(-2, tensor([[2, 0, 1]]), 1.5)"),
        ("scatter_add", lambda x, s: torch.scatter(x, 0, torch.tensor([[0, 1], [0, 0]]), s, reduce="add"),
         [r(2, 2), Fixed(r(2, 2))], "scatter(a, 0, tensor([[0, 1], [0, 0]]), b, reduce=\"add\")"),
        ("scatter_multiply", lambda x, s: torch.scatter(x, 0, torch.tensor([[0, 1], [0, 0]]), s, reduce="multiply"),
         [r(2, 2), Fixed(r(2, 2))], "scatter(a, 0, tensor([[0, 1], [0, 0]]), b, reduce=\"multiply\")"),
        ("scatter_reduce_sum", lambda x, s: torch.scatter_reduce(x, 0, torch.tensor([0, 2, 0, 1, 2]), s, "sum"),
         [r(3), r(5)], "scatter_reduce(a, 0, tensor([0, 2, 0, 1, 2]), b, \"sum\")"),
        ("scatter_reduce_prod", lambda x, s: torch.scatter_reduce(x, 1, torch.tensor([[0, 0, 1], [2, 2, 2]]), s, "prod"),
         [r(2, 3), r(2, 3)], "scatter_reduce(a, 1, tensor([[0, 0, 1], [2, 2, 2]]), b, \"prod\")"),
        ("scatter_reduce_mean_noself", lambda x, s: torch.scatter_reduce(x, 0, torch.tensor([0, 2, 0, 2]), s, "mean",
                                                                         include_self=False),
         [r(4), r(4)], "a.scatter_reduce(0, tensor([0, 2, 0, 2]), b, \"mean\", include_self=false)"),
        ("scatter_reduce_amax", lambda x, s: torch.scatter_reduce(x, -1, torch.tensor([[0, 1, 0, 1]]), s, "amax"),
         [t([[0.5, 9.0, 1.0]]), t([[0.5, 2.0, -1.0, 3.0]])], "scatter_reduce(a, -1, tensor([[0, 1, 0, 1]]), b, \"amax\")"),
        ("scatter_reduce_amin_noself", lambda x, s: torch.scatter_reduce(x, 0, torch.tensor([1, 1, 1, 0]), s, "amin",
                                                                         include_self=False),
         [r(3), t([1.0, -2.0, -2.0, 4.0])], "scatter_reduce(a, 0, tensor([1, 1, 1, 0]), b, \"amin\", include_self=false)"),
        ("index_add", lambda x, s: torch.index_add(x, 0, torch.tensor([2, 0, 2]), s, alpha=0.5), [r(3, 2), r(3, 2)],
         "index_add(a, 0, tensor([2, 0, 2]), b, alpha=0.5)"),
        ("index_add_negdim_noncontig", lambda x, s: x.t().index_add(-1, torch.tensor([1]), s), [r(2, 3), r(3, 1)],
         "a.T.index_add(-1, tensor([1]), b)"),
        ("index_copy", lambda x, s: torch.index_copy(x, 1, torch.tensor([3, 0]), s), [r(2, 4), r(2, 2)],
         "index_copy(a, 1, tensor([3, 0]), b)"),
        ("index_fill", lambda x: torch.index_fill(x, -1, torch.tensor([0, 2]), -1.5), [r(2, 3)],
         "a.index_fill(-1, tensor([0, 2]), -1.5)"),
        ("index_fill_tensor_value", lambda x, v: torch.index_fill(x, 0, torch.tensor([1]), v), [r(3, 2), r(())],
         "index_fill(a, 0, tensor([1]), b)"),
        # ordering
        ("cummax_values", lambda x: torch.cummax(x, 1).values, [t([[1.0, 3.0, 3.0, 2.0, 5.0], [0.0, -1.0, 0.0, 4.0, 4.0]])],
         "cummax(a, 1).values"),
        ("cummax_indices", lambda x: torch.cummax(x, -1).indices.to(D),
         [Fixed(t([[1.0, 3.0, 3.0, 2.0, NAN, 5.0], [0.0, -1.0, 0.0, 4.0, 4.0, 9.0]]))], "cummax(a, -1).indices.to(f64)"),
        ("cummin_noncontig", lambda x: x.t().cummin(0)[0], [distinct], "a.T.cummin(0)[0]"),
        ("cummin_indices", lambda x: torch.cummin(x, 0).indices.to(D), [Fixed(t([[1.0, 2.0], [0.0, 2.0], [0.0, 1.0]]))],
         "cummin(a, 0).indices.to(f64)"),
        ("kthvalue", lambda x: torch.kthvalue(x, 3, 1).values, [distinct], "kthvalue(a, 3, 1).values"),
        ("kthvalue_indices", lambda x: torch.kthvalue(x, 2, 0, keepdim=True).indices.to(D), [distinct],
         "a.kthvalue(2, 0, keepdim=true).indices.to(f64)"),
        ("mode", lambda x: torch.mode(x, -1).values, [t([[1.0, 2.0, 2.0, 3.0, 3.0, 1.0], [4.0, 4.0, 0.5, 0.5, 0.5, 4.0]])],
         "mode(a, -1).values"),
        ("mode_indices", lambda x: torch.mode(x, 0, keepdim=True).indices.to(D),
         [Fixed(t([[1.0, 2.0], [2.0, 2.0], [1.0, 3.0]]))], "a.mode(0, keepdim=true).indices.to(f64)"),
        ("unique", lambda x: torch.unique(x), [Fixed(t([3.0, 1.0, 3.0, -2.0, 1.0]))], "unique(a)"),
        ("unique_inverse_counts", lambda x: torch.cat([p.to(D).flatten() for p in torch.unique(x, return_inverse=True,
                                                                                              return_counts=True)]),
         [Fixed(t([[3.0, 1.0], [3.0, -2.0]]))],
         "cat([p.to(f64).flatten() for p in unique(a, return_inverse=true, return_counts=true)])"),
        ("unique_dim", lambda x: torch.cat([p.to(D).flatten() for p in torch.unique(x, dim=1, return_inverse=True,
                                                                                   return_counts=True)]),
         [Fixed(t([[1.0, 0.0, 1.0, 0.0], [2.0, 5.0, 2.0, 1.0]]))],
         "cat([p.to(f64).flatten() for p in a.unique(dim=1, return_inverse=true, return_counts=true)])"),
        ("unique_consecutive", lambda x: torch.cat([p.to(D).flatten() for p in torch.unique_consecutive(
            x, return_inverse=True, return_counts=True)]), [Fixed(t([1.0, 1.0, 2.0, 2.0, 1.0, 3.0]))],
         "cat([p.to(f64).flatten() for p in unique_consecutive(a, return_inverse=true, return_counts=true)])"),
        ("unique_consecutive_dim", lambda x: torch.unique_consecutive(x, dim=0), [Fixed(t([[1.0, 2.0], [1.0, 2.0], [0.0, 2.0]]))],
         "unique_consecutive(a, dim=0)"),
        ("bincount", lambda x: torch.bincount(x.long(), minlength=7).to(D), [Fixed(t([0.0, 2.0, 2.0, 5.0]))],
         "bincount(a.long(), minlength=7).to(f64)"),
        ("bincount_weights", lambda x, w: torch.bincount(x.long(), weights=w), [Fixed(t([1.0, 1.0, 3.0])),
                                                                                Fixed(t([0.5, 0.25, 2.0]))],
         "bincount(a.long(), weights=b)"),
        ("histc", lambda x: torch.histc(x, bins=5, min=-1, max=1), [Fixed(t([-1.0, -0.5, 0.0, 0.2, 1.0, 3.0, 0.99]))],
         "histc(a, bins=5, min=-1, max=1)"),
        ("histc_range", lambda x: x.histc(4), [Fixed(t([2.0, 3.0, 4.0, 6.0, 6.0]))], "a.histc(4)"),
        # math
        ("clip", lambda x: torch.clip(x, -0.5, 0.7), [t([-2.0, -0.3, 0.1, 0.9, 0.7])], "clip(a, -0.5, 0.7)"),
        ("clip_tensor_bounds", lambda x, lo, hi: torch.clip(x, lo, hi), [r(2, 3), r(3) - 0.5, r(2, 1) + 0.5],
         "a.clip(b, c)"),
        ("clip_max_only", lambda x: torch.clip(x, max=0.2), [r(5)], "clip(a, max=0.2)"),
        ("xlogy", torch.xlogy, [t([0.0, 1.5, -2.0, 0.0, 3.0, 0.0]), t([0.0, 2.0, 0.5, 3.0, 7.0, NAN])], "xlogy(a, b)"),
        ("xlogy_scalar", lambda y: torch.xlogy(2.0, y), [t([0.5, 2.0])], "xlogy(2.0, a)"),
        ("sinc", torch.sinc, [t([0.0, 0.25, -1.5, 3.0, 1e-2])], "sinc(a)"),
        ("hypot", torch.hypot, [r(2, 3), r(3)], "hypot(a, b)"),
        ("signbit", lambda x: torch.signbit(x).to(D), [Fixed(t([-0.0, 0.0, -1.0, 2.0, -INF]))], "signbit(a).to(f64)"),
        ("float_power", torch.float_power, [t([1.5, 2.0, 0.5]), t([2.0, -1.0, 3.0])], "float_power(a, b)"),
        ("float_power_int", lambda x: torch.float_power(x.long(), 2), [Fixed(t([2.0, 3.0]))], "a.long().float_power(2)"),
        ("fmax", torch.fmax, [t([1.0, NAN, 3.0, NAN, 2.0]), t([2.0, 0.0, NAN, NAN, 2.0])], "fmax(a, b)"),
        ("fmin", torch.fmin, [t([1.0, NAN, 3.0, NAN, 2.0]), t([2.0, 0.0, NAN, NAN, 2.0])], "a.fmin(b)"),
        ("nansum", lambda x: torch.nansum(x, 1), [t([[1.0, NAN, 2.0], [NAN, NAN, 4.0]])], "nansum(a, 1)"),
        ("nansum_all", lambda x: torch.nansum(x), [t([[1.0, NAN, 2.0], [NAN, NAN, 4.0]])], "a.nansum()"),
        ("nanmean", lambda x: torch.nanmean(x, -1, keepdim=True), [t([[1.0, NAN, 2.0], [NAN, 5.0, 4.0]])],
         "nanmean(a, -1, keepdim=true)"),
        ("copysign", torch.copysign, [t([1.0, -2.0, 3.0, 0.5, -1.0]), t([-1.0, 2.0, -0.0, 0.0, -3.0])], "copysign(a, b)"),
        ("copysign_scalar", lambda x: torch.copysign(x, -1.0), [t([1.0, -2.0])], "a.copysign(-1.0)"),
        ("logaddexp2", torch.logaddexp2, [r(4) * 10, r(4)], "logaddexp2(a, b)"),
        ("deg2rad", torch.deg2rad, [r(3) * 90], "deg2rad(a)"),
        ("rad2deg", torch.rad2deg, [r(3)], "a.rad2deg()"),
        ("kron", torch.kron, [r(2, 3), r(3, 2)], "kron(a, b)"),
        ("kron_ranks", torch.kron, [r(2), r(2, 3, 2)], "a.kron(b)"),
        ("mv", torch.mv, [r(3, 4), r(4)], "mv(a, b)"),
        ("mv_noncontig", lambda m, v: torch.mv(m.t(), v), [r(4, 3), r(4)], "a.T.mv(b)"),
        ("inner", torch.inner, [r(2, 3), r(4, 3)], "inner(a, b)"),
        ("inner_vec", torch.inner, [r(3), r(3)], "a.inner(b)"),
        ("ger", torch.ger, [r(3), r(2)], "ger(a, b)"),
        ("cross", lambda x, y: torch.cross(x, y, dim=-1), [r(4, 3), r(4, 3)], "cross(a, b, dim=-1)"),
        ("cross_default_broadcast", lambda x, y: torch.cross(x, y), [r(3, 2), r(3, 1)], "a.cross(b)"),
        ("cov", torch.cov, [r(3, 5)], "cov(a)"),
        ("cov_weights", lambda x, aw: torch.cov(x, correction=0, fweights=torch.tensor([1, 2, 1, 3]), aweights=aw),
         [r(2, 4), torch.rand(4, dtype=D) + 0.5], "cov(a, correction=0, fweights=tensor([1, 2, 1, 3]), aweights=b)"),
        ("cov_1d", torch.cov, [r(6)], "a.cov()"),
        ("corrcoef", torch.corrcoef, [r(3, 6)], "corrcoef(a)"),
        ("renorm", lambda x: torch.renorm(x, 2, 0, 1.5), [r(3, 4)], "renorm(a, 2, 0, 1.5)"),
        ("renorm_p1_negdim", lambda x: x.renorm(1, -1, 2.0), [r(3, 2, 4)], "a.renorm(1, -1, 2.0)"),
        ("dist", lambda x, y: torch.dist(x, y), [r(2, 3), r(3)], "a.dist(b)"),
        ("dist_p3", lambda x, y: torch.dist(x, y, 3), [r(4), r(4)], "a.dist(b, 3)"),
    ]


def main():
    torch.manual_seed(0)
    tensors = {}
    lines = [
        "# Generated by tests/stdlib/reference/make_tensor_extra.py (up to the hand-written tests at the end):",
        "# nabla's composites of interp/builtins/composites/composite_extra_shape.cpp and composite_extra_math.cpp against",
        "# PyTorch in f64, values and the gradients of sum(output * g). Run by ctest dsl_tests.",
        "let ref = load(\"tests/stdlib/reference/tensor_extra.safetensors\")",
        "",
    ]
    names = "abcd"
    for name, fn, inputs, expr, *tolerance in cases():
        rtol = tolerance[0] if tolerance else 1e-9
        fixed = [isinstance(x, Fixed) for x in inputs]
        inputs = [x.tensor.clone() if f else x.clone().requires_grad_(True) for x, f in zip(inputs, fixed)]
        out = fn(*inputs)
        for k, x in enumerate(inputs):
            tensors[f"{name}.x{k}"] = x.detach()
        tensors[f"{name}.y"] = out.detach()
        lines.append(f"test \"{name}\" {{")
        for k in range(len(inputs)):
            grad_flag = "" if fixed[k] else ".requires_grad_(true)"
            lines.append(f"  let {names[k]} = ref[\"{name}.x{k}\"].clone(){grad_flag}")
        lines.append(f"  let out = {expr}")
        lines.append(f"  let want = ref[\"{name}.y\"]")
        lines.append("  expect(out.shape == want.shape, f\"shape {out.shape}, PyTorch's {want.shape}\")")
        if out.is_floating_point() and out.isnan().any():  # NaN where PyTorch's is: compare them as a number
            lines.append("  expect_close(nan_to_num(out, nan=123.0), nan_to_num(want, nan=123.0), rtol=1e-9, atol=1e-12)")
        else:
            lines.append("  expect_close(out, want, rtol=1e-9, atol=1e-12)")
        g = torch.randn(out.shape, dtype=D)
        try:
            wrt = [x for x, f in zip(inputs, fixed) if not f]
            grads = torch.autograd.grad(out, wrt, g, allow_unused=True) if out.requires_grad and wrt else None
        except RuntimeError:  # not differentiable in PyTorch
            grads = None
        if grads is not None and out.numel() > 0:
            tensors[f"{name}.g"] = g
            lines.append(f"  let gs = grad([out], [{', '.join(names[k] for k in range(len(inputs)) if not fixed[k])}], "
                         f"grad_outputs=[ref[\"{name}.g\"]], allow_unused=true)")
            for k, gk in enumerate(grads):
                if gk is not None and gk.abs().sum() > 0:
                    tensors[f"{name}.grad{k}"] = gk
                    lines.append(f"  expect_close(gs[{k}], ref[\"{name}.grad{k}\"], rtol={rtol}, atol=1e-12)")
        lines.append("}")
    write_safetensors(OUT, tensors)
    kept = ""
    if DSL.exists() and MARKER in DSL.read_text():
        kept = DSL.read_text().split(MARKER, 1)[1]
    DSL.write_text("\n".join(lines) + "\n\n" + MARKER + (kept if kept else "\n"))
    print(f"{OUT}: {OUT.stat().st_size} bytes; {DSL}")


if __name__ == "__main__":
    main()
