# Round 4 of the differential tests against PyTorch (tests/stdlib/test_*_vs_torch4.dsl):
# the arguments this round added (F.embedding's padding_idx and max_norm,
# divisor_override of avg_pool2d/3d and their layers, none entries in the functional
# adaptive pools' output_size, inplace= of the activations) and the checks it added
# (max_unpool's output_size within the stride of the pool's input, as PyTorch's), each
# bad value an error at the user's line naming the argument, what was expected and what was found.

# case: F.embedding's max_norm given as a str (it failed in the stdlib's renorm as "cannot compare tensor and str with '>'")
# expect error: tests/lang/errors_vs_torch4.dsl:13:9: error: embedding(): argument 'max_norm': expected a number, got str
# expect error line:   let y = embedding(tensor([1, 2]), randn([3, 2]), max_norm="1.0")
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let y = embedding(tensor([1, 2]), randn([3, 2]), max_norm="1.0")
# ---

# case: F.embedding's padding_idx outside the weight's rows (the argument was missing)
# expect error: tests/lang/errors_vs_torch4.dsl:21:9: error: embedding(): argument 'padding_idx' must be within the weight's 3 rows, got -4
# expect error line:   let y = embedding(tensor([1, 2]), randn([3, 2]), padding_idx=-4)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let y = embedding(tensor([1, 2]), randn([3, 2]), padding_idx=-4)
# ---

# case: an adaptive pool's output_size with a none entry and one value too many (it said "expected an int, got none")
# expect error: tests/lang/errors_vs_torch4.dsl:29:9: error: adaptive_avg_pool2d(): argument 'output_size' must have 2 values (one per spatial dim, none keeping the input's), got 3
# expect error line:   let y = adaptive_avg_pool2d(randn([1, 2, 4, 4]), [none, 2, 3])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let y = adaptive_avg_pool2d(randn([1, 2, 4, 4]), [none, 2, 3])
# ---

# case: max_unpool2d's output_size that no pool of this input's size gives (it was accepted: a 9 x 9 plane)
# expect error: tests/lang/errors_vs_torch4.dsl:37:9: error: max_unpool2d(): argument 'output_size' [9, 9] must be within the stride of [4, 4], the size of the pool's input that gives this input's [2, 2]: dim 0 must be between 3 and 5, got 9
# expect error line:   let y = max_unpool2d(ones([1, 1, 2, 2]), tensor([[[[0, 1], [2, 3]]]]), 2, output_size=[9, 9])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let y = max_unpool2d(ones([1, 1, 2, 2]), tensor([[[[0, 1], [2, 3]]]]), 2, output_size=[9, 9])
# ---

# case: MaxUnpool2d's output_size smaller than the pool's input could be (it was accepted)
# expect error: tests/lang/errors_vs_torch4.dsl:45:9: error: MaxUnpool2d: argument 'output_size' [2, 2] must be within the stride of [4, 4], the size of the pool's input that gives this input's [2, 2]: dim 0 must be between 3 and 5, got 2
# expect error line:   let y = nn.MaxUnpool2d(2)(ones([1, 1, 2, 2]), tensor([[[[0, 1], [2, 3]]]]), output_size=[2, 2])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let y = nn.MaxUnpool2d(2)(ones([1, 1, 2, 2]), tensor([[[[0, 1], [2, 3]]]]), output_size=[2, 2])
# ---

# case: avg_pool2d's divisor_override of 0 (the argument was missing)
# expect error: tests/lang/errors_vs_torch4.dsl:53:9: error: avg_pool2d(): argument 'divisor_override' must not be 0
# expect error line:   let y = avg_pool2d(ones([1, 1, 4, 4]), 2, divisor_override=0)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let y = avg_pool2d(ones([1, 1, 4, 4]), 2, divisor_override=0)
# ---

# case: AvgPool3d's divisor_override of 0 (the argument was missing)
# expect error: tests/lang/errors_vs_torch4.dsl:61:9: error: avg_pool3d(): argument 'divisor_override' must not be 0
# expect error line:   let y = nn.AvgPool3d(2, divisor_override=0)(ones([1, 1, 4, 4, 4]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let y = nn.AvgPool3d(2, divisor_override=0)(ones([1, 1, 4, 4, 4]))
# ---

# case: inplace=true on a leaf that requires grad (the argument was missing; PyTorch refuses the write too)
# expect error: tests/lang/errors_vs_torch4.dsl:69:9: error: relu(): inplace=true writes into argument 'input', a leaf tensor that requires grad, which cannot be modified in place (pass inplace=false, or call it under no_grad)
# expect error line:   let y = relu(randn([3], requires_grad=true), inplace=true)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let y = relu(randn([3], requires_grad=true), inplace=true)
# ---

# case: a layer's inplace=true on a leaf that requires grad
# expect error: tests/lang/errors_vs_torch4.dsl:77:9: error: hardswish(): inplace=true writes into argument 'input', a leaf tensor that requires grad, which cannot be modified in place (pass inplace=false, or call it under no_grad)
# expect error line:   let y = nn.Hardswish(inplace=true)(randn([2, 3], requires_grad=true))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let y = nn.Hardswish(inplace=true)(randn([2, 3], requires_grad=true))
# ---
