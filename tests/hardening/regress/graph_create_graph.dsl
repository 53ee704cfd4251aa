# grad with create_graph through a 10^6-node chain records a 10^6-node gradient chain;
# grad of that walks it again; both graphs are freed at exit (issue 25).
# status: 0
# timeout: 120
# expect: 3.0
# expect: 1.0
let x = ones([1], requires_grad=true)
let v = full([1], 3.0, requires_grad=true)
let y = x
for i in range(1000000) { y = -y }
let g = grad(y, x, grad_outputs=v, create_graph=true)
y = none
print(g.item())
print(grad(g, v).item())
