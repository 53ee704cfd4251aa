# _optim_groups: what every optimizer of stdlib/optim.dsl shares: the hyperparameter
# kinds of each (_options), parameter groups (made and checked from the constructor's
# params, added, read and set), the step loops over groups, zero_grad, the flat state
# dict, and the one form each optimizer model has (Note [The optimizer form]). optim
# re-exports what the models and dist use; import optim, not this module.
import _argcheck

# --- parameter groups -----------------------------------------------------------------

# What each optimizer's hyperparameters take, in the constructor's order.
let _options = {
  "SGD": {"lr": ">= 0", "momentum": ">= 0", "dampening": "number", "weight_decay": ">= 0",
          "nesterov": "bool", "maximize": "bool"},
  "Adam": {"lr": ">= 0", "betas": "betas", "eps": ">= 0", "weight_decay": ">= 0", "amsgrad": "bool",
           "maximize": "bool"},
  "RMSprop": {"lr": ">= 0", "alpha": ">= 0", "eps": ">= 0", "weight_decay": ">= 0", "momentum": ">= 0",
              "centered": "bool", "maximize": "bool"},
  "Adagrad": {"lr": ">= 0", "lr_decay": ">= 0", "weight_decay": ">= 0", "initial_accumulator_value": ">= 0",
              "eps": ">= 0", "maximize": "bool"},
  "Adamax": {"lr": ">= 0", "betas": "betas", "eps": ">= 0", "weight_decay": ">= 0", "maximize": "bool"},
  "NAdam": {"lr": ">= 0", "betas": "betas", "eps": ">= 0", "weight_decay": ">= 0", "momentum_decay": ">= 0"},
  "RAdam": {"lr": ">= 0", "betas": "betas", "eps": ">= 0", "weight_decay": ">= 0"},
  "Adadelta": {"lr": ">= 0", "rho": "in [0, 1]", "eps": ">= 0", "weight_decay": ">= 0", "maximize": "bool"},
  "Rprop": {"lr": ">= 0", "etas": "etas", "step_sizes": "step_sizes", "maximize": "bool"},
  "ASGD": {"lr": ">= 0", "lambd": "number", "alpha": "number", "t0": "number", "weight_decay": ">= 0",
           "maximize": "bool"},
  "SparseAdam": {"lr": ">= 0", "betas": "betas", "eps": ">= 0", "maximize": "bool"},
  "LBFGS": {"lr": ">= 0", "max_iter": "int > 0", "max_eval": "int > 0 or none", "tolerance_grad": ">= 0",
            "tolerance_change": ">= 0", "history_size": "int > 0", "line_search_fn": "line search"},
}

# The hyperparameters that are pairs, stored in a state dict as two numbers.
let _pairs = {"betas": ["beta1", "beta2"], "etas": ["etaminus", "etaplus"],
              "step_sizes": ["step_size_min", "step_size_max"]}
_options["AdamW"] = _options["Adam"]

# The items of a list or tuple argument; what: its name in messages.
fn _as_list(who, what, x) {
  if type(x) in ["list", "tuple"] { return list(x) }
  let hint = ""
  if type(x) == "tensor" { hint = " (a single tensor: wrap it, [t])" }
  elif type(x) == "dict" { hint = " (a single parameter group: wrap it, [{...}])" }
  elif type(x) == "method" { hint = " (call the method: m.parameters())" }
  fail(f"{who}: {what} must be a list of tensors or of parameter groups (dicts), got {_argcheck.shown(x)}{hint}")
}

# The tensors of a group, checked; seen: every tensor already in a group (appended to).
fn _group_params(who, what, ps, seen) {
  let items = _as_list(who, what, ps)
  if len(items) == 0 { fail(f"{who}: {what} is empty (no tensor to optimize)") }
  for j in range(len(items)) {
    let p = items[j]
    let at = f"{what}[{j}]"
    if type(p) != "tensor" { fail(f"{who}: {at} must be a tensor, got {_argcheck.shown(p)}") }
    if not p.dtype.is_floating_point { fail(f"{who}: {at} must be a floating-point tensor, got dtype {p.dtype}") }
    if not p.is_leaf { fail(f"{who}: {at} is not a leaf tensor (it was computed from others); optimize the tensors it was computed from") }
    if p in seen { fail(f"{who}: {at} appears twice (a tensor belongs to one parameter group, once)") }
    seen.append(p)
  }
  return items
}

# One group from a spec dict: its params and every hyperparameter, the spec's or the
# constructor's (defaults). where: the spec's name in messages.
fn _make_group(who, where, spec, defaults, kinds, seen) {
  if type(spec) != "dict" { fail(f"{who}: {where} must be a dict with a 'params' key, got {_argcheck.shown(spec)}") }
  if not ("params" in spec) {
    fail(f"{who}: {where} has no 'params' key (a parameter group is {{'params': [tensors], 'lr': ...}})")
  }
  for k in spec {
    if k != "params" and not (k in kinds) { _check_extra_key(who, where, k, kinds) }
  }
  _argcheck.check_options(who, where, spec, kinds)
  # A group's params may be one tensor, as PyTorch's ({"params": model.weight}).
  let ps = [spec["params"]] if type(spec["params"]) == "tensor" else spec["params"]
  return _fill_group(who, where + ": ", {"params": _group_params(who, f"{where}['params']", ps, seen)}, spec, defaults)
}

# A group key this optimizer has no hyperparameter for. As in PyTorch, a group may carry
# keys of the user's own ("name": "encoder"), kept with the group; but a key that is a
# hyperparameter of another optimizer (betas given to SGD) or a near miss of one of
# this optimizer's (learning_rate, lrr) would be silently ignored, so it is an error.
fn _check_extra_key(who, where, k, kinds) {
  let valid = ['params'] + list(kinds)
  let hint = did_you_mean(k, valid)
  let elsewhere = false
  for name in _options { if k in _options[name] { elsewhere = true } }
  if hint != "" or elsewhere {
    let why = hint if hint != "" else "; it is another optimizer's hyperparameter"
    fail(f"{who}: {where} has the key {_argcheck.shown(k)}, which this optimizer does not take{why} (its keys: {_argcheck.joined(valid)})")
  }
}

# group (its params already in) with every hyperparameter, spec's own or the default.
fn _fill_group(who, where, group, spec, defaults) {
  for k in defaults { group[k] = spec[k] if k in spec else defaults[k] }
  for k in spec { if not (k in group) { group[k] = spec[k] } }
  if "nesterov" in group and group["nesterov"] and (group["momentum"] <= 0 or group["dampening"] != 0) {
    fail(f"{who}: {where}nesterov=true needs momentum > 0 and dampening 0, got momentum={group['momentum']}, dampening={group['dampening']}")
  }
  return group
}

# An optimizer's param_groups from its params argument (a list of tensors or of group
# dicts) and its constructor's hyperparameters, everything checked.
fn _param_groups(who, params, defaults, kinds) {
  _argcheck.check_options(who, "", defaults, kinds)
  let items = _as_list(who, "params", params)
  if len(items) == 0 { fail(f"{who}: params is empty (no tensor to optimize; pass e.g. m.parameters())") }
  let seen = []
  let dicts = 0
  for x in items { if type(x) == "dict" { dicts = dicts + 1 } }
  if dicts == 0 { return [_fill_group(who, "", {"params": _group_params(who, "params", items, seen)}, {}, defaults)] }
  if dicts < len(items) { fail(f"{who}: params mixes tensors and parameter groups (dicts); give a list of one kind") }
  let groups = []
  for i in range(len(items)) { groups.append(_make_group(who, f"params[{i}]", items[i], defaults, kinds, seen)) }
  return groups
}

fn _all_params(groups) {
  let out = []
  for g in groups { for p in g["params"] { out.append(p) } }
  return out
}

fn _empty_states(n) {
  let states = []
  for i in range(n) { states.append({}) }
  return states
}

fn _add_param_group(opt, spec) {
  let who = f"optim.{type(opt)}.add_param_group()"
  let seen = list(opt.params)
  let group = _make_group(who, "param_group", spec, opt.defaults, _options[type(opt)], seen)
  opt.param_groups.append(group)
  for p in group["params"] {
    opt.params.append(p)
    opt.state.append({})
  }
}

# opt.NAME for a hyperparameter: group 0's value (the optimizers' __getattr__).
fn _group_option(opt, name) {
  if name in opt.defaults { return opt.param_groups[0][name] }
  fail(f"optim.{type(opt)} has no attribute '{name}' (its hyperparameters: {_argcheck.joined(list(opt.defaults))})")
}

# opt.NAME = v for a hyperparameter: checked, then set in every group (__setattr__).
fn _set_group_option(opt, name, v) {
  let kinds = _options[type(opt)]
  if not (name in kinds) {
    fail(f"optim.{type(opt)}: cannot set '{name}': not a field or hyperparameter (its hyperparameters: {_argcheck.joined(list(kinds))})")
  }
  _argcheck.check_option(f"optim.{type(opt)}", name, kinds[name], v)
  for g in opt.param_groups { g[name] = v }
}

# --- shared helpers -------------------------------------------------------------------

# set_to_none=false zeroes the existing grads in place instead.
fn _zero_grad(params, set_to_none) {
  for p in params {
    if set_to_none { p.grad = none } elif p.grad != none { p.grad.zero_() }
  }
}

# One step of opt: update(p, grad, state, group) for every parameter with a grad
# (negated when its group maximizes), under no_grad.
fn _step_groups(opt, update) {
  _step_group_lists(opt, fn(ps, gs, sts, group) = _each_param(update, ps, gs, sts, group))
}

fn _each_param(update, ps, gs, sts, group) {
  for k in range(len(ps)) { update(ps[k], gs[k], sts[k], group) }
}

# One step of opt a group at a time: update_group(params, grads, states, group) with
# the group's parameters that have a grad, their grads (negated when the group
# maximizes) and states, under no_grad (multi-tensor kernels take a group at once).
fn _step_group_lists(opt, update_group) {
  # the common case natively (Note [A step's checks, natively first], builtins_optim.cpp)
  if not optim_groups_kept_(opt.param_groups, _options[type(opt)], opt.params, opt.state) { _check_groups_kept(opt) }
  no_grad {
    let i = 0
    let states = opt.state
    for group in opt.param_groups {
      let negate = _maximizes(group)
      let lists = optim_step_lists_(group["params"], states, i, negate)  # natively: Note [A step's checks, natively first]
      if lists == none {
        lists = [[], [], []]
        for k in range(len(group["params"])) {
          let p = group["params"][k]
          let g = p.grad
          if g != none {
            lists[0].append(p)
            lists[1].append(-g if negate else g)
            lists[2].append(states[i + k])
          }
        }
      }
      i = i + len(group["params"])
      update_group(lists[0], lists[1], lists[2], group)
    }
  }
}

# NAdam and RAdam have no maximize (as PyTorch 1.13's).
fn _maximizes(group) = "maximize" in group and group["maximize"]

# The state is kept per parameter in opt.params' order: a tensor put into a group's
# "params" list by hand would get another's state, so it is an error. param_groups,
# state and the groups' hyperparameters can be assigned by hand between steps (as in
# PyTorch, where a group's lr is set that way); a value of the wrong kind there failed
# deep inside the update ("cannot multiply tensor and str", "'float' object is not
# subscriptable"), so each is checked here, its kind only: PyTorch's step() takes a
# negative lr set in a group, and so does this one.
fn _check_groups_kept(opt) {
  let who = f"optim.{type(opt)}.step()"
  if type(opt.param_groups) != "list" {
    fail(f"{who}: param_groups must be a list of parameter groups (dicts), got {_argcheck.shown(opt.param_groups)}")
  }
  let kinds = _options[type(opt)]
  let n = 0
  for k in range(len(opt.param_groups)) {
    let g = opt.param_groups[k]
    if type(g) != "dict" or not ("params" in g) or not (type(g["params"]) in ["list", "tuple"]) {
      fail(f"{who}: param_groups[{k}] must be a dict with a list under 'params', got {_argcheck.shown(g)}")
    }
    n = n + len(g["params"])
    for name in g {
      if name in kinds {
        let v = g[name]
        let kind = kinds[name]
        # the common cases inline: a small model's eager step is mostly these checks
        let t = type(v)
        if not (((t == "float" or t == "int") and kind in _numeric_kinds) or (t == "bool" and kind == "bool")) {
          _check_kind_kept(who, k, name, kind, v)
        }
      }
    }
  }
  if n != len(opt.params) {
    fail(f"{who}: the parameter groups hold {n} tensors, the optimizer was given {len(opt.params)} (add tensors with add_param_group(), not to a group's 'params')")
  }
  if type(opt.state) != "list" or len(opt.state) != n {
    let found = f"a list of {len(opt.state)}" if type(opt.state) == "list" else _argcheck.shown(opt.state)
    fail(f"{who}: state must be a list of one dict per parameter ({n}), got {found}")
  }
  for i in range(n) {
    if type(opt.state[i]) != "dict" { fail(f"{who}: state[{i}] must be a dict (the parameter's state), got {_argcheck.shown(opt.state[i])}") }
  }
}

let _numeric_kinds = [">= 0", "number", "in [0, 1]"]

# A hyperparameter's kind (of _argcheck.check_option's) without its range.
# Fails naming param_groups[k][name] when v is not of its kind.
fn _check_kind_kept(who, k, name, kind, v) {
  let want = none
  if kind in ["betas", "etas", "step_sizes"] {
    if not (type(v) in ["tuple", "list"] and len(v) == 2 and _argcheck.is_number(v[0]) and _argcheck.is_number(v[1])) {
      want = "a pair of numbers"
    }
  } elif kind == "bool" {
    if type(v) != "bool" { want = "true or false" }
  } elif kind == "int > 0 or none" {
    if v != none and type(v) != "int" { want = "an int or none" }
  } elif kind == "int > 0" {
    if type(v) != "int" { want = "an int" }
  } elif kind == "line search" {
    if v != none and v != "strong_wolfe" { want = "none or \"strong_wolfe\"" }
  } elif not _argcheck.is_number(v) {
    want = "a number"
  }
  if want != none {
    let found = repr(v) if type(v) in ["tuple", "list"] else _argcheck.shown(v)
    fail(f"{who}: param_groups[{k}][{repr(name)}] must be {want}, got {found}")
  }
}

fn _copied(v) {
  if type(v) == "list" { return [_copied(x) for x in v] }   # LBFGS's history
  return v.detach().clone() if type(v) == "tensor" else v
}

# The flat state dict (see the header): a pair ("betas", Rprop's "etas" and
# "step_sizes") is stored as two numbers ("beta1" and "beta2", _pairs).
fn _state_dict(opt) {
  let d = {}
  for k in range(len(opt.param_groups)) {
    let prefix = "" if k == 0 else f"param_groups.{k}."
    let g = opt.param_groups[k]
    for name in g {
      if name in _pairs {
        d[prefix + _pairs[name][0]] = g[name][0]
        d[prefix + _pairs[name][1]] = g[name][1]
      } elif name != "params" {
        d[prefix + name] = g[name]
      }
    }
  }
  for i in range(len(opt.state)) {
    let st = opt.state[i]
    for k in st { d[f"state.{i}.{k}"] = _copied(st[k]) }
  }
  return d
}

# How many parameter groups a flat state dict describes ("param_groups.K.name" keys).
fn _groups_in(who, d) {
  let n = 1
  for k in d {
    if type(k) == "str" and k.startswith("param_groups.") {
      let parts = k.split(".")
      if len(parts) != 3 or not parts[1].isdigit() or parts[1] == "0" {
        fail(f"{who}: the key {repr(k)} must be 'param_groups.K.name' with a group K >= 1 (group 0's keys have no prefix)")
      }
      n = max(n, int(parts[1]) + 1)
    }
  }
  return n
}

# Note [Loading an optimizer's state]: every value of the dict is read and checked
# (hyperparameters as the constructor checks them, states against their parameters)
# before any is set, so a bad dict is an error that names its key and leaves the
# optimizer as it was; unchecked, it failed later, in step(), far from its cause (a
# state of another shape, a str lr), or left the optimizer half loaded.
fn _load_state_dict(opt, d) {
  let who = f"optim.{type(opt)}.load_state_dict()"
  if type(d) != "dict" { fail(f"{who}: the state dict must be a dict (from state_dict()), got {_argcheck.shown(d)}") }
  let n = _groups_in(who, d)
  if n != len(opt.param_groups) {
    fail(f"{who}: the state dict has {n} parameter group(s), the optimizer {len(opt.param_groups)}")
  }
  let kinds = _options[type(opt)]
  let loaded_groups = []
  for k in range(n) {
    let prefix = "" if k == 0 else f"param_groups.{k}."
    let values = {}
    for name in opt.param_groups[k] {
      if name in _pairs {
        let (a, b) = _pairs[name]
        values[name] = (_argcheck.loaded(who, d, prefix + a), _argcheck.loaded(who, d, prefix + b))
        _argcheck.check_option(who, f"'{prefix}{a}', '{prefix}{b}'", kinds[name], values[name])
      } elif name != "params" {
        values[name] = _argcheck.loaded(who, d, prefix + name)
        if name in kinds { _argcheck.check_option(who, repr(prefix + name), kinds[name], values[name]) }
      }
    }
    if "nesterov" in values and values["nesterov"] and (values["momentum"] <= 0 or values["dampening"] != 0) {
      fail(f"{who}: {prefix}nesterov=true needs momentum > 0 and dampening 0, got momentum={values['momentum']}, dampening={values['dampening']}")
    }
    loaded_groups.append(values)
  }
  let states = _load_lbfgs_states(d, len(opt.params)) if type(opt) == "LBFGS" else _load_states(who, d, opt.params)
  for k in range(n) {
    for name in loaded_groups[k] { opt.param_groups[k][name] = loaded_groups[k][name] }
  }
  opt.state = states
}

# The per-parameter states of a state dict ("state.I.name" keys), for the parameters
# params: the counts (step, NAdam's mu_product, ASGD's eta and mu) a number or a 0-dim tensor (a compiled
# step keeps them as f64 tensors), a step >= 0; every other entry a floating tensor of
# its parameter's shape, made the parameter's dtype (as PyTorch's load casts).
# LBFGS's state (parameter 0's: flat tensors, lists of them, numbers), copied as it is.
fn _load_lbfgs_states(d, n) {
  let states = _empty_states(n)
  for k in d {
    if type(k) == "str" and k.startswith("state.0.") { states[0][k[8:]] = _copied(d[k]) }
  }
  return states
}

let _counts = ["step", "mu_product", "eta", "mu"]
fn _load_states(who, d, params) {
  let n = len(params)
  let states = _empty_states(n)
  for k in d {
    if type(k) == "str" and k.startswith("state.") {
      let parts = k.split(".")
      if len(parts) != 3 or not parts[1].isdigit() {
        fail(f"{who}: the key {repr(k)} must be 'state.I.name' with a parameter number I >= 0")
      }
      let i = int(parts[1])
      if i >= n { fail(f"{who}: '{k}' names parameter {i}, the optimizer has {n}") }
      let v = d[k]
      let p = params[i]
      let found = f"a tensor {v.dtype}{list(v.shape)}" if type(v) == "tensor" else _argcheck.shown(v)
      if parts[2] in _counts {
        let number = v.item() if type(v) == "tensor" and v.ndim == 0 and v.dtype.is_floating_point else v
        if not _argcheck.is_number(number) or (parts[2] == "step" and not (number >= 0)) {
          fail(f"{who}: '{k}' must be a number" + (" >= 0" if parts[2] == "step" else "") + f" (or a 0-dim floating tensor), got {found}")
        }
      } elif type(v) != "tensor" or not v.dtype.is_floating_point or v.shape != p.shape {
        fail(f"{who}: '{k}' must be a floating tensor of its parameter's shape {list(p.shape)}, got {found}")
      } else {
        v = v.to(p.dtype)
      }
      states[i][parts[2]] = _copied(v)
    }
  }
  return states
}

# --- the optimizer form ----------------------------------------------------------------

# Note [The optimizer form]
# Every optimizer is a model of one form: its constructor's arguments (PyTorch's), its
# docstring, `defaults` (its hyperparameters, in the order of its _options row), then
# these lines, the same in every optimizer but for the update that step() names (and
# Adagrad's state, made at construction as PyTorch's):
#
#   param_groups = _param_groups_of(self, params, defaults)
#   params = _all_params(param_groups)
#   state = _empty_states(len(self.params))
#   __getattr__(name) = _group_option(self, name)
#   __setattr__(name, value) = _set_group_option(self, name, value)
#   add_param_group(param_group) { "Adds a group: ..."; _add_param_group(self, param_group) }
#   zero_grad(set_to_none=true) { "Sets every grad to none (or zeros). ..."; _zero_grad(self.params, set_to_none) }
#   step() { "Updates every parameter that has a grad. ..."; _step_groups(self, _NAME_update) }
#   state_dict() { "Every group's hyperparameters and the state, as a flat dict. ..."; return _state_dict(self) }
#   load_state_dict(d) { "Restores a state_dict(). ..."; _load_state_dict(self, d) }
#
# What they do is in the helpers above, which find the optimizer's name and argument
# kinds from type(self); so adding one is an _options row, an update (per parameter,
# _step_groups; or per group, _step_group_lists) and this model. The lines are repeated,
# not inherited: the language has no inheritance, a model's methods are the ones its
# declaration lists (help(optim.Adam) and help(optim.SGD.step) show their docstrings,
# tests/lang/help.dsl), and type(opt) is the declaration's name, which the messages and
# stdlib/_optim_graph.dsl key on. tests/stdlib/optim/test_form.dsl checks that every
# optimizer has the same methods and behaves the same through them.

fn _param_groups_of(opt, params, defaults) = _param_groups(f"optim.{type(opt)}()", params, defaults, _options[type(opt)])

# The state of p for its next step (PyTorch's lazy state): the step count advanced or,
# at the first step, 1 and the entries start(p) gives (moments of zeros, ...). The count.
fn _next_step(st, p, start) {
  if "step" in st {
    st["step"] = st["step"] + 1
  } else {
    st["step"] = 1
    let first = start(p)
    for k in first { st[k] = first[k] }
  }
  return st["step"]
}
