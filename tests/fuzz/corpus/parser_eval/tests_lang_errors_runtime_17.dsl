# case: modulo by zero

let q = 7 % 0
