# The interpreter's fast paths (docs/core.md, Note [Tiny op latency]) give the same
# values and errors as the general ones, run by `nabla test`: a single subscript of a
# list, tuple or dict (Note [Container subscripts without a vector]), type() (Note
# [type() without an allocation]) and list methods outside compile.

test "a single subscript of a list or tuple, from either end" {
  let xs = [10, 20, 30]
  let t = (1, "a", 2.5)
  expect(xs[0] == 10 and xs[2] == 30 and xs[-1] == 30 and xs[-3] == 10)
  expect(t[1] == "a" and t[-1] == 2.5)
  expect(xs[true] == 20 and xs[false] == 10)  # a bool is an int, as in Python
  expect_error(fn() = xs[1.0], "list indices must be integers or slices, not float")
  expect(xs[tensor(2)] == 30)  # a one-element int tensor too
  expect(xs[0:2] == [10, 20] and t[1:] == ("a", 2.5))
  let nested = [[1, 2], [3, 4]]
  expect(nested[1][0] == 3 and nested[-1][-1] == 4)
}

test "a subscript out of range fails as before" {
  let xs = [10, 20, 30]
  expect_error(fn() = xs[3], "index 3 is out of range for list of length 3")
  expect_error(fn() = xs[-4], "index -4 is out of range for list of length 3")
  expect_error(fn() = (1, 2)[2], "index 2 is out of range for tuple of length 2")
  expect_error(fn() = [][0], "index 0 is out of range for list of length 0")
  expect_error(fn() = xs["a"], "list")
}

test "a dict subscript finds equal keys, and a missing key fails as before" {
  let d = {"lr": 0.1, 1: "one", (2, 3): "pair"}
  expect(d["lr"] == 0.1 and d[1] == "one" and d[(2, 3)] == "pair")
  expect(d[1.0] == "one" and d[true] == "one")  # equal keys, as in Python
  expect_error(fn() = d["missing"], "key 'missing' not found in dict")
  expect_error(fn() = d[[1]], "key [1] not found in dict")
  let key = "lr"
  d[key] = 0.2
  expect(d["lr"] == 0.2)
}

test "a subscript's value is a copy of the item's reference, as before" {
  let xs = [[1], [2]]
  let first = xs[0]
  first.append(5)
  expect(xs[0] == [1, 5])
  let d = {"state": {"step": 1}}
  d["state"]["step"] = 2
  expect(d["state"]["step"] == 2)
}

test "type() names every kind, and a model's class" {
  expect(type(1) == "int" and type(1.5) == "float" and type("s") == "str" and type(none) == "none")
  expect(type([]) == "list" and type(()) == "tuple" and type({}) == "dict" and type(true) == "bool")
  expect(type(zeros([2])) == "tensor" and type(range(3)) == "range")
  expect(type(type(1)) == "str")
  model Box() { forward(x) = x }
  expect(type(Box()) == "Box")
  let names = [type(x) for x in [1, 2.0, "a"]]
  expect(names == ["int", "float", "str"])
  let n = type(1)
  expect(n + "!" == "int!" and len(n) == 3)
}

test "list and dict methods outside compile" {
  let xs = []
  for k in range(3) { xs.append(k) }
  xs.insert(0, -1)
  expect(xs == [-1, 0, 1, 2] and xs.pop() == 2)
  let d = {"a": 1}
  d.update({"b": 2})
  expect(d.pop("a") == 1 and d == {"b": 2})
}
