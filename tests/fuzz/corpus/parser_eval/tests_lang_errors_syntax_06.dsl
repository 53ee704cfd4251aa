# case: let without a name

let = 5
