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
