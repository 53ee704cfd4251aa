# A 10^6-node chain (issue 25): backward twice (retain_graph), then the graph is freed
# when `total` is rebound and again at exit, all on the default 8 MiB stack (the engine
# and the freeing are iterative: Note [Iterative graph walks], Note [Iterative graph
# release]).
# status: 0
# timeout: 120
# expect: 1000000.0
# expect: 2000000.0
# expect: 3000000.0
let w = ones([1], requires_grad=true)
let total = zeros([1])
for i in range(1000000) { total = total + w }
total.backward(retain_graph=true)
print(w.grad.item())
total.backward()
print(w.grad.item())
total = zeros([1])
for i in range(1000000) { total = total + w }
total.backward()
print(w.grad.item())
