# case: empty index

let xs = [1]
xs[]
