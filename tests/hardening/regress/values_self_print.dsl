# Issue 25 item 3: containers that hold themselves print as Python prints them:
# [...], {...}, (...), at any distance, through str, repr, f-strings and print;
# a model that holds itself prints Name(...) there.
# status: 0
# expect: [[...]]
# expect: [[...]] [[...]]
# expect: {'me': {...}}
# expect: [[[...]]] [[[...]]]
# expect: ([(...)],)
# expect: {'l': [{...}, ({...},)]}
# expect: 3
# expect: true
# expect: Box(
# expect:   (items): [
# expect:     (0): Box(...)  # same module as the model itself
# expect:   ]
# expect: )
let l = []
l.append(l)
print(l)
print(str(l), f"{l}")
let d = {}
d["me"] = d
print(repr(d))
let a = []
let b = [a]
a.append(b)
print(a, b)
let t = ([],)
t[0].append(t)
print(t)
let o = {}
o["l"] = [o, (o,)]
print(o)
print(len(str(l)) - 4)
print(l == l)
model Box() {
  items = []
  forward(x) = x
}
let box = Box()
box.items.append(box)
print(box)
