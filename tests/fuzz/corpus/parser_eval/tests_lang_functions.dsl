# Functions: expression and block bodies, defaults, keywords, recursion, closures.
fn square(v) = v * v
print(square(7))
fn fact(k) {
  if k <= 1 { return 1 }
  return k * fact(k - 1)
}
print(fact(10))
fn greet(name, greeting="hello") = f"{greeting}, {name}"
print(greet("ada"))
print(greet("ada", greeting="hi"))
let add = fn(p, q) = p + q
print(add(2, 3))
fn adder(k) = fn(v) = v + k
print(adder(3)(4))
fn pair() { return 1, 2 }
let (first, second) = pair()
print(first, second)
fn nothing() { }
print(nothing())
fn collect(first, *rest, scale=1) = (first, rest, scale)
print(collect(1))
print(collect(1, 2, 3, scale=2))
let extra = [4, 5]
print(collect(0, *extra, 6))
fn plus(p, q) = p + q
print(plus(*(2, 3)))
model Sizes(*sizes) {
  count = len(sizes)
}
print(Sizes(3, 4, 5).count)
