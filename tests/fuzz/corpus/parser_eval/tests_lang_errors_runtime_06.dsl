# case: argument given twice

fn f(a) = a
f(1, a=2)
