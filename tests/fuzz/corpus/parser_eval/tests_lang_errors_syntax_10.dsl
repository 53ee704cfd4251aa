# case: fn without a body

fn f(x) x
