# case: fn without parameters

fn f = 3
