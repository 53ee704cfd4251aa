# _nn_containers: nn.Sequential, nn.ModuleList and nn.ModuleDict, the layers that hold
# layers, and nn.ParameterList and nn.ParameterDict, which hold parameters. Their fields are the layers they hold, named as PyTorch's ("0", "1", ... or
# the dict's keys), so state_dict keys read "0.weight" or "encoder.weight", and
# parameters() walks them in order. A layer held twice counts twice where it runs
# (children(remove_duplicate=false): every field, shared ones too). nn re-exports them;
# import nn, not this module.

# Sequential(layer, ...), Sequential([layer, ...]) or Sequential({"name": layer, ...})
# (PyTorch's OrderedDict form: the fields take the keys): calls its layers in order;
# m[i] is layer i (negative i and slices work; m[i] = layer replaces it), len(m) their number, `for l in m`
# walks them.
model Sequential(*layers) {
  "Calls its layers in order; fields named 0, 1, ... (or a dict's keys) as in PyTorch. Example: nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))"
  let _ = _add_sequence(self, layers)
  forward(x) {
    for l in self.children(remove_duplicate=false) { x = l(x) }
    return x
  }
  # A slice keeps the layers' names, as PyTorch's (model[:k] of a Sequential built with
  # add_module("conv_1", ...) still has "conv_1.weight" in its state_dict).
  __getitem__(i) {
    if type(i) != "int" { return Sequential(dict(self.named_children(remove_duplicate=false)[i])) }
    return self.children(remove_duplicate=false)[i]
  }
  __len__() = len(self.children(remove_duplicate=false))
  __iter__() = self.children(remove_duplicate=false)
  __setitem__(i, layer) = _set_item(self, "nn.Sequential", i, layer)
  append(layer) {
    setattr(self, str(len(self)), _checked_layer("nn.Sequential.append()", "layer", layer))
    return self
  }
}

# m[i] = layer for Sequential and ModuleList: the layer in place of the i-th (negative
# from the end), under that field's name, as PyTorch's __setitem__.
fn _set_item(m, owner, i, layer) {
  assert(type(i) == "int", f"{owner}: an index to assign must be an int, got {type(i)}")
  let names = [p[0] for p in m.named_children(remove_duplicate=false)]
  let at = i + len(names) if i < 0 else i
  assert(at >= 0 and at < len(names), f"{owner}: index {i} is out of range for {len(names)} layers")
  setattr(m, names[at], _checked_layer(f"{owner}[{i}] = layer", "the value", layer))
}

# ModuleList([layer, ...]): holds layers as a list does (indexing, slices, len, `for`,
# append, extend, insert), so that their parameters are the model's; calling them is
# the owner's forward's work, as in PyTorch.
model ModuleList(modules=none) {
  "Holds layers in a list whose parameters are the model's; index, iterate and append it. Example: nn.ModuleList([nn.Linear(8, 8) for _ in range(3)])"
  let _ = _add_all(self, [] if modules == none else modules, "nn.ModuleList()", "nn.ModuleList([layer])")
  __getitem__(i) {
    let ls = self.children(remove_duplicate=false)
    return ModuleList(ls[i]) if type(i) != "int" else ls[i]
  }
  __len__() = len(self.children(remove_duplicate=false))
  __iter__() = self.children(remove_duplicate=false)
  __setitem__(i, module) = _set_item(self, "nn.ModuleList", i, module)
  append(module) {
    setattr(self, str(len(self)), _checked_layer("nn.ModuleList.append()", "module", module))
    return self
  }
  extend(modules) {
    for m in modules { self.append(m) }
    return self
  }
  # Fields renamed so that they stay "0", "1", ... in order.
  insert(index, module) {
    assert(type(index) == "int", f"nn.ModuleList.insert(): index must be an int, got {type(index)}")
    let ls = self.children(remove_duplicate=false)
    let at = max(0, min(len(ls), index if index >= 0 else index + len(ls)))
    ls = ls[:at] + [_checked_layer("nn.ModuleList.insert()", "module", module)] + ls[at:]
    for k in range(len(ls)) { setattr(self, str(k), ls[k]) }
    return self
  }
}

# ModuleDict({name: layer, ...}): holds layers by name, in insertion order; m[name],
# `name in m.keys()`, keys(), values(), items(), len, `for name in m` (the names, as a
# dict's), m[name] = layer and update().
model ModuleDict(modules=none) {
  "Holds layers by name (fields named by the keys) whose parameters are the model's. Example: nn.ModuleDict({\"encoder\": nn.Linear(8, 4)})"
  let _ = self.update({} if modules == none else modules)
  __getitem__(key) {
    for (k, m) in self.named_children(remove_duplicate=false) {
      if k == key { return m }
    }
    fail(f"nn.ModuleDict: no module named {repr(key)} (it holds {self.keys()})")
  }
  __len__() = len(self.children(remove_duplicate=false))
  __iter__() = self.keys()
  __setitem__(key, module) = self.update({key: module})
  keys() = [p[0] for p in self.named_children(remove_duplicate=false)]
  values() = self.children(remove_duplicate=false)
  items() = self.named_children(remove_duplicate=false)
  update(modules) {
    assert(type(modules) == "dict", f"nn.ModuleDict: expected a dict of name to layer, got {type(modules)}")
    for k in modules.keys() {
      _check_key("nn.ModuleDict", "module", self, k, self.keys())
      setattr(self, k, _checked_layer("nn.ModuleDict()", f"modules[{repr(k)}]", modules[k]))
    }
    return self
  }
}

# ParameterList([tensors]): holds tensors as parameters of the model, fields "0", "1",
# ... (state_dict keys "plist.0", as PyTorch's); index, iterate, len, append, extend. A
# tensor that is not a leaf requiring grad is made one, sharing its data (as
# nn.Parameter(t)).
model ParameterList(values=none) {
  "Holds tensors in a list as the model's parameters; index, iterate and append it. Example: nn.ParameterList([nn.init.parameter([4, 4]) for _ in range(3)])"
  _count = 0
  let _ = self.extend([] if values == none else _as_list("nn.ParameterList()", "values", values))
  __getitem__(i) {
    let ps = [getattr(self, str(k)) for k in range(self._count)]
    return ps[i]
  }
  __len__() = self._count
  __iter__() = [getattr(self, str(k)) for k in range(self._count)]
  append(value) {
    setattr(self, str(self._count), _as_parameter("nn.ParameterList.append()", "value", value))
    self._count = self._count + 1
    return self
  }
  extend(values) {
    for v in _as_list("nn.ParameterList.extend()", "values", values) { self.append(v) }
    return self
  }
}

# ParameterDict({name: tensor, ...}): holds tensors by name as the model's parameters,
# in insertion order; d[name], keys(), values(), items(), len, `for name in d`, update().
model ParameterDict(parameters=none) {
  "Holds tensors by name (fields named by the keys) as the model's parameters. Example: nn.ParameterDict({\"scale\": nn.init.parameter([4])})"
  _names = []
  let _ = self.update({} if parameters == none else parameters)
  __getitem__(key) {
    if not (key in self._names) { fail(f"nn.ParameterDict: no parameter named {repr(key)} (it holds {self._names})") }
    return getattr(self, key)
  }
  __len__() = len(self._names)
  __iter__() = list(self._names)
  keys() = list(self._names)
  values() = [getattr(self, k) for k in self._names]
  items() = [(k, getattr(self, k)) for k in self._names]
  update(parameters) {
    if type(parameters) != "dict" { fail(f"nn.ParameterDict: expected a dict of name to tensor, got {type(parameters)}") }
    for k in parameters.keys() {
      _check_key("nn.ParameterDict", "parameter", self, k, self._names)
      setattr(self, k, _as_parameter("nn.ParameterDict()", f"parameters[{repr(k)}]", parameters[k]))
      if not (k in self._names) { self._names.append(k) }
    }
    return self
  }
}

# A ModuleDict or ParameterDict key is a field name, so, as PyTorch's add_module and
# register_parameter, it must not be empty, hold a "." (state_dict's separator: a
# ModuleDict key "a.b" saved keys that loaded back and get_submodule could not find) or
# be a name the dict already has for something else (update, _names, training,
# state_dict, ...): setting one replaced the method or the bookkeeping, and the dict
# broke later. `held` lists the keys the dict holds (which a key may name again).
fn _check_key(who, what, d, k, held) {
  if type(k) != "str" { fail(f"{who}: keys must be strings ({what} names), got {type(k)}") }
  if k == "" or "." in k { fail(f"{who}: key {repr(k)} is not a {what} name: it must be non-empty and hold no '.'") }
  if (k == "training" or hasattr(d, k)) and not (k in held) {
    fail(f"{who}: key {repr(k)} is the name of one of the dict's own attributes or methods; choose another name")
  }
}

fn _as_list(who, what, xs) {
  if type(xs) == "tensor" { fail(f"{who}: {what} must be a list of tensors, got one tensor (wrap it: [t])") }
  if not (type(xs) in ["list", "tuple"]) { fail(f"{who}: {what} must be a list of tensors, got {type(xs)}") }
  return list(xs)
}

# t as a parameter: a floating leaf tensor that requires grad (t itself when it is one,
# else a leaf sharing its data).
fn _as_parameter(who, what, t) {
  if type(t) != "tensor" { fail(f"{who}: {what} must be a tensor, got {type(t)}") }
  if not t.dtype.is_floating_point { fail(f"{who}: {what} must be a floating-point tensor to be a parameter, got {t.dtype}") }
  return t if t.is_leaf and t.requires_grad else t.detach().requires_grad_(true)
}

# Each of layers as a field "0", "1", ... of m; `who` names the caller in errors and
# `wrap` the fix for a single layer given where a list belongs.
# Sequential's layers: given one by one, as one list or tuple, or as a dict of names.
fn _add_sequence(m, layers) {
  let who = "nn.Sequential()"
  if len(layers) == 1 and type(layers[0]) == "dict" {
    for name in layers[0] { setattr(m, str(name), _checked_layer(who, f"layers['{name}']", layers[0][name])) }
    return none
  }
  _add_all(m, layers[0] if len(layers) == 1 and type(layers[0]) in ["list", "tuple"] else layers, who, "")
}

fn _add_all(m, layers, who, wrap) {
  if not (type(layers) in ["list", "tuple"]) {
    let hint = f" (a single layer: wrap it, {wrap})" if _is_module(layers) else ""
    fail(f"{who}: layers must be a list of layers, got {type(layers)}{hint}")
  }
  let k = 0
  for l in layers {
    setattr(m, str(k), _checked_layer(who, f"layers[{k}]", l))
    k = k + 1
  }
}

# Whether x is a model instance (a layer or a whole model). A tensor answers every
# attribute name with a method, so it is ruled out first.
fn _is_module(x) = type(x) != "tensor" and getattr(x, "named_children", none) != none

# l, checked to be a layer, a model instance: a container holds and calls children, and
# a function is no child. A model class, the usual slip, gets its own message.
fn _checked_layer(who, what, l) {
  if type(l) == "model" { fail(f"{who}: {what} is the model class {l.name}, not a layer (construct it: {l.name}(...))") }
  if not _is_module(l) {
    let hint = " (a function is not a layer: use its layer, nn.ReLU() for relu, or a model of your own)" if type(l) in ["function", "builtin", "method"] else ""
    fail(f"{who}: {what} must be a layer (a model instance), got {type(l)}{hint}")
  }
  return l
}
