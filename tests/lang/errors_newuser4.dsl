# New user round 4 (tests/stdlib/train/test_newuser4_*.dsl): the errors of what that
# round added or changed. torch.autocast's arguments (a device_type other than "cpu" or
# "cuda", an argument it does not have, enabled= not a bool, too many positional
# arguments); randperm's n; nn.checkpoint's use_reentrant= and preserve_rng_state=,
# and its error without an input that requires grad, which now names use_reentrant=false;
# nn.checkpoint_sequential's segments; optim.SparseAdam's betas; nn.Embedding's sparse=
# (true is taken now); optim.GradScaler's enabled=; a generator= that is no Generator (round
# 6 added torch.Generator); copy.copy of a model; the new random module's empty ranges and sequences.
# Each is an error at the user's line naming what was expected and what was found.

# case: autocast with a device_type it does not know
# expect error: tests/lang/errors_newuser4.dsl:16:1: error: autocast: device_type must be "cpu" or "cuda", got 'tpu'
# expect error line:   autocast("tpu") { nn.Linear(2, 2)(ones(1, 2)) }
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
autocast("tpu") { nn.Linear(2, 2)(ones(1, 2)) }
# ---

# case: autocast with an argument torch.autocast does not have
# expect error: tests/lang/errors_newuser4.dsl:23:1: error: autocast has no argument 'cache': autocast(device_type="cpu" or "cuda", dtype=bf16 or f16, enabled=true, cache_enabled=true)
# expect error line:   autocast("cpu", dtype=bf16, cache=false) { }
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
autocast("cpu", dtype=bf16, cache=false) { }
# ---

# case: autocast's enabled given as a string
# expect error: tests/lang/errors_newuser4.dsl:30:1: error: autocast: enabled must be true or false, got 'yes'
# expect error line:   autocast("cpu", enabled="yes") { }
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
autocast("cpu", enabled="yes") { }
# ---

# case: autocast(f16) with a second positional argument
# expect error: tests/lang/errors_newuser4.dsl:37:1: error: autocast: too many positional arguments: autocast(device_type="cpu" or "cuda", dtype=bf16 or f16, enabled=true, cache_enabled=true)
# expect error line:   autocast(f16, "cpu") { }
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~
autocast(f16, "cpu") { }
# ---

# case: autocast with an f32 dtype
# expect error: tests/lang/errors_newuser4.dsl:44:1: error: autocast: dtype must be bf16 or f16, got f32
# expect error line:   autocast("cpu", f32) { }
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~
autocast("cpu", f32) { }
# ---

# case: randperm of a negative n
# expect error: tests/lang/errors_newuser4.dsl:51:11: error: randperm(): n must be >= 0, got -3
# expect error line:   let idx = randperm(-3)
# expect error line:             ^~~~~~~~~~~~
let idx = randperm(-3)
# ---

# case: randperm of a float
# expect error: tests/lang/errors_newuser4.dsl:58:11: error: randperm(): n: expected an int, got float
# expect error line:   let idx = randperm(2.5)
# expect error line:             ^~~~~~~~~~~~~
let idx = randperm(2.5)
# ---

# case: nn.checkpoint with use_reentrant given as a string
# expect error: tests/lang/errors_newuser4.dsl:68:9: error: checkpoint(): use_reentrant must be true, false or none, got str
# expect error line:   let y = nn.checkpoint(nn.Linear(2, 2), x, use_reentrant="no")
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# expect error line:   at tests/lang/errors_newuser4.dsl:68:9 in <module>
import nn
let x = randn(2, 2, requires_grad=true)
let y = nn.checkpoint(nn.Linear(2, 2), x, use_reentrant="no")
# ---

# case: nn.checkpoint with preserve_rng_state given as a number
# expect error: tests/lang/errors_newuser4.dsl:78:9: error: checkpoint(): preserve_rng_state must be true or false, got int
# expect error line:   let y = nn.checkpoint(nn.Linear(2, 2), x, preserve_rng_state=1)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# expect error line:   at tests/lang/errors_newuser4.dsl:78:9 in <module>
import nn
let x = randn(2, 2, requires_grad=true)
let y = nn.checkpoint(nn.Linear(2, 2), x, preserve_rng_state=1)
# ---

# case: nn.checkpoint without an input that requires grad (reentrant)
# expect error: tests/lang/errors_newuser4.dsl:87:9: error: assertion failed: checkpoint(): no tensor argument requires grad, so backward would not reach f's parameters (pass the input with requires_grad_(true), or use_reentrant=false)
# expect error line:   let y = nn.checkpoint(nn.Linear(2, 2), ones(1, 2))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# expect error line:   at tests/lang/errors_newuser4.dsl:87:9 in <module>
import nn
let y = nn.checkpoint(nn.Linear(2, 2), ones(1, 2))
# ---

# case: nn.checkpoint_sequential with more segments than modules
# expect error: tests/lang/errors_newuser4.dsl:97:9: error: checkpoint_sequential(): segments must be an int in [1, 2] (the number of modules), got 3
# expect error line:   let y = nn.checkpoint_sequential(net, 3, randn(1, 2, requires_grad=true))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# expect error line:   at tests/lang/errors_newuser4.dsl:97:9 in <module>
import nn
let net = nn.Sequential(nn.Linear(2, 2), nn.Tanh())
let y = nn.checkpoint_sequential(net, 3, randn(1, 2, requires_grad=true))
# ---

# case: nn.checkpoint_sequential of an int
# expect error: tests/lang/errors_newuser4.dsl:106:9: error: checkpoint_sequential(): functions must be an nn.Sequential or a list of modules, got int
# expect error line:   let y = nn.checkpoint_sequential(5, 1, randn(2, requires_grad=true))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# expect error line:   at tests/lang/errors_newuser4.dsl:106:9 in <module>
import nn
let y = nn.checkpoint_sequential(5, 1, randn(2, requires_grad=true))
# ---

# case: nn.checkpoint of a function that returns an int
# expect error: tests/lang/errors_newuser4.dsl:115:9: error: checkpoint(): f must return a tensor or a tuple of tensors, got int
# expect error line:   let y = nn.checkpoint(fn(x) = 3, randn(2, requires_grad=true))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# expect error line:   at tests/lang/errors_newuser4.dsl:115:9 in <module>
import nn
let y = nn.checkpoint(fn(x) = 3, randn(2, requires_grad=true))
# ---

# case: optim.SparseAdam with beta2 of 1.5
# expect error: tests/lang/errors_newuser4.dsl:125:11: error: optim.SparseAdam(): betas[1] must be in [0, 1), got 1.5
# expect error line:   let opt = optim.SparseAdam(nn.Embedding(4, 2, sparse=true).parameters(), betas=(0.9, 1.5))
# expect error line:             ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# expect error line:   at tests/lang/errors_newuser4.dsl:125:11 in <module>
import nn
import optim
let opt = optim.SparseAdam(nn.Embedding(4, 2, sparse=true).parameters(), betas=(0.9, 1.5))
# ---

# case: nn.Embedding with sparse given as a string
# expect error: tests/lang/errors_newuser4.dsl:134:9: error: assertion failed: Embedding: sparse must be true or false, got str
# expect error line:   let e = nn.Embedding(10, 3, sparse="yes")
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# expect error line:   at tests/lang/errors_newuser4.dsl:134:9 in <module>
import nn
let e = nn.Embedding(10, 3, sparse="yes")
# ---

# case: optim.GradScaler with enabled given as a number
# expect error: tests/lang/errors_newuser4.dsl:143:14: error: optim.GradScaler(): enabled must be true or false, got 1
# expect error line:   let scaler = optim.GradScaler(enabled=1)
# expect error line:                ^~~~~~~~~~~~~~~~~~~~~~~~~~~
# expect error line:   at tests/lang/errors_newuser4.dsl:143:14 in <module>
import optim
let scaler = optim.GradScaler(enabled=1)
# ---

# case: a generator= that is no Generator (round 6 added torch.Generator)
# expect error: tests/lang/errors_newuser4.dsl:150:9: error: rand(): generator must be a Generator (Generator().manual_seed(n)), got int
# expect error line:   let g = rand(2, generator=0)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~
let g = rand(2, generator=0)
# ---

# case: copy.copy of a model (a shallow copy is not supported)
# expect error: tests/lang/errors_newuser4.dsl:160:10: error: copy.copy(): a shallow copy of a Linear is not supported; use copy.deepcopy(x) (a model or any value, sharing nothing)
# expect error line:   let m2 = copy.copy(nn.Linear(2, 2))
# expect error line:            ^~~~~~~~~~~~~~~~~~~~~~~~~~
# expect error line:   at tests/lang/errors_newuser4.dsl:160:10 in <module>
import copy
import nn
let m2 = copy.copy(nn.Linear(2, 2))
# ---

# case: random.randint with b below a
# expect error: tests/lang/errors_newuser4.dsl:169:9: error: random.randint(): empty range [6, 1] (b must be >= a)
# expect error line:   let k = random.randint(6, 1)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~
# expect error line:   at tests/lang/errors_newuser4.dsl:169:9 in <module>
import random
let k = random.randint(6, 1)
# ---

# case: random.choice of an empty list
# expect error: tests/lang/errors_newuser4.dsl:178:9: error: random.choice(): cannot choose from an empty sequence
# expect error line:   let x = random.choice([])
# expect error line:           ^~~~~~~~~~~~~~~~~
# expect error line:   at tests/lang/errors_newuser4.dsl:178:9 in <module>
import random
let x = random.choice([])
# ---

# case: random.sample of more than the population
# expect error: tests/lang/errors_newuser4.dsl:187:10: error: random.sample(): k must be in [0, 3] (the population's size), got 5
# expect error line:   let xs = random.sample([1, 2, 3], 5)
# expect error line:            ^~~~~~~~~~~~~~~~~~~~~~~~~~~
# expect error line:   at tests/lang/errors_newuser4.dsl:187:10 in <module>
import random
let xs = random.sample([1, 2, 3], 5)
# ---

# case: random.shuffle of a tuple (it shuffles in place)
# expect error: tests/lang/errors_newuser4.dsl:196:1: error: random.shuffle(): expected a list (shuffled in place), got tuple
# expect error line:   random.shuffle((1, 2, 3))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~
# expect error line:   at tests/lang/errors_newuser4.dsl:196:1 in <module>
import random
random.shuffle((1, 2, 3))
# ---
