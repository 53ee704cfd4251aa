# case: missing dict key

let d = {"a": 1}
print(d["b"])
