# prune: pruning with masks kept through training (PyTorch's torch.nn.utils.prune),
# a sparsity report, and channel pruning that really shrinks a Sequential CNN.
#
#   prune.l1_unstructured(m.fc, "weight", amount=0.5)   # the 50% smallest |w| -> 0
#   prune.ln_structured(m.conv, "weight", 0.25, n=2, dim=0)   # whole filters
#   prune.global_unstructured([(m.c1, "weight"), (m.fc, "weight")], prune.L1Unstructured, amount=0.8)
#   prune.sparsity_report(m)                             # a table per parameter
#   prune.remove(m.fc, "weight")                         # make it permanent
#   let small = prune.shrink_channels(cnn, amount=0.5)   # a new, smaller model
#
# Note [Pruning masks]: pruning `weight` of a module leaves three fields, as in
# PyTorch: `weight_orig`, the parameter (the very tensor that was `weight`, so an
# optimizer made before pruning still updates it), `weight_mask`, a buffer of 0s and
# 1s (state_dict, save and load keep it), and `weight`, a plain attribute equal to
# weight_orig * weight_mask that a forward pre-hook recomputes before every call.
# Every forward therefore uses zeros at the pruned entries whatever the optimizer did
# to weight_orig there, and their gradient (through the mask) is zero. compile()
# binds weight_orig and weight_mask by name and records the product, so masks are
# always changed in place (copy_), never replaced, and a graph keeps seeing them.
# Pruning a parameter again combines the masks (PyTorch's PruningContainer): the
# amount counts the entries, or channels, that are still unpruned.
import nn
import math

# ---- amounts and the k smallest values --------------------------------------------

# How many of n entries `amount` prunes: an int is a count, a float in [0, 1] a
# fraction rounded half to even (PyTorch's _compute_nparams_toprune).
fn _count(amount, n) {
  if type(amount) == "int" {
    assert(amount >= 0, f"prune: amount={amount} should either be a float in the range [0, 1] or a non-negative integer")
    assert(amount <= n, f"prune: amount={amount} should be smaller than the number of parameters to prune={n}")
    return amount
  }
  assert(type(amount) == "float" and amount >= 0.0 and amount <= 1.0,
         f"prune: amount={amount} should either be a float in the range [0, 1] or a non-negative integer")
  return round(amount * n)
}

# The k-th smallest value (1 <= k <= numel) of a 1-d tensor, as a 0-dim tensor. The
# op table has no sort, topk or kthvalue: this is quickselect made of ops. Each round
# counts the values below and equal to a pivot and keeps one side (a copy through a
# bool mask), so the work shrinks geometrically; the pivot is the middle element,
# which keeps the global random generator untouched.
fn _kth_smallest(a, k) {
  while true {
    let p = a[a.numel() // 2]
    let below = a < p
    let n_below = sum(below).item()
    if k <= n_below {
      a = a[below]
      continue
    }
    let n_equal = sum(a == p).item()
    if k <= n_below + n_equal { return p }
    a = a[a > p]
    k = k - n_below - n_equal
  }
}

# A mask of scores' shape and `dtype`: 0 at the k smallest scores (ties go in order
# of position), 1 elsewhere. Exactly k zeros.
fn _keep_mask(scores, k, dtype) {
  # NaN ranks above every number, as in PyTorch's topk (a NaN pivot emptied the
  # quickselect: "index 0 is out of range" from inside the library).
  let flat = where(isnan(scores), float("inf"), scores).reshape([-1])
  if k == 0 { return ones(list(scores.shape), dtype=dtype, device=scores.device) }
  let v = _kth_smallest(flat, k)
  let below = flat < v
  let ties = flat == v
  let position = arange(flat.numel(), device=flat.device)
  let last = position[ties][k - sum(below).item() - 1]  # the last tie that goes
  let drop = below + ties * (position <= last)          # bool + is or, * is and
  return where(drop, zeros_like(flat, dtype=dtype), ones_like(flat, dtype=dtype)).reshape(list(scores.shape))
}

# ---- masks of each method (scores: the importance of each entry, mask: the current one)

# Prunes `amount` of the entries that the mask still keeps, the smallest scores first.
fn _unstructured(scores, mask, amount) {
  let kept = sum(mask != 0).item()
  let k = _count(amount, kept)
  # Pruned entries score -inf: they are among the smallest, so the k + already
  # pruned smallest are the old zeros plus k new ones.
  return _keep_mask(where(mask == 0, float("-inf"), scores), k + mask.numel() - kept, mask.dtype)
}

# The Ln norm of each slice of t along `dim` (n a number or math.inf).
fn _slice_norms(t, n, dim) {
  let others = []
  for d in range(t.ndim) {
    if d != dim { others.append(d) }
  }
  let a = t.abs()
  if len(others) == 0 { return a }
  if n == math.inf { return _max_over(a, others) }
  if n == 1 { return a.sum(dim=others) }
  return (a ** n).sum(dim=others) ** (1.0 / n)
}

fn _max_over(a, dims) {
  for d in reversed(sorted(dims)) { a = a.max(dim=d)[0] }
  return a
}

# Prunes `amount` of the slices along `dim` that still have a nonzero mask entry,
# those of smallest Ln norm first; every entry of a pruned slice becomes 0.
fn _structured(t, mask, amount, n, dim) {
  assert(dim >= -t.ndim and dim < t.ndim, f"prune: dim={dim} is out of range for a tensor of shape {list(t.shape)}")
  if dim < 0 { dim = dim + t.ndim }
  let alive = _slice_norms(mask, 1, dim) != 0
  let channels = sum(alive).item()
  let k = _count(amount, channels)
  let scores = where(alive, _slice_norms(t, n, dim).to(f64), float("-inf"))
  let keep = _keep_mask(scores, k + t.shape[dim] - channels, mask.dtype)
  let shape = []
  for d in range(t.ndim) { shape.append(t.shape[d] if d == dim else 1) }
  return mask * keep.reshape(shape)
}

# ---- applying a mask to a module's parameter --------------------------------------------

# The value a (possibly pruned) parameter has in forward: weight_orig * weight_mask.
fn _effective(module, name) {
  let orig = getattr(module, name + "_orig", none)
  if orig == none { return getattr(module, name) }
  return orig * getattr(module, name + "_mask")
}

fn _recompute(module, name) {
  setattr(module, name, getattr(module, name + "_orig") * getattr(module, name + "_mask"))
}

# The forward pre-hook of every pruned module: recomputes each pruned parameter.
fn _recompute_all(module, input) {
  for name in module._pruned { _recompute(module, name) }
}

# Applies `compute(t, mask) -> new mask` to module.name: the first time it makes
# name_orig and name_mask (see Note [Pruning masks]); after that it updates the mask
# in place, composing with the old one. Returns the module.
fn _prune(module, name, compute) {
  _check_target("prune", module, name)
  let orig = getattr(module, name + "_orig", none)
  if orig == none {
    let w = getattr(module, name, none)
    assert(isinstance(w, "tensor") and w.requires_grad and w.is_leaf,
           f"prune: {type(module)} has no parameter '{name}'")
    let mask = none
    no_grad { mask = compute(w.detach(), ones_like(w)) }
    setattr(module, name + "_orig", w)
    setattr(module, name, none)  # a plain attribute from now on: _recompute assigns w * mask to it
    module.register_buffer(name + "_mask", mask)
    if getattr(module, "_pruned", none) == none {
      module._pruned = []
      module.register_forward_pre_hook(_recompute_all)
    }
    module._pruned.append(name)
  } else {
    let mask = getattr(module, name + "_mask")
    no_grad { mask.copy_(compute((orig * mask).detach(), mask)) }
  }
  _recompute(module, name)
  return module
}

# A tensor the user gives in place of the parameter's own values (importance_scores, a
# mask): none means the parameter `t` itself; a tensor must have t's shape, as PyTorch
# asserts (one of another shape was broadcast, or failed inside where() or mul).
fn _shaped_like(who, what, given, t) {
  if given == none { return t }
  if type(given) != "tensor" { fail(f"{who}: {what} must be a tensor of the parameter's shape {list(t.shape)}, got {type(given)}") }
  if list(given.shape) != list(t.shape) {
    fail(f"{who}: {what} of shape {list(given.shape)} must have the parameter's shape {list(t.shape)}")
  }
  return given
}

# ln_structured's n: the order of the norm, a number (math.inf for the max).
fn _check_norm(who, n) {
  if not (type(n) in ["int", "float"]) { fail(f"{who}: n (the order of the norm) must be a number such as 1, 2 or math.inf, got {repr(n)}") }
}

# A pruning target: a model instance and the name (a str) of one of its attributes.
fn _check_target(who, module, name) {
  if not nn._is_module(module) {
    let hint = " (pass the layer and the name: prune.l1_unstructured(layer, \"weight\"))" if type(module) == "tensor" else ""
    fail(f"{who}: module must be a layer (a model instance), got {type(module)}{hint}")
  }
  if type(name) != "str" { fail(f"{who}: name must be a str (the parameter's name, \"weight\"), got {type(name)}") }
}

# A whole model argument (is_pruned, remove_all, the reports, the channel pruning): a
# model instance, checked at the call so that 5 is not an error about named_buffers
# inside the library.
fn _check_model(who, model) {
  if not nn._is_module(model) { fail(f"{who}: model must be a model instance (an nn layer or a model of yours), got {type(model)}") }
}

# global_unstructured's parameters: a list of (module, name) pairs.
fn _check_pairs(parameters) {
  let who = "prune.global_unstructured()"
  if not (type(parameters) in ["list", "tuple"]) {
    fail(f"{who}: parameters must be a list of (module, name) pairs, got {type(parameters)}")
  }
  if len(parameters) == 0 { fail(f"{who}: parameters is empty: give at least one (module, name) pair") }
  for i in range(len(parameters)) {
    let p = parameters[i]
    if not (type(p) in ["tuple", "list"] and len(p) == 2) {
      fail(f"{who}: parameters[{i}] must be a (module, name) pair such as (model.fc1, \"weight\"), got {type(p)}")
    }
    _check_target(f"{who}: parameters[{i}]", p[0], p[1])
  }
}

# ---- the pruning methods (PyTorch's names and defaults) -----------------------------------

fn l1_unstructured(module, name="weight", amount=0.3, importance_scores=none) {
  """Prunes amount (a fraction, or a count) of module.name's entries, those of smallest absolute
  value (or importance_scores), as torch.nn.utils.prune.l1_unstructured; returns module.

  Example: prune.l1_unstructured(nn.Linear(8, 4), "weight", amount=0.5)
  """
  return _prune(module, name, fn(t, mask) = _unstructured(
      _shaped_like("prune.l1_unstructured()", "importance_scores", importance_scores, t).abs(), mask, amount))
}

fn random_unstructured(module, name="weight", amount=0.3) {
  """Prunes amount of module.name's entries chosen at random, as
  torch.nn.utils.prune.random_unstructured; returns module.

  Example: prune.random_unstructured(nn.Linear(8, 4), "weight", amount=0.5)
  """
  return _prune(module, name, fn(t, mask) = _unstructured(rand_like(t), mask, amount))
}

# Prunes `amount` of the slices of module.name along `dim` (dim=0: output channels of
# a Conv2d, output features of a Linear), those of smallest Ln norm (n = 1, 2, ...,
# math.inf). The pruned slices become zero; the layer keeps its shape (see
# shrink_channels for a smaller layer).
fn ln_structured(module, name="weight", amount=0.3, n=1, dim=0, importance_scores=none) {
  """Prunes amount of the slices of module.name along dim, those of smallest Ln norm, as
  torch.nn.utils.prune.ln_structured; returns module.

  Example: prune.ln_structured(nn.Conv2d(3, 8, 3), "weight", amount=0.25, n=2, dim=0)
  """
  _check_norm("prune.ln_structured()", n)
  return _prune(module, name, fn(t, mask) = _structured(
      _shaped_like("prune.ln_structured()", "importance_scores", importance_scores, t), mask, amount, n, dim))
}

fn random_structured(module, name="weight", amount=0.3, dim=0) {
  """Prunes amount of the slices of module.name along dim chosen at random, as
  torch.nn.utils.prune.random_structured; returns module.

  Example: prune.random_structured(nn.Linear(8, 4), "weight", amount=0.5, dim=0)
  """
  return _prune(module, name, fn(t, mask) = _structured(rand_like(t), mask, amount, 1, dim))
}

fn custom_from_mask(module, name="weight", mask=none) {
  """Prunes module.name where mask (a tensor of its shape) is 0, as
  torch.nn.utils.prune.custom_from_mask; returns module.

  Example: prune.custom_from_mask(nn.Linear(2, 2), "weight", mask=tensor([[1, 0], [0, 1]]))
  """
  if type(mask) != "tensor" { fail(f"prune.custom_from_mask(): mask must be a tensor of the parameter's shape, got {type(mask)}") }
  return _prune(module, name, fn(t, old) = old * (_shaped_like("prune.custom_from_mask()", "mask", mask, t) != 0).to(old.dtype))
}

# Prunes nothing but sets up name_orig and name_mask (all ones): a fresh model takes a
# pruned checkpoint's state_dict after identity() on the same parameters.
fn identity(module, name="weight") {
  """Sets up module.name for pruning (name_orig and an all-ones name_mask) without pruning anything,
  as torch.nn.utils.prune.identity; returns module.

  Example: prune.identity(nn.Linear(4, 2))
  """
  return _prune(module, name, fn(t, mask) = mask.clone())
}

# ---- the pruning methods as classes (torch.nn.utils.prune's BasePruningMethod family) ----
# An instance holds its arguments: compute_mask(t, default_mask) is default_mask with
# `amount` of t's entries (or slices) zeroed, counted over all of t as PyTorch's (the
# functions above count what the mask still keeps, as its PruningContainer), and
# prune(t) the pruned tensor;
# the static apply(module, name, ...) is the function form above. L1Unstructured and
# RandomUnstructured are also global_unstructured's pruning_method.

# amount checked when the method is made, as PyTorch's _validate_pruning_amount_init.
fn _checked_amount(amount) {
  _count(amount, amount if type(amount) == "int" else 0)
  return amount
}

fn _pruned_by(method, t, default_mask, importance_scores) {
  let scores = _shaped_like(f"prune.{type(method)}.prune()", "importance_scores", importance_scores, t)
  return t * method.compute_mask(scores, ones_like(t) if default_mask == none else default_mask)
}

model L1Unstructured(amount) {
  "Prunes amount of the entries of smallest absolute value, as torch.nn.utils.prune.L1Unstructured. Example: prune.L1Unstructured(0.5).prune(randn(4, 4))"
  amount = _checked_amount(amount)
  PRUNING_TYPE = "unstructured"
  compute_mask(t, default_mask) = default_mask * _unstructured(t.abs(), ones_like(default_mask), self.amount)
  prune(t, default_mask=none, importance_scores=none) = _pruned_by(self, t, default_mask, importance_scores)
  static apply(module, name, amount, importance_scores=none) = l1_unstructured(module, name, amount, importance_scores)
}

model RandomUnstructured(amount) {
  "Prunes amount of the entries chosen at random, as torch.nn.utils.prune.RandomUnstructured. Example: prune.RandomUnstructured(0.5).prune(randn(4, 4))"
  amount = _checked_amount(amount)
  PRUNING_TYPE = "unstructured"
  compute_mask(t, default_mask) = default_mask * _unstructured(rand_like(t), ones_like(default_mask), self.amount)
  prune(t, default_mask=none, importance_scores=none) = _pruned_by(self, t, default_mask, importance_scores)
  static apply(module, name, amount) = random_unstructured(module, name, amount)
}

model LnStructured(amount, n, dim=-1) {
  "Prunes amount of the slices along dim of smallest Ln norm, as torch.nn.utils.prune.LnStructured. Example: prune.LnStructured(0.5, 2, dim=0).prune(randn(4, 4))"
  amount = _checked_amount(amount)
  let _n_checked = _check_norm("prune.LnStructured()", n)
  n = n
  dim = dim
  PRUNING_TYPE = "structured"
  compute_mask(t, default_mask) = default_mask * _structured(t, ones_like(default_mask), self.amount, self.n, self.dim)
  prune(t, default_mask=none, importance_scores=none) = _pruned_by(self, t, default_mask, importance_scores)
  static apply(module, name, amount, n, dim, importance_scores=none) = ln_structured(module, name, amount, n, dim, importance_scores)
}

model RandomStructured(amount, dim=-1) {
  "Prunes amount of the slices along dim chosen at random, as torch.nn.utils.prune.RandomStructured. Example: prune.RandomStructured(0.5, dim=0).prune(randn(4, 4))"
  amount = _checked_amount(amount)
  dim = dim
  PRUNING_TYPE = "structured"
  compute_mask(t, default_mask) = default_mask * _structured(rand_like(t), ones_like(default_mask), self.amount, 1, self.dim)
  prune(t, default_mask=none, importance_scores=none) = _pruned_by(self, t, default_mask, importance_scores)
  static apply(module, name, amount, dim) = random_structured(module, name, amount, dim)
}

model Identity() {
  "Prunes nothing, as torch.nn.utils.prune.Identity. Example: prune.Identity().prune(randn(2, 2))"
  PRUNING_TYPE = "unstructured"
  compute_mask(t, default_mask) = default_mask.clone()
  prune(t, default_mask=none, importance_scores=none) = _pruned_by(self, t, default_mask, importance_scores)
  static apply(module, name) = identity(module, name)
}

model CustomFromMask(mask) {
  "Prunes where mask is 0, as torch.nn.utils.prune.CustomFromMask. Example: prune.CustomFromMask(tensor([1, 0])).prune(tensor([3.0, 4.0]))"
  mask = mask
  PRUNING_TYPE = "global"
  compute_mask(t, default_mask) = default_mask * (_shaped_like("prune.CustomFromMask()", "mask", self.mask, t) != 0).to(default_mask.dtype)
  prune(t, default_mask=none, importance_scores=none) = _pruned_by(self, t, default_mask, importance_scores)
  static apply(module, name, mask) = custom_from_mask(module, name, mask)
}

# global_unstructured's pruning_method: "l1" or "random" (the names this library took
# before the classes), or the class L1Unstructured or RandomUnstructured.
fn _global_method(pruning_method) {
  if pruning_method is L1Unstructured or pruning_method == "l1" { return "l1" }
  if pruning_method is RandomUnstructured or pruning_method == "random" { return "random" }
  let shown = pruning_method.__name__ if type(pruning_method) == "model" else repr(pruning_method)
  fail(f"prune.global_unstructured: pruning_method must be prune.L1Unstructured or prune.RandomUnstructured (or \"l1\", \"random\"), got {shown}")
}

# Prunes `amount` of the entries of all the given parameters together: the smallest
# scores over all of them go, so layers end with different sparsities.
# parameters: a list of (module, name); pruning_method "l1" or "random" (prune.L1Unstructured,
# prune.RandomUnstructured), second as in PyTorch's global_unstructured(parameters,
# pruning_method, amount=...). A number second is the amount (this function's order
# before it took PyTorch's).
fn global_unstructured(parameters, pruning_method="l1", amount=0.2) {
  """Prunes amount of the entries of all the given (module, name) parameters together, the smallest
  over all of them (or random ones), as torch.nn.utils.prune.global_unstructured.

  Example: let a = nn.Linear(8, 8); let b = nn.Linear(8, 2); prune.global_unstructured([(a, "weight"), (b, "weight")], prune.L1Unstructured, amount=0.5)
  """
  if type(pruning_method) == "float" or type(pruning_method) == "int" {
    amount = pruning_method
    pruning_method = "l1"
  }
  pruning_method = _global_method(pruning_method)
  _check_pairs(parameters)
  let scores = []
  let masks = []
  no_grad {
    for (module, name) in parameters {
      let t = _effective(module, name).detach()
      let mask = getattr(module, name + "_mask", none)
      masks.append(ones_like(t) if mask == none else mask)
      scores.append((t.abs() if pruning_method == "l1" else rand_like(t)).to(f64).reshape([-1]))
    }
  }
  let flat_masks = []
  for m in masks { flat_masks.append(m.reshape([-1]).to(f64)) }
  let all = _unstructured(cat(scores), cat(flat_masks), amount)
  let start = 0
  let k = 0
  for (module, name) in parameters {
    let n = masks[k].numel()
    let part = all[start:start + n].reshape(list(masks[k].shape)).to(masks[k].dtype)
    _prune(module, name, fn(t, old) = part)
    start = start + n
    k = k + 1
  }
}

# Makes the pruning of module.name permanent: name becomes a parameter again (the same
# tensor as name_orig, multiplied by the mask in place, so an optimizer keeps it),
# and name_orig and name_mask go.
fn remove(module, name="weight") {
  """Makes the pruning of module.name permanent: name is a parameter again, its pruned entries zero,
  as torch.nn.utils.prune.remove; returns module.

  Example: prune.remove(prune.l1_unstructured(nn.Linear(4, 2), "weight", amount=0.5), "weight")
  """
  _check_target("prune.remove()", module, name)
  let orig = getattr(module, name + "_orig", none)
  assert(orig != none, f"prune.remove: parameter '{name}' of {type(module)} has to be pruned before pruning can be removed")
  no_grad { orig.mul_(getattr(module, name + "_mask")) }
  delattr(module, name + "_orig")
  delattr(module, name + "_mask")
  setattr(module, name, orig)
  module._pruned.remove(name)
  return module
}

fn is_pruned(model) {
  """Whether any module of model has a pruned parameter, as torch.nn.utils.prune.is_pruned.

  Example: prune.is_pruned(nn.Linear(4, 2))
  """
  _check_model("prune.is_pruned()", model)
  for m in model.modules() {
    if len(getattr(m, "_pruned", [])) > 0 { return true }
  }
  return false
}

fn remove_all(model) {
  """remove() on every pruned parameter of every module of model; returns model.

  Example: prune.remove_all(prune.l1_unstructured(nn.Linear(4, 2), "weight", amount=0.5))
  """
  _check_model("prune.remove_all()", model)
  for m in model.modules() {
    for name in list(getattr(m, "_pruned", [])) { remove(m, name) }
  }
  return model
}

# ---- reports -----------------------------------------------------------------------

# Every parameter of the model as forward sees it: (name, tensor, pruned), with a
# pruned `w_orig` shown as `w` = w_orig * w_mask.
fn _effective_parameters(model) {
  let buffers = dict(model.named_buffers())
  let out = []
  no_grad {
    for (name, p) in model.named_parameters() {
      let base = name[:-5] if name.endswith("_orig") else none
      if base != none and (base + "_mask") in buffers {
        out.append((base, p * buffers[base + "_mask"], true))
      } else {
        out.append((name, p.detach(), false))
      }
    }
  }
  return out
}

# Per parameter: name, shape, entries, zeros and sparsity (%), then the whole model.
# Prints an aligned table when show=true; returns {"layers": [(name, shape, numel,
# zeros, sparsity), ...], "numel", "zeros", "sparsity"}. Pruned parameters are marked
# with *.
fn sparsity_report(model, show=true) {
  """The zeros and sparsity of each parameter and of the whole model, printed as a table when show
  and returned as a dict.

  Example: prune.sparsity_report(prune.l1_unstructured(nn.Linear(8, 4), "weight", amount=0.5))
  """
  _check_model("prune.sparsity_report()", model)
  if type(show) != "bool" { fail(f"prune.sparsity_report(): show must be a bool, got {type(show)}") }
  let rows = []
  let total = 0
  let zeros_total = 0
  for (name, t, pruned) in _effective_parameters(model) {
    let z = sum(t == 0).item()
    rows.append((name + ("*" if pruned else ""), list(t.shape), t.numel(), z, 100.0 * z / max(t.numel(), 1)))
    total = total + t.numel()
    zeros_total = zeros_total + z
  }
  let sparsity = 100.0 * zeros_total / max(total, 1)
  if show {
    let w = 9
    for r in rows { w = max(w, len(r[0])) }
    let pad = fn(s) = s + " " * (w - len(s))
    print(f"{pad('parameter')}  {'shape':<16} {'entries':>10} {'zeros':>10} {'sparsity':>9}")
    for (name, shape, numel, z, s) in rows {
      print(f"{pad(name)}  {str(shape):<16} {numel:>10} {z:>10} {s:>8.2f}%")
    }
    print(f"{pad('total')}  {'':<16} {total:>10} {zeros_total:>10} {sparsity:>8.2f}%")
  }
  return {"layers": rows, "numel": total, "zeros": zeros_total, "sparsity": sparsity}
}

# ---- structured channel pruning that shrinks the layers --------------------------------

# Layers that act on each channel alone, so a channel removed before them is simply
# absent after them.
fn _channelwise(l) {
  for c in [nn.ReLU, nn.GELU, nn.SiLU, nn.Tanh, nn.Sigmoid, nn.Dropout, nn.Identity, nn.MaxPool2d, nn.AvgPool2d] {
    if isinstance(l, c) { return true }
  }
  return false
}

# The layers of a Sequential in order, nested Sequentials flattened: [path, layer].
# Shrinking cuts each layer once, so a Sequential met twice (one that holds itself)
# or a layer with parameters met twice is an error; a shared activation is fine.
fn _layers(seq, prefix="", out=none, seen=none) {
  if out == none { out = [] }
  if seen == none { seen = [seq] }
  let k = 0
  for l in seq.children(remove_duplicate=false) {
    let path = prefix + str(k)
    let stateful = isinstance(l, nn.Sequential) or len(l.parameters()) > 0
    assert(not (stateful and l in seen), f"prune: layer {path} ({type(l)}) appears twice in the model; shrinking needs each layer with parameters once")
    seen.append(l)
    if isinstance(l, nn.Sequential) { _layers(l, path + ".", out, seen) } else { out.append([path, l]) }
    k = k + 1
  }
  return out
}

# What uses conv i's output channels: {"bns": [positions of BatchNorm2d layers],
# "next": position, "kind": "conv" or "linear"}, or none when the channels reach
# something else (the model's output, a grouped conv, a layer we do not know).
fn _consumer(layers, i) {
  let bns = []
  let j = i + 1
  while j < len(layers) {
    let l = layers[j][1]
    if isinstance(l, nn.BatchNorm2d) {
      bns.append(j)
    } elif isinstance(l, nn.Conv2d) {
      return {"bns": bns, "next": j, "kind": "conv"} if l.groups == 1 else none
    } elif isinstance(l, nn.Flatten) {
      if l.start_dim != 1 or (l.end_dim != -1 and l.end_dim != 3) { return none }
      j = j + 1
      while j < len(layers) and (isinstance(layers[j][1], nn.Dropout) or isinstance(layers[j][1], nn.Identity)) { j = j + 1 }
      return {"bns": bns, "next": j, "kind": "linear"} if j < len(layers) and isinstance(layers[j][1], nn.Linear) else none
    } elif not _channelwise(l) {
      return none
    }
    j = j + 1
  }
  return none
}

# Which output channels of each Conv2d of a Sequential CNN to keep: a list of
# {"conv": path, "position", "channels": before, "keep": [indices, ascending], "bns",
# "next", "kind"}. round(amount * channels) channels go (at least one stays), those
# whose filter has the smallest Ln norm (n = 1, 2 or math.inf). A conv whose output
# reaches anything but BatchNorm2d, channel-wise layers and then a Conv2d, or a
# Flatten and a Linear, keeps all its channels (it is not in the plan). Filters are
# ranked after the previous conv's removed channels are taken out of them (the
# "greedy" criterion of Li et al., Pruning Filters for Efficient ConvNets, 2017).
fn channel_plan(model, amount=0.5, n=1) {
  """Which output channels of each Conv2d of a Sequential CNN stay when amount of them go, those
  whose filters have the smallest Ln norm, as a list of one dict per conv.

  Example: prune.channel_plan(nn.Sequential([nn.Conv2d(3, 8, 3), nn.ReLU(), nn.Conv2d(8, 4, 3)]), amount=0.5)
  """
  assert(isinstance(model, nn.Sequential), f"prune.channel_plan: expected an nn.Sequential, got {type(model)}")
  let layers = _layers(model)
  let plan = []
  let kept_inputs = {}  # position of a conv -> the input channels it keeps
  for i in range(len(layers)) {
    let conv = layers[i][1]
    if not isinstance(conv, nn.Conv2d) { continue }
    let c = _consumer(layers, i)
    if c == none or conv.groups != 1 { continue }
    let w = none
    no_grad {
      w = _effective(conv, "weight").detach()
      if i in kept_inputs { w = index_select(w, 1, tensor(kept_inputs[i], device=w.device)) }
    }
    let channels = w.shape[0]
    let n_keep = max(channels - _count(amount, channels), 1)
    let norms = _slice_norms(w, n, 0).tolist()
    let keep = sorted(sorted(range(channels), key=fn(k) = -norms[k])[:n_keep])
    plan.append({"conv": layers[i][0], "position": i, "channels": channels, "keep": keep,
                 "bns": c["bns"], "next": c["next"], "kind": c["kind"]})
    if c["kind"] == "conv" { kept_inputs[c["next"]] = keep }
  }
  return plan
}

# t's entries at `index` along dim, as a new leaf (a parameter when t was one).
fn _select(t, dim, index) {
  let s = none
  no_grad { s = index_select(t, dim, index).contiguous() }
  return s.requires_grad_(true) if t.requires_grad else s
}

# Cuts one conv's removed output channels out of it, its BatchNorm2d layers and the
# input of the layer after it (for a Linear after Flatten, the features of those
# channels: feature f belongs to channel f // (height * width)).
fn _shrink_step(layers, step) {
  let conv = layers[step["position"]][1]
  let keep = tensor(step["keep"], device=conv.weight.device)
  conv.weight = _select(conv.weight, 0, keep)
  if conv.bias != none { conv.bias = _select(conv.bias, 0, keep) }
  conv.out_channels = len(step["keep"])
  for b in step["bns"] {
    let bn = layers[b][1]
    if bn.weight != none {
      bn.weight = _select(bn.weight, 0, keep)
      bn.bias = _select(bn.bias, 0, keep)
    }
    if bn.running_mean != none {  # none without track_running_stats
      bn.running_mean = _select(bn.running_mean, 0, keep)
      bn.running_var = _select(bn.running_var, 0, keep)
    }
    bn.num_features = len(step["keep"])
  }
  let next = layers[step["next"]][1]
  if step["kind"] == "conv" {
    next.weight = _select(next.weight, 1, keep)
    next.in_channels = len(step["keep"])
  } else {
    let per_channel = next.in_features // step["channels"]
    assert(per_channel * step["channels"] == next.in_features,
           f"prune.shrink_channels: {next.in_features} input features of the Linear after {step['conv']} are not a multiple of its {step['channels']} channels")
    let features = (keep[:, none] * per_channel + arange(per_channel, device=keep.device)[none, :]).reshape([-1])
    next.weight = _select(next.weight, 1, features)
    next.in_features = len(step["keep"]) * per_channel
  }
}

# A new model, really smaller: the Sequential CNN `model` with round(amount *
# channels) output channels of each Conv2d removed (the filters of smallest Ln norm,
# see channel_plan), together with their BatchNorm2d entries and the matching inputs
# of the next Conv2d, or of the Linear after Flatten. `model` is left as it was; the
# copy's pruning masks are made permanent first. plan: one from channel_plan(model,
# ...) to use instead (its amount and n then do not matter).
fn shrink_channels(model, amount=0.5, n=1, plan=none) {
  """A smaller copy of a Sequential CNN with amount of each Conv2d's output channels removed
  (channel_plan), with their batch-norm entries and the next layer's inputs; model is left as it
  was.

  Example: prune.shrink_channels(nn.Sequential([nn.Conv2d(3, 8, 3), nn.ReLU(), nn.Conv2d(8, 4, 3)]), amount=0.5)
  """
  _check_model("prune.shrink_channels()", model)
  let small = remove_all(deepcopy(model))
  if plan == none { plan = channel_plan(small, amount, n) }
  let layers = _layers(small)
  for step in plan { _shrink_step(layers, step) }
  return small
}
