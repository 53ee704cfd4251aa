# case: test without a name

test { }
