# case: let without '='

let x 5
