# case: too few arguments

fn f(a, b) = a
f(1)
