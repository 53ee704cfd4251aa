# Issue 25: a gradient assigned to x.grad must match the tensor's shape, dtype and
# device, as PyTorch checks; an i64 .grad turned later accumulations into integers.
# status: 1
# expect: ok
# expect stderr: graph_assigned_grad.dsl:15:1: error: tensor.grad: the assigned gradient has shape [2], the tensor [3]
let x = ones([3], requires_grad=true)
expect_error("x.grad = ones([3], dtype=i64)", "the assigned gradient has dtype i64, the tensor f32")
expect(x.grad == none, "a refused gradient is not kept")
x.grad = ones([3]) * 2
(x * x).sum().backward()
expect(x.grad.dtype == f32, "accumulated in f32")
expect(x.grad.tolist() == [4.0, 4.0, 4.0], "2 + 2x")
x.grad = none
print("ok")
x.grad = ones([2])
