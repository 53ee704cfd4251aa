# New user round 6 (tests/stdlib/train/test_newuser6_*.dsl): the errors of what that
# round added or changed. torch.Generator (a seed that is no int, generator= that is no
# Generator, on a factory and on an op row that draws); iter() and next() (a used-up
# iterator, next of a list); data.DataLoader's batch_size and default_collate's
# unequal items; data.random_split's lengths; linalg.cholesky_solve with a factor of
# the wrong size; autograd.grad's is_grads_batched; torch.utils (`import utils` and the
# name utils: hints to data and nn.checkpoint); a model body's `x = ...` over its own
# `let x` (a field, not the local rebound); opt.state[p] (the state is a list by
# parameter position). Each is an error at the user's line naming what was expected and
# what was found.

# case: a Generator seeded with a float
# expect error: tests/lang/errors_newuser6.dsl:16:9: error: Generator.manual_seed(): seed: expected an int, got float
# expect error line:   let g = Generator().manual_seed(1.5)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~
let g = Generator().manual_seed(1.5)
# ---

# case: generator= given a str on an op that draws
# expect error: tests/lang/errors_newuser6.dsl:23:9: error: multinomial(): generator must be a Generator (Generator().manual_seed(n)), got str
# expect error line:   let x = multinomial(tensor([0.5, 0.5]), 2, generator="seed")
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let x = multinomial(tensor([0.5, 0.5]), 2, generator="seed")
# ---

# case: next of a used-up iterator
# expect error: tests/lang/errors_newuser6.dsl:32:9: error: next(): StopIteration: the iterator is used up (next(it, default) returns default instead)
# expect error line:   let x = next(it)
# expect error line:           ^~~~~~~~
let it = iter([1])
next(it)
let x = next(it)
# ---

# case: next of a list (not an iterator)
# expect error: tests/lang/errors_newuser6.dsl:39:9: error: next(): 'list' object is not an iterator (iter(x) makes one: next(iter(loader)))
# expect error line:   let x = next([1, 2])
# expect error line:           ^~~~~~~~~~~~
let x = next([1, 2])
# ---

# case: a DataLoader with batch_size=0
# expect error: tests/lang/errors_newuser6.dsl:48:14: error: data.DataLoader(): batch_size should be a positive integer value, got 0
# expect error line:   let loader = data.DataLoader(data.TensorDataset(randn(4, 2)), batch_size=0)
# expect error line:                ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# expect error line:   at tests/lang/errors_newuser6.dsl:48:14 in <module>
import data
let loader = data.DataLoader(data.TensorDataset(randn(4, 2)), batch_size=0)
# ---

# case: default_collate of items of different sizes
# expect error: tests/lang/errors_newuser6.dsl:57:14: error: data.DataLoader(): each element in the batch should be of equal size, got 2 and 1
# expect error line:   let b = next(iter(data.DataLoader([(1, 2), (3,)], batch_size=2)))
# expect error line:                ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# expect error line:   at tests/lang/errors_newuser6.dsl:57:14 in <module>
import data
let b = next(iter(data.DataLoader([(1, 2), (3,)], batch_size=2)))
# ---

# case: random_split lengths that do not add up
# expect error: tests/lang/errors_newuser6.dsl:66:14: error: data.random_split(): sum of input lengths does not equal the length of the input dataset (5), got [3, 3]
# expect error line:   let (a, b) = data.random_split(data.TensorDataset(randn(5, 2)), [3, 3])
# expect error line:                ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# expect error line:   at tests/lang/errors_newuser6.dsl:66:14 in <module>
import data
let (a, b) = data.random_split(data.TensorDataset(randn(5, 2)), [3, 3])
# ---

# case: cholesky_solve with a factor of the wrong size
# expect error: tests/lang/errors_newuser6.dsl:75:9: error: linalg.cholesky_solve: B of shape [3, 1] must have 2 rows for the factor L of shape [2, 2]
# expect error line:   let x = linalg.cholesky_solve(ones(3, 1), eye(2))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# expect error line:   at tests/lang/errors_newuser6.dsl:75:9 in <module>
import linalg
let x = linalg.cholesky_solve(ones(3, 1), eye(2))
# ---

# case: autograd.grad with is_grads_batched
# expect error: tests/lang/errors_newuser6.dsl:85:9: error: autograd.grad(): is_grads_batched=true is not supported; vmap(vjp_fn) batches vector-Jacobian products
# expect error line:   let g = autograd.grad((x * x).sum(), x, is_grads_batched=true)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# expect error line:   at tests/lang/errors_newuser6.dsl:85:9 in <module>
import autograd
let x = ones(2, requires_grad=true)
let g = autograd.grad((x * x).sum(), x, is_grads_batched=true)
# ---

# case: import utils, as torch.utils
# expect error: tests/lang/errors_newuser6.dsl:92:1: error: no module named 'utils' (torch.utils.data is 'import data': data.DataLoader, data.random_split; torch.utils.checkpoint is nn.checkpoint after 'import nn')
# expect error line:   import utils
# expect error line:   ^~~~~~~~~~~~
import utils
# ---

# case: utils.checkpoint without an import
# expect error: tests/lang/errors_newuser6.dsl:99:9: error: undefined name 'utils' (torch.utils.checkpoint is nn.checkpoint after 'import nn'; torch.utils.data is 'import data': data.DataLoader, data.random_split)
# expect error line:   let y = utils.checkpoint.checkpoint(fn(x) = x, ones(2))
# expect error line:           ^~~~~
let y = utils.checkpoint.checkpoint(fn(x) = x, ones(2))
# ---

# case: a field assignment over a let of the model body (a PyTorch __init__'s rebinding)
# expect error: tests/lang/errors_newuser6.dsl:108:3: error: 'pe = ...' in a model body makes a field, but pe is a let of this body, which would keep its old value for the statements after: write 'let pe = ...' to rebind the local (as a PyTorch __init__ does), or give the field another name
# expect error line:     pe = pe.unsqueeze(0)
# expect error line:     ^~~~~~~~~~~~~~~~~~~~
model PositionalEncoding(d, maxlen=8) {
  let pe = zeros(maxlen, d)
  pe = pe.unsqueeze(0)
  self.register_buffer("pe", pe)
}
# ---

# case: opt.state indexed by a parameter, as PyTorch's dict
# expect error: tests/lang/errors_newuser6.dsl:121:9: error: list indices must be integers or slices, not a f32 tensor of shape [1, 2] (only a 0-dim integer tensor is an index); an optimizer's state is a list by parameter position: opt.state[i] for the i-th parameter of opt.params, not opt.state[p]
# expect error line:   let s = opt.state[m.weight]
# expect error line:           ^~~~~~~~~~~~~~~~~~~
import nn
import optim
let m = nn.Linear(2, 1)
let opt = optim.Adam(m.parameters())
let s = opt.state[m.weight]
# ---
