# case: two statements on one line

let a = 1 let b = 2
