# case: unpacking a non-sequence

let (a, b) = 7
