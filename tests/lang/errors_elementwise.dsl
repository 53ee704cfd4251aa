# Errors of the elementwise ops (floor ... logit) and their layers: each names the op and
# the argument. logit of an integer tensor is not an error (it computes as f32, as
# PyTorch's does), so it has no case here.

# case: remainder of shapes that do not broadcast
# expect error: tests/lang/errors_elementwise.dsl:7:9: error: remainder: argument 'other' of shape [4] cannot be broadcast with argument 'self' of shape [2, 3] (dim -1: 3 vs 4)
let y = remainder(ones([2, 3]), ones([4]))
# ---
# case: % of tensors that do not broadcast
# expect error: tests/lang/errors_elementwise.dsl:11:9: error: remainder: argument 'other' of shape [2] cannot be broadcast with argument 'self' of shape [2, 3] (dim -1: 3 vs 2)
let y = ones([2, 3]) % ones([2])
# ---
# case: atan2 of shapes that do not broadcast
# expect error: tests/lang/errors_elementwise.dsl:15:9: error: atan2: argument 'other' of shape [3, 2] cannot be broadcast with argument 'self' of shape [2, 3] (dim -2: 2 vs 3)
let y = atan2(ones([2, 3]), ones([3, 2]))
# ---
# case: logaddexp of shapes that do not broadcast
# expect error: tests/lang/errors_elementwise.dsl:19:9: error: logaddexp: argument 'other' of shape [3] cannot be broadcast with argument 'self' of shape [2] (dim -1: 2 vs 3)
let y = logaddexp(ones([2]), ones([3]))
# ---
# case: integer remainder by zero
# expect error: tests/lang/errors_elementwise.dsl:23:9: error: remainder: integer division by zero
let y = remainder(tensor([1, 2]), tensor([1, 0]))
# ---
# case: remainder of two bool tensors
# expect error: tests/lang/errors_elementwise.dsl:27:9: error: remainder: not defined for two bool tensors; convert one with to_dtype
let y = remainder(tensor([true]), tensor([false]))
# ---
# case: hardtanh with min_val above max_val
# expect error: tests/lang/errors_elementwise.dsl:31:9: error: hardtanh: min_val (2) must not be greater than max_val (1)
let y = hardtanh(ones([2]), min_val=2.0, max_val=1.0)
# ---
# case: softplus with beta 0
# expect error: tests/lang/errors_elementwise.dsl:35:9: error: softplus: beta must not be 0 (it divides by beta)
let y = softplus(ones([2]), beta=0.0)
# ---
# case: elu with an alpha that is not a number
# expect error: tests/lang/errors_elementwise.dsl:39:9: error: elu(): argument 'alpha': expected a number, got str
let y = elu(ones([2]), alpha="big")
# ---
# case: leaky_relu with an unknown argument
# expect error: tests/lang/errors_elementwise.dsl:43:9: error: leaky_relu() got an unexpected keyword argument 'slope' (valid keywords: input, negative_slope)
let y = leaky_relu(ones([2]), slope=0.1)
# ---
# case: floor of a str
# expect error: tests/lang/errors_elementwise.dsl:47:9: error: floor(): argument 'input' must be a tensor, got str
let y = floor("x")
