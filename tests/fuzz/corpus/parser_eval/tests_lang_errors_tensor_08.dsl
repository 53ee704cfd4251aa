# case: transpose dim out of range

let s = ones([2, 3]).transpose(0, 3)
