# Lists, tuples, dicts and strings.
let xs = [1, 2, 3]
print(xs)
print(len(xs), xs[0], xs[-1])
xs[1] = 20
print(xs)
print(xs[1:])
print(2 in xs, 5 not in xs)
let t = (1, "a")
print(t)
let (p, q) = t
print(p, q)
let d = {"lr": 0.1, "epochs": 3}
print(d["epochs"])
d["epochs"] = 5
print(d)
let total = 0
for (k, v) in [(1, 2), (3, 4)] { total += k * v }
print(total)
print(len("nabla"), "nabla"[0])
