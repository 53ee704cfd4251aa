# case: 'and' without a right side

let v = true and )
