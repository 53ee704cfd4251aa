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
# static methods: no self; called on the class, on an instance, or by bare name inside
# the model's methods; they see the scope the model is defined in.
let static_scale = 10
model Scaled(k) {
  k = k
  static make(v) = Scaled(v * static_scale)
  static twice(x, y=2) { return x * y }
  forward(x) = x + self.k + twice(1)
}
print(Scaled.make(2).k, Scaled.twice(3), Scaled(1).twice(4, y=3), Scaled(1)(0))   # expect: 20 6 12 3
model NotStatic() {
  static = 3
  forward(x) = x
}
print(NotStatic().static)             # expect: 3
