# case: member that is not a name

let x = 1
x.(1)
