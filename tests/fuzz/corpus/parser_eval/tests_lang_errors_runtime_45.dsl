# case: splat of a non-sequence

fn f(a) = a
print(f(*3))
