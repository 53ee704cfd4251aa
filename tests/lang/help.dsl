# help(x): signature, doc and example of builtins, ops, stdlib models and methods, and
# the user's own docstrings (docs/LANGUAGE.md, "Help"). The op's and optimizer's doc
# lines follow their rows and docstrings: update them here when those change.
# case: an op
help(conv2d)
# expect: conv2d(input, weight, bias=none, stride=[1, 1], padding=[0, 0], dilation=[1, 1], groups=1)
# expect:   The op conv2d of the op table (:ops lists its devices and gradients).
# expect:   Example: conv2d(input, weight)
# ---
# case: a layer of a module not imported, by its dotted name
help("nn.Linear")
# expect: nn.Linear(in_features, out_features, bias=true)
# expect:   Applies y = x W^T + b over the last dim (weight [out_features, in_features]).
# expect:   Example: nn.Linear(784, 256)(randn([32, 784]))
# expect: methods:
# expect:   forward(x)
# expect: (and the methods every model has: help("model"))
# ---
# case: an optimizer and one of its methods, with their defaults as written
import optim
help(optim.Adam)
help("optim.Adam.zero_grad")
# expect: Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=false, maximize=false)
# expect:   (no docstring)
# expect: methods:
# expect:   zero_grad(set_to_none=true)
# expect:   step()
# expect:   state_dict()
# expect:   load_state_dict(d)
# expect: (and the methods every model has: help("model"))
# expect: optim.Adam.zero_grad(set_to_none=true)
# expect:   (no docstring)
# ---
# case: a user function and model with docstrings, and an instance
fn area(w, h=2) {
  """The area of a w by h rectangle.

  Example: area(3)
  """
  return w * h
}
model Scale(k=2.0) {
  "Multiplies its input by k. Example: Scale(3.0)(x)"
  factor = k
  forward(x) {
    "x times k."
    return x * factor
  }
  _private() = 0
}
help(area)
help("Scale.forward")
help(Scale(3.0))
# expect: area(w, h=2)
# expect:   The area of a w by h rectangle.
# expect:
# expect:   Example: area(3)
# expect: Scale.forward(x)
# expect:   x times k.
# expect: an instance of model Scale: Scale(k=3.0)
# expect: Scale(k=2.0)
# expect:   Multiplies its input by k.
# expect:   Example: Scale(3.0)(x)
# expect: methods:
# expect:   forward(x)  x times k.
# expect: (and the methods every model has: help("model"))
# ---
# case: methods of builtin types and native modules
help("Tensor.sum")
help("str.split")
help("math.sqrt")
# expect: Tensor.sum(input, dims=[], keepdim=false)
# expect:   The op sum of the op table (:ops lists its devices and gradients).
# expect:   Example: sum(input)
# expect: str.split(sep=none)
# expect:   The pieces between each sep, or between runs of whitespace without one.
# expect:   Example: "a,b".split(",")
# expect: math.sqrt(x)
# expect:   The square root of x (nan below 0).
# expect:   Example: math.sqrt(2)
# ---
# case: an unknown name is the evaluator's own error
help("nn.Zzzzzz")
# expect error: tests/lang/help.dsl:83:1: error: module 'nn' has no attribute 'Zzzzzz'
# ---
# case: not a name
help("nn..Linear")
# expect error: tests/lang/help.dsl:87:1: error: help: expected a name or a dotted name (nn.Linear), got 'nn..Linear'
