# expect_error takes a function of no arguments or a str of code; the str sees the
# test block's locals (names declared anywhere in the block), and a function sees what
# any closure sees. Run by `nabla test tests` (ctest dsl_tests).
import nn

fn check_positive(x) {
  if x <= 0 { fail_with_message("x must be positive, got " + str(x)) }
  return x
}

fn fail_with_message(m) = [][0]

test "a function that raises passes" {
  let m = nn.Linear(4, 3)
  let bad = randn([2, 5])
  expect_error(fn() = m(bad), "linear")
  expect_error(fn() = check_positive(-1), "index")
}

test "the str form sees the block's locals" {
  let m = nn.Linear(4, 3)
  let bad = randn([2, 5])
  expect_error("m(bad)", "linear")
  let xs = [1, 2, 3]
  expect_error("xs[10]", "index")
  for k in range(2) {
    let inner = k
    expect_error("xs[inner + 5]", "index")
  }
}

test "a str's own names stay in it" {
  let n = 1
  expect_error("let n = 2\nlet fresh = 3\n[][n]", "index")
  expect(n == 1)
}
