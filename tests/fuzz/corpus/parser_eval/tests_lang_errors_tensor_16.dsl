# case: grad for an input that does not require grad

let w = ones([3], requires_grad=true)
let x = ones([3])
let g = grad((w * w).sum(), x)
