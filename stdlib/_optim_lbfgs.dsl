# _optim_lbfgs: optim.LBFGS, the one optimizer whose step re-evaluates the loss
# (step(closure)) and keeps flat tensors and lists of them as its state; the rest of
# the optimizer form (groups, state dicts) is stdlib/_optim_groups.dsl's. optim
# re-exports it; import optim, not this module.
import math
import _optim_groups

let _all_params = _optim_groups._all_params
let _empty_states = _optim_groups._empty_states
let _group_option = _optim_groups._group_option
let _load_state_dict = _optim_groups._load_state_dict
let _param_groups_of = _optim_groups._param_groups_of
let _set_group_option = _optim_groups._set_group_option
let _state_dict = _optim_groups._state_dict
let _zero_grad = _optim_groups._zero_grad

# LBFGS (torch.optim.LBFGS, PyTorch 1.13's algorithm): step(closure) runs up to
# max_iter quasi-Newton iterations (max_eval evaluations of closure, which zeroes the
# grads, computes the loss, calls backward() and returns it), the direction from the
# last history_size updates, each step lr (line_search_fn=none) or a strong-Wolfe line
# search ("strong_wolfe"). One parameter group, as PyTorch's. Its state (state[0]) holds
# flat tensors and lists of them (d, old_dirs, ...): it cannot step inside a graph.
model LBFGS(params, lr=1, max_iter=20, max_eval=none, tolerance_grad=1e-7, tolerance_change=1e-9, history_size=100, line_search_fn=none) {
  """L-BFGS: a quasi-Newton method over every parameter at once, step(closure) re-evaluating the loss, as torch.optim.LBFGS.

  Example: fn closure() { opt.zero_grad(); let l = loss_fn(); l.backward(); return l }; opt.step(closure)
  """
  defaults = {"lr": lr, "max_iter": max_iter, "max_eval": _lbfgs_max_eval(max_iter, max_eval), "tolerance_grad": tolerance_grad,
              "tolerance_change": tolerance_change, "history_size": history_size, "line_search_fn": line_search_fn}
  param_groups = _lbfgs_one_group(_param_groups_of(self, params, defaults))
  params = _all_params(param_groups)
  state = _empty_states(len(self.params))
  __getattr__(name) = _group_option(self, name)
  __setattr__(name, value) = _set_group_option(self, name, value)
  add_param_group(param_group) { "LBFGS has one parameter group (an error, as PyTorch's step())."; fail("optim.LBFGS.add_param_group(): LBFGS does not support parameter groups (it has one)") }
  zero_grad(set_to_none=true) { "Sets every grad to none (or zeros). Example: opt.zero_grad()"; _zero_grad(self.params, set_to_none) }
  step(closure) { "Up to max_iter L-BFGS iterations; closure() zeroes the grads, returns the loss after backward(). Returns the first loss. Example: opt.step(closure)"; return _lbfgs_step(self, closure) }
  state_dict() { "The hyperparameters and the state, as a flat dict. Example: let sd = opt.state_dict()"; return _state_dict(self) }
  load_state_dict(d) { "Restores a state_dict(). Example: opt.load_state_dict(sd)"; _load_state_dict(self, d) }
}

fn _lbfgs_max_eval(max_iter, max_eval) = max_eval if max_eval != none or type(max_iter) != "int" else max_iter * 5 // 4

fn _lbfgs_one_group(groups) {
  if len(groups) != 1 { fail(f"optim.LBFGS(): LBFGS does not support parameter groups (per-parameter options), got {len(groups)}") }
  return groups
}

fn _lbfgs_flat_grad(ps) = cat([(zeros([p.numel()], dtype=p.dtype, device=p.device) if p.grad == none else p.grad.reshape([-1])) for p in ps])

# p = p + step_size * update for each parameter's slice of the flat update.
fn _lbfgs_add(ps, step_size, update) {
  let offset = 0
  no_grad {
    for p in ps {
      let n = p.numel()
      p.add_(update[offset:offset + n].reshape(p.shape) * step_size)
      offset = offset + n
    }
  }
}

# One evaluation of the closure, its loss checked: a closure returning something else
# is named here, not as item() or float() failing inside the step.
fn _lbfgs_call(closure) {
  let loss = closure()
  let kind = type(loss)
  if kind == "tensor" and loss.numel() != 1 {
    fail(f"optim.LBFGS.step(): the closure must return the loss, a one-element tensor or a number, got a tensor of shape {list(loss.shape)}")
  }
  if not (kind in ["tensor", "int", "float"]) {
    fail(f"optim.LBFGS.step(): the closure must return the loss, a one-element tensor or a number, got {kind}")
  }
  return loss
}

fn _lbfgs_loss(closure) {
  let loss = _lbfgs_call(closure)
  return loss.item() if type(loss) == "tensor" else float(loss)
}

# The loss and flat gradient at x + t * d, the parameters put back to x after.
fn _lbfgs_directional(ps, closure, x, t, d) {
  _lbfgs_add(ps, t, d)
  let loss = _lbfgs_loss(closure)
  let flat = _lbfgs_flat_grad(ps)
  no_grad { for k in range(len(ps)) { ps[k].copy_(x[k]) } }
  return [loss, flat]
}

fn _lbfgs_cubic(x1, f1, g1, x2, f2, g2, bounds=none) {
  let (lo, hi) = bounds if bounds != none else ((x1, x2) if x1 <= x2 else (x2, x1))
  let d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
  let d2_square = d1 * d1 - g1 * g2
  if d2_square >= 0 {
    let d2 = math.sqrt(d2_square)
    let min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2)) if x1 <= x2 else x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(min_pos, lo), hi)
  }
  return (lo + hi) / 2.0
}

# PyTorch's _strong_wolfe (c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
# [loss, flat grad, t, evaluations].
fn _lbfgs_strong_wolfe(obj, x, t, d, f, g, gtd) {
  let c1 = 1e-4
  let c2 = 0.9
  let tolerance_change = 1e-9
  let max_ls = 25
  let d_norm = d.abs().max().item()
  g = g.clone()
  let (f_new, g_new) = obj(x, t, d)
  let ls_func_evals = 1
  let gtd_new = g_new.dot(d).item()
  let t_prev = 0
  let f_prev = f
  let g_prev = g
  let gtd_prev = gtd
  let done = false
  let ls_iter = 0
  let bracket = none
  let bracket_f = none
  let bracket_g = none
  let bracket_gtd = none
  while ls_iter < max_ls {
    if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev) {
      bracket = [t_prev, t]
      bracket_f = [f_prev, f_new]
      bracket_g = [g_prev, g_new.clone()]
      bracket_gtd = [gtd_prev, gtd_new]
      break
    }
    if abs(gtd_new) <= -c2 * gtd {
      bracket = [t]
      bracket_f = [f_new]
      bracket_g = [g_new]
      done = true
      break
    }
    if gtd_new >= 0 {
      bracket = [t_prev, t]
      bracket_f = [f_prev, f_new]
      bracket_g = [g_prev, g_new.clone()]
      bracket_gtd = [gtd_prev, gtd_new]
      break
    }
    let min_step = t + 0.01 * (t - t_prev)
    let max_step = t * 10
    let tmp = t
    t = _lbfgs_cubic(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(min_step, max_step))
    t_prev = tmp
    f_prev = f_new
    g_prev = g_new.clone()
    gtd_prev = gtd_new
    let fg = obj(x, t, d)
    f_new = fg[0]
    g_new = fg[1]
    ls_func_evals = ls_func_evals + 1
    gtd_new = g_new.dot(d).item()
    ls_iter = ls_iter + 1
  }
  if ls_iter == max_ls {
    bracket = [0, t]
    bracket_f = [f, f_new]
    bracket_g = [g, g_new]
  }
  let insuf_progress = false
  let low_pos = 0 if bracket_f[0] <= bracket_f[-1] else 1
  let high_pos = 1 - low_pos
  while not done and ls_iter < max_ls {
    if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change { break }
    t = _lbfgs_cubic(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1])
    let bmax = max(bracket[0], bracket[1])
    let bmin = min(bracket[0], bracket[1])
    let eps = 0.1 * (bmax - bmin)
    if min(bmax - t, t - bmin) < eps {
      if insuf_progress or t >= bmax or t <= bmin {
        t = bmax - eps if abs(t - bmax) < abs(t - bmin) else bmin + eps
        insuf_progress = false
      } else {
        insuf_progress = true
      }
    } else {
      insuf_progress = false
    }
    let fg = obj(x, t, d)
    f_new = fg[0]
    g_new = fg[1]
    ls_func_evals = ls_func_evals + 1
    gtd_new = g_new.dot(d).item()
    ls_iter = ls_iter + 1
    if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low_pos] {
      bracket[high_pos] = t
      bracket_f[high_pos] = f_new
      bracket_g[high_pos] = g_new.clone()
      bracket_gtd[high_pos] = gtd_new
      low_pos = 0 if bracket_f[0] <= bracket_f[1] else 1
      high_pos = 1 - low_pos
    } else {
      if abs(gtd_new) <= -c2 * gtd {
        done = true
      } elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0 {
        bracket[high_pos] = bracket[low_pos]
        bracket_f[high_pos] = bracket_f[low_pos]
        bracket_g[high_pos] = bracket_g[low_pos]
        bracket_gtd[high_pos] = bracket_gtd[low_pos]
      }
      bracket[low_pos] = t
      bracket_f[low_pos] = f_new
      bracket_g[low_pos] = g_new.clone()
      bracket_gtd[low_pos] = gtd_new
    }
  }
  return [bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], ls_func_evals]
}

fn _lbfgs_step(opt, closure) {
  let group = opt.param_groups[0]
  let ps = group["params"]
  let lr = group["lr"]
  let max_iter = group["max_iter"]
  let max_eval = group["max_eval"]
  let tolerance_grad = group["tolerance_grad"]
  let tolerance_change = group["tolerance_change"]
  let history_size = group["history_size"]
  let state = opt.state[0]
  if not ("func_evals" in state) { state["func_evals"] = 0 }
  if not ("n_iter" in state) { state["n_iter"] = 0 }
  if not callable(closure) {
    fail(f"optim.LBFGS.step(): closure must be a function of no arguments that zeroes the grads, computes the loss, calls backward() and returns it; got {type(closure)}")
  }
  let orig_loss = _lbfgs_call(closure)
  let loss = orig_loss.item() if type(orig_loss) == "tensor" else float(orig_loss)
  let current_evals = 1
  state["func_evals"] = state["func_evals"] + 1
  let flat_grad = _lbfgs_flat_grad(ps)
  if flat_grad.abs().max().item() <= tolerance_grad { return orig_loss }
  let get = fn(k) = state[k] if k in state else none
  let d = get("d")
  let t = get("t")
  let old_dirs = get("old_dirs")
  let old_stps = get("old_stps")
  let ro = get("ro")
  let H_diag = get("H_diag")
  let prev_flat_grad = get("prev_flat_grad")
  let prev_loss = get("prev_loss")
  let n_iter = 0
  while n_iter < max_iter {
    n_iter = n_iter + 1
    state["n_iter"] = state["n_iter"] + 1
    if state["n_iter"] == 1 {
      d = -flat_grad
      old_dirs = []
      old_stps = []
      ro = []
      H_diag = 1
    } else {
      let y = flat_grad - prev_flat_grad
      let s = d * t
      let ys = y.dot(s).item()
      if ys > 1e-10 {
        if len(old_dirs) == history_size {
          old_dirs.pop(0)
          old_stps.pop(0)
          ro.pop(0)
        }
        old_dirs.append(y)
        old_stps.append(s)
        ro.append(1.0 / ys)
        H_diag = ys / y.dot(y).item()
      }
      let num_old = len(old_dirs)
      if not ("al" in state) { state["al"] = [none] * history_size }
      let al = state["al"]
      let q = -flat_grad
      for i in range(num_old - 1, -1, -1) {
        al[i] = old_stps[i].dot(q).item() * ro[i]
        q = q - old_dirs[i] * al[i]
      }
      let r = q * H_diag
      for i in range(num_old) {
        let be_i = old_dirs[i].dot(r).item() * ro[i]
        r = r + old_stps[i] * (al[i] - be_i)
      }
      d = r
    }
    prev_flat_grad = flat_grad.clone()
    prev_loss = loss
    t = min(1.0, 1.0 / flat_grad.abs().sum().item()) * lr if state["n_iter"] == 1 else lr
    let gtd = flat_grad.dot(d).item()
    if gtd > -tolerance_change { break }
    let ls_func_evals = 0
    let opt_cond = false
    if group["line_search_fn"] != none {
      let x_init = [p.detach().clone() for p in ps]
      let obj = fn(x, t, d) = _lbfgs_directional(ps, closure, x, t, d)
      let res = _lbfgs_strong_wolfe(obj, x_init, t, d, loss, flat_grad, gtd)
      loss = res[0]
      flat_grad = res[1]
      t = res[2]
      ls_func_evals = res[3]
      _lbfgs_add(ps, t, d)
      opt_cond = flat_grad.abs().max().item() <= tolerance_grad
    } else {
      _lbfgs_add(ps, t, d)
      if n_iter != max_iter {
        loss = _lbfgs_loss(closure)
        flat_grad = _lbfgs_flat_grad(ps)
        opt_cond = flat_grad.abs().max().item() <= tolerance_grad
        ls_func_evals = 1
      }
    }
    current_evals = current_evals + ls_func_evals
    state["func_evals"] = state["func_evals"] + ls_func_evals
    if n_iter == max_iter { break }
    if current_evals >= max_eval { break }
    if opt_cond { break }
    if (d * t).abs().max().item() <= tolerance_change { break }
    if abs(loss - prev_loss) < tolerance_change { break }
  }
  state["d"] = d
  state["t"] = t
  state["old_dirs"] = old_dirs
  state["old_stps"] = old_stps
  state["ro"] = ro
  state["H_diag"] = H_diag
  state["prev_flat_grad"] = prev_flat_grad
  state["prev_loss"] = prev_loss
  return orig_loss
}
