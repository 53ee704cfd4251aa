# getattr(obj, name, default) and hasattr answer every kind of receiver as get_attr
# does; a plain miss on a model, object or module is answered without an error (Note
# [Lookups that expect to miss]), and anything else still asks get_attr.
import nn
import math

model Plain() {
  field = 1
  twice(x) = 2 * x
}

model Hooked() {
  __getattr__(name) = f"hook {name}"
}

test "a model: fields, methods, model methods, the names every model answers, misses" {
  let m = Plain()
  expect(getattr(m, "field", 0) == 1, "a field")
  expect(getattr(m, "twice", none)(3) == 6, "a method")
  expect(getattr(m, "parameters", none) != none, "a method every model has")
  expect(getattr(m, "training", false) == true, "training before train()/eval()")
  expect(getattr(m, "__class__", none) != none, "__class__")
  expect(getattr(m, "missing", 7) == 7, "a miss gives the default")
  expect(getattr(m, "missing", none) == none, "a default of none")
  expect(not hasattr(m, "missing") and hasattr(m, "field") and hasattr(m, "twice"), "hasattr")
  expect_error(fn() = getattr(m, "missing"), "has no attribute 'missing'")
}

test "a model's __getattr__ hook still answers misses" {
  let h = Hooked()
  expect(getattr(h, "anything", 0) == "hook anything", "the hook, not the default")
  expect(hasattr(h, "anything"), "hasattr asks the hook")
}

test "layers, modules, objects, tensors and containers" {
  let l = nn.Linear(2, 3)
  expect(getattr(l, "bias", none) != none and getattr(l, "cycle_momentum", false) == false, "a layer")
  expect(getattr(math, "pi", 0) == math.pi and getattr(math, "nope", 3) == 3, "a module")
  expect(not hasattr(math, "nope") and hasattr(math, "pi"), "hasattr on a module")
  profile(print=false) { let y = l(ones([1, 2])) }
  let p = last_profile()
  expect(getattr(p, "nope", 5) == 5 and getattr(p, "events", none) != none, "a native object")
  let x = ones([2, 3])
  expect(getattr(x, "shape", none) == (2, 3) and getattr(x, "nope", 4) == 4, "a tensor")
  expect(getattr([1], "append", none) != none and getattr([1], "nope", 9) == 9, "a list")
}
