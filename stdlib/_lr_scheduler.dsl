# _lr_scheduler: optim's learning-rate schedulers (optim.StepLR, optim.CosineAnnealingLR,
# optim.LinearWarmup, optim.OneCycleLR, optim.CyclicLR, optim.PolynomialLR, and under
# PyTorch's path optim.lr_scheduler.* all of them and MultiStepLR, ExponentialLR,
# LambdaLR, LinearLR, ConstantLR, CosineAnnealingWarmRestarts, ReduceLROnPlateau, and
# the schedulers of schedulers SequentialLR and ChainedScheduler, which live in
# stdlib/_lr_chain.dsl; import optim to use them).
let __name__ = "optim.lr_scheduler"  # the name messages show (Module::shown_name)

import math
import _argcheck
import _lr_chain

let SequentialLR = _lr_chain.SequentialLR
let ChainedScheduler = _lr_chain.ChainedScheduler

# Each takes every group's lr at construction as that group's base lr (base_lrs), sets
# the lrs of epoch 0 at once (as PyTorch does), and on step() advances last_epoch by one
# and sets each group's lr to the closed form below, lr_at(base_lr, last_epoch, k), from
# its own base lr (k, the group: LambdaLR's functions may differ by group). get_last_lr() returns every group's lr, as PyTorch's; get_lr() group 0's.
# Those whose PyTorch get_lr() is chainable (it moves the group's current lr: StepLR,
# MultiStepLR, ExponentialLR, LinearLR, ConstantLR, PolynomialLR, CosineAnnealingLR and
# LinearWarmup) also have that form, chained_lr(lr, base_lr, e, k), which
# optim.SequentialLR and optim.ChainedScheduler step them by (stdlib/_lr_chain.dsl);
# the others' PyTorch forms set the lr outright, as lr_at does.
# state_dict() / load_state_dict(d) hold base_lrs and last_epoch (a state dict with a
# single "base_lr" loads too).

fn _group_lrs(opt) {
  let out = []
  for g in opt.param_groups { out.append(g["lr"]) }
  return out
}

# Sets every group's lr to the scheduler's value for its epoch, and its momentum too
# when the scheduler cycles it (OneCycleLR, CyclicLR: below).
fn _apply_lrs(s) {
  let groups = s.optimizer.param_groups
  for k in range(len(groups)) { groups[k]["lr"] = s.lr_at(s.base_lrs[k], s.last_epoch, k) }
  if getattr(s, "cycle_momentum", false) { _apply_momenta(s) }
}

fn _sched_step(s) {
  s.last_epoch = s.last_epoch + 1
  _apply_lrs(s)
  if getattr(s, "verbose", false) {
    let groups = s.optimizer.param_groups
    for k in range(len(groups)) { print(f"Adjusting learning rate of group {k} to {groups[k]['lr']:.4e}.") }
  }
}


fn _sched_state(s) = {"base_lrs": list(s.base_lrs), "last_epoch": s.last_epoch}

# Every value is checked before any is set (a bad dict leaves the scheduler as it was).
fn _sched_load(s, d) {
  let who = f"optim.{type(s)}.load_state_dict()"
  _argcheck.check_state_dict(who, d)
  let base_lrs = d["base_lrs"] if "base_lrs" in d else [_argcheck.loaded(who, d, "base_lr")]
  let n = len(s.optimizer.param_groups)
  if not (type(base_lrs) in ["list", "tuple"]) {
    fail(f"{who}: the state dict's 'base_lrs' must be a list of numbers, one per parameter group, got {_argcheck.shown(base_lrs)}")
  }
  if len(base_lrs) != n { fail(f"{who}: the state dict has {len(base_lrs)} base lr(s), the optimizer {n} parameter group(s)") }
  for k in range(n) { _argcheck.check_option(who, f"base_lrs[{k}]", ">= 0", base_lrs[k]) }
  let last_epoch = _argcheck.loaded_like(who, d, "last_epoch", s.last_epoch)
  s.base_lrs = list(base_lrs)
  s.last_epoch = last_epoch
  _apply_lrs(s)
}

# StepLR: lr = base_lr * gamma ** (last_epoch // step_size).
model StepLR(optimizer, step_size, gamma=0.1, last_epoch=-1, verbose=false) {
  """Multiplies every group's base lr by gamma once every step_size epochs, as torch.optim.lr_scheduler.StepLR.

  Example: let sched = optim.StepLR(opt, step_size=30, gamma=0.1)
  """
  optimizer = _argcheck.check_optimizer("optim.StepLR()", optimizer)
  step_size = step_size
  gamma = gamma
  let _checked = _argcheck.check_options("optim.StepLR()", "", {"step_size": step_size, "gamma": gamma},
                                {"step_size": "int > 0", "gamma": "number"})
  base_lrs = _group_lrs(optimizer)
  verbose = _argcheck.check_scheduler_start("optim.StepLR()", last_epoch, verbose)
  last_epoch = 0
  get_lr() { "Group 0's current lr. Example: sched.get_lr()"; return self.optimizer.param_groups[0]["lr"] }
  get_last_lr() {
    "Every group's current lr, as a list. Example: sched.get_last_lr()"
    return _group_lrs(self.optimizer)
  }
  lr_at(base_lr, e, k=0) {
    "The lr at epoch e from base_lr (of group k). Example: sched.lr_at(0.1, 60)"
    return base_lr * self.gamma ** (e // self.step_size)
  }
  chained_lr(lr, base_lr, e, k=0) = lr * self.gamma if e > 0 and e % self.step_size == 0 else lr
  step() { "Advances last_epoch and sets every group's lr. Example: sched.step()"; _sched_step(self) }
  state_dict() {
    "base_lrs and last_epoch, as a dict. Example: let sd = sched.state_dict()"
    return _sched_state(self)
  }
  load_state_dict(d) {
    "Restores a state_dict() and its lrs. Example: sched.load_state_dict(sd)"
    _sched_load(self, d)
  }
}

# CosineAnnealingLR: lr = eta_min + (base_lr - eta_min) * (1 + cos(pi * last_epoch / T_max)) / 2.
model CosineAnnealingLR(optimizer, T_max, eta_min=0, last_epoch=-1, verbose=false) {
  """Anneals every group's lr from its base lr to eta_min along a half cosine over T_max epochs, as PyTorch's.

  Example: let sched = optim.CosineAnnealingLR(opt, T_max=100, eta_min=1e-5)
  """
  optimizer = _argcheck.check_optimizer("optim.CosineAnnealingLR()", optimizer)
  T_max = T_max
  eta_min = eta_min
  let _checked = _argcheck.check_options("optim.CosineAnnealingLR()", "", {"T_max": T_max, "eta_min": eta_min},
                                {"T_max": "> 0", "eta_min": "number"})
  base_lrs = _group_lrs(optimizer)
  verbose = _argcheck.check_scheduler_start("optim.CosineAnnealingLR()", last_epoch, verbose)
  last_epoch = 0
  get_lr() { "Group 0's current lr. Example: sched.get_lr()"; return self.optimizer.param_groups[0]["lr"] }
  get_last_lr() {
    "Every group's current lr, as a list. Example: sched.get_last_lr()"
    return _group_lrs(self.optimizer)
  }
  lr_at(base_lr, e, k=0) {
    "The lr at epoch e from base_lr (of group k). Example: sched.lr_at(0.1, 50)"
    return self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(math.pi * e / self.T_max)) / 2
  }
  chained_lr(lr, base_lr, e, k=0) {
    if e == 0 { return lr }
    if (e - 1 - self.T_max) % (2 * self.T_max) == 0 {
      return lr + (base_lr - self.eta_min) * (1 - math.cos(math.pi / self.T_max)) / 2
    }
    return (1 + math.cos(math.pi * e / self.T_max)) / (1 + math.cos(math.pi * (e - 1) / self.T_max)) * (lr - self.eta_min) + self.eta_min
  }
  step() { "Advances last_epoch and sets every group's lr. Example: sched.step()"; _sched_step(self) }
  state_dict() {
    "base_lrs and last_epoch, as a dict. Example: let sd = sched.state_dict()"
    return _sched_state(self)
  }
  load_state_dict(d) {
    "Restores a state_dict() and its lrs. Example: sched.load_state_dict(sd)"
    _sched_load(self, d)
  }
}

# LinearWarmup: lr = base_lr * min(1, (last_epoch + 1) / warmup_steps): base_lr /
# warmup_steps at construction, reaching base_lr after warmup_steps - 1 steps and
# staying there. It is PyTorch's LinearLR(start_factor=1/warmup_steps, end_factor=1,
# total_iters=warmup_steps-1).
model LinearWarmup(optimizer, warmup_steps) {
  """Ramps every group's lr linearly from base_lr / warmup_steps up to base_lr over warmup_steps epochs.

  Example: let sched = optim.LinearWarmup(opt, warmup_steps=500)
  """
  optimizer = _argcheck.check_optimizer("optim.LinearWarmup()", optimizer)
  warmup_steps = warmup_steps
  let _checked = _argcheck.check_option("optim.LinearWarmup()", "warmup_steps", "int > 0", warmup_steps)
  base_lrs = _group_lrs(optimizer)
  last_epoch = 0
  let _started = _apply_lrs(self)
  get_lr() { "Group 0's current lr. Example: sched.get_lr()"; return self.optimizer.param_groups[0]["lr"] }
  get_last_lr() {
    "Every group's current lr, as a list. Example: sched.get_last_lr()"
    return _group_lrs(self.optimizer)
  }
  lr_at(base_lr, e, k=0) {
    "The lr at epoch e from base_lr (of group k). Example: sched.lr_at(0.1, 3)"
    return base_lr * min(1.0, (e + 1) / self.warmup_steps)
  }
  chained_lr(lr, base_lr, e, k=0) = _linear_chained(lr, e, 1.0 / self.warmup_steps, 1.0, self.warmup_steps - 1)
  step() { "Advances last_epoch and sets every group's lr. Example: sched.step()"; _sched_step(self) }
  state_dict() {
    "base_lrs and last_epoch, as a dict. Example: let sd = sched.state_dict()"
    return _sched_state(self)
  }
  load_state_dict(d) {
    "Restores a state_dict() and its lrs. Example: sched.load_state_dict(sd)"
    _sched_load(self, d)
  }
}

# ---- more of PyTorch's schedulers -----------------------------------------------------
# Each is its closed form lr_at(base_lr, last_epoch), as PyTorch's chainable forms give
# when nothing else changes the lrs (and, where PyTorch's is chainable, that form,
# chained_lr); get_lr, get_last_lr, step, state_dict and load_state_dict as above.

fn _first_lr(s) = s.optimizer.param_groups[0]["lr"]

# LinearLR's chainable form (LinearWarmup's too): the factor's step from e - 1 to e.
fn _linear_chained(lr, e, start, end, total) {
  if e == 0 { return lr * start }
  if e > total { return lr }
  return lr * (1.0 + (end - start) / (total * start + (e - 1) * (end - start)))
}

# MultiStepLR: lr = base_lr * gamma ** (how many milestones are <= last_epoch).
model MultiStepLR(optimizer, milestones, gamma=0.1, last_epoch=-1, verbose=false) {
  """Multiplies every group's base lr by gamma at each milestone epoch, as torch.optim.lr_scheduler.MultiStepLR.

  Example: let sched = optim.lr_scheduler.MultiStepLR(opt, milestones=[30, 80], gamma=0.1)
  """
  optimizer = _argcheck.check_optimizer("optim.MultiStepLR()", optimizer)
  milestones = sorted(_milestones("optim.MultiStepLR()", milestones))
  gamma = gamma
  let _checked = _argcheck.check_option("optim.MultiStepLR()", "gamma", "number", gamma)
  base_lrs = _group_lrs(optimizer)
  verbose = _argcheck.check_scheduler_start("optim.MultiStepLR()", last_epoch, verbose)
  last_epoch = 0
  get_lr() = _first_lr(self)
  lr_at(base_lr, e, k=0) = base_lr * self.gamma ** len([m for m in self.milestones if m <= e])
  chained_lr(lr, base_lr, e, k=0) = lr * self.gamma ** len([m for m in self.milestones if m == e])
  get_last_lr() = _group_lrs(self.optimizer)
  step() = _sched_step(self)
  state_dict() = _sched_state(self)
  load_state_dict(d) = _sched_load(self, d)
}

# ExponentialLR: lr = base_lr * gamma ** last_epoch.
model ExponentialLR(optimizer, gamma, last_epoch=-1, verbose=false) {
  """Multiplies every group's lr by gamma every epoch, as torch.optim.lr_scheduler.ExponentialLR.

  Example: let sched = optim.lr_scheduler.ExponentialLR(opt, gamma=0.95)
  """
  optimizer = _argcheck.check_optimizer("optim.ExponentialLR()", optimizer)
  gamma = gamma
  let _checked = _argcheck.check_option("optim.ExponentialLR()", "gamma", "number", gamma)
  base_lrs = _group_lrs(optimizer)
  verbose = _argcheck.check_scheduler_start("optim.ExponentialLR()", last_epoch, verbose)
  last_epoch = 0
  get_lr() = _first_lr(self)
  lr_at(base_lr, e, k=0) = base_lr * self.gamma ** e
  chained_lr(lr, base_lr, e, k=0) = lr * self.gamma if e > 0 else lr
  get_last_lr() = _group_lrs(self.optimizer)
  step() = _sched_step(self)
  state_dict() = _sched_state(self)
  load_state_dict(d) = _sched_load(self, d)
}

# LambdaLR: lr = base_lr * lr_lambda(last_epoch) (one function, or one per group).
model LambdaLR(optimizer, lr_lambda, last_epoch=-1, verbose=false) {
  """Sets every group's lr to its base lr times lr_lambda(epoch), as torch.optim.lr_scheduler.LambdaLR.

  Example: let sched = optim.lr_scheduler.LambdaLR(opt, fn(epoch) = 0.95 ** epoch)
  """
  optimizer = _argcheck.check_optimizer("optim.LambdaLR()", optimizer)
  lr_lambdas = _lr_functions("optim.LambdaLR()", optimizer, lr_lambda)
  base_lrs = _group_lrs(optimizer)
  verbose = _argcheck.check_scheduler_start("optim.LambdaLR()", last_epoch, verbose)
  last_epoch = 0
  let _started = _apply_lrs(self)
  get_lr() = _first_lr(self)
  lr_at(base_lr, e, k=0) = base_lr * _lambda_factor("optim.LambdaLR", self.lr_lambdas, k, e)
  get_last_lr() = _group_lrs(self.optimizer)
  step() = _sched_step(self)
  state_dict() = _sched_state(self)
  load_state_dict(d) = _sched_load(self, d)
}

# LinearLR: lr = base_lr * (start_factor + (end_factor - start_factor) * min(e, total_iters) / total_iters).
model LinearLR(optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1, verbose=false) {
  """Scales every group's lr by a factor moving linearly from start_factor to end_factor over total_iters epochs, as PyTorch's.

  Example: let sched = optim.lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=100)
  """
  optimizer = _argcheck.check_optimizer("optim.LinearLR()", optimizer)
  start_factor = start_factor
  end_factor = end_factor
  total_iters = total_iters
  let _checked = _argcheck.check_options("optim.LinearLR()", "",
                                {"start_factor": start_factor, "end_factor": end_factor, "total_iters": total_iters},
                                {"start_factor": "in (0, 1]", "end_factor": "in [0, 1]", "total_iters": "int > 0"})
  base_lrs = _group_lrs(optimizer)
  verbose = _argcheck.check_scheduler_start("optim.LinearLR()", last_epoch, verbose)
  last_epoch = 0
  let _started = _apply_lrs(self)
  get_lr() = _first_lr(self)
  lr_at(base_lr, e, k=0) = base_lr * (self.start_factor + (self.end_factor - self.start_factor) * min(e, self.total_iters) / self.total_iters)
  chained_lr(lr, base_lr, e, k=0) = _linear_chained(lr, e, self.start_factor, self.end_factor, self.total_iters)
  get_last_lr() = _group_lrs(self.optimizer)
  step() = _sched_step(self)
  state_dict() = _sched_state(self)
  load_state_dict(d) = _sched_load(self, d)
}

# ConstantLR: lr = base_lr * factor for the first total_iters epochs, then base_lr.
model ConstantLR(optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1, verbose=false) {
  """Scales every group's lr by factor until epoch total_iters, as torch.optim.lr_scheduler.ConstantLR.

  Example: let sched = optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=4)
  """
  optimizer = _argcheck.check_optimizer("optim.ConstantLR()", optimizer)
  factor = factor
  total_iters = total_iters
  let _checked = _argcheck.check_option("optim.ConstantLR()", "factor", "in [0, 1]", factor)
  base_lrs = _group_lrs(optimizer)
  verbose = _argcheck.check_scheduler_start("optim.ConstantLR()", last_epoch, verbose)
  last_epoch = 0
  let _started = _apply_lrs(self)
  get_lr() = _first_lr(self)
  lr_at(base_lr, e, k=0) = base_lr * (self.factor if e < self.total_iters else 1.0)
  chained_lr(lr, base_lr, e, k=0) = lr * self.factor if e == 0 else (lr * (1.0 / self.factor) if e == self.total_iters else lr)
  get_last_lr() = _group_lrs(self.optimizer)
  step() = _sched_step(self)
  state_dict() = _sched_state(self)
  load_state_dict(d) = _sched_load(self, d)
}

# CosineAnnealingWarmRestarts: a cosine from base_lr to eta_min over T_i epochs, then a
# restart; T_i starts at T_0 and grows by T_mult at each restart.
model CosineAnnealingWarmRestarts(optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1, verbose=false) {
  """Anneals every group's lr along a cosine, restarting every T_0 (times T_mult each time) epochs, as PyTorch's SGDR.

  Example: let sched = optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=10, T_mult=2)
  """
  optimizer = _argcheck.check_optimizer("optim.CosineAnnealingWarmRestarts()", optimizer)
  T_0 = T_0
  T_mult = T_mult
  eta_min = eta_min
  let _checked = _argcheck.check_options("optim.CosineAnnealingWarmRestarts()", "", {"T_0": T_0, "T_mult": T_mult},
                                {"T_0": "int > 0", "T_mult": "int > 0"})
  base_lrs = _group_lrs(optimizer)
  verbose = _argcheck.check_scheduler_start("optim.CosineAnnealingWarmRestarts()", last_epoch, verbose)
  last_epoch = 0
  get_lr() = _first_lr(self)
  lr_at(base_lr, e, k=0) {
    # T_mult 1: a remainder, as PyTorch's step(epoch) takes it; a loop of one trip per
    # period hung on a loaded last_epoch of 10^15. Past 1, periods grow geometrically
    # and the loop takes a trip per restart.
    let t = e % self.T_0 if self.T_mult == 1 else e
    let period = self.T_0
    while t >= period {
      t = t - period
      period = period * self.T_mult
    }
    return self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(math.pi * t / period)) / 2
  }
  get_last_lr() = _group_lrs(self.optimizer)
  step() = _sched_step(self)
  state_dict() = _sched_state(self)
  load_state_dict(d) = _sched_load(self, d)
}

# ReduceLROnPlateau: step(metric) multiplies every group's lr by factor (not below
# min_lr) once the metric has not improved on its best by threshold for more than
# patience epochs, then waits cooldown epochs, as PyTorch's.
model ReduceLROnPlateau(optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4, threshold_mode="rel",
                        cooldown=0, min_lr=0.0, eps=1e-8) {
  """Lowers every group's lr by factor when a metric stops improving; step(metric) each epoch, as PyTorch's.

  Example: let sched = optim.lr_scheduler.ReduceLROnPlateau(opt, patience=2); sched.step(val_loss)
  """
  optimizer = _argcheck.check_optimizer("optim.ReduceLROnPlateau()", optimizer)
  let _m = assert(mode == "min" or mode == "max", f"optim.ReduceLROnPlateau(): mode must be \"min\" or \"max\", got \"{mode}\"")
  let _t = assert(threshold_mode == "rel" or threshold_mode == "abs",
                  f"optim.ReduceLROnPlateau(): threshold_mode must be \"rel\" or \"abs\", got \"{threshold_mode}\"")
  let _f = assert(_argcheck.is_number(factor) and factor < 1.0, f"optim.ReduceLROnPlateau(): factor must be a number below 1, got {_argcheck.shown(factor)}")
  let _checked = _argcheck.check_options("optim.ReduceLROnPlateau()", "",
                                {"patience": patience, "threshold": threshold, "cooldown": cooldown, "eps": eps},
                                {"patience": "number", "threshold": "number", "cooldown": "number", "eps": "number"})
  mode = mode
  factor = factor
  patience = patience
  threshold = threshold
  threshold_mode = threshold_mode
  cooldown = cooldown
  min_lrs = _per_group("optim.ReduceLROnPlateau()", "min_lr", optimizer, min_lr, ">= 0")
  eps = eps
  best = float("inf") if mode == "min" else -float("inf")
  num_bad_epochs = 0
  cooldown_counter = 0
  last_epoch = 0
  get_lr() = _first_lr(self)
  get_last_lr() = _group_lrs(self.optimizer)
  _better(a) {
    let rel = self.threshold_mode == "rel"
    if self.mode == "min" { return a < (self.best * (1 - self.threshold) if rel else self.best - self.threshold) }
    return a > (self.best * (1 + self.threshold) if rel else self.best + self.threshold)
  }
  step(metrics) {
    let current = _metric("optim.ReduceLROnPlateau.step()", metrics)
    self.last_epoch = self.last_epoch + 1
    if self._better(current) {
      self.best = current
      self.num_bad_epochs = 0
    } else {
      self.num_bad_epochs = self.num_bad_epochs + 1
    }
    if self.cooldown_counter > 0 {
      self.cooldown_counter = self.cooldown_counter - 1
      self.num_bad_epochs = 0
    }
    if self.num_bad_epochs > self.patience {
      let groups = self.optimizer.param_groups
      for k in range(len(groups)) {
        let new_lr = max(groups[k]["lr"] * self.factor, self.min_lrs[k])
        if groups[k]["lr"] - new_lr > self.eps { groups[k]["lr"] = new_lr }
      }
      self.cooldown_counter = self.cooldown
      self.num_bad_epochs = 0
    }
  }
  state_dict() = {"best": self.best, "num_bad_epochs": self.num_bad_epochs, "cooldown_counter": self.cooldown_counter,
                  "last_epoch": self.last_epoch}
  load_state_dict(d) {
    "Restores a state_dict(). Example: sched.load_state_dict(sd)"
    let who = "optim.ReduceLROnPlateau.load_state_dict()"
    _argcheck.check_state_dict(who, d)
    let keys = ["best", "num_bad_epochs", "cooldown_counter", "last_epoch"]
    let values = [_argcheck.loaded_like(who, d, key, getattr(self, key)) for key in keys]
    for i in range(len(keys)) { setattr(self, keys[i], values[i]) }
  }
}

# PolynomialLR: lr = base_lr * (1 - min(e, total_iters) / total_iters) ** power.
model PolynomialLR(optimizer, total_iters=5, power=1.0, last_epoch=-1, verbose=false) {
  """Decays every group's lr along a polynomial to 0 over total_iters epochs, as torch.optim.lr_scheduler.PolynomialLR.

  Example: let sched = optim.PolynomialLR(opt, total_iters=100, power=2.0)
  """
  optimizer = _argcheck.check_optimizer("optim.PolynomialLR()", optimizer)
  total_iters = total_iters
  power = power
  let _checked = _argcheck.check_options("optim.PolynomialLR()", "", {"total_iters": total_iters, "power": power},
                                {"total_iters": "int > 0", "power": "number"})
  base_lrs = _group_lrs(optimizer)
  verbose = _argcheck.check_scheduler_start("optim.PolynomialLR()", last_epoch, verbose)
  last_epoch = 0
  get_lr() = _first_lr(self)
  lr_at(base_lr, e, k=0) = base_lr * (1.0 - min(self.total_iters, e) / self.total_iters) ** self.power
  chained_lr(lr, base_lr, e, k=0) {
    if e == 0 or e > self.total_iters { return lr }
    return lr * ((1.0 - e / self.total_iters) / (1.0 - (e - 1) / self.total_iters)) ** self.power
  }
  get_last_lr() = _group_lrs(self.optimizer)
  step() = _sched_step(self)
  state_dict() = _sched_state(self)
  load_state_dict(d) = _sched_load(self, d)
}

# ---- schedulers that also cycle momentum ---------------------------------------------
# OneCycleLR and CyclicLR set, beside each group's lr, its momentum inversely to it
# (cycle_momentum=true): the group's "momentum" (SGD, RMSprop) or, for an optimizer
# with betas (Adam and the like; OneCycleLR only, as PyTorch's), beta1. momentum_at(e, k)
# is group k's value at epoch e; _apply_lrs sets both.

fn _apply_momenta(s) {
  let groups = s.optimizer.param_groups
  for k in range(len(groups)) {
    let m = s.momentum_at(s.last_epoch, k)
    if s.use_beta1 { groups[k]["betas"] = (m, groups[k]["betas"][1]) } else { groups[k]["momentum"] = m }
  }
}

# An argument given as one number or one per group (PyTorch's _format_param), as a list
# of one number per group, each checked against kind.
fn _per_group(who, name, optimizer, v, kind) {
  let n = len(optimizer.param_groups)
  if type(v) in ["list", "tuple"] and len(v) != n {
    fail(f"{who}: {name} has {len(v)} values, the optimizer {n} parameter group(s) (give one number, or one per group)")
  }
  let values = list(v) if type(v) in ["list", "tuple"] else [v] * n
  for k in range(n) { _argcheck.check_option(who, f"{name}[{k}]" if type(v) in ["list", "tuple"] else name, kind, values[k]) }
  return values
}

# v, which must be one of the strs choices: "a", "b" or "c".
fn _check_choice(who, name, v, choices) {
  if not (v in choices) {
    let listed = ""
    for i in range(len(choices)) {
      listed = listed + ("" if i == 0 else (" or " if i == len(choices) - 1 else ", ")) + f"\"{choices[i]}\""
    }
    fail(f"{who}: {name} must be {listed}, got " + (f"\"{v}\"" if type(v) == "str" else _argcheck.shown(v)))
  }
  return v
}

# With cycle_momentum, the optimizer must have one of keys among its hyperparameters
# (group 0's: "momentum", "betas"); what: the optimizers that do, for the message.
fn _check_cycled(who, optimizer, cycle_momentum, keys, what) {
  if not cycle_momentum { return none }
  for key in keys {
    if key in optimizer.param_groups[0] { return none }
  }
  fail(f"{who}: cycle_momentum=true needs an optimizer with {what}, got optim.{type(optimizer)}; pass cycle_momentum=false")
}

# CyclicLR: the lr goes from base_lr up to max_lr over step_size_up epochs and back down
# over step_size_down (none: as many), its height scaled per cycle (triangular: 1;
# triangular2: halved each cycle) or per epoch (exp_range: gamma ** e), or by
# scale_fn(cycle or epoch, as scale_mode says) when given; momentum goes the other way,
# from max_momentum down to base_momentum. Construction sets every group's lr to base_lr.
model CyclicLR(optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=none, mode="triangular", gamma=1.0,
               scale_fn=none, scale_mode="cycle", cycle_momentum=true, base_momentum=0.8, max_momentum=0.9, last_epoch=-1, verbose=false) {
  """Cycles every group's lr between base_lr and max_lr (and its momentum inversely), as torch.optim.lr_scheduler.CyclicLR.

  Example: let sched = optim.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=200)
  """
  optimizer = _argcheck.check_optimizer("optim.CyclicLR()", optimizer)
  base_lrs = _per_group("optim.CyclicLR()", "base_lr", optimizer, base_lr, ">= 0")
  max_lrs = _per_group("optim.CyclicLR()", "max_lr", optimizer, max_lr, ">= 0")
  let _checked = _argcheck.check_options("optim.CyclicLR()", "",
                                {"step_size_up": step_size_up, "step_size_down": step_size_down if step_size_down != none else 0,
                                 "gamma": gamma, "cycle_momentum": cycle_momentum},
                                {"step_size_up": "> 0", "step_size_down": ">= 0", "gamma": "number", "cycle_momentum": "bool"})
  total_size = float(step_size_up) + float(step_size_down if step_size_down != none else step_size_up)
  step_ratio = float(step_size_up) / self.total_size
  mode = mode if scale_fn != none else _check_choice("optim.CyclicLR()", "mode", mode, ["triangular", "triangular2", "exp_range"])
  gamma = gamma
  _custom_scale = scale_fn
  scale_mode = _cyclic_scale_mode(mode, scale_fn, scale_mode)
  cycle_momentum = cycle_momentum
  use_beta1 = false
  let _cycled = _check_cycled("optim.CyclicLR()", optimizer, cycle_momentum, ["momentum"], "momentum (optim.SGD, optim.RMSprop)")
  base_momenta = _per_group("optim.CyclicLR()", "base_momentum", optimizer, base_momentum, ">= 0") if cycle_momentum else []
  max_momenta = _per_group("optim.CyclicLR()", "max_momentum", optimizer, max_momentum, ">= 0") if cycle_momentum else []
  verbose = _argcheck.check_scheduler_start("optim.CyclicLR()", last_epoch, verbose)
  last_epoch = 0
  let _started = _apply_lrs(self)
  get_lr() = _first_lr(self)
  scale_fn(x) {
    "The scale of the cycle's height at x (the cycle, or the epoch with scale_mode \"iterations\"): the mode's, or the scale_fn given. Example: sched.scale_fn(2)"
    if self._custom_scale != none { return self._custom_scale(x) }
    if self.mode == "triangular" { return 1.0 }
    return 1 / (2.0 ** (x - 1)) if self.mode == "triangular2" else self.gamma ** x
  }
  # [how far up its cycle epoch e is (0 at base_lr, 1 at max_lr), the scale there].
  _position(e) {
    let cycle = math.floor(1 + e / self.total_size)
    let x = 1.0 + e / self.total_size - cycle
    let height = x / self.step_ratio if x <= self.step_ratio else (x - 1) / (self.step_ratio - 1)
    return [height, self.scale_fn(cycle if self.scale_mode == "cycle" else e)]
  }
  lr_at(base_lr, e, k=0) {
    let at = self._position(e)
    return base_lr + (self.max_lrs[k] - base_lr) * at[0] * at[1]
  }
  momentum_at(e, k=0) {
    let at = self._position(e)
    return self.max_momenta[k] - (self.max_momenta[k] - self.base_momenta[k]) * at[0] * at[1]
  }
  get_last_lr() = _group_lrs(self.optimizer)
  step() = _sched_step(self)
  state_dict() = _sched_state(self)
  load_state_dict(d) = _sched_load(self, d)
}

# What CyclicLR's scale_fn is a function of: the scale_mode given with a scale_fn, else
# the mode's ("cycle", or "iterations" for exp_range).
fn _cyclic_scale_mode(mode, scale_fn, scale_mode) {
  if scale_fn != none { return _check_choice("optim.CyclicLR()", "scale_mode", scale_mode, ["cycle", "iterations"]) }
  return "iterations" if mode == "exp_range" else "cycle"
}

# OneCycleLR: the 1cycle policy over total_steps (or epochs * steps_per_epoch) steps:
# the lr anneals from max_lr / div_factor (its base lr) up to max_lr over the first
# pct_start of the steps, then down to max_lr / div_factor / final_div_factor
# (three_phase: back to max_lr / div_factor first, symmetrically, then down), along a
# cosine or a line (anneal_strategy); momentum, or beta1, the other way between
# max_momentum and base_momentum. Stepping past total_steps is an error, as in PyTorch.
model OneCycleLR(optimizer, max_lr, total_steps=none, epochs=none, steps_per_epoch=none, pct_start=0.3,
                 anneal_strategy="cos", cycle_momentum=true, base_momentum=0.85, max_momentum=0.95, div_factor=25.0,
                 final_div_factor=1e4, three_phase=false, last_epoch=-1, verbose=false) {
  """Anneals every group's lr up to max_lr and down again over total_steps (and its momentum or beta1 inversely), as torch.optim.lr_scheduler.OneCycleLR.

  Example: let sched = optim.OneCycleLR(opt, max_lr=0.1, epochs=10, steps_per_epoch=100)
  """
  optimizer = _argcheck.check_optimizer("optim.OneCycleLR()", optimizer)
  total_steps = _one_cycle_total("optim.OneCycleLR()", total_steps, epochs, steps_per_epoch)
  if not (type(pct_start) == "float" and pct_start >= 0 and pct_start <= 1) {   # a float, as PyTorch checks
    fail(f"optim.OneCycleLR(): pct_start must be a float in [0, 1], got {_argcheck.shown(pct_start)}")
  }
  let _checked = _argcheck.check_options("optim.OneCycleLR()", "",
                                {"div_factor": div_factor, "final_div_factor": final_div_factor,
                                 "cycle_momentum": cycle_momentum, "three_phase": three_phase},
                                {"div_factor": "> 0", "final_div_factor": "> 0", "cycle_momentum": "bool", "three_phase": "bool"})
  phases = _one_cycle_phases(pct_start, self.total_steps, three_phase)
  anneal = _annealings[_check_choice("optim.OneCycleLR()", "anneal_strategy", anneal_strategy, ["cos", "linear"])]
  max_lrs = _per_group("optim.OneCycleLR()", "max_lr", optimizer, max_lr, ">= 0")
  final_div_factor = final_div_factor
  base_lrs = [m / div_factor for m in self.max_lrs]   # PyTorch's initial_lr
  cycle_momentum = cycle_momentum
  let _cycled = _check_cycled("optim.OneCycleLR()", optimizer, cycle_momentum, ["momentum", "betas"],
                              "momentum or betas (optim.SGD, optim.Adam, ...)")
  use_beta1 = cycle_momentum and "betas" in optimizer.param_groups[0]
  base_momenta = _per_group("optim.OneCycleLR()", "base_momentum", optimizer, base_momentum, ">= 0") if cycle_momentum else []
  max_momenta = _per_group("optim.OneCycleLR()", "max_momentum", optimizer, max_momentum, ">= 0") if cycle_momentum else []
  verbose = _argcheck.check_scheduler_start("optim.OneCycleLR()", last_epoch, verbose)
  last_epoch = 0
  let _started = _apply_lrs(self)
  get_lr() = _first_lr(self)
  # The value at epoch e of the phase's annealing between two of points ({"initial_lr":
  # ..., "max_lr": ..., ...}, group k's), which: "lr" or "momentum".
  _annealed(e, points, which) {
    if e > self.total_steps {
      fail(f"optim.OneCycleLR.step(): stepped {e} times, past total_steps={self.total_steps} (where the schedule ends)")
    }
    let start_step = 0
    for i in range(len(self.phases)) {
      let phase = self.phases[i]
      if e <= phase["end_step"] or i == len(self.phases) - 1 {
        # A phase of no steps (pct_start=1.0 leaves the last one none) is at its end;
        # PyTorch 1.13 divides by zero there.
        let pct = (e - start_step) / (phase["end_step"] - start_step) if phase["end_step"] != start_step else 1.0
        return self.anneal(points[phase["start_" + which]], points[phase["end_" + which]], pct)
      }
      start_step = phase["end_step"]
    }
  }
  lr_at(base_lr, e, k=0) = self._annealed(e, {"initial_lr": base_lr, "max_lr": self.max_lrs[k],
                                              "min_lr": base_lr / self.final_div_factor}, "lr")
  momentum_at(e, k=0) = self._annealed(e, {"max_momentum": self.max_momenta[k], "base_momentum": self.base_momenta[k]},
                                       "momentum")
  get_last_lr() = _group_lrs(self.optimizer)
  step() = _sched_step(self)
  state_dict() = _sched_state(self)
  load_state_dict(d) = _sched_load(self, d)
}

# OneCycleLR's total_steps: given, or epochs * steps_per_epoch.
fn _one_cycle_total(who, total_steps, epochs, steps_per_epoch) {
  if total_steps == none and epochs == none and steps_per_epoch == none {
    fail(f"{who}: give total_steps, or epochs and steps_per_epoch")
  }
  if total_steps != none {
    _argcheck.check_option(who, "total_steps", "int > 0", total_steps)
    return total_steps
  }
  _argcheck.check_options(who, "", {"epochs": epochs, "steps_per_epoch": steps_per_epoch},
                          {"epochs": "int > 0", "steps_per_epoch": "int > 0"})
  return epochs * steps_per_epoch
}

# PyTorch's phases: each ends at end_step, going from its start_ points to its end_ ones.
fn _one_cycle_phases(pct_start, total_steps, three_phase) {
  let up = {"end_step": float(pct_start * total_steps) - 1, "start_lr": "initial_lr", "end_lr": "max_lr",
            "start_momentum": "max_momentum", "end_momentum": "base_momentum"}
  if not three_phase {
    return [up, {"end_step": total_steps - 1, "start_lr": "max_lr", "end_lr": "min_lr",
                 "start_momentum": "base_momentum", "end_momentum": "max_momentum"}]
  }
  return [up,
          {"end_step": float(2 * pct_start * total_steps) - 2, "start_lr": "max_lr", "end_lr": "initial_lr",
           "start_momentum": "base_momentum", "end_momentum": "max_momentum"},
          {"end_step": total_steps - 1, "start_lr": "initial_lr", "end_lr": "min_lr",
           "start_momentum": "max_momentum", "end_momentum": "max_momentum"}]
}

# OneCycleLR's anneal_strategy: from start to end as pct goes from 0 to 1.
let _annealings = {"cos": fn(start, end, pct) = end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1),
                   "linear": fn(start, end, pct) = (end - start) * pct + start}

# MultiStepLR's milestones: a list of ints (epochs).
fn _milestones(who, milestones) {
  if not (type(milestones) in ["list", "tuple"]) {
    fail(f"{who}: milestones must be a list of epochs (ints), got {_argcheck.shown(milestones)}")
  }
  for i in range(len(milestones)) {
    if type(milestones[i]) != "int" { fail(f"{who}: milestones[{i}] must be an int (an epoch), got {_argcheck.shown(milestones[i])}") }
  }
  return list(milestones)
}

# LambdaLR's lr_lambda: one function, or one per parameter group.
fn _lr_functions(who, optimizer, lr_lambda) {
  let n = len(optimizer.param_groups)
  let fns = list(lr_lambda) if type(lr_lambda) in ["list", "tuple"] else [lr_lambda] * n
  if len(fns) != n { fail(f"{who}: expected {n} lr_lambda function(s), one per parameter group, got {len(fns)}") }
  for k in range(n) {
    if not callable(fns[k]) {
      fail(f"{who}: lr_lambda" + (f"[{k}]" if type(lr_lambda) in ["list", "tuple"] else "") + f" must be a function of the epoch, got {_argcheck.shown(fns[k])}")
    }
  }
  return fns
}

# lr_lambdas[k](e), which must be a number (a one-element tensor is read).
fn _lambda_factor(who, lr_lambdas, k, e) {
  let f = lr_lambdas[k](e)
  if type(f) == "tensor" and f.numel() == 1 { f = f.item() }
  if not _argcheck.is_number(f) { fail(f"{who}: lr_lambda({e}) must return a number (the factor of the base lr), got {_argcheck.shown(f)}") }
  return f
}

# ReduceLROnPlateau.step()'s metric: a number or a one-element tensor.
fn _metric(who, metrics) {
  if type(metrics) == "tensor" {
    if metrics.numel() != 1 { fail(f"{who}: metrics must be a number or a one-element tensor, got a tensor of shape {list(metrics.shape)}") }
    return float(metrics.item())
  }
  if not _argcheck.is_number(metrics) { fail(f"{who}: metrics must be a number or a one-element tensor, got {_argcheck.shown(metrics)}") }
  return float(metrics)
}
