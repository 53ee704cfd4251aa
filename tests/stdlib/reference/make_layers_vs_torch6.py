"""Writes layers_vs_torch6.safetensors for round 6's layer sweeps against PyTorch 1.13
(tests/stdlib/test_recurrent_vs_torch6.dsl, test_attention_vs_torch6.dsl,
test_conv_pool_vs_torch6.dsl, test_embed_norm_vs_torch6.dsl, test_init_vs_torch6.dsl,
test_layer_sweep_vs_torch6.dsl): the layers with their options crossed, in f64 from
the same weights. Each case is saved by make_layer_options.record (state_dict under
PyTorch's keys, inputs x<k>, outputs y<k>, upstream gradient g, the gradients of
sum(y0 * g) for every floating input and parameter, the buffers the forward moved as
<case>.after.<key>). Where a layer returns several tensors, y0 is all of them
flattened into one, so the gradients reach through every output; the tests flatten
the same way. The sections run in this order (each later one draws after the others,
so adding one keeps the earlier inputs):

- recurrent_cases: RNN (tanh, relu), LSTM, LSTM with proj_size and GRU, each with
  num_layers 1/2 x bidirectional x bias crossed, and batch_first, initial states and
  unbatched input rotated through them; the same layers on a PackedSequence with
  enforce_sorted=False; RNNCell (tanh, relu), LSTMCell and GRUCell with bias x
  unbatched x state given;
- attention_cases: MultiheadAttention with batch_first, kdim/vdim, add_bias_kv,
  add_zero_attn, bias=False, need_weights / average_attn_weights, attn_mask bool and
  float in 2-D and 3-D, key_padding_mask bool and float, unbatched input;
  TransformerEncoderLayer / DecoderLayer with norm_first, "gelu" and a callable
  activation, layer_norm_eps and every mask; TransformerEncoder with a final norm;
- conv_pool_cases: padding="same" with dilation and even kernels, padding_mode
  reflect/replicate/circular for Conv1d/2d/3d with strides and groups, ConvTranspose
  with output_padding, dilation and groups and forward's output_size, pools with
  ceil_mode, count_include_pad, divisor_override, return_indices and MaxUnpool,
  LPPool, AdaptiveMax with return_indices, Fold/Unfold, PixelShuffle/Unshuffle, and
  Upsample's modes with align_corners and recompute_scale_factor (a dim whose size a
  scale keeps is copied by the linear modes);
- embed_norm_cases: Embedding (negative padding_idx, max_norm with each norm_type,
  scale_grad_by_freq), EmbeddingBag (modes x offsets x include_last_offset x
  per_sample_weights x padding_idx, scale_grad_by_freq by its definition: see
  bags_by_freq), LayerNorm without affine over several dims, GroupNorm and
  InstanceNorm with affine x track_running_stats in train and eval,
  LocalResponseNorm, BatchNorm with track_running_stats=False and momentum=None;
- init_cases: the statistics (mean, std, max |p|) of PyTorch's initial parameters of
  27 layers, large enough that they tell the distributions and bounds apart;
- stack_cases: nn.Transformer with all six masks, a TransformerDecoder with a final
  norm, a module and a function as activation; pools whose last ceil_mode window is
  dropped, LPPool of signed inputs, NaN in pools; the pools, unfold and shuffles on
  unbatched input; MultiheadAttention's float masks' gradients; layers made with
  their required arguments only (PyTorch's defaults); scaled_dot_product_attention
  (by its definition) with masks broadcast over batch and heads, -inf entries,
  is_causal on tall scores and 2-D inputs;
- more_upsample_cases: scale factors with align_corners, nearest-exact in 3-D,
  bicubic recomputed, linear downsampling;
- sweep_cases and mha_sweep_cases (layer_sweeps_vs_torch6.py): 40 random
  convolutions, pools, upsamplings and MultiheadAttention configurations, each with
  its options as cfg.<case>.

    /usr/bin/python3 tests/stdlib/reference/make_layers_vs_torch6.py
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
from layer_sweeps_vs_torch6 import mha_sweep_cases, sweep_cases  # noqa: E402

OUT = HERE / "layers_vs_torch6.safetensors"
r = torch.randn


def flat(*tensors):
    """Every tensor (None skipped) flattened into one: y0, so sum(y0 * g) reaches all."""
    return torch.cat([t.reshape(-1) for t in tensors if t is not None])


def rnn_flat(res):
    y, s = res
    if isinstance(y, nn.utils.rnn.PackedSequence):
        y = nn.utils.rnn.pad_packed_sequence(y, batch_first=False)[0]
    return flat(y, *(s if isinstance(s, tuple) else (s,)))


RNN_MODES = {
    "rnn_tanh": lambda **kw: nn.RNN(3, 4, nonlinearity="tanh", **kw),
    "rnn_relu": lambda **kw: nn.RNN(3, 4, nonlinearity="relu", **kw),
    "lstm": lambda **kw: nn.LSTM(3, 4, **kw),
    "lstm_proj": lambda **kw: nn.LSTM(3, 4, proj_size=2, **kw),
    "gru": lambda **kw: nn.GRU(3, 4, **kw),
}


def rnn_case_name(mode, layers, bi, bias, bf, given, unbatched):
    return (f"{mode}_l{layers}" + ("_bi" if bi else "") + ("" if bias else "_nobias") + ("_bf" if bf else "")
            + ("_h0" if given else "") + ("_unbatched" if unbatched else ""))


def rnn_combos():
    """(mode, layers, bi, bias, batch_first, state given, unbatched): every mode with
    layers x bi x bias crossed, and the other three flags rotated so each mode sees all
    eight of their combinations. test_recurrent_vs_torch6.dsl walks the same list."""
    combos = []
    for m, mode in enumerate(RNN_MODES):
        for c in range(8):
            layers, bi, bias = 1 + (c & 1), bool(c & 2), bool(c & 4)
            rot = (c * 3 + m) % 8
            combos.append((mode, layers, bi, bias, bool(rot & 1), bool(rot & 2), bool(rot & 4)))
    return combos


def recurrent_cases(out):
    T, B = 4, 2
    for mode, layers, bi, bias, bf, given, unbatched in rnn_combos():
        m = RNN_MODES[mode](num_layers=layers, bidirectional=bi, bias=bias, batch_first=bf)
        dirs = 2 if bi else 1
        hw = 2 if mode == "lstm_proj" else 4
        x = r(T, 3) if unbatched else (r(B, T, 3) if bf else r(T, B, 3))
        sb = [] if unbatched else [B]
        states = [r(layers * dirs, *sb, hw)] + ([r(layers * dirs, *sb, 4)] if mode.startswith("lstm") else [])
        name = rnn_case_name(mode, layers, bi, bias, bf, given, unbatched)
        if not given:
            record(out, name, m, [x], lambda m, x: rnn_flat(m(x)))
        elif len(states) == 2:
            record(out, name, m, [x] + states, lambda m, x, h, c: rnn_flat(m(x, (h, c))))
        else:
            record(out, name, m, [x] + states, lambda m, x, h: rnn_flat(m(x, h)))
    # packed, unsorted lengths, two bidirectional layers with states
    lengths = [3, 5, 2]
    out["packed_lengths"] = torch.tensor(lengths)
    for mode in RNN_MODES:
        for bf in [False, True]:
            m = RNN_MODES[mode](num_layers=2, bidirectional=True, batch_first=bf)
            hw = 2 if mode == "lstm_proj" else 4
            x = r(3, 5, 3) if bf else r(5, 3, 3)
            pack = lambda x: nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=bf, enforce_sorted=False)  # noqa
            name = f"packed_{mode}" + ("_bf" if bf else "")
            if mode.startswith("lstm"):
                record(out, name, m, [x, r(4, 3, hw), r(4, 3, 4)], lambda m, x, h, c: rnn_flat(m(pack(x), (h, c))))
            else:
                record(out, name, m, [x, r(4, 3, hw)], lambda m, x, h: rnn_flat(m(pack(x), h)))
    # cells
    cells = {"rnncell_tanh": lambda b: nn.RNNCell(3, 4, bias=b), "rnncell_relu":
             lambda b: nn.RNNCell(3, 4, bias=b, nonlinearity="relu"),
             "lstmcell": lambda b: nn.LSTMCell(3, 4, bias=b), "grucell": lambda b: nn.GRUCell(3, 4, bias=b)}
    for kind, make in cells.items():
        for bias in [True, False]:
            for unbatched in [False, True]:
                for given in [False, True]:
                    name = kind + ("" if bias else "_nobias") + ("_unbatched" if unbatched else "") + \
                        ("_h0" if given else "")
                    sb = [] if unbatched else [2]
                    x = r(*sb, 3)
                    if not given:
                        record(out, name, make(bias), [x], lambda m, x: flat(*(lambda s: s if isinstance(s, tuple)
                                                                             else (s,))(m(x))))
                    elif kind == "lstmcell":
                        record(out, name, make(bias), [x, r(*sb, 4), r(*sb, 4)], lambda m, x, h, c: flat(*m(x, (h, c))))
                    else:
                        record(out, name, make(bias), [x, r(*sb, 4)], lambda m, x, h: flat(m(x, h)))


def mha_combos():
    """(name, constructor kwargs, call kwargs naming the masks) for MultiheadAttention."""
    return [
        ("mha_plain", {}, {}),
        ("mha_bf", {"batch_first": True}, {}),
        ("mha_kdim_vdim", {"kdim": 4, "vdim": 5}, {}),
        ("mha_kdim_vdim_bf_nobias", {"kdim": 4, "vdim": 5, "batch_first": True, "bias": False}, {}),
        ("mha_bias_kv", {"add_bias_kv": True}, {}),
        ("mha_zero_attn", {"add_zero_attn": True}, {}),
        ("mha_bias_kv_zero_attn_kdim", {"add_bias_kv": True, "add_zero_attn": True, "kdim": 4, "vdim": 5}, {}),
        ("mha_nobias", {"bias": False}, {}),
        ("mha_per_head", {}, {"average_attn_weights": False}),
        ("mha_no_weights", {}, {"need_weights": False}),
        ("mha_bool_mask2d", {}, {"attn_mask": "bool2d"}),
        ("mha_float_mask2d", {}, {"attn_mask": "float2d"}),
        ("mha_bool_mask3d", {}, {"attn_mask": "bool3d"}),
        ("mha_float_mask3d_per_head", {}, {"attn_mask": "float3d", "average_attn_weights": False}),
        ("mha_bool_kpm", {}, {"key_padding_mask": "bool_kpm"}),
        ("mha_float_kpm", {}, {"key_padding_mask": "float_kpm"}),
        ("mha_bool_both", {"batch_first": True}, {"attn_mask": "bool2d", "key_padding_mask": "bool_kpm"}),
        ("mha_float_both", {}, {"attn_mask": "float3d", "key_padding_mask": "float_kpm"}),
        ("mha_masks_bias_kv_zero_attn", {"add_bias_kv": True, "add_zero_attn": True},
         {"attn_mask": "bool3d", "key_padding_mask": "bool_kpm"}),
        ("mha_float_masks_zero_attn", {"add_zero_attn": True},
         {"attn_mask": "float2d", "key_padding_mask": "float_kpm"}),
    ]


def attention_masks(out, L, S, B, H):
    bool2d = torch.rand(L, S) > 0.7
    bool2d[:, 0] = False  # every query keeps a key (1.13's softmax of nothing is NaN)
    bool3d = torch.rand(B * H, L, S) > 0.7
    bool3d[:, :, 1] = False
    bool_kpm = torch.tensor([[False, False, False, True, True], [False, True, False, False, False]])
    masks = {"bool2d": bool2d, "float2d": r(L, S), "bool3d": bool3d, "float3d": r(B * H, L, S),
             "bool_kpm": bool_kpm, "float_kpm": r(B, S)}
    for k, v in masks.items():
        out[f"mask.{k}"] = v
    return masks


def attention_cases(out):
    L, S, B, E, H = 3, 5, 2, 6, 2
    masks = attention_masks(out, L, S, B, H)
    for name, kw, call in mha_combos():
        m = nn.MultiheadAttention(E, H, **kw)
        bf = kw.get("batch_first", False)
        shape = (lambda n, d: (B, n, d)) if bf else (lambda n, d: (n, B, d))
        q, k, v = r(*shape(L, E)), r(*shape(S, kw.get("kdim", E))), r(*shape(S, kw.get("vdim", E)))
        ckw = {a: (masks[b] if isinstance(b, str) else b) for a, b in call.items()}
        if call.get("key_padding_mask") == "float_kpm" and str(call.get("attn_mask")).startswith("float"):
            # 1.13 refuses a float key_padding_mask beside a float attn_mask; PyTorch 2's
            # _canonical_mask adds them: the same sum here, as one [B * H, L, S] mask.
            kpm = ckw.pop("key_padding_mask").repeat_interleave(H, 0)[:, None, :]
            ckw["attn_mask"] = ckw["attn_mask"] + kpm
        record(out, name, m, [q, k, v], lambda m, q, k, v, ckw=ckw: flat(*m(q, k, v, **ckw)))
    # unbatched: [L, E] with a 2-D bool mask and a 1-D key_padding_mask
    m = nn.MultiheadAttention(E, 3, add_bias_kv=True)
    record(out, "mha_unbatched", m, [r(L, E), r(S, E), r(S, E)],
           lambda m, q, k, v: flat(*m(q, k, v, attn_mask=masks["bool2d"], key_padding_mask=masks["bool_kpm"][1],
                                      average_attn_weights=False)))
    # transformer layers
    src_mask, tgt_mask = r(S, S), nn.Transformer.generate_square_subsequent_mask(L)
    out["mask.src_float"], out["mask.tgt_causal"] = src_mask, tgt_mask
    mem_mask = masks["bool2d"]
    swish = lambda x: x * torch.sigmoid(x)  # noqa: E731  the "callable" activation; the test passes its own
    for norm_first in [False, True]:
        for act in ["relu", "gelu", "swish"]:
            for bf in [False, True]:
                a = swish if act == "swish" else act
                tag = ("_pre" if norm_first else "_post") + "_" + act + ("_bf" if bf else "")
                shape = (lambda n: (B, n, E)) if bf else (lambda n: (n, B, E))
                enc = nn.TransformerEncoderLayer(E, H, 8, dropout=0.0, activation=a, layer_norm_eps=1e-3,
                                                 batch_first=bf, norm_first=norm_first)
                record(out, "enc" + tag, enc, [r(*shape(S))],
                       lambda m, x: m(x, src_mask=src_mask, src_key_padding_mask=masks["bool_kpm"]))
                dec = nn.TransformerDecoderLayer(E, H, 8, dropout=0.0, activation=a, layer_norm_eps=1e-3,
                                                 batch_first=bf, norm_first=norm_first)
                record(out, "dec" + tag, dec, [r(*shape(L)), r(*shape(S))],
                       lambda m, t, mem: m(t, mem, tgt_mask=tgt_mask, memory_mask=mem_mask,
                                           tgt_key_padding_mask=torch.tensor([[False, False, True], [False] * 3]),
                                           memory_key_padding_mask=masks["bool_kpm"]))
    stack = nn.TransformerEncoder(nn.TransformerEncoderLayer(E, H, 8, dropout=0.0, norm_first=True), 2,
                                  norm=nn.LayerNorm(E, eps=1e-4, elementwise_affine=False))
    record(out, "enc_stack_final_norm", stack, [r(S, B, E)],
           lambda m, x: m(x, mask=src_mask, src_key_padding_mask=masks["bool_kpm"]))


def stack_cases(out):
    """Whole transformer stacks with every mask, and scaled_dot_product_attention's
    mask broadcasting (drawn after attention_cases, so their inputs stay as they were)."""
    L, S, B, E, H = 3, 5, 2, 6, 2
    src_mask, tgt_mask, mem_mask = out["mask.src_float"], out["mask.tgt_causal"], out["mask.bool2d"]
    src_kpm, tgt_kpm = out["mask.bool_kpm"], torch.tensor([[False, False, True], [False] * 3])
    full = nn.Transformer(E, H, 2, 2, 8, dropout=0.0, activation="gelu", layer_norm_eps=1e-3, batch_first=True,
                          norm_first=True)
    record(out, "transformer_all_masks", full, [r(B, S, E), r(B, L, E)],
           lambda m, src, tgt: m(src, tgt, src_mask=src_mask, tgt_mask=tgt_mask, memory_mask=mem_mask,
                                 src_key_padding_mask=src_kpm, tgt_key_padding_mask=tgt_kpm,
                                 memory_key_padding_mask=src_kpm))
    dec = nn.TransformerDecoder(nn.TransformerDecoderLayer(E, H, 8, dropout=0.0), 2, norm=nn.LayerNorm(E, eps=1e-3))
    record(out, "dec_stack_final_norm", dec, [r(L, B, E), r(S, B, E)],
           lambda m, t, mem: m(t, mem, tgt_mask=tgt_mask, memory_key_padding_mask=src_kpm))
    enc = nn.TransformerEncoderLayer(E, H, 8, dropout=0.0, activation=nn.GELU(approximate="tanh"))
    record(out, "enc_activation_module", enc, [r(S, B, E)], lambda m, x: m(x, src_key_padding_mask=src_kpm))
    enc = nn.TransformerEncoderLayer(E, H, 8, dropout=0.0, activation=F.silu, norm_first=True)
    record(out, "enc_activation_fn_unbatched", enc, [r(S, E)], lambda m, x: m(x, src_mask=src_mask))
    # ---- pools: the last ceil_mode window that would start in the padding is dropped;
    # LPPool of signed inputs (p = 3 keeps the sign of the window's sum); NaN wins
    x9, x9b = r(2, 2, 9), r(1, 2, 9, 7)
    record(out, "maxpool1d_ceil_drop", nn.MaxPool1d(2, 2, padding=1, ceil_mode=True, return_indices=True), [x9])
    record(out, "avgpool1d_ceil_drop", nn.AvgPool1d(2, 2, padding=1, ceil_mode=True), [x9])
    record(out, "avgpool2d_ceil_drop_cip", nn.AvgPool2d(2, 2, padding=1, ceil_mode=True, count_include_pad=True), [x9b])
    record(out, "maxpool2d_ceil_drop", nn.MaxPool2d(2, 2, padding=1, ceil_mode=True), [x9b])
    record(out, "lppool1d_ceil_drop", nn.LPPool1d(2, 2, 2, ceil_mode=True), [x9.abs() + 0.1])
    for p in [1.0, 3.0]:
        record(out, f"lppool2d_signed_p{int(p)}", nn.LPPool2d(p, 2, 2), [x9b])
    nan = r(1, 2, 6, 6)
    nan[0, 0, 1, 1] = float("nan")
    nan[0, 1, 4, 0] = float("nan")
    out["pool_nan.input"] = nan
    record(out, "maxpool2d_nan", nn.MaxPool2d(3, 2, return_indices=True), [nan], lambda m, x: m(x.detach()))
    record(out, "adaptivemax2d_nan", nn.AdaptiveMaxPool2d(4, return_indices=True), [nan], lambda m, x: m(x.detach()))
    record(out, "avgpool2d_nan", nn.AvgPool2d(2), [nan], lambda m, x: m(x.detach()))
    record(out, "adaptiveavg2d_nan", nn.AdaptiveAvgPool2d(4), [nan], lambda m, x: m(x.detach()))
    # ---- unbatched [C, *] inputs of the pools, fold/unfold and pixel shuffles
    u2, u1 = r(2, 5, 6), r(3, 7)
    record(out, "unb_maxpool2d_idx", nn.MaxPool2d(2, 2, padding=1, return_indices=True), [u2])
    record(out, "unb_avgpool1d", nn.AvgPool1d(3, 2, padding=1, count_include_pad=False), [u1])
    record(out, "unb_avgpool2d_div", nn.AvgPool2d(2, ceil_mode=True, divisor_override=3), [u2])
    record(out, "unb_adaptivemax2d_idx", nn.AdaptiveMaxPool2d((2, 4), return_indices=True), [u2])
    record(out, "unb_adaptiveavg1d", nn.AdaptiveAvgPool1d(4), [u1])
    record(out, "unb_lppool2d", nn.LPPool2d(2, 2), [u2])
    record(out, "unb_unfold", nn.Unfold(2, padding=1), [u2])
    record(out, "unb_pixel_unshuffle", nn.PixelUnshuffle(2), [r(2, 4, 6)])
    pu = nn.MaxPool2d(2, return_indices=True)
    record(out, "unb_maxunpool2d", nn.MaxUnpool2d(2), [u2], lambda m, x: m(*pu(x), output_size=[5, 6]))
    # ---- MultiheadAttention's float masks as inputs: their gradients
    record(out, "mha_float_mask_grad", nn.MultiheadAttention(E, H), [r(L, B, E), r(S, B, E), r(B * H, L, S)],
           lambda m, q, kv, am: flat(*m(q, kv, kv, attn_mask=am)))
    record(out, "mha_float_kpm_grad", nn.MultiheadAttention(E, H, batch_first=True), [r(B, L, E), r(B, S, E), r(B, S)],
           lambda m, q, kv, kpm: flat(*m(q, kv, kv, key_padding_mask=kpm)))
    # ---- the defaults: each layer made with its required arguments only
    defaults = [
        ("default_layernorm", nn.LayerNorm(5), [r(2, 3, 5)]),
        ("default_groupnorm", nn.GroupNorm(2, 4), [r(2, 4, 3)]),
        ("default_lrn", nn.LocalResponseNorm(3), [r(2, 5, 4) * 30]),
        ("default_instancenorm", nn.InstanceNorm1d(3), [r(2, 3, 5)]),
        ("default_batchnorm", nn.BatchNorm1d(3), [r(4, 3)]),
        ("default_upsample", nn.Upsample(scale_factor=2), [r(1, 2, 3, 2)]),
        ("default_upsample_bilinear", nn.Upsample(scale_factor=1.5, mode="bilinear"), [r(1, 2, 3, 2)]),
        ("default_avgpool", nn.AvgPool2d(2), [r(1, 2, 5, 4)]),
        ("default_lppool", nn.LPPool1d(2, 3), [r(1, 2, 7)]),
        ("default_unfold", nn.Unfold(2), [r(1, 2, 3, 4)]),
        ("default_transformer_layer", nn.TransformerEncoderLayer(6, 2, 8).eval(), [r(4, 2, 6)]),  # 2048 wide is 0.4 MB
        ("default_embedding_bag", nn.EmbeddingBag(7, 3), [torch.tensor([[1, 2, 6], [0, 0, 3]])]),
        ("default_rnn", nn.RNN(3, 4), [r(5, 2, 3)]),
        ("default_conv_transpose", nn.ConvTranspose2d(2, 3, 3), [r(1, 2, 3, 4)]),
    ]
    for name, layer, inputs in defaults:
        record(out, name, layer, inputs, lambda m, x: (lambda y: flat(*y) if isinstance(y, tuple) else y)(m(x)))
    mha = nn.MultiheadAttention(E, H)
    record(out, "default_mha", mha, [r(L, B, E), r(S, B, E)], lambda m, q, kv: flat(*m(q, kv, kv)))
    # ---- scaled_dot_product_attention: masks broadcast over batch and heads
    q, k, v = r(2, 3, 4, 5), r(2, 3, 6, 5), r(2, 3, 6, 2)
    bmask = torch.rand(2, 1, 4, 6) > 0.4
    bmask[..., 0] = True
    out["sdpa.bool_b1"] = bmask
    record(out, "sdpa_bool_b1", None, [q, k, v], fn(lambda q, k, v: sdpa(q, k, v, mask=bmask)))
    record(out, "sdpa_float_1h", None, [q, k, v, r(1, 3, 4, 6)], fn(lambda q, k, v, m: sdpa(q, k, v, mask=m)))
    record(out, "sdpa_float_row", None, [q, k, v, r(6)], fn(lambda q, k, v, m: sdpa(q, k, v, mask=m)))
    fmask = r(4, 6)
    fmask[1, 2:] = float("-inf")
    record(out, "sdpa_float_neg_inf", None, [q, k, v, fmask], fn(lambda q, k, v, m: sdpa(q, k, v, mask=m)))
    record(out, "sdpa_causal_tall", None, [r(2, 6, 3), r(2, 4, 3), r(2, 4, 3)],
           fn(lambda q, k, v: sdpa(q, k, v, is_causal=True)))
    record(out, "sdpa_2d", None, [r(4, 5), r(6, 5), r(6, 3)], fn(lambda q, k, v: sdpa(q, k, v, scale=0.7)))


def conv_pool_cases(out):
    # ---- padding "same" with dilation and even kernels
    record(out, "conv1d_same_even_dil", nn.Conv1d(2, 3, 4, padding="same", dilation=3), [r(2, 2, 11)])
    record(out, "conv2d_same_even_dil", nn.Conv2d(2, 2, (2, 4), padding="same", dilation=(3, 2)), [r(1, 2, 6, 7)])
    record(out, "conv3d_same_even", nn.Conv3d(2, 2, (2, 3, 4), padding="same", dilation=(2, 1, 1)), [r(1, 2, 5, 4, 6)])
    record(out, "conv2d_same_groups", nn.Conv2d(4, 6, 3, padding="same", dilation=2, groups=2), [r(2, 4, 5, 6)])
    # ---- padding modes with strides, groups and dilation
    for mode in ["reflect", "replicate", "circular"]:
        record(out, f"conv1d_{mode}", nn.Conv1d(4, 2, 3, stride=2, padding=2, groups=2, padding_mode=mode),
               [r(2, 4, 9)])
        record(out, f"conv2d_{mode}", nn.Conv2d(2, 3, (3, 2), stride=(2, 1), padding=(1, 2), dilation=(1, 2),
                                                padding_mode=mode), [r(2, 2, 6, 5)])
        record(out, f"conv3d_{mode}", nn.Conv3d(2, 2, 3, padding=(1, 2, 1), padding_mode=mode), [r(1, 2, 4, 5, 3)])
        record(out, f"conv2d_{mode}_same", nn.Conv2d(2, 2, 4, padding="same", padding_mode=mode), [r(1, 2, 5, 6)])
        if mode != "circular":  # 1.13's circular pad refuses an unbatched input
            record(out, f"conv1d_{mode}_unbatched", nn.Conv1d(2, 2, 3, padding=1, padding_mode=mode), [r(2, 6)])
            record(out, f"conv2d_{mode}_unbatched", nn.Conv2d(2, 2, 3, padding=1, padding_mode=mode), [r(2, 4, 6)])
    # ---- transposed: output_padding with dilation and groups, output_size
    record(out, "convt1d_outpad_dil_groups", nn.ConvTranspose1d(4, 6, 3, stride=3, padding=1, output_padding=2,
                                                                groups=2, dilation=2), [r(2, 4, 5)])
    record(out, "convt2d_outpad_dil_groups", nn.ConvTranspose2d(4, 2, (3, 2), stride=(2, 3), padding=(1, 0),
                                                                output_padding=(1, 2), groups=2, dilation=(2, 3)),
           [r(1, 4, 4, 3)])
    record(out, "convt2d_output_size_dil", nn.ConvTranspose2d(2, 4, 3, stride=2, padding=1, dilation=2, groups=2),
           [r(2, 2, 4, 5)], lambda m, x: m(x, output_size=[10, 12]))
    record(out, "convt3d_outpad", nn.ConvTranspose3d(2, 2, 2, stride=(2, 3, 2), output_padding=(1, 2, 0)),
           [r(1, 2, 2, 3, 2)])
    record(out, "convt1d_output_size_nobias", nn.ConvTranspose1d(3, 2, 4, stride=3, padding=2, bias=False),
           [r(2, 3, 4)], lambda m, x: m(x, output_size=(1, 2, 10)))
    # ---- pools
    x1, x2, x3 = r(2, 3, 10), r(2, 2, 7, 9), r(1, 2, 5, 7, 6)
    record(out, "maxpool1d_ceil_dil", nn.MaxPool1d(3, 2, padding=1, dilation=2, ceil_mode=True, return_indices=True),
           [x1])
    record(out, "maxpool2d_ceil_dil", nn.MaxPool2d((3, 2), (2, 3), padding=(1, 1), dilation=(1, 2), ceil_mode=True,
                                                   return_indices=True), [x2])
    record(out, "maxpool3d_ceil", nn.MaxPool3d(2, (2, 3, 2), padding=1, ceil_mode=True, return_indices=True), [x3])
    for ceil in [False, True]:
        for cip in [False, True]:
            tag = ("_ceil" if ceil else "") + ("_cip" if cip else "")
            record(out, "avgpool1d" + tag, nn.AvgPool1d(3, 2, padding=1, ceil_mode=ceil, count_include_pad=cip), [x1])
            record(out, "avgpool2d" + tag, nn.AvgPool2d((3, 4), (2, 3), padding=(1, 2), ceil_mode=ceil,
                                                        count_include_pad=cip), [x2])
            record(out, "avgpool3d" + tag, nn.AvgPool3d(3, 2, padding=1, ceil_mode=ceil, count_include_pad=cip), [x3])
            record(out, "avgpool2d_div" + tag, nn.AvgPool2d(3, 2, padding=1, ceil_mode=ceil, count_include_pad=cip,
                                                            divisor_override=5), [x2])
    record(out, "avgpool3d_div", nn.AvgPool3d(2, 2, ceil_mode=True, divisor_override=3), [x3])
    p1 = nn.MaxPool1d(3, 2, padding=1, return_indices=True)
    record(out, "maxunpool1d_size", nn.MaxUnpool1d(3, 2, padding=1), [x1], lambda m, x: m(*p1(x), output_size=[10]))
    p2 = nn.MaxPool2d(3, 2, padding=1, return_indices=True)
    record(out, "maxunpool2d_size", nn.MaxUnpool2d(3, 2, padding=1), [x2],
           lambda m, x: m(*p2(x), output_size=[2, 2, 8, 9]))
    for p in [1.0, 2.0, 3.5]:
        for ceil in [False, True]:
            tag = f"_p{int(p * 10)}" + ("_ceil" if ceil else "")
            record(out, "lppool1d" + tag, nn.LPPool1d(p, 3, 2, ceil_mode=ceil), [x1.abs() + 0.1])
            record(out, "lppool2d" + tag, nn.LPPool2d(p, (2, 3), (2, 2), ceil_mode=ceil), [x2.abs() + 0.1])
    record(out, "adaptivemax1d_idx", nn.AdaptiveMaxPool1d(4, return_indices=True), [x1])
    record(out, "adaptivemax2d_idx", nn.AdaptiveMaxPool2d((3, 4), return_indices=True), [x2])
    record(out, "adaptivemax3d_idx", nn.AdaptiveMaxPool3d((2, 3, 4), return_indices=True), [x3])
    record(out, "adaptiveavg2d_odd", nn.AdaptiveAvgPool2d((4, 5)), [x2])
    # ---- fold / unfold, pixel shuffle
    record(out, "unfold_dil_pad_stride", nn.Unfold((2, 3), dilation=(2, 1), padding=(1, 2), stride=(2, 3)), [x2])
    record(out, "fold_dil_pad_stride", nn.Fold((6, 7), (2, 3), dilation=(2, 1), padding=(1, 1), stride=(1, 2)),
           [r(2, 3 * 6, 24)])
    record(out, "fold_unbatched", nn.Fold((4, 5), 2), [r(4 * 4, 12)])
    record(out, "pixel_shuffle3", nn.PixelShuffle(3), [r(2, 18, 2, 3)])
    record(out, "pixel_unshuffle3", nn.PixelUnshuffle(3), [r(1, 2, 6, 9)])
    record(out, "pixel_shuffle_unbatched", nn.PixelShuffle(2), [r(8, 2, 3)])
    # ---- upsample
    u1, u2, u3 = r(2, 2, 5), r(1, 2, 4, 5), r(1, 2, 3, 4, 3)
    ups = [
        ("up_nearest_exact_1d", dict(scale_factor=1.7, mode="nearest-exact"), u1),
        ("up_nearest_exact_2d", dict(size=(7, 3), mode="nearest-exact"), u2),
        ("up_nearest_2d_frac", dict(scale_factor=(1.5, 0.6), mode="nearest"), u2),
        ("up_nearest_3d", dict(scale_factor=(2, 1.5, 1), mode="nearest"), u3),
        ("up_linear_1d", dict(scale_factor=2.5, mode="linear"), u1),
        ("up_linear_1d_align", dict(size=8, mode="linear", align_corners=True), u1),
        ("up_linear_1d_recompute", dict(scale_factor=1.7, mode="linear", recompute_scale_factor=True), u1),
        ("up_bilinear_frac", dict(scale_factor=(1.3, 2.2), mode="bilinear"), u2),
        ("up_bilinear_recompute", dict(scale_factor=(1.3, 2.2), mode="bilinear", recompute_scale_factor=True), u2),
        ("up_bilinear_align", dict(size=(6, 9), mode="bilinear", align_corners=True), u2),
        ("up_bilinear_down", dict(scale_factor=0.6, mode="bilinear"), u2),
        ("up_bicubic_frac", dict(scale_factor=1.6, mode="bicubic"), u2),
        ("up_bicubic_align", dict(size=(5, 8), mode="bicubic", align_corners=True), u2),
        ("up_trilinear", dict(scale_factor=(1.5, 2, 1.2), mode="trilinear"), u3),
        ("up_trilinear_align", dict(size=(4, 6, 5), mode="trilinear", align_corners=True), u3),
        ("up_trilinear_recompute", dict(scale_factor=1.7, mode="trilinear", recompute_scale_factor=True), u3),
        # a dim whose size the scale keeps is copied by the linear modes (1.1 x 5 -> 5, 1.2 x 4 -> 4)
        ("up_linear_1d_same_size", dict(scale_factor=1.1, mode="linear"), u1),
        ("up_bilinear_one_dim_same", dict(scale_factor=(1.2, 1.5), mode="bilinear"), u2),
        ("up_area_2d", dict(size=(3, 2), mode="area"), u2),
        ("up_area_1d", dict(size=3, mode="area"), u1),
        ("up_area_3d_scale", dict(scale_factor=0.5, mode="area"), u3),
    ]
    for name, kw, x in ups:
        record(out, name, nn.Upsample(**kw), [x])


def more_upsample_cases(out):
    """Drawn last (so the other cases keep their inputs): scale factors with
    align_corners, nearest-exact in 3-D, bicubic recomputed, linear downsampling."""
    u1, u2, u3 = r(2, 2, 5), r(1, 2, 4, 5), r(1, 2, 3, 4, 3)
    ups = [
        ("up_bilinear_scale_align", dict(scale_factor=1.7, mode="bilinear", align_corners=True), u2),
        ("up_linear_scale_align_down", dict(scale_factor=0.7, mode="linear", align_corners=True), u1),
        ("up_trilinear_scale_align", dict(scale_factor=(2, 1.5, 1.2), mode="trilinear", align_corners=True), u3),
        ("up_nearest_exact_3d", dict(scale_factor=(1.5, 0.8, 2.2), mode="nearest-exact"), u3),
        ("up_bicubic_recompute", dict(scale_factor=(1.3, 1.7), mode="bicubic", recompute_scale_factor=True), u2),
        ("up_linear_down", dict(scale_factor=0.45, mode="linear"), u1),
        ("up_bicubic_down_align", dict(size=(2, 3), mode="bicubic", align_corners=True), u2),
    ]
    for name, kw, x in ups:
        record(out, name, nn.Upsample(**kw), [x])


def bags_by_freq(weight, x, offsets, mode, pad=None):
    """EmbeddingBag(scale_grad_by_freq=True) by its definition, each bag reduced from
    F.embedding(scale_grad_by_freq=True)'s rows: PyTorch 1.13's CPU embedding_bag
    divides the gradients by the counts of other indices than their own (in sum mode
    index 3, seen once, gets 1/2 and index 4, seen twice, 1), a bug later releases fix."""
    rows = F.embedding(x, weight, padding_idx=pad, scale_grad_by_freq=True)
    ends = offsets.tolist()[1:] + [len(x)]
    bags = []
    for start, end in zip(offsets.tolist(), ends):
        keep = [i for i in range(start, end) if pad is None or x[i] != pad]
        total = rows[keep].sum(0) if keep else torch.zeros(weight.shape[1])
        bags.append(total / max(len(keep), 1) if mode == "mean" else total)
    return torch.stack(bags)


def embed_norm_cases(out):
    t = torch.tensor
    ids = t([[1, 5, 5], [0, 6, 1]])
    record(out, "emb_pad_neg", nn.Embedding(7, 3, padding_idx=-2), [ids])
    record(out, "emb_pad_neg_freq", nn.Embedding(7, 3, padding_idx=-1, scale_grad_by_freq=True),
           [t([6, 2, 2, 6, 2, 3])])
    record(out, "emb_freq", nn.Embedding(7, 3, scale_grad_by_freq=True), [ids])
    for p in [1.0, 2.0, 3.0, float("inf")]:
        tag = "inf" if p == float("inf") else str(int(p))
        emb = nn.Embedding(7, 4, max_norm=1.1, norm_type=p)
        with torch.no_grad():
            emb.weight.mul_(1.5)
        record(out, f"emb_max_norm_p{tag}", emb, [ids])
    emb = nn.Embedding(7, 4, max_norm=0.9, padding_idx=1, scale_grad_by_freq=True)
    record(out, "emb_max_norm_pad_freq", emb, [ids])
    idx = t([1, 2, 4, 5, 4, 3, 2, 0, 9, 9])
    offsets = t([0, 3, 3, 8])
    for mode in ["sum", "mean", "max"]:
        for last in [False, True]:
            for pad in [None, 4]:
                name = f"bag_{mode}" + ("_last" if last else "") + ("_pad" if pad is not None else "")
                offs = t([0, 3, 3, 8, 10]) if last else offsets
                record(out, name, nn.EmbeddingBag(10, 3, mode=mode, include_last_offset=last, padding_idx=pad),
                       [idx, offs], lambda m, x, o: m(x, o))
        if mode != "max":
            record(out, f"bag_{mode}_freq", nn.EmbeddingBag(10, 3, mode=mode, scale_grad_by_freq=True), [idx, offsets],
                   lambda m, x, o, mode=mode: bags_by_freq(m.weight, x, o, mode))
    record(out, "bag_mean_freq_pad", nn.EmbeddingBag(10, 3, mode="mean", scale_grad_by_freq=True, padding_idx=2),
           [idx, offsets], lambda m, x, o: bags_by_freq(m.weight, x, o, "mean", pad=2))
    record(out, "emb_fn_freq_pad", None, [ids, r(7, 3)],
           fn(lambda i, w: F.embedding(i, w, padding_idx=5, scale_grad_by_freq=True)))
    record(out, "bag_sum_psw_last_pad", nn.EmbeddingBag(10, 3, mode="sum", include_last_offset=True, padding_idx=2),
           [idx, t([0, 3, 3, 8, 10]), r(10)], lambda m, x, o, w: m(x, o, per_sample_weights=w))
    record(out, "bag_sum_psw_2d", nn.EmbeddingBag(10, 3, mode="sum"), [t([[1, 2, 4], [5, 4, 4]]), r(2, 3)],
           lambda m, x, w: m(x, per_sample_weights=w))
    # ---- norms
    x4 = r(2, 4, 3, 5)
    record(out, "layernorm_noaffine_2d", nn.LayerNorm((3, 5), elementwise_affine=False, eps=1e-3), [x4])
    record(out, "layernorm_affine_3d", nn.LayerNorm([4, 3, 5]), [x4])
    record(out, "groupnorm_noaffine", nn.GroupNorm(2, 4, affine=False, eps=1e-3), [x4])
    record(out, "groupnorm_1d", nn.GroupNorm(4, 4), [r(3, 4, 6)])
    record(out, "groupnorm_unbatched_ok", nn.GroupNorm(1, 4), [r(2, 4)])
    for dims, inp in [(1, r(2, 3, 6)), (2, r(2, 3, 4, 5)), (3, r(2, 3, 3, 2, 4))]:
        cls = {1: nn.InstanceNorm1d, 2: nn.InstanceNorm2d, 3: nn.InstanceNorm3d}[dims]
        for affine in [False, True]:
            for track in [False, True]:
                for train in [True, False]:
                    name = f"instnorm{dims}d" + ("_affine" if affine else "") + ("_track" if track else "") + \
                        ("_eval" if not train else "")
                    m = cls(3, affine=affine, track_running_stats=track, momentum=0.3)
                    if track:
                        with torch.no_grad():
                            m.running_mean.copy_(r(3))
                            m.running_var.copy_(torch.rand(3) + 0.5)
                    m.train(train)
                    record(out, name, m, [inp])
    record(out, "instnorm1d_unbatched", nn.InstanceNorm1d(3, affine=True), [r(3, 6)])
    for size in [1, 2, 3, 4]:
        record(out, f"lrn_{size}", nn.LocalResponseNorm(size, alpha=0.3, beta=0.6, k=1.5), [x4])
    record(out, "lrn_3d_input", nn.LocalResponseNorm(3), [r(2, 5, 4) * 3])
    record(out, "lrn_5d_input", nn.LocalResponseNorm(2, alpha=0.5), [r(1, 4, 2, 3, 2) * 3])
    for cls, inp in [(nn.BatchNorm1d, r(4, 3, 5)), (nn.BatchNorm2d, r(3, 3, 2, 4))]:
        d = "1d" if cls is nn.BatchNorm1d else "2d"
        for train in [True, False]:
            tag = "" if train else "_eval"
            record(out, f"bn{d}_notrack{tag}", cls(3, track_running_stats=False).train(train), [inp])
            record(out, f"bn{d}_noaffine_notrack{tag}", cls(3, affine=False, track_running_stats=False).train(train),
                   [inp])
        m = cls(3, momentum=None)
        with torch.no_grad():
            m.running_mean.copy_(r(3))
            m.num_batches_tracked.fill_(3)
        record(out, f"bn{d}_cumulative", m, [inp])
    record(out, "bn1d_2d_input_eval", nn.BatchNorm1d(3).eval(), [r(4, 3)])


def init_layers():
    """(name, layer) for init_cases: each one large enough that its parameters'
    statistics pin down the distribution PyTorch draws them from."""
    return [
        ("linear", nn.Linear(300, 1000)),
        ("bilinear", nn.Bilinear(40, 30, 800)),
        ("conv1d_groups", nn.Conv1d(32, 400, 5, groups=4)),
        ("conv2d_groups", nn.Conv2d(16, 512, 3, groups=2)),
        ("conv3d", nn.Conv3d(8, 300, 3)),
        ("convt1d_groups", nn.ConvTranspose1d(32, 400, 5, groups=4)),
        ("convt2d_groups", nn.ConvTranspose2d(64, 512, 3, groups=2)),
        ("convt3d", nn.ConvTranspose3d(300, 8, 3)),
        ("convt3d_wide", nn.ConvTranspose3d(8, 300, 3)),
        ("rnn", nn.RNN(50, 300, num_layers=2)),
        ("lstm_proj_bi", nn.LSTM(50, 300, proj_size=40, bidirectional=True)),
        ("gru", nn.GRU(50, 300)),
        ("lstmcell", nn.LSTMCell(50, 300)),
        ("grucell", nn.GRUCell(50, 300)),
        ("rnncell", nn.RNNCell(50, 300)),
        ("mha", nn.MultiheadAttention(512, 4)),
        ("mha_kdim_bias_kv", nn.MultiheadAttention(512, 4, kdim=100, vdim=200, add_bias_kv=True)),
        ("encoder_layer", nn.TransformerEncoderLayer(256, 4, 1024)),
        ("decoder_layer", nn.TransformerDecoderLayer(256, 4, 1024)),
        ("transformer", nn.Transformer(128, 4, 1, 1, 512)),
        ("embedding_pad", nn.Embedding(1000, 20, padding_idx=3)),
        ("embedding_bag", nn.EmbeddingBag(1000, 20)),
        ("prelu", nn.PReLU(300)),
        ("batchnorm", nn.BatchNorm2d(300)),
        ("layernorm", nn.LayerNorm([30, 20])),
        ("groupnorm", nn.GroupNorm(4, 400)),
        ("instancenorm_affine", nn.InstanceNorm2d(300, affine=True)),
    ]


def init_cases(out):
    """Per parameter: init.<layer>.<key> = [mean, std, max |p|, numel] of PyTorch's
    draw, and the padding row of embedding_pad (zeros)."""
    for name, layer in init_layers():
        for key, p in layer.named_parameters():
            p = p.detach()
            out[f"init.{name}.{key}"] = torch.stack([p.mean(), p.std(), p.abs().max(), torch.tensor(float(p.numel()))])


def main():
    torch.manual_seed(0)
    torch.set_default_dtype(torch.float64)
    out = {}
    recurrent_cases(out)
    attention_cases(out)
    conv_pool_cases(out)
    embed_norm_cases(out)
    init_cases(out)
    stack_cases(out)
    more_upsample_cases(out)
    sweep_cases(out)
    mha_sweep_cases(out)
    write_safetensors(OUT, out)
    print(f"{OUT}: {len(out)} tensors, {OUT.stat().st_size} bytes")


if __name__ == "__main__":
    main()
