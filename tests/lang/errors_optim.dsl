# optim's constructors check their arguments when called, not at the first step():
# each error names the optimizer (or scheduler), the argument and the value found.

# case: a dict parameter group steps (it failed at step() with "dict has no attribute 'grad'")
# expect: [0.0, 0.0]
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let opt = optim.SGD([{"params": [w]}], lr=0.5)
(w * w).sum().backward()
opt.step()
print(w.tolist())
# ---
# case: an empty parameter list
# expect error: tests/lang/errors_optim.dsl:18:11: error: optim.Adam(): params is empty (no tensor to optimize; pass e.g. m.parameters())
# expect error line:   at tests/lang/errors_optim.dsl:18:11 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let opt = optim.Adam([])
# ---
# case: a single tensor instead of a list
# expect error: tests/lang/errors_optim.dsl:25:11: error: optim.SGD(): params must be a list of tensors or of parameter groups (dicts), got tensor (a single tensor: wrap it, [t])
# expect error line:   at tests/lang/errors_optim.dsl:25:11 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let opt = optim.SGD(w, lr=0.1)
# ---
# case: the parameters method, not called
# expect error: tests/lang/errors_optim.dsl:33:11: error: optim.Adam(): params must be a list of tensors or of parameter groups (dicts), got method (call the method: m.parameters())
# expect error line:   at tests/lang/errors_optim.dsl:33:11 in <module>
import optim
import nn
let m = nn.Linear(2, 2)
let opt = optim.Adam(m.parameters)
# ---
# case: a number among the parameters
# expect error: tests/lang/errors_optim.dsl:40:11: error: optim.SGD(): params[1] must be a tensor, got 3
# expect error line:   at tests/lang/errors_optim.dsl:40:11 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let opt = optim.SGD([w, 3], lr=0.1)
# ---
# case: an integer tensor
# expect error: tests/lang/errors_optim.dsl:46:11: error: optim.SGD(): params[0] must be a floating-point tensor, got dtype i64
# expect error line:   at tests/lang/errors_optim.dsl:46:11 in <module>
import optim
let opt = optim.SGD([arange(3)], lr=0.1)
# ---
# case: a group key that is a near miss of a hyperparameter
# expect error: tests/lang/errors_optim.dsl:52:11: error: optim.SGD(): params[0] has the key 'lrr', which this optimizer does not take; did you mean 'lr'? (its keys: 'params', 'lr', 'momentum', 'dampening', 'weight_decay', 'nesterov', 'maximize')
# expect error line:   at tests/lang/errors_optim.dsl:52:11 in <module>
import optim
let opt = optim.SGD([{"params": [tensor([1.0], requires_grad=true)], "lrr": 0.1}])
# ---
# case: a tensor computed from a parameter
# expect error: tests/lang/errors_optim.dsl:59:11: error: optim.SGD(): params[0] is not a leaf tensor (it was computed from others); optimize the tensors it was computed from
# expect error line:   at tests/lang/errors_optim.dsl:59:11 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let opt = optim.SGD([w * 2], lr=0.1)
# ---
# case: a tensor twice in one list
# expect error: tests/lang/errors_optim.dsl:66:11: error: optim.SGD(): params[1] appears twice (a tensor belongs to one parameter group, once)
# expect error line:   at tests/lang/errors_optim.dsl:66:11 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let opt = optim.SGD([w, w], lr=0.1)
# ---
# case: a tensor in two groups
# expect error: tests/lang/errors_optim.dsl:73:11: error: optim.SGD(): params[1]['params'][0] appears twice (a tensor belongs to one parameter group, once)
# expect error line:   at tests/lang/errors_optim.dsl:73:11 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let opt = optim.SGD([{"params": [w]}, {"params": [w], "lr": 0.1}])
# ---
# case: tensors and groups mixed
# expect error: tests/lang/errors_optim.dsl:80:11: error: optim.SGD(): params mixes tensors and parameter groups (dicts); give a list of one kind
# expect error line:   at tests/lang/errors_optim.dsl:80:11 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let opt = optim.SGD([w, {"params": [ones([1], requires_grad=true)]}])
# ---
# case: a group without params
# expect error: tests/lang/errors_optim.dsl:87:11: error: optim.SGD(): params[0] has no 'params' key (a parameter group is {'params': [tensors], 'lr': ...})
# expect error line:   at tests/lang/errors_optim.dsl:87:11 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let opt = optim.SGD([{"param": [w], "lr": 0.1}])
# ---
# case: a group key of another library's spelling lists the valid ones
# expect error: tests/lang/errors_optim.dsl:94:11: error: optim.Adam(): params[0] has the key 'learning_rate', which this optimizer does not take; did you mean 'lr'? (its keys: 'params', 'lr', 'betas', 'eps', 'weight_decay', 'amsgrad', 'maximize')
# expect error line:   at tests/lang/errors_optim.dsl:94:11 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let opt = optim.Adam([{"params": [w], "learning_rate": 0.1}])
# ---
# case: a negative lr
# expect error: tests/lang/errors_optim.dsl:101:11: error: optim.SGD(): lr must be >= 0, got -0.1
# expect error line:   at tests/lang/errors_optim.dsl:101:11 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let opt = optim.SGD([w], lr=-0.1)
# ---
# case: a negative lr in a group
# expect error: tests/lang/errors_optim.dsl:108:11: error: optim.SGD(): params[1]['lr'] must be >= 0, got -1
# expect error line:   at tests/lang/errors_optim.dsl:108:11 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let opt = optim.SGD([{"params": [w]}, {"params": [ones([1], requires_grad=true)], "lr": -1}])
# ---
# case: a negative momentum
# expect error: tests/lang/errors_optim.dsl:115:11: error: optim.SGD(): momentum must be >= 0, got -0.9
# expect error line:   at tests/lang/errors_optim.dsl:115:11 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let opt = optim.SGD([w], lr=0.1, momentum=-0.9)
# ---
# case: a negative weight_decay
# expect error: tests/lang/errors_optim.dsl:122:11: error: optim.AdamW(): weight_decay must be >= 0, got -0.01
# expect error line:   at tests/lang/errors_optim.dsl:122:11 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let opt = optim.AdamW([w], weight_decay=-0.01)
# ---
# case: a negative eps
# expect error: tests/lang/errors_optim.dsl:129:11: error: optim.Adam(): eps must be >= 0, got -1e-08
# expect error line:   at tests/lang/errors_optim.dsl:129:11 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let opt = optim.Adam([w], eps=-1e-8)
# ---
# case: a beta of 1
# expect error: tests/lang/errors_optim.dsl:136:11: error: optim.Adam(): betas[1] must be in [0, 1), got 1.0
# expect error line:   at tests/lang/errors_optim.dsl:136:11 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let opt = optim.Adam([w], betas=(0.9, 1.0))
# ---
# case: betas that are not a pair
# expect error: tests/lang/errors_optim.dsl:143:11: error: optim.Adam(): betas must be a pair (beta1, beta2), got 0.9
# expect error line:   at tests/lang/errors_optim.dsl:143:11 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let opt = optim.Adam([w], betas=0.9)
# ---
# case: a negative alpha
# expect error: tests/lang/errors_optim.dsl:150:11: error: optim.RMSprop(): alpha must be >= 0, got -0.5
# expect error line:   at tests/lang/errors_optim.dsl:150:11 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let opt = optim.RMSprop([w], alpha=-0.5)
# ---
# case: nesterov without momentum
# expect error: tests/lang/errors_optim.dsl:157:11: error: optim.SGD(): nesterov=true needs momentum > 0 and dampening 0, got momentum=0, dampening=0
# expect error line:   at tests/lang/errors_optim.dsl:157:11 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let opt = optim.SGD([w], lr=0.1, nesterov=true)
# ---
# case: nesterov with dampening, in a group
# expect error: tests/lang/errors_optim.dsl:164:11: error: optim.SGD(): params[0]: nesterov=true needs momentum > 0 and dampening 0, got momentum=0.9, dampening=0.1
# expect error line:   at tests/lang/errors_optim.dsl:164:11 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let opt = optim.SGD([{"params": [w], "dampening": 0.1}], lr=0.1, momentum=0.9, nesterov=true)
# ---
# case: an lr given as a str
# expect error: tests/lang/errors_optim.dsl:171:11: error: optim.SGD(): lr must be a number, got '0.1'
# expect error line:   at tests/lang/errors_optim.dsl:171:11 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let opt = optim.SGD([w], lr="0.1")
# ---
# case: amsgrad that is not a bool
# expect error: tests/lang/errors_optim.dsl:178:11: error: optim.Adam(): amsgrad must be true or false, got 1
# expect error line:   at tests/lang/errors_optim.dsl:178:11 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let opt = optim.Adam([w], amsgrad=1)
# ---
# case: opt.lr set out of range
# expect error: tests/lang/errors_optim.dsl:186:1: error: optim.SGD: lr must be >= 0, got -0.5
# expect error line:   at tests/lang/errors_optim.dsl:186:1 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let opt = optim.SGD([w], lr=0.1)
opt.lr = -0.5
# ---
# case: opt.lr sets every group; a misspelled hyperparameter is an error
# expect error: tests/lang/errors_optim.dsl:197:1: error: optim.SGD: cannot set 'learning_rate': not a field or hyperparameter (its hyperparameters: 'lr', 'momentum', 'dampening', 'weight_decay', 'nesterov', 'maximize')
# expect error line:   at tests/lang/errors_optim.dsl:197:1 in <module>
# expect: 0.25 0.25
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let opt = optim.SGD([{"params": [w], "lr": 0.5}, {"params": [ones([1], requires_grad=true)]}], lr=0.1)
opt.lr = 0.25
print(opt.param_groups[0]["lr"], opt.param_groups[1]["lr"])
opt.learning_rate = 0.1
# ---
# case: reading an attribute an optimizer does not have
# expect error: tests/lang/errors_optim.dsl:205:7: error: optim.Adam has no attribute 'momentum' (its hyperparameters: 'lr', 'betas', 'eps', 'weight_decay', 'amsgrad', 'maximize')
# expect error line:   at tests/lang/errors_optim.dsl:205:7 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let opt = optim.Adam([w])
print(opt.momentum)
# ---
# case: add_param_group with a list
# expect error: tests/lang/errors_optim.dsl:213:1: error: optim.SGD.add_param_group(): param_group must be a dict with a 'params' key, got list
# expect error line:   at tests/lang/errors_optim.dsl:213:1 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let opt = optim.SGD([w], lr=0.1)
opt.add_param_group([ones([1], requires_grad=true)])
# ---
# case: add_param_group with another optimizer's hyperparameter
# expect error: tests/lang/errors_optim.dsl:221:1: error: optim.SGD.add_param_group(): param_group has the key 'betas', which this optimizer does not take; it is another optimizer's hyperparameter (its keys: 'params', 'lr', 'momentum', 'dampening', 'weight_decay', 'nesterov', 'maximize')
# expect error line:   at tests/lang/errors_optim.dsl:221:1 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let opt = optim.SGD([w], lr=0.1)
opt.add_param_group({"params": [ones([1], requires_grad=true)], "betas": (0.9, 0.99)})
# ---
# case: load_state_dict of another number of groups
# expect error: tests/lang/errors_optim.dsl:230:1: error: optim.SGD.load_state_dict(): the state dict has 2 parameter group(s), the optimizer 1
# expect error line:   at tests/lang/errors_optim.dsl:230:1 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let two = optim.SGD([{"params": [w]}, {"params": [ones([1], requires_grad=true)]}])
let opt = optim.SGD([w])
opt.load_state_dict(two.state_dict())
# ---
# case: load_state_dict without a hyperparameter
# expect error: tests/lang/errors_optim.dsl:238:1: error: optim.SGD.load_state_dict(): the state dict has no 'momentum'
# expect error line:   at tests/lang/errors_optim.dsl:238:1 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let opt = optim.SGD([w])
opt.load_state_dict({"lr": 0.1})
# ---
# case: a scheduler given a list of parameters
# expect error: tests/lang/errors_optim.dsl:245:13: error: optim.StepLR(): optimizer must be an optimizer (optim.SGD, optim.Adam, ...), got list
# expect error line:   at tests/lang/errors_optim.dsl:245:13 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let sched = optim.StepLR([w], 10)
# ---
# case: a scheduler given the optimizer class
# expect error: tests/lang/errors_optim.dsl:251:13: error: optim.CosineAnnealingLR(): optimizer must be an optimizer (optim.SGD, optim.Adam, ...), got the model class SGD (not an instance)
# expect error line:   at tests/lang/errors_optim.dsl:251:13 in <module>
import optim
let sched = optim.CosineAnnealingLR(optim.SGD, 10)
# ---
# case: StepLR with step_size 0
# expect error: tests/lang/errors_optim.dsl:258:13: error: optim.StepLR(): step_size must be an int > 0, got 0
# expect error line:   at tests/lang/errors_optim.dsl:258:13 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let sched = optim.StepLR(optim.SGD([w]), 0)
# ---
# case: CosineAnnealingLR with T_max 0
# expect error: tests/lang/errors_optim.dsl:265:13: error: optim.CosineAnnealingLR(): T_max must be > 0, got 0
# expect error line:   at tests/lang/errors_optim.dsl:265:13 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let sched = optim.CosineAnnealingLR(optim.SGD([w]), 0)
# ---
# case: LinearWarmup with a float warmup_steps
# expect error: tests/lang/errors_optim.dsl:272:13: error: optim.LinearWarmup(): warmup_steps must be an int > 0, got 2.5
# expect error line:   at tests/lang/errors_optim.dsl:272:13 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let sched = optim.LinearWarmup(optim.SGD([w]), 2.5)
# ---
# case: GradScaler with backoff_factor past 1
# expect error: tests/lang/errors_optim.dsl:278:14: error: optim.GradScaler(): backoff_factor must be in (0, 1), got 1.5
# expect error line:   at tests/lang/errors_optim.dsl:278:14 in <module>
import optim
let scaler = optim.GradScaler(backoff_factor=1.5)
# ---
# case: GradScaler.step given the parameters
# expect error: tests/lang/errors_optim.dsl:286:1: error: optim.GradScaler.step(): optimizer must be an optimizer (optim.SGD, optim.Adam, ...), got list
# expect error line:   at tests/lang/errors_optim.dsl:286:1 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let scaler = optim.GradScaler()
scaler.step([w])
# ---
# case: Adagrad with a negative lr_decay
# expect error: tests/lang/errors_optim.dsl:293:11: error: optim.Adagrad(): lr_decay must be >= 0, got -0.1
# expect error line:   at tests/lang/errors_optim.dsl:293:11 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let opt = optim.Adagrad([w], lr_decay=-0.1)
# ---
# case: Adagrad with a negative initial_accumulator_value in a group
# expect error: tests/lang/errors_optim.dsl:300:11: error: optim.Adagrad(): params[0]['initial_accumulator_value'] must be >= 0, got -1
# expect error line:   at tests/lang/errors_optim.dsl:300:11 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let opt = optim.Adagrad([{"params": [w], "initial_accumulator_value": -1}])
# ---
# case: Adagrad's lr_decay set out of range
# expect error: tests/lang/errors_optim.dsl:308:1: error: optim.Adagrad: lr_decay must be >= 0, got -1
# expect error line:   at tests/lang/errors_optim.dsl:308:1 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let opt = optim.Adagrad([w])
opt.lr_decay = -1
# ---
# case: Adamax with a beta past 1
# expect error: tests/lang/errors_optim.dsl:315:11: error: optim.Adamax(): betas[1] must be in [0, 1), got 1.5
# expect error line:   at tests/lang/errors_optim.dsl:315:11 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let opt = optim.Adamax([w], betas=(0.9, 1.5))
# ---
# case: NAdam with a negative momentum_decay
# expect error: tests/lang/errors_optim.dsl:322:11: error: optim.NAdam(): momentum_decay must be >= 0, got -0.004
# expect error line:   at tests/lang/errors_optim.dsl:322:11 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let opt = optim.NAdam([w], momentum_decay=-4e-3)
# ---
# case: NAdam given maximize, which PyTorch 1.13's does not take
# expect error: tests/lang/errors_optim.dsl:328:11: error: NAdam() got an unexpected keyword argument 'maximize' (valid keywords: params, lr, betas, eps, weight_decay, momentum_decay)
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let opt = optim.NAdam([w], maximize=true)
# ---
# case: a RAdam group with maximize, another optimizer's hyperparameter
# expect error: tests/lang/errors_optim.dsl:335:11: error: optim.RAdam(): params[0] has the key 'maximize', which this optimizer does not take; it is another optimizer's hyperparameter (its keys: 'params', 'lr', 'betas', 'eps', 'weight_decay')
# expect error line:   at tests/lang/errors_optim.dsl:335:11 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let opt = optim.RAdam([{"params": [w], "maximize": true}])
# ---
# case: RAdam with a negative weight_decay
# expect error: tests/lang/errors_optim.dsl:342:11: error: optim.RAdam(): weight_decay must be >= 0, got -0.1
# expect error line:   at tests/lang/errors_optim.dsl:342:11 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let opt = optim.RAdam([w], weight_decay=-0.1)
# ---
# case: PolynomialLR with total_iters 0
# expect error: tests/lang/errors_optim.dsl:349:13: error: optim.PolynomialLR(): total_iters must be an int > 0, got 0
# expect error line:   at tests/lang/errors_optim.dsl:349:13 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let sched = optim.PolynomialLR(optim.SGD([w]), total_iters=0)
# ---
# case: CyclicLR with an unknown mode
# expect error: tests/lang/errors_optim.dsl:356:13: error: optim.CyclicLR(): mode must be "triangular", "triangular2" or "exp_range", got "triangle"
# expect error line:   at tests/lang/errors_optim.dsl:356:13 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let sched = optim.CyclicLR(optim.SGD([w]), 0.01, 0.1, mode="triangle")
# ---
# case: CyclicLR cycling the momentum of an optimizer without one
# expect error: tests/lang/errors_optim.dsl:363:13: error: optim.CyclicLR(): cycle_momentum=true needs an optimizer with momentum (optim.SGD, optim.RMSprop), got optim.Adam; pass cycle_momentum=false
# expect error line:   at tests/lang/errors_optim.dsl:363:13 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let sched = optim.CyclicLR(optim.Adam([w]), 0.01, 0.1)
# ---
# case: CyclicLR with a base_lr per group for another number of groups
# expect error: tests/lang/errors_optim.dsl:370:13: error: optim.CyclicLR(): base_lr has 2 values, the optimizer 1 parameter group(s) (give one number, or one per group)
# expect error line:   at tests/lang/errors_optim.dsl:370:13 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let sched = optim.CyclicLR(optim.SGD([w]), [0.01, 0.02], 0.1)
# ---
# case: CyclicLR with step_size_up 0
# expect error: tests/lang/errors_optim.dsl:377:13: error: optim.CyclicLR(): step_size_up must be > 0, got 0
# expect error line:   at tests/lang/errors_optim.dsl:377:13 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let sched = optim.CyclicLR(optim.SGD([w]), 0.01, 0.1, step_size_up=0)
# ---
# case: OneCycleLR without total_steps or epochs
# expect error: tests/lang/errors_optim.dsl:384:13: error: optim.OneCycleLR(): give total_steps, or epochs and steps_per_epoch
# expect error line:   at tests/lang/errors_optim.dsl:384:13 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let sched = optim.OneCycleLR(optim.SGD([w]), 0.1)
# ---
# case: OneCycleLR with epochs but no steps_per_epoch
# expect error: tests/lang/errors_optim.dsl:391:13: error: optim.OneCycleLR(): steps_per_epoch must be an int > 0, got none
# expect error line:   at tests/lang/errors_optim.dsl:391:13 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let sched = optim.OneCycleLR(optim.SGD([w]), 0.1, epochs=3)
# ---
# case: OneCycleLR with an int pct_start (PyTorch wants a float)
# expect error: tests/lang/errors_optim.dsl:398:13: error: optim.OneCycleLR(): pct_start must be a float in [0, 1], got 1
# expect error line:   at tests/lang/errors_optim.dsl:398:13 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let sched = optim.OneCycleLR(optim.SGD([w]), 0.1, total_steps=10, pct_start=1)
# ---
# case: OneCycleLR with an unknown anneal_strategy
# expect error: tests/lang/errors_optim.dsl:405:13: error: optim.OneCycleLR(): anneal_strategy must be "cos" or "linear", got "cosine"
# expect error line:   at tests/lang/errors_optim.dsl:405:13 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let sched = optim.OneCycleLR(optim.SGD([w]), 0.1, total_steps=10, anneal_strategy="cosine")
# ---
# case: OneCycleLR cycling the momentum of an optimizer without momentum or betas
# expect error: tests/lang/errors_optim.dsl:412:13: error: optim.OneCycleLR(): cycle_momentum=true needs an optimizer with momentum or betas (optim.SGD, optim.Adam, ...), got optim.Adagrad; pass cycle_momentum=false
# expect error line:   at tests/lang/errors_optim.dsl:412:13 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let sched = optim.OneCycleLR(optim.Adagrad([w]), 0.1, total_steps=10)
# ---
# case: OneCycleLR stepped past total_steps (total_steps steps are fine, as in PyTorch)
# expect error: tests/lang/errors_optim.dsl:422:1: error: optim.OneCycleLR.step(): stepped 3 times, past total_steps=2 (where the schedule ends)
# expect error line:   at tests/lang/errors_optim.dsl:422:1 in <module>
import optim
let w = tensor([1.0, 2.0], requires_grad=true)
let sched = optim.OneCycleLR(optim.SGD([w]), 0.1, total_steps=2)
sched.step()
sched.step()
sched.step()
# ---
# case: a new optimizer has the form's methods with their docs (Note [The optimizer form] in stdlib/optim.dsl)
# expect: NAdam(params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3)
# expect:   NAdam: Adam with Nesterov momentum and a momentum warm-up (momentum_decay), as torch.optim.NAdam.
# expect:
# expect:   Example: optim.NAdam(m.parameters(), lr=2e-3)
# expect: methods:
# expect:   add_param_group(param_group)  Adds a group: {'params': [...], hyperparameter: value}.
# expect:   zero_grad(set_to_none=true)  Sets every grad to none (or zeros).
# expect:   step()  Updates every parameter that has a grad.
# expect:   state_dict()  Every group's hyperparameters and the state, as a flat dict.
# expect:   load_state_dict(d)  Restores a state_dict().
# expect: (and the methods every model has: help("model"))
import optim
help(optim.NAdam)
# ---
# case: SequentialLR with as many milestones as schedulers
# expect error: tests/lang/errors_optim.dsl:444:13: error: optim.SequentialLR(): 2 scheduler(s) need 1 milestone(s), one fewer, got 2: [3, 6]
# expect error line:   at tests/lang/errors_optim.dsl:444:13 in <module>
import optim
let opt = optim.SGD([tensor([1.0], requires_grad=true)], lr=0.1)
let sched = optim.SequentialLR(opt, [optim.lr_scheduler.ConstantLR(opt), optim.lr_scheduler.ExponentialLR(opt, 0.9)], [3, 6])
# ---
# case: SequentialLR given a scheduler of another optimizer
# expect error: tests/lang/errors_optim.dsl:452:13: error: optim.SequentialLR(): schedulers[1] schedules another optimizer than the one given
# expect error line:   at tests/lang/errors_optim.dsl:452:13 in <module>
import optim
let opt = optim.SGD([tensor([1.0], requires_grad=true)], lr=0.1)
let other = optim.SGD([tensor([2.0], requires_grad=true)], lr=0.1)
let sched = optim.SequentialLR(opt, [optim.StepLR(opt, 2), optim.StepLR(other, 2)], milestones=[3])
# ---
# case: SequentialLR given ReduceLROnPlateau
# expect error: tests/lang/errors_optim.dsl:459:13: error: optim.SequentialLR(): schedulers[1] is optim.ReduceLROnPlateau, which steps on a metric and cannot be stepped with the others (as in PyTorch)
# expect error line:   at tests/lang/errors_optim.dsl:459:13 in <module>
import optim
let opt = optim.SGD([tensor([1.0], requires_grad=true)], lr=0.1)
let sched = optim.SequentialLR(opt, [optim.StepLR(opt, 2), optim.lr_scheduler.ReduceLROnPlateau(opt)], milestones=[3])
# ---
# case: ChainedScheduler given a scheduler class
# expect error: tests/lang/errors_optim.dsl:466:13: error: optim.ChainedScheduler(): schedulers[1] must be a scheduler (optim.StepLR(opt, ...), optim.LinearLR(opt, ...), ...), got the model class ExponentialLR (not an instance)
# expect error line:   at tests/lang/errors_optim.dsl:466:13 in <module>
import optim
let opt = optim.SGD([tensor([1.0], requires_grad=true)], lr=0.1)
let sched = optim.ChainedScheduler([optim.StepLR(opt, 2), optim.lr_scheduler.ExponentialLR])
# ---
# case: ChainedScheduler given no schedulers
# expect error: tests/lang/errors_optim.dsl:472:13: error: optim.ChainedScheduler(): schedulers must be a non-empty list of schedulers, got an empty list
# expect error line:   at tests/lang/errors_optim.dsl:472:13 in <module>
import optim
let sched = optim.ChainedScheduler([])
