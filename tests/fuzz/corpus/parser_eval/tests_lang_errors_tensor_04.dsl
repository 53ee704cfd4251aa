# case: reshape to the wrong size

let r = ones([2, 3]).reshape([4])
