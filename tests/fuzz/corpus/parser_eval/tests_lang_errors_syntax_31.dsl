# case: comparison without a right side

let c = (1 < )
