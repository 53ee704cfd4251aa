# case: division by zero

let q = 1 / 0
