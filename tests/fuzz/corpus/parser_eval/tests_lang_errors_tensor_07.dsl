# case: sum dim out of range

let s = ones([2, 3]).sum(2)
