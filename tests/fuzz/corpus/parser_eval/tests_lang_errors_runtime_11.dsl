# case: int plus string

let s = 1 + "a"
