# case: string index out of range

let s = "ab"
print(s[2])
