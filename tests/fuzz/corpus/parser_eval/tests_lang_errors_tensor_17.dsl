# case: requires_grad on an integer tensor

let i = zeros([3], dtype=i64, requires_grad=true)
