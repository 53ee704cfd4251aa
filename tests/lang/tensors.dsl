# Tensors, autograd and models from the language.
let a = tensor([1.0, 2.0, 3.0])
print(a)                              # expect: tensor([1., 2., 3.])
print(a.sum().item())                 # expect: 6.0
print((a * 2 + 1).sum().item())       # expect: 15.0
print(a.shape)                        # expect: (3,)
let m = ones([2, 3]) @ ones([3, 4])
print(m.shape)                        # expect: (2, 4)
let x = tensor([1.0, 2.0, 3.0], requires_grad=true)
let y = (x * x).sum()
y.backward()
print(x.grad)                         # expect: tensor([2., 4., 6.])
let z = tensor(3.0, requires_grad=true)
let g1 = grad(z * z * z, z, create_graph=true)
print(g1.item())                      # expect: 27.0
let g2 = grad(g1, z)
print(g2.item())                      # expect: 18.0
no_grad {
  let w = x * 2
  print(w.requires_grad)              # expect: false
}
model Affine(n) {
  w = ones([n], requires_grad=true)
  b = zeros([n], requires_grad=true)
  forward(v) = v * w + b
}
let layer = Affine(3)
print(layer(tensor([1.0, 2.0, 3.0])).sum().item())   # expect: 6.0
print(len(layer.parameters()))        # expect: 2
# Masks combine with & | ^ and invert with ~, broadcasting, as PyTorch's bool tensors.
let m1 = tensor([true, true, false, false])
let m2 = tensor([true, false, true, false])
print((m1 & m2).tolist(), (m1 | m2).tolist(), (m1 ^ m2).tolist(), (~m1).tolist())   # expect: [true, false, false, false] [true, true, true, false] [false, true, true, false] [false, false, true, true]
print((tensor([[true], [false]]) & m2).shape, (m1 & true).tolist())   # expect: (2, 4) [true, true, false, false]
print(arange(4).masked_fill(~(arange(4) > 1) | (arange(4) == 3), -1).tolist())   # expect: [-1, -1, 2, -1]
