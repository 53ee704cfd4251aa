# case: linear with mismatched features

let y = linear(ones([2, 3]), ones([4, 5]))
