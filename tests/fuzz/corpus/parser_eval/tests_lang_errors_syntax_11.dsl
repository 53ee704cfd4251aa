# case: lambda without '='

let f = fn(x) x
