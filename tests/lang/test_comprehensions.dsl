# List and dict comprehensions (docs/LANGUAGE.md, "Comprehensions"), run by `nabla test`
# (ctest: lang_comprehensions): clauses run left to right as nested loops and filters,
# and the loop variables stay inside.
let words = ["a", "bb", "ccc"]

test "a list comprehension maps and filters" {
  expect([x * x for x in range(6) if x % 2 == 0] == [0, 4, 16])
  expect([len(w) for w in words] == [1, 2, 3])
  expect([x for x in []] == [])
}

test "several clauses nest left to right, and later ones see earlier variables" {
  expect([(i, j) for i in range(3) for j in range(i)] == [(1, 0), (2, 0), (2, 1)])
  expect([x for x in range(20) if x % 2 == 0 if x % 3 == 0] == [0, 6, 12, 18])
  expect([[j for j in range(i)] for i in range(3)] == [[], [0], [0, 1]])
}

test "tuple targets, bare or in brackets" {
  let d = {"a": 1, "b": 2}
  expect([k + str(v) for k, v in d.items()] == ["a1", "b2"])
  expect([a + b + c for (a, (b, c)) in [(1, (2, 3)), (4, (5, 6))]] == [6, 15])
  let total = 0
  for k, v in d.items() {
    total += v
  }
  expect(total == 3)
}

test "a dict comprehension builds a dict, in order" {
  let d = {w: len(w) for w in words if w != "bb"}
  expect(d == {"a": 1, "ccc": 3})
  expect(list(d.keys()) == ["a", "ccc"])
  expect({k: v * 10 for k, v in {"x": 1}.items()} == {"x": 10})
}

test "the loop variable does not leak and does not replace an outer one" {
  let x = 99
  let ys = [x + 1 for x in range(3)]
  expect(ys == [1, 2, 3])
  expect(x == 99)
  expect_error("let zs = [q for q in range(2)]\nprint(q)", "undefined name 'q'")
}

test "the first iterable is read in the enclosing scope" {
  let xs = [1, 2]
  expect([xs for xs in xs] == [1, 2])
}

test "conditional elements, tensors and functions" {
  expect([x if x > 1 else 0 for x in [1, 2, 3]] == [0, 2, 3])
  expect([t.shape for t in [ones([2]), ones([3, 1])]] == [(2,), (3, 1)])
  let adders = [fn(y, k=k) = y + k for k in range(3)]
  expect(adders[2](10) == 12)
  fn squares(n) = [i * i for i in range(n)]
  expect(squares(4) == [0, 1, 4, 9])
}

test "a comprehension in a model body and in a method" {
  model Scaled(n) {
    factors = [i * n for i in range(3)]
    forward(x) = [x * f for f in factors]
  }
  expect(Scaled(2)(1) == [0, 2, 4])
}
