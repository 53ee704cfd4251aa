# Round 6 against PyTorch 1.13, random option sweeps: 40 convolutions (1-, 2- and 3-D,
# transposed too, with random kernels, strides, dilations, paddings, "same"/"valid",
# padding modes, groups, bias, output_padding, forward's output_size, unbatched input),
# 40 pools (max with dilation and indices, avg with count_include_pad and
# divisor_override, LPPool; ceil_mode) and 40 upsamplings (every mode, by size or by
# scale, align_corners, recompute_scale_factor), and 40 MultiheadAttention
# configurations (every option; bool and float masks, 2-D and 3-D; a float
# key_padding_mask alone: 1.13 refuses it beside a float attn_mask and ors it into a
# bool one, where PyTorch 2 and nabla add them). Each case's options are cfg.<case> in
# tests/stdlib/reference/layers_vs_torch6.safetensors (written by
# tests/stdlib/reference/make_layers_vs_torch6.py with layer_sweeps_vs_torch6.py's
# sweep_cases and mha_sweep_cases, whose CONV_CFG, POOL_CFG, UP_CFG and MHA_CFG give
# the layouts); the layer made from
# them here is compared with PyTorch's: outputs (indices exactly) and the gradients of
# sum(y0 * g).
import nn
import "vs_torch2_check.inc" as vt

let ref = load("tests/stdlib/reference/layers_vs_torch6.safetensors")
let pad_modes = ["zeros", "reflect", "replicate", "circular"]
let up_modes = ["nearest", "nearest-exact", "linear", "bilinear", "bicubic", "trilinear", "area"]

fn outputs(res) = list(res) if type(res) == "tuple" else [res]
fn ints(c, at, n) = [int(c[at + j]) for j in range(n)]
fn flag(c, at) = c[at].item() == 1

# The layout of layer_sweeps_vs_torch6.py's CONV_CFG.
fn conv_from_cfg(c) {
  let (d, cin, cout, groups, bias) = (int(c[0]), int(c[1]), int(c[2]), int(c[3]), flag(c, 4))
  let (pmode, pkind, transposed) = (int(c[5]), int(c[6]), flag(c, 7))
  let (k, stride, dil, pad, op) = (ints(c, 10, d), ints(c, 13, d), ints(c, 16, d), ints(c, 19, d), ints(c, 22, d))
  if transposed {
    let make = [nn.ConvTranspose1d, nn.ConvTranspose2d, nn.ConvTranspose3d][d - 1]
    return make(cin, cout, k, stride=stride, padding=pad, output_padding=op, groups=groups, bias=bias, dilation=dil)
  }
  let make = [nn.Conv1d, nn.Conv2d, nn.Conv3d][d - 1]
  let padding = pad if pkind == 0 else ["same", "valid"][pkind - 1]
  return make(cin, cout, k, stride=stride, padding=padding, dilation=dil, groups=groups, bias=bias,
              padding_mode=pad_modes[pmode])
}

# The layout of POOL_CFG.
fn pool_from_cfg(c) {
  let (kind, d, ceil, cip, divisor, indices, p) = (int(c[0]), int(c[1]), flag(c, 2), flag(c, 3), int(c[4]), flag(c, 5),
                                                   c[6].item())
  let (k, stride, pad, dil) = (ints(c, 8, d), ints(c, 11, d), ints(c, 14, d), ints(c, 17, d))
  if kind == 0 {
    let make = [nn.MaxPool1d, nn.MaxPool2d, nn.MaxPool3d][d - 1]
    return make(k, stride, pad, dil, return_indices=indices, ceil_mode=ceil)
  }
  if kind == 1 {
    if d == 1 { return nn.AvgPool1d(k, stride, pad, ceil_mode=ceil, count_include_pad=cip) }
    let make = [nn.AvgPool2d, nn.AvgPool3d][d - 2]
    return make(k, stride, pad, ceil_mode=ceil, count_include_pad=cip,
                divisor_override=none if divisor < 0 else divisor)
  }
  if d == 1 { return nn.LPPool1d(p, k[0], stride[0], ceil_mode=ceil) }
  return nn.LPPool2d(p, k, stride, ceil_mode=ceil)
}

# The layout of UP_CFG.
fn upsample_from_cfg(c) {
  let (mode, d, by_size, align, recompute) = (int(c[0]), int(c[1]), flag(c, 2), int(c[3]), flag(c, 4))
  let scale = [c[11 + j].item() for j in range(d)]
  return nn.Upsample(size=ints(c, 8, d) if by_size else none, scale_factor=none if by_size else scale,
                     mode=up_modes[mode], align_corners=none if align < 0 else align == 1,
                     recompute_scale_factor=recompute if not by_size else none)
}

fn sweep(prefix, make) {
  let k = 0
  while f"cfg.{prefix}{k}" in ref.keys() {
    let name = f"{prefix}{k}"
    let size = ref.get(f"cfg.{name}.output_size")
    let run = fn(m, xs) = outputs(m(xs[0]) if size == none else m(xs[0], output_size=[int(v) for v in size]))
    vt.check_in(ref, name, make(ref["cfg." + name]), 1, run)
    k += 1
  }
  expect(k > 0, f"no {prefix} cases")
}

test "40 random convolutions: kernels, strides, dilations, paddings, modes, groups, transposed, output_size" {
  sweep("sweep_conv", conv_from_cfg)
}

test "40 random pools: max with dilation and indices, avg with count_include_pad and divisor_override, LPPool" {
  sweep("sweep_pool", pool_from_cfg)
}

test "40 random upsamplings: every mode, by size or scale, align_corners, recompute_scale_factor" {
  sweep("sweep_up", upsample_from_cfg)
}

# The layout of MHA_CFG; the masks are mask.<case> and kpm.<case>.
fn mha_from_cfg(c) {
  let (heads, e, kdim, vdim) = (int(c[0]), int(c[1]), int(c[5]), int(c[6]))
  return nn.MultiheadAttention(e, heads, bias=flag(c, 7), add_bias_kv=flag(c, 8), add_zero_attn=flag(c, 9),
                               kdim=none if kdim < 0 else kdim, vdim=none if vdim < 0 else vdim,
                               batch_first=flag(c, 10))
}
fn flat_attention(res) = cat([res[0].reshape(-1)] + ([res[1].reshape(-1)] if res[1] != none else []))

test "40 random MultiheadAttention configurations: every option, bool and float masks" {
  let k = 0
  while f"cfg.sweep_mha{k}" in ref.keys() {
    let name = f"sweep_mha{k}"
    let c = ref["cfg." + name]
    let (mask, kpm, nw, avg) = (ref.get("mask." + name), ref.get("kpm." + name), flag(c, 12), flag(c, 13))
    vt.check_in(ref, name, mha_from_cfg(c), 3, fn(m, xs) = [flat_attention(m(
        xs[0], xs[1], xs[2], attn_mask=mask, key_padding_mask=kpm, need_weights=nw, average_attn_weights=avg))])
    k += 1
  }
  expect(k > 0, "no sweep_mha cases")
}
