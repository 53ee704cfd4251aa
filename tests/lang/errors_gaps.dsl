# Errors of masked_fill's tensor value, interpolate's area mode and ranks, pad of
# integer tensors and instance_norm's running statistics: each names the op, the
# argument and the shapes or values. (The InstanceNorm and MultiheadAttention layers'
# argument errors are asserts in stdlib/nn.dsl, whose line numbers move with every
# edit there: tests/stdlib/test_nn_gaps.dsl checks their text with expect_error.)

# case: masked_fill with a value tensor that is not 0-dim
# expect error: tests/lang/errors_gaps.dsl:9:9: error: masked_fill: value must be a number or a 0-dim tensor, got a tensor of shape [2]
let m = ones([2, 3]).masked_fill(tensor([true, false, true]), tensor([1.0, 2.0]))
# ---
# case: area with align_corners
# expect error: tests/lang/errors_gaps.dsl:13:9: error: interpolate: align_corners may only be set with the linear, bilinear, bicubic and trilinear modes
let y = interpolate(ones([1, 1, 4, 4]), size=[2, 2], mode="area", align_corners=false)
# ---
# case: linear on a 4-D input names the modes of that rank
# expect error: tests/lang/errors_gaps.dsl:17:9: error: interpolate: mode 'linear' needs a 3-D input, got 4 dims (a 4-D input [N, C, H, W] takes "nearest", "nearest-exact", "area", "bilinear" or "bicubic")
let y = interpolate(ones([1, 1, 4, 4]), size=[2, 2], mode="linear")
# ---
# case: area on a 6-D input
# expect error: tests/lang/errors_gaps.dsl:21:9: error: interpolate: argument 'input' must be 3-D [N, C, W], 4-D [N, C, H, W] or 5-D [N, C, D, H, W], got shape [1, 1, 2, 2, 4, 4]
let y = interpolate(ones([1, 1, 2, 2, 4, 4]), size=[2, 2, 2, 2], mode="area")
# ---
# case: unknown interpolate mode
# expect error: tests/lang/errors_gaps.dsl:25:9: error: interpolate: unknown mode 'nearest_exact' (expected "nearest", "nearest-exact", "area", "linear" (3-D), "bilinear" or "bicubic" (4-D), "trilinear" (5-D))
let y = interpolate(ones([1, 1, 4]), size=[2], mode="nearest_exact")
# ---
# case: reflect padding of an integer tensor as large as the dim
# expect error: tests/lang/errors_gaps.dsl:29:9: error: pad: pad [3, 0] with mode 'reflect' on dim 2 of size 3 (argument 'input' of shape [1, 2, 3]): reflect padding must be smaller than the dim's size
let y = pad(arange(6).reshape([1, 2, 3]), [3, 0], mode="reflect")
# ---
# case: instance_norm with running statistics of the wrong size
# expect error: tests/lang/errors_gaps.dsl:33:9: error: instance_norm: argument 'running_mean' of shape [4] must have one value per channel of argument 'input' of shape [2, 3, 5] (C = 3)
let y = instance_norm(ones([2, 3, 5]), zeros([4]), ones([4]))
# ---
# case: instance_norm normalizing with running statistics that are not given
# expect error: tests/lang/errors_gaps.dsl:37:9: error: instance_norm: argument 'running_mean' is missing
let y = instance_norm(ones([2, 3, 5]), use_input_stats=false)
