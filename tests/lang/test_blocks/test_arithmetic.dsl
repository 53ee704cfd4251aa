# Test blocks run by `nabla test tests/lang/test_blocks` (ctest dsl_tests).
fn square(v) = v * v

test "square of a number" {
  expect(square(3) == 9)
  expect(square(-2) == 4)
}

test "integer and float division" {
  expect(7 // 2 == 3)
  expect(7 / 2 == 3.5)
}
