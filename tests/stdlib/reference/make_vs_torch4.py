"""Writes vs_torch4.safetensors for the round-4 differential tests against PyTorch 1.13
in f64 (tests/stdlib/test_conv_pool_vs_torch4.dsl, test_norm_loss_vs_torch4.dsl,
test_seq_vs_torch4.dsl, test_ops_vs_torch4.dsl): argument combinations that
make_layers_vs_torch2.py, make_layer_options.py, make_composites.py and the other
reference files leave out. Each case is saved by make_layer_options.record (state_dict,
inputs x<k>, outputs y<k>, upstream gradient g, the gradients of sum(y0 * g) for every
floating input and parameter, and the buffers the forward moved):

- conv_pool_cases: functional conv1d/2d/3d with padding "same"/"valid" and groups,
  the Conv layers' padding_mode with groups, dilation and stride together, non-square
  kernels and bias=False; conv_transpose3d with output_padding, dilation and groups;
  max pools 1-D/3-D with ceil_mode, dilation, padding and indices; avg pools with
  ceil_mode, count_include_pad=False and divisor_override; adaptive pools with None
  entries and sizes that do not divide; max_unpool with output_size; interpolate's
  scales and pad's modes the earlier rounds skip;
- norm_loss_cases: layer_norm over several dims, group_norm with groups=C, batch_norm
  with momentum=None and functional running stats, instance_norm 3-D with running
  stats; the losses on K-d inputs with every reduction, class weights, ignore_index,
  label_smoothing and probability targets, bce's clamps, smooth_l1 beta=0, huber at
  delta, kl_div log_target; embedding with padding_idx and max_norm;
- seq_cases: the cells, LSTM proj_size bidirectional with states, GRU dropout in eval,
  scaled_dot_product_attention (newer than 1.13: its formula in torch ops) with
  is_causal, bool and float masks and scale; TransformerDecoder/Encoder stacks;
- ops_cases: scans through -inf and NaN, sorts with NaN, topk, kthvalue, median, mode;
  the activations with their non-default arguments;
- extra_cases, third_cases and inplace_cases (drawn last, so the earlier inputs stay):
  norms given some affine parameters, losses at zero logits and kinks, NaN and -inf
  through reductions, unfold/fold, distances with other p, dropout's identities, and
  inplace=True of the activations and layers.

    /usr/bin/python3 tests/stdlib/reference/make_vs_torch4.py
"""
import pathlib
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = pathlib.Path(__file__).parent
sys.path.insert(0, str(HERE.parents[2] / "scripts" / "reference"))
sys.path.insert(0, str(HERE))
from safetensors_file import write_safetensors  # noqa: E402
from make_layer_options import fn, record  # noqa: E402
from torch_definitions import sdpa  # noqa: E402

OUT = HERE / "vs_torch4.safetensors"


def conv_pool_cases(out):
    r = torch.randn
    # ---- functional convolutions with padding strings, groups, dilation, stride
    record(out, "conv2d_same_groups_dil", None, [r(2, 4, 6, 7), r(6, 2, 3, 4), r(6)],
           fn(lambda x, w, b: F.conv2d(x, w, b, padding="same", dilation=(2, 1), groups=2)))
    record(out, "conv2d_valid_stride", None, [r(1, 3, 7, 6), r(2, 3, 2, 3)],
           fn(lambda x, w: F.conv2d(x, w, stride=(2, 1), padding="valid")))
    record(out, "conv1d_same_even", None, [r(2, 2, 9), r(4, 1, 4), r(4)],
           fn(lambda x, w, b: F.conv1d(x, w, b, padding="same", groups=2)))
    record(out, "conv3d_same_groups", None, [r(1, 4, 4, 5, 3), r(2, 2, 2, 3, 1), r(2)],
           fn(lambda x, w, b: F.conv3d(x, w, b, padding="same", groups=2, dilation=(1, 1, 2))))
    record(out, "conv2d_nonsquare_all", None, [r(2, 3, 7, 9), r(6, 1, 2, 3), r(6)],
           fn(lambda x, w, b: F.conv2d(x, w, b, stride=(1, 3), padding=(2, 0), dilation=(1, 2), groups=3)))
    record(out, "conv1d_unbatched_fn", None, [r(4, 8), r(2, 2, 3)],
           fn(lambda x, w: F.conv1d(x, w, stride=2, padding=1, dilation=2, groups=2)))
    # ---- the Conv layers: padding_mode with groups, dilation, stride; bias=False
    record(out, "conv2d_circular_all", nn.Conv2d(4, 6, (3, 2), stride=(2, 1), padding=(2, 1), dilation=(2, 1),
                                                 groups=2, padding_mode="circular", bias=False), [r(2, 4, 6, 5)])
    record(out, "conv2d_reflect_all", nn.Conv2d(2, 4, (2, 3), stride=2, padding=(1, 2), dilation=(1, 2), groups=2,
                                                padding_mode="reflect"), [r(1, 2, 5, 7)])
    record(out, "conv1d_circular_depthwise", nn.Conv1d(4, 4, 3, stride=2, padding=3, dilation=2, groups=4,
                                                       padding_mode="circular"), [r(2, 4, 7)])
    record(out, "conv3d_replicate_groups", nn.Conv3d(2, 4, (1, 2, 3), stride=(1, 2, 1), padding=(0, 1, 1), groups=2,
                                                     padding_mode="replicate", bias=False), [r(1, 2, 3, 5, 4)])
    record(out, "conv2d_same_replicate_nobias", nn.Conv2d(3, 3, (2, 4), padding="same", dilation=(3, 1), groups=3,
                                                          padding_mode="replicate", bias=False), [r(2, 3, 5, 6)])
    record(out, "conv2d_reflect_unbatched", nn.Conv2d(2, 2, 3, padding=1, padding_mode="reflect", stride=(1, 2)),
           [r(2, 4, 5)])
    # ---- transposed convolutions
    record(out, "conv_t3d_all", None, [r(1, 4, 3, 2, 3), r(4, 1, 2, 3, 2), r(2)],
           fn(lambda x, w, b: F.conv_transpose3d(x, w, b, stride=(2, 1, 2), padding=(1, 0, 1), output_padding=(1, 0, 1),
                                                 groups=2, dilation=(1, 2, 2))))
    record(out, "conv_t2d_module_nobias", nn.ConvTranspose2d(3, 6, (3, 2), stride=(3, 2), padding=(1, 0),
                                                             output_padding=(2, 1), groups=3, dilation=(1, 2),
                                                             bias=False), [r(2, 3, 3, 4)])
    record(out, "conv_t3d_module_outpad", nn.ConvTranspose3d(2, 4, 2, stride=2, output_padding=1, groups=2),
           [r(1, 2, 2, 3, 2)])
    record(out, "conv_t1d_unbatched_fn", None, [r(4, 5), r(4, 1, 3), r(2)],
           fn(lambda x, w, b: F.conv_transpose1d(x, w, b, stride=2, padding=1, output_padding=1, groups=2)))
    # ---- max pools
    record(out, "max_pool3d_all", None, [r(1, 2, 5, 6, 5)],
           fn(lambda x: F.max_pool3d(x, (3, 2, 2), stride=(2, 1, 2), padding=1, dilation=(1, 2, 1), ceil_mode=True,
                                     return_indices=True)))
    record(out, "max_pool1d_unbatched_ceil", None, [r(3, 8)],
           fn(lambda x: F.max_pool1d(x, 3, stride=2, padding=1, ceil_mode=True, return_indices=True)))
    record(out, "max_pool2d_layer_dil", nn.MaxPool2d((2, 3), stride=(1, 2), padding=(1, 1), dilation=(3, 1),
                                                     return_indices=True), [r(2, 2, 6, 7)])
    record(out, "max_pool3d_layer_unbatched", nn.MaxPool3d(2, stride=(2, 1, 2), padding=(1, 0, 1), ceil_mode=True),
           [r(2, 3, 4, 5)])
    # ---- avg pools
    record(out, "avg_pool1d_ceil_nopad", None, [r(2, 3, 8)],
           fn(lambda x: F.avg_pool1d(x, 4, stride=3, padding=2, ceil_mode=True, count_include_pad=False)))
    record(out, "avg_pool2d_divisor", None, [r(1, 2, 6, 5)],
           fn(lambda x: F.avg_pool2d(x, 3, stride=2, padding=1, divisor_override=5)))
    record(out, "avg_pool2d_divisor_ceil", None, [r(2, 1, 5, 7)],
           fn(lambda x: F.avg_pool2d(x, (2, 3), stride=2, padding=(1, 0), ceil_mode=True, count_include_pad=False,
                                     divisor_override=4)))
    record(out, "avg_pool2d_layer_divisor", nn.AvgPool2d((3, 2), stride=(2, 1), divisor_override=2), [r(1, 3, 7, 4)])
    record(out, "avg_pool3d_layer_divisor", nn.AvgPool3d(2, stride=(1, 2, 2), padding=1, ceil_mode=True,
                                                         divisor_override=3), [r(1, 2, 3, 5, 4)])
    record(out, "avg_pool3d_ceil_incl", None, [r(1, 2, 5, 4, 6)],
           fn(lambda x: F.avg_pool3d(x, (3, 2, 3), stride=2, padding=1, ceil_mode=True)))
    record(out, "avg_pool2d_unbatched", None, [r(2, 5, 5)],
           fn(lambda x: F.avg_pool2d(x, 2, stride=2, padding=1, ceil_mode=True, count_include_pad=False)))
    # ---- adaptive pools
    record(out, "adaptive_avg1d_up", None, [r(2, 3, 3)], fn(lambda x: F.adaptive_avg_pool1d(x, 7)))
    record(out, "adaptive_max2d_none", None, [r(1, 2, 5, 7)],
           fn(lambda x: F.adaptive_max_pool2d(x, (None, 3), return_indices=True)))
    record(out, "adaptive_avg2d_none", None, [r(2, 2, 7, 5)], fn(lambda x: F.adaptive_avg_pool2d(x, (4, None))))
    record(out, "adaptive_avg3d_nondiv", None, [r(1, 2, 5, 4, 7)],
           fn(lambda x: F.adaptive_avg_pool3d(x, (3, None, 2))))
    record(out, "adaptive_max3d_nondiv", None, [r(1, 2, 5, 4, 7)],
           fn(lambda x: F.adaptive_max_pool3d(x, (2, 3, None), return_indices=True)))
    record(out, "adaptive_max2d_unbatched", None, [r(3, 5, 6)], fn(lambda x: F.adaptive_max_pool2d(x, (2, 4))))
    record(out, "adaptive_avg2d_layer_none", nn.AdaptiveAvgPool2d((None, 2)), [r(3, 4, 5)])
    v, i = F.max_pool2d(r(1, 2, 5, 5), 2, stride=2, return_indices=True)
    record(out, "max_unpool2d_output_size", None, [v.detach(), i],
           fn(lambda v, i: F.max_unpool2d(v, i, 2, stride=2, output_size=(5, 5))))
    v, i = F.max_pool1d(r(2, 2, 9), 3, stride=2, padding=1, return_indices=True)
    record(out, "max_unpool1d_layer_pad", nn.MaxUnpool1d(3, stride=2, padding=1), [v.detach(), i],
           lambda m, v, i: m(v, i, output_size=[9]))
    # ---- interpolate
    x2, x1, x3 = r(1, 2, 5, 4), r(2, 3, 5), r(1, 2, 3, 4, 2)
    interp = [
        ("bicubic_0_6", x2, dict(scale_factor=0.6, mode="bicubic", align_corners=False)),
        ("bicubic_1_7_ac", x2, dict(scale_factor=1.7, mode="bicubic", align_corners=True)),
        ("bilinear_0_6_ac", x2, dict(scale_factor=(0.6, 1.7), mode="bilinear", align_corners=True)),
        ("trilinear_1_7_ac", x3, dict(scale_factor=1.7, mode="trilinear", align_corners=True)),
        ("trilinear_0_6", x3, dict(scale_factor=(0.6, 1.3, 2.5), mode="trilinear")),
        ("area_scale", x2, dict(scale_factor=0.5, mode="area")),
        ("area_up", x1, dict(size=8, mode="area")),
        ("nearest_exact_0_6", x2, dict(scale_factor=(0.6, 1.7), mode="nearest-exact")),
        ("linear_2_5", x1, dict(scale_factor=2.5, mode="linear")),
        ("bicubic_recompute", x2, dict(scale_factor=(1.3, 0.7), mode="bicubic", recompute_scale_factor=True)),
    ]
    for name, x, kw in interp:
        record(out, "interp_" + name, None, [x], fn(lambda t, kw=kw: F.interpolate(t, **kw)))
    # ---- pad
    x4, x5 = r(2, 3, 4, 5), r(1, 2, 3, 4, 3)
    pads = [
        ("reflect_unbatched2d", r(2, 4, 5), (1, 2, 3, 1), "reflect", None),
        ("circular4d_neg", r(1, 2, 3, 4), (2, 1, -1, 2), "circular", None),
        ("replicate_unbatched1d", r(3, 4), (-1, 3), "replicate", None),
        ("const_4dims", x5, (1, -1, 0, 2, 1, 1, 2, 0), "constant", 2.0),
        ("const_all_neg", x4, (-1, -2, -1, 0), "constant", 1.0),
        ("replicate5d_neg", x5, (-1, 2, 1, -1, 2, 0), "replicate", None),
        ("reflect5d_neg", x5, (2, -1, -1, 3, 0, 1), "reflect", None),
        ("circular4d_asym", x4, (3, 0, 0, 2), "circular", None),
    ]
    for name, x, p, mode, value in pads:
        kw = dict(mode=mode) if value is None else dict(mode=mode, value=value)
        record(out, "pad_" + name, None, [x], fn(lambda t, p=p, kw=kw: F.pad(t, p, **kw)))


def norm_loss_cases(out):
    r = torch.randn
    t = torch.tensor
    # ---- norms
    record(out, "layer_norm_3dims_plain", None, [r(2, 3, 4, 5)], fn(lambda x: F.layer_norm(x, (3, 4, 5), eps=1e-3)))
    record(out, "layer_norm_fn_affine", None, [r(3, 2, 4, 5), r(4, 5), r(4, 5)],
           fn(lambda x, w, b: F.layer_norm(x, (4, 5), w, b)))
    record(out, "layer_norm_layer_plain", nn.LayerNorm([2, 3], elementwise_affine=False, eps=1e-2), [r(4, 2, 3)])
    record(out, "group_norm_per_channel", nn.GroupNorm(4, 4), [r(2, 4, 3, 3)])
    record(out, "group_norm_fn_1group", None, [r(2, 6, 5), r(6), r(6)],
           fn(lambda x, w, b: F.group_norm(x, 1, w, b, eps=1e-3)))
    record(out, "group_norm_fn_plain", None, [r(3, 4, 2, 3)], fn(lambda x: F.group_norm(x, 2)))
    m = nn.BatchNorm1d(3, momentum=None)
    with torch.no_grad():
        m.running_mean.copy_(t([0.5, -1.0, 2.0]))
        m.running_var.copy_(t([2.0, 0.5, 1.5]))
        m.num_batches_tracked.fill_(3)
    record(out, "batch_norm_cumulative", m, [r(4, 3, 5)])
    m = nn.BatchNorm2d(3, affine=False)
    with torch.no_grad():
        m.running_mean.copy_(t([0.5, -1.0, 2.0]))
        m.running_var.copy_(t([2.0, 0.5, 1.5]))
    record(out, "batch_norm_eval_plain", m.eval(), [r(2, 3, 2, 4)])
    record(out, "batch_norm_untracked", nn.BatchNorm1d(4, track_running_stats=False, momentum=0.5), [r(6, 4)])

    def bn_train(x, w, b):
        rm, rv = t([0.1, 0.2, -0.3]), t([1.0, 2.0, 0.5])
        return F.batch_norm(x, rm, rv, w, b, True, 0.3, 1e-3), rm, rv
    record(out, "batch_norm_fn_train", None, [r(4, 3, 2), r(3), r(3)], fn(bn_train))
    record(out, "batch_norm_fn_eval", None, [r(4, 3, 2), t([0.1, 0.2, -0.3]), t([1.0, 2.0, 0.5])],
           fn(lambda x, rm, rv: F.batch_norm(x, rm.detach(), rv.detach(), training=False, eps=1e-2)))
    record(out, "instance3d_track_momentum", nn.InstanceNorm3d(2, affine=True, track_running_stats=True,
                                                               momentum=0.4), [r(2, 2, 3, 2, 3)])

    def in_fn(x, w, b):
        rm, rv = t([0.1, -0.2]), t([1.5, 0.5])
        return F.instance_norm(x, rm, rv, w, b, use_input_stats=True, momentum=0.25), rm, rv
    record(out, "instance_norm_fn_stats", None, [r(3, 2, 5), r(2), r(2)], fn(in_fn))
    # ---- classification losses on K-d inputs
    w3 = t([0.5, 2.0, 1.0])
    tgt = t([[[0, 2, 1], [1, 1, 0]], [[2, 2, 0], [0, 1, 2]]])  # [N=2, 2, 3]
    out["w3"] = w3
    for red in ["mean", "sum", "none"]:
        record(out, f"ce_kd_{red}", None, [r(2, 3, 2, 3), tgt],
               fn(lambda x, y, red=red: F.cross_entropy(x, y, weight=w3, ignore_index=1, label_smoothing=0.15,
                                                        reduction=red)))
        record(out, f"nll_kd_{red}", None, [torch.log_softmax(r(2, 3, 2, 3), 1), tgt],
               fn(lambda x, y, red=red: F.nll_loss(x, y, weight=w3, ignore_index=2, reduction=red)))
    record(out, "ce_probs_kd_smooth", None, [r(2, 3, 4), torch.softmax(r(2, 3, 4), 1)],
           fn(lambda x, p: F.cross_entropy(x, p.detach(), weight=w3, label_smoothing=0.2)))
    record(out, "ce_probs_sum", None, [r(4, 3), torch.softmax(r(4, 3), 1)],
           fn(lambda x, p: F.cross_entropy(x, p.detach(), reduction="sum", label_smoothing=0.3)))
    record(out, "ce_unbatched", None, [r(5), t(3)], fn(lambda x, y: F.cross_entropy(x, y, label_smoothing=0.1)))
    record(out, "ce_smooth_ignore_none", None, [r(4, 3), t([0, -100, 2, 1])],
           fn(lambda x, y: F.cross_entropy(x, y, label_smoothing=0.25, reduction="none")))
    record(out, "nll_1d_input", None, [torch.log_softmax(r(4), 0), t(2)], fn(lambda x, y: F.nll_loss(x, y)))
    record(out, "ce_layer_kd", nn.CrossEntropyLoss(weight=w3, ignore_index=0, label_smoothing=0.1, reduction="sum"),
           [r(2, 3, 4), t([[0, 1, 2, 2], [1, 0, 0, 2]])])
    # ---- binary losses
    record(out, "bce_logits_pos_weight_bcast", None, [r(2, 3, 4) * 3, torch.rand(2, 3, 4), r(4).abs() + 0.2,
                                                      torch.rand(3, 1)],
           fn(lambda x, y, pw, w: F.binary_cross_entropy_with_logits(x, y.detach(), weight=w.detach(),
                                                                     pos_weight=pw.detach(), reduction="none")))
    record(out, "bce_logits_mean_big", None, [t([-200.0, -30.0, 0.0, 30.0, 200.0]), t([0.0, 1.0, 0.5, 0.0, 1.0])],
           fn(lambda x, y: F.binary_cross_entropy_with_logits(x, y.detach(), pos_weight=t([3.0]))))
    record(out, "bce_clamped_log", None, [t([1e-60, 0.3, 0.999, 0.5]), t([1.0, 0.0, 0.0, 0.25])],
           fn(lambda p, y: F.binary_cross_entropy(p, y.detach(), reduction="sum")))
    # ---- regression losses at their kinks
    d = t([[0.0, 0.5, -0.5, 2.0], [-2.0, 1.0, 3.0, -0.25]])
    zero = torch.zeros(2, 4)
    # beta=0 is l1_loss, but PyTorch 1.13's smooth_l1 backward takes its x <= -beta
    # branch at x == 0 (gradient -1, where l1_loss's and nabla's is 0): no zero diff here
    d_nz = d.clone()
    d_nz[0, 0] = 0.75
    record(out, "smooth_l1_beta0", None, [d_nz, zero], fn(lambda x, y: F.smooth_l1_loss(x, y, beta=0.0)))
    record(out, "smooth_l1_beta2_sum", None, [d, zero], fn(lambda x, y: F.smooth_l1_loss(x, y, beta=2.0,
                                                                                         reduction="sum")))
    record(out, "huber_delta2_none", None, [d, zero], fn(lambda x, y: F.huber_loss(x, y, delta=2.0, reduction="none")))
    record(out, "huber_layer_mean", nn.HuberLoss(delta=0.5), [d, r(2, 4)])
    record(out, "smooth_l1_layer_none", nn.SmoothL1Loss(beta=0.5, reduction="none"), [d, r(2, 4)])
    record(out, "l1_sum_kink", None, [d, zero], fn(lambda x, y: F.l1_loss(x, y, reduction="sum")))
    record(out, "mse_none", None, [r(3, 2), r(3, 2)], fn(lambda x, y: F.mse_loss(x, y, reduction="none")))
    # ---- kl_div
    lp = torch.log_softmax(r(3, 4), 1)
    q = torch.softmax(r(3, 4), 1)
    q0 = q.clone()
    q0[0, 1] = 0.0
    record(out, "kl_div_log_target_batchmean", None, [lp, torch.log(q)],
           fn(lambda x, y: F.kl_div(x, y, reduction="batchmean", log_target=True)))
    record(out, "kl_div_zero_target_sum", None, [lp, q0], fn(lambda x, y: F.kl_div(x, y.detach(), reduction="sum")))
    record(out, "kl_div_none", None, [lp, q], fn(lambda x, y: F.kl_div(x, y, reduction="none")))
    record(out, "kl_div_layer_log_target", nn.KLDivLoss(reduction="mean", log_target=True), [lp, torch.log(q)])
    # ---- margin losses with their other reductions
    y6 = t([1.0, -1.0, 1.0, 1.0, -1.0, -1.0])
    record(out, "margin_ranking_none", None, [r(6), r(6), y6],
           fn(lambda a, b, y: F.margin_ranking_loss(a, b, y.detach(), margin=0.2, reduction="none")))
    record(out, "hinge_embedding_sum", None, [r(6), y6],
           fn(lambda a, y: F.hinge_embedding_loss(a, y.detach(), margin=1.5, reduction="sum")))
    record(out, "cosine_embedding_unbatched", None, [r(5), r(5), t(-1.0)],
           fn(lambda a, b, y: F.cosine_embedding_loss(a, b, y.detach(), margin=-0.5)))
    record(out, "cosine_embedding_none", None, [r(4, 3), r(4, 3), t([1.0, -1.0, -1.0, 1.0])],
           fn(lambda a, b, y: F.cosine_embedding_loss(a, b, y.detach(), margin=0.2, reduction="none")))
    record(out, "soft_margin_none", None, [r(2, 3), t([[1.0, -1.0, 1.0], [-1.0, -1.0, 1.0]])],
           fn(lambda a, y: F.soft_margin_loss(a, y.detach(), reduction="none")))
    record(out, "multilabel_soft_margin_weight", None, [r(3, 4), (torch.rand(3, 4) > 0.5).double(), torch.rand(4)],
           fn(lambda a, y, w: F.multilabel_soft_margin_loss(a, y.detach(), weight=w.detach(), reduction="none")))
    record(out, "triplet_p1_none", None, [r(4, 3), r(4, 3), r(4, 3)],
           fn(lambda a, p, n: F.triplet_margin_loss(a, p, n, margin=0.7, p=1.0, reduction="none")))
    record(out, "poisson_rate_full", None, [torch.rand(5) + 0.1, t([0.0, 1.0, 2.0, 3.0, 7.0])],
           fn(lambda x, y: F.poisson_nll_loss(x, y.detach(), log_input=False, full=True, reduction="sum")))
    record(out, "gaussian_nll_bcast_var", None, [r(4, 3), r(4, 3), torch.rand(4, 1) + 0.1],
           fn(lambda x, y, v: F.gaussian_nll_loss(x, y, v, reduction="sum", eps=1e-3)))
    # ---- embedding
    w = r(7, 3)
    ids = t([[1, 3, 6], [3, 0, 1]])
    record(out, "embedding_fn_padding", None, [ids, w], fn(lambda i, w: F.embedding(i, w, padding_idx=3)))
    record(out, "embedding_fn_neg_padding", None, [ids, w], fn(lambda i, w: F.embedding(i, w, padding_idx=-1)))

    def emb_max_norm(i, w):
        w2 = w.detach().clone() * 2
        y = F.embedding(i, w2, max_norm=1.2, norm_type=3.0)
        return y, w2
    record(out, "embedding_fn_max_norm", None, [ids, w], fn(emb_max_norm))
    record(out, "embedding_layer_pad_max_norm", nn.Embedding(7, 3, padding_idx=-2, max_norm=0.8),
           [t([[5, 2, 5], [0, 6, 5]])])


def seq_cases(out):
    r = torch.randn
    # ---- the cells batched with states; LSTM proj_size bidirectional with states
    record(out, "rnncell_relu_h", nn.RNNCell(3, 4, nonlinearity="relu"), [r(2, 3), r(2, 4)])
    record(out, "lstmcell_batched_hc", nn.LSTMCell(3, 4), [r(2, 3), r(2, 4), r(2, 4)],
           lambda m, x, h, c: torch.cat(m(x, (h, c)), 1))
    record(out, "grucell_batched_nobias_h", nn.GRUCell(3, 4, bias=False), [r(2, 3), r(2, 4)])
    flat = lambda res: (torch.cat([res[0].reshape(-1)] + [s.reshape(-1) for s in res[1]]), res[0])  # noqa: E731
    record(out, "lstm_proj_bi_bf_hc", nn.LSTM(3, 5, num_layers=2, proj_size=2, bidirectional=True, batch_first=True),
           [r(2, 4, 3), r(4, 2, 2), r(4, 2, 5)], lambda m, x, h, c: flat(m(x, (h, c))))
    record(out, "gru_dropout_eval", nn.GRU(3, 4, num_layers=3, dropout=0.5).eval(), [r(5, 2, 3), r(3, 2, 4)],
           lambda m, x, h: (torch.cat([m(x, h)[0].reshape(-1), m(x, h)[1].reshape(-1)]),))
    record(out, "lstm_dropout_eval_unbatched", nn.LSTM(3, 4, num_layers=2, dropout=0.3, bidirectional=True).eval(),
           [r(5, 3)], lambda m, x: flat(m(x)))
    # ---- scaled_dot_product_attention (PyTorch >= 2.0): its definition in torch ops
    q, k, v = r(2, 3, 4, 5), r(2, 3, 6, 5), r(2, 3, 6, 2)
    bmask = torch.rand(4, 6) > 0.3
    bmask[:, 0] = True
    out["sdpa_bool_mask"] = bmask
    record(out, "sdpa_causal_rect", None, [q, k, v], fn(lambda q, k, v: sdpa(q, k, v, is_causal=True)))
    record(out, "sdpa_causal_square", None, [q, r(2, 3, 4, 5), r(2, 3, 4, 3)],
           fn(lambda q, k, v: sdpa(q, k, v, is_causal=True)))
    record(out, "sdpa_bool_bcast", None, [q, k, v], fn(lambda q, k, v: sdpa(q, k, v, mask=bmask)))
    record(out, "sdpa_float_bcast_scale", None, [q, k, v, r(4, 6)],
           fn(lambda q, k, v, m: sdpa(q, k, v, mask=m, scale=0.3)))
    record(out, "sdpa_3d_float_head_mask", None, [r(2, 4, 5), r(2, 6, 5), r(2, 6, 3), r(2, 1, 6)],
           fn(lambda q, k, v, m: sdpa(q, k, v, mask=m)))
    # ---- MultiheadAttention: batch_first, need_weights=False with a float mask
    record(out, "mha_bf_float_mask_no_weights", nn.MultiheadAttention(6, 3, batch_first=True),
           [r(2, 4, 6), r(2, 5, 6), r(4, 5)], lambda m, q, kv, am: m(q, kv, kv, attn_mask=am, need_weights=False)[:1])
    record(out, "mha_weights_per_head_bias_kv", nn.MultiheadAttention(6, 2, add_bias_kv=True, batch_first=True),
           [r(2, 3, 6), r(2, 5, 6), r(2, 5, 6)], lambda m, q, k, v: m(q, k, v, average_attn_weights=False))
    # ---- transformer stacks
    causal = nn.Transformer.generate_square_subsequent_mask(4)
    out["causal4"] = causal
    record(out, "decoder_stack_norm_first_unbatched", nn.TransformerDecoder(
        nn.TransformerDecoderLayer(6, 2, 10, dropout=0.0, norm_first=True, activation="gelu"), 3,
        norm=nn.LayerNorm(6, eps=1e-4)), [r(4, 6), r(5, 6)], lambda m, t, mem: m(t, mem, tgt_mask=causal))
    record(out, "encoder_stack_bf_float_mask", nn.TransformerEncoder(
        nn.TransformerEncoderLayer(6, 3, 8, dropout=0.0, batch_first=True), 2), [r(2, 4, 6), r(4, 4)],
        lambda m, x, am: m(x, mask=am))
    record(out, "transformer_bf_tgt_mask", nn.Transformer(6, 2, 1, 2, 8, dropout=0.0, batch_first=True),
           [r(2, 5, 6), r(2, 4, 6)], lambda m, s, tg: m(s, tg, tgt_mask=causal))


def ops_cases(out):
    t = torch.tensor
    inf, nan = float("inf"), float("nan")
    r = torch.randn
    z3 = t([[[1.5, 0.0, 2.0], [0.0, 2.0, -1.0], [0.5, -2.0, 0.0], [3.0, 1.0, 2.0]],
            [[0.0, 0.0, 1.0], [2.0, 0.5, 1.0], [1.0, 3.0, -0.5], [0.0, 1.0, 1.0]]])
    record(out, "cumprod_zeros_mid_dim", None, [z3], fn(lambda x: torch.cumprod(x, 1)))
    record(out, "cumsum_neg_dim", None, [z3], fn(lambda x: torch.cumsum(x, -1)))
    record(out, "logcumsumexp_inf", None, [t([[-inf, 1000.0, -1000.0, 0.0, -inf], [0.5, -inf, 2.0, 2.0, -3.0]])],
           fn(lambda x: torch.logcumsumexp(x, 1)))
    record(out, "logcumsumexp_dim0", None, [r(4, 3)], fn(lambda x: torch.logcumsumexp(x, 0)))
    nanrow = t([[1.0, nan, 0.5, 2.0, 3.0], [2.0, 1.0, 1.0, nan, 0.0]])
    record(out, "cummax_nan", None, [nanrow], fn(lambda x: torch.cummax(x, 1)))
    record(out, "cummin_nan", None, [nanrow], fn(lambda x: torch.cummin(x, 1)))
    sortme = t([[2.0, nan, -inf, 1.0, inf, 1.0, nan, 0.0], [0.0, -0.5, 3.0, 3.0, -inf, nan, 1.0, 2.0]])
    record(out, "sort_nan_desc_stable", None, [sortme], fn(lambda x: torch.sort(x, dim=1, descending=True, stable=True)))
    record(out, "sort_nan_asc_stable", None, [sortme], fn(lambda x: torch.sort(x, dim=1, stable=True)))
    record(out, "argsort_nan_dim0", None, [sortme.T.contiguous()],
           fn(lambda x: torch.argsort(x.detach(), dim=0, stable=True)))
    distinct = t([[0.3, -1.2, 2.5, 0.7, -0.1], [1.1, 0.2, -2.0, 3.3, 0.9], [-0.4, 1.6, 0.8, -1.5, 2.2]])
    record(out, "topk_smallest_dim0", None, [distinct], fn(lambda x: torch.topk(x, 2, 0, largest=False)))
    record(out, "topk_nan_largest", None, [t([[1.0, nan, 3.0, 2.0], [0.5, 4.0, -1.0, 1.0]])],
           fn(lambda x: torch.topk(x, 2)))
    record(out, "kthvalue_dim0_keepdim", None, [distinct], fn(lambda x: torch.kthvalue(x, 2, 0, keepdim=True)))
    record(out, "kthvalue_last", None, [distinct], fn(lambda x: torch.kthvalue(x, 5)))
    record(out, "median_nan_dim", None, [t([[1.0, nan, 0.5, 2.0], [2.0, 1.0, 3.0, 0.0]])],
           fn(lambda x: torch.median(x, 1)))
    record(out, "median_all_even", None, [t([[4.0, 1.0, 3.0], [2.0, 6.0, 5.0]])], fn(lambda x: torch.median(x)))
    record(out, "nanmedian_dim", None, [t([[1.0, nan, 0.5, 2.0], [nan, nan, 3.0, 0.0]])],
           fn(lambda x: torch.nanmedian(x, 1)))
    record(out, "mode_ties_dim0", None, [t([[1.0, 2.0, 5.0], [3.0, 2.0, 5.0], [3.0, 1.0, 4.0], [1.0, 1.0, 4.0]])],
           fn(lambda x: torch.mode(x, 0)[0]))
    # ---- activations with their non-default arguments
    k = t([-1000.0, -20.0, -3.0, -2.0, -1.0, -0.5, 0.0, 0.25, 0.5, 1.0, 2.0, 2.5, 5.0, 30.0])
    acts = {
        "elu_alpha2": lambda x: F.elu(x, alpha=2.0),
        "celu_alpha2": lambda x: F.celu(x, alpha=2.0),
        "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
        "gelu": F.gelu,
        "softplus_half_5": lambda x: F.softplus(x, beta=0.5, threshold=5.0),
        "hardtanh_asym": lambda x: F.hardtanh(x, min_val=-2.0, max_val=0.5),
        "rrelu_eval": lambda x: F.rrelu(x, lower=0.1, upper=0.5, training=False),
        "threshold_up": lambda x: F.threshold(x, 1.0, 5.0),
        "logsigmoid": F.logsigmoid,
        "leaky_relu_neg": lambda x: F.leaky_relu(x, -0.5),
        "silu": F.silu,
        "mish": F.mish,
        "softsign": F.softsign,
        "tanhshrink": F.tanhshrink,
        "sigmoid": torch.sigmoid,
        "relu6": F.relu6,
    }
    for name, f in acts.items():
        record(out, "act_" + name, None, [k], fn(f))
    m3 = r(4, 6, 2)
    record(out, "glu_dim0", None, [m3], fn(lambda x: F.glu(x, 0)))
    record(out, "glu_dim1", None, [m3], fn(lambda x: F.glu(x, 1)))
    record(out, "softmin_dim0", None, [m3], fn(lambda x: F.softmin(x, 0)))
    record(out, "log_softmax_dim1", None, [m3], fn(lambda x: F.log_softmax(x, 1)))
    record(out, "softmax_neg_inf", None, [t([[0.0, -inf, 1.0], [-inf, 2.0, -inf]])], fn(lambda x: F.softmax(x, 1)))
    record(out, "log_softmax_dtype", None, [r(3, 4).float()], fn(lambda x: F.log_softmax(x, 1, dtype=torch.float64)))
    record(out, "prelu_channels", None, [r(2, 3, 4), t([0.1, -0.2, 0.5])], fn(lambda x, w: F.prelu(x, w)))
    record(out, "prelu_layer_channels", nn.PReLU(3, init=0.3), [r(2, 3, 2, 2)])
    record(out, "softplus_layer", nn.Softplus(beta=3.0, threshold=2.0), [k])
    record(out, "elu_layer", nn.ELU(alpha=0.3), [k])
    record(out, "hardtanh_layer", nn.Hardtanh(-0.5, 3.0), [k])
    record(out, "celu_layer", nn.CELU(1.5), [k])
    record(out, "rrelu_layer_eval", nn.RReLU(0.2, 0.4).eval(), [k])
    record(out, "logsoftmax_layer", nn.LogSoftmax(dim=0), [m3])
    record(out, "softmin_layer", nn.Softmin(dim=1), [m3])


def extra_cases(out):
    """The second batch (drawn after the others, so their inputs stay as they were)."""
    r = torch.randn
    t = torch.tensor
    inf, nan = float("inf"), float("nan")
    # ---- norms with some of their affine parameters
    record(out, "layer_norm_weight_only", None, [r(3, 2, 5), r(5)], fn(lambda x, w: F.layer_norm(x, (5,), w)))
    record(out, "group_norm_2d_input", nn.GroupNorm(2, 4), [r(3, 4)])
    record(out, "batch_norm_fn_weight_only", None, [r(5, 3), r(3)],
           fn(lambda x, w: F.batch_norm(x, None, None, w, training=True)))
    record(out, "instance_norm_fn_running", None, [r(2, 3, 4), t([0.1, -0.2, 0.3]), t([1.5, 0.5, 2.0])],
           fn(lambda x, rm, rv: F.instance_norm(x, rm.detach(), rv.detach(), use_input_stats=False)))
    # ---- losses at zero logits (a zero-initialized head) and at their kinks
    z = t([[0.0, 0.0, 1.5], [-2.0, 0.0, 0.5]])
    y01 = t([[0.0, 1.0, 1.0], [0.3, 0.5, 0.0]])
    record(out, "bce_logits_zero_weight", None, [z, y01, t([0.5, 1.0, 2.0])],
           fn(lambda x, y, w: F.binary_cross_entropy_with_logits(x, y.detach(), weight=w.detach())))
    record(out, "bce_logits_zero_pos_weight_none", None, [z, y01, t([1.0, 3.0, 0.5])],
           fn(lambda x, y, pw: F.binary_cross_entropy_with_logits(x, y.detach(), pos_weight=pw.detach(),
                                                                  reduction="none")))
    pm = t([[1.0, -1.0, 1.0], [-1.0, 1.0, -1.0]])
    record(out, "soft_margin_zero", None, [z, pm], fn(lambda x, y: F.soft_margin_loss(x, y.detach())))
    record(out, "multilabel_soft_margin_zero", None, [z, (y01 > 0.4).double()],
           fn(lambda x, y: F.multilabel_soft_margin_loss(x, y.detach())))
    record(out, "hinge_embedding_kink", None, [t([1.5, 0.5, 2.0, 1.0]), t([-1.0, -1.0, 1.0, -1.0])],
           fn(lambda x, y: F.hinge_embedding_loss(x, y.detach(), margin=1.5, reduction="none")))
    record(out, "margin_ranking_kink", None, [t([1.0, 0.5, 2.0]), t([0.5, 1.0, 2.0]), t([1.0, -1.0, 1.0])],
           fn(lambda a, b, y: F.margin_ranking_loss(a, b, y.detach(), margin=0.5, reduction="sum")))
    record(out, "triplet_swap_p1", None, [r(4, 3), r(4, 3), r(4, 3)],
           fn(lambda a, p, n: F.triplet_margin_loss(a, p, n, margin=0.3, p=1.0, swap=True, reduction="sum")))
    record(out, "poisson_log_full", None, [r(5), t([0.0, 1.0, 2.0, 3.0, 6.0])],
           fn(lambda x, y: F.poisson_nll_loss(x, y.detach(), full=True, reduction="none")))
    record(out, "kl_div_3d_batchmean", None, [torch.log_softmax(r(2, 3, 4), 1), torch.softmax(r(2, 3, 4), 1)],
           fn(lambda x, y: F.kl_div(x, y, reduction="batchmean")))
    record(out, "ce_probs_kd_none", None, [r(2, 3, 2, 2), torch.softmax(r(2, 3, 2, 2), 1)],
           fn(lambda x, p: F.cross_entropy(x, p.detach(), weight=t([0.5, 2.0, 1.0]), label_smoothing=0.1,
                                           reduction="none")))
    # ---- ops through -inf and NaN
    ninf = t([[-inf, -inf, -inf], [0.0, -inf, 1.0], [2.0, 1.0, 0.5]])
    record(out, "logsumexp_neg_inf", None, [ninf], fn(lambda x: torch.logsumexp(x, 1)))
    record(out, "softmax_neg_inf_rows", None, [ninf], fn(lambda x: torch.softmax(x, 1)))
    record(out, "log_softmax_neg_inf", None, [ninf[1:]], fn(lambda x: torch.log_softmax(x, 1)))
    nanm = t([[1.0, nan, 3.0], [2.0, 5.0, 5.0], [nan, 0.0, nan]])
    record(out, "max_dim_nan", None, [nanm], fn(lambda x: torch.max(x, 1)))
    # amax's gradient where the max is NaN: PyTorch 1.13 divides by a count of 0
    # (NaN over the whole slice), nabla's is 0: the values only
    record(out, "amax_nan", None, [nanm], fn(lambda x: torch.amax(x.detach(), 0)))
    record(out, "argmax_nan", None, [nanm], fn(lambda x: torch.argmax(x, 1)))
    record(out, "maximum_nan", None, [nanm, t([[0.0, 1.0, nan], [3.0, 5.0, 4.0], [1.0, nan, 2.0]])],
           fn(lambda a, b: torch.maximum(a, b)))
    record(out, "clamp_nan", None, [nanm], fn(lambda x: torch.clamp(x, -1.0, 2.5)))
    record(out, "sort_int_desc", None, [t([[3, 1, 2, 1], [0, 5, 5, -2]])],
           fn(lambda x: torch.sort(x, dim=1, descending=True, stable=True)))
    record(out, "cumsum_int_dtype", None, [t([[1, 2, 3], [4, 5, 6]])], fn(lambda x: torch.cumsum(x, 1, dtype=torch.float64)))
    # ---- unfold/fold with dilation, padding and stride, non-square
    record(out, "unfold_all", None, [r(2, 3, 6, 7)],
           fn(lambda x: F.unfold(x, (2, 3), dilation=(2, 1), padding=(1, 2), stride=(2, 3))))
    record(out, "fold_all", None, [r(2, 12, 6)],
           fn(lambda x: F.fold(x, (5, 6), (2, 3), dilation=(1, 2), padding=(1, 0), stride=(2, 1))))
    record(out, "conv_t2d_unbatched_outpad", None, [r(2, 3, 4), r(2, 3, 3, 2)],
           fn(lambda x, w: F.conv_transpose2d(x, w, stride=(2, 3), output_padding=(1, 2), padding=(1, 0))))
    record(out, "conv_t1d_layer_output_size", nn.ConvTranspose1d(2, 3, 3, stride=3, padding=1), [r(2, 2, 4)],
           lambda m, x: m(x, output_size=[11]))
    # ---- attention with a row that masks every key
    q, k, v = r(1, 2, 3, 4), r(1, 2, 5, 4), r(1, 2, 5, 2)
    full = torch.ones(3, 5, dtype=torch.bool)
    full[1] = False
    out["sdpa_masked_row_mask"] = full
    # a query that sees no key attends to nothing (0), as PyTorch >= 2.5's math backend
    # (its _safe_softmax); 1.13's softmax would give NaN
    seen = full.any(-1, keepdim=True)

    def safe_attention(q, k, v):
        s = (q @ k.transpose(-2, -1) / 2.0).masked_fill(~(full | ~seen), -inf)
        return torch.where(seen, torch.softmax(s, -1), torch.zeros(())) @ v
    record(out, "sdpa_masked_row", None, [q, k, v], fn(safe_attention))


def third_cases(out):
    """The third batch: distances with their other p and keepdim, pads of unbatched
    volumes, losses whose targets broadcast or are all ignored, dropout's identities."""
    r = torch.randn
    t = torch.tensor
    inf = float("inf")
    record(out, "normalize_inf_dim0", None, [r(3, 4)], fn(lambda x: F.normalize(x, p=inf, dim=0)))
    record(out, "normalize_p1_last", None, [r(2, 3, 4)], fn(lambda x: F.normalize(x, p=1.0, dim=-1, eps=1e-3)))
    record(out, "pairwise_inf_keepdim", None, [r(3, 4), r(3, 4)],
           fn(lambda a, b: F.pairwise_distance(a, b, p=inf, keepdim=True)))
    record(out, "pairwise_bcast_p3", None, [r(3, 4), r(4)], fn(lambda a, b: F.pairwise_distance(a, b, p=3.0, eps=1e-4)))
    record(out, "cosine_similarity_bcast", None, [r(2, 1, 5), r(3, 5)],
           fn(lambda a, b: F.cosine_similarity(a, b, dim=-1, eps=1e-6)))
    record(out, "cdist_p1", None, [r(2, 3, 4), r(2, 5, 4)], fn(lambda a, b: torch.cdist(a, b, p=1.0)))
    record(out, "cdist_pinf", None, [r(3, 4), r(5, 4)], fn(lambda a, b: torch.cdist(a, b, p=inf)))
    record(out, "pad_reflect_unbatched3d", None, [r(2, 3, 4, 3)],
           fn(lambda x: F.pad(x, (1, 2, 0, 1, 2, 1), mode="reflect")))
    record(out, "pad_replicate_unbatched3d", None, [r(2, 3, 2, 3)],
           fn(lambda x: F.pad(x, (2, 0, 1, 1, 0, 2), mode="replicate")))
    record(out, "mse_bcast_target", None, [r(3, 4), r(4)], fn(lambda x, y: F.mse_loss(x, y.expand(3, 4))))
    record(out, "nll_all_ignored_sum", None, [torch.log_softmax(r(3, 4), 1), t([1, 1, 1])],
           fn(lambda x, y: F.nll_loss(x, y, ignore_index=1, reduction="sum")))
    record(out, "ce_weight_mean_partial_ignore", None, [r(4, 3), t([0, 2, 2, 1])],
           fn(lambda x, y: F.cross_entropy(x, y, weight=t([0.2, 1.0, 3.0]), ignore_index=2)))
    record(out, "dropout_eval", None, [r(3, 4)], fn(lambda x: F.dropout(x, p=0.7, training=False)))
    record(out, "dropout_p0_train", None, [r(3, 4)], fn(lambda x: F.dropout(x, p=0.0, training=True)))
    record(out, "dropout2d_eval_layer", nn.Dropout2d(0.4).eval(), [r(2, 3, 2, 2)])


def inplace_cases(out):
    """inplace=True of the activations (functional, on a non-leaf: the gradient reaches
    the leaf through the write) and of the layers in a Sequential."""
    r = torch.randn
    k = torch.tensor([-3.5, -1.0, -0.25, 0.0, 0.5, 1.0, 2.5, 4.0, 7.0])
    acts = {
        "relu": lambda h: F.relu(h, inplace=True),
        "relu6": lambda h: F.relu6(h, inplace=True),
        "elu": lambda h: F.elu(h, 0.5, inplace=True),
        "selu": lambda h: F.selu(h, inplace=True),
        "celu": lambda h: F.celu(h, 2.0, inplace=True),
        "leaky_relu": lambda h: F.leaky_relu(h, 0.1, inplace=True),
        "hardtanh": lambda h: F.hardtanh(h, -2.0, 3.0, inplace=True),
        "hardswish": lambda h: F.hardswish(h, inplace=True),
        "hardsigmoid": lambda h: F.hardsigmoid(h, inplace=True),
        "silu": lambda h: F.silu(h, inplace=True),
        "mish": lambda h: F.mish(h, inplace=True),
        "threshold": lambda h: F.threshold(h, 0.5, -2.0, inplace=True),
        "dropout_eval": lambda h: F.dropout(h, 0.3, False, inplace=True),
    }
    for name, f in acts.items():
        record(out, "inplace_" + name, None, [k], fn(lambda a, f=f: f(a * 1.5)))
    seq = nn.Sequential(nn.Linear(3, 4), nn.ReLU(inplace=True), nn.Linear(4, 4), nn.Hardswish(inplace=True),
                        nn.Dropout(0.2, inplace=True), nn.Linear(4, 4), nn.SiLU(inplace=True), nn.Linear(4, 2),
                        nn.LeakyReLU(0.2, inplace=True)).eval()
    record(out, "inplace_sequential", seq, [r(5, 3)])


def main():
    torch.set_default_dtype(torch.float64)
    torch.manual_seed(0)
    out = {}
    conv_pool_cases(out)
    norm_loss_cases(out)
    seq_cases(out)
    ops_cases(out)
    extra_cases(out)
    third_cases(out)
    inplace_cases(out)
    write_safetensors(OUT, out)
    print(f"{OUT}: {len(out)} tensors")


if __name__ == "__main__":
    main()
