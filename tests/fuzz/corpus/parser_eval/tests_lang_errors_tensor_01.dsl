# case: shape mismatch in *

let c = ones([2, 3]) * ones([3, 2])
