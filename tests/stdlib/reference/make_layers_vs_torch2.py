"""Writes layers_vs_torch2.safetensors for tests/stdlib/test_layers_vs_torch2.dsl and
test_ops_vs_torch2.dsl: a differential round in f64 over argument combinations the
other reference files leave out. Each case is saved by make_layer_options.record (its
state_dict, inputs x<k>, outputs y<k>, upstream gradient g and the gradients of
sum(y0 * g) for every floating input and parameter):

- RNN/LSTM/GRU with 3 layers, bidirectional, batch_first, no bias, given and omitted
  states, unbatched inputs and proj_size; the cells with and without state. y0 is
  every output and final state flattened into one vector, so the gradient reaches
  them all;
- MultiheadAttention with kdim/vdim, bias=False, add_bias_kv, add_zero_attn, bool and
  float masks in 2-D and 3-D, key_padding_mask bool and float, per-head weights,
  unbatched inputs;
- the transformer layers and stacks with norm_first, gelu and callable activations,
  every mask and layer_norm_eps;
- interpolate's modes with non-integer scale factors, recompute_scale_factor and
  align_corners; pad's modes with asymmetric and negative pads;
- conv_transpose with groups, dilation, output_padding and stride together; Conv1d and
  Conv3d with padding strings and padding_mode;
- GroupNorm, InstanceNorm with running stats, adaptive pools on sizes that do not
  divide, max pools with dilation, ceil_mode and indices;
- the ops of test_ops_vs_torch2.dsl: cumsum/cumprod through zeros, stable sorts with
  ties, topk, repeat_interleave, tril/triu, roll, and activations' gradients at their
  kinks.

    /usr/bin/python3 tests/stdlib/reference/make_layers_vs_torch2.py
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
from make_layer_options import record  # noqa: E402

OUT = HERE / "layers_vs_torch2.safetensors"


def flat_all(result):
    """A recurrent layer's (y, h) or (y, (h, c)) as (every tensor flattened into one, *them)."""
    y, state = result
    parts = [y] + (list(state) if isinstance(state, tuple) else [state])
    return (torch.cat([p.reshape(-1) for p in parts]), *parts)


def recurrent_cases(out):
    r = torch.randn
    run = lambda m, *a: flat_all(m(*a))  # noqa: E731
    run_h = lambda m, x, h: flat_all(m(x, h))  # noqa: E731
    run_hc = lambda m, x, h, c: flat_all(m(x, (h, c)))  # noqa: E731
    record(out, "rnn_relu_3l_bi_bf_h0", nn.RNN(3, 4, num_layers=3, nonlinearity="relu", bidirectional=True,
                                               batch_first=True), [r(2, 5, 3), r(6, 2, 4)], run_h)
    record(out, "rnn_tanh_nobias_unbatched_h0", nn.RNN(3, 4, num_layers=2, bias=False), [r(5, 3), r(2, 4)], run_h)
    record(out, "rnn_tanh_bi_nostate", nn.RNN(3, 4, num_layers=2, bidirectional=True), [r(5, 2, 3)], run)
    record(out, "lstm_3l_bi_nobias", nn.LSTM(3, 4, num_layers=3, bias=False, bidirectional=True), [r(5, 2, 3)], run)
    record(out, "lstm_unbatched_bf_hc", nn.LSTM(3, 4, num_layers=2, batch_first=True), [r(5, 3), r(2, 4), r(2, 4)],
           run_hc)
    record(out, "lstm_proj_unbatched", nn.LSTM(3, 5, num_layers=2, proj_size=2, bidirectional=True), [r(4, 3)], run)
    record(out, "lstm_proj_bf_hc", nn.LSTM(3, 5, num_layers=3, proj_size=3, batch_first=True, bias=False),
           [r(2, 4, 3), r(3, 2, 3), r(3, 2, 5)], run_hc)
    record(out, "gru_3l_bi_bf_h0", nn.GRU(3, 4, num_layers=3, bidirectional=True, batch_first=True),
           [r(2, 5, 3), r(6, 2, 4)], run_h)
    record(out, "gru_unbatched_bf_nobias", nn.GRU(3, 4, batch_first=True, bias=False, bidirectional=True), [r(5, 3)],
           run)
    record(out, "rnncell_relu_nostate", nn.RNNCell(3, 4, nonlinearity="relu"), [r(2, 3)])
    record(out, "rnncell_nobias_unbatched_h", nn.RNNCell(3, 4, bias=False), [r(3), r(4)])
    record(out, "lstmcell_nobias_nostate", nn.LSTMCell(3, 4, bias=False), [r(2, 3)], lambda m, x: torch.cat(m(x)))
    record(out, "lstmcell_unbatched_hc", nn.LSTMCell(3, 4), [r(3), r(4), r(4)],
           lambda m, x, h, c: torch.cat(m(x, (h, c))))
    record(out, "grucell_unbatched_h", nn.GRUCell(3, 4), [r(3), r(4)])
    record(out, "grucell_nobias_nostate", nn.GRUCell(3, 4, bias=False), [r(2, 3)])


def attention_cases(out):
    r = torch.randn
    pad = torch.tensor([[False, False, True, False, False, True], [False, False, False, False, False, False]])
    mask2 = torch.zeros(4, 6, dtype=torch.bool)
    mask2[0, 1] = mask2[2, 3] = mask2[3, 0] = True
    out["pad_mask"], out["bool_mask"] = pad, mask2
    record(out, "mha_kdim_vdim_bf", nn.MultiheadAttention(8, 2, kdim=5, vdim=3, batch_first=True),
           [r(2, 4, 8), r(2, 6, 5), r(2, 6, 3)],
           lambda m, q, k, v: m(q, k, v, key_padding_mask=pad, attn_mask=mask2))
    record(out, "mha_nobias_float3d", nn.MultiheadAttention(8, 2, bias=False),
           [r(4, 2, 8), r(6, 2, 8), r(6, 2, 8), r(4, 4, 6)],
           lambda m, q, k, v, am: m(q, k, v, attn_mask=am, key_padding_mask=pad, average_attn_weights=False))
    # PyTorch 1.13 adds a float key_padding_mask only when there is no attn_mask
    record(out, "mha_float_kpm", nn.MultiheadAttention(8, 2, batch_first=True),
           [r(2, 4, 8), r(2, 6, 8), r(2, 6, 8), r(2, 6)],
           lambda m, q, k, v, kpm: m(q, k, v, key_padding_mask=kpm))
    mask3 = torch.zeros(4, 4, 6, dtype=torch.bool)
    mask3[1, 2, 4] = mask3[3, 0, 0] = mask3[0, 3, 5] = True
    out["bool_mask3"] = mask3
    record(out, "mha_bias_kv_zero_attn", nn.MultiheadAttention(8, 2, add_bias_kv=True, add_zero_attn=True),
           [r(4, 2, 8), r(6, 2, 8), r(6, 2, 8)],
           lambda m, q, k, v: m(q, k, v, key_padding_mask=pad, attn_mask=mask3))
    record(out, "mha_bias_kv_float", nn.MultiheadAttention(8, 4, add_bias_kv=True, batch_first=True),
           [r(2, 4, 8), r(2, 6, 8), r(2, 6, 8), r(4, 6)],
           lambda m, q, k, v, am: m(q, k, v, attn_mask=am, average_attn_weights=False))
    record(out, "mha_unbatched", nn.MultiheadAttention(8, 2, batch_first=True, kdim=3, vdim=5),
           [r(4, 8), r(6, 3), r(6, 5)],
           lambda m, q, k, v: m(q, k, v, key_padding_mask=pad[0], attn_mask=mask2, average_attn_weights=False))
    record(out, "mha_self_no_weights", nn.MultiheadAttention(8, 2), [r(5, 3, 8)],
           lambda m, x: m(x, x, x, need_weights=False)[:1])
    # need_weights=False takes another path in nabla (scaled_dot_product_attention)
    record(out, "mha_no_weights_masks", nn.MultiheadAttention(8, 2, add_bias_kv=True, add_zero_attn=True, kdim=5,
                                                              batch_first=True),
           [r(2, 4, 8), r(2, 6, 5), r(2, 6, 8)],
           lambda m, q, k, v: m(q, k, v, key_padding_mask=pad, attn_mask=mask2, need_weights=False)[:1])
    record(out, "mha_no_weights_float", nn.MultiheadAttention(8, 2, bias=False), [r(4, 2, 8), r(6, 2, 8), r(4, 4, 6)],
           lambda m, q, kv, am: m(q, kv, kv, attn_mask=am, key_padding_mask=pad, need_weights=False)[:1])


def transformer_cases(out):
    r = torch.randn
    causal = nn.Transformer.generate_square_subsequent_mask(5)
    out["causal5"] = causal
    out["causal7"] = nn.Transformer.generate_square_subsequent_mask(7)
    pad5 = torch.tensor([[False, False, False, True, True], [False, False, False, False, True]])
    pad7 = torch.tensor([[False] * 6 + [True], [False, True] + [False] * 5])
    out["pad5"], out["pad7"] = pad5, pad7
    record(out, "enc_layer_norm_first_gelu", nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation="gelu",
                                                                        norm_first=True, batch_first=True,
                                                                        layer_norm_eps=1e-3),
           [r(2, 5, 8)], lambda m, x: m(x, src_mask=causal, src_key_padding_mask=pad5))
    record(out, "enc_layer_callable", nn.TransformerEncoderLayer(8, 4, 12, dropout=0.0, activation=torch.tanh),
           [r(5, 2, 8), r(5, 5)], lambda m, x, am: m(x, src_mask=am))
    record(out, "dec_layer_masks", nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, norm_first=True,
                                                              activation=F.gelu, layer_norm_eps=1e-4),
           [r(5, 2, 8), r(7, 2, 8), r(5, 7)],
           lambda m, t, mem, mm: m(t, mem, tgt_mask=causal, memory_mask=mm, tgt_key_padding_mask=pad5,
                                   memory_key_padding_mask=pad7))
    record(out, "encoder_stack_norm", nn.TransformerEncoder(
        nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, norm_first=True), 2, norm=nn.LayerNorm(8, eps=1e-3)),
        [r(5, 2, 8)], lambda m, x: m(x, mask=causal, src_key_padding_mask=pad5))
    record(out, "decoder_stack_bf", nn.TransformerDecoder(
        nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, batch_first=True, activation="gelu"), 2,
        norm=nn.LayerNorm(8)),
        [r(2, 5, 8), r(2, 7, 8)],
        lambda m, t, mem: m(t, mem, tgt_mask=causal, tgt_key_padding_mask=pad5, memory_key_padding_mask=pad7))
    record(out, "enc_layer_unbatched", nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True),
           [r(5, 8)], lambda m, x: m(x, src_mask=causal, src_key_padding_mask=pad5[0]))
    record(out, "dec_layer_unbatched", nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, norm_first=True),
           [r(5, 8), r(7, 8)], lambda m, t, mem: m(t, mem, tgt_mask=causal, memory_key_padding_mask=pad7[1]))
    record(out, "transformer_all_masks", nn.Transformer(8, 2, 2, 1, 16, dropout=0.0, norm_first=True,
                                                        activation="gelu", layer_norm_eps=1e-4),
           [r(7, 2, 8), r(5, 2, 8), r(5, 7)],
           lambda m, s, t, mm: m(s, t, src_mask=torch.zeros(7, 7), tgt_mask=causal, memory_mask=mm,
                                 src_key_padding_mask=pad7, tgt_key_padding_mask=pad5,
                                 memory_key_padding_mask=pad7))


def resample_cases(out):
    r = torch.randn
    x2, x1, x3 = r(1, 2, 5, 4), r(2, 3, 5), r(1, 2, 3, 4, 2)
    interp = [
        ("nearest_1_7", x2, dict(scale_factor=1.7, mode="nearest")),
        ("nearest_0_6", x2, dict(scale_factor=0.6, mode="nearest")),
        ("nearest_2_1", x2, dict(scale_factor=2.1, mode="nearest")),
        ("nearest_recompute", x2, dict(scale_factor=1.7, mode="nearest", recompute_scale_factor=True)),
        ("nearest_exact_1_7", x2, dict(scale_factor=1.7, mode="nearest-exact")),
        ("nearest_exact_size", x2, dict(size=(3, 7), mode="nearest-exact")),
        ("nearest1d_0_6", x1, dict(scale_factor=0.6, mode="nearest")),
        ("nearest1d_1_1", x1, dict(scale_factor=1.1, mode="nearest")),
        ("nearest1d_2_1", x1, dict(scale_factor=2.1, mode="nearest")),
        ("nearest3d_2_1", x3, dict(scale_factor=(2.1, 1.1, 2.5), mode="nearest")),
        ("bilinear_1_7", x2, dict(scale_factor=1.7, mode="bilinear", align_corners=False)),
        ("bilinear_0_6", x2, dict(scale_factor=(0.6, 1.3), mode="bilinear", align_corners=False)),
        ("bilinear_1_7_ac", x2, dict(scale_factor=1.7, mode="bilinear", align_corners=True)),
        ("bilinear_recompute", x2, dict(scale_factor=1.7, mode="bilinear", recompute_scale_factor=True)),
        ("bilinear_size", x2, dict(size=(7, 3), mode="bilinear")),
        ("bicubic_1_7", x2, dict(scale_factor=1.7, mode="bicubic", align_corners=False)),
        ("bicubic_0_6_ac", x2, dict(scale_factor=0.6, mode="bicubic", align_corners=True)),
        ("bicubic_size_ac", x2, dict(size=(8, 6), mode="bicubic", align_corners=True)),
        ("linear_0_6", x1, dict(scale_factor=0.6, mode="linear")),
        ("linear_1_7_ac", x1, dict(scale_factor=1.7, mode="linear", align_corners=True)),
        ("linear_size", x1, dict(size=7, mode="linear")),
        ("linear_recompute", x1, dict(scale_factor=1.7, mode="linear", recompute_scale_factor=True)),
        ("trilinear_mixed", x3, dict(scale_factor=(1.5, 0.6, 2.0), mode="trilinear")),
        ("trilinear_size_ac", x3, dict(size=(4, 3, 5), mode="trilinear", align_corners=True)),
        ("nearest3d_1_7", x3, dict(scale_factor=1.7, mode="nearest")),
        ("area_size", x2, dict(size=(3, 3), mode="area")),
        ("area1d", x1, dict(size=3, mode="area")),
        ("area3d", x3, dict(size=(2, 3, 1), mode="area")),
        ("nearest_exact1d_0_6", x1, dict(scale_factor=0.6, mode="nearest-exact")),
        ("nearest_exact3d", x3, dict(scale_factor=(1.7, 0.6, 2.5), mode="nearest-exact")),
        ("bilinear_one_row_ac", x2, dict(size=(1, 3), mode="bilinear", align_corners=True)),
        ("bicubic_one_ac", x2, dict(size=(1, 1), mode="bicubic", align_corners=True)),
        ("linear_one_ac", x1, dict(size=1, mode="linear", align_corners=True)),
        ("trilinear_one_ac", x3, dict(size=(1, 5, 1), mode="trilinear", align_corners=True)),
    ]
    # Where a scale factor makes out == in or out == 2 * in, PyTorch 1.13's nearest
    # backward copies o (takes o / 2) while its forward (for C > 1) computes
    # floor(o / scale): its gradient is not its forward's, so only the values are saved.
    forward_only = {"nearest_2_1", "nearest1d_1_1", "nearest1d_2_1", "nearest3d_2_1"}
    for name, x, kw in interp:
        record(out, "interp_" + name, None, [x],
               lambda m, t, kw=kw, d=name in forward_only: F.interpolate(t.detach() if d else t, **kw))
    record(out, "upsample_bilinear_1_7", nn.Upsample(scale_factor=1.7, mode="bilinear"), [x2])
    record(out, "upsample_trilinear_recompute", nn.Upsample(scale_factor=(0.7, 1.6, 2.5), mode="trilinear",
                                                            recompute_scale_factor=True), [x3])
    pads = [
        ("const1d", x1, (2, -1), "constant", 0.5),
        ("const2d_neg", x2, (1, -2, -1, 3), "constant", -1.5),
        ("const3d", x3, (0, 1, -1, 2, 1, 0), "constant", 0.0),
        ("reflect1d", x1, (3, 1), "reflect", None),
        ("reflect1d_neg", x1, (-1, 2), "reflect", None),
        ("reflect2d", x2, (2, 1, 0, 3), "reflect", None),
        ("reflect3d", x3, (1, 0, 2, 1, 1, 2), "reflect", None),
        ("replicate1d_neg", x1, (-2, 3), "replicate", None),
        ("replicate2d", x2, (3, 0, 1, 2), "replicate", None),
        ("replicate3d", x3, (1, 2, 0, 1, 2, 0), "replicate", None),
        ("circular1d", x1, (2, 3), "circular", None),
        ("circular2d_neg", x2, (1, -1, 2, 0), "circular", None),
        ("circular3d", x3, (1, 1, 0, 2, 1, 0), "circular", None),
    ]
    for name, x, p, mode, value in pads:
        kw = dict(mode=mode) if value is None else dict(mode=mode, value=value)
        record(out, "pad_" + name, None, [x], lambda m, t, p=p, kw=kw: F.pad(t, p, **kw))


def conv_cases(out):
    r = torch.randn
    record(out, "conv_t1d_all", None, [r(2, 4, 5), r(4, 3, 3), r(6)],
           lambda m, x, w, b: F.conv_transpose1d(x, w, b, stride=3, padding=2, output_padding=1, groups=2, dilation=2))
    record(out, "conv_t2d_all", None, [r(1, 6, 4, 3), r(6, 2, 3, 2), r(6)],
           lambda m, x, w, b: F.conv_transpose2d(x, w, b, stride=(2, 3), padding=(1, 2), output_padding=(1, 0),
                                                 groups=3, dilation=(2, 1)))
    record(out, "conv_t2d_module", nn.ConvTranspose2d(4, 6, (2, 3), stride=2, padding=(0, 1), output_padding=1,
                                                      groups=2, dilation=(1, 2), bias=False), [r(2, 4, 3, 4)])
    record(out, "conv_t1d_module", nn.ConvTranspose1d(3, 6, 3, stride=2, padding=1, output_padding=1, groups=3,
                                                      dilation=3), [r(2, 3, 5)])
    # output_padding at least the stride but below the dilation (PyTorch allows either)
    record(out, "conv_t1d_outpad_dilation", None, [r(1, 2, 4), r(2, 3, 3)],
           lambda m, x, w: F.conv_transpose1d(x, w, stride=1, dilation=3, output_padding=2))
    record(out, "conv_t2d_outpad_dilation", None, [r(1, 2, 4, 3), r(2, 1, 2, 3), r(2)],
           lambda m, x, w, b: F.conv_transpose2d(x, w, b, stride=(1, 2), dilation=(3, 1), output_padding=(2, 1),
                                                 groups=2, padding=(0, 1)))
    record(out, "conv1d_same_dil", nn.Conv1d(2, 4, 4, padding="same", dilation=3, groups=2), [r(2, 2, 11)])
    record(out, "conv1d_valid_stride", nn.Conv1d(2, 3, 3, padding="valid", stride=2), [r(2, 2, 10)])
    record(out, "conv1d_reflect", nn.Conv1d(2, 3, 3, padding=2, padding_mode="reflect", stride=2), [r(2, 2, 7)])
    record(out, "conv1d_replicate_same", nn.Conv1d(2, 3, 4, padding="same", padding_mode="replicate"),
           [r(2, 2, 7)])
    record(out, "conv3d_same_circular", nn.Conv3d(2, 2, (3, 2, 3), padding="same", padding_mode="circular"),
           [r(1, 2, 4, 5, 4)])
    record(out, "conv3d_valid_groups", nn.Conv3d(4, 2, 2, padding="valid", groups=2, dilation=(1, 2, 1)),
           [r(1, 4, 3, 5, 3)])
    record(out, "conv3d_reflect_stride", nn.Conv3d(2, 3, 3, padding=(1, 2, 1), padding_mode="reflect", stride=2),
           [r(1, 2, 4, 5, 6)])
    record(out, "conv3d_replicate", nn.Conv3d(1, 2, 2, padding=1, padding_mode="replicate"), [r(1, 1, 3, 3, 3)])


def norm_pool_cases(out):
    r = torch.randn
    record(out, "group_norm_affine", nn.GroupNorm(3, 6, eps=1e-3), [r(2, 6, 5)])
    record(out, "group_norm_plain", nn.GroupNorm(2, 6, affine=False), [r(2, 6, 3, 4)])
    record(out, "group_norm_1group", nn.GroupNorm(1, 4), [r(3, 4, 2, 2, 2)])
    record(out, "instance1d_affine_track", nn.InstanceNorm1d(3, affine=True, track_running_stats=True), [r(2, 3, 6)])
    record(out, "instance2d_track", nn.InstanceNorm2d(3, track_running_stats=True, momentum=0.3), [r(2, 3, 4, 5)])
    m = nn.InstanceNorm2d(3, affine=True, track_running_stats=True)
    with torch.no_grad():
        m.running_mean.copy_(torch.tensor([0.1, -0.2, 0.3]))
        m.running_var.copy_(torch.tensor([1.5, 0.5, 2.0]))
    record(out, "instance2d_eval", m.eval(), [r(2, 3, 4, 5)])
    record(out, "instance1d_unbatched", nn.InstanceNorm1d(3, affine=True), [r(3, 6)])
    record(out, "adaptive_avg1d", None, [r(2, 3, 7)], lambda m, x: F.adaptive_avg_pool1d(x, 3))
    record(out, "adaptive_avg2d", None, [r(1, 2, 7, 5)], lambda m, x: F.adaptive_avg_pool2d(x, (3, 4)))
    record(out, "adaptive_avg2d_up", None, [r(1, 2, 3, 2)], lambda m, x: F.adaptive_avg_pool2d(x, (5, 3)))
    record(out, "adaptive_max1d", None, [r(2, 3, 7)], lambda m, x: F.adaptive_max_pool1d(x, 3, return_indices=True))
    record(out, "adaptive_max2d", None, [r(1, 2, 7, 5)],
           lambda m, x: F.adaptive_max_pool2d(x, (4, 3), return_indices=True))
    record(out, "max_pool1d_all", None, [r(2, 3, 10)],
           lambda m, x: F.max_pool1d(x, 3, stride=2, padding=1, dilation=2, ceil_mode=True, return_indices=True))
    record(out, "max_pool2d_all", None, [r(1, 2, 7, 6)],
           lambda m, x: F.max_pool2d(x, (3, 2), stride=(2, 1), padding=1, dilation=(2, 1), ceil_mode=True,
                                     return_indices=True))
    record(out, "max_pool2d_ceil", nn.MaxPool2d(2, stride=2, ceil_mode=True, return_indices=True), [r(1, 1, 5, 5)])
    # ceil_mode's last window would start in the right padding: PyTorch drops it
    record(out, "max_pool1d_ceil_drop", None, [r(2, 2, 5)],
           lambda m, x: F.max_pool1d(x, 2, stride=2, padding=1, ceil_mode=True, return_indices=True))
    record(out, "avg_pool1d_ceil_pad", None, [r(2, 2, 6)],
           lambda m, x: F.avg_pool1d(x, 3, stride=2, padding=1, ceil_mode=True))
    record(out, "avg_pool2d_ceil_nopad", None, [r(1, 2, 5, 6)],
           lambda m, x: F.avg_pool2d(x, (3, 2), stride=2, padding=1, ceil_mode=True, count_include_pad=False))
    record(out, "avg_pool2d_ceil_pad", None, [r(1, 2, 5, 6)],
           lambda m, x: F.avg_pool2d(x, (3, 2), stride=(2, 3), padding=(1, 1), ceil_mode=True))
    # RMSNorm is newer than PyTorch 1.13: its formula, in torch ops, with eps given and
    # eps=None (finfo(dtype).eps, as torch.nn.functional.rms_norm)
    rms = lambda x, w, eps: x * torch.rsqrt(x.pow(2).mean((-2, -1), keepdim=True) + eps) * w  # noqa: E731
    record(out, "rms_norm_eps", None, [r(2, 3, 4), r(3, 4)], lambda m, x, w: rms(x, w, 1e-3))
    record(out, "rms_norm_default", None, [r(2, 3, 4) * 1e-5, r(3, 4)],
           lambda m, x, w: rms(x, w, torch.finfo(torch.float64).eps))


def second_order(out, name, f, x):
    """f's gradient of sum(f(x) * g) and that gradient's own, of sum(grad * gg), as
    <name>.x0, .g, .gg, .grad_x0, .grad2_x0 (grad of grad: cumprod through zeros)."""
    x = x.clone().requires_grad_(True)
    y = f(x)
    g, gg = torch.randn(y.shape), torch.randn(x.shape)
    (dx,) = torch.autograd.grad(y, x, g, create_graph=True)
    (ddx,) = torch.autograd.grad(dx, x, gg)
    out.update({f"{name}.x0": x.detach(), f"{name}.g": g, f"{name}.gg": gg, f"{name}.grad_x0": dx.detach(),
                f"{name}.grad2_x0": ddx})


def ops_cases(out):
    t = torch.tensor
    z = t([[1.5, 0.0, 2.0, -0.5, 3.0], [0.0, 2.0, 0.0, 1.5, -1.0], [0.5, -2.0, 1.2, 0.7, 2.0]])
    record(out, "cumprod_zeros_dim1", None, [z], lambda m, x: torch.cumprod(x, 1))
    record(out, "cumprod_zeros_dim0", None, [z.T.contiguous()], lambda m, x: torch.cumprod(x, 0))
    record(out, "cumsum_dim0", None, [z], lambda m, x: torch.cumsum(x, 0))
    second_order(out, "cumprod_gg_one_zero", lambda x: torch.cumprod(x, 1), z[0:1])
    second_order(out, "cumprod_gg_two_zeros", lambda x: torch.cumprod(x, 1), z[1:2])
    second_order(out, "cumprod_gg", lambda x: torch.cumprod(x, -1), z)
    ties = t([[3.0, 1.0, 2.0, 1.0, 3.0, 2.0, 2.0, 0.0], [1.0, 1.0, 1.0, 0.0, 5.0, 5.0, -1.0, 1.0]])
    record(out, "sort_stable_desc", None, [ties], lambda m, x: torch.sort(x, stable=True, descending=True))
    record(out, "sort_stable_asc_dim0", None, [ties.T.contiguous()], lambda m, x: torch.sort(x, dim=0, stable=True))
    record(out, "argsort_stable_desc", None, [ties],
           lambda m, x: torch.argsort(x.detach(), descending=True, stable=True))
    # which of tied elements topk picks is unspecified (PyTorch's nth_element; nabla's
    # is stable): the values only
    record(out, "topk_smallest", None, [ties], lambda m, x: torch.topk(x.detach(), 3, largest=False, sorted=True)[0])
    record(out, "topk_largest", None, [ties], lambda m, x: torch.topk(x.detach(), 4, sorted=True)[0])
    x = t([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    record(out, "repeat_interleave_dim0", None, [x], lambda m, x: torch.repeat_interleave(x, t([1, 0, 2]), dim=0))
    record(out, "repeat_interleave_dim1", None, [x], lambda m, x: torch.repeat_interleave(x, t([2, 3]), dim=1))
    record(out, "repeat_interleave_flat", None, [x],
           lambda m, x: torch.repeat_interleave(x, t([1, 2, 0, 3, 1, 1])))
    record(out, "one_hot_5", None, [t([[0, 2], [1, 3]])], lambda m, i: F.one_hot(i, 5))
    record(out, "one_hot_auto", None, [t([2, 0, 1, 2])], lambda m, i: F.one_hot(i))
    a = torch.sin(torch.arange(15.0)).reshape(3, 5)
    b = torch.cos(torch.arange(24.0)).reshape(2, 4, 3)
    record(out, "tril_m1", None, [a], lambda m, x: torch.tril(x, -1))
    record(out, "triu_2", None, [a], lambda m, x: torch.triu(x, 2))
    record(out, "tril_batched_1", None, [b], lambda m, x: torch.tril(x, 1))
    record(out, "triu_batched_m2", None, [b], lambda m, x: torch.triu(x, -2))
    record(out, "roll_two_dims", None, [b.permute(1, 2, 0).contiguous()],
           lambda m, x: torch.roll(x, (1, -2), (0, 2)))
    record(out, "roll_flat", None, [a], lambda m, x: torch.roll(x, 3))
    record(out, "roll_past_size", None, [a], lambda m, x: torch.roll(x, (7, -6), (1, 0)))
    # activations and friends on their kinks
    u, v = t([0.0, 1.0, 2.0, -3.0, 1000.0, -1.5]), t([0.0, 1.0, -1.0, -3.0, 1000.0, 2.0])
    record(out, "logaddexp_ties", None, [u, v], lambda m, p, q: torch.logaddexp(p, q))
    p = t([0.0, 0.05, 0.1, 0.5, 0.9, 0.95, 1.0])
    record(out, "logit_eps", None, [p], lambda m, x: torch.logit(x, eps=0.1))
    record(out, "softplus_beta_threshold", None, [t([-1.0, 0.0, 0.25, 0.5, 0.75, 2.0])],
           lambda m, x: F.softplus(x, beta=2.0, threshold=1.0))
    k = t([-4.0, -3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0, 4.0, 6.0, 7.0])
    acts = {
        "elu_alpha": lambda x: F.elu(x, alpha=0.5),
        "celu_alpha": lambda x: F.celu(x, alpha=0.5),
        "selu": F.selu,
        "hardtanh_bounds": lambda x: F.hardtanh(x, min_val=-0.5, max_val=2.0),
        "leaky_relu_slope": lambda x: F.leaky_relu(x, negative_slope=0.2),
        "relu": F.relu,
        "relu6": F.relu6,
        "hardsigmoid": F.hardsigmoid,
        "hardswish": F.hardswish,
        "hardshrink": lambda x: F.hardshrink(x, 0.5),
        "softshrink": lambda x: F.softshrink(x, 0.5),
        "threshold": lambda x: F.threshold(x, 0.5, -1.0),
        "clamp_bounds": lambda x: torch.clamp(x, min=-0.5, max=2.0),
        "abs": torch.abs,
    }
    for name, f in acts.items():
        record(out, "act_" + name, None, [k], lambda m, x, f=f: f(x))
    record(out, "clamp_min_above_max", None, [k], lambda m, x: torch.clamp(x, min=2.0, max=1.0))
    record(out, "clamp_tensor_bounds", None, [k, torch.full((12,), -0.5), torch.full((12,), 2.0)],
           lambda m, x, lo, hi: torch.clamp(x, lo, hi))
    record(out, "leaky_relu_big_slope", None, [k], lambda m, x: F.leaky_relu(x, 2.0))
    record(out, "softplus_negative_beta", None, [k], lambda m, x: F.softplus(x, beta=-1.0, threshold=2.0))
    record(out, "prelu_kink", None, [k, t([0.25])], lambda m, x, w: F.prelu(x, w))
    ta, tb = t([1.0, 2.0, 3.0, -1.0]), t([1.0, 0.0, 3.0, -1.0])
    record(out, "maximum_ties", None, [ta, tb], lambda m, p, q: torch.maximum(p, q))
    record(out, "minimum_ties", None, [ta, tb], lambda m, p, q: torch.minimum(p, q))
    record(out, "amax_ties", None, [ties], lambda m, x: torch.amax(x, 1))
    record(out, "amin_ties_all", None, [ties], lambda m, x: torch.amin(x))
    record(out, "max_dim_ties", None, [ties], lambda m, x: torch.max(x, 1))
    record(out, "min_dim_ties", None, [ties], lambda m, x: torch.min(x, 0))
    record(out, "cummax_ties", None, [ties], lambda m, x: torch.cummax(x, 1))
    record(out, "cummin_ties", None, [ties], lambda m, x: torch.cummin(x, 1))
    record(out, "norm_zero_row", None, [t([[0.0, 0.0, 0.0], [3.0, 4.0, 0.0]])], lambda m, x: torch.norm(x, dim=1))
    record(out, "median_ties", None, [ties], lambda m, x: torch.median(x, 1))


def main():
    torch.set_default_dtype(torch.float64)
    torch.manual_seed(0)
    out = {}
    recurrent_cases(out)
    attention_cases(out)
    transformer_cases(out)
    resample_cases(out)
    conv_cases(out)
    norm_pool_cases(out)
    ops_cases(out)
    write_safetensors(OUT, out)
    print(f"{OUT}: {len(out)} tensors")


if __name__ == "__main__":
    main()
