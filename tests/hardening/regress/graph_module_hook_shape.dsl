# A module backward hook returning a gradient of another shape is an error.
# status: 1
# expect stderr: error: a hook on a tensor of shape [1, 1] (output 0 of
# expect stderr: returned a gradient of shape [3]; a hook must return a gradient of the tensor's shape
import nn
let m = nn.Linear(2, 1)
m.register_backward_hook(fn(mod, g) = ones([3]))
m(tensor([[1.0, 1.0]])).sum().backward()
