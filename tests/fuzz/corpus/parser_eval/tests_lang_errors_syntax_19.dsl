# case: keyword argument twice

fn f(a) = a
f(a=1, a=2)
