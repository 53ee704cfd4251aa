# help(x): signature, doc and example of builtins, ops, stdlib models and methods, and
# the user's own docstrings (docs/LANGUAGE.md, "Help"). The op's and optimizer's doc
# lines follow their rows and docstrings: update them here when those change.
# case: an op
help(conv2d)
# expect: conv2d(input, weight, bias=none, stride=[1, 1], padding=[0, 0], dilation=[1, 1], groups=1)
# expect:   2-D convolution (cross-correlation) of input [N, C_in, H, W] with weight [C_out, C_in / groups, kH, kW], plus bias, as torch.nn.functional.conv2d (padding also "same" or "valid"; an input [C_in, H, W] is a batch of one).
# expect:   Example: conv2d(randn(1, 3, 8, 8), randn(4, 3, 3, 3), padding=1)
# ---
# case: a layer of a module not imported, by its dotted name
help("nn.Linear")
# expect: nn.Linear(in_features, out_features, bias=true, device=none, dtype=none)
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
# expect:   Adam with L2 weight decay added to the gradient and optional AMSGrad, as torch.optim.Adam.
# expect:
# expect:   Example: optim.Adam([{"params": m.body.parameters()}, {"params": m.head.parameters(), "lr": 1e-2}], lr=1e-3)
# expect: methods:
# expect:   add_param_group(param_group)  Adds a group: {'params': [...], hyperparameter: value}.
# expect:   zero_grad(set_to_none=true)  Sets every grad to none (or zeros).
# expect:   step()  Updates every parameter that has a grad.
# expect:   state_dict()  Every group's hyperparameters and the state, as a flat dict.
# expect:   load_state_dict(d)  Restores a state_dict().
# expect: (and the methods every model has: help("model"))
# expect: optim.Adam.zero_grad(set_to_none=true)
# expect:   Sets every grad to none (or zeros).
# expect:   Example: opt.zero_grad()
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
# expect: Tensor.sum(input, dims=[], keepdim=false, dtype=none)
# expect:   The sum of all elements, or over dims (dim=d for one), keeping them as size 1 with keepdim, as torch.sum.
# expect:   Example: randn(2, 3).sum(dim=1)
# expect: str.split(sep=none)
# expect:   The pieces between each sep, or between runs of whitespace without one.
# expect:   Example: "a,b".split(",")
# expect: math.sqrt(x)
# expect:   The square root of x (nan below 0).
# expect:   Example: math.sqrt(2)
# ---
# case: an unknown name is the evaluator's own error
help("nn.Zzzzzz")
# expect error: tests/lang/help.dsl:87:1: error: module 'nn' has no attribute 'Zzzzzz'
# ---
# case: not a name
help("nn..Linear")
# expect error: tests/lang/help.dsl:91:1: error: help: expected a name or a dotted name (nn.Linear), got 'nn..Linear'
# ---
# case: a method of a model class as a value; Class.method(instance, ...) calls it
import optim
import nn
help(optim.SGD.step)
print(nn.Linear.forward(nn.Linear(2, 3), ones(1, 2)).shape)
# expect: SGD.step()
# expect:   Updates every parameter that has a grad.
# expect:   Example: opt.step()
# expect: (1, 3)
# ---
# case: Class.method without an instance of the class
import nn
nn.Linear.forward(3, ones(2))
# expect error: tests/lang/help.dsl:106:1: error: Linear.forward() needs an instance of Linear as its first argument, got int
# ---
# case: dir lists public names, sorted: of the module, an instance, a class, a module
import nn
let q = 3
print("q" in dir(), "nn" in dir(), dir() == sorted(dir()))
print(dir(nn.Linear))
print("Linear" in dir(nn), "_default_init" in dir(nn), "forward" in dir(nn.Linear(2, 3)), "weight" in dir(nn.Linear(2, 3)))
print(dir(ones(2)) == sorted(dir(ones(2))), "sum" in dir(ones(2)))
# expect: true true true
# expect: ['doc', 'forward', 'name']
# expect: true false true true
# expect: true true
# ---
# case: a lambda has no name of its own
help(fn(x, y=2) = x)
# expect: <lambda>(x, y=2)
# expect:   (no docstring)
