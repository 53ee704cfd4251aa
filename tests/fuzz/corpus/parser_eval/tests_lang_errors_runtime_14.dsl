# case: ordering a list against an int

let c = [1] < 1
