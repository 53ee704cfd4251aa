# A tensor hook returning a gradient of another shape is an error naming the tensor
# and both shapes (before: a reshape error deep in backward, or a silent reshape).
# status: 1
# expect stderr: graph_hook_shape.dsl:9:1: error: a hook on a tensor of shape [3] (output 0 of MulBackward) returned a gradient of shape [2]; a hook must return a gradient of the tensor's shape
let x = tensor([1.0, 2.0, 3.0], requires_grad=true)
let b = x * 2
b.register_hook(fn(g) = ones([2]))
print("before")
b.sum().backward()
