# A differential round against PyTorch 1.13 in f64 (see test_layers_vs_torch2.dsl):
# interpolate and Upsample with non-integer scale factors, recompute_scale_factor,
# align_corners and every mode; pad's modes with asymmetric and negative pads;
# transposed convolutions with groups, dilation, output_padding and stride together;
# Conv1d/Conv3d with padding strings and padding_mode; GroupNorm, InstanceNorm with
# running stats; adaptive pools on sizes that do not divide; max pools with dilation,
# ceil_mode and indices. Each case's torch call is in
# tests/stdlib/reference/make_layers_vs_torch2.py under the same name.
import nn
import "vs_torch2_check.inc" as vt

fn check(name, m, n, run) = vt.check(name, m, n, run)
fn on_x(f) = fn(m, xs) = [f(xs[0])]
fn pair(r) = list(r) if type(r) == "tuple" else [r]

# ---- interpolate: the cases of resample_cases, F.interpolate(x, **kw) with the same kw
fn interp_check(case, f) = check("interp_" + case, none, 1, on_x(f))

test "interpolate nearest with scale 1.7 and 0.6 (2-D, 1-D, 3-D) and recompute_scale_factor" {
  interp_check("nearest_1_7", fn(x) = interpolate(x, scale_factor=1.7, mode="nearest"))
  interp_check("nearest_0_6", fn(x) = interpolate(x, scale_factor=0.6, mode="nearest"))
  interp_check("nearest_2_1", fn(x) = interpolate(x, scale_factor=2.1, mode="nearest"))
  interp_check("nearest1d_0_6", fn(x) = interpolate(x, scale_factor=0.6, mode="nearest"))
  # scale factors that make out == in or out == 2 * in: PyTorch's values only (the
  # generator says why); the gradient is checked as the adjoint below
  interp_check("nearest1d_1_1", fn(x) = interpolate(x, scale_factor=1.1, mode="nearest"))
  interp_check("nearest1d_2_1", fn(x) = interpolate(x, scale_factor=2.1, mode="nearest"))
  interp_check("nearest3d_2_1", fn(x) = interpolate(x, scale_factor=[2.1, 1.1, 2.5], mode="nearest"))
  interp_check("nearest3d_1_7", fn(x) = interpolate(x, scale_factor=1.7, mode="nearest"))
  interp_check("nearest_recompute", fn(x) = interpolate(x, scale_factor=1.7, mode="nearest", recompute_scale_factor=true))
}

# <J^T g, x> == <g, J x> for the linear map J: nabla's gradient is its forward's
# adjoint where PyTorch's nearest backward is not.
test "interpolate nearest's gradient is its forward's adjoint where out == in or 2 * in" {
  for (case, sf) in [("nearest_2_1", 2.1), ("nearest1d_1_1", 1.1), ("nearest1d_2_1", 2.1),
                     ("nearest3d_2_1", [2.1, 1.1, 2.5])] {
    let x = vt.ref[f"interp_{case}.x0"].clone().requires_grad_(true)
    let y = interpolate(x, scale_factor=sf)
    let g = cos(arange(y.numel(), dtype=f64)).reshape(y.shape)
    (y * g).sum().backward()
    expect_close((x.grad * x).sum(), (g * y).sum(), rtol=1e-12, atol=1e-12, msg=case)
  }
}

test "interpolate nearest-exact by scale and by size" {
  interp_check("nearest_exact_1_7", fn(x) = interpolate(x, scale_factor=1.7, mode="nearest-exact"))
  interp_check("nearest_exact_size", fn(x) = interpolate(x, size=[3, 7], mode="nearest-exact"))
}

test "interpolate bilinear: scale 1.7, (0.6, 1.3), align_corners, recompute, size" {
  interp_check("bilinear_1_7", fn(x) = interpolate(x, scale_factor=1.7, mode="bilinear", align_corners=false))
  interp_check("bilinear_0_6", fn(x) = interpolate(x, scale_factor=[0.6, 1.3], mode="bilinear", align_corners=false))
  interp_check("bilinear_1_7_ac", fn(x) = interpolate(x, scale_factor=1.7, mode="bilinear", align_corners=true))
  interp_check("bilinear_recompute", fn(x) = interpolate(x, scale_factor=1.7, mode="bilinear", recompute_scale_factor=true))
  interp_check("bilinear_size", fn(x) = interpolate(x, size=[7, 3], mode="bilinear"))
}

test "interpolate bicubic: scale 1.7, 0.6 with align_corners, size" {
  interp_check("bicubic_1_7", fn(x) = interpolate(x, scale_factor=1.7, mode="bicubic", align_corners=false))
  interp_check("bicubic_0_6_ac", fn(x) = interpolate(x, scale_factor=0.6, mode="bicubic", align_corners=true))
  interp_check("bicubic_size_ac", fn(x) = interpolate(x, size=[8, 6], mode="bicubic", align_corners=true))
}

test "interpolate linear (1-D): scale 0.6, 1.7 with align_corners, size, recompute" {
  interp_check("linear_0_6", fn(x) = interpolate(x, scale_factor=0.6, mode="linear"))
  interp_check("linear_1_7_ac", fn(x) = interpolate(x, scale_factor=1.7, mode="linear", align_corners=true))
  interp_check("linear_size", fn(x) = interpolate(x, size=7, mode="linear"))
  interp_check("linear_recompute", fn(x) = interpolate(x, scale_factor=1.7, mode="linear", recompute_scale_factor=true))
}

test "interpolate trilinear by mixed scales and by size with align_corners; area; nearest-exact" {
  interp_check("trilinear_mixed", fn(x) = interpolate(x, scale_factor=[1.5, 0.6, 2.0], mode="trilinear"))
  interp_check("trilinear_size_ac", fn(x) = interpolate(x, size=[4, 3, 5], mode="trilinear", align_corners=true))
  interp_check("area_size", fn(x) = interpolate(x, size=[3, 3], mode="area"))
  interp_check("area1d", fn(x) = interpolate(x, size=3, mode="area"))
  interp_check("area3d", fn(x) = interpolate(x, size=[2, 3, 1], mode="area"))
  interp_check("nearest_exact1d_0_6", fn(x) = interpolate(x, scale_factor=0.6, mode="nearest-exact"))
  interp_check("nearest_exact3d", fn(x) = interpolate(x, scale_factor=[1.7, 0.6, 2.5], mode="nearest-exact"))
}

test "interpolate's errors for the arguments this round added" {
  expect_error(fn() = interpolate(ones([1, 1, 4]), size=[3], recompute_scale_factor=true),
               "recompute_scale_factor is not meaningful with an explicit size")
  expect_error(fn() = interpolate(ones([1, 1, 2, 2, 2]), scale_factor=2, mode="bicubic"), "needs a 4-D input")
  expect_error(fn() = interpolate(ones([1, 1, 2, 2]), scale_factor=2, mode="nearest-exact", align_corners=true),
               "align_corners may only be set")
  expect_error(fn() = pad(ones([1, 1, 4]), [5, -1], mode="circular"), "the size the negative sizes leave, 3")
}

test "interpolate with align_corners to a size of 1" {
  interp_check("bilinear_one_row_ac", fn(x) = interpolate(x, size=[1, 3], mode="bilinear", align_corners=true))
  interp_check("bicubic_one_ac", fn(x) = interpolate(x, size=[1, 1], mode="bicubic", align_corners=true))
  interp_check("linear_one_ac", fn(x) = interpolate(x, size=1, mode="linear", align_corners=true))
  interp_check("trilinear_one_ac", fn(x) = interpolate(x, size=[1, 5, 1], mode="trilinear", align_corners=true))
}

test "Upsample bilinear by 1.7; trilinear with recompute_scale_factor" {
  check("upsample_bilinear_1_7", nn.Upsample(scale_factor=1.7, mode="bilinear"), 1, fn(m, xs) = [m(xs[0])])
  check("upsample_trilinear_recompute", nn.Upsample(scale_factor=[0.7, 1.6, 2.5], mode="trilinear",
        recompute_scale_factor=true), 1, fn(m, xs) = [m(xs[0])])
}

# ---- pad: F.pad(x, pads, mode, value)
let pad_cases = [
  ("const1d", [2, -1], "constant", 0.5),
  ("const2d_neg", [1, -2, -1, 3], "constant", -1.5),
  ("const3d", [0, 1, -1, 2, 1, 0], "constant", 0.0),
  ("reflect1d", [3, 1], "reflect", none),
  ("reflect1d_neg", [-1, 2], "reflect", none),
  ("reflect2d", [2, 1, 0, 3], "reflect", none),
  ("reflect3d", [1, 0, 2, 1, 1, 2], "reflect", none),
  ("replicate1d_neg", [-2, 3], "replicate", none),
  ("replicate2d", [3, 0, 1, 2], "replicate", none),
  ("replicate3d", [1, 2, 0, 1, 2, 0], "replicate", none),
  ("circular1d", [2, 3], "circular", none),
  ("circular2d_neg", [1, -1, 2, 0], "circular", none),
  ("circular3d", [1, 1, 0, 2, 1, 0], "circular", none),
]

test "pad constant, reflect, replicate and circular on 1-D, 2-D, 3-D, asymmetric and negative" {
  for (case, p, mode, value) in pad_cases {
    check("pad_" + case, none, 1, on_x(fn(x) = pad(x, p, mode=mode, value=value)))
  }
}

# ---- convolutions (conv_cases)
fn on_layer(m, xs) = [m(xs[0])]

test "conv_transpose1d/2d with groups, dilation, output_padding, stride and padding together" {
  check("conv_t1d_all", none, 3, fn(m, xs) = [conv_transpose1d(xs[0], xs[1], xs[2], stride=3, padding=2,
                                                               output_padding=1, groups=2, dilation=2)])
  check("conv_t2d_all", none, 3, fn(m, xs) = [conv_transpose2d(xs[0], xs[1], xs[2], stride=[2, 3], padding=[1, 2],
                                                               output_padding=[1, 0], groups=3, dilation=[2, 1])])
  check("conv_t2d_module", nn.ConvTranspose2d(4, 6, [2, 3], stride=2, padding=[0, 1], output_padding=1, groups=2,
                                              dilation=[1, 2], bias=false), 1, on_layer)
  check("conv_t1d_module", nn.ConvTranspose1d(3, 6, 3, stride=2, padding=1, output_padding=1, groups=3, dilation=3),
        1, on_layer)
  check("conv_t1d_outpad_dilation", none, 2, fn(m, xs) = [conv_transpose1d(xs[0], xs[1], stride=1, dilation=3,
                                                                           output_padding=2)])
  check("conv_t2d_outpad_dilation", none, 3, fn(m, xs) = [conv_transpose2d(xs[0], xs[1], xs[2], stride=[1, 2],
                                                                           dilation=[3, 1], output_padding=[2, 1],
                                                                           groups=2, padding=[0, 1])])
}

test "Conv1d with padding same/valid and padding_mode" {
  check("conv1d_same_dil", nn.Conv1d(2, 4, 4, padding="same", dilation=3, groups=2), 1, on_layer)
  check("conv1d_valid_stride", nn.Conv1d(2, 3, 3, padding="valid", stride=2), 1, on_layer)
  check("conv1d_reflect", nn.Conv1d(2, 3, 3, padding=2, padding_mode="reflect", stride=2), 1, on_layer)
  check("conv1d_replicate_same", nn.Conv1d(2, 3, 4, padding="same", padding_mode="replicate"), 1, on_layer)
}

test "Conv3d with padding same/valid and padding_mode" {
  check("conv3d_same_circular", nn.Conv3d(2, 2, [3, 2, 3], padding="same", padding_mode="circular"), 1, on_layer)
  check("conv3d_valid_groups", nn.Conv3d(4, 2, 2, padding="valid", groups=2, dilation=[1, 2, 1]), 1, on_layer)
  check("conv3d_reflect_stride", nn.Conv3d(2, 3, 3, padding=[1, 2, 1], padding_mode="reflect", stride=2), 1, on_layer)
  check("conv3d_replicate", nn.Conv3d(1, 2, 2, padding=1, padding_mode="replicate"), 1, on_layer)
}

# ---- norms and pools (norm_pool_cases)
test "GroupNorm affine and not, one group, 3-D to 5-D inputs" {
  check("group_norm_affine", nn.GroupNorm(3, 6, eps=1e-3), 1, on_layer)
  check("group_norm_plain", nn.GroupNorm(2, 6, affine=false), 1, on_layer)
  check("group_norm_1group", nn.GroupNorm(1, 4), 1, on_layer)
}

test "InstanceNorm with running stats in training and eval, and unbatched" {
  check("instance1d_affine_track", nn.InstanceNorm1d(3, affine=true, track_running_stats=true), 1, on_layer)
  check("instance2d_track", nn.InstanceNorm2d(3, track_running_stats=true, momentum=0.3), 1, on_layer)
  let m = nn.InstanceNorm2d(3, affine=true, track_running_stats=true)
  m.eval()
  check("instance2d_eval", m, 1, on_layer)
  check("instance1d_unbatched", nn.InstanceNorm1d(3, affine=true), 1, on_layer)
}

test "adaptive pools on sizes that do not divide, with indices" {
  check("adaptive_avg1d", none, 1, on_x(fn(x) = adaptive_avg_pool1d(x, 3)))
  check("adaptive_avg2d", none, 1, on_x(fn(x) = adaptive_avg_pool2d(x, [3, 4])))
  check("adaptive_avg2d_up", none, 1, on_x(fn(x) = adaptive_avg_pool2d(x, [5, 3])))
  check("adaptive_max1d", none, 1, fn(m, xs) = pair(adaptive_max_pool1d(xs[0], 3, return_indices=true)))
  check("adaptive_max2d", none, 1, fn(m, xs) = pair(adaptive_max_pool2d(xs[0], [4, 3], return_indices=true)))
}

test "max pools with dilation, ceil_mode and indices" {
  check("max_pool1d_all", none, 1, fn(m, xs) = pair(max_pool1d(xs[0], 3, stride=2, padding=1, dilation=2,
                                                               ceil_mode=true, return_indices=true)))
  check("max_pool2d_all", none, 1, fn(m, xs) = pair(max_pool2d(xs[0], [3, 2], stride=[2, 1], padding=1,
                                                               dilation=[2, 1], ceil_mode=true, return_indices=true)))
  check("max_pool2d_ceil", nn.MaxPool2d(2, stride=2, ceil_mode=true, return_indices=true), 1,
        fn(m, xs) = pair(m(xs[0])))
  check("max_pool1d_ceil_drop", none, 1, fn(m, xs) = pair(max_pool1d(xs[0], 2, stride=2, padding=1, ceil_mode=true,
                                                                     return_indices=true)))
}

test "avg pools with ceil_mode, padding and count_include_pad both ways" {
  check("avg_pool1d_ceil_pad", none, 1, on_x(fn(x) = avg_pool1d(x, 3, stride=2, padding=1, ceil_mode=true)))
  check("avg_pool2d_ceil_nopad", none, 1, on_x(fn(x) = avg_pool2d(x, [3, 2], stride=2, padding=1, ceil_mode=true,
                                                                  count_include_pad=false)))
  check("avg_pool2d_ceil_pad", none, 1, on_x(fn(x) = avg_pool2d(x, [3, 2], stride=[2, 3], padding=[1, 1],
                                                                ceil_mode=true)))
}

test "rms_norm with eps given and defaulted equals its formula in torch ops" {
  check("rms_norm_eps", none, 2, fn(m, xs) = [rms_norm(xs[0], [3, 4], xs[1], eps=1e-3)])
  check("rms_norm_default", none, 2, fn(m, xs) = [rms_norm(xs[0], [3, 4], xs[1])])
  let m = nn.RMSNorm([3, 4], eps=1e-3)
  m.double()
  m.load_state_dict({"weight": vt.ref["rms_norm_eps.x1"]})
  expect_close(m(vt.ref["rms_norm_eps.x0"]), vt.ref["rms_norm_eps.y0"], rtol=1e-10, atol=1e-12)
}

# The paths this round added are made of ops, so their gradients differentiate again.
test "grad of grad: 5-D interpolate, negative reflect and circular pads" {
  let v = sin(arange(24, dtype=f64)).reshape([1, 1, 2, 3, 4]).requires_grad_(true)
  expect(gradgradcheck(fn(x) = (interpolate(x, scale_factor=[1.5, 0.6, 1.7], mode="trilinear") ** 2).sum(), v))
  let w = sin(arange(12, dtype=f64)).reshape([1, 2, 6]).requires_grad_(true)
  expect(gradgradcheck(fn(x) = (pad(x, [-1, 3], mode="reflect") ** 2).sum(), w))
  expect(gradgradcheck(fn(x) = (pad(x, [2, -3], mode="circular") ** 2).sum(), w))
  expect(gradgradcheck(fn(x) = (pad(x, [-2, 2], mode="replicate") ** 2).sum(), w))
}
