# Functions: expression and block bodies, defaults, keywords, recursion, closures.
fn square(v) = v * v
print(square(7))                      # expect: 49
fn fact(k) {
  if k <= 1 { return 1 }
  return k * fact(k - 1)
}
print(fact(10))                       # expect: 3628800
fn greet(name, greeting="hello") = f"{greeting}, {name}"
print(greet("ada"))                   # expect: hello, ada
print(greet("ada", greeting="hi"))    # expect: hi, ada
let add = fn(p, q) = p + q
print(add(2, 3))                      # expect: 5
fn adder(k) = fn(v) = v + k
print(adder(3)(4))                    # expect: 7
fn pair() { return 1, 2 }
let (first, second) = pair()
print(first, second)                  # expect: 1 2
fn nothing() { }
print(nothing())                      # expect: none
fn collect(first, *rest, scale=1) = (first, rest, scale)
print(collect(1))                     # expect: (1, (), 1)
print(collect(1, 2, 3, scale=2))      # expect: (1, (2, 3), 2)
let extra = [4, 5]
print(collect(0, *extra, 6))          # expect: (0, (4, 5, 6), 1)
fn plus(p, q) = p + q
print(plus(*(2, 3)))                  # expect: 5
model Sizes(*sizes) {
  count = len(sizes)
}
print(Sizes(3, 4, 5).count)           # expect: 3
