# Tensors, autograd and models from the language.
let a = tensor([1.0, 2.0, 3.0])
print(a)
print(a.sum().item())
print((a * 2 + 1).sum().item())
print(a.shape)
let m = ones([2, 3]) @ ones([3, 4])
print(m.shape)
let x = tensor([1.0, 2.0, 3.0], requires_grad=true)
let y = (x * x).sum()
y.backward()
print(x.grad)
let z = tensor(3.0, requires_grad=true)
let g1 = grad(z * z * z, z, create_graph=true)
print(g1.item())
let g2 = grad(g1, z)
print(g2.item())
no_grad {
  let w = x * 2
  print(w.requires_grad)
}
model Affine(n) {
  w = ones([n], requires_grad=true)
  b = zeros([n], requires_grad=true)
  forward(v) = v * w + b
}
let layer = Affine(3)
print(layer(tensor([1.0, 2.0, 3.0])).sum().item())
print(len(layer.parameters()))
