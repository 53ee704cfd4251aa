# _lr_chain: the schedulers made of schedulers, optim.SequentialLR and
# optim.ChainedScheduler (also under optim.lr_scheduler), as PyTorch 1.13's.
# stdlib/_lr_scheduler.dsl re-exports them; import optim to use them.
#
# They step their children as PyTorch's step them: a child with a chainable form
# (chained_lr: PyTorch's get_lr(), the new lr from the group's current one) by that
# form, so that ChainedScheduler's children compose; any other (LambdaLR, CyclicLR,
# OneCycleLR, CosineAnnealingWarmRestarts, whose PyTorch forms set the lr outright) by
# its own step(). SequentialLR restarts a child at its milestone with PyTorch's
# step(0), the closed form at epoch 0: the child's step() from last_epoch -1. A child
# stepped by hand (child.step()) keeps its closed form (stdlib/_lr_scheduler.dsl).
#
# Note [Initial lrs]: PyTorch's schedulers take their base lrs from each group's
# "initial_lr", which the first scheduler made on an optimizer records (OneCycleLR
# overwrites it; CyclicLR keeps base lrs of its own); nabla's take the groups' lrs when
# each is made. They differ for a scheduler made after another has moved the lrs, which
# is how these two are used (their children are made one after the other), so both
# give their children PyTorch's base lrs: the first child's, the lrs before it (or
# CyclicLR's base_lr, OneCycleLR's max_lr / div_factor). That is PyTorch's whenever
# the children are the first schedulers made on the optimizer, in list order.
import _argcheck

fn _lrs(opt) = [g["lr"] for g in opt.param_groups]

fn _set_lrs(opt, lrs) {
  for k in range(len(opt.param_groups)) { opt.param_groups[k]["lr"] = lrs[k] }
}

# The children: a non-empty list of optim's schedulers, each scheduling `optimizer`
# (none: the first child's); what: "the one given" or "schedulers[0]'s", for the message.
fn _children(who, schedulers, optimizer, what) {
  if not (type(schedulers) in ["list", "tuple"]) or len(schedulers) == 0 {
    fail(f"{who}: schedulers must be a non-empty list of schedulers, got " + ("an empty list" if type(schedulers) in ["list", "tuple"] else _argcheck.shown(schedulers)))
  }
  let opt = optimizer if optimizer != none else getattr(schedulers[0], "optimizer", none)
  for i in range(len(schedulers)) {
    let s = schedulers[i]
    if type(s) == "ReduceLROnPlateau" {
      fail(f"{who}: schedulers[{i}] is optim.ReduceLROnPlateau, which steps on a metric and cannot be stepped with the others (as in PyTorch)")
    }
    if type(s) == "model" or getattr(s, "step", none) == none or not _argcheck.is_optimizer(getattr(s, "optimizer", none)) {
      fail(f"{who}: schedulers[{i}] must be a scheduler (optim.StepLR(opt, ...), optim.LinearLR(opt, ...), ...), got {_argcheck.shown(s)}")
    }
    if s.optimizer != opt { fail(f"{who}: schedulers[{i}] schedules another optimizer than {what}") }
  }
  return list(schedulers)
}

# Note [Initial lrs]: every child's base lrs made PyTorch's; the initial lrs.
fn _adopt_initial_lrs(children) {
  if getattr(children[0], "base_lrs", none) == none { return _lrs(children[0].optimizer) }
  let initial = list(children[0].base_lrs)
  for s in children[1:] {
    let kind = type(s)
    if kind == "OneCycleLR" {
      initial = list(s.base_lrs)
    } elif kind != "CyclicLR" and getattr(s, "base_lrs", none) != none {
      s.base_lrs = list(initial)
    }
  }
  return list(children[0].base_lrs)
}

# Steps child s as PyTorch's s.step(): last_epoch + 1, by its chainable form if it has one.
fn _step_child(s) {
  let chained = getattr(s, "chained_lr", none)
  if chained == none { return s.step() }
  s.last_epoch = s.last_epoch + 1
  let groups = s.optimizer.param_groups
  for k in range(len(groups)) { groups[k]["lr"] = chained(groups[k]["lr"], s.base_lrs[k], s.last_epoch, k) }
}

# PyTorch's s.step(0): the closed form at epoch 0.
fn _restart_child(s) {
  s.last_epoch = -1
  s.step()
}

# The states of the children, restored as PyTorch's load_state_dict restores them: their
# fields set from the dicts, no schedule evaluated. The groups' lrs are then the saved
# _last_lr (the lrs of the epoch saved, as every scheduler's load_state_dict restores).
# Every value is checked against the field it replaces before any is set (a child's
# state dict names only fields of that child's state_dict()), so a bad dict leaves the
# schedulers as they were: _loaded_children checks and returns them, _set_children sets.
fn _load_children(who, s, d) = _set_children(s, _loaded_children(who, s, d))

fn _loaded_children(who, s, d) {
  _argcheck.check_state_dict(who, d)
  let states = _argcheck.loaded_like(who, d, "_schedulers", s._schedulers)
  let last_lr = _argcheck.loaded_like(who, d, "_last_lr", s._last_lr)
  let children = []
  for i in range(len(states)) {
    let child = s._schedulers[i]
    let where = f"{who}: _schedulers[{i}]"
    _argcheck.check_state_dict(where, states[i])
    let own = child.state_dict()
    let values = {}
    for key in states[i] {
      if not (key in own) {
        fail(f"{where} has the key {_argcheck.shown(key)}, which optim.{type(child)}'s state has not (its keys: {_argcheck.joined(list(own))})")
      }
      let v = _argcheck.loaded_like(where, states[i], key, own[key])
      values[key] = list(v) if type(v) in ["list", "tuple"] else v
    }
    children.append(values)
  }
  return [children, last_lr]
}

fn _set_children(s, loaded) {
  let children = loaded[0]
  let last_lr = loaded[1]
  for i in range(len(children)) {
    for key in children[i] { setattr(s._schedulers[i], key, children[i][key]) }
  }
  s._last_lr = list(last_lr)
  _set_lrs(s.optimizer, s._last_lr)
}

fn _children_states(s) = [c.state_dict() for c in s._schedulers]

# The milestones: one int fewer than the schedulers.
fn _check_milestones(who, milestones, n) {
  let listed = type(milestones) in ["list", "tuple"]
  if not listed or any([type(m) != "int" for m in milestones]) {
    let got = list(milestones) if listed else _argcheck.shown(milestones)
    fail(f"{who}: milestones must be a list of ints (the epochs where the next scheduler takes over), got {got}")
  }
  if len(milestones) != n - 1 {
    fail(f"{who}: {n} scheduler(s) need {n - 1} milestone(s), one fewer, got {len(milestones)}: {list(milestones)}")
  }
  return list(milestones)
}

# Python's bisect.bisect_right: where e goes in xs (sorted) after any equal to it.
fn _bisect_right(xs, e) {
  let lo = 0
  let hi = len(xs)
  while lo < hi {
    let mid = (lo + hi) // 2
    if e < xs[mid] { hi = mid } else { lo = mid + 1 }
  }
  return lo
}

# SequentialLR: schedulers[0] from epoch 0, schedulers[i] from epoch milestones[i - 1]
# (restarted there at its epoch 0). Construction puts the groups' lrs back to the
# initial ones and starts schedulers[0] again (the others wait at last_epoch -1).
model SequentialLR(optimizer, schedulers, milestones, last_epoch=-1, verbose=false) {
  """Runs schedulers one after another, switching at each milestone epoch, as torch.optim.lr_scheduler.SequentialLR.

  Example: let sched = optim.SequentialLR(opt, [optim.LinearLR(opt, start_factor=0.1, total_iters=5), optim.CosineAnnealingLR(opt, 95)], milestones=[5])
  """
  optimizer = _argcheck.check_optimizer("optim.SequentialLR()", optimizer)
  _schedulers = _children("optim.SequentialLR()", schedulers, optimizer, "the one given")
  _milestones = _check_milestones("optim.SequentialLR()", milestones, len(schedulers))
  last_epoch = last_epoch + 1
  let _started = _sequential_start(self)
  _last_lr = _lrs(optimizer)
  get_lr() { "Group 0's current lr. Example: sched.get_lr()"; return self.optimizer.param_groups[0]["lr"] }
  get_last_lr() {
    "Every group's lr after the last step, as a list. Example: sched.get_last_lr()"
    return list(self._last_lr)
  }
  step() {
    "Advances last_epoch and steps the scheduler whose turn it is (restarting it at its milestone). Example: sched.step()"
    self.last_epoch = self.last_epoch + 1
    let i = _bisect_right(self._milestones, self.last_epoch)
    let s = self._schedulers[i]
    if i > 0 and self._milestones[i - 1] == self.last_epoch { _restart_child(s) } else { _step_child(s) }
    self._last_lr = _lrs(self.optimizer)
  }
  state_dict() {
    "_milestones, last_epoch, _last_lr and every scheduler's state_dict() (_schedulers), as PyTorch's. Example: let sd = sched.state_dict()"
    return {"_milestones": list(self._milestones), "last_epoch": self.last_epoch, "_last_lr": list(self._last_lr),
            "_schedulers": _children_states(self)}
  }
  load_state_dict(d) {
    "Restores a state_dict(), the schedulers' states and the lrs. Example: sched.load_state_dict(sd)"
    let who = "optim.SequentialLR.load_state_dict()"
    _argcheck.check_state_dict(who, d)
    let milestones = _check_milestones(who, _argcheck.loaded(who, d, "_milestones"), len(self._schedulers))
    let last_epoch = _argcheck.loaded_like(who, d, "last_epoch", self.last_epoch)
    let loaded = _loaded_children(who, self, d)
    self._milestones = milestones
    self.last_epoch = last_epoch
    _set_children(self, loaded)
  }
}

fn _sequential_start(s) {
  _set_lrs(s.optimizer, _adopt_initial_lrs(s._schedulers))
  for c in s._schedulers { c.last_epoch = c.last_epoch - 1 }
  _step_child(s._schedulers[0])
}

# ChainedScheduler: every step() steps each scheduler in turn, each from the lrs the one
# before it left (their chainable forms compose: ConstantLR's factor times
# ExponentialLR's decay).
model ChainedScheduler(schedulers) {
  """Steps every scheduler of the list at each step(), their effects composed, as torch.optim.lr_scheduler.ChainedScheduler.

  Example: let sched = optim.ChainedScheduler([optim.lr_scheduler.ConstantLR(opt, factor=0.1, total_iters=2), optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)])
  """
  _schedulers = _children("optim.ChainedScheduler()", schedulers, none, "schedulers[0]")
  optimizer = self._schedulers[0].optimizer
  let _started = _chained_start(self._schedulers)
  _last_lr = _lrs(self.optimizer)
  get_lr() { "Group 0's current lr. Example: sched.get_lr()"; return self.optimizer.param_groups[0]["lr"] }
  get_last_lr() {
    "Every group's lr after the last step, as a list. Example: sched.get_last_lr()"
    return list(self._last_lr)
  }
  step() {
    "Steps every scheduler, in order. Example: sched.step()"
    for s in self._schedulers { _step_child(s) }
    self._last_lr = _lrs(self.optimizer)
  }
  state_dict() {
    "_last_lr and every scheduler's state_dict() (_schedulers), as PyTorch's. Example: let sd = sched.state_dict()"
    return {"_last_lr": list(self._last_lr), "_schedulers": _children_states(self)}
  }
  load_state_dict(d) {
    "Restores a state_dict(), the schedulers' states and the lrs. Example: sched.load_state_dict(sd)"
    _load_children("optim.ChainedScheduler.load_state_dict()", self, d)
  }
}

# Note [Initial lrs]: with PyTorch's base lrs, the lrs the children's construction
# leaves, as PyTorch's (each child's epoch 0 from the lrs the one before it left), when
# every child is new (at epoch 0); otherwise they are left as they are.
fn _chained_start(children) {
  let initial = _adopt_initial_lrs(children)
  if any([c.last_epoch != 0 for c in children]) { return none }
  _set_lrs(children[0].optimizer, initial)
  for c in children {
    c.last_epoch = -1
    _step_child(c)
  }
}
