"""Writes composites.safetensors and test_composites*.dsl for the composite functions of
interp/builtins/composites/composite_math.cpp and composite_nn.cpp (torch's tan, prod, amax, norm,
median, quantile, chunk, diagonal, ... and torch.nn.functional's relu6, glu,
cosine_similarity, unfold, fold, l1_loss, triplet_margin_loss, ...): each case's f64
inputs, PyTorch's output, an upstream gradient g and PyTorch's gradients of
sum(output * g) for every floating input. The .dsl runs the same expression in nabla
and compares values and gradients (rtol 1e-9).

    /usr/bin/python3 tests/stdlib/reference/make_composites.py

The file is written by scripts/reference/safetensors_file.py (there is no safetensors
package here).
"""
import math
import pathlib
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, str(pathlib.Path(__file__).parents[3] / "scripts" / "reference"))
from dsl_test_files import write_test_files  # noqa: E402
from expression_cases import D, INF, NAN, Fixed, case_tests, r, t  # noqa: E402,F401
from safetensors_file import write_safetensors  # noqa: E402

HERE = pathlib.Path(__file__).parent
OUT = HERE / "composites.safetensors"
DSL_STEM = HERE.parent / "test_composites"  # test_composites.dsl, test_composites2.dsl, ...
def cases():
    """(name, torch function, inputs, nabla expression over a, b, c, d[, rtol])."""
    u = torch.rand(7, dtype=D) * 1.8 - 0.9  # inside (-1, 1)
    ties = t([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]])
    return [
        # elementwise
        ("reciprocal", torch.reciprocal, [r(6) + 3], "reciprocal(a)"),
        ("square", torch.square, [r(6)], "square(a)"),
        ("exp2", torch.exp2, [t([-2.0, 0.0, 3.0, 10.0, 0.5])], "exp2(a)"),
        ("log2", torch.log2, [t([0.5, 1.0, 8.0, 1000.0, 0.0])], "log2(a)"),
        ("log10", torch.log10, [t([0.5, 1.0, 100.0, 7.0])], "log10(a)"),
        ("tan", torch.tan, [r(6)], "tan(a)"),
        ("sinh", torch.sinh, [t([1e-10, -0.5, 2.0, -30.0])], "sinh(a)"),
        ("cosh", torch.cosh, [t([1e-10, -0.5, 2.0, -30.0])], "cosh(a)"),
        ("asin", torch.asin, [u], "asin(a)"),
        ("acos", torch.acos, [u], "acos(a)"),
        ("atan", torch.atan, [r(6) * 3], "atan(a)"),
        ("asinh", torch.asinh, [t([1e-10, -0.5, 3.0, -1e5, 1e5])], "asinh(a)"),
        ("acosh", torch.acosh, [t([1.5, 2.0, 30.0])], "acosh(a)"),
        ("atanh", torch.atanh, [u], "atanh(a)"),
        ("frac", torch.frac, [t([-2.25, -0.5, 0.75, 3.5])], "frac(a)"),
        ("fmod", torch.fmod, [t([5.0, -5.0, 5.0, -5.0, 7.5, -0.5]), t([3.0, 3.0, -3.0, -3.0, 2.0, 0.3])], "fmod(a, b)"),
        ("floor_divide", torch.floor_divide, [Fixed(t([7.0, -7.0, 7.5])), Fixed(t([2.0, 2.0, -2.0]))], "floor_divide(a, b)"),
        ("lerp", torch.lerp, [r(5), r(5), torch.rand(5, dtype=D)], "lerp(a, b, c)"),
        ("nan_to_num", lambda x: torch.nan_to_num(x, nan=1.5, neginf=-7.0), [t([NAN, INF, -INF, 2.0])],
         "nan_to_num(a, nan=1.5, neginf=-7.0)"),
        ("isnan_isinf", lambda x: torch.stack([x.isnan(), x.isinf(), x.isfinite()]).to(D), [t([NAN, INF, -INF, 2.0])],
         "stack([isnan(a), isinf(a), isfinite(a)]).to(f64)"),
        # reductions
        ("prod", lambda x: torch.prod(x), [r(2, 3)], "prod(a)"),
        ("prod_dim_zeros", lambda x: torch.prod(x * (x > -0.5), 1, keepdim=True), [r(3, 4)], "prod(a * (a > -0.5), 1, keepdim=true)"),
        ("amax_ties", lambda x: torch.amax(x, 1), [ties], "amax(a, dim=1)"),
        ("amin_dims", lambda x: torch.amin(x, (0, 2), keepdim=True), [r(2, 3, 4)], "amin(a, dim=[0, 2], keepdim=true)"),
        ("amax_all", lambda x: torch.amax(x, ()), [ties], "amax(a)"),
        ("norm2", lambda x: torch.norm(x), [r(3, 4)], "norm(a)"),
        ("norm1_dim", lambda x: torch.norm(x, 1, dim=1), [r(3, 4)], "norm(a, 1, dim=1)"),
        ("norm_inf", lambda x: torch.norm(x, INF, dim=0), [r(3, 4)], "norm(a, float(\"inf\"), dim=0)"),
        ("norm3_zero_row", lambda x: torch.norm(x * t([[1.0], [0.0]]), 3, dim=1), [r(2, 3)],
         "norm(a * tensor([[1.0], [0.0]], dtype=f64), 3, dim=1)"),
        ("norm2_zero", lambda x: torch.norm(x * 0.0, dim=1), [r(2, 3)], "norm(a * 0.0, dim=1)"),
        ("std_mean", lambda x: torch.stack(torch.std_mean(x, 1)), [r(3, 4)], "stack(list(std_mean(a, 1)))"),
        ("var_mean", lambda x: torch.stack(torch.var_mean(x, 0, correction=0)), [r(3, 4)],
         "stack(list(var_mean(a, 0, correction=0)))"),
        ("count_nonzero", lambda x: torch.count_nonzero(x * (x > 0), 1).to(D), [r(3, 4)],
         "count_nonzero(a * (a > 0), 1).to(f64)"),
        ("median", torch.median, [r(6)], "median(a)"),
        ("median_dim", lambda x: torch.median(x, 1)[0], [r(3, 4)], "median(a, 1)[0]"),
        ("quantile", lambda x: torch.quantile(x, 0.3), [r(7)], "quantile(a, 0.3)"),
        ("quantile_dim", lambda x: torch.quantile(x, t([0.1, 0.5, 0.95]), dim=1, keepdim=True), [r(2, 5)],
         "quantile(a, [0.1, 0.5, 0.95], dim=1, keepdim=true)"),
        # shapes and products
        ("chunk", lambda x: torch.cat([c * (k + 1) for k, c in enumerate(torch.chunk(x, 3, 1))], 1), [r(2, 7)],
         "cat([chunk(a, 3, 1)[k] * (k + 1) for k in range(3)], 1)"),
        ("narrow", lambda x: torch.narrow(x, 1, -3, 2), [r(2, 5)], "narrow(a, 1, -3, 2)"),
        ("take_along_dim", lambda x: torch.take_along_dim(x, torch.argsort(x, 1)[:, :2], 1), [r(3, 4)],
         "take_along_dim(a, argsort(a, dim=1)[:, :2], 1)"),
        ("diagonal", lambda x: torch.diagonal(x, 1, 0, 2), [r(3, 2, 4)], "diagonal(a, 1, 0, 2)"),
        ("diagonal_neg", lambda x: torch.diagonal(x, -2), [r(5, 3)], "diagonal(a, -2)"),
        ("trace", torch.trace, [r(3, 4)], "trace(a)"),
        ("diag_vec", lambda x: torch.diag(x, -1), [r(3)], "diag(a, -1)"),
        ("diag_mat", lambda x: torch.diag(x, 1), [r(3, 4)], "diag(a, 1)"),
        ("outer", torch.outer, [r(3), r(4)], "outer(a, b)"),
        ("dot", torch.dot, [r(5), r(5)], "dot(a, b)"),
        ("mm", torch.mm, [r(2, 3), r(3, 4)], "mm(a, b)"),
        ("bmm", torch.bmm, [r(2, 2, 3), r(2, 3, 4)], "bmm(a, b)"),
        ("addmm", lambda x, m1, m2: torch.addmm(x, m1, m2, beta=0.5, alpha=2.0), [r(2, 4), r(2, 3), r(3, 4)],
         "addmm(a, b, c, beta=0.5, alpha=2.0)"),
        ("baddbmm", torch.baddbmm, [r(2, 2, 4), r(2, 2, 3), r(2, 3, 4)], "baddbmm(a, b, c)"),
        ("masked_select", lambda x: torch.masked_select(x, x > 0), [r(3, 4)], "masked_select(a, a > 0)"),
        ("nonzero", lambda x: torch.nonzero(x > 0).to(D), [r(3, 4)], "nonzero(a > 0).to(f64)"),
        # the tensor API's conveniences
        ("any_all", lambda x: torch.stack([x.gt(0).any(1), x.gt(-1).all(1)]).to(D), [r(3, 4)],
         "stack([any(a > 0, dim=1), (a > -1).all(dim=1)]).to(f64)"),
        ("logical", lambda x, y: torch.stack([torch.logical_and(x, y), torch.logical_or(x, y), torch.logical_xor(x, y),
                                               torch.logical_not(x)]).to(D),
         [Fixed(t([0.0, 1.0, 0.0, 2.0])), Fixed(t([0.0, 0.0, 3.0, -1.0]))],
         "stack([logical_and(a, b), logical_or(a, b), logical_xor(a, b), logical_not(a)]).to(f64)"),
        ("isclose", lambda x, y: torch.isclose(x, y, rtol=1e-3, equal_nan=True).to(D),
         [Fixed(t([1.0, NAN, INF, 2.0, 1.0])), Fixed(t([1.0005, NAN, INF, 2.1, NAN]))],
         "isclose(a, b, rtol=1e-3, equal_nan=true).to(f64)"),
        ("expand_as", lambda x, y: x.expand_as(y) * y, [r(1, 3), r(2, 3)], "a.expand_as(b) * b"),
        ("view_reshape_type_as", lambda x, y: x.view_as(y) + x.reshape_as(y).type_as(y), [r(6), r(2, 3)],
         "a.view_as(b) + a.reshape_as(b).type_as(b)"),
        ("movedim", lambda x: torch.movedim(x, (0, 2), (2, 0)), [r(2, 3, 4)], "movedim(a, [0, 2], [2, 0])"),
        ("hstack_vstack", lambda x, y: torch.cat([torch.hstack([x, y]).flatten(), torch.vstack([x, y]).flatten()]),
         [r(3), r(3)], "cat([hstack([a, b]).flatten(), vstack([a, b]).flatten()])"),
        ("unflatten", lambda x: x.unflatten(1, (2, -1)), [r(3, 6)], "a.unflatten(1, [2, -1])"),
        ("clamp_min_max", lambda x: x.clamp_min(-0.5) * 2 + x.clamp_max(0.3), [r(8)], "a.clamp_min(-0.5) * 2 + a.clamp_max(0.3)"),
        ("addcmul", lambda x, y, z: torch.addcmul(x, y, z, value=0.3), [r(4), r(4), r(4)], "addcmul(a, b, c, value=0.3)"),
        ("addcdiv", lambda x, y, z: torch.addcdiv(x, y, z, value=-2.0), [r(4), r(4), r(4) + 4], "addcdiv(a, b, c, value=-2.0)"),
        ("diff", lambda x, y: torch.diff(x, n=2, dim=0, prepend=y), [r(4, 3), r(1, 3)], "diff(a, n=2, dim=0, prepend=b)"),
        ("logcumsumexp", lambda x: torch.logcumsumexp(x * 50, 1), [r(3, 5)], "logcumsumexp(a * 50, 1)"),
        ("heaviside", lambda x: torch.heaviside(x * (x > 0.5), t([0.25])), [r(6)], "heaviside(a * (a > 0.5), tensor([0.25], dtype=f64))"),
        ("named_values", lambda x: torch.max(x, 1).values + torch.sort(x, 1).values[:, 0] + torch.topk(x, 2).values[:, 1],
         [r(3, 4)], "max(a, 1).values + sort(a, dim=1).values[:, 0] + topk(a, 2).values[:, 1]"),
        ("named_indices", lambda x: (torch.min(x, 0).indices + torch.median(x, 1).indices.sum()).to(D), [r(3, 4)],
         "(min(a, 0).indices + median(a, 1).indices.sum()).to(f64)"),
        ("add_sub_alpha", lambda x, y: torch.add(x, y, alpha=0.3) + torch.sub(x, 2.5, alpha=1.5), [r(4), r(4)],
         "add(a, b, alpha=0.3) + sub(a, 2.5, alpha=1.5)"),
        ("div_rounding", lambda x, y: torch.stack([torch.div(x, y, rounding_mode="floor"), torch.div(x, y, rounding_mode="trunc")]),
         [Fixed(t([1.0, -7.0, 7.5, 0.3])), Fixed(t([0.1, 2.0, -2.0, 0.1]))],
         "stack([div(a, b, rounding_mode=\"floor\"), div(a, b, rounding_mode=\"trunc\")])"),
        ("in_place_clamp", lambda x: (x * 1.0).clamp_(-0.5, 0.5).exp_(), [r(6)], "(a * 1.0).clamp_(-0.5, 0.5).exp_()"),
        # activations
        ("relu6", F.relu6, [r(8) * 5], "relu6(a)"),
        # PyTorch 1.13's f64 gradients of hardsigmoid and celu use f32 constants (1/6 as
        # 0.16666667): nabla's are exact, so these two compare at f32's precision.
        ("hardsigmoid", F.hardsigmoid, [r(8) * 4], "hardsigmoid(a)", 1e-7),
        ("selu", F.selu, [r(8)], "selu(a)"),
        ("celu", lambda x: F.celu(x, 0.7), [r(8)], "celu(a, 0.7)", 1e-7),
        ("prelu", F.prelu, [r(2, 3, 4), torch.rand(3, dtype=D)], "prelu(a, b)"),
        ("glu", lambda x: F.glu(x, 1), [r(2, 6, 3)], "glu(a, 1)"),
        ("softsign", F.softsign, [r(8)], "softsign(a)"),
        ("logsigmoid", F.logsigmoid, [t([-100.0, -2.0, 0.5, 30.0])], "logsigmoid(a)"),
        ("softmin", lambda x: F.softmin(x, 0), [r(3, 4)], "softmin(a, 0)"),
        ("hardshrink", lambda x: F.hardshrink(x, 0.4), [r(8)], "hardshrink(a, 0.4)"),
        ("softshrink", lambda x: F.softshrink(x, 0.4), [r(8)], "softshrink(a, 0.4)"),
        ("tanhshrink", F.tanhshrink, [r(8)], "tanhshrink(a)"),
        ("threshold", lambda x: F.threshold(x, 0.2, -3.0), [r(8)], "threshold(a, 0.2, -3.0)"),
        # distances
        ("normalize", lambda x: F.normalize(x, p=3, dim=0), [r(3, 4)], "normalize(a, p=3, dim=0)"),
        ("normalize_zero", lambda x: F.normalize(x * t([[0.0], [1.0]])), [r(2, 3)],
         "normalize(a * tensor([[0.0], [1.0]], dtype=f64))"),
        ("cosine_similarity", lambda x, y: F.cosine_similarity(x, y, dim=-1), [r(3, 4), r(1, 4)],
         "cosine_similarity(a, b, dim=-1)"),
        ("cosine_similarity_tiny", lambda x, y: F.cosine_similarity(x * 1e-9, y), [r(2, 3), r(2, 3)],
         "cosine_similarity(a * 1e-9, b)"),
        ("pairwise_distance", lambda x, y: F.pairwise_distance(x, y, p=1.5), [r(3, 4), r(3, 4)],
         "pairwise_distance(a, b, p=1.5)"),
        ("cdist", torch.cdist, [r(2, 3, 4), r(2, 5, 4)], "cdist(a, b)"),
        # pixel shuffle, unfold, fold
        ("pixel_shuffle", lambda x: F.pixel_shuffle(x, 2), [r(2, 8, 2, 3)], "pixel_shuffle(a, 2)"),
        ("pixel_unshuffle", lambda x: F.pixel_unshuffle(x, 2), [r(1, 2, 4, 6)], "pixel_unshuffle(a, 2)"),
        ("unfold", lambda x: F.unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)), [r(2, 3, 5, 6)],
         "unfold(a, [2, 3], dilation=[1, 2], padding=1, stride=[2, 1])"),
        ("fold", lambda x: F.fold(x, (5, 6), (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)), [r(2, 18, 12)],
         "fold(a, [5, 6], [2, 3], dilation=[1, 2], padding=1, stride=[2, 1])"),
        ("fold_uncovered", lambda x: F.fold(x, (5, 5), 2, stride=2), [r(1, 4, 4)], "fold(a, [5, 5], 2, stride=2)"),
        # volumes (composite_spatial.cpp): 3-D pools, transposed convolution
        ("max_pool3d", lambda x: F.max_pool3d(x, (2, 3, 2), stride=(1, 2, 2), padding=(1, 1, 0), dilation=(1, 1, 2),
                                              ceil_mode=True), [r(2, 3, 5, 6, 7)],
         "max_pool3d(a, [2, 3, 2], stride=[1, 2, 2], padding=[1, 1, 0], dilation=[1, 1, 2], ceil_mode=true)"),
        ("max_pool3d_indices", lambda x: F.max_pool3d(x, 2, stride=(2, 1, 2), padding=1, return_indices=True)[1].to(D),
         [r(2, 2, 4, 5, 6)], "max_pool3d(a, 2, stride=[2, 1, 2], padding=1, return_indices=true)[1].to(f64)"),
        ("max_pool3d_unbatched", lambda x: F.max_pool3d(x, 2), [r(3, 4, 4, 5)], "max_pool3d(a, 2)"),
        ("avg_pool3d", lambda x: F.avg_pool3d(x, (3, 2, 2), stride=2, padding=1, ceil_mode=True, count_include_pad=False),
         [r(2, 3, 5, 6, 7)], "avg_pool3d(a, [3, 2, 2], stride=2, padding=1, ceil_mode=true, count_include_pad=false)"),
        ("avg_pool3d_pad", lambda x: F.avg_pool3d(x, 3, stride=(1, 2, 3), padding=1), [r(1, 2, 4, 5, 7)],
         "avg_pool3d(a, 3, stride=[1, 2, 3], padding=1)"),
        ("adaptive_avg_pool3d", lambda x: F.adaptive_avg_pool3d(x, (2, None, 3)), [r(2, 3, 5, 4, 7)],
         "adaptive_avg_pool3d(a, [2, none, 3])"),
        ("adaptive_max_pool3d", lambda x: F.adaptive_max_pool3d(x, (3, 2, 4)), [r(2, 2, 5, 6, 7)],
         "adaptive_max_pool3d(a, [3, 2, 4])"),
        ("adaptive_max_pool3d_indices", lambda x: F.adaptive_max_pool3d(x, 2, return_indices=True)[1].to(D),
         [r(1, 2, 5, 6, 7)], "adaptive_max_pool3d(a, 2, return_indices=true)[1].to(f64)"),
        ("conv_transpose3d", lambda x, w, b: F.conv_transpose3d(x, w, b, stride=(2, 1, 2), padding=(1, 0, 1),
                                                                output_padding=(1, 0, 1), groups=2, dilation=(1, 2, 1)),
         [r(2, 4, 3, 4, 3), r(4, 3, 2, 2, 3), r(6)],
         "conv_transpose3d(a, b, c, stride=[2, 1, 2], padding=[1, 0, 1], output_padding=[1, 0, 1], groups=2, dilation=[1, 2, 1])"),
        ("conv_transpose3d_dilated_padding", lambda x, w: F.conv_transpose3d(x, w, stride=1, output_padding=1, dilation=2),
         [r(1, 2, 3, 3, 2), r(2, 1, 2, 2, 2)], "conv_transpose3d(a, b, output_padding=1, dilation=2)"),
        # sampling grids
        ("affine_grid", lambda th: F.affine_grid(th, (2, 3, 4, 5), align_corners=False), [r(2, 2, 3)],
         "affine_grid(a, [2, 3, 4, 5])"),
        ("affine_grid_aligned_3d", lambda th: F.affine_grid(th, (1, 2, 3, 4, 2), align_corners=True), [r(1, 3, 4)],
         "affine_grid(a, [1, 2, 3, 4, 2], align_corners=true)"),
        ("grid_sample", lambda x, g: F.grid_sample(x, g, align_corners=False), [r(2, 3, 5, 6), torch.rand(2, 4, 3, 2, dtype=D) * 2.4 - 1.2],
         "grid_sample(a, b)"),
        ("grid_sample_border_aligned", lambda x, g: F.grid_sample(x, g, padding_mode="border", align_corners=True),
         [r(1, 2, 4, 5), torch.rand(1, 3, 4, 2, dtype=D) * 3 - 1.5], "grid_sample(a, b, padding_mode=\"border\", align_corners=true)"),
        ("grid_sample_reflection", lambda x, g: F.grid_sample(x, g, padding_mode="reflection"),
         [r(1, 2, 4, 5), torch.rand(1, 3, 4, 2, dtype=D) * 5 - 2.5], "grid_sample(a, b, padding_mode=\"reflection\")"),
        ("grid_sample_reflection_aligned", lambda x, g: F.grid_sample(x, g, padding_mode="reflection", align_corners=True),
         [r(1, 2, 4, 5), torch.rand(1, 3, 4, 2, dtype=D) * 5 - 2.5],
         "grid_sample(a, b, padding_mode=\"reflection\", align_corners=true)"),
        ("grid_sample_nearest", lambda x, g: F.grid_sample(x, g, mode="nearest", align_corners=False),
         [r(1, 2, 4, 5), torch.rand(1, 3, 4, 2, dtype=D) * 2.2 - 1.1], "grid_sample(a, b, mode=\"nearest\")"),
        ("grid_sample_volume", lambda x, g: F.grid_sample(x, g, align_corners=False),
         [r(2, 2, 3, 4, 5), torch.rand(2, 2, 3, 2, 3, dtype=D) * 2.4 - 1.2], "grid_sample(a, b)"),
        ("grid_sample_volume_reflection_aligned", lambda x, g: F.grid_sample(x, g, padding_mode="reflection",
                                                                             align_corners=True),
         [r(1, 2, 3, 4, 3), torch.rand(1, 2, 2, 3, 3, dtype=D) * 5 - 2.5],
         "grid_sample(a, b, padding_mode=\"reflection\", align_corners=true)"),
        ("grid_sample_volume_border_nearest", lambda x, g: F.grid_sample(x, g, mode="nearest", padding_mode="border",
                                                                         align_corners=False),
         [r(1, 1, 3, 3, 4), torch.rand(1, 2, 2, 2, 3, dtype=D) * 3 - 1.5],
         "grid_sample(a, b, mode=\"nearest\", padding_mode=\"border\")"),
        ("floor_divide_int", lambda x, y: torch.floor_divide(x, y).to(D), [Fixed(torch.tensor([7, -7, 7, -7, 0, 9])),
         Fixed(torch.tensor([2, 2, -2, -2, 3, 4]))], "floor_divide(a, b).to(f64)"),
        # losses
        ("l1_loss", F.l1_loss, [r(3, 4), r(3, 4)], "l1_loss(a, b)"),
        ("smooth_l1_loss", lambda x, y: F.smooth_l1_loss(x, y, beta=0.5, reduction="none"), [r(3, 4), r(3, 4)],
         "smooth_l1_loss(a, b, beta=0.5, reduction=\"none\")"),
        ("huber_loss", lambda x, y: F.huber_loss(x, y, delta=0.7, reduction="sum"), [r(3, 4), r(3, 4)],
         "huber_loss(a, b, delta=0.7, reduction=\"sum\")"),
        ("soft_margin_loss", F.soft_margin_loss, [r(6), Fixed(t([1.0, -1.0, 1.0, 1.0, -1.0, -1.0]))], "soft_margin_loss(a, b)"),
        ("margin_ranking_loss", lambda x, y, z: F.margin_ranking_loss(x, y, z, margin=0.3), [r(6), r(6),
         Fixed(t([1.0, -1.0, 1.0, 1.0, -1.0, -1.0]))], "margin_ranking_loss(a, b, c, margin=0.3)"),
        ("hinge_embedding_loss", lambda x, y: F.hinge_embedding_loss(x, y, margin=0.5), [r(6),
         Fixed(t([1.0, -1.0, 1.0, 1.0, -1.0, -1.0]))], "hinge_embedding_loss(a, b, margin=0.5)"),
        ("cosine_embedding_loss", lambda x, y, z: F.cosine_embedding_loss(x, y, z, margin=0.1), [r(4, 3), r(4, 3),
         Fixed(t([1.0, -1.0, 1.0, -1.0]))], "cosine_embedding_loss(a, b, c, margin=0.1)"),
        ("triplet_margin_loss", lambda x, y, z: F.triplet_margin_loss(x, y, z, margin=0.5, swap=True), [r(4, 3),
         r(4, 3), r(4, 3)], "triplet_margin_loss(a, b, c, margin=0.5, swap=true)"),
        ("poisson_nll_loss", lambda x, y: F.poisson_nll_loss(x, y, full=True), [r(6), Fixed(t([0.0, 1.0, 2.0, 3.0, 5.0, 0.5]))],
         "poisson_nll_loss(a, b, full=true)"),
        ("poisson_nll_rate", lambda x, y: F.poisson_nll_loss(x, y, log_input=False), [torch.rand(4, dtype=D) + 0.1,
         Fixed(t([0.0, 1.0, 2.0, 3.0]))], "poisson_nll_loss(a, b, log_input=false)"),
        ("gaussian_nll_loss", lambda x, y, v: F.gaussian_nll_loss(x, y, v, full=True), [r(3, 2), r(3, 2),
         t([0.5, 1e-9, 2.0])], "gaussian_nll_loss(a, b, c, full=true)"),
        # the classification losses' PyTorch arguments (loss_conventions.cpp)
        ("cross_entropy_weight_smoothing_ignore", lambda x, w: F.cross_entropy(x, torch.tensor([0, 2, 1, 1, 2]), weight=w,
                                                                                label_smoothing=0.2, ignore_index=1),
         [r(5, 3), Fixed(torch.rand(3, dtype=D) + 0.5)],
         "cross_entropy(a, tensor([0, 2, 1, 1, 2]), weight=b, label_smoothing=0.2, ignore_index=1)"),
        ("cross_entropy_weight_positional_sum", lambda x: F.cross_entropy(x, torch.tensor([[0, 2], [1, 0]]),
                                                                          t([1.0, 2.0, 0.5]), reduction="sum"),
         [r(2, 3, 2)], "cross_entropy(a, tensor([[0, 2], [1, 0]]), tensor([1.0, 2.0, 0.5], dtype=f64), reduction=\"sum\")"),
        ("cross_entropy_weight_none", lambda x: F.cross_entropy(x, torch.tensor([0, 2, 1]), weight=t([1.0, 2.0, 0.5]),
                                                                reduction="none"),
         [r(3, 3)], "cross_entropy(a, tensor([0, 2, 1]), weight=tensor([1.0, 2.0, 0.5], dtype=f64), reduction=\"none\")"),
        ("cross_entropy_probabilities", lambda x, p: F.cross_entropy(x, p, label_smoothing=0.1),
         [r(4, 3), Fixed(torch.softmax(r(4, 3), 1))], "cross_entropy(a, b, label_smoothing=0.1)"),
        ("cross_entropy_probabilities_weight", lambda x, p: F.cross_entropy(x, p, weight=t([0.5, 1.0, 2.0]),
                                                                            reduction="none"),
         [r(2, 3, 4), Fixed(torch.softmax(r(2, 3, 4), 1))],
         "cross_entropy(a, b, weight=tensor([0.5, 1.0, 2.0], dtype=f64), reduction=\"none\")"),
        ("nll_loss_weight", lambda x: F.nll_loss(torch.log_softmax(x, 1), torch.tensor([2, 0, 0, 1]),
                                                 weight=t([2.0, 1.0, 0.5]), ignore_index=1),
         [r(4, 3)], "nll_loss(log_softmax(a, 1), tensor([2, 0, 0, 1]), weight=tensor([2.0, 1.0, 0.5], dtype=f64), ignore_index=1)"),
        ("bce_weight", lambda p, w: F.binary_cross_entropy(p, t([0.0, 1.0, 1.0, 0.3]), weight=w),
         [torch.rand(4, dtype=D) * 0.8 + 0.1, Fixed(torch.rand(4, dtype=D))],
         "binary_cross_entropy(a, tensor([0.0, 1.0, 1.0, 0.3], dtype=f64), weight=b)"),
        ("bce_logits_pos_weight", lambda x, w, pw: F.binary_cross_entropy_with_logits(
            x, t([[0.0, 1.0, 1.0], [0.2, 0.0, 1.0]]), weight=w, pos_weight=pw, reduction="sum"),
         [r(2, 3) * 3, Fixed(torch.rand(3, dtype=D)), Fixed(torch.rand(3, dtype=D) * 4)],
         "binary_cross_entropy_with_logits(a, tensor([[0.0, 1.0, 1.0], [0.2, 0.0, 1.0]], dtype=f64), weight=b, pos_weight=c, reduction=\"sum\")"),
        # ctc_loss (loss_conventions.cpp, Note [CTC as a scan of rows]): through log_softmax, where PyTorch's
        # gradient and the true one agree
        ("ctc_loss_padded", lambda x: F.ctc_loss(x.log_softmax(2), torch.tensor([[1, 2, 2], [3, 1, 0]]),
                                                 torch.tensor([7, 5]), torch.tensor([3, 2])),
         [r(7, 2, 4)], "ctc_loss(log_softmax(a, 2), tensor([[1, 2, 2], [3, 1, 0]]), tensor([7, 5]), tensor([3, 2]))"),
        ("ctc_loss_concatenated_sum", lambda x: F.ctc_loss(x.log_softmax(2), torch.tensor([2, 2, 1, 3, 1, 2]),
                                                           [6, 6, 4], [2, 3, 1], blank=0, reduction="sum"),
         [r(6, 3, 4)], "ctc_loss(log_softmax(a, 2), tensor([2, 2, 1, 3, 1, 2]), [6, 6, 4], [2, 3, 1], reduction=\"sum\")"),
        ("ctc_loss_blank_last_none", lambda x: F.ctc_loss(x.log_softmax(2), torch.tensor([[0, 1], [2, 2]]),
                                                          [5, 5], [2, 1], blank=3, reduction="none"),
         [r(5, 2, 4)], "ctc_loss(log_softmax(a, 2), tensor([[0, 1], [2, 2]]), [5, 5], [2, 1], blank=3, reduction=\"none\")"),
        ("ctc_loss_zero_infinity", lambda x: F.ctc_loss(x.log_softmax(2), torch.tensor([[1, 1, 1], [2, 0, 0]]),
                                                        [4, 4], [3, 0], reduction="none", zero_infinity=True),
         [r(4, 2, 3)], "ctc_loss(log_softmax(a, 2), tensor([[1, 1, 1], [2, 0, 0]]), [4, 4], [3, 0], reduction=\"none\", zero_infinity=true)"),
        ("ctc_loss_unbatched", lambda x: F.ctc_loss(x.log_softmax(1), torch.tensor([1, 2]), torch.tensor(5),
                                                    torch.tensor(2)),
         [r(5, 3)], "ctc_loss(log_softmax(a, 1), tensor([1, 2]), [5], [2])"),
        ("multilabel_soft_margin_loss", F.multilabel_soft_margin_loss, [r(3, 4), Fixed((torch.rand(3, 4) > 0.5).to(D))],
         "multilabel_soft_margin_loss(a, b)"),
    ]


def main():
    torch.manual_seed(0)
    tensors = {}
    tests = case_tests(cases(), tensors)
    write_safetensors(OUT, tensors)
    for path in write_test_files(DSL_STEM, HEADER, tests):
        print(path)
    print(f"{OUT}: {OUT.stat().st_size} bytes")


HEADER = [
    "# Generated by tests/stdlib/reference/make_composites.py: nabla's composite functions",
    "# (interp/builtins/composites/composite_math.cpp, composite_nn.cpp, composite_spatial.cpp) against PyTorch in f64,",
    "# values and the gradients of sum(output * g). Run by ctest dsl_tests.",
    "let ref = load(\"tests/stdlib/reference/composites.safetensors\")",
    "",
]



if __name__ == "__main__":
    main()
