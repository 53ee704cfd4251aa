# case: missing operand

let y = 1 + * 2
