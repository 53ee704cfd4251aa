# case: too many arguments

fn f(a) = a
f(1, 2)
