# case: error in a deeply nested block


fn f(xs) {
  for x in xs {
    if x > 1 {
      return x + "s"
    }
  }
}
f([1, 2])
