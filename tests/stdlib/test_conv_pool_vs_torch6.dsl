# Round 6 against PyTorch 1.13, the conv and pool options test_conv_pool_vs_torch4.dsl
# leaves out: padding="same" with dilation and even kernels (and groups), padding_mode
# reflect / replicate / circular for Conv1d/2d/3d with strides, groups and dilation
# (unbatched too, where 1.13 allows it), ConvTranspose with output_padding, dilation and
# groups and forward's output_size; max pools with ceil_mode, dilation and indices, avg
# pools with ceil_mode x count_include_pad x divisor_override, MaxUnpool with an
# output_size, LPPool with p = 1, 2, 3.5 and ceil_mode, AdaptiveMax with indices on
# sizes that do not divide, Fold/Unfold with dilation, padding and stride,
# PixelShuffle/Unshuffle by 3, and Upsample's modes (nearest, nearest-exact, linear,
# bilinear, bicubic, trilinear, area) with fractional scales, align_corners and
# recompute_scale_factor (a dim whose size a scale keeps is copied by the linear modes,
# as PyTorch's CPU kernels: Note [Linear resampling of an unchanged size] in
# tensor/resample.cpp); ceil_mode's dropped last window, LPPool of signed inputs, NaN in
# the pools, unbatched [C, *] inputs. Each case loads
# tests/stdlib/reference/layers_vs_torch6.safetensors (written by
# tests/stdlib/reference/make_layers_vs_torch6.py, conv_pool_cases, stack_cases and
# more_upsample_cases, under the same name) and compares outputs (indices exactly) and
# the gradients of sum(y0 * g).
import nn
import "vs_torch2_check.inc" as vt

let ref = load("tests/stdlib/reference/layers_vs_torch6.safetensors")
fn check(name, m, n=1, run=none) = vt.check_in(ref, name, m, n, run if run != none else fn(m, xs) = _outputs(m(xs[0])))
fn _outputs(res) = list(res) if type(res) == "tuple" else [res]

test "padding='same' with dilation, even kernels and groups" {
  check("conv1d_same_even_dil", nn.Conv1d(2, 3, 4, padding="same", dilation=3))
  check("conv2d_same_even_dil", nn.Conv2d(2, 2, [2, 4], padding="same", dilation=[3, 2]))
  check("conv3d_same_even", nn.Conv3d(2, 2, [2, 3, 4], padding="same", dilation=[2, 1, 1]))
  check("conv2d_same_groups", nn.Conv2d(4, 6, 3, padding="same", dilation=2, groups=2))
}

test "padding_mode reflect, replicate and circular with strides, groups and dilation" {
  for mode in ["reflect", "replicate", "circular"] {
    check(f"conv1d_{mode}", nn.Conv1d(4, 2, 3, stride=2, padding=2, groups=2, padding_mode=mode))
    check(f"conv2d_{mode}", nn.Conv2d(2, 3, [3, 2], stride=[2, 1], padding=[1, 2], dilation=[1, 2], padding_mode=mode))
    check(f"conv3d_{mode}", nn.Conv3d(2, 2, 3, padding=[1, 2, 1], padding_mode=mode))
    check(f"conv2d_{mode}_same", nn.Conv2d(2, 2, 4, padding="same", padding_mode=mode))
    if mode != "circular" {
      check(f"conv1d_{mode}_unbatched", nn.Conv1d(2, 2, 3, padding=1, padding_mode=mode))
      check(f"conv2d_{mode}_unbatched", nn.Conv2d(2, 2, 3, padding=1, padding_mode=mode))
    }
  }
}

test "ConvTranspose with output_padding, dilation and groups, and forward's output_size" {
  check("convt1d_outpad_dil_groups", nn.ConvTranspose1d(4, 6, 3, stride=3, padding=1, output_padding=2, groups=2,
                                                         dilation=2))
  check("convt2d_outpad_dil_groups", nn.ConvTranspose2d(4, 2, [3, 2], stride=[2, 3], padding=[1, 0],
                                                         output_padding=[1, 2], groups=2, dilation=[2, 3]))
  check("convt2d_output_size_dil", nn.ConvTranspose2d(2, 4, 3, stride=2, padding=1, dilation=2, groups=2), 1,
        fn(m, xs) = [m(xs[0], output_size=[10, 12])])
  check("convt3d_outpad", nn.ConvTranspose3d(2, 2, 2, stride=[2, 3, 2], output_padding=[1, 2, 0]))
  check("convt1d_output_size_nobias", nn.ConvTranspose1d(3, 2, 4, stride=3, padding=2, bias=false), 1,
        fn(m, xs) = [m(xs[0], output_size=[1, 2, 10])])
}

test "max pools with ceil_mode, dilation and indices; MaxUnpool with an output_size" {
  check("maxpool1d_ceil_dil", nn.MaxPool1d(3, 2, padding=1, dilation=2, ceil_mode=true, return_indices=true))
  check("maxpool2d_ceil_dil", nn.MaxPool2d([3, 2], [2, 3], padding=[1, 1], dilation=[1, 2], ceil_mode=true,
                                           return_indices=true))
  check("maxpool3d_ceil", nn.MaxPool3d(2, [2, 3, 2], padding=1, ceil_mode=true, return_indices=true))
  let p1 = nn.MaxPool1d(3, 2, padding=1, return_indices=true)
  check("maxunpool1d_size", nn.MaxUnpool1d(3, 2, padding=1), 1, fn(m, xs) = [m(*p1(xs[0]), output_size=[10])])
  let p2 = nn.MaxPool2d(3, 2, padding=1, return_indices=true)
  check("maxunpool2d_size", nn.MaxUnpool2d(3, 2, padding=1), 1, fn(m, xs) = [m(*p2(xs[0]), output_size=[2, 2, 8, 9])])
}

test "avg pools: ceil_mode x count_include_pad x divisor_override" {
  for ceil in [false, true] {
    for cip in [false, true] {
      let tag = ("_ceil" if ceil else "") + ("_cip" if cip else "")
      check("avgpool1d" + tag, nn.AvgPool1d(3, 2, padding=1, ceil_mode=ceil, count_include_pad=cip))
      check("avgpool2d" + tag, nn.AvgPool2d([3, 4], [2, 3], padding=[1, 2], ceil_mode=ceil, count_include_pad=cip))
      check("avgpool3d" + tag, nn.AvgPool3d(3, 2, padding=1, ceil_mode=ceil, count_include_pad=cip))
      check("avgpool2d_div" + tag, nn.AvgPool2d(3, 2, padding=1, ceil_mode=ceil, count_include_pad=cip,
                                                divisor_override=5))
    }
  }
  check("avgpool3d_div", nn.AvgPool3d(2, 2, ceil_mode=true, divisor_override=3))
}

test "LPPool1d/2d with p = 1, 2, 3.5 and ceil_mode" {
  for p in [1.0, 2.0, 3.5] {
    for ceil in [false, true] {
      let tag = f"_p{int(p * 10)}" + ("_ceil" if ceil else "")
      check("lppool1d" + tag, nn.LPPool1d(p, 3, 2, ceil_mode=ceil))
      check("lppool2d" + tag, nn.LPPool2d(p, [2, 3], [2, 2], ceil_mode=ceil))
    }
  }
}

test "adaptive max pools with indices on sizes that do not divide; adaptive avg" {
  check("adaptivemax1d_idx", nn.AdaptiveMaxPool1d(4, return_indices=true))
  check("adaptivemax2d_idx", nn.AdaptiveMaxPool2d([3, 4], return_indices=true))
  check("adaptivemax3d_idx", nn.AdaptiveMaxPool3d([2, 3, 4], return_indices=true))
  check("adaptiveavg2d_odd", nn.AdaptiveAvgPool2d([4, 5]))
}

test "Fold/Unfold with dilation, padding and stride; PixelShuffle/Unshuffle by 3" {
  check("unfold_dil_pad_stride", nn.Unfold([2, 3], dilation=[2, 1], padding=[1, 2], stride=[2, 3]))
  check("fold_dil_pad_stride", nn.Fold([6, 7], [2, 3], dilation=[2, 1], padding=[1, 1], stride=[1, 2]))
  check("fold_unbatched", nn.Fold([4, 5], 2))
  check("pixel_shuffle3", nn.PixelShuffle(3))
  check("pixel_unshuffle3", nn.PixelUnshuffle(3))
  check("pixel_shuffle_unbatched", nn.PixelShuffle(2))
}

test "Upsample: nearest, nearest-exact, linear, bilinear, bicubic, trilinear, area; align_corners, recompute" {
  check("up_nearest_exact_1d", nn.Upsample(scale_factor=1.7, mode="nearest-exact"))
  check("up_nearest_exact_2d", nn.Upsample(size=[7, 3], mode="nearest-exact"))
  check("up_nearest_2d_frac", nn.Upsample(scale_factor=[1.5, 0.6], mode="nearest"))
  check("up_nearest_3d", nn.Upsample(scale_factor=[2, 1.5, 1], mode="nearest"))
  check("up_linear_1d", nn.Upsample(scale_factor=2.5, mode="linear"))
  check("up_linear_1d_align", nn.Upsample(size=8, mode="linear", align_corners=true))
  check("up_linear_1d_recompute", nn.Upsample(scale_factor=1.7, mode="linear", recompute_scale_factor=true))
  check("up_bilinear_frac", nn.Upsample(scale_factor=[1.3, 2.2], mode="bilinear"))
  check("up_bilinear_recompute", nn.Upsample(scale_factor=[1.3, 2.2], mode="bilinear", recompute_scale_factor=true))
  check("up_bilinear_align", nn.Upsample(size=[6, 9], mode="bilinear", align_corners=true))
  check("up_bilinear_down", nn.Upsample(scale_factor=0.6, mode="bilinear"))
  check("up_bicubic_frac", nn.Upsample(scale_factor=1.6, mode="bicubic"))
  check("up_bicubic_align", nn.Upsample(size=[5, 8], mode="bicubic", align_corners=true))
  check("up_trilinear", nn.Upsample(scale_factor=[1.5, 2, 1.2], mode="trilinear"))
  check("up_trilinear_align", nn.Upsample(size=[4, 6, 5], mode="trilinear", align_corners=true))
  check("up_trilinear_recompute", nn.Upsample(scale_factor=1.7, mode="trilinear", recompute_scale_factor=true))
  check("up_linear_1d_same_size", nn.Upsample(scale_factor=1.1, mode="linear"))
  check("up_bilinear_one_dim_same", nn.Upsample(scale_factor=[1.2, 1.5], mode="bilinear"))
  check("up_area_2d", nn.Upsample(size=[3, 2], mode="area"))
  check("up_area_1d", nn.Upsample(size=3, mode="area"))
  check("up_area_3d_scale", nn.Upsample(scale_factor=0.5, mode="area"))
}

# Cases drawn by stack_cases in the generator.
test "ceil_mode drops a last window that would start in the padding; LPPool of signed inputs" {
  check("maxpool1d_ceil_drop", nn.MaxPool1d(2, 2, padding=1, ceil_mode=true, return_indices=true))
  check("avgpool1d_ceil_drop", nn.AvgPool1d(2, 2, padding=1, ceil_mode=true))
  check("avgpool2d_ceil_drop_cip", nn.AvgPool2d(2, 2, padding=1, ceil_mode=true, count_include_pad=true))
  check("maxpool2d_ceil_drop", nn.MaxPool2d(2, 2, padding=1, ceil_mode=true))
  check("lppool1d_ceil_drop", nn.LPPool1d(2, 2, 2, ceil_mode=true))
  check("lppool2d_signed_p1", nn.LPPool2d(1.0, 2, 2))
  check("lppool2d_signed_p3", nn.LPPool2d(3.0, 2, 2))
}

test "NaN wins a max pool's window (its index too) and spreads through the average pools" {
  check("maxpool2d_nan", nn.MaxPool2d(3, 2, return_indices=true))
  check("adaptivemax2d_nan", nn.AdaptiveMaxPool2d(4, return_indices=true))
  check("avgpool2d_nan", nn.AvgPool2d(2))
  check("adaptiveavg2d_nan", nn.AdaptiveAvgPool2d(4))
}

test "unbatched [C, *] inputs of the pools, unfold, pixel unshuffle and MaxUnpool2d" {
  check("unb_maxpool2d_idx", nn.MaxPool2d(2, 2, padding=1, return_indices=true))
  check("unb_avgpool1d", nn.AvgPool1d(3, 2, padding=1, count_include_pad=false))
  check("unb_avgpool2d_div", nn.AvgPool2d(2, ceil_mode=true, divisor_override=3))
  check("unb_adaptivemax2d_idx", nn.AdaptiveMaxPool2d([2, 4], return_indices=true))
  check("unb_adaptiveavg1d", nn.AdaptiveAvgPool1d(4))
  check("unb_lppool2d", nn.LPPool2d(2, 2))
  check("unb_unfold", nn.Unfold(2, padding=1))
  check("unb_pixel_unshuffle", nn.PixelUnshuffle(2))
  let pu = nn.MaxPool2d(2, return_indices=true)
  check("unb_maxunpool2d", nn.MaxUnpool2d(2), 1, fn(m, xs) = [m(*pu(xs[0]), output_size=[5, 6])])
}

# Drawn by more_upsample_cases in the generator.
test "Upsample: scale factors with align_corners, nearest-exact 3-D, bicubic recomputed, linear downsampling" {
  check("up_bilinear_scale_align", nn.Upsample(scale_factor=1.7, mode="bilinear", align_corners=true))
  check("up_linear_scale_align_down", nn.Upsample(scale_factor=0.7, mode="linear", align_corners=true))
  check("up_trilinear_scale_align", nn.Upsample(scale_factor=[2, 1.5, 1.2], mode="trilinear", align_corners=true))
  check("up_nearest_exact_3d", nn.Upsample(scale_factor=[1.5, 0.8, 2.2], mode="nearest-exact"))
  check("up_bicubic_recompute", nn.Upsample(scale_factor=[1.3, 1.7], mode="bicubic", recompute_scale_factor=true))
  check("up_linear_down", nn.Upsample(scale_factor=0.45, mode="linear"))
  check("up_bicubic_down_align", nn.Upsample(size=[2, 3], mode="bicubic", align_corners=true))
}
