# _nn_utils: the gradient and parameter utilities (PyTorch's torch.nn.utils):
# clip_grad_norm_, clip_grad_value_, parameters_to_vector, vector_to_parameters and
# count_parameters, and nn.utils.rnn (stdlib/_nn_packed.dsl: pad_sequence, pack_padded_sequence,
# pad_packed_sequence, pack_sequence, PackedSequence). nn re-exports them, as nn.utils
# too; import nn, not this module.
import math
import _nn_packed

let rnn = _nn_packed

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
