# case: unknown escape

print("a\q")
