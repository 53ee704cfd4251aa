# optim: optimizers and learning-rate schedulers with PyTorch's semantics, names and
# defaults (one parameter group).
#
#   import optim
#   let opt = optim.Adam(m.parameters(), lr=1e-3)
#   let sched = optim.CosineAnnealingLR(opt, 100)
#   opt.zero_grad(); loss.backward(); opt.step(); sched.step()
#
# Every optimizer has step() (updates the parameters in place under no_grad and skips
# those whose grad is none), zero_grad() (sets every grad to none; zero_grad(set_to_none=false) zeroes them), a readable and
# settable `lr`, and state_dict() / load_state_dict(d). A state dict is a flat dict of
# numbers and tensors: the hyperparameters under their names ("lr", "momentum",
# "beta1", ...) and each parameter's state under "state.<index>.<name>" (e.g.
# "state.0.exp_avg", "state.0.step"); its tensors are copies.

import math

# --- shared helpers -------------------------------------------------------------------

# set_to_none=false zeroes the existing grads in place instead.
fn _zero_grad(params, set_to_none) {
  for p in params {
    if set_to_none { p.grad = none } elif p.grad != none { p.grad.zero_() }
  }
}

# hyper: a dict of the hyperparameters; states: one dict per parameter.
fn _state_dict(hyper, states) {
  let d = {}
  for k in hyper { d[k] = hyper[k] }
  for i in range(len(states)) {
    let st = states[i]
    for k in st {
      let v = st[k]
      d[f"state.{i}.{k}"] = v.detach().clone() if type(v) == "tensor" else v
    }
  }
  return d
}

# The per-parameter states of a state dict, for n parameters.
fn _load_states(d, n) {
  let states = []
  for i in range(n) { states.append({}) }
  for k in d {
    if k.startswith("state.") {
      let parts = k.split(".")
      let i = int(parts[1])
      if i >= n { fail_load(f"load_state_dict(): '{k}' names parameter {i}, the optimizer has {n}") }
      let v = d[k]
      states[i][parts[2]] = v.detach().clone() if type(v) == "tensor" else v
    }
  }
  return states
}

fn fail_load(msg) = assert(false, msg)

fn _empty_states(n) {
  let states = []
  for i in range(n) { states.append({}) }
  return states
}

# --- optimizers -----------------------------------------------------------------------

# SGD with momentum (PyTorch's torch.optim.SGD): with weight decay g = g + wd * p; with
# momentum buf = g at the first step, then buf = momentum * buf + (1 - dampening) * g,
# and g = g + momentum * buf (nesterov) or g = buf; p = p - lr * g.
model SGD(params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=false, maximize=false) {
  params = list(params)
  lr = lr
  momentum = momentum
  dampening = dampening
  weight_decay = weight_decay
  nesterov = nesterov
  maximize = maximize
  state = _empty_states(len(params))
  let _checked = assert(not nesterov or (momentum > 0 and dampening == 0),
                        "SGD: nesterov momentum requires a momentum and zero dampening")

  zero_grad(set_to_none=true) = _zero_grad(self.params, set_to_none)

  step() {
    no_grad {
      for i in range(len(self.params)) {
        let p = self.params[i]
        let g = p.grad
        if g == none { continue }
        if self.maximize { g = -g }
        if self.weight_decay != 0 { g = g + self.weight_decay * p }
        if self.momentum != 0 {
          let st = self.state[i]
          if "momentum_buffer" in st {
            st["momentum_buffer"].mul_(self.momentum).add_(g * (1 - self.dampening) if self.dampening != 0 else g)
          } else {
            st["momentum_buffer"] = g.detach().clone()
          }
          let buf = st["momentum_buffer"]
          g = g + self.momentum * buf if self.nesterov else buf
        }
        p.sub_(g * self.lr)
      }
    }
  }

  state_dict() = _state_dict({"lr": self.lr, "momentum": self.momentum, "dampening": self.dampening,
                              "weight_decay": self.weight_decay, "nesterov": self.nesterov,
                              "maximize": self.maximize}, self.state)

  load_state_dict(d) {
    self.lr = d["lr"]
    self.momentum = d["momentum"]
    self.dampening = d["dampening"]
    self.weight_decay = d["weight_decay"]
    self.nesterov = d["nesterov"]
    self.maximize = d["maximize"]
    self.state = _load_states(d, len(self.params))
  }
}

# One Adam / AdamW update of parameter p with gradient g and state st (PyTorch 1.13's
# single-tensor algorithm). decoupled: AdamW's p = p * (1 - lr * wd) instead of
# Adam's g = g + wd * p. Contiguous f32/f64 tensors take the fused native update
# (interp/builtins/builtins_optim.cpp, one pass without temporaries), others the tensor ops.
fn _adam_update(p, g, st, lr, beta1, beta2, eps, wd, amsgrad, decoupled) {
  if "step" in st {
    st["step"] = st["step"] + 1
  } else {
    st["step"] = 1
    st["exp_avg"] = zeros_like(p)
    st["exp_avg_sq"] = zeros_like(p)
    if amsgrad { st["max_exp_avg_sq"] = zeros_like(p) }
  }
  let t = st["step"]
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

# Whether Adam/AdamW may use the fused native update (tests compare both paths).
let _fused = [true]
fn _use_fused_adam(on) {
  _fused[0] = on
}

fn zeros_like(p) = zeros(p.shape, dtype=p.dtype, device=p.device)

fn _adam_step(opt, decoupled) {
  no_grad {
    for i in range(len(opt.params)) {
      let p = opt.params[i]
      let g = p.grad
      if g == none { continue }
      if opt.maximize { g = -g }
      _adam_update(p, g, opt.state[i], opt.lr, opt.beta1, opt.beta2, opt.eps, opt.weight_decay,
                   opt.amsgrad, decoupled)
    }
  }
}

fn _adam_hyper(opt) = {"lr": opt.lr, "beta1": opt.beta1, "beta2": opt.beta2, "eps": opt.eps,
                       "weight_decay": opt.weight_decay, "amsgrad": opt.amsgrad, "maximize": opt.maximize}

fn _adam_load(opt, d) {
  opt.lr = d["lr"]
  opt.beta1 = d["beta1"]
  opt.beta2 = d["beta2"]
  opt.betas = (d["beta1"], d["beta2"])
  opt.eps = d["eps"]
  opt.weight_decay = d["weight_decay"]
  opt.amsgrad = d["amsgrad"]
  opt.maximize = d["maximize"]
  opt.state = _load_states(d, len(opt.params))
}

# Adam (torch.optim.Adam): L2 weight decay added to the gradient.
model Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=false, maximize=false) {
  params = list(params)
  lr = lr
  betas = betas
  beta1 = betas[0]
  beta2 = betas[1]
  eps = eps
  weight_decay = weight_decay
  amsgrad = amsgrad
  maximize = maximize
  state = _empty_states(len(params))

  zero_grad(set_to_none=true) = _zero_grad(self.params, set_to_none)
  step() = _adam_step(self, false)
  state_dict() = _state_dict(_adam_hyper(self), self.state)
  load_state_dict(d) = _adam_load(self, d)
}

# AdamW (torch.optim.AdamW): decoupled weight decay, p = p * (1 - lr * weight_decay).
model AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=false, maximize=false) {
  params = list(params)
  lr = lr
  betas = betas
  beta1 = betas[0]
  beta2 = betas[1]
  eps = eps
  weight_decay = weight_decay
  amsgrad = amsgrad
  maximize = maximize
  state = _empty_states(len(params))

  zero_grad(set_to_none=true) = _zero_grad(self.params, set_to_none)
  step() = _adam_step(self, true)
  state_dict() = _state_dict(_adam_hyper(self), self.state)
  load_state_dict(d) = _adam_load(self, d)
}

# RMSprop (torch.optim.RMSprop): square_avg = alpha * square_avg + (1 - alpha) * g^2;
# avg = sqrt(square_avg) + eps (centered: sqrt(square_avg - grad_avg^2) + eps); with
# momentum buf = momentum * buf + g / avg and p = p - lr * buf, else p = p - lr * g / avg.
model RMSprop(params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=false, maximize=false) {
  params = list(params)
  lr = lr
  alpha = alpha
  eps = eps
  weight_decay = weight_decay
  momentum = momentum
  centered = centered
  maximize = maximize
  state = _empty_states(len(params))

  zero_grad(set_to_none=true) = _zero_grad(self.params, set_to_none)

  step() {
    no_grad {
      for i in range(len(self.params)) {
        let p = self.params[i]
        let g = p.grad
        if g == none { continue }
        if self.maximize { g = -g }
        if self.weight_decay != 0 { g = g + self.weight_decay * p }
        let st = self.state[i]
        if "step" in st {
          st["step"] = st["step"] + 1
        } else {
          st["step"] = 1
          st["square_avg"] = zeros_like(p)
          if self.momentum > 0 { st["momentum_buffer"] = zeros_like(p) }
          if self.centered { st["grad_avg"] = zeros_like(p) }
        }
        let sq = st["square_avg"]
        sq.mul_(self.alpha).add_(g * g * (1 - self.alpha))
        let avg = none
        if self.centered {
          let ga = st["grad_avg"]
          ga.mul_(self.alpha).add_(g * (1 - self.alpha))
          avg = (sq - ga * ga).sqrt().add_(self.eps)
        } else {
          avg = sq.sqrt().add_(self.eps)
        }
        if self.momentum > 0 {
          let buf = st["momentum_buffer"]
          buf.mul_(self.momentum).add_(g / avg)
          p.sub_(buf * self.lr)
        } else {
          p.sub_(g.div(avg).mul_(self.lr))
        }
      }
    }
  }

  state_dict() = _state_dict({"lr": self.lr, "alpha": self.alpha, "eps": self.eps,
                              "weight_decay": self.weight_decay, "momentum": self.momentum,
                              "centered": self.centered, "maximize": self.maximize}, self.state)

  load_state_dict(d) {
    self.lr = d["lr"]
    self.alpha = d["alpha"]
    self.eps = d["eps"]
    self.weight_decay = d["weight_decay"]
    self.momentum = d["momentum"]
    self.centered = d["centered"]
    self.maximize = d["maximize"]
    self.state = _load_states(d, len(self.params))
  }
}

# --- learning-rate schedulers ---------------------------------------------------------
# Each takes the optimizer's lr at construction as base_lr, sets the lr of epoch 0 at
# once (as PyTorch does), and on step() advances last_epoch by one and sets the
# optimizer's lr to the closed form below; get_lr() returns the lr it last set, and
# get_last_lr() the same as PyTorch's list of one lr per group, [lr].
# state_dict() / load_state_dict(d) hold base_lr and last_epoch.

fn _set_lr(opt, lr) {
  opt.lr = lr
}

fn _sched_state(s) = {"base_lr": s.base_lr, "last_epoch": s.last_epoch}

# StepLR: lr = base_lr * gamma ** (last_epoch // step_size).
model StepLR(optimizer, step_size, gamma=0.1) {
  optimizer = optimizer
  step_size = step_size
  gamma = gamma
  base_lr = optimizer.lr
  last_epoch = 0
  get_lr() = self.optimizer.lr
  get_last_lr() = [self.optimizer.lr]
  lr_at(e) = self.base_lr * self.gamma ** (e // self.step_size)
  step() {
    self.last_epoch = self.last_epoch + 1
    self.optimizer.lr = self.lr_at(self.last_epoch)
  }
  state_dict() = _sched_state(self)
  load_state_dict(d) {
    self.base_lr = d["base_lr"]
    self.last_epoch = d["last_epoch"]
    self.optimizer.lr = self.lr_at(self.last_epoch)
  }
}

# CosineAnnealingLR: lr = eta_min + (base_lr - eta_min) * (1 + cos(pi * last_epoch / T_max)) / 2.
model CosineAnnealingLR(optimizer, T_max, eta_min=0) {
  optimizer = optimizer
  T_max = T_max
  eta_min = eta_min
  base_lr = optimizer.lr
  last_epoch = 0
  get_lr() = self.optimizer.lr
  get_last_lr() = [self.optimizer.lr]
  lr_at(e) = self.eta_min + (self.base_lr - self.eta_min) * (1 + math.cos(math.pi * e / self.T_max)) / 2
  step() {
    self.last_epoch = self.last_epoch + 1
    self.optimizer.lr = self.lr_at(self.last_epoch)
  }
  state_dict() = _sched_state(self)
  load_state_dict(d) {
    self.base_lr = d["base_lr"]
    self.last_epoch = d["last_epoch"]
    self.optimizer.lr = self.lr_at(self.last_epoch)
  }
}

# LinearWarmup: lr = base_lr * min(1, (last_epoch + 1) / warmup_steps): base_lr /
# warmup_steps at construction, reaching base_lr after warmup_steps - 1 steps and
# staying there. It is PyTorch's LinearLR(start_factor=1/warmup_steps, end_factor=1,
# total_iters=warmup_steps-1).
model LinearWarmup(optimizer, warmup_steps) {
  optimizer = optimizer
  warmup_steps = warmup_steps
  base_lr = optimizer.lr
  last_epoch = 0
  let _started = _set_lr(optimizer, base_lr * min(1.0, 1 / warmup_steps))
  get_lr() = self.optimizer.lr
  get_last_lr() = [self.optimizer.lr]
  lr_at(e) = self.base_lr * min(1.0, (e + 1) / self.warmup_steps)
  step() {
    self.last_epoch = self.last_epoch + 1
    self.optimizer.lr = self.lr_at(self.last_epoch)
  }
  state_dict() = _sched_state(self)
  load_state_dict(d) {
    self.base_lr = d["base_lr"]
    self.last_epoch = d["last_epoch"]
    self.optimizer.lr = self.lr_at(self.last_epoch)
  }
}

# ---- mixed precision ---------------------------------------------------------------

# GradScaler(init_scale=65536, growth_factor=2, backoff_factor=0.5, growth_interval=2000):
# dynamic loss scaling for 16-bit training (PyTorch's torch.cuda.amp.GradScaler):
#   scaler.scale(loss).backward()   # gradients of loss * scale
#   scaler.step(opt)                # unscales them; skips the step on Inf/NaN
#   scaler.update()                 # halves the scale after Inf/NaN, doubles it
#                                   # after growth_interval clean steps
model GradScaler(init_scale=65536.0, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000) {
  current_scale = init_scale
  growth = growth_factor
  backoff = backoff_factor
  interval = growth_interval
  clean_steps = 0
  found_inf = false
  unscaled = false
  scale(loss) = loss * self.current_scale
  get_scale() = self.current_scale
  # Divides every gradient of opt's parameters by the scale and notes Inf/NaN.
  unscale_(opt) {
    if self.unscaled { return none }
    let inv = 1.0 / self.current_scale
    no_grad {
      for p in opt.params {
        if p.grad != none {
          p.grad.mul_(inv)
          if not _all_finite(p.grad) { self.found_inf = true }
        }
      }
    }
    self.unscaled = true
  }
  # opt.step() unless a gradient held Inf or NaN; returns whether it stepped.
  step(opt) {
    self.unscale_(opt)
    if self.found_inf { return false }
    opt.step()
    return true
  }
  update() {
    if self.found_inf {
      self.current_scale = self.current_scale * self.backoff
      self.clean_steps = 0
    } else {
      self.clean_steps = self.clean_steps + 1
      if self.clean_steps == self.interval {
        self.current_scale = self.current_scale * self.growth
        self.clean_steps = 0
      }
    }
    self.found_inf = false
    self.unscaled = false
  }
  state_dict() = {"scale": self.current_scale, "growth_factor": self.growth, "backoff_factor": self.backoff,
                  "growth_interval": self.interval, "clean_steps": self.clean_steps}
  load_state_dict(d) {
    self.current_scale = d["scale"]
    self.clean_steps = d["clean_steps"]
  }
}

# Whether t holds no Inf and no NaN (NaN is the one value unequal to itself).
let _inf = 1e308 * 10.0
fn _all_finite(t) = sum(ne(t, t)).item() == 0 and sum(eq(abs(t), _inf)).item() == 0
