"""The random option sweeps of make_layers_vs_torch6.py (tests/stdlib/
test_layer_sweep_vs_torch6.dsl): convolutions, pools, upsamplings and
MultiheadAttention configurations drawn from a generator of their own, each case
saved by make_layer_options.record with its options as cfg.<case> (numbers; -1 for
none) in the layouts CONV_CFG, POOL_CFG, UP_CFG and MHA_CFG, which the test reads
back to make the same layer.
"""
import torch
import torch.nn as nn

from make_layer_options import record


def flat_attention(out, weights):
    """MultiheadAttention's output and weights (when it returns them) as one vector."""
    return torch.cat([out.reshape(-1)] + ([weights.reshape(-1)] if weights is not None else []))


PAD_MODES = ["zeros", "reflect", "replicate", "circular"]
UP_MODES = ["nearest", "nearest-exact", "linear", "bilinear", "bicubic", "trilinear", "area"]
# conv: [dims, in, out, groups, bias, padding_mode, padding kind (0 ints, 1 same, 2 valid),
#        transposed, unbatched, output_size given, k * 3, stride * 3, dilation * 3,
#        padding * 3, output_padding * 3, input size * 3]
CONV_CFG = "dims in out groups bias pmode pkind transposed unbatched outsize k3 s3 d3 p3 op3 n3"


def pick(g, options):
    return options[int(torch.randint(len(options), (1,), generator=g))]


def random_conv(g):
    d = pick(g, [1, 2, 3])
    groups = pick(g, [1, 2])
    transposed = pick(g, [0, 0, 1])
    small = d == 3  # volumes stay small: the file holds inputs, outputs and gradients
    k = [pick(g, [1, 2, 3] if small else [1, 2, 3, 4]) for _ in range(d)]
    dil = [pick(g, [1] if small else [1, 1, 2]) for _ in range(d)]
    stride = [pick(g, [1, 1, 2, 3]) for _ in range(d)]
    pkind = 0 if transposed else pick(g, [0, 0, 0, 1, 2])
    if pkind == 1:
        stride = [1] * d
    pmode = 0 if transposed else pick(g, [0, 1, 2, 3])
    eff = [dil[i] * (k[i] - 1) + 1 for i in range(d)]
    pad = [pick(g, [0, 1, 2, 3]) if pkind == 0 else 0 for i in range(d)]
    if transposed:
        pad = [min(pad[i], eff[i] - 1) for i in range(d)]
    n = [max(eff[i], pad[i] + 1) + pick(g, [0, 1, 2] if small else [0, 1, 2, 3, 4]) for i in range(d)]
    op = [pick(g, list(range(max(stride[i], dil[i])))) if transposed else 0 for i in range(d)]
    unbatched = pick(g, [0, 0, 0, 1]) if not (pmode == 3 or (pmode and d == 1)) else 0
    outsize = pick(g, [0, 1]) if transposed else 0
    cfg = [d, 2 * groups, pick(g, [1, 2]) * groups, groups, pick(g, [0, 1]), pmode, pkind, transposed, unbatched,
           outsize]
    for v in [k, stride, dil, pad, op, n]:
        cfg += v + [0] * (3 - d)
    return cfg


def conv_from_cfg(c):
    d, cin, cout, groups, bias, pmode, pkind, transposed, unbatched, outsize = c[:10]
    k, stride, dil, pad, op, n = [c[10 + 3 * j:10 + 3 * j + d] for j in range(6)]
    if transposed:
        cls = [nn.ConvTranspose1d, nn.ConvTranspose2d, nn.ConvTranspose3d][d - 1]
        return cls(cin, cout, k, stride=stride, padding=pad, output_padding=op, groups=groups, bias=bool(bias),
                   dilation=dil)
    cls = [nn.Conv1d, nn.Conv2d, nn.Conv3d][d - 1]
    padding = pad if pkind == 0 else ["same", "valid"][pkind - 1]
    return cls(cin, cout, k, stride=stride, padding=padding, dilation=dil, groups=groups, bias=bool(bias),
               padding_mode=PAD_MODES[pmode])


# pool: [kind (0 max, 1 avg, 2 lp), dims, ceil, count_include_pad, divisor_override,
#        return_indices, lp norm, unbatched, k * 3, stride * 3, padding * 3, dilation * 3, n * 3]
POOL_CFG = "kind dims ceil cip divisor indices p unbatched k3 s3 p3 d3 n3"


def random_pool(g):
    kind = pick(g, [0, 1, 2])
    d = pick(g, [1, 2] if kind == 2 else [1, 2, 3])
    k = [pick(g, [1, 2, 3, 4]) for _ in range(d)]
    stride = [pick(g, [1, 2, 3]) for _ in range(d)]
    dil = [pick(g, [1, 2]) if kind == 0 else 1 for _ in range(d)]
    eff = [dil[i] * (k[i] - 1) + 1 for i in range(d)]
    pad = [pick(g, list(range(k[i] // 2 + 1))) if kind < 2 else 0 for i in range(d)]
    n = [eff[i] + pick(g, [0, 1, 2, 3, 5]) for i in range(d)]
    divisor = pick(g, [-1, -1, 3]) if kind == 1 and d > 1 else -1
    cfg = [kind, d, pick(g, [0, 1]), pick(g, [0, 1]) if kind == 1 else 1, divisor, pick(g, [0, 1]) if kind == 0 else 0,
           pick(g, [1.0, 2.0, 3.0]) if kind == 2 else 0, pick(g, [0, 0, 1])]
    for v in [k, stride, pad, dil, n]:
        cfg += v + [0] * (3 - d)
    return cfg


def pool_from_cfg(c):
    kind, d, ceil, cip, divisor, indices, p, unbatched = c[:8]
    k, stride, pad, dil, n = [c[8 + 3 * j:8 + 3 * j + d] for j in range(5)]
    ceil = bool(ceil)
    if kind == 0:
        cls = [nn.MaxPool1d, nn.MaxPool2d, nn.MaxPool3d][d - 1]
        return cls(k, stride, pad, dil, return_indices=bool(indices), ceil_mode=ceil)
    if kind == 1:
        if d == 1:
            return nn.AvgPool1d(k, stride, pad, ceil_mode=ceil, count_include_pad=bool(cip))
        cls = [nn.AvgPool2d, nn.AvgPool3d][d - 2]
        return cls(k, stride, pad, ceil_mode=ceil, count_include_pad=bool(cip),
                   divisor_override=None if divisor < 0 else divisor)
    if d == 1:  # 1.13's lp_pool1d multiplies by kernel_size: an int only
        return nn.LPPool1d(p, k[0], stride[0], ceil_mode=ceil)
    return nn.LPPool2d(p, k, stride, ceil_mode=ceil)


# upsample: [mode, dims, size given, align_corners (-1 none), recompute, n * 3,
#            size * 3, scale * 3]
UP_CFG = "mode dims by_size align recompute n3 size3 scale3"


def random_upsample(g):
    d = pick(g, [1, 2, 3])
    mode = pick(g, {1: [0, 1, 2, 6], 2: [0, 1, 3, 4, 6], 3: [0, 1, 5, 6]}[d])
    by_size = pick(g, [0, 1])
    n = [pick(g, [1, 2, 3, 4, 5, 7]) for _ in range(d)]
    size = [pick(g, [1, 2, 3, 4, 6, 9]) for _ in range(d)]
    scale = [pick(g, [0.5, 0.7, 1.0, 1.2, 1.5, 2.0, 2.5, 3.0]) for _ in range(d)]
    scale = [v if n[i] * v >= 1 else 1.0 for i, v in enumerate(scale)]  # an empty output is an error
    if mode == 0:
        # 1.13's nearest backward copies where out == in and halves where out == 2 * in,
        # whatever the scale, unlike its forward (tensor/resample.cpp): not compared
        scale = [1.0 if int(n[i] * v) == n[i] else 2.0 if int(n[i] * v) == 2 * n[i] else v
                 for i, v in enumerate(scale)]
    if mode == 4 and all(int(n[i] * v) == n[i] for i, v in enumerate(scale)):
        scale = [1.0] * d  # its bicubic backward copies where both sizes are kept, its forward does not
    align = pick(g, [-1, 0, 1]) if mode in (2, 3, 4, 5) else -1
    recompute = pick(g, [0, 1]) if not by_size else 0
    cfg = [mode, d, by_size, align, recompute]
    for v in [n, size, scale]:
        cfg += v + [0] * (3 - d)
    return cfg


def upsample_from_cfg(c):
    mode, d, by_size, align, recompute = [int(v) for v in c[:5]]
    size = [int(v) for v in c[8:8 + d]]
    scale = c[11:11 + d]
    return nn.Upsample(size=tuple(size) if by_size else None, scale_factor=None if by_size else tuple(scale),
                       mode=UP_MODES[mode], align_corners=None if align < 0 else bool(align),
                       recompute_scale_factor=bool(recompute) if not by_size else None)


def sweep_cases(out, count=40, seed=6):
    """count random convolutions, pools and upsamplings (a generator of its own, so
    the cases above keep their draws)."""
    g = torch.Generator().manual_seed(seed)
    for i in range(count):
        c = random_conv(g)
        d, cin, unbatched, outsize = c[0], c[1], c[8], c[9]
        n = c[25:25 + d]
        x = torch.randn(*([] if unbatched else [1 + (d < 3)]), cin, *n, generator=g)
        layer = conv_from_cfg(c)
        name = f"sweep_conv{i}"
        out[f"cfg.{name}"] = torch.tensor(c, dtype=torch.float64)
        if outsize:
            # the largest size the input allows: the one output_padding = stride - 1 makes
            full = layer(x).shape[-d:]
            extra = [c[13 + j] - 1 - c[22 + j] for j in range(d)]
            want = [full[j] + extra[j] for j in range(d)]
            out[f"cfg.{name}.output_size"] = torch.tensor(want, dtype=torch.float64)
            record(out, name, layer, [x], lambda m, x, want=want: m(x, output_size=want))
        else:
            record(out, name, layer, [x])
    for i in range(count):
        c = random_pool(g)
        d, unbatched = c[1], c[7]
        x = torch.randn(*([] if unbatched else [2]), 2, *c[20:20 + d], generator=g)
        if c[0] == 2:
            x = x.abs() + 0.1
        out[f"cfg.sweep_pool{i}"] = torch.tensor(c, dtype=torch.float64)
        record(out, f"sweep_pool{i}", pool_from_cfg(c), [x])
    for i in range(count):
        c = random_upsample(g)
        x = torch.randn(2, 2, *c[5:5 + c[1]], generator=g)
        out[f"cfg.sweep_up{i}"] = torch.tensor(c, dtype=torch.float64)
        record(out, f"sweep_up{i}", upsample_from_cfg(c), [x])


# mha: [heads, embed_dim, L, S, batch, kdim (-1 none), vdim, bias, add_bias_kv,
#       add_zero_attn, batch_first, unbatched, need_weights, average_attn_weights,
#       attn_mask kind, key_padding_mask kind]; the masks are mask.<case> and kpm.<case>
MHA_CFG = "heads E L S B kdim vdim bias bias_kv zero_attn batch_first unbatched need_weights average mask kpm"
MHA_MASKS = [None, "bool2", "float2", "bool3", "float3"]
KPM_KINDS = [None, "bool", "float"]


def random_mha(g):
    heads = pick(g, [1, 2, 3])
    cfg = [heads, heads * pick(g, [1, 2, 3]), pick(g, [1, 2, 4]), pick(g, [1, 3, 5]), pick(g, [1, 2]),
           pick(g, [-1, -1, 4]), pick(g, [-1, -1, 5])] + [pick(g, [0, 1]) for _ in range(4)]
    unbatched = pick(g, [0, 0, 1])
    mask = pick(g, [0, 1, 2]) if unbatched else pick(g, [0, 1, 2, 3, 4])
    # 1.13 refuses a float key_padding_mask beside a float attn_mask and ors it into a
    # bool one (PyTorch 2 adds both, as nabla): a float one goes alone
    kpm = pick(g, [0, 1] if mask else [0, 1, 2])
    return cfg + [unbatched, pick(g, [0, 1]), pick(g, [0, 1]), mask, kpm]


def mha_sweep_cases(out, count=40, seed=6):
    """count random MultiheadAttention configurations (MHA_CFG), every option and mask."""
    g = torch.Generator().manual_seed(seed)
    for i in range(count):
        c = random_mha(g)
        heads, e, L, S, B, kdim, vdim, bias, bias_kv, zero_attn, bf, unbatched, nw, avg, mk, kk = c
        m = nn.MultiheadAttention(e, heads, bias=bool(bias), add_bias_kv=bool(bias_kv), add_zero_attn=bool(zero_attn),
                                  kdim=None if kdim < 0 else kdim, vdim=None if vdim < 0 else vdim,
                                  batch_first=bool(bf))
        batch = [] if unbatched else [B]
        shape = (lambda n, d: [n, *batch, d]) if not bf else (lambda n, d: [*batch, n, d])
        q = torch.randn(*shape(L, e), generator=g)
        k = torch.randn(*shape(S, e if kdim < 0 else kdim), generator=g)
        v = torch.randn(*shape(S, e if vdim < 0 else vdim), generator=g)
        name = f"sweep_mha{i}"
        mask, kpm = None, None
        if MHA_MASKS[mk]:
            dims = [L, S] if MHA_MASKS[mk].endswith("2") else [B * heads, L, S]
            mask = torch.rand(*dims, generator=g) > 0.6 if mk in (1, 3) else torch.randn(*dims, generator=g)
            out[f"mask.{name}"] = mask
        if KPM_KINDS[kk]:
            kpm = torch.rand(*batch, S, generator=g) > 0.6 if kk == 1 else torch.randn(*batch, S, generator=g)
            out[f"kpm.{name}"] = kpm
        for t in [mask, kpm]:
            if t is not None and t.dtype == torch.bool:
                t[..., 0] = False  # every query keeps a key (1.13's softmax of none is NaN)
        out[f"cfg.{name}"] = torch.tensor(c, dtype=torch.float64)
        record(out, name, m, [q, k, v],
               lambda m, q, k, v, mask=mask, kpm=kpm, nw=bool(nw), avg=bool(avg):
               flat_attention(*m(q, k, v, attn_mask=mask, key_padding_mask=kpm, need_weights=nw,
                                 average_attn_weights=avg)))
