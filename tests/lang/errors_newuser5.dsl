# New user round 5 (tests/stdlib/train/test_newuser5_*.dsl): the errors of what that
# round added or changed. optim.swa_utils (AveragedModel's model, avg_fn and a model of
# another structure; SWALR's anneal_strategy, anneal_epochs and swa_lr per group;
# update_bn's loader); torch.utils.data's samplers (BatchSampler's batch_size and
# drop_last, SubsetRandomSampler's indices, RandomSampler's num_samples); the
# schedulers' last_epoch (only -1; resuming is load_state_dict's) and verbose; a
# generator expression beside other arguments; '**' of a list in a dict display and
# in a dict comprehension; NumPy's axis= given with dim=; a function of a module not
# imported (slogdet is linalg.slogdet); torch.Tensor(2, 3), the legacy constructor;
# Python's decorators (@torch.no_grad()) and assert statement; complex tensors
# (polar), which nabla lacks.
# Each is an error at the user's line naming what was expected and what was found.

# case: AveragedModel of a tensor
# expect error: tests/lang/errors_newuser5.dsl:19:11: error: optim.swa_utils.AveragedModel(): model must be a model instance (nn.Linear(2, 2), a model of yours), got tensor
# expect error line:   let ema = optim.swa_utils.AveragedModel(randn(3))
# expect error line:             ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import optim
let ema = optim.swa_utils.AveragedModel(randn(3))
# ---

# case: AveragedModel with an avg_fn that is not a function
# expect error: tests/lang/errors_newuser5.dsl:28:11: error: optim.swa_utils.AveragedModel(): avg_fn must be a function fn(averaged_param, model_param, num_averaged), got 0.99
# expect error line:   let ema = optim.swa_utils.AveragedModel(nn.Linear(2, 2), avg_fn=0.99)
# expect error line:             ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
import optim
let ema = optim.swa_utils.AveragedModel(nn.Linear(2, 2), avg_fn=0.99)
# ---

# case: AveragedModel updated from a model of another shape
# expect error: tests/lang/errors_newuser5.dsl:38:1: error: optim.swa_utils.AveragedModel.update_parameters(): parameters[0] of the model has shape [2, 3], the averaged model's [2, 2]: pass the model the AveragedModel was made from
# expect error line:   ema.update_parameters(nn.Linear(3, 2))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
import optim
let ema = optim.swa_utils.AveragedModel(nn.Linear(2, 2))
ema.update_parameters(nn.Linear(3, 2))
# ---

# case: AveragedModel updated from a model with fewer tensors
# expect error: tests/lang/errors_newuser5.dsl:48:1: error: optim.swa_utils.AveragedModel.update_parameters(): the model and the averaged model differ in their number of parameters, 1 against 2: pass the model the AveragedModel was made from
# expect error line:   ema.update_parameters(nn.Linear(2, 2, bias=false))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
import optim
let ema = optim.swa_utils.AveragedModel(nn.Linear(2, 2))
ema.update_parameters(nn.Linear(2, 2, bias=false))
# ---

# case: SWALR with an anneal_strategy PyTorch does not have
# expect error: tests/lang/errors_newuser5.dsl:58:11: error: optim.swa_utils.SWALR(): anneal_strategy must be "cos" or "linear", got 'cosine'
# expect error line:   let swa = optim.swa_utils.SWALR(opt, swa_lr=0.01, anneal_strategy="cosine")
# expect error line:             ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
import optim
let opt = optim.SGD(nn.Linear(2, 2).parameters(), lr=0.1)
let swa = optim.swa_utils.SWALR(opt, swa_lr=0.01, anneal_strategy="cosine")
# ---

# case: SWALR with a negative anneal_epochs
# expect error: tests/lang/errors_newuser5.dsl:68:11: error: optim.swa_utils.SWALR(): anneal_epochs must be an int >= 0, got -1
# expect error line:   let swa = optim.swa_utils.SWALR(opt, swa_lr=0.01, anneal_epochs=-1)
# expect error line:             ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
import optim
let opt = optim.SGD(nn.Linear(2, 2).parameters(), lr=0.1)
let swa = optim.swa_utils.SWALR(opt, swa_lr=0.01, anneal_epochs=-1)
# ---

# case: SWALR with one swa_lr too many
# expect error: tests/lang/errors_newuser5.dsl:78:11: error: optim.swa_utils.SWALR(): swa_lr must be a number or one per parameter group (1), got 2 value(s)
# expect error line:   let swa = optim.swa_utils.SWALR(opt, swa_lr=[0.01, 0.02])
# expect error line:             ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
import optim
let opt = optim.SGD(nn.Linear(2, 2).parameters(), lr=0.1)
let swa = optim.swa_utils.SWALR(opt, swa_lr=[0.01, 0.02])
# ---

# case: update_bn given a tensor for the loader
# expect error: tests/lang/errors_newuser5.dsl:87:1: error: optim.swa_utils.update_bn(): loader must be a list of batches (tensors, or tuples whose first item is the input), got tensor
# expect error line:   optim.swa_utils.update_bn(randn(8, 2), nn.BatchNorm1d(2))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
import optim
optim.swa_utils.update_bn(randn(8, 2), nn.BatchNorm1d(2))
# ---

# case: BatchSampler with a batch_size of 0
# expect error: tests/lang/errors_newuser5.dsl:95:15: error: data.BatchSampler(): batch_size must be an int >= 1, got 0
# expect error line:   let batches = data.BatchSampler(data.SequentialSampler(range(4)), batch_size=0, drop_last=false)
# expect error line:                 ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import data
let batches = data.BatchSampler(data.SequentialSampler(range(4)), batch_size=0, drop_last=false)
# ---

# case: BatchSampler with drop_last given as a number
# expect error: tests/lang/errors_newuser5.dsl:103:15: error: data.BatchSampler(): drop_last must be true or false, got 0
# expect error line:   let batches = data.BatchSampler(range(4), 2, 0)
# expect error line:                 ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import data
let batches = data.BatchSampler(range(4), 2, 0)
# ---

# case: SubsetRandomSampler of a count
# expect error: tests/lang/errors_newuser5.dsl:111:13: error: data.SubsetRandomSampler(): indices must be a range, list or tensor of indices, got 10
# expect error line:   let order = data.SubsetRandomSampler(10)
# expect error line:               ^~~~~~~~~~~~~~~~~~~~~~~~~~~~
import data
let order = data.SubsetRandomSampler(10)
# ---

# case: RandomSampler with num_samples of 0
# expect error: tests/lang/errors_newuser5.dsl:119:13: error: data.RandomSampler(): num_samples must be an int >= 1, got 0
# expect error line:   let order = data.RandomSampler(range(4), replacement=true, num_samples=0)
# expect error line:               ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import data
let order = data.RandomSampler(range(4), replacement=true, num_samples=0)
# ---

# case: LambdaLR asked to resume at epoch 5
# expect error: tests/lang/errors_newuser5.dsl:129:13: error: optim.LambdaLR(): last_epoch must be -1 (a new schedule), got 5: to resume a schedule, make it with last_epoch=-1 and call load_state_dict() with the state_dict() saved
# expect error line:   let sched = optim.lr_scheduler.LambdaLR(opt, fn(e) = 0.9 ** e, last_epoch=5)
# expect error line:               ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
import optim
let opt = optim.SGD(nn.Linear(2, 2).parameters(), lr=0.1)
let sched = optim.lr_scheduler.LambdaLR(opt, fn(e) = 0.9 ** e, last_epoch=5)
# ---

# case: StepLR with verbose given as a string
# expect error: tests/lang/errors_newuser5.dsl:139:13: error: optim.StepLR(): verbose must be true or false, got 'yes'
# expect error line:   let sched = optim.StepLR(opt, 10, verbose="yes")
# expect error line:               ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
import optim
let opt = optim.SGD(nn.Linear(2, 2).parameters(), lr=0.1)
let sched = optim.StepLR(opt, 10, verbose="yes")
# ---

# case: a generator expression with a second argument after it
# expect syntax error: tests/lang/errors_newuser5.dsl:146:40: error: a generator expression must be a call's only argument, sum(x for x in xs), or in parentheses of its own; or make it a list comprehension: [x for x in xs]
# expect error line:   let total = sum(x * x for x in range(3), 10)
# expect error line:                                          ^
let total = sum(x * x for x in range(3), 10)
# ---

# case: a generator expression after a first argument
# expect syntax error: tests/lang/errors_newuser5.dsl:153:25: error: a generator expression must be a call's only argument, sum(x for x in xs), or in parentheses of its own; or make it a list comprehension: [x for x in xs]
# expect error line:   let best = max(0, x * x for x in range(3))
# expect error line:                           ^
let best = max(0, x * x for x in range(3))
# ---

# case: '**' of a list in a dict display
# expect error: tests/lang/errors_newuser5.dsl:161:9: error: '**' in a dict unpacks a dict, got list (a list of (key, value) pairs is dict(pairs))
# expect error line:   let d = {**pairs, "b": 2}
# expect error line:           ^~~~~~~~~~~~~~~~~
let pairs = [("a", 1)]
let d = {**pairs, "b": 2}
# ---

# case: '**' in a dict comprehension
# expect syntax error: tests/lang/errors_newuser5.dsl:168:10: error: a dict comprehension cannot unpack a mapping ('**'); write {k: v for (k, v) in m.items()}
# expect error line:   let d = {**m for m in [{"a": 1}]}
# expect error line:            ^~~
let d = {**m for m in [{"a": 1}]}
# ---

# case: axis= and dim= both given
# expect error: tests/lang/errors_newuser5.dsl:176:9: error: sum() got multiple values for argument 'dim'
# expect error line:   let s = x.sum(axis=1, dim=0)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~
let x = randn(2, 3)
let s = x.sum(axis=1, dim=0)
# ---

# case: matrix_norm without import linalg (slogdet is also torch.slogdet, a global)
# expect error: tests/lang/errors_newuser5.dsl:183:9: error: undefined name 'matrix_norm'; did you mean linalg.matrix_norm? (write 'import linalg' first)
# expect error line:   let n = matrix_norm(eye(3))
# expect error line:           ^~~~~~~~~~~
let n = matrix_norm(eye(3))
# ---

# case: torch.Tensor(1, 4, 8) for a Set Transformer's seeds
# expect error: tests/lang/errors_newuser5.dsl:191:26: error: undefined name 'Tensor' (PyTorch's legacy constructor: torch.Tensor(2, 3) is empty(2, 3, dtype=f32) here, torch.Tensor([1, 2]) is tensor([1, 2], dtype=f32), and isinstance(x, torch.Tensor) is is_tensor(x))
# expect error line:   let seeds = nn.Parameter(Tensor(1, 4, 8))
# expect error line:                            ^~~~~~
import nn
let seeds = nn.Parameter(Tensor(1, 4, 8))
# ---

# case: Python's assert statement
# expect syntax error: tests/lang/errors_newuser5.dsl:199:1: error: assert is a function in nabla, not Python's statement: write assert(cond) or assert(cond, "message")
# expect error line:   assert x.shape == (2, 3), "a batch of two"
# expect error line:   ^
let x = randn(2, 3)
assert x.shape == (2, 3), "a batch of two"
# ---

# case: @torch.no_grad() above a generate function
# expect syntax error: tests/lang/errors_newuser5.dsl:207:1: error: decorators are Python's; nabla has none: for @torch.no_grad() put the body in 'no_grad { ... }', for @staticmethod write 'static name(params) = ...' in the model, or wrap by hand: 'let f2 = wrapper(f)'
# expect error line:   @no_grad()
# expect error line:   ^
import nn
@no_grad()
fn generate(m, x) = m(x)
# ---

# case: torch.polar for rotary embeddings
# expect error: tests/lang/errors_newuser5.dsl:215:13: error: undefined name 'polar' (nabla has no complex tensors: write a rotation with real cos and sin tables, as rotary embeddings' x * cos + rotate_half(x) * sin form does)
# expect error line:   let freqs = polar(ones(4), arange(4).float())
# expect error line:               ^~~~~
let freqs = polar(ones(4), arange(4).float())
# ---
