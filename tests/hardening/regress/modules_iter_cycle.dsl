# A model whose __iter__ returns itself, or another model whose __iter__ leads back:
# `for`, list() and a tuple pattern asked __iter__ again and again until the native
# stack was full ("0 calls deep"). Now each model is asked once, and the one that
# leads back is named (Note [A model's __len__ and __iter__]); the truth of a model
# whose __len__ never ends is the recursion limit, not a crash.
# status: 1
# timeout: 60
# expect: 1
# expect: ok
# expect stderr: modules_iter_cycle.dsl:28:13: error: 'Ring' object is not iterable: its __iter__() leads back to the model itself
model Ring() {
  next = none
  __iter__() = self.next
  forward(x) = x
}
model Deep() {
  __len__() = len(self)
  forward(x) = x
}
let a = Ring()
let b = Ring()
a.next = b
b.next = a
print(len([1 for _ in [0] if true]))
expect_error(fn() = bool(Deep()), "maximum recursion depth")
print("ok")
let c = Ring()
let items = list(a) + list(c)
