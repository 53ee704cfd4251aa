# case: unclosed list in a call

print([1, 2)
