# case: parameter twice

fn g(a, a) = a
