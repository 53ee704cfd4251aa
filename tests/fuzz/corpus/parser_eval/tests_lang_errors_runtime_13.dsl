# case: unary minus on a string

let s = -"a"
