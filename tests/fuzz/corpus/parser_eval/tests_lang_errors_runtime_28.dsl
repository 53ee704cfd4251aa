# case: unpacking too many values

let (a, b) = (1, 2, 3)
