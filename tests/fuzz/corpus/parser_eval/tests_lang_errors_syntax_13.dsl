# case: while without a condition

while { }
