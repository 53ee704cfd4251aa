# case: softmax dim out of range

let s = ones([2, 3]).softmax(5)
