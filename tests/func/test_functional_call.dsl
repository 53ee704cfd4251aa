# functional_call(model, params_and_buffers, args, kwargs=none) (Note
# [functional_call] in interp/builtins/builtins_models.cpp): the model called with the
# dict's tensors for one call. PyTorch's values come from
# tests/func/reference/functional_call.safetensors (scripts/reference/func_transforms.py).
import nn
import "models.dsl" as models

let ref = load("tests/func/reference/functional_call.safetensors")

# The reference's Net: Linear(4, 6), BatchNorm1d(6), tanh, Linear(6, 3).
model Net() {
  fc1 = nn.Linear(4, 6)
  bn = nn.BatchNorm1d(6)
  fc2 = nn.Linear(6, 3)
  forward(x, scale=1.0) = self.fc2(tanh(self.bn(self.fc1(x)))) * scale
}

# The tensors of ref named "<start><key>", by key.
fn prefixed(start) = models.prefixed(ref, start)

# A copy of each tensor of d (the reference's tensors stay as they are); those whose
# key is in `grads` require grad.
fn copies(d, grads=[]) {
  let out = {}
  for (k, t) in d.items() {
    out[k] = t.clone()
    if k in grads { out[k].requires_grad = true }
  }
  return out
}

# A Net in f64 holding the reference's own state.
fn reference_net() {
  let m = Net().to(f64)
  m.load_state_dict(prefixed("own."))
  return m
}

fn same(a, b) = expect_close(a, b, rtol=0.0, atol=0.0)
fn close(a, b) = expect_close(a, b, rtol=1e-10, atol=1e-12)

# Every tensor of the model's state equals the one in `before` (a state_dict clone).
fn expect_state(m, before) {
  let now = m.state_dict()
  expect(list(now.keys()) == list(before.keys()))
  for (k, t) in before.items() { same(now[k], t) }
}

fn param_names(m) {
  let out = []
  for (n, p) in m.named_parameters() { out.append(n) }
  return out
}

test "with the model's own tensors the call is the model's call" {
  let m = reference_net().eval()
  let x = ref["input"]
  close(m(x), ref["out_own"])
  same(functional_call(m, m.state_dict(), x), m(x))
  same(functional_call(m, {}, (x,)), m(x))
  same(functional_call(m, m.state_dict(), (x,), {"scale": 2.0}), m(x, scale=2.0))
}

test "other tensors give PyTorch's outputs, in eval and in training mode" {
  let m = reference_net()
  let before = copies(m.state_dict())
  let x = ref["input"]
  close(functional_call(m.eval(), prefixed("other."), (x,)), ref["out_other_eval"])
  let d = copies(prefixed("other."))
  close(functional_call(m.train(), d, (x,)), ref["out_other_train"])
  # Training moves the running statistics of the tensors given, as PyTorch does.
  close(d["bn.running_mean"], ref["after_train.bn.running_mean"])
  close(d["bn.running_var"], ref["after_train.bn.running_var"])
  same(d["bn.num_batches_tracked"], ref["after_train.bn.num_batches_tracked"])
  expect_state(m, before)
}

test "the gradient flows to the dict's tensors, as PyTorch's and central differences give" {
  let m = reference_net().train()
  let names = param_names(m)
  let d = copies(prefixed("other."), names)
  let y = functional_call(m, d, ref["input"])
  let inputs = []
  for n in names { inputs.append(d[n]) }
  let gs = grad(y.sum(), inputs)
  for i in range(len(names)) { close(gs[i], ref["grad." + names[i]]) }
  for (n, p) in m.named_parameters() { expect(p.grad == none, f"{n}.grad is untouched") }
  m.eval()
  let x = ref["input"]
  expect(gradcheck(fn(w, b) = functional_call(m, {"fc1.weight": w, "fc1.bias": b}, x), d["fc1.weight"],
                   d["fc1.bias"]))
}

test "the model is unchanged: same tensors, same values, same fields" {
  let m = reference_net().train()
  let before = copies(m.state_dict())
  let w = m.fc1.weight
  let d = copies(prefixed("other."))
  functional_call(m, d, ref["input"])
  expect_state(m, before)
  # m.fc1.weight is still the very tensor it was: writing to one shows in the other.
  no_grad { w.add_(1.0) }
  same(m.fc1.weight, before["fc1.weight"] + 1.0)
  expect(m.fc1.weight.requires_grad and m.fc1.weight.is_leaf)
}

test "missing keys keep the model's own tensors" {
  let m = reference_net().eval()
  let x = ref["input"]
  let b = m.fc2.bias + 1.0
  close(functional_call(m, {"fc2.bias": b}, x), m(x) + 1.0)
}

model Fails() {
  lin = nn.Linear(2, 2)
  forward(x) {
    let y = self.lin(x)
    assert(false, "forward failed")
    return y
  }
}

# expect_error's code sees the file's top level.
let failing = Fails()

test "an error in forward restores the model's tensors" {
  let before = copies(failing.state_dict())
  expect_error("functional_call(failing, {\"lin.weight\": zeros([2, 2]), \"lin.bias\": zeros([2])}, ones([1, 2]))",
               "forward failed")
  expect_state(failing, before)
  expect(failing.lin.weight.requires_grad)
}

model Shaped() {
  w = ones([3, 4], requires_grad=true)
  forward(x) = x @ self.w
}

let shaped = Shaped()

test "a shape that breaks forward is named in the error; one that works is accepted, as in PyTorch" {
  let m = shaped
  expect_error("functional_call(shaped, {\"w\": ones([5, 4])}, ones([2, 3]))",
               "functional_call() was given 'w' of shape [5, 4] where the model's own has shape [3, 4]")
  same(m.w, ones([3, 4]))
  expect(functional_call(m, {"w": ones([3, 7])}, ones([2, 3])).shape == (2, 7))
}

model Counter() {
  buffer count = zeros([])
  forward(x) {
    self.count = self.count + 1.0
    return x * self.count
  }
}

test "a field the forward reassigns passes its new value to the dict, as in PyTorch 1.13" {
  let m = Counter()
  let d = {"count": tensor(5.0)}
  same(functional_call(m, d, ones([2])), ones([2]) * 6.0)
  same(d["count"], tensor(6.0))
  same(m.count, zeros([]))
}

model Tied() {
  a = nn.Linear(3, 3)
  b = nn.Linear(3, 3)
  forward(x) = self.b(self.a(x))
}

let tied = Tied()
tied.b.weight = tied.a.weight
let tied_w = randn([3, 3])

test "a tied weight is replaced everywhere it is held" {
  let m = tied
  expect(list(m.state_dict().keys()) == ["a.weight", "a.bias", "b.bias"])
  let w = tied_w
  let x = randn([2, 3])
  let want = linear(linear(x, w, m.a.bias), w, m.b.bias)
  close(functional_call(m, {"a.weight": w}, x), want)
  # The other path names the same tensor.
  close(functional_call(m, {"b.weight": w}, x), want)
  close(functional_call(m, {"a.weight": w, "b.weight": w}, x), want)
  expect_error("functional_call(tied, {\"a.weight\": tied_w, \"b.weight\": tied_w + 1.0}, ones([1, 3]))",
               "tied weights")
}

model Hooked() {
  lin = nn.Linear(2, 2)
  forward(x) = self.lin(x)
}

test "hooks run around the call; a nested module's call sees the dict's tensors" {
  let m = Hooked()
  let seen = []
  m.register_forward_hook(fn(mod, inp, out) = seen.append(out))
  let w = zeros([2, 2])
  let out = functional_call(m, {"lin.weight": w, "lin.bias": ones([2])}, ones([1, 2]))
  same(out, ones([1, 2]))
  same(seen[0], out)
}

model Bare() {
  w = ones([2], requires_grad=true)
  forward(x) = x * w
}

model Echo() {
  forward(*xs, k=0) = (xs, k)
}

test "a forward that names its fields bare sees the dict's tensors" {
  let m = Bare()
  same(functional_call(m, {"w": tensor([3.0, 4.0])}, ones([2])), tensor([3.0, 4.0]))
  same(m.w, ones([2]))
}

test "args: a tuple gives the positional arguments, anything else is the one argument" {
  let m = Echo()
  expect(functional_call(m, {}, (1, 2)) == ((1, 2), 0))
  expect(functional_call(m, {}, [1, 2]) == (([1, 2],), 0))
  expect(functional_call(m, {}, ()) == ((), 0))
  expect(functional_call(m, {}, (1,), {"k": 5}) == ((1,), 5))
}
