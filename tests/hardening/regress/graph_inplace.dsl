# 3 * 10^5 in-place writes into a tensor with history make a chain of 9 * 10^5 nodes
# (each write: a copy of the old value, the add, and the CopyBackward that rebases
# history); backward runs through it and it is freed at exit (issue 25).
# status: 0
# timeout: 120
# expect: 300001.0
let w = ones([1], requires_grad=true)
let y = w * 1.0
for i in range(300000) { y.add_(w) }
y.backward()
print(w.grad.item())
