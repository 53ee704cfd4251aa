# Errors raised while the standard library runs are shown at the innermost line of
# the user's own code (file:line:col, the source line and a caret under the call);
# the library's frames follow in the trace, marked [library] (tests/cli/cli_test.sh
# checks those and --full-trace, which shows the library's lines instead).
# case: nn.Linear given the wrong number of features: at the layer's call in the user's forward
# expect error: tests/lang/errors_userline.dsl:15:16: error: linear: argument 'input' of shape [3, 8] has 8 features but argument 'weight' of shape [2, 6] expects 6
# expect error line:     forward(x) = fc2(relu(fc1(x)))
# expect error line:                  ^~~~~~~~~~~~~~~~~
# expect error line:   at tests/lang/errors_userline.dsl:15:16 in Net.forward()
# expect error line:   at tests/lang/errors_userline.dsl:17:9 in <module>
import nn
model Net() {
  fc1 = nn.Linear(4, 8)
  fc2 = nn.Linear(6, 2)
  forward(x) = fc2(relu(fc1(x)))
}
let y = Net()(randn(3, 4))
# ---
# case: nn.Conv2d given the wrong number of channels
# expect error: tests/lang/errors_userline.dsl:26:9: error: conv2d: argument 'weight' of shape [8, 3, 3, 3] expects 3 input channels (groups=1) but argument 'input' of shape [2, 4, 8, 8] has 4
# expect error line:   let y = conv(randn(2, 4, 8, 8))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~
# expect error line:   at tests/lang/errors_userline.dsl:26:9 in <module>
import nn
let conv = nn.Conv2d(3, 8, 3)
let y = conv(randn(2, 4, 8, 8))
# ---
# case: an assert in nn.Conv2d's constructor
# expect error: tests/lang/errors_userline.dsl:34:12: error: assertion failed: Conv2d: in_channels and out_channels must be divisible by groups
# expect error line:   let conv = nn.Conv2d(3, 8, 3, groups=2)
# expect error line:              ^~~~~~~~~~~~~~~~~~~~~~~~~~~~
# expect error line:   at tests/lang/errors_userline.dsl:34:12 in <module>
import nn
let conv = nn.Conv2d(3, 8, 3, groups=2)
# ---
# case: nn.CrossEntropyLoss given targets of the wrong shape
# expect error: tests/lang/errors_userline.dsl:43:12: error: cross_entropy: argument 'target' of shape [3] does not match argument 'input' of shape [4, 10] (expected target shape [4])
# expect error line:   let loss = loss_fn(randn(4, 10), tensor([1, 2, 3]))
# expect error line:              ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# expect error line:   at tests/lang/errors_userline.dsl:43:12 in <module>
import nn
let loss_fn = nn.CrossEntropyLoss()
let loss = loss_fn(randn(4, 10), tensor([1, 2, 3]))
# ---
# case: a check in an optimizer's constructor
# expect error: tests/lang/errors_userline.dsl:52:11: error: optim.SGD(): nesterov=true needs momentum > 0 and dampening 0, got momentum=0, dampening=0
# expect error line:   let opt = optim.SGD([p], lr=0.1, nesterov=true)
# expect error line:             ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# expect error line:   at tests/lang/errors_userline.dsl:52:11 in <module>
import optim
let p = randn(3, requires_grad=true)
let opt = optim.SGD([p], lr=0.1, nesterov=true)
# ---
# case: an error in an optimizer's step: at opt.step()
# expect error: tests/lang/errors_userline.dsl:63:1: error: add: argument 'other' of shape [3] cannot be broadcast with argument 'self' of shape [2] (dim -1: 2 vs 3)
# expect error line:   opt.step()
# expect error line:   ^~~~~~~~~~
# expect error line:   at tests/lang/errors_userline.dsl:63:1 in <module>
import optim
let p = randn(3, requires_grad=true)
let opt = optim.SGD([p], lr=0.1, momentum=0.9); opt.state[0]["momentum_buffer"] = ones([2])  # states set by hand are not checked again
p.sum().backward()
opt.step()
# ---
# case: a check in the data module's TensorDataset
# expect error: tests/lang/errors_userline.dsl:71:10: error: data.TensorDataset(): x has 5 items but y has 3
# expect error line:   let ds = data.TensorDataset(randn(5, 2), tensor([0, 1, 0]))
# expect error line:            ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# expect error line:   at tests/lang/errors_userline.dsl:71:10 in <module>
import data
let ds = data.TensorDataset(randn(5, 2), tensor([0, 1, 0]))
# ---
# case: a native error under the data module: at ds.batches(0)
# expect error: tests/lang/errors_userline.dsl:80:10: error: batches(): size must be positive, got 0
# expect error line:   let bs = ds.batches(0)
# expect error line:            ^~~~~~~~~~~~~
# expect error line:   at tests/lang/errors_userline.dsl:80:10 in <module>
import data
let ds = data.TensorDataset(randn(5, 2))
let bs = ds.batches(0)
# ---
# case: library code calling library code (nn.Sequential): the innermost user frame, a function here
# expect error: tests/lang/errors_userline.dsl:89:16: error: linear: argument 'input' of shape [3, 8] has 8 features but argument 'weight' of shape [2, 4] expects 4
# expect error line:   fn run(m, x) = m(x)
# expect error line:                  ^~~~
# expect error line:   at tests/lang/errors_userline.dsl:89:16 in run()
# expect error line:   at tests/lang/errors_userline.dsl:91:9 in <module>
import nn
fn run(m, x) = m(x)
let m = nn.Sequential([nn.Linear(4, 8), nn.ReLU(), nn.Linear(4, 2)])
let y = run(m, randn(3, 4))
# ---
# case: an error in the user's own layer called by nn.Sequential stays at the user's line
# expect error: tests/lang/errors_userline.dsl:101:16: error: matmul: argument 'other' of shape [3, 3] has 3 rows but argument 'self' of shape [2, 8] has 8 columns
# expect error line:     forward(x) = x @ ones([3, 3])
# expect error line:                  ^~~~~~~~~~~~~~~~
# expect error line:   at tests/lang/errors_userline.dsl:101:16 in Bad.forward()
# expect error line:   at tests/lang/errors_userline.dsl:104:9 in <module>
import nn
model Bad() {
  forward(x) = x @ ones([3, 3])
}
let m = nn.Sequential([nn.Linear(4, 8), Bad()])
let y = m(randn(2, 4))
