# Errors of the normalization, resampling and padding ops and layers: each names the
# op, the argument and the shapes or values.

# case: channels not divisible by num_groups
# expect error: tests/lang/errors_norm.dsl:6:9: error: group_norm: the channels of argument 'input' (shape [2, 6, 4], C = 6) must be divisible by num_groups = 4
let y = group_norm(ones([2, 6, 4]), 4)
# ---
# case: group_norm weight of the wrong shape
# expect error: tests/lang/errors_norm.dsl:10:9: error: group_norm: argument 'weight' must have shape [6], got [3] (input shape [2, 6, 4])
let y = group_norm(ones([2, 6, 4]), 3, weight=ones([3]))
# ---
# case: group_norm with no groups
# expect error: tests/lang/errors_norm.dsl:15:9: error: group_norm: num_groups must be positive, got 0
let x = ones([2, 6, 4])
let y = group_norm(x, 0)
# ---
# case: rms_norm weight of the wrong shape
# expect error: tests/lang/errors_norm.dsl:19:9: error: rms_norm: argument 'weight' must have shape [5], got [4] (input shape [2, 5])
let y = rms_norm(ones([2, 5]), [5], weight=ones([4]))
# ---
# case: trilinear on a 4-D input
# expect error: tests/lang/errors_norm.dsl:23:9: error: interpolate: mode 'trilinear' needs a 5-D input, got 4 dims (a 4-D input [N, C, H, W] takes "nearest", "nearest-exact", "area", "bilinear" or "bicubic")
let y = interpolate(ones([1, 1, 4, 4]), scale_factor=2, mode="trilinear")
# ---
# case: interpolate with both size and scale_factor
# expect error: tests/lang/errors_norm.dsl:27:9: error: interpolate: give exactly one of size and scale_factor, got both
let y = interpolate(ones([1, 1, 4, 4]), size=[8, 8], scale_factor=2)
# ---
# case: interpolate with neither size nor scale_factor
# expect error: tests/lang/errors_norm.dsl:31:9: error: interpolate: give exactly one of size and scale_factor, got neither
let y = interpolate(ones([1, 1, 4, 4]))
# ---
# case: bilinear on a 3-D input
# expect error: tests/lang/errors_norm.dsl:35:9: error: interpolate: mode 'bilinear' needs a 4-D input, got 3 dims (a 3-D input [N, C, W] takes "nearest", "nearest-exact", "area" or "linear")
let y = interpolate(ones([1, 2, 4]), size=8, mode="bilinear")
# ---
# case: align_corners with nearest
# expect error: tests/lang/errors_norm.dsl:39:9: error: interpolate: align_corners may only be set with the linear, bilinear, bicubic and trilinear modes
let y = interpolate(ones([1, 1, 4, 4]), scale_factor=2, align_corners=true)
# ---
# case: pad list of odd length
# expect error: tests/lang/errors_norm.dsl:43:9: error: pad: pad [1, 2, 3] must have an even length (a left and a right size per dim, last dim first)
let y = pad(ones([2, 3, 4]), [1, 2, 3])
# ---
# case: reflect pad as large as the dim
# expect error: tests/lang/errors_norm.dsl:47:9: error: pad: pad [3, 0] with mode 'reflect' on dim 2 of size 3 (argument 'input' of shape [1, 2, 3]): reflect padding must be smaller than the dim's size
let y = pad(ones([1, 2, 3]), [3, 0], mode="reflect")
# ---
# case: circular pad wider than what a negative pad leaves
# expect error: tests/lang/errors_norm.dsl:51:9: error: pad: pad [-1, 5] with mode 'circular' on dim 2 of size 5 (argument 'input' of shape [1, 2, 5]): circular padding must be at most the size the negative sizes leave, 4
let y = pad(ones([1, 2, 5]), [-1, 5], mode="circular")
# ---
# case: crop past the whole dim
# expect error: tests/lang/errors_norm.dsl:55:9: error: pad: pad [-2, -2] with mode 'constant' on dim 1 of size 3 (argument 'input' of shape [2, 3]): the padded size would be -1
let y = pad(ones([2, 3]), [-2, -2])
# ---
# case: more pad pairs than dims
# expect error: tests/lang/errors_norm.dsl:59:9: error: pad: pad [1, 1, 1, 1] pads 2 dims, but argument 'input' has shape [4]
let y = pad(ones([4]), [1, 1, 1, 1])
# ---
# case: unknown pad mode
# expect error: tests/lang/errors_norm.dsl:63:9: error: pad: unknown mode 'mirror' (expected "constant", "reflect", "replicate" or "circular")
let y = pad(ones([1, 2, 3]), [1, 1], mode="mirror")
