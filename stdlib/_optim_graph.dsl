# The optimizer step and the GradScaler inside a compiled training step:
#
#   let gstep = compile(loss_fn, x, y, train=true, optimizer=opt, scaler=scaler)
#   let loss = gstep(x, y)   # forward, backward, opt.step() (and the scale's update)
#
# interp/builtins/graph_step.cpp calls these (Note [The optimizer inside the graph]
# there): prepare() before it captures, then, while it captures, unscale() and step()
# with the gradients of the loss and scaler_update() with what unscale() found. What
# step() runs becomes the graph's adam_step_ / sgd_step_ nodes (autograd/ops/optim.cpp),
# one per parameter, whose step count, hyperparameters and found_inf are tensors beside
# the parameter: a replayed step reads the current ones (graph_step.cpp writes each
# group's hyperparameters before a call), and a step with Inf or NaN is skipped with no
# host read of found_inf.

# The graph's update of one parameter, per optimizer; hyper: its group's hyperparameter
# tensor.
fn _adam_row(p, g, st, group, hyper, found_inf, decoupled) {
  adam_step_(p, g, st["exp_avg"], st["exp_avg_sq"], st["step"], hyper, found_inf, decoupled=decoupled)
}
fn _sgd_row(p, g, st, group, hyper, found_inf) {
  let buf = st["momentum_buffer"] if "momentum_buffer" in st else none
  let step = st["step"] if "step" in st else none
  sgd_step_(p, g, buf, step, hyper, found_inf, nesterov=group["nesterov"])
}
let _rows = {
  "Adam": fn(p, g, st, group, hyper, found_inf) = _adam_row(p, g, st, group, hyper, found_inf, false),
  "AdamW": fn(p, g, st, group, hyper, found_inf) = _adam_row(p, g, st, group, hyper, found_inf, true),
  "SGD": _sgd_row,
}

# The state a parameter's row reads, made before capturing (a tensor made while
# capturing would be a constant of the graph): the step count as a 0-dim f64 tensor
# beside the parameter (a count already kept as a number becomes one), the moments.
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
  if not ("step" in st) {
    st["step"] = tensor(0.0, dtype=f64, device=device)
    st["exp_avg"] = zeros_like(p)
    st["exp_avg_sq"] = zeros_like(p)
  } elif type(st["step"]) != "tensor" {
    st["step"] = tensor(float(st["step"]), dtype=f64, device=device)
  }
}

# Checks that opt can step inside a graph and makes its state.
fn prepare(opt) {
  let kind = type(opt)
  let who = f"compile(optimizer=optim.{kind})"
  if not (kind in _rows) {
    fail(f"{who}: only optim.Adam, optim.AdamW and optim.SGD step inside a compiled graph; compile without optimizer= and call opt.step() after each call")
  }
  let n = 0
  for g in opt.param_groups { n = n + len(g["params"]) }
  if n != len(opt.params) {
    fail(f"{who}: the parameter groups hold {n} tensors, the optimizer was given {len(opt.params)} (add tensors with add_param_group(), not to a group's 'params')")
  }
  let i = 0
  for group in opt.param_groups {
    if "amsgrad" in group and group["amsgrad"] {
      fail(f"{who}: amsgrad does not step inside a compiled graph; compile without optimizer= and call opt.step() after each call")
    }
    for p in group["params"] {
      if p.dtype != f32 and p.dtype != f64 {
        fail(f"{who}: parameter {i} is {p.dtype}; a step inside a graph updates f32 and f64 parameters (keep 16-bit weights out of the optimizer, or step outside)")
      }
      if p.requires_grad { _state_for(kind, p, opt.state[i], group) }
      i = i + 1
    }
  }
}

# One step of opt with grads (per parameter of opt.params, none where the loss does
# not reach it) and hypers (each group's hyperparameter tensor); found_inf: the
# scaler's (none without one).
# Each group's gradients are made ready (negated to maximize) before its rows, so that
# the rows follow one another and fuse_optimizer makes them one node.
fn step(opt, grads, found_inf, hypers) {
  let row = _rows[type(opt)]
  let i = 0
  no_grad {
    for k in range(len(opt.param_groups)) {
      let group = opt.param_groups[k]
      let stepped = []
      for p in group["params"] {
        let g = grads[i]
        if g != none { stepped.append([p, -g if group["maximize"] else g, opt.state[i]]) }
        i = i + 1
      }
      for (p, g, st) in stepped { row(p, g, st, group, hypers[k], found_inf) }
    }
  }
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
