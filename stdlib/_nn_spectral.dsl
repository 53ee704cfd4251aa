# _nn_spectral: nn.utils.spectral_norm and remove_spectral_norm (round 8,
# tests/stdlib/test_gaps_vs_torch8_nn.dsl). nn.utils re-exports them; import nn, not this
# module.
#
# Note [Spectral normalization]
# PyTorch's torch.nn.utils.spectral_norm(module, name="weight", n_power_iterations=1,
# eps=1e-12, dim=none) keeps the parameter as `name_orig` and two buffers `name_u` and
# `name_v` (unit vectors, drawn from N(0, 1) and normalized), and before each forward sets
# `name = name_orig / sigma`, sigma = u . (W v) for W the weight as a matrix (dim `dim`
# first: 0, or 1 for the transposed convolutions). In training the hook first runs
# n_power_iterations of v = normalize(W^T u), u = normalize(W v) without gradient,
# writing the buffers in place; in eval it uses them as they are. The gradient reaches
# name_orig through W in sigma and in the division, with u and v constants, as PyTorch's.
# Until the first forward `name` is name_orig itself, as PyTorch's. The hook acts only
# while the field `_<name>_spectral_norm` holds its own serial (the scheme of Note [Weight
# normalization] in stdlib/_nn_utils.dsl), so remove_spectral_norm leaves it a no-op.
import _nn_init

fn _spectral_field(name) = "_" + name + "_spectral_norm"
let _spectral_serial = [0]

# x / max(||x||, eps) of a vector (torch.nn.functional.normalize's rule)
fn _unit(x, eps) = x / x.norm().clamp(min=eps)

# the weight as a matrix [h, w] with `dim` first
fn _as_matrix(weight, dim) {
  let w = weight
  if dim != 0 { w = w.permute([dim] + [d for d in range(w.ndim) if d != dim]) }
  return w.reshape([w.shape[0], -1])
}

# (name_orig / sigma) of module, after n power iterations (0 in eval), the buffers written in place
fn _spectral_weight(module, name, dim, n, eps) {
  let weight = getattr(module, name + "_orig")
  let u = getattr(module, name + "_u")
  let v = getattr(module, name + "_v")
  let mat = _as_matrix(weight, dim)
  if n > 0 {
    no_grad {
      for _ in range(n) {
        v.copy_(_unit(mat.T @ u, eps))
        u.copy_(_unit(mat @ v, eps))
      }
    }
    u = u.clone()
    v = v.clone()
  }
  return weight / (u * (mat @ v)).sum()
}

fn _is_transposed_conv(module) = type(module) in ["ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]

fn spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=none) {
  "Reparameterizes module.<name> as <name>_orig / sigma, its largest singular value estimated by power iteration before each forward in training (PyTorch's torch.nn.utils.spectral_norm); returns the module. Example: nn.utils.spectral_norm(nn.Linear(4, 3))"
  if type(module) == "tensor" or getattr(module, "named_children", none) == none {
    fail(f"nn.utils.spectral_norm(): module must be a model, got {type(module)}")
  }
  if type(name) != "str" { fail(f"nn.utils.spectral_norm(): name must be a str (the parameter's name), got {type(name)}") }
  if not (hasattr(module, name) and type(getattr(module, name)) == "tensor") {
    fail(f"nn.utils.spectral_norm(): the module has no tensor field '{name}'")
  }
  if hasattr(module, _spectral_field(name)) { fail(f"nn.utils.spectral_norm(): '{name}' already has spectral_norm; call remove_spectral_norm first") }
  if type(n_power_iterations) != "int" or n_power_iterations < 0 {
    fail(f"nn.utils.spectral_norm(): n_power_iterations must be an int of at least 0, got {repr(n_power_iterations)}")
  }
  if not (type(eps) in ["int", "float"]) or not (eps > 0) { fail(f"nn.utils.spectral_norm(): eps must be a number above 0, got {repr(eps)}") }
  let w = getattr(module, name)
  if w.ndim == 0 { fail(f"nn.utils.spectral_norm(): '{name}' must have at least 1 dim, got a 0-dim tensor") }
  let d0 = (1 if _is_transposed_conv(module) else 0) if dim == none else dim
  if type(d0) != "int" or d0 < -w.ndim or d0 >= w.ndim {
    fail(f"nn.utils.spectral_norm(): dim must be a dim of '{name}' of shape {list(w.shape)}, got {repr(dim)}")
  }
  let d = d0 % w.ndim
  let mat = _as_matrix(w.detach(), d)
  let u = _unit(randn([mat.shape[0]], dtype=w.dtype, device=w.device), eps)
  let v = _unit(randn([mat.shape[1]], dtype=w.dtype, device=w.device), eps)
  let orig = _nn_init.Parameter(w.detach().clone())
  delattr(module, name)
  setattr(module, name + "_orig", orig)
  module.register_buffer(name + "_u", u)
  module.register_buffer(name + "_v", v)
  setattr(module, name, orig.detach())
  _spectral_serial[0] = _spectral_serial[0] + 1
  let serial = _spectral_serial[0]
  fn recompute(m, args) {
    let state = getattr(m, _spectral_field(name), none)
    if state != none and state[1] == serial {
      setattr(m, name, _spectral_weight(m, name, state[0], n_power_iterations if m.training else 0, eps))
    }
  }
  module.register_forward_pre_hook(recompute)
  setattr(module, _spectral_field(name), (d, serial, eps))
  return module
}

fn remove_spectral_norm(module, name="weight") {
  "Folds <name>_orig / sigma (u and v as they are) back into one parameter <name> and stops the hook (PyTorch's torch.nn.utils.remove_spectral_norm); returns the module. Example: nn.utils.remove_spectral_norm(nn.utils.spectral_norm(nn.Linear(4, 3)))"
  if type(name) != "str" { fail(f"nn.utils.remove_spectral_norm(): name must be a str (the parameter's name), got {type(name)}") }
  let field = _spectral_field(name)
  if not hasattr(module, field) { fail(f"nn.utils.remove_spectral_norm(): spectral_norm of '{name}' not found in {type(module)}") }
  let (d, serial, eps) = getattr(module, field)
  let w = none
  no_grad { w = _spectral_weight(module, name, d, 0, eps).detach().clone() }
  delattr(module, field)
  delattr(module, name + "_orig")
  delattr(module, name + "_u")
  delattr(module, name + "_v")
  delattr(module, name)
  setattr(module, name, _nn_init.Parameter(w))
  return module
}
