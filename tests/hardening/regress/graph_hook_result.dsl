# A hook returning something other than a tensor or none is an error.
# status: 1
# expect stderr: error: a hook must return a tensor or none, got int
let x = tensor([1.0, 2.0], requires_grad=true)
x.register_hook(fn(g) = 3)
(x * 2).sum().backward()
