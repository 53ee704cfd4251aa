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
