# case: in-place change of a saved tensor

let w = ones([3], requires_grad=true)
let h = w * w
let y = (h * h).sum()
h.mul_(2)
y.backward()
