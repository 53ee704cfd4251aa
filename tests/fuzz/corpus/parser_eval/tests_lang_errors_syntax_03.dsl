# case: unclosed string

print("abc)
