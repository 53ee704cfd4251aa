# One test passes and one fails: `nabla test` reports the failure with its location.
fn double(v) = v * 2

test "double doubles" {
  expect(double(2) == 4)
}

test "double is wrong on purpose" {
  expect(double(2) == 5)
}
