# case: positional after keyword

fn f(a, b) = a
f(a=1, 2)
