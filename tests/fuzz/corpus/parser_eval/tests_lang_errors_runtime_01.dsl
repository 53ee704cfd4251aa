# case: undefined function

foo(1)
