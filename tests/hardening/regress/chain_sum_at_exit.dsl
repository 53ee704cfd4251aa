# A PyTorch user's classic mistake: summing losses that keep their history. The
# 200k-node autograd chain must be freed at exit without overflowing the stack.
# status: 0
# timeout: 120
# expect: 400000.0
let w = ones([1], requires_grad=true)
let total = zeros([1])
for i in range(200000) { total = total + w * 2 }
print(total.item())
