# _lr_scheduler: optim's learning-rate schedulers (optim.StepLR, optim.CosineAnnealingLR,
# optim.LinearWarmup, and under PyTorch's path optim.lr_scheduler.* the rest: MultiStepLR,
# ExponentialLR, LambdaLR, LinearLR, ConstantLR, CosineAnnealingWarmRestarts,
# ReduceLROnPlateau; import optim to use them).

import math
import _argcheck

# Each takes every group's lr at construction as that group's base lr (base_lrs), sets
# the lrs of epoch 0 at once (as PyTorch does), and on step() advances last_epoch by one
# and sets each group's lr to the closed form below, lr_at(base_lr, last_epoch, k), from
# its own base lr (k, the group: LambdaLR's functions may differ by group). get_last_lr() returns every group's lr, as PyTorch's; get_lr() group 0's.
# state_dict() / load_state_dict(d) hold base_lrs and last_epoch (a state dict with a
# single "base_lr" loads too).

fn _group_lrs(opt) {
  let out = []
  for g in opt.param_groups { out.append(g["lr"]) }
  return out
}

# Sets every group's lr to the scheduler's value for its epoch.
fn _apply_lrs(s) {
  let groups = s.optimizer.param_groups
  for k in range(len(groups)) { groups[k]["lr"] = s.lr_at(s.base_lrs[k], s.last_epoch, k) }
}

fn _sched_step(s) {
  s.last_epoch = s.last_epoch + 1
  _apply_lrs(s)
}

fn _sched_state(s) = {"base_lrs": list(s.base_lrs), "last_epoch": s.last_epoch}

fn _sched_load(s, d) {
  let who = f"optim.{type(s)}.load_state_dict()"
  let base_lrs = d["base_lrs"] if "base_lrs" in d else [_argcheck.loaded(who, d, "base_lr")]
  let n = len(s.optimizer.param_groups)
  if len(base_lrs) != n { fail(f"{who}: the state dict has {len(base_lrs)} base lr(s), the optimizer {n} parameter group(s)") }
  s.base_lrs = list(base_lrs)
  s.last_epoch = _argcheck.loaded(who, d, "last_epoch")
  _apply_lrs(s)
}

# StepLR: lr = base_lr * gamma ** (last_epoch // step_size).
model StepLR(optimizer, step_size, gamma=0.1) {
  """Multiplies every group's base lr by gamma once every step_size epochs, as torch.optim.lr_scheduler.StepLR.

  Example: let sched = optim.StepLR(opt, step_size=30, gamma=0.1)
  """
  optimizer = _argcheck.check_optimizer("optim.StepLR()", optimizer)
  step_size = step_size
  gamma = gamma
  let _checked = _argcheck.check_options("optim.StepLR()", "", {"step_size": step_size, "gamma": gamma},
                                {"step_size": "int > 0", "gamma": "number"})
  base_lrs = _group_lrs(optimizer)
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
model CosineAnnealingLR(optimizer, T_max, eta_min=0) {
  """Anneals every group's lr from its base lr to eta_min along a half cosine over T_max epochs, as PyTorch's.

  Example: let sched = optim.CosineAnnealingLR(opt, T_max=100, eta_min=1e-5)
  """
  optimizer = _argcheck.check_optimizer("optim.CosineAnnealingLR()", optimizer)
  T_max = T_max
  eta_min = eta_min
  let _checked = _argcheck.check_options("optim.CosineAnnealingLR()", "", {"T_max": T_max, "eta_min": eta_min},
                                {"T_max": "> 0", "eta_min": "number"})
  base_lrs = _group_lrs(optimizer)
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
# when nothing else changes the lrs; get_lr, get_last_lr, step, state_dict and
# load_state_dict as above.

fn _first_lr(s) = s.optimizer.param_groups[0]["lr"]

# MultiStepLR: lr = base_lr * gamma ** (how many milestones are <= last_epoch).
model MultiStepLR(optimizer, milestones, gamma=0.1) {
  """Multiplies every group's base lr by gamma at each milestone epoch, as torch.optim.lr_scheduler.MultiStepLR.

  Example: let sched = optim.lr_scheduler.MultiStepLR(opt, milestones=[30, 80], gamma=0.1)
  """
  optimizer = _argcheck.check_optimizer("optim.MultiStepLR()", optimizer)
  milestones = sorted(list(milestones))
  gamma = gamma
  base_lrs = _group_lrs(optimizer)
  last_epoch = 0
  get_lr() = _first_lr(self)
  lr_at(base_lr, e, k=0) = base_lr * self.gamma ** len([m for m in self.milestones if m <= e])
  get_last_lr() = _group_lrs(self.optimizer)
  step() = _sched_step(self)
  state_dict() = _sched_state(self)
  load_state_dict(d) = _sched_load(self, d)
}

# ExponentialLR: lr = base_lr * gamma ** last_epoch.
model ExponentialLR(optimizer, gamma) {
  """Multiplies every group's lr by gamma every epoch, as torch.optim.lr_scheduler.ExponentialLR.

  Example: let sched = optim.lr_scheduler.ExponentialLR(opt, gamma=0.95)
  """
  optimizer = _argcheck.check_optimizer("optim.ExponentialLR()", optimizer)
  gamma = gamma
  base_lrs = _group_lrs(optimizer)
  last_epoch = 0
  get_lr() = _first_lr(self)
  lr_at(base_lr, e, k=0) = base_lr * self.gamma ** e
  get_last_lr() = _group_lrs(self.optimizer)
  step() = _sched_step(self)
  state_dict() = _sched_state(self)
  load_state_dict(d) = _sched_load(self, d)
}

# LambdaLR: lr = base_lr * lr_lambda(last_epoch) (one function, or one per group).
model LambdaLR(optimizer, lr_lambda) {
  """Sets every group's lr to its base lr times lr_lambda(epoch), as torch.optim.lr_scheduler.LambdaLR.

  Example: let sched = optim.lr_scheduler.LambdaLR(opt, fn(epoch) = 0.95 ** epoch)
  """
  optimizer = _argcheck.check_optimizer("optim.LambdaLR()", optimizer)
  lr_lambdas = list(lr_lambda) if type(lr_lambda) in ["list", "tuple"] else [lr_lambda] * len(optimizer.param_groups)
  let _n = assert(len(self.lr_lambdas) == len(optimizer.param_groups),
                  f"optim.LambdaLR(): {len(self.lr_lambdas)} functions for {len(optimizer.param_groups)} parameter groups")
  base_lrs = _group_lrs(optimizer)
  last_epoch = 0
  let _started = _apply_lrs(self)
  get_lr() = _first_lr(self)
  lr_at(base_lr, e, k=0) = base_lr * self.lr_lambdas[k](e)
  get_last_lr() = _group_lrs(self.optimizer)
  step() = _sched_step(self)
  state_dict() = _sched_state(self)
  load_state_dict(d) = _sched_load(self, d)
}

# LinearLR: lr = base_lr * (start_factor + (end_factor - start_factor) * min(e, total_iters) / total_iters).
model LinearLR(optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5) {
  """Scales every group's lr by a factor moving linearly from start_factor to end_factor over total_iters epochs, as PyTorch's.

  Example: let sched = optim.lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=100)
  """
  optimizer = _argcheck.check_optimizer("optim.LinearLR()", optimizer)
  start_factor = start_factor
  end_factor = end_factor
  total_iters = total_iters
  let _checked = _argcheck.check_options("optim.LinearLR()", "", {"start_factor": start_factor, "total_iters": total_iters},
                                {"start_factor": "> 0", "total_iters": "int > 0"})
  base_lrs = _group_lrs(optimizer)
  last_epoch = 0
  let _started = _apply_lrs(self)
  get_lr() = _first_lr(self)
  lr_at(base_lr, e, k=0) = base_lr * (self.start_factor + (self.end_factor - self.start_factor) * min(e, self.total_iters) / self.total_iters)
  get_last_lr() = _group_lrs(self.optimizer)
  step() = _sched_step(self)
  state_dict() = _sched_state(self)
  load_state_dict(d) = _sched_load(self, d)
}

# ConstantLR: lr = base_lr * factor for the first total_iters epochs, then base_lr.
model ConstantLR(optimizer, factor=1.0 / 3, total_iters=5) {
  """Scales every group's lr by factor until epoch total_iters, as torch.optim.lr_scheduler.ConstantLR.

  Example: let sched = optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=4)
  """
  optimizer = _argcheck.check_optimizer("optim.ConstantLR()", optimizer)
  factor = factor
  total_iters = total_iters
  base_lrs = _group_lrs(optimizer)
  last_epoch = 0
  let _started = _apply_lrs(self)
  get_lr() = _first_lr(self)
  lr_at(base_lr, e, k=0) = base_lr * (self.factor if e < self.total_iters else 1.0)
  get_last_lr() = _group_lrs(self.optimizer)
  step() = _sched_step(self)
  state_dict() = _sched_state(self)
  load_state_dict(d) = _sched_load(self, d)
}

# CosineAnnealingWarmRestarts: a cosine from base_lr to eta_min over T_i epochs, then a
# restart; T_i starts at T_0 and grows by T_mult at each restart.
model CosineAnnealingWarmRestarts(optimizer, T_0, T_mult=1, eta_min=0.0) {
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
  last_epoch = 0
  get_lr() = _first_lr(self)
  lr_at(base_lr, e, k=0) {
    let t = e
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
  let _f = assert(factor < 1.0, f"optim.ReduceLROnPlateau(): factor must be below 1, got {factor}")
  mode = mode
  factor = factor
  patience = patience
  threshold = threshold
  threshold_mode = threshold_mode
  cooldown = cooldown
  min_lrs = list(min_lr) if type(min_lr) in ["list", "tuple"] else [min_lr] * len(optimizer.param_groups)
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
    let current = float(metrics.item() if type(metrics) == "tensor" else metrics)
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
    self.best = d["best"]
    self.num_bad_epochs = d["num_bad_epochs"]
    self.cooldown_counter = d["cooldown_counter"]
    self.last_epoch = d["last_epoch"]
  }
}
