# Issue 25 item 1: deep chains through every kind of value that holds values (lists,
# dicts, tuples, bound methods' self, closures' frames, functions' defaults, model
# fields), each 2 * 10^5 deep, all held by globals until exit.
# status: 0
# timeout: 120
# expect: ok
model Node(next) {
  next = next
  forward(x) = x
}
fn with_default(d) {
  fn f(x=d) = x
  return f
}
let mixed = none
let closures = fn() = 0
let defaults = none
let models = none
let bound = none
for i in range(200000) {
  mixed = [{"k": (mixed,)}]
  closures = (fn(g) = fn() = g)(closures)
  defaults = with_default(defaults)
  models = Node(models)
  bound = models.forward
}
print("ok")
