# case: backward twice

let w = ones([3], requires_grad=true)
let y = (w * w).sum()
y.backward()
y.backward()
