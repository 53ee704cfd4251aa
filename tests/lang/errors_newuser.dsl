# Errors met writing training programs as a PyTorch user new to nabla: a value that is
# not a parameter assigned to a parameter field (PyTorch's TypeError; it used to turn the
# parameter into a plain attribute, out of parameters(), state_dict() and the optimizer),
# the same for submodule and buffer fields, and item assignment to a model without
# __setitem__, and PyTorch's torch. prefix.

# case: a plain tensor assigned to a parameter field (it used to drop the parameter)
# expect error: tests/lang/errors_newuser.dsl:13:1: error: cannot assign an f32 tensor that does not require grad as parameter 'weight' of Linear (a parameter or none expected: a leaf tensor that requires grad, such as t.detach().requires_grad_(true); to change a parameter's values, write into it: no_grad { m.weight.copy_(t) })
# expect error line:   m.weight = randn([2, 2])
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~
import nn
let m = nn.Linear(2, 2)
m.weight = randn([2, 2])
# ---

# case: a manual SGD update written as a new tensor under no_grad
# expect error: tests/lang/errors_newuser.dsl:23:3: error: cannot assign an f32 tensor that does not require grad as parameter 'weight' of Linear (a parameter or none expected: a leaf tensor that requires grad, such as t.detach().requires_grad_(true); to change a parameter's values, write into it: no_grad { m.weight.copy_(t) })
# expect error line:     m.weight = m.weight - 0.1 * ones([2, 2])
# expect error line:     ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let m = nn.Linear(2, 2)
no_grad {
  m.weight = m.weight - 0.1 * ones([2, 2])
}
# ---

# case: the result of an op (not a leaf) assigned to a parameter of the user's model
# expect error: tests/lang/errors_newuser.dsl:36:1: error: cannot assign an f32 tensor that is not a leaf (the result of an op) as parameter 'w' of M (a parameter or none expected: a leaf tensor that requires grad, such as t.detach().requires_grad_(true); to change a parameter's values, write into it: no_grad { m.w.copy_(t) })
# expect error line:   m.w = m.w * 2
# expect error line:   ^~~~~~~~~~~~~
model M() {
  w = randn([3], requires_grad=true)
  forward(x) = x * self.w
}
let m = M()
m.w = m.w * 2
# ---

# case: a number assigned to a submodule field
# expect error: tests/lang/errors_newuser.dsl:49:1: error: cannot assign 'int' as submodule 'fc' of Net (a model or none expected)
# expect error line:   net.fc = 5
# expect error line:   ^~~~~~~~~~
import nn
model Net() {
  fc = nn.Linear(2, 2)
  forward(x) = self.fc(x)
}
let net = Net()
net.fc = 5
# ---

# case: a str assigned to a buffer by setattr
# expect error: tests/lang/errors_newuser.dsl:58:1: error: cannot assign 'str' as buffer 'running_mean' of BatchNorm1d (a tensor or none expected)
# expect error line:   setattr(bn, "running_mean", "zeros")
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let bn = nn.BatchNorm1d(3)
setattr(bn, "running_mean", "zeros")
# ---

# case: torch.zeros written as in PyTorch: the hint names nabla's spelling
# expect error: tests/lang/errors_newuser.dsl:65:9: error: undefined name 'torch' (nabla has no torch module: PyTorch's tensor functions are builtins of the same name, 'full(...)' for 'torch.full(...)'; torch.nn is 'import nn', torch.optim 'import optim')
# expect error line:   let x = torch.zeros(3)
# expect error line:           ^~~~~
let x = torch.zeros(3)
# ---

# case: item assignment to a model without __setitem__
# expect error: tests/lang/errors_newuser.dsl:74:1: error: 'Linear' object does not support item assignment
# expect error line:   m[0] = 1
# expect error line:   ^~~~~~~~
import nn
let m = nn.Linear(2, 2)
m[0] = 1
# ---
