# Lists, tuples, dicts and strings.
let xs = [1, 2, 3]
print(xs)                             # expect: [1, 2, 3]
print(len(xs), xs[0], xs[-1])         # expect: 3 1 3
xs[1] = 20
print(xs)                             # expect: [1, 20, 3]
print(xs[1:])                         # expect: [20, 3]
print(2 in xs, 5 not in xs)           # expect: false true
let t = (1, "a")
print(t)                              # expect: (1, 'a')
let (p, q) = t
print(p, q)                           # expect: 1 a
let d = {"lr": 0.1, "epochs": 3}
print(d["epochs"])                    # expect: 3
d["epochs"] = 5
print(d)                              # expect: {'lr': 0.1, 'epochs': 5}
let total = 0
for (k, v) in [(1, 2), (3, 4)] { total += k * v }
print(total)                          # expect: 14
print(len("nabla"), "nabla"[0])       # expect: 5 n
print("abc".replace("", "-"), "".replace("", "x"), "ab".replace("", "")) # expect: -a-b-c- x ab
print("aXbXc".replace("X", "--"), "aaa".replace("a", "b"))  # expect: a--b--c bbb
