# case: unclosed f-string field

let x = 1
print(f"{x")
