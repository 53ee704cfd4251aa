# Round 3 of a new user's model families (tests/stdlib/train/test_newuser3_*.dsl): the
# clean errors their fixes added. `let (g,) = grad(out, x)` (PyTorch's tuple from
# torch.autograd.grad) said only "cannot unpack 8 values into 1 names"; filter and map
# were undefined; register_buffer refused persistent=false; a non-persistent buffer's
# key in load_state_dict; global_unstructured's method named as PyTorch's class; a model
# method named __init__ (never called).

# case: unpacking grad's one tensor as PyTorch's 1-tuple (said only: cannot unpack 8 values into 1 names)
# expect error: tests/lang/errors_newuser3.dsl:12:1: error: cannot unpack 8 values into 1 names (a tensor of shape [8, 2] unpacks along its first dimension; grad(outputs, x) with one tensor x returns its gradient, not a tuple: write grad(outputs, [x]))
# expect error line:   let (g,) = grad((x * x).sum(), x)
let x = randn(8, 2, requires_grad=true)
let (g,) = grad((x * x).sum(), x)
# ---

# case: unpacking a tensor into too many names says it unpacks along its first dimension
# expect error: tests/lang/errors_newuser3.dsl:18:1: error: cannot unpack 3 values into 2 names (a tensor of shape [3, 4] unpacks along its first dimension)
# expect error line:   let (a, b) = randn(3, 4)
let (a, b) = randn(3, 4)
# ---

# case: filter of a function that is not callable
# expect error: tests/lang/errors_newuser3.dsl:24:1: error: filter(): function must be callable or none, got int
# expect error line:   filter(3, [1, 2])
filter(3, [1, 2])
# ---

# case: map of a function that is not callable
# expect error: tests/lang/errors_newuser3.dsl:30:1: error: map(): the first argument must be callable, got str
# expect error line:   map("f", [1, 2])
map("f", [1, 2])
# ---

# case: map without an iterable
# expect error: tests/lang/errors_newuser3.dsl:36:1: error: map() expects a function and at least one iterable
# expect error line:   map(fn(x) = x)
map(fn(x) = x)
# ---

# case: register_buffer with a misspelt keyword
# expect error: tests/lang/errors_newuser3.dsl:44:1: error: register_buffer() got an unexpected keyword argument 'persistant'; did you mean 'persistent'? (valid keywords: persistent)
# expect error line:   m.register_buffer("pe", ones(3), persistant=false)
import nn
let m = nn.Linear(2, 2)
m.register_buffer("pe", ones(3), persistant=false)
# ---

# case: register_buffer with persistent not a bool
# expect error: tests/lang/errors_newuser3.dsl:52:1: error: register_buffer(): persistent: expected a bool, got str
# expect error line:   m.register_buffer("pe", ones(3), persistent="no")
import nn
let m = nn.Linear(2, 2)
m.register_buffer("pe", ones(3), persistent="no")
# ---

# case: load_state_dict of a non-persistent buffer's key: unexpected, as PyTorch's
# expect error: tests/lang/errors_newuser3.dsl:64:1: error: load_state_dict() into Linear: 1 problem
# expect error line:   unexpected key 'pe'
# expect error line:   m.load_state_dict(sd)
import nn
let m = nn.Linear(2, 2)
m.register_buffer("pe", ones(3), persistent=false)
let sd = m.state_dict()
sd["pe"] = zeros(3)
m.load_state_dict(sd)
# ---

# case: global_unstructured with an unknown method
# expect error: tests/lang/errors_newuser3.dsl:73:1: error: prune.global_unstructured: pruning_method must be prune.L1Unstructured or prune.RandomUnstructured (or "l1", "random"), got 'l2'
# expect error line:   prune.global_unstructured([(a, "weight")], amount=0.5, pruning_method="l2")
import nn
import prune
let a = nn.Linear(4, 4)
prune.global_unstructured([(a, "weight")], amount=0.5, pruning_method="l2")
# ---

# case: a method named __init__ in a model (never called: its fields were missing later, 'model A has no attribute pe')
# expect error: tests/lang/errors_newuser3.dsl:80:3: error: a model's constructor is its body: a method named __init__ is never called; write its statements in the model body (`name = value` for a field, `let _ = self.register_buffer(...)` for a call)
# expect error line:     __init__() { self.register_buffer("pe", ones(d)) }
model A(d) {
  __init__() { self.register_buffer("pe", ones(d)) }
  forward(x) = x + self.pe
}
A(3)(ones(3))
# ---

# case: a Sequential slice keeps the layers' names (was renumbered from 0); a missing one is an attribute error
# expect error: tests/lang/errors_newuser3.dsl:94:1: error: model Sequential has no attribute 'fc'
# expect error line:   s[:1].fc
import nn
let s = nn.Sequential()
s.add_module("conv", nn.Linear(2, 2))
s.add_module("fc", nn.Linear(2, 2))
expect(list(s[:1].state_dict().keys()) == ["conv.weight", "conv.bias"])
s[:1].fc
# ---
