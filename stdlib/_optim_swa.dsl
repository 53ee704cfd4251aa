# _optim_swa: torch.optim.swa_utils as PyTorch 1.13 has it, under optim.swa_utils:
# AveragedModel (a running average of a model's weights: SWA by default, an EMA with
# avg_fn), SWALR (anneals every group's lr to a constant swa_lr) and update_bn (the
# BatchNorm running statistics recomputed for averaged weights). import optim to use it.
let __name__ = "optim.swa_utils"  # the name messages show (Module::shown_name)

import math
import _argcheck

# Note [An averaged model's update]
# As PyTorch's AveragedModel: the copy is a deepcopy, so the averaged weights are
# tensors of their own (leaves that require grad, as a deepcopy's are); the first
# update_parameters copies the model's weights, each later one sets
# avg = avg_fn(avg, p, n_averaged) with n_averaged an i64 tensor counting the updates
# so far (default avg_fn: the running mean avg + (p - avg) / (n + 1)). use_buffers=true
# averages the buffers with the parameters (BatchNorm's running statistics included);
# without it the buffers are left as the copy made them, for update_bn to recompute.
# The model and the copy must hold the same tensors in the same order: a model of
# another structure is an error naming the first mismatch, not a silent zip.

fn _running_mean(averaged, current, num_averaged) = averaged + (current - averaged) / (num_averaged + 1)

fn _averaged_tensors(m, use_buffers) = list(m.parameters()) + (list(m.buffers()) if use_buffers else [])

fn _check_same_structure(who, mine, theirs, what) {
  if len(mine) != len(theirs) {
    fail(f"{who}: the model and the averaged model differ in their number of {what}, {len(theirs)} against {len(mine)}: pass the model the AveragedModel was made from")
  }
  for i in range(len(mine)) {
    if mine[i].shape != theirs[i].shape {
      fail(f"{who}: {what}[{i}] of the model has shape {list(theirs[i].shape)}, the averaged model's {list(mine[i].shape)}: pass the model the AveragedModel was made from")
    }
  }
}

model AveragedModel(model, device=none, avg_fn=none, use_buffers=false) {
  """A copy of model whose weights are a running average of model's, as torch.optim.swa_utils.AveragedModel
  (SWA by default; an EMA with avg_fn=fn(avg, p, n) = 0.999 * avg + 0.001 * p). Call update_parameters(model) after each
  optimizer step; calling it runs the averaged copy.

  Example: let swa = optim.swa_utils.AveragedModel(net); swa.update_parameters(net)
  """
  let _who = "optim.swa_utils.AveragedModel()"
  let _checked = (none if type(model) != "model" and hasattr(model, "parameters")
                  else fail(f"{_who}: model must be a model instance (nn.Linear(2, 2), a model of yours), got {_argcheck.shown(model)}"))
  let _fn_checked = (none if avg_fn == none or callable(avg_fn)
                     else fail(f"{_who}: avg_fn must be a function fn(averaged_param, model_param, num_averaged), got {_argcheck.shown(avg_fn)}"))
  let _buffers_checked = _argcheck.check_option(_who, "use_buffers", "bool", use_buffers)
  module = deepcopy(model) if device == none else deepcopy(model).to(device)
  buffer n_averaged = tensor(0)
  avg_fn = _running_mean if avg_fn == none else avg_fn
  use_buffers = use_buffers

  forward(*args) = self.module(*args)

  update_parameters(model) {
    """Averages model's current weights into this copy (the first call copies them; Note [An averaged model's update]).

    Example: swa.update_parameters(net)
    """
    let mine = _averaged_tensors(self.module, self.use_buffers)
    let theirs = _averaged_tensors(model, self.use_buffers)
    _check_same_structure("optim.swa_utils.AveragedModel.update_parameters()", mine, theirs,
                          "parameters and buffers" if self.use_buffers else "parameters")
    no_grad {
      for i in range(len(mine)) {
        let current = theirs[i].detach().to(mine[i].device)
        if self.n_averaged.item() == 0 or not mine[i].is_floating_point() {
          mine[i].copy_(current)
        } else {
          mine[i].copy_(self.avg_fn(mine[i].detach(), current, self.n_averaged))
        }
      }
      self.n_averaged.add_(1)
    }
  }
}

# ---- SWALR ------------------------------------------------------------------------------

# Note [SWALR's anneal]
# PyTorch 1.13's SWALR.get_lr, at its step count s (0 when made, +1 per step()): it
# recovers the lr the anneal started from out of each group's current lr and the
# previous step's alpha, then moves alpha(t) of the way to swa_lr, t = s / anneal_epochs
# clamped to [0, 1], alpha = t (linear) or (1 - cos(pi t)) / 2 (cos). It reads the
# group's current lr, so a change made to it between steps is carried along, as in
# PyTorch; anneal_epochs = 0 sets swa_lr at once.
let _anneal_functions = {"cos": fn(t) = (1 - math.cos(math.pi * t)) / 2, "linear": fn(t) = t}

fn _initial_lr(lr, swa_lr, alpha) = swa_lr if alpha == 1 else (lr - alpha * swa_lr) / (1 - alpha)

fn _swa_apply(s) {
  let step = s.last_epoch if s.anneal_epochs > 0 else max(1, s.last_epoch)
  let anneal = _anneal_functions[s.anneal_strategy]
  let prev_alpha = anneal(max(0, min(1, (step - 1) / max(1, s.anneal_epochs))))
  let alpha = anneal(max(0, min(1, step / max(1, s.anneal_epochs))))
  for g in s.optimizer.param_groups {
    let start = _initial_lr(g["lr"], g["swa_lr"], prev_alpha)
    g["lr"] = g["swa_lr"] * alpha + start * (1 - alpha)
  }
}

fn _swa_lrs(who, optimizer, swa_lr) {
  let n = len(optimizer.param_groups)
  let lrs = list(swa_lr) if type(swa_lr) in ["list", "tuple"] else [swa_lr] * n
  if len(lrs) != n { fail(f"{who}: swa_lr must be a number or one per parameter group ({n}), got {len(lrs)} value(s)") }
  for k in range(n) { _argcheck.check_option(who, "swa_lr" if type(swa_lr) not in ["list", "tuple"] else f"swa_lr[{k}]", ">= 0", lrs[k]) }
  return lrs
}

model SWALR(optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos", last_epoch=-1) {
  """Anneals every group's lr to swa_lr over anneal_epochs steps ("cos" or "linear"), then keeps it there, as
  torch.optim.swa_utils.SWALR (Note [SWALR's anneal]).

  Example: let swa_sched = optim.swa_utils.SWALR(opt, swa_lr=0.05, anneal_epochs=5)
  """
  let _who = "optim.swa_utils.SWALR()"
  optimizer = _argcheck.check_optimizer(_who, optimizer)
  let _lrs = _swa_lrs(_who, optimizer, swa_lr)
  let _strategy_checked = (none if type(anneal_strategy) == "str" and anneal_strategy in _anneal_functions
                           else fail(f"{_who}: anneal_strategy must be \"cos\" or \"linear\", got {_argcheck.shown(anneal_strategy)}"))
  let _epochs_checked = (none if type(anneal_epochs) == "int" and anneal_epochs >= 0
                         else fail(f"{_who}: anneal_epochs must be an int >= 0, got {_argcheck.shown(anneal_epochs)}"))
  let _start_checked = _argcheck.check_scheduler_start(_who, last_epoch, false)
  anneal_epochs = anneal_epochs
  anneal_strategy = anneal_strategy
  let _groups_set = _set_swa_lrs(optimizer, _lrs)
  last_epoch = 0
  let _started = _swa_apply(self)
  get_last_lr() { "Every group's current lr, as a list. Example: swa_sched.get_last_lr()"; return [g["lr"] for g in self.optimizer.param_groups] }
  get_lr() = self.optimizer.param_groups[0]["lr"]
  step() {
    "Advances the anneal by one step and sets every group's lr. Example: swa_sched.step()"
    self.last_epoch = self.last_epoch + 1
    _swa_apply(self)
  }
  state_dict() = {"last_epoch": self.last_epoch, "anneal_epochs": self.anneal_epochs, "anneal_strategy": self.anneal_strategy}
  load_state_dict(d) {
    "Restores a state_dict()'s step count. Example: swa_sched.load_state_dict(sd)"
    let who = "optim.swa_utils.SWALR.load_state_dict()"
    _argcheck.check_state_dict(who, d)
    self.last_epoch = _argcheck.loaded_like(who, d, "last_epoch", self.last_epoch)
  }
}

fn _set_swa_lrs(optimizer, lrs) {
  for k in range(len(lrs)) { optimizer.param_groups[k]["swa_lr"] = lrs[k] }
}

# ---- update_bn --------------------------------------------------------------------------

let _batch_norm_kinds = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm"]

fn _is_tracking_batch_norm(m) = type(m) in _batch_norm_kinds and m.track_running_stats

fn update_bn(loader, model, device=none) {
  """Recomputes the running mean and variance of every BatchNorm in model from one pass over loader (batches, or
  tuples whose first item is the input), as torch.optim.swa_utils.update_bn: the cumulative average over the
  batches (momentum none for the pass, then restored); the model's train/eval mode is restored too.

  Example: optim.swa_utils.update_bn([xb for (xb, yb) in batches], swa_model)
  """
  let who = "optim.swa_utils.update_bn()"
  if type(loader) not in ["list", "tuple"] {
    fail(f"{who}: loader must be a list of batches (tensors, or tuples whose first item is the input), got {_argcheck.shown(loader)}")
  }
  let norms = [m for m in model.modules() if _is_tracking_batch_norm(m)]
  if len(norms) == 0 { return none }
  let momenta = [m.momentum for m in norms]
  no_grad {
    for m in norms {
      m.running_mean.zero_()
      m.running_var.fill_(1.0)
      m.num_batches_tracked.zero_()
      m.momentum = none
    }
  }
  let was_training = model.training
  model.train()
  for batch in loader {
    let input = batch[0] if type(batch) in ["list", "tuple"] else batch
    model(input if device == none else input.to(device))
  }
  for k in range(len(norms)) { norms[k].momentum = momenta[k] }
  model.train(was_training)
}
