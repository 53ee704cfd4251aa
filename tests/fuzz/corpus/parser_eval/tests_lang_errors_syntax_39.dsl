# case: a star parameter with a default

fn f(a, *b=1) = a
