# Errors of the scans, ordering and indexing ops (autograd/ops/ordering.cpp): each
# names the op, the argument and the shapes or values.

# case: topk asking for more elements than the dim has
# expect error: tests/lang/errors_ordering.dsl:6:9: error: topk: k (5) is out of range for dim 1 of the input of shape [2, 3] (size 3)
let t = ones([2, 3]).topk(5)
# ---
# case: masked_fill with a mask that is not bool
# expect error: tests/lang/errors_ordering.dsl:10:9: error: masked_fill: mask must be a bool tensor, got f32 of shape [2, 3]
let m = ones([2, 3]).masked_fill(ones([2, 3]), 0.0)
# ---
# case: masked_fill with a mask that does not broadcast to the input
# expect error: tests/lang/errors_ordering.dsl:14:9: error: masked_fill: mask of shape [4, 3] cannot be broadcast to the input of shape [2, 3]
let m = ones([2, 3]).masked_fill(ones([4, 3]) > 0, 0.0)
# ---
# case: sort dim out of range
# expect error: tests/lang/errors_ordering.dsl:18:9: error: sort: dim 2 is out of range for a tensor of 2 dimensions (expected a dim in [-2, 1])
let s = ones([2, 3]).sort(2)
# ---
# case: cumsum dim out of range
# expect error: tests/lang/errors_ordering.dsl:22:9: error: cumsum: dim -3 is out of range for a tensor of 2 dimensions (expected a dim in [-2, 1])
let c = ones([2, 3]).cumsum(-3)
# ---
# case: one_hot class out of range
# expect error: tests/lang/errors_ordering.dsl:26:9: error: one_hot: class 3 is out of range for num_classes 3 (expected a value in [0, 3))
let h = one_hot(tensor([0, 3, 1]), 3)
# ---
# case: repeat with fewer sizes than dims
# expect error: tests/lang/errors_ordering.dsl:30:9: error: repeat: sizes [2, 2] must have at least as many entries as the input of shape [2, 3, 4] has dims (3)
let r = ones([2, 3, 4]).repeat(2, 2)
# ---
# case: multinomial without replacement, more samples than categories
# expect error: tests/lang/errors_ordering.dsl:34:9: error: multinomial: cannot draw 3 samples without replacement from 2 categories (input of shape [2])
let s = multinomial(tensor([0.2, 0.8]), 3)
# ---
# case: multinomial from a row of zeros
# expect error: tests/lang/errors_ordering.dsl:38:9: error: multinomial: the probabilities of row 1 sum to zero
let s = multinomial(tensor([[0.5, 0.5], [0.0, 0.0]]), 1)
# ---
# case: multinomial from a negative probability
# expect error: tests/lang/errors_ordering.dsl:42:9: error: multinomial: probabilities must be finite and non-negative, got -0.5 in row 0 at category 1
let s = multinomial(tensor([0.5, -0.5, 1.0]), 1, true)
# ---
# case: flip naming a dim twice
# expect error: tests/lang/errors_ordering.dsl:46:9: error: flip: dim 1 appears more than once in dims [1, -1]
let f = ones([2, 3]).flip(1, -1)
# ---
# case: tril of a vector
# expect error: tests/lang/errors_ordering.dsl:50:9: error: tril: input must have at least 2 dims, got shape [3]
let l = ones([3]).tril()
