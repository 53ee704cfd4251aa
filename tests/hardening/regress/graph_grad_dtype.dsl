# Gradients the user supplies in another dtype are cast to the dtype of the tensor
# they flow into, as PyTorch's engine does (Note [Gradient validation]): before, an
# i64 grad_output or hook result turned the gradients below it into i64, silently.
# status: 0
# expect: f32 [1.0, 1.0, 1.0]
# expect: f32 [1.0, 2.0, 3.0]
# expect: f32 [30.0, 30.0]
# expect: f32 [[2.0, 2.0]]
# expect: f32 [2.0, 2.0]
# expect: f32 [3.0, 3.0]
# expect: f64 [2.0]
import nn
# grad_outputs and backward's gradient
let x = tensor([1.0, 2.0, 3.0], requires_grad=true)
let y = x + 1
let g = grad(y, x, grad_outputs=tensor([1, 1, 1]), retain_graph=true)
print(g.dtype, g.tolist())
y.backward(gradient=tensor([1, 2, 3]))
print(x.grad.dtype, x.grad.tolist())
# tensor hooks returning i64, on a non-leaf and on a leaf
let a = tensor([1.0, 2.0], requires_grad=true)
let b = a * 3
b.register_hook(fn(g) = tensor([5, 5]))
a.register_hook(fn(g) = (g * 2).to(i64))
b.sum().backward()
print(a.grad.dtype, a.grad.tolist())
# a module backward hook returning i64
let m = nn.Linear(2, 1)
m.register_backward_hook(fn(mod, g) = tensor([[2]]))
m(tensor([[1.0, 1.0]])).sum().backward()
print(m.weight.grad.dtype, m.weight.grad.tolist())
# a custom function whose backward returns i64, and one whose gradient is broadcast
# over its input (summed back, as broadcasting ops do)
function Twice {
  forward(ctx, x) = x * 2
  backward(ctx, g) = tensor([2, 2])
}
let c = tensor([1.0, 1.0], requires_grad=true)
Twice(c).sum().backward()
print(c.grad.dtype, c.grad.tolist())
function Spread {
  forward(ctx, x) = x * 2
  backward(ctx, g) = ones([3, 2])
}
let d = tensor([1.0, 1.0], requires_grad=true)
Spread(d).sum().backward()
print(d.grad.dtype, d.grad.tolist())
# the cast is an op: create_graph differentiates through it
let e = tensor([2.0], dtype=f64, requires_grad=true)
let ge = grad(e * e, e, grad_outputs=tensor([1]), create_graph=true)
print(ge.dtype, grad(ge, e).tolist())
