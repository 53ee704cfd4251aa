# Tensor and autograd errors from the language: each names the op, the argument and
# the shapes (the core's message), at the DSL expression that called the op.

# case: shape mismatch in +

let a = ones([2, 3])
let b = ones([4])
let c = a + b
