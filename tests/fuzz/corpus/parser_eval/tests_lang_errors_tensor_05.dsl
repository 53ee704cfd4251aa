# case: tensor index out of range

let x = ones([3])
let e = x[5]
