# A test block whose layer fails inside the standard library (tests/cli/cli_test.sh):
# `nabla test` reports it at line 5's call; with --full-trace at the library's line.
import nn
test "a layer given the wrong input" {
  let y = nn.Linear(3, 4)(randn(2, 5))
}
