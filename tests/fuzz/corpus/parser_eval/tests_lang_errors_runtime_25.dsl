# case: setting a member of an int

let k = 1
k.x = 2
