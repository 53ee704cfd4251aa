# case: in-place change of a leaf that requires grad

let w = ones([3], requires_grad=true)
w.mul_(2)
