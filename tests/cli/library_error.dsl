# A layer of the standard library given the wrong input (tests/cli/cli_test.sh): the
# error is at line 4's call; with --full-trace at the library's own line.
import nn
let y = nn.Linear(3, 4)(randn(2, 5))
