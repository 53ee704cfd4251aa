# optim: optimizers and learning-rate schedulers with PyTorch's semantics, names and
# defaults, parameter groups included.
#
#   optimizers: SGD, Adam, AdamW, RMSprop, Adagrad, Adamax, NAdam, RAdam, Adadelta,
#               Rprop, ASGD, SparseAdam (stdlib/_optim_sparse.dsl) (each a model of
#               one form, Note [The optimizer form] in stdlib/_optim_groups.dsl) and
#               LBFGS (step(closure), stdlib/_optim_lbfgs.dsl)
#   schedulers: StepLR, CosineAnnealingLR, LinearWarmup, OneCycleLR, CyclicLR,
#               PolynomialLR, SequentialLR, ChainedScheduler, and under optim.lr_scheduler
#               also MultiStepLR, ExponentialLR, LambdaLR, LinearLR, ConstantLR,
#               CosineAnnealingWarmRestarts, ReduceLROnPlateau
#   GradScaler (dynamic loss scaling, stdlib/_optim_scaler.dsl)
#   swa_utils: AveragedModel, SWALR, update_bn (stdlib/_optim_swa.dsl)
#
#   import optim
#   let opt = optim.Adam(m.parameters(), lr=1e-3)
#   let sched = optim.CosineAnnealingLR(opt, 100)
#   opt.zero_grad(); loss.backward(); opt.step(); sched.step()
#
# Parameter groups, as PyTorch's: `params` is a list of tensors (one group) or a list of
# dicts, `[{"params": [...], "lr": 0.1}, {"params": [...]}]`, whose keys override the
# constructor's hyperparameters for that group. `opt.param_groups` is that list of
# dicts, each with every hyperparameter filled in; step() reads them at every step, so
# `for g in opt.param_groups { g["lr"] = 0.01 }` changes the learning rate.
# `opt.add_param_group({"params": [...], ...})` adds one; `opt.defaults` holds the
# constructor's values. `opt.lr` (and any hyperparameter: `opt.momentum`, `opt.betas`)
# reads group 0's value and, assigned, sets it in every group (with one group, simply
# its value; __getattr__ / __setattr__ below). `opt.params` is every parameter, group
# after group, and `opt.state[i]` parameter i's state. The schedulers live in
# stdlib/_lr_scheduler.dsl, the parameter groups and what every optimizer shares in
# stdlib/_optim_groups.dsl, the argument checks shared with dist in stdlib/_argcheck.dsl.
#
# Constructors check their arguments at once (not at the first step()): params is a
# non-empty list of floating-point leaf tensors (frozen ones are accepted, as in
# PyTorch), no tensor twice; a group is a dict with "params", hyperparameter keys and
# keys of the user's own (but not near misses of hyperparameters); the ranges are PyTorch's
# (lr >= 0, eps >= 0, 0 <= beta < 1, momentum >= 0, weight_decay >= 0, lr_decay,
# initial_accumulator_value and momentum_decay >= 0, nesterov only with momentum > 0
# and dampening 0). Messages name the optimizer, the argument and
# the value found: `optim.SGD(): params[1]['lr'] must be >= 0, got -0.1`.
#
# Every optimizer has step() (updates the parameters in place under no_grad and skips
# those whose grad is none), zero_grad() (sets every grad to none;
# zero_grad(set_to_none=false) zeroes them), and state_dict() / load_state_dict(d). A
# state dict is a flat dict of numbers and tensors: group 0's hyperparameters under
# their names ("lr", "momentum", "beta1", "beta2", ...), group k's (k >= 1) under
# "param_groups.<k>.<name>", and each parameter's state under "state.<i>.<name>" (e.g.
# "state.0.exp_avg", "state.0.step"), i counting the parameters group after group; its
# tensors are copies. A single-group state dict is the format of before groups existed.

import math
import _argcheck
import _lr_scheduler
import _optim_groups
import _optim_graph
import _optim_lbfgs
import _optim_sparse
import _optim_scaler
import _optim_swa

# The shared parts of every optimizer (stdlib/_optim_groups.dsl, Note [The optimizer form]).
let _add_param_group = _optim_groups._add_param_group
let _all_params = _optim_groups._all_params
let _each_param = _optim_groups._each_param
let _empty_states = _optim_groups._empty_states
let _group_option = _optim_groups._group_option
let _load_state_dict = _optim_groups._load_state_dict
let _next_step = _optim_groups._next_step
let _param_groups_of = _optim_groups._param_groups_of
let _set_group_option = _optim_groups._set_group_option
let _state_dict = _optim_groups._state_dict
let _step_group_lists = _optim_groups._step_group_lists
let _step_groups = _optim_groups._step_groups
let _zero_grad = _optim_groups._zero_grad
let _group_params = _optim_groups._group_params
let _options = _optim_groups._options

# --- optimizers -----------------------------------------------------------------------

# SGD with momentum (PyTorch's torch.optim.SGD): with weight decay g = g + wd * p; with
# momentum buf = g at the first step, then buf = momentum * buf + (1 - dampening) * g,
# and g = g + momentum * buf (nesterov) or g = buf; p = p - lr * g.
model SGD(params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=false, maximize=false) {
  """Stochastic gradient descent with momentum, dampening, weight decay and Nesterov momentum, as torch.optim.SGD.

  Example: optim.SGD(m.parameters(), lr=0.1, momentum=0.9, nesterov=true)
  """
  defaults = {"lr": lr, "momentum": momentum, "dampening": dampening, "weight_decay": weight_decay,
              "nesterov": nesterov, "maximize": maximize}
  param_groups = _param_groups_of(self, params, defaults)   # Note [The optimizer form] (_optim_groups.dsl)
  params = _all_params(param_groups)
  state = _empty_states(len(self.params))
  __getattr__(name) = _group_option(self, name)
  __setattr__(name, value) = _set_group_option(self, name, value)
  add_param_group(param_group) { "Adds a group: {'params': [...], hyperparameter: value}. Example: opt.add_param_group({'params': ps, 'lr': 0.01})"; _add_param_group(self, param_group) }
  zero_grad(set_to_none=true) { "Sets every grad to none (or zeros). Example: opt.zero_grad()"; _zero_grad(self.params, set_to_none) }
  step() { "Updates every parameter that has a grad. Example: opt.step()"; _step_group_lists(self, _sgd_group_step) }
  state_dict() { "Every group's hyperparameters and the state, as a flat dict. Example: let sd = opt.state_dict()"; return _state_dict(self) }
  load_state_dict(d) { "Restores a state_dict(). Example: opt.load_state_dict(sd)"; _load_state_dict(self, d) }
}

# One SGD step of a group's parameters ps with grads gs and states sts: one
# multi-tensor kernel for the whole group (optim_sgd_step_multi_, rounding as the
# tensor ops of _sgd_update do) when it handles them, else parameter by parameter.
fn _sgd_group_step(ps, gs, sts, group) {
  if len(ps) > 0 and _fused[0] {
    let momentum = group["momentum"]
    let bufs = []   # without momentum, none
    let fresh = []
    for k in range(len(ps) if momentum != 0 else 0) {
      let had = "momentum_buffer" in sts[k]
      fresh.append(not had or _unstepped(sts[k]))
      bufs.append(sts[k]["momentum_buffer"] if had else zeros_like(ps[k]))
    }
    if optim_sgd_step_multi_(ps, gs, bufs, fresh, group["lr"], momentum, group["dampening"], group["weight_decay"], group["nesterov"]) {
      if momentum != 0 {
        for k in range(len(ps)) {
          sts[k]["momentum_buffer"] = bufs[k]
          _count_step(sts[k])
        }
      }
      return none
    }
  }
  _each_param(_sgd_update, ps, gs, sts, group)
}

# A compiled step with the optimizer inside (Note [The optimizer inside the graph] in
# interp/builtins/graph_step.cpp) keeps each state's step count as a 0-dim f64 tensor
# beside the parameter, as PyTorch's capturable optimizers do; eager steps read and
# advance it in place, so that both kinds of step can follow each other.
fn _step_count(st) = st["step"].item() if type(st["step"]) == "tensor" else st["step"]
fn _unstepped(st) = "step" in st and _step_count(st) == 0
fn _count_step(st) {
  if "step" in st { st["step"].add_(1) }
}

fn _sgd_update(p, g, st, group) {
  let momentum = group["momentum"]
  if group["weight_decay"] != 0 { g = g + group["weight_decay"] * p }
  if momentum != 0 {
    let dampening = group["dampening"]
    if "momentum_buffer" in st and not _unstepped(st) {
      st["momentum_buffer"].mul_(momentum).add_(g * (1 - dampening) if dampening != 0 else g)
    } elif "momentum_buffer" in st {
      st["momentum_buffer"].copy_(g)
    } else {
      st["momentum_buffer"] = g.detach().clone()
    }
    _count_step(st)
    let buf = st["momentum_buffer"]
    g = g + momentum * buf if group["nesterov"] else buf
  }
  p.sub_(g * group["lr"])
}

# One Adam / AdamW update of parameter p with gradient g and state st (PyTorch 1.13's
# single-tensor algorithm), its state already advanced (_adam_advance). decoupled:
# AdamW's p = p * (1 - lr * wd) instead of Adam's g = g + wd * p. Contiguous f32/f64
# tensors take the fused native update (interp/builtins/builtins_optim.cpp, one pass
# without temporaries), others the tensor ops.
fn _adam_update(p, g, st, lr, beta1, beta2, eps, wd, amsgrad, decoupled) {
  let t = _step_count(st)
  let m = st["exp_avg"]
  let v = st["exp_avg_sq"]
  if not amsgrad and _fused[0] {
    if optim_adam_step_(p, g, m, v, lr, beta1, beta2, eps, t, wd, decoupled) { return none }
  }
  if wd != 0 {
    if decoupled { p.mul_(1 - lr * wd) } else { g = g + wd * p }
  }
  m.mul_(beta1).add_(g * (1 - beta1))
  v.mul_(beta2).add_(g * g * (1 - beta2))
  let bc1 = 1 - beta1 ** t
  let bc2_sqrt = math.sqrt(1 - beta2 ** t)
  let denom = none
  if amsgrad {
    let mx = maximum(st["max_exp_avg_sq"], v)
    st["max_exp_avg_sq"].copy_(mx)
    denom = mx.sqrt().div_(bc2_sqrt).add_(eps)
  } else {
    denom = v.sqrt().div_(bc2_sqrt).add_(eps)
  }
  p.sub_(m.div(denom).mul_(lr / bc1))
}

# The state of p for its next Adam step: the step count advanced, the moments made
# (zeros) at the first step. Returns the new count.
fn _adam_advance(p, st, amsgrad) {
  if "step" not in st {
    st["step"] = 1
    st["exp_avg"] = zeros_like(p)
    st["exp_avg_sq"] = zeros_like(p)
    if amsgrad { st["max_exp_avg_sq"] = zeros_like(p) }
    return 1
  }
  let step = st["step"]
  if type(step) == "tensor" { return step.add_(1).item() }
  st["step"] = step + 1
  return step + 1
}

# Whether Adam, AdamW and SGD may use the fused native updates (tests compare both paths).
let _fused = [true]
fn _use_fused(on) {
  _fused[0] = on
}

# One Adam / AdamW step of a group's parameters ps with grads gs and states sts: one
# multi-tensor kernel for the whole group (optim_adam_step_multi_) when it handles
# them, else parameter by parameter.
fn _adam_group_step(ps, gs, sts, group, decoupled) {
  let amsgrad = group["amsgrad"]
  # natively once the states are made (Note [A step's checks, natively first])
  let advanced = optim_adam_advance_(sts, amsgrad)
  if advanced == none {
    advanced = [[], [], []]
    for k in range(len(ps)) {
      let st = sts[k]
      advanced[2].append(_adam_advance(ps[k], st, amsgrad))
      advanced[0].append(st["exp_avg"])
      advanced[1].append(st["exp_avg_sq"])
    }
  }
  let ms = advanced[0]
  let vs = advanced[1]
  let steps = advanced[2]
  let lr = group["lr"]
  let beta1 = group["betas"][0]
  let beta2 = group["betas"][1]
  let eps = group["eps"]
  let wd = group["weight_decay"]
  if len(ps) > 0 and not amsgrad and _fused[0] {
    if optim_adam_step_multi_(ps, gs, ms, vs, steps, lr, beta1, beta2, eps, wd, decoupled) { return none }
  }
  for k in range(len(ps)) { _adam_update(ps[k], gs[k], sts[k], lr, beta1, beta2, eps, wd, amsgrad, decoupled) }
}

fn _adam_groups(ps, gs, sts, group) = _adam_group_step(ps, gs, sts, group, false)
fn _adamw_groups(ps, gs, sts, group) = _adam_group_step(ps, gs, sts, group, true)

# Adam (torch.optim.Adam): L2 weight decay added to the gradient.
model Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=false, maximize=false) {
  """Adam with L2 weight decay added to the gradient and optional AMSGrad, as torch.optim.Adam.

  Example: optim.Adam([{"params": m.body.parameters()}, {"params": m.head.parameters(), "lr": 1e-2}], lr=1e-3)
  """
  defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "amsgrad": amsgrad,
              "maximize": maximize}
  param_groups = _param_groups_of(self, params, defaults)   # Note [The optimizer form] (_optim_groups.dsl)
  params = _all_params(param_groups)
  state = _empty_states(len(self.params))
  __getattr__(name) = _group_option(self, name)
  __setattr__(name, value) = _set_group_option(self, name, value)
  add_param_group(param_group) { "Adds a group: {'params': [...], hyperparameter: value}. Example: opt.add_param_group({'params': ps, 'lr': 0.01})"; _add_param_group(self, param_group) }
  zero_grad(set_to_none=true) { "Sets every grad to none (or zeros). Example: opt.zero_grad()"; _zero_grad(self.params, set_to_none) }
  step() { "Updates every parameter that has a grad. Example: opt.step()"; _step_group_lists(self, _adam_groups) }
  state_dict() { "Every group's hyperparameters and the state, as a flat dict. Example: let sd = opt.state_dict()"; return _state_dict(self) }
  load_state_dict(d) { "Restores a state_dict(). Example: opt.load_state_dict(sd)"; _load_state_dict(self, d) }
}

# AdamW (torch.optim.AdamW): decoupled weight decay, p = p * (1 - lr * weight_decay).
model AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=false, maximize=false) {
  """Adam with decoupled weight decay (p *= 1 - lr * weight_decay), as torch.optim.AdamW.

  Example: optim.AdamW(m.parameters(), lr=1e-3, weight_decay=1e-2)
  """
  defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "amsgrad": amsgrad,
              "maximize": maximize}
  param_groups = _param_groups_of(self, params, defaults)   # Note [The optimizer form] (_optim_groups.dsl)
  params = _all_params(param_groups)
  state = _empty_states(len(self.params))
  __getattr__(name) = _group_option(self, name)
  __setattr__(name, value) = _set_group_option(self, name, value)
  add_param_group(param_group) { "Adds a group: {'params': [...], hyperparameter: value}. Example: opt.add_param_group({'params': ps, 'lr': 0.01})"; _add_param_group(self, param_group) }
  zero_grad(set_to_none=true) { "Sets every grad to none (or zeros). Example: opt.zero_grad()"; _zero_grad(self.params, set_to_none) }
  step() { "Updates every parameter that has a grad. Example: opt.step()"; _step_group_lists(self, _adamw_groups) }
  state_dict() { "Every group's hyperparameters and the state, as a flat dict. Example: let sd = opt.state_dict()"; return _state_dict(self) }
  load_state_dict(d) { "Restores a state_dict(). Example: opt.load_state_dict(sd)"; _load_state_dict(self, d) }
}

# RMSprop (torch.optim.RMSprop): square_avg = alpha * square_avg + (1 - alpha) * g^2;
# avg = sqrt(square_avg) + eps (centered: sqrt(square_avg - grad_avg^2) + eps); with
# momentum buf = momentum * buf + g / avg and p = p - lr * buf, else p = p - lr * g / avg.
model RMSprop(params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=false, maximize=false) {
  """RMSprop: the gradient divided by a running root mean square, with optional momentum and centering, as torch.optim.RMSprop.

  Example: optim.RMSprop(m.parameters(), lr=1e-2, alpha=0.99)
  """
  defaults = {"lr": lr, "alpha": alpha, "eps": eps, "weight_decay": weight_decay, "momentum": momentum,
              "centered": centered, "maximize": maximize}
  param_groups = _param_groups_of(self, params, defaults)   # Note [The optimizer form] (_optim_groups.dsl)
  params = _all_params(param_groups)
  state = _empty_states(len(self.params))
  __getattr__(name) = _group_option(self, name)
  __setattr__(name, value) = _set_group_option(self, name, value)
  add_param_group(param_group) { "Adds a group: {'params': [...], hyperparameter: value}. Example: opt.add_param_group({'params': ps, 'lr': 0.01})"; _add_param_group(self, param_group) }
  zero_grad(set_to_none=true) { "Sets every grad to none (or zeros). Example: opt.zero_grad()"; _zero_grad(self.params, set_to_none) }
  step() { "Updates every parameter that has a grad. Example: opt.step()"; _step_groups(self, _rmsprop_update) }
  state_dict() { "Every group's hyperparameters and the state, as a flat dict. Example: let sd = opt.state_dict()"; return _state_dict(self) }
  load_state_dict(d) { "Restores a state_dict(). Example: opt.load_state_dict(sd)"; _load_state_dict(self, d) }
}

fn _rmsprop_update(p, g, st, group) {
  let alpha = group["alpha"]
  let momentum = group["momentum"]
  if group["weight_decay"] != 0 { g = g + group["weight_decay"] * p }
  if "step" in st {
    st["step"] = st["step"] + 1
  } else {
    st["step"] = 1
    st["square_avg"] = zeros_like(p)
    if momentum > 0 { st["momentum_buffer"] = zeros_like(p) }
    if group["centered"] { st["grad_avg"] = zeros_like(p) }
  }
  let sq = st["square_avg"]
  sq.mul_(alpha).add_(g * g * (1 - alpha))
  let avg = none
  if group["centered"] {
    let ga = st["grad_avg"]
    ga.mul_(alpha).add_(g * (1 - alpha))
    avg = (sq - ga * ga).sqrt().add_(group["eps"])
  } else {
    avg = sq.sqrt().add_(group["eps"])
  }
  if momentum > 0 {
    let buf = st["momentum_buffer"]
    buf.mul_(momentum).add_(g / avg)
    p.sub_(buf * group["lr"])
  } else {
    p.sub_(g.div(avg).mul_(group["lr"]))
  }
}

# Adagrad (torch.optim.Adagrad): sum = sum + g^2 and p = p - clr * g / (sqrt(sum) + eps),
# clr = lr / (1 + (step - 1) * lr_decay). As PyTorch's, every parameter's state is made
# at construction (step 0, sum filled with the constructor's initial_accumulator_value,
# which a group's own value does not change, as in PyTorch 1.13); a group added later
# (where PyTorch's fails) starts its sums at its first step, from its own value.
model Adagrad(params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10, maximize=false) {
  """Adagrad: each element's step divided by the root of its summed squared gradients, with lr decay, as torch.optim.Adagrad.

  Example: optim.Adagrad(m.parameters(), lr=1e-2, lr_decay=1e-4)
  """
  defaults = {"lr": lr, "lr_decay": lr_decay, "weight_decay": weight_decay,
              "initial_accumulator_value": initial_accumulator_value, "eps": eps, "maximize": maximize}
  param_groups = _param_groups_of(self, params, defaults)   # Note [The optimizer form] (_optim_groups.dsl)
  params = _all_params(param_groups)
  state = [_adagrad_state(p, initial_accumulator_value) for p in self.params]
  __getattr__(name) = _group_option(self, name)
  __setattr__(name, value) = _set_group_option(self, name, value)
  add_param_group(param_group) { "Adds a group: {'params': [...], hyperparameter: value}. Example: opt.add_param_group({'params': ps, 'lr': 0.01})"; _add_param_group(self, param_group) }
  zero_grad(set_to_none=true) { "Sets every grad to none (or zeros). Example: opt.zero_grad()"; _zero_grad(self.params, set_to_none) }
  step() { "Updates every parameter that has a grad. Example: opt.step()"; _step_groups(self, _adagrad_update) }
  state_dict() { "Every group's hyperparameters and the state, as a flat dict. Example: let sd = opt.state_dict()"; return _state_dict(self) }
  load_state_dict(d) { "Restores a state_dict(). Example: opt.load_state_dict(sd)"; _load_state_dict(self, d) }
}

fn _adagrad_state(p, initial_accumulator_value) = {"step": 0, "sum": full_like(p, initial_accumulator_value)}

fn _adagrad_update(p, g, st, group) {
  let step = _next_step(st, p, fn(p) = {"sum": full_like(p, group["initial_accumulator_value"])})
  if group["weight_decay"] != 0 { g = g + group["weight_decay"] * p }
  let clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
  let sum = st["sum"]
  sum.add_(g * g)
  p.sub_(g.div(sum.sqrt().add_(group["eps"])).mul_(clr))
}

# Adamax (torch.optim.Adamax): Adam with the infinity norm, exp_inf = max(beta2 *
# exp_inf, |g| + eps), p = p - lr / (1 - beta1^t) * exp_avg / exp_inf.
model Adamax(params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, maximize=false) {
  """Adamax: Adam with the second moment replaced by a running infinity norm, as torch.optim.Adamax.

  Example: optim.Adamax(m.parameters(), lr=2e-3)
  """
  defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "maximize": maximize}
  param_groups = _param_groups_of(self, params, defaults)   # Note [The optimizer form] (_optim_groups.dsl)
  params = _all_params(param_groups)
  state = _empty_states(len(self.params))
  __getattr__(name) = _group_option(self, name)
  __setattr__(name, value) = _set_group_option(self, name, value)
  add_param_group(param_group) { "Adds a group: {'params': [...], hyperparameter: value}. Example: opt.add_param_group({'params': ps, 'lr': 0.01})"; _add_param_group(self, param_group) }
  zero_grad(set_to_none=true) { "Sets every grad to none (or zeros). Example: opt.zero_grad()"; _zero_grad(self.params, set_to_none) }
  step() { "Updates every parameter that has a grad. Example: opt.step()"; _step_groups(self, _adamax_update) }
  state_dict() { "Every group's hyperparameters and the state, as a flat dict. Example: let sd = opt.state_dict()"; return _state_dict(self) }
  load_state_dict(d) { "Restores a state_dict(). Example: opt.load_state_dict(sd)"; _load_state_dict(self, d) }
}

fn _adamax_update(p, g, st, group) {
  let beta1 = group["betas"][0]
  let beta2 = group["betas"][1]
  let step = _next_step(st, p, fn(p) = {"exp_avg": zeros_like(p), "exp_inf": zeros_like(p)})
  if group["weight_decay"] != 0 { g = g + group["weight_decay"] * p }
  st["exp_avg"].mul_(beta1).add_(g * (1 - beta1))
  let exp_inf = st["exp_inf"]
  exp_inf.copy_(maximum(exp_inf.mul_(beta2), g.abs().add_(group["eps"])))
  p.sub_(st["exp_avg"].div(exp_inf).mul_(group["lr"] / (1 - beta1 ** step)))
}

# NAdam (torch.optim.NAdam): Adam with Nesterov momentum, whose coefficient mu_t =
# beta1 * (1 - 0.96^(t * momentum_decay) / 2) warms up; mu_product is their product.
# As PyTorch 1.13's, it has no maximize.
model NAdam(params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3) {
  """NAdam: Adam with Nesterov momentum and a momentum warm-up (momentum_decay), as torch.optim.NAdam.

  Example: optim.NAdam(m.parameters(), lr=2e-3)
  """
  defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "momentum_decay": momentum_decay}
  param_groups = _param_groups_of(self, params, defaults)   # Note [The optimizer form] (_optim_groups.dsl)
  params = _all_params(param_groups)
  state = _empty_states(len(self.params))
  __getattr__(name) = _group_option(self, name)
  __setattr__(name, value) = _set_group_option(self, name, value)
  add_param_group(param_group) { "Adds a group: {'params': [...], hyperparameter: value}. Example: opt.add_param_group({'params': ps, 'lr': 0.01})"; _add_param_group(self, param_group) }
  zero_grad(set_to_none=true) { "Sets every grad to none (or zeros). Example: opt.zero_grad()"; _zero_grad(self.params, set_to_none) }
  step() { "Updates every parameter that has a grad. Example: opt.step()"; _step_groups(self, _nadam_update) }
  state_dict() { "Every group's hyperparameters and the state, as a flat dict. Example: let sd = opt.state_dict()"; return _state_dict(self) }
  load_state_dict(d) { "Restores a state_dict(). Example: opt.load_state_dict(sd)"; _load_state_dict(self, d) }
}

fn _nadam_update(p, g, st, group) {
  let beta1 = group["betas"][0]
  let beta2 = group["betas"][1]
  let step = _next_step(st, p, fn(p) = {"mu_product": 1.0, "exp_avg": zeros_like(p), "exp_avg_sq": zeros_like(p)})
  let bias_correction2 = 1 - beta2 ** step
  if group["weight_decay"] != 0 { g = g + group["weight_decay"] * p }
  let mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * group["momentum_decay"]))
  let mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * group["momentum_decay"]))
  st["mu_product"] = st["mu_product"] * mu
  let mu_product_next = st["mu_product"] * mu * mu_next
  st["exp_avg"].mul_(beta1).add_(g * (1 - beta1))
  st["exp_avg_sq"].mul_(beta2).add_(g * g * (1 - beta2))
  let denom = st["exp_avg_sq"].div(bias_correction2).sqrt().add_(group["eps"])
  p.sub_(g.div(denom).mul_(group["lr"] * (1.0 - mu) / (1.0 - st["mu_product"])))
  p.sub_(st["exp_avg"].div(denom).mul_(group["lr"] * mu_next / (1.0 - mu_product_next)))
}

# RAdam (torch.optim.RAdam): Adam whose adaptive step is rectified by the variance of
# its length rho_t; while rho_t <= 5 (the first steps) it steps with the bias-corrected
# momentum alone. As PyTorch 1.13's, it has no maximize.
model RAdam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0) {
  """RAdam: Adam with the variance of the adaptive learning rate rectified, as torch.optim.RAdam.

  Example: optim.RAdam(m.parameters(), lr=1e-3)
  """
  defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay}
  param_groups = _param_groups_of(self, params, defaults)   # Note [The optimizer form] (_optim_groups.dsl)
  params = _all_params(param_groups)
  state = _empty_states(len(self.params))
  __getattr__(name) = _group_option(self, name)
  __setattr__(name, value) = _set_group_option(self, name, value)
  add_param_group(param_group) { "Adds a group: {'params': [...], hyperparameter: value}. Example: opt.add_param_group({'params': ps, 'lr': 0.01})"; _add_param_group(self, param_group) }
  zero_grad(set_to_none=true) { "Sets every grad to none (or zeros). Example: opt.zero_grad()"; _zero_grad(self.params, set_to_none) }
  step() { "Updates every parameter that has a grad. Example: opt.step()"; _step_groups(self, _radam_update) }
  state_dict() { "Every group's hyperparameters and the state, as a flat dict. Example: let sd = opt.state_dict()"; return _state_dict(self) }
  load_state_dict(d) { "Restores a state_dict(). Example: opt.load_state_dict(sd)"; _load_state_dict(self, d) }
}

fn _radam_update(p, g, st, group) {
  let beta1 = group["betas"][0]
  let beta2 = group["betas"][1]
  let step = _next_step(st, p, fn(p) = {"exp_avg": zeros_like(p), "exp_avg_sq": zeros_like(p)})
  let bias_correction1 = 1 - beta1 ** step
  let bias_correction2 = 1 - beta2 ** step
  if group["weight_decay"] != 0 { g = g + group["weight_decay"] * p }
  st["exp_avg"].mul_(beta1).add_(g * (1 - beta1))
  st["exp_avg_sq"].mul_(beta2).add_(g * g * (1 - beta2))
  let corrected = st["exp_avg"] / bias_correction1
  let rho_inf = 2 / (1 - beta2) - 1
  let rho_t = rho_inf - 2 * step * beta2 ** step / bias_correction2
  if rho_t > 5.0 {
    let rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
    let adaptive_lr = math.sqrt(bias_correction2) / st["exp_avg_sq"].sqrt().add_(group["eps"])
    p.sub_(corrected * group["lr"] * adaptive_lr * rect)
  } else {
    p.sub_(corrected * group["lr"])
  }
}

# Adadelta (torch.optim.Adadelta): square_avg = rho * square_avg + (1 - rho) * g^2;
# delta = sqrt(acc_delta + eps) / sqrt(square_avg + eps) * g; acc_delta = rho *
# acc_delta + (1 - rho) * delta^2; p = p - lr * delta.
model Adadelta(params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, maximize=false) {
  """Adadelta: steps scaled by the ratio of running roots of past updates and gradients, as torch.optim.Adadelta.

  Example: optim.Adadelta(m.parameters(), lr=1.0, rho=0.9)
  """
  defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay, "maximize": maximize}
  param_groups = _param_groups_of(self, params, defaults)   # Note [The optimizer form] (_optim_groups.dsl)
  params = _all_params(param_groups)
  state = _empty_states(len(self.params))
  __getattr__(name) = _group_option(self, name)
  __setattr__(name, value) = _set_group_option(self, name, value)
  add_param_group(param_group) { "Adds a group: {'params': [...], hyperparameter: value}. Example: opt.add_param_group({'params': ps, 'lr': 0.01})"; _add_param_group(self, param_group) }
  zero_grad(set_to_none=true) { "Sets every grad to none (or zeros). Example: opt.zero_grad()"; _zero_grad(self.params, set_to_none) }
  step() { "Updates every parameter that has a grad. Example: opt.step()"; _step_groups(self, _adadelta_update) }
  state_dict() { "Every group's hyperparameters and the state, as a flat dict. Example: let sd = opt.state_dict()"; return _state_dict(self) }
  load_state_dict(d) { "Restores a state_dict(). Example: opt.load_state_dict(sd)"; _load_state_dict(self, d) }
}

fn _adadelta_update(p, g, st, group) {
  let rho = group["rho"]
  let eps = group["eps"]
  _next_step(st, p, fn(p) = {"square_avg": zeros_like(p), "acc_delta": zeros_like(p)})
  if group["weight_decay"] != 0 { g = g + group["weight_decay"] * p }
  let square_avg = st["square_avg"]
  let acc_delta = st["acc_delta"]
  square_avg.mul_(rho).add_(g * g * (1 - rho))
  let std = square_avg.add(eps).sqrt()
  let delta = acc_delta.add(eps).sqrt().div_(std).mul_(g)
  acc_delta.mul_(rho).add_(delta * delta * (1 - rho))
  p.sub_(delta * group["lr"])
}

# Rprop (torch.optim.Rprop): each element's step size grows by etaplus while its
# gradient keeps its sign and shrinks by etaminus when it flips (clamped to
# step_sizes); p = p - sign(g) * step_size, no step (and g taken as 0) after a flip.
# The step sizes start at the group's lr.
model Rprop(params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), maximize=false) {
  """Rprop: resilient backpropagation, per-element step sizes adapted to the gradient's sign, as torch.optim.Rprop.

  Example: optim.Rprop(m.parameters(), lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50))
  """
  defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "maximize": maximize}
  param_groups = _param_groups_of(self, params, defaults)   # Note [The optimizer form] (_optim_groups.dsl)
  params = _all_params(param_groups)
  state = _empty_states(len(self.params))
  __getattr__(name) = _group_option(self, name)
  __setattr__(name, value) = _set_group_option(self, name, value)
  add_param_group(param_group) { "Adds a group: {'params': [...], hyperparameter: value}. Example: opt.add_param_group({'params': ps, 'lr': 0.01})"; _add_param_group(self, param_group) }
  zero_grad(set_to_none=true) { "Sets every grad to none (or zeros). Example: opt.zero_grad()"; _zero_grad(self.params, set_to_none) }
  step() { "Updates every parameter that has a grad. Example: opt.step()"; _step_groups(self, _rprop_update) }
  state_dict() { "Every group's hyperparameters and the state, as a flat dict. Example: let sd = opt.state_dict()"; return _state_dict(self) }
  load_state_dict(d) { "Restores a state_dict(). Example: opt.load_state_dict(sd)"; _load_state_dict(self, d) }
}

fn _rprop_update(p, g, st, group) {
  _next_step(st, p, fn(p) = {"prev": zeros_like(p), "step_size": full_like(p, group["lr"])})
  let (etaminus, etaplus) = group["etas"]
  let (step_size_min, step_size_max) = group["step_sizes"]
  let s = g * st["prev"]
  let factor = where(s > 0, tensor(float(etaplus), dtype=p.dtype, device=p.device),
                     where(s < 0, tensor(float(etaminus), dtype=p.dtype, device=p.device), ones_like(p)))
  let step_size = st["step_size"]
  step_size.copy_(minimum(maximum(step_size * factor, step_size_min), step_size_max))
  let kept = where(s < 0, zeros_like(g), g)
  p.sub_(kept.sign() * step_size)
  st["prev"].copy_(kept)
}

# ASGD (torch.optim.ASGD): SGD with p = p * (1 - lambd * eta) - eta * g, and an average
# ax of the iterates from step t0 on; eta = lr / (1 + lambd * lr * t)^alpha and mu =
# 1 / max(1, t - t0) are state (numbers; 0-dim f64 tensors after a compiled step).
model ASGD(params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, maximize=false) {
  """ASGD: averaged stochastic gradient descent (the average in state 'ax'), as torch.optim.ASGD.

  Example: optim.ASGD(m.parameters(), lr=1e-2, t0=100)
  """
  defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0, "weight_decay": weight_decay, "maximize": maximize}
  param_groups = _param_groups_of(self, params, defaults)   # Note [The optimizer form] (_optim_groups.dsl)
  params = _all_params(param_groups)
  state = _empty_states(len(self.params))
  __getattr__(name) = _group_option(self, name)
  __setattr__(name, value) = _set_group_option(self, name, value)
  add_param_group(param_group) { "Adds a group: {'params': [...], hyperparameter: value}. Example: opt.add_param_group({'params': ps, 'lr': 0.01})"; _add_param_group(self, param_group) }
  zero_grad(set_to_none=true) { "Sets every grad to none (or zeros). Example: opt.zero_grad()"; _zero_grad(self.params, set_to_none) }
  step() { "Updates every parameter that has a grad. Example: opt.step()"; _step_groups(self, _asgd_update) }
  state_dict() { "Every group's hyperparameters and the state, as a flat dict. Example: let sd = opt.state_dict()"; return _state_dict(self) }
  load_state_dict(d) { "Restores a state_dict(). Example: opt.load_state_dict(sd)"; _load_state_dict(self, d) }
}

fn _number(v) = v.item() if type(v) == "tensor" else v
# st[k] = v for a number kept as a number or (after a compiled step) a 0-dim tensor.
fn _set_number(st, k, v) {
  if type(st[k]) == "tensor" { st[k].fill_(v) } else { st[k] = v }
}

fn _asgd_update(p, g, st, group) {
  let lr = group["lr"]
  let lambd = group["lambd"]
  let step = _number(_next_step(st, p, fn(p) = {"eta": float(lr), "mu": 1.0, "ax": zeros_like(p)}))
  if group["weight_decay"] != 0 { g = g + group["weight_decay"] * p }
  let eta = _number(st["eta"])
  let mu = _number(st["mu"])
  p.mul_(1 - lambd * eta)
  p.sub_(g * eta)
  let ax = st["ax"]
  if mu != 1 { ax.add_((p - ax) * mu) } else { ax.copy_(p) }
  _set_number(st, "eta", lr / (1 + lambd * lr * step) ** group["alpha"])
  _set_number(st, "mu", 1 / max(1, step - group["t0"]))
}

# LBFGS: stdlib/_optim_lbfgs.dsl (step(closure)).
let LBFGS = _optim_lbfgs.LBFGS
# SparseAdam: stdlib/_optim_sparse.dsl (the rows whose gradient is nonzero).
let SparseAdam = _optim_sparse.SparseAdam

# --- learning-rate schedulers (stdlib/_lr_scheduler.dsl) ------------------------------
# Each takes every group's lr at construction as that group's base lr and sets every
# group's lr from its own base lr at each step().
let StepLR = _lr_scheduler.StepLR
let CosineAnnealingLR = _lr_scheduler.CosineAnnealingLR
let LinearWarmup = _lr_scheduler.LinearWarmup
# PyTorch's path to them, torch.optim.lr_scheduler.StepLR: optim.lr_scheduler.StepLR
# (MultiStepLR, ExponentialLR, LambdaLR, LinearLR, ConstantLR,
# CosineAnnealingWarmRestarts and ReduceLROnPlateau are there too).
let lr_scheduler = _lr_scheduler
let MultiStepLR = _lr_scheduler.MultiStepLR
let ExponentialLR = _lr_scheduler.ExponentialLR
let LambdaLR = _lr_scheduler.LambdaLR
let LinearLR = _lr_scheduler.LinearLR
let ConstantLR = _lr_scheduler.ConstantLR
let CosineAnnealingWarmRestarts = _lr_scheduler.CosineAnnealingWarmRestarts
let ReduceLROnPlateau = _lr_scheduler.ReduceLROnPlateau
# The ones that also cycle momentum (or Adam's beta1) and PolynomialLR, under both paths.
let OneCycleLR = _lr_scheduler.OneCycleLR
let CyclicLR = _lr_scheduler.CyclicLR
let PolynomialLR = _lr_scheduler.PolynomialLR
# Schedulers of schedulers (stdlib/_lr_chain.dsl), under both paths.
let SequentialLR = _lr_scheduler.SequentialLR
let ChainedScheduler = _lr_scheduler.ChainedScheduler

# ---- mixed precision ---------------------------------------------------------------

# GradScaler (stdlib/_optim_scaler.dsl): dynamic loss scaling for 16-bit training.
let GradScaler = _optim_scaler.GradScaler

# torch.optim.swa_utils (stdlib/_optim_swa.dsl): weight averaging (SWA, EMA) and its BatchNorm pass.
let swa_utils = _optim_swa
