# case: infinite recursion

fn r(n) = r(n + 1)
r(0)
