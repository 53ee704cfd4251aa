# _nn_parametrize: PyTorch 1.13's torch.nn.utils.parametrize (round 8b,
# tests/stdlib/test_gaps_vs_torch8b_nn.dsl): register_parametrization,
# remove_parametrizations, is_parametrized. nn.utils re-exports it as
# nn.utils.parametrize; import nn, not this module.
#
# Note [Parametrizations]
# register_parametrization(module, "weight", p) moves the tensor to
# module.parametrizations.weight.original (a parameter if it was one, else a buffer;
# p.right_inverse(weight) when p has one) and makes module.weight p(original), so
# state_dict's keys are PyTorch's ("parametrizations.weight.original", and p's own under
# "parametrizations.weight.0."), gradients reach `original` and an optimizer steps it. A
# second parametrization of the same tensor chains after the first. PyTorch recomputes
# the weight at every read of module.weight (a property); nabla's models have no
# per-instance properties, so the weight is recomputed when registered and before each
# forward of the module (a pre-hook, as weight_norm's and spectral_norm's): a read of
# module.weight between an optimizer step and the next forward sees the weight of the
# last forward (module.parametrizations.weight() computes it afresh). A tensor assigned
# to module.weight by hand is carried to `original` through right_inverse by that hook
# (_assign_through), so the next forward uses it, as PyTorch's property does; without a
# right_inverse it is an error there, at the forward, where PyTorch raises at the
# assignment (it was silently overwritten before). The hook acts only
# while the field `_<name>_parametrized` holds its own serial (the scheme of Note
# [Weight normalization] in stdlib/_nn_utils.dsl).
let __name__ = "nn.utils.parametrize"  # the name messages show (Module::shown_name)
import _nn_init
import _nn_containers

let _serial = [0]
fn _field(name) = "_" + name + "_parametrized"
fn _is_model(m) = type(m) != "tensor" and getattr(m, "named_children", none) != none

# The chain of parametrizations of one tensor: `original`, then the modules "0", "1", ...
model ParametrizationList(original, is_parameter) {
  "The parametrizations of one tensor and its original (module.parametrizations.<name>), as PyTorch's ParametrizationList. Example: nn.utils.parametrize.register_parametrization(nn.Linear(2, 2), \"weight\", nn.Identity()).parametrizations.weight.original"
  _count = 0
  _written = [none]  # the weight last written to the module's field (a list: no buffer)
  let _keep = _nn_init.Parameter(original) if is_parameter else none
  let _buf = is_parameter or self.register_buffer("original", original)
  let _set = (not is_parameter) or setattr(self, "original", _keep)
  append(p) {
    setattr(self, str(self._count), p)
    self._count = self._count + 1
    return self
  }
  __getitem__(i) = [getattr(self, str(k)) for k in range(self._count)][i]
  __len__() = self._count
  forward() {
    let x = self.original
    for k in range(self._count) { x = getattr(self, str(k))(x) }
    return x
  }
}

# the weight the chain gives, never the original itself (a field holding a leaf that
# requires grad would be listed as a second parameter)
fn _value(chain) {
  let y = chain()
  return y.view(list(y.shape)) if y.is_leaf and y.requires_grad else y
}

fn _check_module(who, module) {
  if not _is_model(module) { fail(f"nn.utils.parametrize.{who}(): module must be a model, got {type(module)}") }
}

fn is_parametrized(module, tensor_name=none) {
  "Whether module has a parametrization (on tensor_name, when given), as torch.nn.utils.parametrize.is_parametrized. Example: nn.utils.parametrize.is_parametrized(nn.Linear(2, 2))"
  if not _is_model(module) or not hasattr(module, "parametrizations") { return false }
  return tensor_name == none or tensor_name in module.parametrizations.keys()
}

fn _checked_output(who, name, y, like) {
  if type(y) != "tensor" { fail(f"nn.utils.parametrize.{who}(): the parametrization must return a tensor, got {type(y)}") }
  if list(y.shape) != list(like.shape) or y.dtype != like.dtype {
    fail(f"nn.utils.parametrize.{who}(): the parametrization may not change the shape or dtype of '{name}' ({list(like.shape)} {like.dtype} became {list(y.shape)} {y.dtype}) unless unsafe=true")
  }
}

fn register_parametrization(module, tensor_name, parametrization, unsafe=false) {
  "Makes module.<tensor_name> parametrization(original), original kept as module.parametrizations.<tensor_name>.original (a second call chains), as torch.nn.utils.parametrize.register_parametrization (Note [Parametrizations]); returns the module. Example: nn.utils.parametrize.register_parametrization(nn.Linear(3, 3), \"weight\", nn.Tanh())"
  let who = "register_parametrization"
  _check_module(who, module)
  if type(tensor_name) != "str" { fail(f"nn.utils.parametrize.{who}(): tensor_name must be a str, got {type(tensor_name)}") }
  if not _is_model(parametrization) { fail(f"nn.utils.parametrize.{who}(): parametrization must be a model (an nn.Module), got {type(parametrization)}") }
  if type(unsafe) != "bool" { fail(f"nn.utils.parametrize.{who}(): unsafe must be true or false, got {type(unsafe)}") }
  if is_parametrized(module, tensor_name) {
    let chain = module.parametrizations[tensor_name]
    let before = getattr(module, tensor_name)
    if not unsafe {
      let y = none
      no_grad { y = parametrization(chain().detach()) }
      _checked_output(who, tensor_name, y, before)
    }
    chain.append(parametrization)
    _write(module, tensor_name)
    return module
  }
  if not (hasattr(module, tensor_name) and type(getattr(module, tensor_name)) == "tensor") {
    fail(f"nn.utils.parametrize.{who}(): the module has no parameter or buffer '{tensor_name}'")
  }
  let w = getattr(module, tensor_name)
  let is_parameter = any([n == tensor_name for (n, _) in module.named_parameters()])
  let original = w.detach()
  if hasattr(parametrization, "right_inverse") {
    no_grad { original = parametrization.right_inverse(original) }
    if type(original) != "tensor" { fail(f"nn.utils.parametrize.{who}(): right_inverse must return a tensor, got {type(original)}") }
  }
  if not unsafe {
    let y = none
    no_grad { y = parametrization(original) }
    _checked_output(who, tensor_name, y, w)
  }
  let chain = ParametrizationList(original.detach(), is_parameter)
  chain.append(parametrization)
  delattr(module, tensor_name)
  if not hasattr(module, "parametrizations") { setattr(module, "parametrizations", _nn_containers.ModuleDict()) }
  module.parametrizations[tensor_name] = chain
  _write(module, tensor_name)
  _serial[0] = _serial[0] + 1
  let serial = _serial[0]
  fn recompute(m, args) {
    if getattr(m, _field(tensor_name), none) == serial {
      let chain = m.parametrizations[tensor_name]
      let current = getattr(m, tensor_name)
      if not (current is chain._written[0]) { _assign_through(chain, tensor_name, current) }
      _write(m, tensor_name)
    }
  }
  module.register_forward_pre_hook(recompute)
  setattr(module, _field(tensor_name), serial)
  return module
}

# module.<name> becomes the chain's weight, remembered: any other tensor found there
# later was assigned by hand.
fn _write(module, name) {
  let chain = module.parametrizations[name]
  chain._written[0] = _value(chain)
  setattr(module, name, chain._written[0])
}

# module.<name> = value by hand, seen by the next forward's hook (Note [Parametrizations]):
# as PyTorch's assignment, value goes back through each parametrization's right_inverse,
# last first, into `original` (in place, so an optimizer still holds it); a
# parametrization without one makes it an error, as PyTorch's (there at the assignment).
fn _assign_through(chain, name, value) {
  let who = "nn.utils.parametrize"
  if type(value) != "tensor" { fail(f"{who}: module.{name} was assigned {type(value)}; a parametrized tensor takes a tensor") }
  let v = value
  no_grad {
    for k in reversed(range(chain._count)) {
      let p = chain[k]
      if not hasattr(p, "right_inverse") {
        fail(f"{who}: module.{name} was assigned by hand, but parametrization {type(p)} has no right_inverse to carry the value to parametrizations.{name}.original (PyTorch refuses the assignment)")
      }
      v = p.right_inverse(v)
    }
    let o = chain.original
    if type(v) != "tensor" or list(v.shape) != list(o.shape) or v.dtype != o.dtype {
      let found = f"{list(v.shape)} {v.dtype}" if type(v) == "tensor" else type(v)
      fail(f"{who}: module.{name} was assigned a value whose right_inverse is {found}, not the original's {list(o.shape)} {o.dtype}")
    }
    o.copy_(v)
  }
}

fn remove_parametrizations(module, tensor_name, leave_parametrized=true) {
  "Removes the parametrizations of module.<tensor_name>, leaving its current value (or the original when leave_parametrized=false) as a plain parameter or buffer, as torch.nn.utils.parametrize.remove_parametrizations; returns the module. Example: nn.utils.parametrize.remove_parametrizations(nn.utils.parametrize.register_parametrization(nn.Linear(2, 2), \"weight\", nn.Tanh()), \"weight\")"
  let who = "remove_parametrizations"
  _check_module(who, module)
  if type(leave_parametrized) != "bool" { fail(f"nn.utils.parametrize.{who}(): leave_parametrized must be true or false, got {type(leave_parametrized)}") }
  if not is_parametrized(module, tensor_name) { fail(f"nn.utils.parametrize.{who}(): module {type(module)} has no parametrization on {repr(tensor_name)}") }
  let chain = module.parametrizations[tensor_name]
  let original = chain.original
  let is_parameter = any([n == "original" for (n, _) in chain.named_parameters()])
  let value = original.detach()
  if leave_parametrized {
    no_grad { value = chain().detach() }
    if value.dtype != original.dtype { fail(f"nn.utils.parametrize.{who}(): leave_parametrized=true needs the parametrized '{tensor_name}' in its original's dtype ({original.dtype}), got {value.dtype}") }
  }
  delattr(module, _field(tensor_name))
  delattr(module, tensor_name)
  delattr(module.parametrizations, tensor_name)
  if len(module.parametrizations) == 0 { delattr(module, "parametrizations") }
  if is_parameter { setattr(module, tensor_name, _nn_init.Parameter(value.clone())) } else { module.register_buffer(tensor_name, value.clone()) }
  return module
}
