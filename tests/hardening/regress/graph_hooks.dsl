# Hooks over a deep graph (issue 25): a tensor hook on each of 2 * 10^5 chained
# tensors, a leaf hook, and a module backward hook, all run by one backward; the
# hooks' closures hold tensors of the chain, which are freed at exit.
# status: 0
# timeout: 120
# expect: 200000
# expect: 2.0
import nn
let calls = [0]
let x = ones([1], requires_grad=true)
x.register_hook(fn(g) = g * 2)
let m = nn.Linear(1, 1)
m.register_backward_hook(fn(mod, g) = g)
let y = m(x.view([1, 1])).view([1])
fn count(t) {
  calls[0] = calls[0] + 1
}
for i in range(200000) {
  let before = y
  y = y * 1.0
  y.register_hook(fn(g) = count(before))
}
y.backward()
print(calls[0])
print(x.grad.item() / m.weight.item())
