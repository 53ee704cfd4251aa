# case: missing member

let t = (1, 2)
t.foo
