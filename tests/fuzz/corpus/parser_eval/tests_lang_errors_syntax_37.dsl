# case: two commas in a call

print(1,, 2)
