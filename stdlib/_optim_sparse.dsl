# _optim_sparse: optim.SparseAdam, PyTorch's lazy Adam for embedding tables; the rest
# of the optimizer form (groups, state dicts) is stdlib/_optim_groups.dsl's. optim
# re-exports it; import optim, not this module.
import math
import _optim_groups

let _all_params = _optim_groups._all_params
let _empty_states = _optim_groups._empty_states
let _group_option = _optim_groups._group_option
let _load_state_dict = _optim_groups._load_state_dict
let _next_step = _optim_groups._next_step
let _param_groups_of = _optim_groups._param_groups_of
let _set_group_option = _optim_groups._set_group_option
let _state_dict = _optim_groups._state_dict
let _step_groups = _optim_groups._step_groups
let _zero_grad = _optim_groups._zero_grad

# Note [SparseAdam on dense gradients]
# PyTorch's SparseAdam takes the sparse gradient of an nn.Embedding(sparse=True) and
# updates the moments and the parameter only at the rows it names (the rows looked
# up): the other rows' moments do not decay and the rows do not move, where Adam would
# keep moving every row that was ever looked up. Gradients here are dense
# (nn.Embedding(sparse=true) gives a dense one), so a row takes part in a step when
# its gradient is not all zero: the same rows, except a row that was looked up and got
# an exactly zero gradient, which PyTorch's would still step (its moments decay). The
# arithmetic is PyTorch 1.13's (_functional.sparse_adam), row for row.
model SparseAdam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=false) {
  """Adam that updates only the rows of each parameter whose gradient is nonzero (the embedding rows looked up), as torch.optim.SparseAdam.

  Example: optim.SparseAdam(list(nn.Embedding(1000, 16, sparse=true).parameters()), lr=1e-2)
  """
  defaults = {"lr": lr, "betas": betas, "eps": eps, "maximize": maximize}
  param_groups = _param_groups_of(self, params, defaults)   # Note [The optimizer form] (_optim_groups.dsl)
  params = _all_params(param_groups)
  state = _empty_states(len(self.params))
  __getattr__(name) = _group_option(self, name)
  __setattr__(name, value) = _set_group_option(self, name, value)
  add_param_group(param_group) { "Adds a group: {'params': [...], hyperparameter: value}. Example: opt.add_param_group({'params': ps, 'lr': 0.01})"; _optim_groups._add_param_group(self, param_group) }
  zero_grad(set_to_none=true) { "Sets every grad to none (or zeros). Example: opt.zero_grad()"; _zero_grad(self.params, set_to_none) }
  step() { "Updates the rows of every parameter whose gradient is nonzero. Example: opt.step()"; _step_groups(self, _sparse_adam_update) }
  state_dict() { "Every group's hyperparameters and the state, as a flat dict. Example: let sd = opt.state_dict()"; return _state_dict(self) }
  load_state_dict(d) { "Restores a state_dict(). Example: opt.load_state_dict(sd)"; _load_state_dict(self, d) }
}

# The rows (dim 0) of g that are not all zero, as a mask that broadcasts against g.
fn _touched_rows(g) {
  if g.dim() == 0 { return g != 0 }
  let rows = (g != 0).reshape([g.shape[0], -1]).any(1)
  return rows.reshape([g.shape[0]] + [1] * (g.dim() - 1))
}

fn _sparse_adam_update(p, g, st, group) {
  let step = _next_step(st, p, fn(p) = {"exp_avg": zeros_like(p), "exp_avg_sq": zeros_like(p)})
  let (beta1, beta2) = group["betas"]
  let rows = _touched_rows(g)
  let m = st["exp_avg"]
  let v = st["exp_avg_sq"]
  let m_new = m + (g - m) * (1 - beta1)
  let v_new = v + (g * g - v) * (1 - beta2)
  let step_size = group["lr"] * math.sqrt(1 - beta2 ** step) / (1 - beta1 ** step)
  let update = m_new / (v_new.sqrt() + group["eps"]) * -step_size
  m.copy_(where(rows, m_new, m))
  v.copy_(where(rows, v_new, v))
  p.add_(where(rows, update, zeros_like(update)))
}
