# A leaf's hook returning a gradient of another shape (here one that would broadcast)
# is an error, not a .grad of the wrong shape.
# status: 1
# expect stderr: error: a hook on a leaf tensor of shape [3] returned a gradient of shape [2, 3]; a hook must return a gradient of the tensor's shape
let x = tensor([1.0, 2.0, 3.0], requires_grad=true)
x.register_hook(fn(g) = ones([2, 3]))
(x * 2).sum().backward()
