# case: integer division by zero

let q = 7 // 0
