# grad_outputs of another shape than the output is an error (no broadcasting), in
# grad() and in backward(gradient=).
# status: 1
# expect stderr: error: grad: grad_output 0 has shape [2] but the output has shape [3]
let x = tensor([1.0, 2.0, 3.0], requires_grad=true)
let y = x * 2
y.backward(gradient=ones([3]), retain_graph=true)
grad(y, x, grad_outputs=ones([2]))
