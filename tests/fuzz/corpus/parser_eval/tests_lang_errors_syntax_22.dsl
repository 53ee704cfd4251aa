# case: required parameter after a default

fn g(a=1, b) = a
