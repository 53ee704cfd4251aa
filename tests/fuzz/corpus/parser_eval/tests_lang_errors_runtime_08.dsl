# case: calling an int

let n = 3
n(1)
