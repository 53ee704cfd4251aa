# Convolution and pooling errors (1-D, transposed and adaptive rows): each names the
# op, the argument and the shapes, at the DSL expression that called the op.
# case: output_padding not smaller than stride (nor dilation)
# expect error: tests/lang/errors_conv.dsl:5:9: error: conv_transpose2d: argument 'output_padding' (2x2) must be smaller than either 'stride' (2x2) or 'dilation' (1x1)
let y = conv_transpose2d(ones([1, 2, 3, 3]), ones([2, 2, 3, 3]), stride=2, output_padding=2)
# ---
# case: output_padding not smaller than stride, 1-D
# expect error: tests/lang/errors_conv.dsl:9:9: error: conv_transpose1d: argument 'output_padding' (1) must be smaller than either 'stride' (1) or 'dilation' (1)
let y = conv_transpose1d(ones([1, 2, 5]), ones([2, 2, 3]), output_padding=1)
# ---
# case: conv1d input of the wrong rank
# expect error: tests/lang/errors_conv.dsl:13:9: error: conv1d: argument 'input' must be 3-D [N, C, L], got shape [2, 3, 4, 5]
let y = conv1d(ones([2, 3, 4, 5]), ones([4, 3, 3]))
# ---
# case: conv1d channels not matching the weight
# expect error: tests/lang/errors_conv.dsl:17:9: error: conv1d: argument 'weight' of shape [4, 2, 3] expects 2 input channels (groups=1) but argument 'input' of shape [2, 3, 8] has 3
let y = conv1d(ones([2, 3, 8]), ones([4, 2, 3]))
# ---
# case: conv1d input shorter than the kernel
# expect error: tests/lang/errors_conv.dsl:21:9: error: conv1d: argument 'input' of shape [1, 4, 2] is 2 after padding, smaller than the 3 (dilated) kernel of argument 'weight' of shape [2, 4, 3]; the computed output size is 0
let y = conv1d(ones([1, 4, 2]), ones([2, 4, 3]))
# ---
# case: conv_transpose2d channels not matching the weight
# expect error: tests/lang/errors_conv.dsl:25:9: error: conv_transpose2d: argument 'weight' of shape [3, 2, 3, 3] expects 3 input channels but argument 'input' of shape [1, 4, 4, 4] has 4
let y = conv_transpose2d(ones([1, 4, 4, 4]), ones([3, 2, 3, 3]))
# ---
# case: conv_transpose2d groups not dividing the channels
# expect error: tests/lang/errors_conv.dsl:29:9: error: conv_transpose2d: argument 'input' of shape [1, 3, 4, 4] has 3 channels, which groups=2 does not divide
let y = conv_transpose2d(ones([1, 3, 4, 4]), ones([3, 2, 3, 3]), groups=2)
# ---
# case: adaptive output_size of the wrong length
# expect error: tests/lang/errors_conv.dsl:33:9: error: adaptive_avg_pool2d: argument 'output_size' must have 1 or 2 values, got [1, 2, 3]
let y = adaptive_avg_pool2d(ones([1, 2, 4, 4]), [1, 2, 3])
# ---
# case: adaptive 1-D output_size of the wrong length
# expect error: tests/lang/errors_conv.dsl:37:9: error: adaptive_avg_pool1d: argument 'output_size' must have 1 value, got [1, 2]
let y = adaptive_avg_pool1d(ones([1, 2, 4]), [1, 2])
# ---
# case: adaptive_max_pool2d input of the wrong rank (3-D is an unbatched [C, H, W], as in PyTorch)
# expect error: tests/lang/errors_conv.dsl:41:9: error: adaptive_max_pool2d: argument 'input' must be 4-D [N, C, H, W], got shape [4, 4]
let y = adaptive_max_pool2d(ones([4, 4]), 2)
# ---
# case: max_pool1d window of two values
# expect error: tests/lang/errors_conv.dsl:45:9: error: max_pool1d: argument 'kernel_size' must have 1 value, got 2
let y = max_pool1d(ones([1, 2, 4]), [2, 2])
# ---
# case: avg_pool1d padding over half the kernel
# expect error: tests/lang/errors_conv.dsl:49:9: error: avg_pool1d: argument 'padding' (2) must be at most half of 'kernel_size' (2)
let y = avg_pool1d(ones([1, 2, 4]), 2, padding=2)
# ---
# case: conv3d input channels not matching the weight
# expect error: tests/lang/errors_conv.dsl:53:9: error: conv3d: argument 'weight' of shape [4, 2, 2, 2, 2] expects 2 input channels (groups=1) but argument 'input' of shape [1, 3, 4, 4, 4] has 3
let y = conv3d(ones([1, 3, 4, 4, 4]), ones([4, 2, 2, 2, 2]))
