# case: assignment to an undefined name

y = 3
