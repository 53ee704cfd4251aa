# case: backward of a non-scalar

let w = ones([3], requires_grad=true)
(w * w).backward()
