"""Writes nn_extra.safetensors for tests/stdlib/test_nn_extra.dsl: PyTorch's values in f64
for the functions of stdlib/_nn_functional.dsl and the layers of stdlib/_nn_extra.dsl.
Each case <name> holds its inputs x0, x1, ..., its outputs y0, y1, ..., an upstream
gradient g and the gradients of sum(y0 * g) with respect to each floating input
(grad_x0, ...) and each parameter (grad.<key>); a layer's case also holds its
state_dict under PyTorch's keys and the buffers its forward moved (after.<key>):

- pdist (p 2, 1, 3, inf), local_response_norm, multi_margin_loss,
  multilabel_margin_loss, triplet_margin_with_distance_loss, lp_pool1d/2d,
  adaptive_max_pool1d, the max pools' *_with_indices and max_unpool1d/2d/3d, upsample,
  upsample_nearest, upsample_bilinear, rrelu in eval, the in-place activations (on a
  non-leaf, gradients to the leaf);
- LocalResponseNorm, LPPool1d, LPPool2d, RReLU (eval), MultiMarginLoss,
  MultiLabelMarginLoss, TripletMarginWithDistanceLoss, LazyLinear and LazyConv1d/2d/3d
  (the state_dict after the first call), SyncBatchNorm (as BatchNorm on one process:
  PyTorch's runs only on GPUs, so its values are BatchNorm's).

gumbel_softmax and rrelu's training mode are random: the DSL test checks their
statistics and gradient rules instead.

    /usr/bin/python3 tests/stdlib/reference/make_nn_extra.py

The file is written by scripts/reference/safetensors_file.py (there is no safetensors
package here).
"""
import pathlib
import sys
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, str(pathlib.Path(__file__).parents[3] / "scripts" / "reference"))
from safetensors_file import write_safetensors  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from make_layer_options import fn, record  # noqa: E402  (saves a layer's run, lazy layers too)

OUT = pathlib.Path(__file__).with_name("nn_extra.safetensors")


def cosine_distance(a, b):
    return 1.0 - F.cosine_similarity(a, b)


def function_cases(out, r):
    # ---- pdist
    x = r(5, 4)
    x[3] = x[1]  # equal rows: distance 0, gradient 0
    for tag, p in [("2", 2.0), ("1", 1.0), ("3", 3.0), ("inf", float("inf"))]:
        record(out, f"pdist_p{tag}", None, [x], fn(lambda t, p=p: F.pdist(t, p)))
    # ---- local_response_norm
    record(out, "lrn_4d", None, [r(2, 6, 3, 3)], fn(lambda t: F.local_response_norm(t, 3)))
    record(out, "lrn_3d_even", None, [r(2, 5, 7)],
           fn(lambda t: F.local_response_norm(t, 4, alpha=0.1, beta=0.6, k=2.0)))
    record(out, "lrn_5d", None, [r(1, 4, 2, 3, 2)], fn(lambda t: F.local_response_norm(t, 2, alpha=0.5)))
    # ---- losses
    scores = r(4, 5)
    classes = torch.tensor([0, 4, 2, 2])
    w = torch.rand(5) + 0.5
    record(out, "multi_margin_p1", None, [scores, classes], fn(lambda a, b: F.multi_margin_loss(a, b)))
    out["multi_margin_p2_weight_sum.weight"] = w  # a class weight: not an input (PyTorch does not differentiate it)
    record(out, "multi_margin_p2_weight_sum", None, [scores, classes],
           fn(lambda a, b: F.multi_margin_loss(a, b, p=2, margin=0.5, weight=w, reduction="sum")))
    record(out, "multi_margin_none", None, [scores, classes],
           fn(lambda a, b: F.multi_margin_loss(a, b, margin=2.0, reduction="none")))
    record(out, "multi_margin_1d", None, [r(5), torch.tensor([3])], fn(lambda a, b: F.multi_margin_loss(a, b)))
    labels = torch.tensor([[3, 0, -1, 1, 2], [1, 1, 4, -1, -1], [-1, 2, 3, 0, 0], [0, 1, 2, 3, 4]])
    record(out, "multilabel_margin", None, [scores, labels], fn(lambda a, b: F.multilabel_margin_loss(a, b)))
    record(out, "multilabel_margin_none", None, [scores, labels],
           fn(lambda a, b: F.multilabel_margin_loss(a, b, reduction="none")))
    record(out, "multilabel_margin_1d_sum", None, [r(4), torch.tensor([2, 0, -1, 3])],
           fn(lambda a, b: F.multilabel_margin_loss(a, b, reduction="sum")))
    a, p, n = r(6, 4), r(6, 4), r(6, 4)
    record(out, "triplet_distance_default", None, [a, p, n],
           fn(lambda a, p, n: F.triplet_margin_with_distance_loss(a, p, n)))
    record(out, "triplet_distance_cosine_swap", None, [a, p, n],
           fn(lambda a, p, n: F.triplet_margin_with_distance_loss(a, p, n, distance_function=cosine_distance,
                                                                   margin=0.5, swap=True, reduction="none")))
    # ---- pools
    record(out, "lp_pool1d_p2", None, [r(2, 3, 9)], fn(lambda t: F.lp_pool1d(t, 2, 3, stride=2)))
    record(out, "lp_pool1d_p3_ceil", None, [torch.rand(1, 2, 8) + 0.1],
           fn(lambda t: F.lp_pool1d(t, 3, 3, stride=2, ceil_mode=True)))
    record(out, "lp_pool2d", None, [r(2, 2, 5, 6)], fn(lambda t: F.lp_pool2d(t, 2, (2, 3), stride=(1, 2))))
    record(out, "lp_pool2d_p1_5", None, [torch.rand(1, 2, 4, 4) + 0.1], fn(lambda t: F.lp_pool2d(t, 1.5, 2)))
    record(out, "adaptive_max_pool1d", None, [r(2, 3, 10)],
           fn(lambda t: F.adaptive_max_pool1d(t, 4, return_indices=True)))
    record(out, "adaptive_max_pool1d_2d_input", None, [r(3, 7)], fn(lambda t: F.adaptive_max_pool1d(t, 3)))
    record(out, "max_pool1d_with_indices", None, [r(2, 3, 9)],
           fn(lambda t: F.max_pool1d_with_indices(t, 3, stride=2, padding=1)))
    record(out, "max_pool2d_with_indices", None, [r(1, 2, 5, 6)],
           fn(lambda t: F.max_pool2d_with_indices(t, (2, 3), dilation=(2, 1), ceil_mode=True)))
    record(out, "max_pool3d_with_indices", None, [r(1, 2, 4, 4, 5)],
           fn(lambda t: F.max_pool3d_with_indices(t, 2, stride=(2, 1, 2))))
    record(out, "adaptive_max_pool2d_with_indices", None, [r(1, 2, 5, 7)],
           fn(lambda t: F.adaptive_max_pool2d_with_indices(t, (2, 3))))
    record(out, "adaptive_max_pool3d_with_indices", None, [r(1, 2, 4, 5, 3)],
           fn(lambda t: F.adaptive_max_pool3d_with_indices(t, 2)))
    v1, i1 = F.max_pool1d(r(2, 3, 9), 3, stride=2, padding=1, return_indices=True)
    record(out, "max_unpool1d", None, [v1.detach(), i1],
           fn(lambda v, i: F.max_unpool1d(v, i, 3, stride=2, padding=1, output_size=[2, 3, 9])))
    v2, i2 = F.max_pool2d(r(1, 2, 6, 6), 2, return_indices=True)
    record(out, "max_unpool2d", None, [v2.detach(), i2], fn(lambda v, i: F.max_unpool2d(v, i, 2)))
    v3, i3 = F.max_pool3d(r(1, 1, 4, 4, 4), 2, return_indices=True)
    record(out, "max_unpool3d", None, [v3.detach(), i3], fn(lambda v, i: F.max_unpool3d(v, i, 2, stride=2)))
    # ---- the deprecated names of interpolate
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        record(out, "upsample_nearest_scale", None, [r(1, 2, 3, 4)], fn(lambda t: F.upsample(t, scale_factor=2)))
        record(out, "upsample_linear", None, [r(1, 2, 5)],
               fn(lambda t: F.upsample(t, size=8, mode="linear", align_corners=False)))
        record(out, "upsample_nearest_size", None, [r(1, 2, 3, 4)], fn(lambda t: F.upsample_nearest(t, size=(5, 7))))
        record(out, "upsample_bilinear", None, [r(1, 2, 3, 4)],
               fn(lambda t: F.upsample_bilinear(t, scale_factor=2)))
    # ---- rrelu in eval and the in-place activations (on x * 1, a non-leaf)
    x = r(3, 4) * 2
    record(out, "rrelu_eval", None, [x], fn(lambda t: F.rrelu(t, 0.1, 0.3, training=False)))
    inplace = {
        "relu_": lambda t: F.relu_(t * 1.0),
        "elu_": lambda t: F.elu_(t * 1.0, alpha=0.5),
        "leaky_relu_": lambda t: F.leaky_relu_(t * 1.0, 0.2),
        "hardtanh_": lambda t: F.hardtanh_(t * 1.0, -0.5, 1.5),
        "selu_": lambda t: torch.selu_(t * 1.0),
        "celu_": lambda t: torch.celu_(t * 1.0, alpha=2.0),
        "threshold_": lambda t: F.threshold_(t * 1.0, 0.3, -2.0),
        "rrelu_eval_": lambda t: F.rrelu_(t * 1.0, 0.2, 0.4, training=False),
    }
    for name, f in inplace.items():
        record(out, f"inplace_{name}", None, [x], fn(f))


def layer_cases(out, r):
    record(out, "LocalResponseNorm", nn.LocalResponseNorm(3, alpha=0.01, beta=0.5, k=1.5), [r(2, 5, 3, 4)])
    record(out, "LPPool1d", nn.LPPool1d(2, 3, stride=2), [r(2, 3, 9)])
    record(out, "LPPool2d", nn.LPPool2d(2, (2, 2)), [r(1, 2, 4, 6)])
    record(out, "RReLU_eval", nn.RReLU(0.1, 0.3).eval(), [r(3, 4)])
    record(out, "MultiMarginLoss", nn.MultiMarginLoss(p=2, margin=0.7, weight=torch.rand(5) + 0.5),
           [r(4, 5), torch.tensor([1, 0, 4, 4])])
    record(out, "MultiLabelMarginLoss", nn.MultiLabelMarginLoss(), [r(2, 4), torch.tensor([[3, -1, 0, 0], [0, 1, 2, 3]])])
    record(out, "TripletMarginWithDistanceLoss",
           nn.TripletMarginWithDistanceLoss(distance_function=cosine_distance, margin=0.3, swap=True),
           [r(5, 3), r(5, 3), r(5, 3)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        record(out, "LazyLinear", nn.LazyLinear(3), [r(4, 7)])
        record(out, "LazyLinear_nobias_3d", nn.LazyLinear(2, bias=False), [r(2, 3, 5)])
        record(out, "LazyConv1d", nn.LazyConv1d(4, 3, stride=2, padding=1), [r(2, 3, 9)])
        record(out, "LazyConv2d_groups", nn.LazyConv2d(4, (2, 3), groups=2, padding="same", padding_mode="reflect"),
               [r(2, 4, 5, 6)])
        record(out, "LazyConv2d_unbatched", nn.LazyConv2d(2, 3, bias=False), [r(3, 5, 5)])
        record(out, "LazyConv3d", nn.LazyConv3d(2, 2, dilation=(1, 2, 1)), [r(1, 3, 3, 5, 4)])
    # SyncBatchNorm on one process is BatchNorm over the input's dims (PyTorch's runs on
    # GPUs only): its values are BatchNorm's, under the same state_dict keys.
    record(out, "SyncBatchNorm_train_2d", nn.BatchNorm2d(3, momentum=0.3), [r(4, 3, 2, 3)])
    record(out, "SyncBatchNorm_train_1d_3d_input", nn.BatchNorm1d(3), [r(4, 3, 5)])
    bn = nn.BatchNorm3d(2, affine=False)
    bn.running_mean.fill_(0.5)
    bn.running_var.fill_(2.0)
    record(out, "SyncBatchNorm_eval_5d", bn.eval(), [r(2, 2, 2, 3, 2)])
    record(out, "SyncBatchNorm_untracked", nn.BatchNorm2d(3, track_running_stats=False), [r(4, 3, 2, 2)])
    cumulative = nn.BatchNorm1d(2, momentum=None)
    first = r(5, 2)
    cumulative(first)
    record(out, "SyncBatchNorm_cumulative", cumulative, [r(6, 2)])


def cases():
    torch.manual_seed(0)
    torch.set_default_dtype(torch.float64)
    out = {}
    function_cases(out, torch.randn)
    layer_cases(out, torch.randn)
    return out


if __name__ == "__main__":
    write_safetensors(OUT, cases())
    print(f"{OUT}: {OUT.stat().st_size} bytes")
