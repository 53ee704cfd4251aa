# case: conditional without else

let c = true
let v = 1 if c
