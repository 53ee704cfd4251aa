# Hostile inputs to the recent surfaces (ctc_loss, the weighted losses, grid_sample,
# packed sequences, recurrent layers, embeddings, optimizer and scheduler state dicts):
# each crashed, read garbage, or failed far from its cause with a message that did not
# name the argument; now each is an error naming the function, the argument and what was
# found, at the calling line (or, where PyTorch has an answer, that answer).

# case: ctc_loss with padded targets of fewer rows than the batch (read past the targets: a loss of garbage)
# expect error: tests/lang/errors_hostile2.dsl:11:9: error: ctc_loss(): argument 'targets' of shape [1, 3] must have one row per sequence (2)
# expect error line:   let r = ctc_loss(randn([5, 2, 4]).log_softmax(2), tensor([[1, 2, 3]]), [5, 5], [2, 2])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = ctc_loss(randn([5, 2, 4]).log_softmax(2), tensor([[1, 2, 3]]), [5, 5], [2, 2])
# ---
# case: ctc_loss with a target length past the targets, not the largest (heap corruption: double free, abort)
# expect error: tests/lang/errors_hostile2.dsl:17:9: error: ctc_loss(): target_lengths[1] (4611686018427387904) does not fit the targets [2, 3]
# expect error line:   let r = ctc_loss(randn([5, 2, 4]).log_softmax(2), tensor([[1, 2, 3], [1, 2, 3]]), [5, 5], [2, 4611686018427387904])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = ctc_loss(randn([5, 2, 4]).log_softmax(2), tensor([[1, 2, 3], [1, 2, 3]]), [5, 5], [2, 4611686018427387904])
# ---
# case: ctc_loss with the largest int as a target length (shown as -2^63, rounded through a double)
# expect error: tests/lang/errors_hostile2.dsl:23:9: error: ctc_loss(): target_lengths[1] (9223372036854775807) does not fit the targets [2, 3]
# expect error line:   let r = ctc_loss(randn([5, 2, 4]).log_softmax(2), tensor([[1, 2, 3], [1, 2, 3]]), [5, 5], [2, 9223372036854775807])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = ctc_loss(randn([5, 2, 4]).log_softmax(2), tensor([[1, 2, 3], [1, 2, 3]]), [5, 5], [2, 9223372036854775807])
# ---
# case: ctc_loss with a huge concatenated target length (was a bare "out of memory")
# expect error: tests/lang/errors_hostile2.dsl:29:9: error: ctc_loss(): target_lengths[0] (1000000000000) does not fit the targets [3]
# expect error line:   let r = ctc_loss(randn([5, 2, 4]).log_softmax(2), tensor([1, 2, 3]), [5, 5], [1000000000000, 1])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = ctc_loss(randn([5, 2, 4]).log_softmax(2), tensor([1, 2, 3]), [5, 5], [1000000000000, 1])
# ---
# case: ctc_loss with floating targets (1.5 was cut to class 1)
# expect error: tests/lang/errors_hostile2.dsl:35:9: error: ctc_loss(): argument 'targets' must hold class indices (an integer tensor), got f32
# expect error line:   let r = ctc_loss(randn([5, 2, 4]).log_softmax(2), tensor([1.5, 2.0, 3.0]), [5, 5], [1, 1])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = ctc_loss(randn([5, 2, 4]).log_softmax(2), tensor([1.5, 2.0, 3.0]), [5, 5], [1, 1])
# ---
# case: ctc_loss with a floating input length (5.5 was cut to 5)
# expect error: tests/lang/errors_hostile2.dsl:41:9: error: ctc_loss(): argument 'input_lengths' must hold one integer per sequence (2), got f32[2]
# expect error line:   let r = ctc_loss(randn([5, 2, 4]).log_softmax(2), tensor([1, 2, 3]), [5.5, 5], [1, 1])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = ctc_loss(randn([5, 2, 4]).log_softmax(2), tensor([1, 2, 3]), [5.5, 5], [1, 1])
# ---
# case: ctc_loss with 3-D targets (were read as concatenated)
# expect error: tests/lang/errors_hostile2.dsl:47:9: error: ctc_loss(): argument 'targets' must be [N, S] (padded) or 1-D (concatenated), got shape [1, 1, 3]
# expect error line:   let r = ctc_loss(randn([5, 2, 4]).log_softmax(2), tensor([[[1, 2, 3]]]), [5, 5], [1, 1])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = ctc_loss(randn([5, 2, 4]).log_softmax(2), tensor([[[1, 2, 3]]]), [5, 5], [1, 1])
# ---
# case: cross_entropy of a 0-dim input with a class weight (its class count was read past its shape)
# expect error: tests/lang/errors_hostile2.dsl:53:9: error: cross_entropy(): argument 'input' must be [N, C, ...] or [C] (a score per class), got a 0-dim tensor
# expect error line:   let r = cross_entropy(tensor(1.0), tensor(0), weight=tensor([1.0]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = cross_entropy(tensor(1.0), tensor(0), weight=tensor([1.0]))
# ---
# case: nll_loss of a 0-dim input with a class weight
# expect error: tests/lang/errors_hostile2.dsl:59:9: error: nll_loss(): argument 'input' must be [N, C, ...] or [C] (a score per class), got a 0-dim tensor
# expect error line:   let r = nll_loss(tensor(1.0), tensor(0), weight=tensor([1.0]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = nll_loss(tensor(1.0), tensor(0), weight=tensor([1.0]))
# ---
# case: grid_sample at a NaN point reads zero in every padding mode, and at an infinite one zero, or the border's value (was a gather at index -2^63)
# expect: [[[[0.0, 0.0]]]]
# expect: [[[[0.0, 1.0]]]]
# expect: [[[[0.0, 0.0]]]]
# expect: [[[[0.0, 0.0]]]]
# expect: [[[[[0.0]]]]]
let x = ones([1, 1, 4, 4])
let g = tensor([[[[float("nan"), 0.0], [float("inf"), float("-inf")]]]])
for mode in ["zeros", "border", "reflection"] { print(grid_sample(x, g, padding_mode=mode).tolist()) }
print(grid_sample(x, g, mode="nearest").tolist())
print(grid_sample(ones([1, 1, 2, 2, 2]), full([1, 1, 1, 1, 3], float("nan")), padding_mode="border").tolist())
# ---
# case: a PackedSequence given sorted_indices only gets their inverse as unsorted_indices (its padded batch came back unsorted)
# expect: [1, 0]
# expect: [[2.0, 1.0], [0.0, 3.0]] [1, 2]
import nn
let p = nn.utils.rnn.PackedSequence(tensor([1.0, 2.0, 3.0]), tensor([2, 1]), tensor([1, 0]))
print(p.unsorted_indices.tolist())
let (padded, lengths) = nn.utils.rnn.pad_packed_sequence(p)
print(padded.tolist(), lengths.tolist())
# ---
# case: an RNN given a PackedSequence whose batch_sizes were changed after packing (an index_select error)
# expect error: tests/lang/errors_hostile2.dsl:89:9: error: assertion failed: RNN: the packed input: the PackedSequence's fields: batch_sizes [5, 5] sum to 10, but data has 4 rows
# expect error line:   let r = nn.RNN(2, 5)(p)
# expect error line:           ^~~~~~~~~~~~~~~
import nn
let p = nn.utils.rnn.pack_sequence([ones([3, 2]), ones([1, 2])])
p.batch_sizes = tensor([5, 5])
let r = nn.RNN(2, 5)(p)
# ---
# case: pad_packed_sequence with sorted_indices set to other numbers (an index past a list)
# expect error: tests/lang/errors_hostile2.dsl:98:9: error: assertion failed: nn.utils.rnn.pad_packed_sequence(): the PackedSequence's fields: sorted_indices and unsorted_indices must be permutations of the 2 sequences (i64 tensors), got tensor([5, 7])
# expect error line:   let r = nn.utils.rnn.pad_packed_sequence(p)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let p = nn.utils.rnn.pack_sequence([ones([3, 2]), ones([1, 2])], enforce_sorted=false)
p.sorted_indices = tensor([5, 7])
let r = nn.utils.rnn.pad_packed_sequence(p)
# ---
# case: pad_packed_sequence with a floating total_length ("cannot multiply list and float")
# expect error: tests/lang/errors_hostile2.dsl:105:9: error: assertion failed: nn.utils.rnn.pad_packed_sequence(): total_length must be an int or none, got float
# expect error line:   let r = nn.utils.rnn.pad_packed_sequence(nn.utils.rnn.pack_sequence([ones([2, 2])]), total_length=2.5)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let r = nn.utils.rnn.pad_packed_sequence(nn.utils.rnn.pack_sequence([ones([2, 2])]), total_length=2.5)
# ---
# case: pack_padded_sequence with an int for lengths ("'int' object is not iterable")
# expect error: tests/lang/errors_hostile2.dsl:112:9: error: assertion failed: nn.utils.rnn.pack_padded_sequence(): lengths must be a list or a 1-D tensor of ints, one per sequence, got int
# expect error line:   let r = nn.utils.rnn.pack_padded_sequence(ones([3, 2, 4]), 3)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let r = nn.utils.rnn.pack_padded_sequence(ones([3, 2, 4]), 3)
# ---
# case: pad_sequence with an int first ("int has no attribute 'shape'")
# expect error: tests/lang/errors_hostile2.dsl:119:9: error: assertion failed: nn.utils.rnn.pad_sequence(): sequences[0] must be a tensor of at least 1 dim, got int
# expect error line:   let r = nn.utils.rnn.pad_sequence([1, ones([3])])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let r = nn.utils.rnn.pad_sequence([1, ones([3])])
# ---
# case: an LSTM given one tensor as hx ("index 1 is out of range")
# expect error: tests/lang/errors_hostile2.dsl:126:9: error: assertion failed: LSTM: expected hx as a pair of tensors (h0, c0), got a tensor of shape [1, 2, 5]
# expect error line:   let r = nn.LSTM(2, 5)(ones([3, 2, 2]), ones([1, 2, 5]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let r = nn.LSTM(2, 5)(ones([3, 2, 2]), ones([1, 2, 5]))
# ---
# case: an LSTM of hidden_size 0 (was a message about proj_size)
# expect error: tests/lang/errors_hostile2.dsl:133:9: error: assertion failed: LSTM: hidden_size must be an int > 0, got 0
# expect error line:   let r = nn.LSTM(3, 0)
# expect error line:           ^~~~~~~~~~~~~
import nn
let r = nn.LSTM(3, 0)
# ---
# case: nn.Linear and nn.Bilinear of no input features construct, as PyTorch's Linear ("float division by zero")
# expect: [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
# expect: (1, 2)
import nn
print(nn.Linear(0, 3)(ones([2, 0])).tolist())
print(nn.Bilinear(0, 1, 2)(ones([1, 0]), ones([1, 1])).shape)
# ---
# case: Embedding with max_norm and an index past the table (named scatter_add)
# expect error: tests/lang/errors_hostile2.dsl:147:9: error: assertion failed: embedding_renorm_(): index 30 is out of range for the 10 rows of the weight
# expect error line:   let r = nn.Embedding(10, 3, max_norm=1.0)(tensor([1, 2, 30]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let r = nn.Embedding(10, 3, max_norm=1.0)(tensor([1, 2, 30]))
# ---
# case: Embedding with max_norm and float indices
# expect error: tests/lang/errors_hostile2.dsl:154:9: error: assertion failed: Embedding: indices must be an integer tensor (i64 or i32), got f32
# expect error line:   let r = nn.Embedding(10, 3, max_norm=1.0)(tensor([1.0, 2.0]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let r = nn.Embedding(10, 3, max_norm=1.0)(tensor([1.0, 2.0]))
# ---
# case: EmbeddingBag with floating offsets (0.5 and 1.7 were cut to ints)
# expect error: tests/lang/errors_hostile2.dsl:161:9: error: assertion failed: embedding_bag(): offsets must be an integer tensor (i64 or i32), got f32
# expect error line:   let r = nn.EmbeddingBag(10, 3)(tensor([1, 2, 3]), tensor([0.5, 1.7]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let r = nn.EmbeddingBag(10, 3)(tensor([1, 2, 3]), tensor([0.5, 1.7]))
# ---
# case: an optimizer's load_state_dict with a state of another shape fails there, not at step()
# expect error: tests/lang/errors_hostile2.dsl:175:1: error: optim.Adamax.load_state_dict(): 'state.0.exp_avg' must be a floating tensor of its parameter's shape [2, 2], got a tensor f32[7]
# expect error line:   opt.load_state_dict(d)
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~
import nn
import optim
let m = nn.Linear(2, 2)
let opt = optim.Adamax(m.parameters(), lr=0.1)
m(ones([3, 2])).sum().backward()
opt.step()
let d = opt.state_dict()
d["state.0.exp_avg"] = ones([7])
opt.load_state_dict(d)
# ---
# case: a bad optimizer state dict leaves the optimizer as it was (it was half loaded)
# expect: 0.1 1e-08
import nn
import optim
let m = nn.Linear(2, 2)
let opt = optim.NAdam(m.parameters(), lr=0.1)
let d = opt.state_dict()
d["lr"] = 0.5
d["eps"] = "x"
expect_error(fn() = opt.load_state_dict(d), "optim.NAdam.load_state_dict(): 'eps' must be a number, got 'x'")
print(opt.lr, opt.eps)
# ---
# case: an optimizer state key naming a parameter by a negative number (it set the last parameter's state)
# expect error: tests/lang/errors_hostile2.dsl:199:1: error: optim.RAdam.load_state_dict(): the key 'state.-1.step' must be 'state.I.name' with a parameter number I >= 0
# expect error line:   opt.load_state_dict(d)
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~
import nn
import optim
let m = nn.Linear(2, 2)
let opt = optim.RAdam(m.parameters(), lr=0.1)
let d = opt.state_dict()
d["state.-1.step"] = 3
opt.load_state_dict(d)
# ---
# case: an optimizer's load_state_dict given a list
# expect error: tests/lang/errors_hostile2.dsl:208:1: error: optim.Adagrad.load_state_dict(): the state dict must be a dict (from state_dict()), got list
# expect error line:   opt.load_state_dict([1, 2])
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
import optim
let opt = optim.Adagrad(nn.Linear(2, 2).parameters())
opt.load_state_dict([1, 2])
# ---
# case: a scheduler's load_state_dict with a str for base_lrs ("cannot floor-divide str and int", half loaded)
# expect error: tests/lang/errors_hostile2.dsl:218:1: error: optim.StepLR.load_state_dict(): the state dict's 'base_lrs' must be a list of numbers, one per parameter group, got 'x'
# expect error line:   s.load_state_dict({"base_lrs": "x", "last_epoch": 1})
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
import optim
let opt = optim.SGD(nn.Linear(2, 2).parameters(), lr=0.1)
let s = optim.StepLR(opt, 2)
s.load_state_dict({"base_lrs": "x", "last_epoch": 1})
# ---
# case: SequentialLR's load_state_dict given an int ("argument of type 'int' is not a container")
# expect error: tests/lang/errors_hostile2.dsl:228:1: error: optim.SequentialLR.load_state_dict(): the state dict must be a dict (from state_dict()), got 5
# expect error line:   s.load_state_dict(5)
# expect error line:   ^~~~~~~~~~~~~~~~~~~~
import nn
import optim
let opt = optim.SGD(nn.Linear(2, 2).parameters(), lr=0.1)
let s = optim.SequentialLR(opt, [optim.StepLR(opt, 2), optim.ExponentialLR(opt, 0.5)], [1])
s.load_state_dict(5)
# ---
# case: ChainedScheduler's load_state_dict with a child state key that child has not (it was set as a field)
# expect error: tests/lang/errors_hostile2.dsl:240:1: error: optim.ChainedScheduler.load_state_dict(): _schedulers[1] has the key 'step', which optim.ExponentialLR's state has not (its keys: 'base_lrs', 'last_epoch')
# expect error line:   s.load_state_dict(d)
# expect error line:   ^~~~~~~~~~~~~~~~~~~~
import nn
import optim
let opt = optim.SGD(nn.Linear(2, 2).parameters(), lr=0.1)
let s = optim.ChainedScheduler([optim.StepLR(opt, 2), optim.ExponentialLR(opt, 0.5)])
let d = s.state_dict()
d["_schedulers"][1]["step"] = 5
s.load_state_dict(d)
# ---
# case: ReduceLROnPlateau's load_state_dict without 'best' ("key 'best' not found in dict")
# expect error: tests/lang/errors_hostile2.dsl:250:1: error: optim.ReduceLROnPlateau.load_state_dict(): the state dict has no 'best'
# expect error line:   s.load_state_dict({"num_bad_epochs": 0, "cooldown_counter": 0, "last_epoch": 0})
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
import optim
let opt = optim.SGD(nn.Linear(2, 2).parameters(), lr=0.1)
let s = optim.ReduceLROnPlateau(opt)
s.load_state_dict({"num_bad_epochs": 0, "cooldown_counter": 0, "last_epoch": 0})
# ---
# case: a compiled step whose optimizer lost its parameters between calls names the call, not the library
# expect error: tests/lang/errors_hostile2.dsl:264:1: error: compile(optimizer=optim.Adam): the parameter groups hold 0 tensors, the optimizer was given 2 (add tensors with add_param_group(), not to a group's 'params')
# expect error line:   g(randn([3, 4]), tensor([0, 1, 0]))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
import optim
let m = nn.Linear(4, 2)
let o = optim.Adam(m.parameters())
fn loss(x, y) = cross_entropy(m(x), y)
let g = compile(loss, randn([3, 4]), tensor([0, 1, 0]), train=true, optimizer=o)
g(randn([3, 4]), tensor([0, 1, 0]))
o.param_groups[0]["params"] = []
g(randn([3, 4]), tensor([0, 1, 0]))
# ---
# case: a state tensor of another shape set between compiled calls
# expect error: tests/lang/errors_hostile2.dsl:278:1: error: compile(optimizer=optim.RMSprop): state[0]['square_avg'] is f32[9] on cpu, its parameter f32[2, 4] on cpu
# expect error line:   g(randn([3, 4]), tensor([0, 1, 0]))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
import optim
let m = nn.Linear(4, 2)
let o = optim.RMSprop(m.parameters())
fn loss(x, y) = cross_entropy(m(x), y)
let g = compile(loss, randn([3, 4]), tensor([0, 1, 0]), train=true, optimizer=o)
g(randn([3, 4]), tensor([0, 1, 0]))
o.state[0]["square_avg"] = randn([9])
g(randn([3, 4]), tensor([0, 1, 0]))
