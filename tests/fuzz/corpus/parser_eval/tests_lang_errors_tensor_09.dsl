# case: expand to an incompatible shape

let s = ones([2, 3]).expand([4, 3])
