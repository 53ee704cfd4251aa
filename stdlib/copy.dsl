# copy: Python's copy module, as PyTorch programs use it (`copy.deepcopy(model)` for an
# EMA or target network, `copy.copy(d)`): deepcopy is the builtin deepcopy (a model
# comes back with tensors of its own; docs/LANGUAGE.md), copy a shallow copy of a list or
# dict (the containers' own values are shared), and of a tuple, str, number,
# bool or none the value itself, as Python's.
let _deepcopy_builtin = deepcopy

fn deepcopy(x) { "A copy of x that shares nothing with it (the builtin deepcopy). Example: let target = copy.deepcopy(net)"; return _deepcopy_builtin(x) }

fn copy(x) {
  "A shallow copy of a list or dict (their items shared); a tuple, str, number, bool or none itself. Example: let d2 = copy.copy(d)"
  let kind = type(x)
  if kind == "list" { return list(x) }
  if kind == "dict" { return dict(x) }
  if kind in ["tuple", "str", "int", "float", "bool", "none"] { return x }
  fail(f"copy.copy(): a shallow copy of a {kind} is not supported; use copy.deepcopy(x) (a model or any value, sharing nothing)" +
       (" or x.clone() (a tensor)" if kind == "tensor" else ""))
}
