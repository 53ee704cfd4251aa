# autograd.functional: torch.autograd.functional's jacobian, hessian, vjp, jvp, hvp and
# vhp (`import autograd`, then autograd.functional.jacobian(f, x)), over nabla's
# function transforms (jacrev, hessian, vjp, jvp, hvp: docs/LANGUAGE.md).
#
# Note [autograd.functional over the transforms]
# PyTorch's older API differs from the transforms in its conventions, which these
# functions take on: `inputs` is a tensor or a tuple of tensors (a tuple in gives tuples
# out, one entry per input), `v` is a separate argument that may be left out only when
# it has one element (then it is 1), and the results are detached unless
# create_graph=true, when they stay differentiable back to the inputs. vhp is hvp: the
# Hessian of a function with continuous second derivatives is symmetric. strict=true
# (PyTorch's error for an output independent of an input) is refused rather than
# ignored; vectorize and the strategies change how PyTorch computes, not what, and are
# taken as given.
let _jacrev = jacrev
let _hessian = hessian
let _vjp = vjp
let _jvp = jvp
let _hvp = hvp

fn _inputs(who, inputs) {
  let is_tuple = type(inputs) in ["tuple", "list"]
  let ins = tuple(inputs) if is_tuple else (inputs,)
  for (k, t) in enumerate(ins) {
    if type(t) != "tensor" { fail(f"autograd.functional.{who}: inputs must be a tensor or a tuple of tensors, got {type(t)}" + (f" at position {k}" if is_tuple else "")) }
  }
  return (is_tuple, ins)
}

fn _flags(who, strict, strategy=none) {
  if strict == true { fail(f"autograd.functional.{who}: strict=true is not supported (nabla does not track which outputs depend on which inputs); leave it false") }
  if strategy != none and not (strategy in ["reverse-mode", "forward-mode"]) {
    fail(f"autograd.functional.{who}: the strategy must be \"reverse-mode\" or \"forward-mode\", got {repr(strategy)}")
  }
}

# Each tensor of a nested tuple detached, unless create_graph.
fn _post(value, create_graph) {
  if create_graph { return value }
  if type(value) == "tensor" { return value.detach() }
  return tuple([_post(v, create_graph) for v in value])
}

# A tuple of one per input for a tuple of inputs, else that one.
fn _per_input(value, is_tuple) = value if is_tuple else value[0]

# v as a tuple matching `like` (tensors), or ones where v is none and each has one element.
fn _vectors(who, v, like, what) {
  if v == none {
    for t in like {
      if t.numel() != 1 { fail(f"autograd.functional.{who}: v can be left out only when {what} has one element, got shape {list(t.shape)}") }
    }
    return tuple([ones_like(t) for t in like])
  }
  let vs = tuple(v) if type(v) in ["tuple", "list"] else (v,)
  if len(vs) != len(like) { fail(f"autograd.functional.{who}: v must hold one tensor per {what} ({len(like)}), got {len(vs)}") }
  for k in range(len(vs)) {
    if type(vs[k]) != "tensor" { fail(f"autograd.functional.{who}: v must hold tensors, got {type(vs[k])}") }
    if list(vs[k].shape) != list(like[k].shape) {
      fail(f"autograd.functional.{who}: v has shape {list(vs[k].shape)} where the {what} has shape {list(like[k].shape)}")
    }
  }
  return vs
}

# what func returned, for an error: its type, or a tensor's shape
fn _what(out) = f"shape {list(out.shape)}" if type(out) == "tensor" else type(out)

# func's outputs must be a tensor or a flat tuple of tensors, as PyTorch's: a dict made
# "key 0 not found", a nested tuple lost its inner Jacobians silently, and a number in a
# tuple recursed until the stack was full in _post.
fn _outputs(who, out) {
  if type(out) == "tensor" { return out }
  if not (type(out) in ["tuple", "list"]) {
    fail(f"autograd.functional.{who}: func must return a tensor or a tuple of tensors, got {type(out)}")
  }
  for (k, t) in enumerate(out) {
    if type(t) != "tensor" {
      fail(f"autograd.functional.{who}: func must return a tensor or a tuple of tensors, got a {type(out)} whose item {k} is {_what(t)}")
    }
  }
  return out
}

fn _tensors(x) = tuple(x) if type(x) in ["tuple", "list"] else (x,)

fn jacobian(func, inputs, create_graph=false, strict=false, vectorize=false, strategy="reverse-mode") {
  """The Jacobian of func at inputs, as torch.autograd.functional.jacobian: out.shape + input.shape per (output, input) pair, nested as func's outputs and the inputs are.

  Example: autograd.functional.jacobian(fn(x) = x * x, tensor([1.0, 2.0]))
  """
  _flags("jacobian()", strict, strategy)
  let (is_tuple, ins) = _inputs("jacobian()", inputs)
  no_grad { _outputs("jacobian()", func(*ins)) }
  let jac = _jacrev(func, argnums=tuple(range(len(ins))))(*ins)
  let out_tuple = type(jac[0]) == "tuple"
  let shaped = tuple([_per_input(j, is_tuple) for j in jac]) if out_tuple else _per_input(jac, is_tuple)
  return _post(shaped, create_graph)
}

fn hessian(func, inputs, create_graph=false, strict=false, vectorize=false, outer_jacobian_strategy="reverse-mode") {
  """The Hessian of a scalar func at inputs, as torch.autograd.functional.hessian: H[i][j] of shape input_i.shape + input_j.shape for a tuple of inputs.

  Example: autograd.functional.hessian(fn(x) = (x ** 3).sum(), tensor([1.0, 2.0]))
  """
  _flags("hessian()", strict, outer_jacobian_strategy)
  let (is_tuple, ins) = _inputs("hessian()", inputs)
  let out = func(*ins)
  if type(out) != "tensor" or out.numel() != 1 {
    fail(f"autograd.functional.hessian(): func must return a tensor of one element, got {_what(out)}")
  }
  let h = _hessian(fn(*xs) = func(*xs).reshape([]), argnums=tuple(range(len(ins))))(*ins)
  return _post(h if is_tuple else h[0][0], create_graph)
}

fn vjp(func, inputs, v=none, create_graph=false, strict=false) {
  """(func(inputs), v^T J), as torch.autograd.functional.vjp; v may be left out when func's output has one element.

  Example: autograd.functional.vjp(fn(x) = x * x, tensor([1.0, 2.0]), tensor([1.0, 1.0]))
  """
  _flags("vjp()", strict)
  let (is_tuple, ins) = _inputs("vjp()", inputs)
  let (out, pullback) = _vjp(func, *ins)
  let outs = _tensors(_outputs("vjp()", out))
  let cot = _vectors("vjp()", v, outs, "output")
  let grads = pullback(cot if type(out) in ["tuple", "list"] else cot[0])
  return _post((out, _per_input(tuple(grads), is_tuple)), create_graph)
}

fn jvp(func, inputs, v=none, create_graph=false, strict=false) {
  """(func(inputs), J v), as torch.autograd.functional.jvp; v may be left out when the input has one element.

  Example: autograd.functional.jvp(fn(x) = x * x, tensor([1.0, 2.0]), tensor([1.0, 0.0]))
  """
  _flags("jvp()", strict)
  let (is_tuple, ins) = _inputs("jvp()", inputs)
  let tangents = _vectors("jvp()", v, ins, "input")
  let (out, tangent_out) = _jvp(func, ins, tangents)
  _outputs("jvp()", out)
  return _post((out, tangent_out), create_graph)
}

fn _second_order(who, func, inputs, v, create_graph, strict) {
  _flags(who, strict)
  let (is_tuple, ins) = _inputs(who, inputs)
  let tangents = _vectors(who, v, ins, "input")
  let out = func(*ins)
  if type(out) != "tensor" or out.numel() != 1 {
    fail(f"autograd.functional.{who}: func must return a tensor of one element, got {_what(out)}")
  }
  let (value, hv) = _hvp(fn(*xs) = func(*xs).reshape([]), ins, tangents)
  return _post((out, _per_input(_tensors(hv), is_tuple)), create_graph)
}

fn hvp(func, inputs, v=none, create_graph=false, strict=false) {
  """(func(inputs), H v) of a scalar func, as torch.autograd.functional.hvp.

  Example: autograd.functional.hvp(fn(x) = (x ** 3).sum(), tensor([1.0, 2.0]), tensor([1.0, 0.0]))
  """
  return _second_order("hvp()", func, inputs, v, create_graph, strict)
}

fn vhp(func, inputs, v=none, create_graph=false, strict=false) {
  """(func(inputs), v^T H) of a scalar func, as torch.autograd.functional.vhp (H is symmetric: hvp's values).

  Example: autograd.functional.vhp(fn(x) = (x ** 3).sum(), tensor([1.0, 2.0]), tensor([1.0, 0.0]))
  """
  return _second_order("vhp()", func, inputs, v, create_graph, strict)
}
