# case: negative list index out of range

let xs = [1, 2, 3]
print(xs[-4])
