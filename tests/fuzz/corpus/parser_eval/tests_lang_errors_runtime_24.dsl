# case: member of a tensor that does not exist

let x = ones([2])
x.nope
