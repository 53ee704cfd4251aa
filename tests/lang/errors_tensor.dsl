# Tensor and autograd errors from the language: each names the op, the argument and
# the shapes (the core's message), at the DSL expression that called the op.

# case: shape mismatch in +
# expect error: tests/lang/errors_tensor.dsl:8:9: error: add: argument 'other' of shape [4] cannot be broadcast with argument 'self' of shape [2, 3] (dim -1: 3 vs 4)
let a = ones([2, 3])
let b = ones([4])
let c = a + b
# ---
# case: shape mismatch in *
# expect error: tests/lang/errors_tensor.dsl:12:9: error: mul: argument 'other' of shape [3, 2] cannot be broadcast with argument 'self' of shape [2, 3] (dim -2: 2 vs 3)
let c = ones([2, 3]) * ones([3, 2])
# ---
# case: shape mismatch in @
# expect error: tests/lang/errors_tensor.dsl:16:9: error: matmul: argument 'other' of shape [4, 5] has 4 rows but argument 'self' of shape [2, 3] has 3 columns
let c = ones([2, 3]) @ ones([4, 5])
# ---
# case: view that needs a copy
# expect error: tests/lang/errors_tensor.dsl:21:9: error: view: the shape [6] is not compatible with the input's size [3, 2] and stride [1, 3] (at least one dimension spans across two contiguous subspaces); a view cannot be made without a copy, use reshape(...) instead
let x = ones([2, 3]).t()
let v = x.view([6])
# ---
# case: reshape to the wrong size
# expect error: tests/lang/errors_tensor.dsl:25:9: error: reshape: shape [4] is invalid for input of shape [2, 3] (6 elements)
let r = ones([2, 3]).reshape([4])
# ---
# case: tensor index out of range
# expect error: tests/lang/errors_tensor.dsl:30:9: error: index 5 is out of range for dim 0 of a tensor of length 3
let x = ones([3])
let e = x[5]
# ---
# case: softmax dim out of range
# expect error: tests/lang/errors_tensor.dsl:34:9: error: softmax: dim 5 is out of range for a tensor of 2 dimensions (expected a dim in [-2, 1])
let s = ones([2, 3]).softmax(5)
# ---
# case: sum dim out of range
# expect error: tests/lang/errors_tensor.dsl:38:9: error: sum: dim 2 is out of range for a tensor of 2 dimensions (expected a dim in [-2, 1])
let s = ones([2, 3]).sum(2)
# ---
# case: transpose dim out of range
# expect error: tests/lang/errors_tensor.dsl:42:9: error: transpose: dim 3 is out of range for a tensor of 2 dimensions (expected a dim in [-2, 1])
let s = ones([2, 3]).transpose(0, 3)
# ---
# case: expand to an incompatible shape
# expect error: tests/lang/errors_tensor.dsl:46:9: error: expand: the input of shape [2, 3] cannot be expanded to [4, 3] (dim 0: 2 is not 1)
let s = ones([2, 3]).expand([4, 3])
# ---
# case: item of a tensor with several elements
# expect error: tests/lang/errors_tensor.dsl:50:9: error: item(): expected a tensor with one element, got shape [3]
let v = ones([3]).item()
# ---
# case: linear with mismatched features
# expect error: tests/lang/errors_tensor.dsl:54:9: error: linear: argument 'input' of shape [2, 3] has 3 features but argument 'weight' of shape [4, 5] expects 5
let y = linear(ones([2, 3]), ones([4, 5]))
# ---
# case: in-place change of a saved tensor
# expect error: tests/lang/errors_tensor.dsl:62:1: error: backward of 'mul': input 1 was saved at version 0 but has been modified by an in-place operation since (now version 1); use an out-of-place op or clone it first (op called at tests/lang/errors_tensor.dsl:60:9)
let w = ones([3], requires_grad=true)
let h = w * w
let y = (h * h).sum()
h.mul_(2)
y.backward()
# ---
# case: backward twice
# expect error: tests/lang/errors_tensor.dsl:69:1: error: backward through 'sum' a second time: its saved tensors were freed after the first backward; pass retain_graph=true to the first call
let w = ones([3], requires_grad=true)
let y = (w * w).sum()
y.backward()
y.backward()
# ---
# case: backward of a non-scalar
# expect error: tests/lang/errors_tensor.dsl:74:1: error: backward: a gradient can be implied only for one-element outputs; output 0 has shape [3], so pass its grad_output
let w = ones([3], requires_grad=true)
(w * w).backward()
# ---
# case: in-place change of a leaf that requires grad
# expect error: tests/lang/errors_tensor.dsl:79:1: error: mul_: a leaf tensor that requires grad cannot be modified in place (wrap the update in no_grad)
let w = ones([3], requires_grad=true)
w.mul_(2)
# ---
# case: grad for an input that does not require grad
# expect error: tests/lang/errors_tensor.dsl:85:9: error: grad: input 0 does not require grad
let w = ones([3], requires_grad=true)
let x = ones([3])
let g = grad((w * w).sum(), x)
# ---
# case: requires_grad on an integer tensor
# expect error: tests/lang/errors_tensor.dsl:89:9: error: zeros(): only floating tensors can require gradients, got i64
let i = zeros([3], dtype=i64, requires_grad=true)
# ---
# case: error in an op names the function that called it
# expect error: tests/lang/errors_tensor.dsl:95:18: error: matmul: argument 'other' of shape [5, 2] has 5 rows but argument 'self' of shape [4, 3] has 3 columns
# expect error line:   at tests/lang/errors_tensor.dsl:96:19 in run_model()
# expect error line:   at tests/lang/errors_tensor.dsl:97:1 in <module>
fn layer(x, w) = x @ w
fn run_model(x) = layer(x, ones([5, 2]))
run_model(ones([4, 3]))
# ---
# case: slice_backward's gradient must be the slice it names (else it would write out of bounds)
# expect error: tests/lang/errors_tensor.dsl:101:1: error: slice_backward: grad of shape [1, 1] is not the slice of dim 1 of input_shape [3, 5], which has shape [3, 2]
slice_backward(ones([1, 1]), input_shape=[3, 5], dim=1, start=1, end=4, step=2)
# ---
# case: slice_backward's start is where the slice begins, within the dim
# expect error: tests/lang/errors_tensor.dsl:105:1: error: slice_backward: start -7 is not within [0, 5] (dim 1 of input_shape [3, 5])
slice_backward(ones([3, 2]), input_shape=[3, 5], dim=1, start=-7, end=4, step=2)
