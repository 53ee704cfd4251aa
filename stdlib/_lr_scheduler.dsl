# _lr_scheduler: optim's learning-rate schedulers (optim.StepLR, optim.CosineAnnealingLR,
# optim.LinearWarmup are these classes; import optim to use them).

import math
import _argcheck

# Each takes every group's lr at construction as that group's base lr (base_lrs), sets
# the lrs of epoch 0 at once (as PyTorch does), and on step() advances last_epoch by one
# and sets each group's lr to the closed form below, lr_at(base_lr, last_epoch), from its
# own base lr. get_last_lr() returns every group's lr, as PyTorch's; get_lr() group 0's.
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
  for k in range(len(groups)) { groups[k]["lr"] = s.lr_at(s.base_lrs[k], s.last_epoch) }
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
  lr_at(base_lr, e) {
    "The lr at epoch e from base_lr. Example: sched.lr_at(0.1, 60)"
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
  lr_at(base_lr, e) {
    "The lr at epoch e from base_lr. Example: sched.lr_at(0.1, 50)"
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
  lr_at(base_lr, e) {
    "The lr at epoch e from base_lr. Example: sched.lr_at(0.1, 3)"
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
