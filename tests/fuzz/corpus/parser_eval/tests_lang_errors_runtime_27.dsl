# case: iterating over an int

for i in 5 { }
