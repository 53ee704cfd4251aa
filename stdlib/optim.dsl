# optim: optimizers and learning-rate schedulers with PyTorch's semantics, names and
# defaults, parameter groups included.
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
# stdlib/_lr_scheduler.dsl, the argument checks shared with dist in stdlib/_argcheck.dsl.
#
# Constructors check their arguments at once (not at the first step()): params is a
# non-empty list of floating-point leaf tensors (frozen ones are accepted, as in
# PyTorch), no tensor twice; a group is a dict with "params", hyperparameter keys and
# keys of the user's own (but not near misses of hyperparameters); the ranges are PyTorch's
# (lr >= 0, eps >= 0, 0 <= beta < 1, momentum >= 0, weight_decay >= 0, nesterov only
# with momentum > 0 and dampening 0). Messages name the optimizer, the argument and
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

# --- parameter groups -----------------------------------------------------------------

# What each optimizer's hyperparameters take, in the constructor's order.
let _options = {
  "SGD": {"lr": ">= 0", "momentum": ">= 0", "dampening": "number", "weight_decay": ">= 0",
          "nesterov": "bool", "maximize": "bool"},
  "Adam": {"lr": ">= 0", "betas": "betas", "eps": ">= 0", "weight_decay": ">= 0", "amsgrad": "bool",
           "maximize": "bool"},
  "RMSprop": {"lr": ">= 0", "alpha": ">= 0", "eps": ">= 0", "weight_decay": ">= 0", "momentum": ">= 0",
              "centered": "bool", "maximize": "bool"},
}
_options["AdamW"] = _options["Adam"]

# The items of a list or tuple argument; what: its name in messages.
fn _as_list(who, what, x) {
  if type(x) in ["list", "tuple"] { return list(x) }
  let hint = ""
  if type(x) == "tensor" { hint = " (a single tensor: wrap it, [t])" }
  elif type(x) == "dict" { hint = " (a single parameter group: wrap it, [{...}])" }
  elif type(x) == "method" { hint = " (call the method: m.parameters())" }
  fail(f"{who}: {what} must be a list of tensors or of parameter groups (dicts), got {_argcheck.shown(x)}{hint}")
}

# The tensors of a group, checked; seen: every tensor already in a group (appended to).
fn _group_params(who, what, ps, seen) {
  let items = _as_list(who, what, ps)
  if len(items) == 0 { fail(f"{who}: {what} is empty (no tensor to optimize)") }
  for j in range(len(items)) {
    let p = items[j]
    let at = f"{what}[{j}]"
    if type(p) != "tensor" { fail(f"{who}: {at} must be a tensor, got {_argcheck.shown(p)}") }
    if not p.dtype.is_floating_point { fail(f"{who}: {at} must be a floating-point tensor, got dtype {p.dtype}") }
    if not p.is_leaf { fail(f"{who}: {at} is not a leaf tensor (it was computed from others); optimize the tensors it was computed from") }
    if p in seen { fail(f"{who}: {at} appears twice (a tensor belongs to one parameter group, once)") }
    seen.append(p)
  }
  return items
}

# One group from a spec dict: its params and every hyperparameter, the spec's or the
# constructor's (defaults). where: the spec's name in messages.
fn _make_group(who, where, spec, defaults, kinds, seen) {
  if type(spec) != "dict" { fail(f"{who}: {where} must be a dict with a 'params' key, got {_argcheck.shown(spec)}") }
  if not ("params" in spec) {
    fail(f"{who}: {where} has no 'params' key (a parameter group is {{'params': [tensors], 'lr': ...}})")
  }
  for k in spec {
    if k != "params" and not (k in kinds) { _check_extra_key(who, where, k, kinds) }
  }
  _argcheck.check_options(who, where, spec, kinds)
  # A group's params may be one tensor, as PyTorch's ({"params": model.weight}).
  let ps = [spec["params"]] if type(spec["params"]) == "tensor" else spec["params"]
  return _fill_group(who, where + ": ", {"params": _group_params(who, f"{where}['params']", ps, seen)}, spec, defaults)
}

# A group key this optimizer has no hyperparameter for. As in PyTorch, a group may carry
# keys of the user's own ("name": "encoder"), kept with the group; but a key that is a
# hyperparameter of another optimizer (betas given to SGD) or a near miss of one of
# this optimizer's (learning_rate, lrr) would be silently ignored, so it is an error.
fn _check_extra_key(who, where, k, kinds) {
  let valid = ['params'] + list(kinds)
  let hint = did_you_mean(k, valid)
  let elsewhere = false
  for name in _options { if k in _options[name] { elsewhere = true } }
  if hint != "" or elsewhere {
    let why = hint if hint != "" else "; it is another optimizer's hyperparameter"
    fail(f"{who}: {where} has the key {_argcheck.shown(k)}, which this optimizer does not take{why} (its keys: {_argcheck.joined(valid)})")
  }
}

# group (its params already in) with every hyperparameter, spec's own or the default.
fn _fill_group(who, where, group, spec, defaults) {
  for k in defaults { group[k] = spec[k] if k in spec else defaults[k] }
  for k in spec { if not (k in group) { group[k] = spec[k] } }
  if "nesterov" in group and group["nesterov"] and (group["momentum"] <= 0 or group["dampening"] != 0) {
    fail(f"{who}: {where}nesterov=true needs momentum > 0 and dampening 0, got momentum={group['momentum']}, dampening={group['dampening']}")
  }
  return group
}

# An optimizer's param_groups from its params argument (a list of tensors or of group
# dicts) and its constructor's hyperparameters, everything checked.
fn _param_groups(who, params, defaults, kinds) {
  _argcheck.check_options(who, "", defaults, kinds)
  let items = _as_list(who, "params", params)
  if len(items) == 0 { fail(f"{who}: params is empty (no tensor to optimize; pass e.g. m.parameters())") }
  let seen = []
  let dicts = 0
  for x in items { if type(x) == "dict" { dicts = dicts + 1 } }
  if dicts == 0 { return [_fill_group(who, "", {"params": _group_params(who, "params", items, seen)}, {}, defaults)] }
  if dicts < len(items) { fail(f"{who}: params mixes tensors and parameter groups (dicts); give a list of one kind") }
  let groups = []
  for i in range(len(items)) { groups.append(_make_group(who, f"params[{i}]", items[i], defaults, kinds, seen)) }
  return groups
}

fn _all_params(groups) {
  let out = []
  for g in groups { for p in g["params"] { out.append(p) } }
  return out
}

fn _empty_states(n) {
  let states = []
  for i in range(n) { states.append({}) }
  return states
}

fn _add_param_group(opt, spec) {
  let who = f"optim.{type(opt)}.add_param_group()"
  let seen = list(opt.params)
  let group = _make_group(who, "param_group", spec, opt.defaults, _options[type(opt)], seen)
  opt.param_groups.append(group)
  for p in group["params"] {
    opt.params.append(p)
    opt.state.append({})
  }
}

# opt.NAME for a hyperparameter: group 0's value (the optimizers' __getattr__).
fn _group_option(opt, name) {
  if name in opt.defaults { return opt.param_groups[0][name] }
  fail(f"optim.{type(opt)} has no attribute '{name}' (its hyperparameters: {_argcheck.joined(list(opt.defaults))})")
}

# opt.NAME = v for a hyperparameter: checked, then set in every group (__setattr__).
fn _set_group_option(opt, name, v) {
  let kinds = _options[type(opt)]
  if not (name in kinds) {
    fail(f"optim.{type(opt)}: cannot set '{name}': not a field or hyperparameter (its hyperparameters: {_argcheck.joined(list(kinds))})")
  }
  _argcheck.check_option(f"optim.{type(opt)}", name, kinds[name], v)
  for g in opt.param_groups { g[name] = v }
}

# --- shared helpers -------------------------------------------------------------------

# set_to_none=false zeroes the existing grads in place instead.
fn _zero_grad(params, set_to_none) {
  for p in params {
    if set_to_none { p.grad = none } elif p.grad != none { p.grad.zero_() }
  }
}

# One step of opt: update(p, grad, state, group) for every parameter with a grad
# (negated when its group maximizes), under no_grad.
fn _step_groups(opt, update) {
  _step_group_lists(opt, fn(ps, gs, sts, group) = _each_param(update, ps, gs, sts, group))
}

fn _each_param(update, ps, gs, sts, group) {
  for k in range(len(ps)) { update(ps[k], gs[k], sts[k], group) }
}

# One step of opt a group at a time: update_group(params, grads, states, group) with
# the group's parameters that have a grad, their grads (negated when the group
# maximizes) and states, under no_grad (multi-tensor kernels take a group at once).
fn _step_group_lists(opt, update_group) {
  _check_groups_kept(opt)
  no_grad {
    let i = 0
    for group in opt.param_groups {
      let ps = []
      let gs = []
      let sts = []
      for p in group["params"] {
        if p.grad != none {
          ps.append(p)
          gs.append(-p.grad if group["maximize"] else p.grad)
          sts.append(opt.state[i])
        }
        i = i + 1
      }
      update_group(ps, gs, sts, group)
    }
  }
}

# The state is kept per parameter in opt.params' order: a tensor put into a group's
# "params" list by hand would get another's state, so it is an error.
fn _check_groups_kept(opt) {
  let n = 0
  for g in opt.param_groups { n = n + len(g["params"]) }
  if n != len(opt.params) {
    fail(f"optim.{type(opt)}.step(): the parameter groups hold {n} tensors, the optimizer was given {len(opt.params)} (add tensors with add_param_group(), not to a group's 'params')")
  }
}

fn _copied(v) = v.detach().clone() if type(v) == "tensor" else v

# The flat state dict (see the header): "betas" is stored as "beta1" and "beta2".
fn _state_dict(opt) {
  let d = {}
  for k in range(len(opt.param_groups)) {
    let prefix = "" if k == 0 else f"param_groups.{k}."
    let g = opt.param_groups[k]
    for name in g {
      if name == "betas" {
        d[prefix + "beta1"] = g["betas"][0]
        d[prefix + "beta2"] = g["betas"][1]
      } elif name != "params" {
        d[prefix + name] = g[name]
      }
    }
  }
  for i in range(len(opt.state)) {
    let st = opt.state[i]
    for k in st { d[f"state.{i}.{k}"] = _copied(st[k]) }
  }
  return d
}

# How many parameter groups a flat state dict describes.
fn _groups_in(d) {
  let n = 1
  for k in d {
    if k.startswith("param_groups.") { n = max(n, int(k.split(".")[1]) + 1) }
  }
  return n
}

fn _load_state_dict(opt, d) {
  let who = f"optim.{type(opt)}.load_state_dict()"
  let n = _groups_in(d)
  if n != len(opt.param_groups) {
    fail(f"{who}: the state dict has {n} parameter group(s), the optimizer {len(opt.param_groups)}")
  }
  for k in range(n) {
    let prefix = "" if k == 0 else f"param_groups.{k}."
    let g = opt.param_groups[k]
    for name in g {
      if name == "betas" {
        g["betas"] = (_argcheck.loaded(who, d, prefix + "beta1"), _argcheck.loaded(who, d, prefix + "beta2"))
      } elif name != "params" {
        g[name] = _argcheck.loaded(who, d, prefix + name)
      }
    }
  }
  opt.state = _load_states(who, d, len(opt.params))
}

# The per-parameter states of a state dict, for n parameters.
fn _load_states(who, d, n) {
  let states = _empty_states(n)
  for k in d {
    if k.startswith("state.") {
      let parts = k.split(".")
      let i = int(parts[1])
      if i >= n { fail(f"{who}: '{k}' names parameter {i}, the optimizer has {n}") }
      states[i][parts[2]] = _copied(d[k])
    }
  }
  return states
}

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
  param_groups = _param_groups("optim.SGD()", params, defaults, _options["SGD"])
  params = _all_params(param_groups)
  state = _empty_states(len(_all_params(param_groups)))  # not the argument `params`: a group holds several

  __getattr__(name) = _group_option(self, name)
  __setattr__(name, value) = _set_group_option(self, name, value)
  add_param_group(param_group) {
    "Adds a group: {'params': [...], hyperparameter: value}. Example: opt.add_param_group({'params': ps, 'lr': 0.01})"
    _add_param_group(self, param_group)
  }
  zero_grad(set_to_none=true) {
    "Sets every grad to none (or zeros). Example: opt.zero_grad()"
    _zero_grad(self.params, set_to_none)
  }
  step() { "Updates every parameter that has a grad. Example: opt.step()"; _step_group_lists(self, _sgd_group_step) }
  state_dict() {
    "Every group's hyperparameters and the state, as a flat dict. Example: let sd = opt.state_dict()"
    return _state_dict(self)
  }
  load_state_dict(d) {
    "Restores a state_dict(). Example: opt.load_state_dict(sd)"
    _load_state_dict(self, d)
  }
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
# (zeros) at the first step.
fn _adam_advance(p, st, amsgrad) {
  if "step" in st and type(st["step"]) == "tensor" {
    st["step"].add_(1)
  } elif "step" in st {
    st["step"] = st["step"] + 1
  } else {
    st["step"] = 1
    st["exp_avg"] = zeros_like(p)
    st["exp_avg_sq"] = zeros_like(p)
    if amsgrad { st["max_exp_avg_sq"] = zeros_like(p) }
  }
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
  for k in range(len(ps)) { _adam_advance(ps[k], sts[k], amsgrad) }
  let lr = group["lr"]
  let beta1 = group["betas"][0]
  let beta2 = group["betas"][1]
  let eps = group["eps"]
  let wd = group["weight_decay"]
  if len(ps) > 0 and not amsgrad and _fused[0] {
    let ms = []
    let vs = []
    let steps = []
    for st in sts {
      ms.append(st["exp_avg"])
      vs.append(st["exp_avg_sq"])
      steps.append(_step_count(st))
    }
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
  param_groups = _param_groups("optim.Adam()", params, defaults, _options["Adam"])
  params = _all_params(param_groups)
  state = _empty_states(len(_all_params(param_groups)))  # not the argument `params`: a group holds several

  __getattr__(name) = _group_option(self, name)
  __setattr__(name, value) = _set_group_option(self, name, value)
  add_param_group(param_group) {
    "Adds a group: {'params': [...], hyperparameter: value}. Example: opt.add_param_group({'params': ps, 'lr': 0.01})"
    _add_param_group(self, param_group)
  }
  zero_grad(set_to_none=true) {
    "Sets every grad to none (or zeros). Example: opt.zero_grad()"
    _zero_grad(self.params, set_to_none)
  }
  step() { "Updates every parameter that has a grad. Example: opt.step()"; _step_group_lists(self, _adam_groups) }
  state_dict() {
    "Every group's hyperparameters and the state, as a flat dict. Example: let sd = opt.state_dict()"
    return _state_dict(self)
  }
  load_state_dict(d) {
    "Restores a state_dict(). Example: opt.load_state_dict(sd)"
    _load_state_dict(self, d)
  }
}

# AdamW (torch.optim.AdamW): decoupled weight decay, p = p * (1 - lr * weight_decay).
model AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=false, maximize=false) {
  """Adam with decoupled weight decay (p *= 1 - lr * weight_decay), as torch.optim.AdamW.

  Example: optim.AdamW(m.parameters(), lr=1e-3, weight_decay=1e-2)
  """
  defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "amsgrad": amsgrad,
              "maximize": maximize}
  param_groups = _param_groups("optim.AdamW()", params, defaults, _options["AdamW"])
  params = _all_params(param_groups)
  state = _empty_states(len(_all_params(param_groups)))  # not the argument `params`: a group holds several

  __getattr__(name) = _group_option(self, name)
  __setattr__(name, value) = _set_group_option(self, name, value)
  add_param_group(param_group) {
    "Adds a group: {'params': [...], hyperparameter: value}. Example: opt.add_param_group({'params': ps, 'lr': 0.01})"
    _add_param_group(self, param_group)
  }
  zero_grad(set_to_none=true) {
    "Sets every grad to none (or zeros). Example: opt.zero_grad()"
    _zero_grad(self.params, set_to_none)
  }
  step() { "Updates every parameter that has a grad. Example: opt.step()"; _step_group_lists(self, _adamw_groups) }
  state_dict() {
    "Every group's hyperparameters and the state, as a flat dict. Example: let sd = opt.state_dict()"
    return _state_dict(self)
  }
  load_state_dict(d) {
    "Restores a state_dict(). Example: opt.load_state_dict(sd)"
    _load_state_dict(self, d)
  }
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
  param_groups = _param_groups("optim.RMSprop()", params, defaults, _options["RMSprop"])
  params = _all_params(param_groups)
  state = _empty_states(len(_all_params(param_groups)))  # not the argument `params`: a group holds several

  __getattr__(name) = _group_option(self, name)
  __setattr__(name, value) = _set_group_option(self, name, value)
  add_param_group(param_group) {
    "Adds a group: {'params': [...], hyperparameter: value}. Example: opt.add_param_group({'params': ps, 'lr': 0.01})"
    _add_param_group(self, param_group)
  }
  zero_grad(set_to_none=true) {
    "Sets every grad to none (or zeros). Example: opt.zero_grad()"
    _zero_grad(self.params, set_to_none)
  }
  step() {
    "Updates every parameter that has a grad. Example: opt.step()"
    _step_groups(self, _rmsprop_update)
  }
  state_dict() {
    "Every group's hyperparameters and the state, as a flat dict. Example: let sd = opt.state_dict()"
    return _state_dict(self)
  }
  load_state_dict(d) {
    "Restores a state_dict(). Example: opt.load_state_dict(sd)"
    _load_state_dict(self, d)
  }
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

# ---- mixed precision ---------------------------------------------------------------

# GradScaler(init_scale=65536, growth_factor=2, backoff_factor=0.5, growth_interval=2000):
# dynamic loss scaling for 16-bit training (PyTorch's torch.cuda.amp.GradScaler):
#   scaler.scale(loss).backward()   # gradients of loss * scale
#   scaler.step(opt)                # unscales them; skips the step on Inf/NaN
#   scaler.update()                 # halves the scale after Inf/NaN, doubles it
#                                   # after growth_interval clean steps
# The scale and the count of clean steps are 0-dim tensors (f32, i64), as PyTorch's,
# moved to the loss's device at the first scale(): a compiled step with the scaler
# inside (compile(..., scaler=scaler), stdlib/_optim_graph.dsl) updates them on the
# device, and eager steps read the same ones.
model GradScaler(init_scale=65536.0, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000) {
  """Dynamic loss scaling for 16-bit training: scales the loss, unscales the grads and skips steps with Inf or NaN, as torch.cuda.amp.GradScaler.

  Example: scaler.scale(loss).backward(); scaler.step(opt); scaler.update()
  """
  let _checked = _argcheck.check_options("optim.GradScaler()", "",
                                {"init_scale": init_scale, "growth_factor": growth_factor,
                                 "backoff_factor": backoff_factor, "growth_interval": growth_interval},
                                {"init_scale": "> 0", "growth_factor": "> 1", "backoff_factor": "in (0, 1)",
                                 "growth_interval": "int > 0"})
  growth = growth_factor
  backoff = backoff_factor
  interval = growth_interval
  _scale = tensor(float(init_scale), dtype=f32)
  _growth_tracker = tensor(0, dtype=i64)
  found_inf = false
  unscaled = false
  scale(loss) {
    "loss times the scale. Example: scaler.scale(loss).backward()"
    self._to(loss.device)
    return loss * self._scale
  }
  _to(device) {
    if self._scale.device != device {
      self._scale = self._scale.to(device)
      self._growth_tracker = self._growth_tracker.to(device)
    }
  }
  _inverse_scale() = 1.0 / self._scale
  get_scale() { "The current scale. Example: print(scaler.get_scale())"; return self._scale.item() }
  unscale_(opt) {
    "Divides every grad of opt's parameters by the scale (once per step) and notes Inf/NaN. Example: scaler.unscale_(opt); nn.clip_grad_norm_(m.parameters(), 1.0)"
    _argcheck.check_optimizer("optim.GradScaler.unscale_()", opt)
    if self.unscaled { return none }
    no_grad {
      let inv = self._inverse_scale()
      for p in opt.params {
        if p.grad != none {
          p.grad.mul_(inv)
          if not _all_finite(p.grad) { self.found_inf = true }
        }
      }
    }
    self.unscaled = true
  }
  step(opt) {
    "opt.step() on the unscaled grads unless one held Inf or NaN; returns whether it stepped. Example: scaler.step(opt)"
    self.unscale_(_argcheck.check_optimizer("optim.GradScaler.step()", opt))
    if self.found_inf { return false }
    opt.step()
    return true
  }
  update() {
    "Halves the scale after an Inf/NaN step, doubles it after growth_interval clean ones. Example: scaler.update()"
    no_grad { self._update_scale(tensor(1.0 if self.found_inf else 0.0, device=self._scale.device)) }
    self.found_inf = false
    self.unscaled = false
  }
  # The scale's schedule as tensor ops, which a compiled step records: found (0-dim,
  # nonzero after Inf/NaN) halves the scale and restarts the count of clean steps;
  # the growth_interval-th clean step in a row doubles it.
  _update_scale(found) {
    let bad = found != 0
    let clean = where(bad, zeros_like(self._growth_tracker), self._growth_tracker + 1)
    let grow = clean >= self.interval
    let s = self._scale
    self._scale.copy_(where(bad, s * self.backoff, where(grow, s * self.growth, s)))
    self._growth_tracker.copy_(where(grow, zeros_like(clean), clean))
  }
  state_dict() {
    "The scale and its schedule, as a dict. Example: save(scaler.state_dict(), \"scaler.nabla\")"
    return {"scale": self.get_scale(), "growth_factor": self.growth, "backoff_factor": self.backoff,
            "growth_interval": self.interval, "clean_steps": self._growth_tracker.item()}
  }
  load_state_dict(d) {
    "Restores the scale and the count of clean steps from state_dict(). Example: scaler.load_state_dict(d)"
    self._scale.fill_(d["scale"])
    self._growth_tracker.fill_(d["clean_steps"])
  }
}

# Whether t holds no Inf and no NaN (NaN is the one value unequal to itself).
let _inf = 1e308 * 10.0
fn _all_finite(t) = sum(ne(t, t)).item() == 0 and sum(eq(abs(t), _inf)).item() == 0
