# functional_call's errors: each names functional_call and what is wrong, at the call.

# case: a key the model does not have, with the names it likely meant
# expect error: tests/lang/errors_func.dsl:11:9: error: functional_call(): model Net has no parameter or buffer 'fc1.weigth'; did you mean 'fc1.weight', 'fc2.weight'
import nn
model Net() {
  fc1 = nn.Linear(2, 3)
  fc2 = nn.Linear(3, 3)
  forward(x) = self.fc2(self.fc1(x))
}
let y = functional_call(Net(), {"fc1.weigth": ones([3, 2])}, ones([1, 2]))
# ---
# case: a key far from every name lists them all
# expect error: tests/lang/errors_func.dsl:20:9: error: functional_call(): model Net has no parameter or buffer 'bias'; its parameters and buffers are 'w', 'scale'
model Net() {
  w = ones([2, 3], requires_grad=true)
  buffer scale = ones([3])
  forward(x) = x @ self.w * self.scale
}
let y = functional_call(Net(), {"bias": ones([3])}, ones([1, 2]))
# ---
# case: a model without parameters or buffers
# expect error: tests/lang/errors_func.dsl:27:9: error: functional_call(): model Plain has no parameter or buffer 'w' (it has none)
model Plain() {
  forward(x) = x
}
let y = functional_call(Plain(), {"w": ones([1])}, ones([1]))
# ---
# case: a value that is not a tensor
# expect error: tests/lang/errors_func.dsl:35:9: error: functional_call(): the value of 'w' must be a tensor, got float
model Net() {
  w = ones([2, 3], requires_grad=true)
  forward(x) = x @ self.w
}
let y = functional_call(Net(), {"w": 1.5}, ones([1, 2]))
# ---
# case: a key that is not a str
# expect error: tests/lang/errors_func.dsl:43:9: error: functional_call(): the dict's keys must be str, got 0
model Net() {
  w = ones([2, 3], requires_grad=true)
  forward(x) = x @ self.w
}
let y = functional_call(Net(), {0: ones([2, 3])}, ones([1, 2]))
# ---
# case: something other than a model
# expect error: tests/lang/errors_func.dsl:47:9: error: functional_call(): model must be a model instance, got function
let y = functional_call(fn(x) = x, {}, ones([1]))
# ---
# case: params_and_buffers that is not a dict
# expect error: tests/lang/errors_func.dsl:55:9: error: functional_call(): params_and_buffers must be a dict of tensors, got list
model Net() {
  w = ones([2, 3], requires_grad=true)
  forward(x) = x @ self.w
}
let y = functional_call(Net(), [ones([2, 3])], ones([1, 2]))
# ---
# case: kwargs that is not a dict
# expect error: tests/lang/errors_func.dsl:63:9: error: functional_call(): kwargs must be a dict or none, got list
model Net() {
  w = ones([2, 3], requires_grad=true)
  forward(x) = x @ self.w
}
let y = functional_call(Net(), {}, ones([1, 2]), [1])
# ---
# case: two keys of one tied tensor with different tensors
# expect error: tests/lang/errors_func.dsl:78:9: error: functional_call(): 'p.a' and 'q.a' name one tensor of the model (tied weights), and the dict gives them different tensors
model Pair() {
  a = ones([3, 3], requires_grad=true)
  forward(x) = x @ self.a
}
model Net() {
  p = Pair()
  q = Pair()
  forward(x) = self.q(self.p(x))
}
let m = Net()
m.q.a = m.p.a
let y = functional_call(m, {"p.a": ones([3, 3]), "q.a": zeros([3, 3])}, ones([1, 3]))
# ---
# case: a shape that breaks forward: the op's error, then which tensor of the dict differs
# expect error: tests/lang/errors_func.dsl:85:16: error: matmul: argument 'other' of shape [5, 4] has 5 rows but argument 'self' of shape [2, 3] has 3 columns
# expect error line:   note: functional_call() was given 'w' of shape [5, 4] where the model's own has shape [3, 4]
model Net() {
  w = ones([3, 4], requires_grad=true)
  forward(x) = x @ self.w
}
let y = functional_call(Net(), {"w": ones([5, 4])}, ones([2, 3]))
# ---
# case: grad of a function that returns a string, not a tensor
# expect error: tests/lang/errors_func.dsl:94:9: error: grad: the function must return a tensor, got str (pass has_aux=true to return (output, aux))
# expect error line:   let g = grad(fn(x) = "loss")(x)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~
let x = ones([3])
let g = grad(fn(x) = "loss")(x)
# ---
# case: vmap of a function that returns a number, not a tensor
# expect error: tests/lang/errors_func.dsl:100:9: error: vmap: the function must return a tensor (or a list, tuple or dict of tensors), got int
# expect error line:   let y = vmap(fn(x) = 3)(ones([2, 3]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let y = vmap(fn(x) = 3)(ones([2, 3]))
# ---
# case: jvp of a function that returns none
# expect error: tests/lang/errors_func.dsl:107:9: error: jvp: the function must return a tensor (or a list, tuple or dict of tensors), got none
# expect error line:   let y = jvp(fn(x) = none, (x,), (x,))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let x = ones([3])
let y = jvp(fn(x) = none, (x,), (x,))
# ---
# case: jacrev of a function that returns a float
# expect error: tests/lang/errors_func.dsl:114:9: error: jacrev: the function must return a tensor (or a list, tuple or dict of tensors), got float
# expect error line:   let j = jacrev(fn(x) = 1.0)(x)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~
let x = ones([3])
let j = jacrev(fn(x) = 1.0)(x)
# ---
# case: grad of an output with more than one element
# expect error: tests/lang/errors_func.dsl:121:9: error: grad: the function must return a single number (one element), got a tensor of shape [3]; use vjp or jacrev for other outputs
# expect error line:   let g = grad(fn(x) = x * 2.0)(x)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~
let x = ones([3])
let g = grad(fn(x) = x * 2.0)(x)
# ---
# case: value_and_grad of an output with more than one element
# expect error: tests/lang/errors_func.dsl:128:9: error: value_and_grad: the function must return a single number (one element), got a tensor of shape [2]; use vjp or jacrev for other outputs
# expect error line:   let g = value_and_grad(fn(x) = x.sum(0))(x)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let x = ones([2, 2])
let g = value_and_grad(fn(x) = x.sum(0))(x)
# ---
# case: in_dims with more entries than arguments
# expect error: tests/lang/errors_func.dsl:134:9: error: vmap: in_dims has 3 entries but the function was called with 2 arguments
# expect error line:   let y = vmap(fn(x, y) = x + y, in_dims=(0, 0, 0))(ones([2]), ones([2]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let y = vmap(fn(x, y) = x + y, in_dims=(0, 0, 0))(ones([2]), ones([2]))
# ---
# case: an in_dim out of range for its argument
# expect error: tests/lang/errors_func.dsl:140:9: error: vmap: in_dims[0] is 2 but argument 0 has 2 dims (shape [2, 3])
# expect error line:   let y = vmap(fn(x) = x, in_dims=2)(ones([2, 3]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let y = vmap(fn(x) = x, in_dims=2)(ones([2, 3]))
# ---
# case: arguments whose batch sizes differ
# expect error: tests/lang/errors_func.dsl:146:9: error: vmap: the batch sizes differ: 2 for argument 0 (shape [2], in_dim 0) but 3 for argument 1 (shape [3], in_dim 0)
# expect error line:   let y = vmap(fn(x, y) = x + y)(ones([2]), ones([3]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let y = vmap(fn(x, y) = x + y)(ones([2]), ones([3]))
# ---
# case: an in_dim for an argument that is not a tensor
# expect error: tests/lang/errors_func.dsl:152:9: error: vmap: in_dims[1] is 0 but argument 1 is int, not a tensor (give none for it)
# expect error line:   let y = vmap(fn(x, n) = x * n, in_dims=(0, 0))(ones([2]), 3)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let y = vmap(fn(x, n) = x * n, in_dims=(0, 0))(ones([2]), 3)
# ---
# case: out_dims with more entries than outputs
# expect error: tests/lang/errors_func.dsl:158:9: error: vmap: out_dims has 3 entries but the function returned 2 outputs
# expect error line:   let y = vmap(fn(x) = (x, x.sum()), out_dims=(0, 0, 1))(ones([2, 3]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let y = vmap(fn(x) = (x, x.sum()), out_dims=(0, 0, 1))(ones([2, 3]))
# ---
# case: .item() of a batched tensor inside vmap
# expect error: tests/lang/errors_func.dsl:166:15: error: cannot read the values of a tensor batched by vmap (item(), tolist(), printing, a number or a branch made from it): inside vmap each batch element has its own values; return the tensor from the function instead
# expect error line:   fn total(x) = x.sum().item()
# expect error line:                 ^~~~~~~~~~~~~~
# expect error line:   at tests/lang/errors_func.dsl:166:15 in total()
# expect error line:   at tests/lang/errors_func.dsl:167:9 in <module>
fn total(x) = x.sum().item()
let y = vmap(total)(ones([2, 3]))
# ---
# case: a vjp_fn cotangent whose shape is not the output's
# expect error: tests/lang/errors_func.dsl:175:9: error: vjp_fn(): cotangent 0 has shape [4] but output 0 has shape [3]
# expect error line:   let g = pull(ones([4]))
# expect error line:           ^~~~~~~~~~~~~~~
let x = ones([3])
let (y, pull) = vjp(fn(x) = x.sin(), x)
let g = pull(ones([4]))
# ---
# case: a jvp tangent whose shape is not its primal's
# expect error: tests/lang/errors_func.dsl:182:9: error: jvp: primal 0: the tangent has shape [2, 3] but its primal has shape [3]
# expect error line:   let y = jvp(fn(x) = x.sin(), (x,), (ones([2, 3]),))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let x = ones([3])
let y = jvp(fn(x) = x.sin(), (x,), (ones([2, 3]),))
# ---
# case: under a reverse level (grad in a jvp in vmap), a write of a differentiated value into a tensor that is not
# expect error: tests/lang/errors_func.dsl:191:3: error: grad (inside a jvp inside vmap): in-place write of a value being differentiated into a tensor that is not (one captured, or made from constants such as zeros()); write out of place (y = y + x)
# expect error line:     y.add_(x)
# expect error line:     ^~~~~~~~~
# expect error line:   at tests/lang/errors_func.dsl:191:3 in accumulate()
fn accumulate(x) {
  let y = zeros([4])
  y.add_(x)
  return y.sum()
}
let c = ones([4])
let g = vmap(fn(x) = jvp(fn(t) = grad(accumulate)(x) * t, (c,), (c,))[0])(ones([2, 4]))
