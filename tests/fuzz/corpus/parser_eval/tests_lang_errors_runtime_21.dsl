# case: list index of the wrong type

let xs = [1, 2]
print(xs["a"])
