# A view of a view of ... 10^6 deep, with history: freed at exit (issue 25). A view
# keeps only its storage, so only the autograd nodes chain.
# status: 0
# timeout: 120
# expect: (3, 2)
# expect: 6.0
let x = ones([2, 3], requires_grad=true)
let v = x * 1.0
for i in range(500000) { v = v.view([3, 2]).view([2, 3]) }
v = v.view([3, 2])
print(v.shape)
v.sum().backward()
print(x.grad.sum().item())
