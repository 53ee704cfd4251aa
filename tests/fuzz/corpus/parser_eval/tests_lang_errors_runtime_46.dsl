# case: keyword-only parameter missing

fn f(*a, b) = b
f(1, 2)
