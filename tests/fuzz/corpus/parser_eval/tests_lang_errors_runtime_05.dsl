# case: unknown keyword argument

fn f(a) = a
f(1, c=3)
