# case: two star parameters

fn f(a, *b, *c) = a
