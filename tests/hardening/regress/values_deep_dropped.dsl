# Issue 25 item 1: deep values dropped in the middle of a program (a global
# rebound, a function's local going out of scope, an item overwritten) are freed
# without overflowing the stack, and the program goes on.
# status: 0
# timeout: 120
# expect: 1000000
# expect: after
fn build(n) {
  let l = []
  for i in range(n) { l = [l] }
  return l
}
fn depth(l) {
  let n = 0
  while len(l) > 0 {
    l = l[0]
    n = n + 1
  }
  return n
}
let g = build(1000000)
print(depth(g))
g = none
build(1000000)
let holder = [build(1000000)]
holder[0] = 0
let d = {"deep": build(1000000)}
d.pop("deep")
print("after")
