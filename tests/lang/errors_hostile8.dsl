# Hostile inputs, round 8: optimizers whose param_groups, state or a group's
# hyperparameters were changed by hand between steps (each failed deep in the update,
# "cannot multiply tensor and str"), schedulers' arguments that PyTorch refuses or that
# failed at the first step (ConstantLR and LinearLR factors, ExponentialLR's gamma,
# MultiStepLR's milestones, LambdaLR's functions and what they return,
# ReduceLROnPlateau's min_lr and metrics), GradScaler's scale() and load_state_dict(),
# compile() of a value that is not a function, TensorDataset.subset() of a count it
# does not have, and carets under lines with UTF-8 text before the column. Each is an error at the user's line naming what was expected and
# what was found.

# case: a group's lr set to a str by hand (it failed in the update as 'cannot multiply tensor and str')
# expect error: tests/lang/errors_hostile8.dsl:20:1: error: optim.SGD.step(): param_groups[0]['lr'] must be a number, got '0.01'
# expect error line:   opt.step()
# expect error line:   ^~~~~~~~~~
import optim
let w = randn([3], requires_grad=true)
w.grad = ones([3])
let opt = optim.SGD([w], lr=0.1)
opt.param_groups[0]["lr"] = "0.01"
opt.step()
# ---

# case: Adam's betas set to one number by hand ("'float' object is not subscriptable")
# expect error: tests/lang/errors_hostile8.dsl:32:1: error: optim.Adam.step(): param_groups[0]['betas'] must be a pair of numbers, got 0.9
# expect error line:   opt.step()
# expect error line:   ^~~~~~~~~~
import optim
let w = randn([3], requires_grad=true)
w.grad = ones([3])
let opt = optim.Adam([w])
opt.param_groups[0]["betas"] = 0.9
opt.step()
# ---

# case: a parameter's state replaced by a number ("argument of type 'int' is not a container")
# expect error: tests/lang/errors_hostile8.dsl:44:1: error: optim.Adam.step(): state[0] must be a dict (the parameter's state), got 5
# expect error line:   opt.step()
# expect error line:   ^~~~~~~~~~
import optim
let w = randn([3], requires_grad=true)
w.grad = ones([3])
let opt = optim.Adam([w])
opt.state[0] = 5
opt.step()
# ---

# case: param_groups replaced by a number ("'int' object is not iterable")
# expect error: tests/lang/errors_hostile8.dsl:55:1: error: optim.SGD.step(): param_groups must be a list of parameter groups (dicts), got 5
# expect error line:   opt.step()
# expect error line:   ^~~~~~~~~~
import optim
let w = randn([3], requires_grad=true)
let opt = optim.SGD([w], lr=0.1)
opt.param_groups = 5
opt.step()
# ---

# case: ConstantLR's factor above 1 (PyTorch refuses it; it was taken)
# expect error: tests/lang/errors_hostile8.dsl:64:1: error: optim.ConstantLR(): factor must be in [0, 1], got 2.0
# expect error line:   optim.lr_scheduler.ConstantLR(opt, factor=2.0)
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import optim
let opt = optim.SGD([randn([3], requires_grad=true)], lr=0.1)
optim.lr_scheduler.ConstantLR(opt, factor=2.0)
# ---

# case: LinearLR's end_factor below 0 (negative learning rates followed)
# expect error: tests/lang/errors_hostile8.dsl:73:1: error: optim.LinearLR(): end_factor must be in [0, 1], got -1.0
# expect error line:   optim.lr_scheduler.LinearLR(opt, start_factor=0.5, end_factor=-1.0)
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import optim
let opt = optim.SGD([randn([3], requires_grad=true)], lr=0.1)
optim.lr_scheduler.LinearLR(opt, start_factor=0.5, end_factor=-1.0)
# ---

# case: ExponentialLR's gamma a str (it failed at the first step as 'cannot raise str and int')
# expect error: tests/lang/errors_hostile8.dsl:82:1: error: optim.ExponentialLR(): gamma must be a number, got '0.9'
# expect error line:   optim.lr_scheduler.ExponentialLR(opt, gamma="0.9")
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import optim
let opt = optim.SGD([randn([3], requires_grad=true)], lr=0.1)
optim.lr_scheduler.ExponentialLR(opt, gamma="0.9")
# ---

# case: MultiStepLR's milestones one int ("'int' object is not iterable")
# expect error: tests/lang/errors_hostile8.dsl:91:1: error: optim.MultiStepLR(): milestones must be a list of epochs (ints), got 30
# expect error line:   optim.lr_scheduler.MultiStepLR(opt, milestones=30)
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import optim
let opt = optim.SGD([randn([3], requires_grad=true)], lr=0.1)
optim.lr_scheduler.MultiStepLR(opt, milestones=30)
# ---

# case: LambdaLR's lr_lambda a number ("'int' object is not callable")
# expect error: tests/lang/errors_hostile8.dsl:100:1: error: optim.LambdaLR(): lr_lambda must be a function of the epoch, got 0.95
# expect error line:   optim.lr_scheduler.LambdaLR(opt, 0.95)
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import optim
let opt = optim.SGD([randn([3], requires_grad=true)], lr=0.1)
optim.lr_scheduler.LambdaLR(opt, 0.95)
# ---

# case: LambdaLR's function returning a str ("cannot multiply float and str")
# expect error: tests/lang/errors_hostile8.dsl:109:1: error: optim.LambdaLR: lr_lambda(0) must return a number (the factor of the base lr), got 'fast'
# expect error line:   optim.lr_scheduler.LambdaLR(opt, fn(epoch) = "fast")
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import optim
let opt = optim.SGD([randn([3], requires_grad=true)], lr=0.1)
optim.lr_scheduler.LambdaLR(opt, fn(epoch) = "fast")
# ---

# case: ReduceLROnPlateau's min_lr with more values than groups (it was taken, PyTorch refuses it)
# expect error: tests/lang/errors_hostile8.dsl:118:1: error: optim.ReduceLROnPlateau(): min_lr has 2 values, the optimizer 1 parameter group(s) (give one number, or one per group)
# expect error line:   optim.lr_scheduler.ReduceLROnPlateau(opt, min_lr=[0.1, 0.2])
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import optim
let opt = optim.SGD([randn([3], requires_grad=true)], lr=0.1)
optim.lr_scheduler.ReduceLROnPlateau(opt, min_lr=[0.1, 0.2])
# ---

# case: ReduceLROnPlateau.step() of a metric of several values (named item())
# expect error: tests/lang/errors_hostile8.dsl:128:1: error: optim.ReduceLROnPlateau.step(): metrics must be a number or a one-element tensor, got a tensor of shape [3]
# expect error line:   sched.step(randn([3]))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~
import optim
let opt = optim.SGD([randn([3], requires_grad=true)], lr=0.1)
let sched = optim.lr_scheduler.ReduceLROnPlateau(opt)
sched.step(randn([3]))
# ---

# case: GradScaler.scale() of a number ("int has no attribute 'device'")
# expect error: tests/lang/errors_hostile8.dsl:137:1: error: optim.GradScaler.scale(): expected the loss as a tensor (or a list of them), got 5
# expect error line:   scaler.scale(5)
# expect error line:   ^~~~~~~~~~~~~~~
import optim
let scaler = optim.GradScaler()
scaler.scale(5)
# ---

# case: GradScaler.load_state_dict() of a dict without the scale's schedule (it read only two keys, unchecked)
# expect error: tests/lang/errors_hostile8.dsl:146:1: error: optim.GradScaler.load_state_dict(): the state dict has no 'growth_factor'
# expect error line:   scaler.load_state_dict({"scale": 1024.0})
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import optim
let scaler = optim.GradScaler()
scaler.load_state_dict({"scale": 1024.0})
# ---

# case: compile() of a number ("'int' object is not callable")
# expect error: tests/lang/errors_hostile8.dsl:153:1: error: compile(): expected a function or a model as the first argument, got int
# expect error line:   compile(5, randn([2]))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~
compile(5, randn([2]))
# ---

# case: compile()'s mode an int (shown as the str "5")
# expect error: tests/lang/errors_hostile8.dsl:160:1: error: compile(): mode must be "auto" (trace, and lower an if or while on a tensor when the trace meets one), "trace" (run the function, unrolling its loops) or "script" (lower its if, for and while on tensors to graph nodes), got int
# expect error line:   compile(fn(x) = x * 2, randn([2]), mode=5)
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
compile(fn(x) = x * 2, randn([2]), mode=5)
# ---

# case: a caret after accented letters and CJK on its line (it stood one column right per extra UTF-8 byte)
# expect error: tests/lang/errors_hostile8.dsl:168:27: error: cannot add int and str
# expect error line:   print(names[0], "中文", 1 + "a")
# expect error line:                           ^~~~~~~
let names = ["café", "中文"]
print(names[0], "中文", 1 + "a")
# ---

# case: TensorDataset.subset() of a negative count (a slice from the end: all items but one)
# expect error: tests/lang/errors_hostile8.dsl:177:1: error: data.TensorDataset.subset(): n must be an int from 0 to the dataset's 5 items, got -1
# expect error line:   ds.subset(-1)
# expect error line:   ^~~~~~~~~~~~~
import data
let ds = data.TensorDataset(randn([5, 2]), arange(5))
ds.subset(-1)
# ---

# case: a negative size for the causal mask (it failed with full()'s message)
# expect error: tests/lang/errors_hostile8.dsl:185:1: error: assertion failed: generate_square_subsequent_mask: sz must be an int >= 0, got -1
# expect error line:   nn.generate_square_subsequent_mask(-1)
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
nn.generate_square_subsequent_mask(-1)
# ---
