# _nn_utils: the gradient and parameter utilities (PyTorch's torch.nn.utils):
# clip_grad_norm_, clip_grad_value_, parameters_to_vector, vector_to_parameters and
# count_parameters, weight_norm and remove_weight_norm, spectral_norm and
# remove_spectral_norm (stdlib/_nn_spectral.dsl), nn.utils.stateless
# (stdlib/_nn_stateless.dsl: functional_call), and nn.utils.rnn (stdlib/_nn_packed.dsl: pad_sequence, pack_padded_sequence,
# pad_packed_sequence, pack_sequence, PackedSequence). nn re-exports them, as nn.utils
# too; import nn, not this module.
let __name__ = "nn.utils"  # the name messages show (Module::shown_name)
import math
import _nn_packed
import _nn_init
import _nn_stateless
import _nn_spectral
import _nn_parametrize
import _nn_orthogonal

let rnn = _nn_packed
let stateless = _nn_stateless
# spectral_norm and remove_spectral_norm: stdlib/_nn_spectral.dsl (round 8)
let spectral_norm = _nn_spectral.spectral_norm
let remove_spectral_norm = _nn_spectral.remove_spectral_norm
# register_parametrization, remove_parametrizations, is_parametrized: stdlib/_nn_parametrize.dsl (round 8b)
let parametrize = _nn_parametrize
# parametrizations.orthogonal: stdlib/_nn_orthogonal.dsl (round 9)
let parametrizations = _nn_orthogonal

fn _params_of(parameters) {
  if type(parameters) == "list" or type(parameters) == "tuple" { return parameters }
  if type(parameters) == "tensor" { return [parameters] }
  return parameters.parameters()
}

# Scales every gradient in place so that their total norm is at most max_norm; returns
# the total norm before clipping, as a 0-dim tensor of the gradients' dtype. As
# PyTorch's: the norm of the gradients' norms, and the factor min(1, max_norm / (total +
# 1e-6)) applied as a tensor, so nothing waits for the device (only
# error_if_nonfinite=true reads the norm on the host).
fn clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=false) {
  "Scales the gradients of parameters so that their total norm is at most max_norm; returns the norm before. Example: nn.clip_grad_norm_(m.parameters(), 1.0)"
  let grads = []
  for p in _params_of(parameters) {
    if p.grad != none { grads.append(p.grad) }
  }
  if len(grads) == 0 { return tensor(0.0) }
  let inf = norm_type == math.inf or norm_type == "inf"
  let total = none
  no_grad {
    let norms = [(g.abs().max() if inf else g.norm(norm_type)).to(grads[0].dtype) for g in grads]
    total = stack(norms).max() if inf else stack(norms).norm(norm_type)
    if error_if_nonfinite {
      let t = total.item()
      assert(t == t and t != math.inf,
             f"nn.clip_grad_norm_(): the total norm of order {norm_type} of the gradients is {t}; set error_if_nonfinite=false to scale anyway")
    }
    let coef = clamp(max_norm / (total + 1e-6), max=1.0)
    for g in grads { g.mul_(coef) }
  }
  return total
}

# Clamps every gradient to [-value, value].
fn clip_grad_value_(parameters, clip_value) {
  "Clamps every gradient of parameters to [-clip_value, clip_value]. Example: nn.clip_grad_value_(m.parameters(), 0.5)"
  no_grad {
    for p in _params_of(parameters) {
      if p.grad != none { p.grad = clamp(p.grad, min=-clip_value, max=clip_value) }
    }
  }
}

# The number of trainable parameter elements of a model (or a list of tensors).
fn count_parameters(m) {
  "The number of parameter elements of a model (shared tensors once). Example: nn.count_parameters(nn.Linear(3, 4))"
  let n = 0
  for p in _params_of(m) {
    if p.requires_grad { n = n + p.numel() }
  }
  return n
}

# Every parameter flattened and joined into one 1-D tensor, in order (as PyTorch's
# parameters_to_vector); vector_to_parameters copies such a vector back, in place.
fn parameters_to_vector(parameters) {
  "The parameters flattened and joined into one 1-D tensor. Example: nn.utils.parameters_to_vector(nn.Linear(2, 2).parameters())"
  let parts = [p.reshape([-1]) for p in _params_of(parameters)]
  assert(len(parts) > 0, "parameters_to_vector(): no parameters")
  return cat(parts)
}

fn vector_to_parameters(vec, parameters) {
  "Copies consecutive slices of vec into the parameters, in place. Example: nn.utils.vector_to_parameters(v, m.parameters())"
  let params = _params_of(parameters)
  let total = 0
  for p in params { total = total + p.numel() }
  assert(vec.ndim == 1 and vec.numel() == total,
         f"vector_to_parameters(): vec must be 1-D with {total} elements (the parameters'), got shape {list(vec.shape)}")
  let at = 0
  no_grad {
    for p in params {
      p.copy_(vec[at:at + p.numel()].reshape(list(p.shape)))
      at = at + p.numel()
    }
  }
}

# Note [Weight normalization]
# PyTorch's torch.nn.utils.weight_norm(module, name="weight", dim=0) replaces the
# parameter `name` by two, `name_g` (the norm, over every dim but `dim`) and `name_v`
# (the direction), and recomputes `name = v * (g / ||v||)` in a forward pre-hook, so
# gradients reach g and v and the optimizer steps them. The recomputed weight is a
# plain field, not a parameter: state_dict and parameters() list bias, name_g, name_v
# in that order, as PyTorch's. dim=none (PyTorch passes -1 for it) takes one norm over
# the whole tensor, a 0-dim g. remove_weight_norm folds them back into one parameter.
# The field `_<name>_weight_norm` holds (dim, serial) and the hook acts only while the
# field holds its own serial: remove_weight_norm deletes the field, which leaves the
# hook a no-op rather than removing it by its handle, since a handle removes from the
# module it was made on, and a deepcopy's hooks are copies (PyTorch finds its WeightNorm
# hook in the copy's own hooks; nabla cannot list them).
fn _norm_except_dim(v, dim) {
  if dim == none { return v.norm() }
  let dims = [d for d in range(v.ndim) if d != dim]
  if len(dims) == 0 { return v.abs() }
  return v.pow(2).sum(dims, keepdim=true).sqrt()
}

fn _check_weight_norm_name(who, name) {
  assert(type(name) == "str", f"{who}: name must be a str (the parameter's name), got {type(name)}")
}

# the field that holds (dim, serial) of a weight-normed `name`
fn _weight_norm_field(name) = "_" + name + "_weight_norm"
let _weight_norm_serial = [0]

fn _weight_from_g_v(module, name, dim) {
  let v = getattr(module, name + "_v")
  return v * (getattr(module, name + "_g") / _norm_except_dim(v, dim))
}

fn weight_norm(module, name="weight", dim=0) {
  "Reparameterizes module.<name> as <name>_g * <name>_v / ||<name>_v||, recomputed before each forward (PyTorch's torch.nn.utils.weight_norm); returns the module. Example: nn.utils.weight_norm(nn.Conv1d(4, 8, 3))"
  assert(type(module) != "tensor" and getattr(module, "named_children", none) != none,
         f"nn.utils.weight_norm(): module must be a model, got {type(module)}")
  _check_weight_norm_name("nn.utils.weight_norm()", name)
  # a bool or float dim passed the range check below and was read as 1 or 1.0, silently
  assert(dim == none or type(dim) == "int", f"nn.utils.weight_norm(): dim must be an int or none, got {type(dim)} {repr(dim)}")
  assert(hasattr(module, name) and type(getattr(module, name)) == "tensor",
         f"nn.utils.weight_norm(): the module has no tensor field '{name}'")
  assert(not hasattr(module, _weight_norm_field(name)),
         f"nn.utils.weight_norm(): '{name}' already has weight_norm; call remove_weight_norm first")
  let w = getattr(module, name)
  assert(dim == none or (dim >= -w.ndim and dim < w.ndim),
         f"nn.utils.weight_norm(): dim {dim} is out of range for '{name}' of shape {list(w.shape)}")
  # -1 is PyTorch's spelling of none (one norm over the whole tensor); other negative dims count from the end
  let d = none if dim == none or dim == -1 else (dim + w.ndim if dim < 0 else dim)
  let g = _nn_init.Parameter(_norm_except_dim(w, d).detach().clone())
  let v = _nn_init.Parameter(w.detach().clone())
  delattr(module, name)
  setattr(module, name + "_g", g)
  setattr(module, name + "_v", v)
  setattr(module, name, _weight_from_g_v(module, name, d))
  _weight_norm_serial[0] = _weight_norm_serial[0] + 1
  let serial = _weight_norm_serial[0]
  fn recompute(m, args) {
    let state = getattr(m, _weight_norm_field(name), none)
    if state != none and state[1] == serial { setattr(m, name, _weight_from_g_v(m, name, d)) }
  }
  module.register_forward_pre_hook(recompute)
  setattr(module, _weight_norm_field(name), (d, serial))
  return module
}

fn remove_weight_norm(module, name="weight") {
  "Folds <name>_g and <name>_v back into one parameter <name>, and the hook stops (PyTorch's torch.nn.utils.remove_weight_norm); returns the module."
  _check_weight_norm_name("nn.utils.remove_weight_norm()", name)
  let field = _weight_norm_field(name)
  assert(hasattr(module, field), f"nn.utils.remove_weight_norm(): weight_norm of '{name}' not found in {type(module)}")
  let (d, serial) = getattr(module, field)
  # from g and v as they are now (an optimizer step may have moved them since the last forward)
  let w = none
  no_grad { w = _weight_from_g_v(module, name, d).detach().clone() }
  delattr(module, field)
  delattr(module, name + "_g")
  delattr(module, name + "_v")
  delattr(module, name)
  setattr(module, name, _nn_init.Parameter(w))
  return module
}
