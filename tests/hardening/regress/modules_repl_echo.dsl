# stdin
# The REPL echoes the value of a top-level expression entry only: `let m =
# nn.Linear(4, 3)` used to print a random tensor (an expression statement inside the
# constructor), and `let b = f()` the last expression statement f ran.
# status: 0
# expect: 2
# expect: 1
# expect: 3
import nn
let m = nn.Linear(4, 3)
fn f() {
  5
  return 1
}
let b = f()
1 + 1
if true { 7 }
for i in range(3) { i }
f()
model M() {
  x = 1
  forward(y) {
    y * 10
    return y
  }
}
let mm = M()
let out = mm(3)
out
