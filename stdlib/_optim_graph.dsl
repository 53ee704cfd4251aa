# The optimizer step and the GradScaler inside a compiled training step:
#
#   let gstep = compile(loss_fn, x, y, train=true, optimizer=opt, scaler=scaler)
#   let loss = gstep(x, y)   # forward, backward, opt.step() (and the scale's update)
#
# interp/builtins/graph_step.cpp calls these (Note [The optimizer inside the graph]
# there): prepare() before it captures, then, while it captures, unscale() and step()
# with the gradients of the loss and the scaler's _update_scale with what unscale()
# found. What step() runs becomes graph nodes: Adam's, AdamW's and SGD's adam_step_ /
# sgd_step_ rows (autograd/ops/optim.cpp), the other optimizers' tensor ops, one
# update per parameter, whose step count, hyperparameters and found_inf are tensors
# beside the parameter: a replayed step reads the current ones (graph_step.cpp writes
# each group's hyperparameters before a call), and a step with Inf or NaN is skipped
# with no host read of found_inf.

# The graph's update of one parameter, per optimizer: p, its gradient g, its state st,
# its group, the group's hyperparameter tensor h and the scaler's found_inf (none
# without one). Adam, AdamW and SGD are rows of the table (one kernel each, fused per
# group by fuse_optimizer); the others are the tensor ops of their eager update in
# stdlib/optim.dsl, in the same order, so that f64 results are eager's to the bit
# (Note [Optimizers written as ops] below).
fn _adam_row(p, g, st, group, h, found_inf, decoupled) {
  if group["amsgrad"] { return _amsgrad_update(p, g, st, group, h, found_inf, decoupled) }
  adam_step_(p, g, st["exp_avg"], st["exp_avg_sq"], st["step"], h, found_inf, decoupled=decoupled)
}
fn _sgd_row(p, g, st, group, h, found_inf) {
  let buf = st["momentum_buffer"] if "momentum_buffer" in st else none
  let step = st["step"] if "step" in st else none
  sgd_step_(p, g, buf, step, h, found_inf, nesterov=group["nesterov"])
}

# Note [Optimizers written as ops]
# An optimizer without a row steps inside the graph as tensor ops, which the fuse pass
# makes one kernel per parameter and which run wherever the graph runs (CPU, CUDA, a
# replayed CUDA graph). Everything that changes between calls is a tensor, read when
# the graph runs: the hyperparameters (h, refreshed before each call by graph_step.cpp
# from param_groups, so a scheduler needs no new capture), the step count, NAdam's
# mu_product and ASGD's eta and mu (0-dim f64 state tensors, as PyTorch's capturable
# optimizers keep them), and found_inf. What eager decides on a number that changes
# (RAdam's rho_t > 5, ASGD's mu != 1) or per element (Rprop's sign of g * prev) is a
# where() over both results. What eager decides on a flag (centered, momentum > 0,
# weight_decay != 0) is fixed by the capture and part of its signature
# (_structure). Each update computes every new value from the old state first and
# writes them all at its end (_commit), so no op reads a tensor after its write; with
# a scaler, a step whose gradients hold Inf or NaN writes back the old values.

# Writes each [tensor, new value] pair; with found_inf, keeps the old value where it is
# nonzero (a skipped step).
fn _commit(pairs, found_inf) {
  for (t, new) in pairs { t.copy_(new if found_inf == none else where(found_inf != 0, t, new)) }
}

# h[k] for the names in order (hyper_keys in graph_step.cpp).
fn _hypers(h, n) = [h[k] for k in range(n)]

# g with L2 weight decay when the group decays (a flag of the capture).
fn _decayed(g, p, group, wd) = g + wd * p if group["weight_decay"] != 0 else g

# Adam and AdamW with amsgrad: h = [lr, beta1, beta2, eps, weight_decay].
fn _amsgrad_update(p, g, st, group, h, found_inf, decoupled) {
  let (lr, beta1, beta2, eps, wd) = _hypers(h, 5)
  let t = st["step"] + 1
  let p0 = p
  if group["weight_decay"] != 0 {
    if decoupled { p0 = p * (1 - lr * wd) } else { g = g + wd * p }
  }
  let m = st["exp_avg"] * beta1 + g * (1 - beta1)
  let v = st["exp_avg_sq"] * beta2 + g * g * (1 - beta2)
  let bc1 = 1 - beta1 ** t
  let bc2_sqrt = sqrt(1 - beta2 ** t)
  let mx = maximum(st["max_exp_avg_sq"], v)
  let denom = mx.sqrt() / bc2_sqrt + eps
  _commit([[st["exp_avg"], m], [st["exp_avg_sq"], v], [st["max_exp_avg_sq"], mx], [st["step"], t],
           [p, p0 - m / denom * (lr / bc1)]], found_inf)
}

# RMSprop: h = [lr, alpha, eps, weight_decay, momentum].
fn _rmsprop_update(p, g, st, group, h, found_inf) {
  let (lr, alpha, eps, wd, momentum) = _hypers(h, 5)
  g = _decayed(g, p, group, wd)
  let sq = st["square_avg"] * alpha + g * g * (1 - alpha)
  let writes = [[st["square_avg"], sq], [st["step"], st["step"] + 1]]
  let avg = none
  if group["centered"] {
    let ga = st["grad_avg"] * alpha + g * (1 - alpha)
    writes.append([st["grad_avg"], ga])
    avg = (sq - ga * ga).sqrt() + eps
  } else {
    avg = sq.sqrt() + eps
  }
  if group["momentum"] > 0 {
    let buf = st["momentum_buffer"] * momentum + g / avg
    writes.append([st["momentum_buffer"], buf])
    writes.append([p, p - buf * lr])
  } else {
    writes.append([p, p - g / avg * lr])
  }
  _commit(writes, found_inf)
}

# Adagrad: h = [lr, lr_decay, weight_decay, eps].
fn _adagrad_update(p, g, st, group, h, found_inf) {
  let (lr, lr_decay, wd, eps) = _hypers(h, 4)
  let step = st["step"] + 1
  g = _decayed(g, p, group, wd)
  let clr = lr / (1 + (step - 1) * lr_decay)
  let acc = st["sum"] + g * g
  _commit([[st["sum"], acc], [st["step"], step], [p, p - g / (acc.sqrt() + eps) * clr]], found_inf)
}

# Adamax: h = [lr, beta1, beta2, eps, weight_decay].
fn _adamax_update(p, g, st, group, h, found_inf) {
  let (lr, beta1, beta2, eps, wd) = _hypers(h, 5)
  let step = st["step"] + 1
  g = _decayed(g, p, group, wd)
  let m = st["exp_avg"] * beta1 + g * (1 - beta1)
  let exp_inf = maximum(st["exp_inf"] * beta2, g.abs() + eps)
  _commit([[st["exp_avg"], m], [st["exp_inf"], exp_inf], [st["step"], step],
           [p, p - m / exp_inf * (lr / (1 - beta1 ** step))]], found_inf)
}

# NAdam: h = [lr, beta1, beta2, eps, weight_decay, momentum_decay].
fn _nadam_update(p, g, st, group, h, found_inf) {
  let (lr, beta1, beta2, eps, wd, momentum_decay) = _hypers(h, 6)
  let step = st["step"] + 1
  let bias_correction2 = 1 - beta2 ** step
  g = _decayed(g, p, group, wd)
  let mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * momentum_decay))
  let mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * momentum_decay))
  let mu_product = st["mu_product"] * mu
  let mu_product_next = mu_product * mu * mu_next
  let m = st["exp_avg"] * beta1 + g * (1 - beta1)
  let v = st["exp_avg_sq"] * beta2 + g * g * (1 - beta2)
  let denom = (v / bias_correction2).sqrt() + eps
  let p1 = p - g / denom * (lr * (1.0 - mu) / (1.0 - mu_product))
  let p2 = p1 - m / denom * (lr * mu_next / (1.0 - mu_product_next))
  _commit([[st["exp_avg"], m], [st["exp_avg_sq"], v], [st["mu_product"], mu_product], [st["step"], step],
           [p, p2]], found_inf)
}

# RAdam: h = [lr, beta1, beta2, eps, weight_decay]. While rho_t <= 5 the step is the
# bias-corrected momentum alone; the rectified step's NaN there is not selected.
fn _radam_update(p, g, st, group, h, found_inf) {
  let (lr, beta1, beta2, eps, wd) = _hypers(h, 5)
  let step = st["step"] + 1
  let bias_correction1 = 1 - beta1 ** step
  let bias_correction2 = 1 - beta2 ** step
  g = _decayed(g, p, group, wd)
  let m = st["exp_avg"] * beta1 + g * (1 - beta1)
  let v = st["exp_avg_sq"] * beta2 + g * g * (1 - beta2)
  let corrected = m / bias_correction1
  let rho_inf = 2 / (1 - beta2) - 1
  let rho_t = rho_inf - 2 * step * beta2 ** step / bias_correction2
  let rect = sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
  let adaptive_lr = sqrt(bias_correction2) / (v.sqrt() + eps)
  let rectified = p - corrected * lr * adaptive_lr * rect
  _commit([[st["exp_avg"], m], [st["exp_avg_sq"], v], [st["step"], step],
           [p, where(rho_t > 5.0, rectified, p - corrected * lr)]], found_inf)
}

# Adadelta: h = [lr, rho, eps, weight_decay].
fn _adadelta_update(p, g, st, group, h, found_inf) {
  let (lr, rho, eps, wd) = _hypers(h, 4)
  g = _decayed(g, p, group, wd)
  let square_avg = st["square_avg"] * rho + g * g * (1 - rho)
  let std = (square_avg + eps).sqrt()
  let delta = (st["acc_delta"] + eps).sqrt() / std * g
  let acc_delta = st["acc_delta"] * rho + delta * delta * (1 - rho)
  _commit([[st["square_avg"], square_avg], [st["acc_delta"], acc_delta], [st["step"], st["step"] + 1],
           [p, p - delta * lr]], found_inf)
}

# Rprop: h = [etaminus, etaplus, step_size_min, step_size_max] (lr only starts the
# step sizes). The factor by the sign of g * prev is a where() in p's dtype.
fn _rprop_update(p, g, st, group, h, found_inf) {
  let (etaminus, etaplus, step_size_min, step_size_max) = _hypers(h, 4)
  let s = g * st["prev"]
  let factor = where(s > 0, etaplus, where(s < 0, etaminus, ones_like(p).to(f64))).to(p.dtype)
  let step_size = minimum(maximum(st["step_size"] * factor, step_size_min.to(p.dtype)), step_size_max.to(p.dtype))
  let kept = where(s < 0, zeros_like(g), g)
  _commit([[st["step_size"], step_size], [st["prev"], kept], [st["step"], st["step"] + 1],
           [p, p - kept.sign() * step_size]], found_inf)
}

# ASGD: h = [lr, lambd, alpha, t0, weight_decay]; eta and mu are 0-dim f64 state
# tensors, what eager decides on mu != 1 a where().
fn _asgd_update(p, g, st, group, h, found_inf) {
  let (lr, lambd, alpha, t0, wd) = _hypers(h, 5)
  let step = st["step"] + 1
  g = _decayed(g, p, group, wd)
  let eta = st["eta"]
  let mu = st["mu"]
  let p1 = p * (1 - lambd * eta) - g * eta
  let ax = where(mu != 1, st["ax"] + (p1 - st["ax"]) * mu, p1)
  let past = step - t0
  _commit([[st["ax"], ax], [st["eta"], lr / (1 + lambd * lr * step) ** alpha],
           [st["mu"], where(past > 1, 1 / past, ones_like(past))], [st["step"], step], [p, p1]], found_inf)
}

let _updates = {
  "Adam": fn(p, g, st, group, h, found_inf) = _adam_row(p, g, st, group, h, found_inf, false),
  "AdamW": fn(p, g, st, group, h, found_inf) = _adam_row(p, g, st, group, h, found_inf, true),
  "SGD": _sgd_row,
  "RMSprop": _rmsprop_update,
  "Adagrad": _adagrad_update,
  "Adamax": _adamax_update,
  "NAdam": _nadam_update,
  "RAdam": _radam_update,
  "Adadelta": _adadelta_update,
  "Rprop": _rprop_update,
  "ASGD": _asgd_update,
}

# The state entries a parameter's update reads, each a function of p that makes it
# when it is missing, before capturing (a tensor made while capturing would be a
# constant of the graph).
fn _zeros(p) = zeros_like(p)
fn _state_entries(kind, group) {
  if kind in ["Adam", "AdamW"] {
    let e = {"exp_avg": _zeros, "exp_avg_sq": _zeros}
    if group["amsgrad"] { e["max_exp_avg_sq"] = _zeros }
    return e
  }
  if kind == "RMSprop" {
    let e = {"square_avg": _zeros}
    if group["momentum"] > 0 { e["momentum_buffer"] = _zeros }
    if group["centered"] { e["grad_avg"] = _zeros }
    return e
  }
  if kind == "Adagrad" { return {"sum": fn(p) = full_like(p, group["initial_accumulator_value"])} }
  if kind == "Adamax" { return {"exp_avg": _zeros, "exp_inf": _zeros} }
  if kind == "NAdam" { return {"mu_product": fn(p) = tensor(1.0, dtype=f64, device=p.device), "exp_avg": _zeros, "exp_avg_sq": _zeros} }
  if kind == "Adadelta" { return {"square_avg": _zeros, "acc_delta": _zeros} }
  if kind == "Rprop" { return {"prev": _zeros, "step_size": fn(p) = full_like(p, group["lr"])} }
  if kind == "ASGD" {
    return {"eta": fn(p) = tensor(float(group["lr"]), dtype=f64, device=p.device),
            "mu": fn(p) = tensor(1.0, dtype=f64, device=p.device), "ax": _zeros}
  }
  return {"exp_avg": _zeros, "exp_avg_sq": _zeros}   # RAdam
}

# The state for a parameter's update: SGD's buffer, every other optimizer's entries;
# the step count, and numbers that eager steps kept (NAdam's mu_product, ASGD's eta
# and mu), as 0-dim f64 tensors beside p.
fn _state_for(kind, p, st, group) {
  let device = p.device
  if kind == "SGD" {
    if group["momentum"] == 0 { return none }
    if not ("momentum_buffer" in st) {
      st["momentum_buffer"] = zeros_like(p)
      st["step"] = tensor(0.0, dtype=f64, device=device)
    } elif not ("step" in st) {
      st["step"] = tensor(1.0, dtype=f64, device=device)  # the buffer of eager steps: not its first
    }
    return none
  }
  if not ("step" in st) { st["step"] = 0.0 }
  let entries = _state_entries(kind, group)
  for k in entries {
    if not (k in st) { st[k] = entries[k](p) }
  }
  for k in _numbers {
    if k in st and type(st[k]) != "tensor" { st[k] = tensor(float(st[k]), dtype=f64, device=device) }
  }
}

# The state entries that are numbers in eager steps (0-dim f64 tensors here).
let _numbers = ["step", "mu_product", "eta", "mu"]

fn _written_as_ops(kind, group) = not (kind in ["SGD", "Adam", "AdamW"]) or ("amsgrad" in group and group["amsgrad"])

# A state tensor set by hand between calls (or loaded) must fit its parameter: the
# update reads it beside the parameter, element for element.
fn _check_state(who, i, p, st) {
  for k in st {
    let v = st[k]
    if not (k in _numbers) and type(v) == "tensor" and (v.shape != p.shape or v.device != p.device) {
      fail(f"{who}: state[{i}]['{k}'] is {v.dtype}{list(v.shape)} on {v.device}, its parameter {p.dtype}{list(p.shape)} on {p.device}")
    }
  }
}

# What the captured update depends on besides the hyperparameter tensors: the flags it
# branched on (graph_step.cpp's signature adds this string; another value captures
# again).
fn structure(opt) {
  let kind = type(opt)
  let s = ""
  for group in opt.param_groups {
    if kind in ["SGD", "RMSprop"] { s = s + ("momentum," if group["momentum"] > 0 else "plain,") }
    if _written_as_ops(kind, group) and "weight_decay" in group { s = s + ("decay;" if group["weight_decay"] != 0 else "no decay;") }
  }
  return s
}

# Checks that opt is an optimizer that steps inside a graph (when compile() is called).
fn check(opt) {
  if type(opt) == "LBFGS" {
    fail("compile(): optim.LBFGS cannot step inside a graph: its step(closure) evaluates the loss again, several times per step; compile without optimizer= and call opt.step(closure) after each call")
  }
  if not (type(opt) in _updates) {
    fail(f"compile(): optimizer must be an optimizer of optim (SGD, Adam, AdamW, RMSprop, Adagrad, Adamax, NAdam, RAdam, Adadelta, Rprop, ASGD), got a {type(opt)}")
  }
}

# Checks that opt's parameters can step inside a graph and makes its state (before
# each capture).
fn prepare(opt) {
  let kind = type(opt)
  let who = f"compile(optimizer=optim.{kind})"
  let n = 0
  for g in opt.param_groups { n = n + len(g["params"]) }
  if n != len(opt.params) {
    fail(f"{who}: the parameter groups hold {n} tensors, the optimizer was given {len(opt.params)} (add tensors with add_param_group(), not to a group's 'params')")
  }
  let i = 0
  for group in opt.param_groups {
    for p in group["params"] {
      if p.dtype != f32 and p.dtype != f64 {
        fail(f"{who}: parameter {i} is {p.dtype}; a step inside a graph updates f32 and f64 parameters (keep 16-bit weights out of the optimizer, or step outside)")
      }
      if p.requires_grad {
        _state_for(kind, p, opt.state[i], group)
        _check_state(who, i, p, opt.state[i])
      }
      i = i + 1
    }
  }
}

# One step of opt with grads (per parameter of opt.params, none where the loss does
# not reach it) and hypers (each group's hyperparameter tensor); found_inf: the
# scaler's (none without one); reached: per parameter, none, or a 0-dim f32 flag that
# is 0 in a call whose loss does not reach it (Note [Gradients a lowered branch may not
# reach], graph/gradient_reach.hpp): that call skips it, as eager's step skips a
# parameter whose .grad is none.
# Each group's gradients are made ready (negated to maximize) before its updates, so
# that its rows follow one another and fuse_optimizer makes them one node.
fn step(opt, grads, found_inf, hypers, reached) {
  let update = _updates[type(opt)]
  let i = 0
  no_grad {
    for k in range(len(opt.param_groups)) {
      let group = opt.param_groups[k]
      let stepped = []
      for p in group["params"] {
        let g = grads[i]
        if g != none {
          let ready = -g if "maximize" in group and group["maximize"] else g
          stepped.append([p, ready, opt.state[i], _skip(found_inf, reached[i])])
        }
        i = i + 1
      }
      for (p, g, st, skip) in stepped { update(p, g, st, group, hypers[k], skip) }
    }
  }
}

# What skips one parameter's update: found_inf, or its gradient not reached.
fn _skip(found_inf, reached) {
  if reached == none { return found_inf }
  let unreached = 1.0 - reached
  return unreached if found_inf == none else maximum(found_inf, unreached)
}

# 1 where a gradient holds Inf or NaN, else 0, as a 0-dim f32 tensor computed on the
# gradients' device (no host read): g * 0 is NaN exactly where g is not finite, and a
# sum with a NaN in it is NaN, the one value unequal to itself.
fn _nonfinite(grads) {
  let total = none
  for g in grads {
    if g != none {
      let s = sum(g * 0.0)
      total = s if total == none else total + s
    }
  }
  return tensor(0.0) if total == none else ne(total, total).to(f32)
}

# The scaler's part: the gradients unscaled and what they hold, [grads, found_inf].
fn unscale(scaler, grads) {
  let inv = scaler._inverse_scale()
  let out = [(none if g == none else g * inv) for g in grads]
  return [out, _nonfinite(out)]
}
