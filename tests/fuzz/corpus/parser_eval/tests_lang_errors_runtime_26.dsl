# case: assigning into a tuple

let t = (1, 2)
t[0] = 5
