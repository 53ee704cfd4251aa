# Round 4 of the differential tests against PyTorch 1.13 in f64 (after
# test_*_vs_torch2.dsl): convolutions, pools, interpolate and pad on the argument
# combinations the earlier rounds leave out. Functional conv1d/2d/3d with padding
# "same"/"valid" and groups; the Conv layers' padding_mode with groups, dilation and
# stride together, non-square kernels, bias=false; conv_transpose3d with output_padding,
# dilation and groups; max pools with ceil_mode, dilation and indices on 1-D, 3-D and
# unbatched inputs; avg pools with count_include_pad=false and divisor_override;
# adaptive pools with none entries and sizes that do not divide; max_unpool with
# output_size; unfold/fold with dilation, padding and stride. Each case loads tests/stdlib/reference/vs_torch4.safetensors (written by
# tests/stdlib/reference/make_vs_torch4.py, conv_pool_cases, which names the torch call
# of each case) and compares outputs and the gradients of sum(y0 * g).
import nn
import "vs_torch2_check.inc" as vt

let ref = load("tests/stdlib/reference/vs_torch4.safetensors")

fn check(name, m, n, run) = vt.check_in(ref, name, m, n, run)
fn on_x(f) = fn(m, xs) = [f(xs[0])]
fn on_layer(m, xs) = [m(xs[0])]
fn pair(r) = list(r) if type(r) == "tuple" else [r]

test "functional conv2d/1d/3d with padding \"same\" and \"valid\", groups and dilation" {
  check("conv2d_same_groups_dil", none, 3, fn(m, xs) = [conv2d(xs[0], xs[1], xs[2], padding="same", dilation=[2, 1],
                                                               groups=2)])
  check("conv2d_valid_stride", none, 2, fn(m, xs) = [conv2d(xs[0], xs[1], stride=[2, 1], padding="valid")])
  check("conv1d_same_even", none, 3, fn(m, xs) = [conv1d(xs[0], xs[1], xs[2], padding="same", groups=2)])
  check("conv3d_same_groups", none, 3, fn(m, xs) = [conv3d(xs[0], xs[1], xs[2], padding="same", groups=2,
                                                           dilation=[1, 1, 2])])
}

test "functional conv2d with a non-square kernel, stride, padding, dilation and groups; unbatched conv1d" {
  check("conv2d_nonsquare_all", none, 3, fn(m, xs) = [conv2d(xs[0], xs[1], xs[2], stride=[1, 3], padding=[2, 0],
                                                             dilation=[1, 2], groups=3)])
  check("conv1d_unbatched_fn", none, 2, fn(m, xs) = [conv1d(xs[0], xs[1], stride=2, padding=1, dilation=2, groups=2)])
}

test "Conv layers: padding_mode circular/reflect/replicate with groups, dilation and stride, no bias" {
  check("conv2d_circular_all", nn.Conv2d(4, 6, [3, 2], stride=[2, 1], padding=[2, 1], dilation=[2, 1], groups=2,
                                         padding_mode="circular", bias=false), 1, on_layer)
  check("conv2d_reflect_all", nn.Conv2d(2, 4, [2, 3], stride=2, padding=[1, 2], dilation=[1, 2], groups=2,
                                        padding_mode="reflect"), 1, on_layer)
  check("conv1d_circular_depthwise", nn.Conv1d(4, 4, 3, stride=2, padding=3, dilation=2, groups=4,
                                               padding_mode="circular"), 1, on_layer)
  check("conv3d_replicate_groups", nn.Conv3d(2, 4, [1, 2, 3], stride=[1, 2, 1], padding=[0, 1, 1], groups=2,
                                             padding_mode="replicate", bias=false), 1, on_layer)
  check("conv2d_same_replicate_nobias", nn.Conv2d(3, 3, [2, 4], padding="same", dilation=[3, 1], groups=3,
                                                  padding_mode="replicate", bias=false), 1, on_layer)
  check("conv2d_reflect_unbatched", nn.Conv2d(2, 2, 3, padding=1, padding_mode="reflect", stride=[1, 2]), 1, on_layer)
}

test "transposed convolutions: 3-D with output_padding, dilation and groups; layers without bias; unbatched" {
  check("conv_t3d_all", none, 3, fn(m, xs) = [conv_transpose3d(xs[0], xs[1], xs[2], stride=[2, 1, 2], padding=[1, 0, 1],
                                                               output_padding=[1, 0, 1], groups=2, dilation=[1, 2, 2])])
  check("conv_t2d_module_nobias", nn.ConvTranspose2d(3, 6, [3, 2], stride=[3, 2], padding=[1, 0], output_padding=[2, 1],
                                                     groups=3, dilation=[1, 2], bias=false), 1, on_layer)
  check("conv_t3d_module_outpad", nn.ConvTranspose3d(2, 4, 2, stride=2, output_padding=1, groups=2), 1, on_layer)
  check("conv_t1d_unbatched_fn", none, 3, fn(m, xs) = [conv_transpose1d(xs[0], xs[1], xs[2], stride=2, padding=1,
                                                                        output_padding=1, groups=2)])
}

test "max pools: 3-D with everything, 1-D unbatched with ceil_mode, layers with dilation and unbatched" {
  check("max_pool3d_all", none, 1, fn(m, xs) = pair(max_pool3d(xs[0], [3, 2, 2], stride=[2, 1, 2], padding=1,
                                                               dilation=[1, 2, 1], ceil_mode=true, return_indices=true)))
  check("max_pool1d_unbatched_ceil", none, 1, fn(m, xs) = pair(max_pool1d(xs[0], 3, stride=2, padding=1, ceil_mode=true,
                                                                          return_indices=true)))
  check("max_pool2d_layer_dil", nn.MaxPool2d([2, 3], stride=[1, 2], padding=[1, 1], dilation=[3, 1],
                                             return_indices=true), 1, fn(m, xs) = pair(m(xs[0])))
  check("max_pool3d_layer_unbatched", nn.MaxPool3d(2, stride=[2, 1, 2], padding=[1, 0, 1], ceil_mode=true), 1, on_layer)
}

test "avg pools: count_include_pad=false with ceil_mode, divisor_override, unbatched" {
  check("avg_pool1d_ceil_nopad", none, 1, on_x(fn(x) = avg_pool1d(x, 4, stride=3, padding=2, ceil_mode=true,
                                                                  count_include_pad=false)))
  check("avg_pool3d_ceil_incl", none, 1, on_x(fn(x) = avg_pool3d(x, [3, 2, 3], stride=2, padding=1, ceil_mode=true)))
  check("avg_pool2d_unbatched", none, 1, on_x(fn(x) = avg_pool2d(x, 2, stride=2, padding=1, ceil_mode=true,
                                                                 count_include_pad=false)))
  check("avg_pool2d_divisor", none, 1, on_x(fn(x) = avg_pool2d(x, 3, stride=2, padding=1, divisor_override=5)))
  check("avg_pool2d_divisor_ceil", none, 1, on_x(fn(x) = avg_pool2d(x, [2, 3], stride=2, padding=[1, 0], ceil_mode=true,
                                                                    count_include_pad=false, divisor_override=4)))
  check("avg_pool2d_layer_divisor", nn.AvgPool2d([3, 2], stride=[2, 1], divisor_override=2), 1, on_layer)
  check("avg_pool3d_layer_divisor", nn.AvgPool3d(2, stride=[1, 2, 2], padding=1, ceil_mode=true, divisor_override=3), 1,
        on_layer)
}

test "adaptive pools: none entries, sizes that do not divide, upsampling, unbatched" {
  check("adaptive_avg1d_up", none, 1, on_x(fn(x) = adaptive_avg_pool1d(x, 7)))
  check("adaptive_max2d_none", none, 1, fn(m, xs) = pair(adaptive_max_pool2d(xs[0], [none, 3], return_indices=true)))
  check("adaptive_avg2d_none", none, 1, on_x(fn(x) = adaptive_avg_pool2d(x, [4, none])))
  check("adaptive_avg3d_nondiv", none, 1, on_x(fn(x) = adaptive_avg_pool3d(x, [3, none, 2])))
  check("adaptive_max3d_nondiv", none, 1, fn(m, xs) = pair(adaptive_max_pool3d(xs[0], [2, 3, none], return_indices=true)))
  check("adaptive_max2d_unbatched", none, 1, on_x(fn(x) = adaptive_max_pool2d(x, [2, 4])))
  check("adaptive_avg2d_layer_none", nn.AdaptiveAvgPool2d([none, 2]), 1, on_layer)
}

test "max_unpool with output_size, functional and layer with padding" {
  check("max_unpool2d_output_size", none, 2, fn(m, xs) = [max_unpool2d(xs[0], xs[1], 2, stride=2, output_size=[5, 5])])
  check("max_unpool1d_layer_pad", nn.MaxUnpool1d(3, stride=2, padding=1), 2,
        fn(m, xs) = [m(xs[0], xs[1], output_size=[9])])
}

test "interpolate: bicubic 0.6 and 1.7 both alignments, bilinear mixed with align_corners, trilinear, area" {
  let cases = [
    ("bicubic_0_6", fn(x) = interpolate(x, scale_factor=0.6, mode="bicubic", align_corners=false)),
    ("bicubic_1_7_ac", fn(x) = interpolate(x, scale_factor=1.7, mode="bicubic", align_corners=true)),
    ("bilinear_0_6_ac", fn(x) = interpolate(x, scale_factor=[0.6, 1.7], mode="bilinear", align_corners=true)),
    ("trilinear_1_7_ac", fn(x) = interpolate(x, scale_factor=1.7, mode="trilinear", align_corners=true)),
    ("trilinear_0_6", fn(x) = interpolate(x, scale_factor=[0.6, 1.3, 2.5], mode="trilinear")),
    ("area_scale", fn(x) = interpolate(x, scale_factor=0.5, mode="area")),
    ("area_up", fn(x) = interpolate(x, size=8, mode="area")),
    ("nearest_exact_0_6", fn(x) = interpolate(x, scale_factor=[0.6, 1.7], mode="nearest-exact")),
    ("linear_2_5", fn(x) = interpolate(x, scale_factor=2.5, mode="linear")),
    ("bicubic_recompute", fn(x) = interpolate(x, scale_factor=[1.3, 0.7], mode="bicubic", recompute_scale_factor=true)),
  ]
  for (name, f) in cases { check("interp_" + name, none, 1, on_x(f)) }
}

test "pad: unbatched reflect and replicate, constant over 4 dims, negative pads on 5-D inputs" {
  let cases = [
    ("reflect_unbatched2d", [1, 2, 3, 1], "reflect", none),
    ("circular4d_neg", [2, 1, -1, 2], "circular", none),
    ("replicate_unbatched1d", [-1, 3], "replicate", none),
    ("const_4dims", [1, -1, 0, 2, 1, 1, 2, 0], "constant", 2.0),
    ("const_all_neg", [-1, -2, -1, 0], "constant", 1.0),
    ("replicate5d_neg", [-1, 2, 1, -1, 2, 0], "replicate", none),
    ("reflect5d_neg", [2, -1, -1, 3, 0, 1], "reflect", none),
    ("circular4d_asym", [3, 0, 0, 2], "circular", none),
    ("reflect_unbatched3d", [1, 2, 0, 1, 2, 1], "reflect", none),
    ("replicate_unbatched3d", [2, 0, 1, 1, 0, 2], "replicate", none),
  ]
  for (name, p, mode, value) in cases {
    check("pad_" + name, none, 1, on_x(fn(x) = pad(x, p, mode=mode, value=value)))
  }
}

test "unfold and fold with dilation, padding and stride; transposed convolutions' output sizes" {
  check("unfold_all", none, 1, on_x(fn(x) = unfold(x, [2, 3], dilation=[2, 1], padding=[1, 2], stride=[2, 3])))
  check("fold_all", none, 1, on_x(fn(x) = fold(x, [5, 6], [2, 3], dilation=[1, 2], padding=[1, 0], stride=[2, 1])))
  check("conv_t2d_unbatched_outpad", none, 2, fn(m, xs) = [conv_transpose2d(xs[0], xs[1], stride=[2, 3],
                                                                            output_padding=[1, 2], padding=[1, 0])])
  check("conv_t1d_layer_output_size", nn.ConvTranspose1d(2, 3, 3, stride=3, padding=1), 1,
        fn(m, xs) = [m(xs[0], output_size=[11])])
}

test "errors for the arguments this round added" {
  expect_error(fn() = avg_pool2d(ones([1, 1, 4, 4]), 2, divisor_override=0), "'divisor_override' must not be 0")
  expect_error(fn() = avg_pool3d(ones([1, 1, 4, 4, 4]), 2, divisor_override=0), "'divisor_override' must not be 0")
  expect_error(fn() = adaptive_avg_pool2d(ones([1, 1, 4, 4]), [none, 2, 3]),
               "adaptive_avg_pool2d(): argument 'output_size' must have 2 values")
  expect_error(fn() = max_unpool2d(ones([1, 1, 2, 2]), tensor([[[[0, 1], [2, 3]]]]), 2, output_size=[9, 9]),
               "dim 0 must be between 3 and 5, got 9")
}

# divisor_override is the excluding-padding pool times a constant, so its gradients
# differentiate again, as the pools'.
test "grad of grad: avg_pool2d/3d with divisor_override, F.embedding with padding_idx" {
  let v = sin(arange(30, dtype=f64)).reshape([1, 1, 5, 6]).requires_grad_(true)
  expect(gradgradcheck(fn(x) = (avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=true, divisor_override=4) ** 2).sum(), v))
  let u = sin(arange(48, dtype=f64)).reshape([1, 1, 3, 4, 4]).requires_grad_(true)
  expect(gradgradcheck(fn(x) = (avg_pool3d(x, 2, stride=[1, 2, 2], padding=1, divisor_override=3) ** 2).sum(), u))
  let w = cos(arange(12, dtype=f64)).reshape([4, 3]).requires_grad_(true)
  expect(gradgradcheck(fn(t) = (embedding(tensor([[0, 2], [3, 2]]), t, padding_idx=2) ** 3).sum(), w))
}
