# Transforms over a model's parameters through functional_call(model, params, x):
# grad, vmap(grad) (per-sample gradients), jvp and hessian with a params dict, and
# vmap over stacked params (an ensemble), against the tensor form of grad and loops,
# in f64. The model itself never changes.
import nn
import "checks.dsl" as checks

manual_seed(2840)

let close = checks.close
let table = checks.table

fn close_dicts(got, want) {
  expect(sorted(list(got.keys())) == sorted(list(want.keys())), "the same keys")
  for (k, t) in want.items() { close(got[k], t) }
}

model MLP() {
  fc1 = nn.Linear(4, 8)
  fc2 = nn.Linear(8, 3)
  forward(x) = self.fc2(self.fc1(x).tanh())
}

# The model's parameters as a dict of plain tensors (copies).
fn params_of(m) {
  let out = {}
  for (k, t) in m.named_parameters() { out[k] = t.detach().clone() }
  return out
}

# The gradient of loss(params) with respect to every tensor of the dict, by the tape.
fn tape_grad(loss, p) {
  let leaves = {}
  for (k, t) in p.items() {
    leaves[k] = t.clone()
    leaves[k].requires_grad = true
  }
  let keys = list(p.keys())
  let gs = grad(loss(leaves), table(len(keys), fn(i) = leaves[keys[i]]))
  let out = {}
  for i in range(len(keys)) { out[keys[i]] = gs[i] }
  return out
}

let m = MLP().to(f64)
let p = params_of(m)
let before = m.state_dict()
let X = randn(6, 4, dtype=f64)
let T = randint(0, 3, [6])

fn loss(p, x, t) = cross_entropy(functional_call(m, p, x), t)
fn loss_one(p, x, t) = loss(p, x.unsqueeze(0), t.unsqueeze(0))

fn model_unchanged() {
  for (k, t) in m.state_dict().items() { expect_close(t, before[k], rtol=0.0, atol=0.0) }
}

test "grad and value_and_grad over a params dict through functional_call" {
  let want = tape_grad(fn(q) = loss(q, X, T), p)
  close_dicts(grad(loss)(p, X, T), want)
  let (value, g) = value_and_grad(loss)(p, X, T)
  close(value, loss(p, X, T))
  close_dicts(g, want)
  model_unchanged()
}

test "vmap(grad) over functional_call: per-sample gradients equal the loop" {
  let per = vmap(grad(loss_one), in_dims=(none, 0, 0))(p, X, T)
  for i in range(6) {
    let want = tape_grad(fn(q) = loss_one(q, X[i], T[i]), p)
    for (k, t) in want.items() { close(per[k][i], t) }
  }
  # the mean of the per-sample gradients is the batch's gradient
  let whole = grad(loss)(p, X, T)
  for (k, t) in whole.items() { close(per[k].mean(0), t) }
  model_unchanged()
}

test "an nn.Linear alone: grad and vmap(grad) over its weight and bias" {
  let lin = nn.Linear(4, 2).to(f64)
  let q = params_of(lin)
  let mse = fn(q, x, y) = ((functional_call(lin, q, x) - y) ** 2).sum()
  let Y = randn(6, 2, dtype=f64)
  # closed form: d/dW sum (xW' + b - y)^2 = 2 r' x, d/db = 2 sum r
  let r = X @ q["weight"].T + q["bias"] - Y
  let g = grad(mse)(q, X, Y)
  close(g["weight"], 2.0 * r.T @ X)
  close(g["bias"], 2.0 * r.sum(0))
  let per = vmap(grad(mse), in_dims=(none, 0, 0))(q, X, Y)
  close(per["weight"], 2.0 * r.unsqueeze(2) * X.unsqueeze(1))
  close(per["bias"], 2.0 * r)
}

test "jvp and hessian over the params through functional_call" {
  let tangent = {}
  for (k, t) in p.items() { tangent[k] = randn_like(t) }
  let (out, tangent_out) = jvp(fn(q) = functional_call(m, q, X), (p,), (tangent,))
  close(out, m(X))
  # the same directional derivative from a vjp: <J' c, u> summed over the params, d/dc
  let c = zeros([6, 3], dtype=f64)
  c.requires_grad = true
  let (_, pull) = vjp(fn(q) = functional_call(m, q, X), p)
  let (g,) = pull(c)
  let s = table(len(list(p.keys())), fn(i) = (g[list(p.keys())[i]] * tangent[list(p.keys())[i]]).sum())
  close(tangent_out, grad(stack(s).sum(), [c])[0])
  # the Hessian of the loss w.r.t. fc2's bias: symmetric, and the tape's
  let with_bias = fn(b) = loss({"fc1.weight": p["fc1.weight"], "fc1.bias": p["fc1.bias"], "fc2.weight": p["fc2.weight"], "fc2.bias": b}, X, T)
  let H = hessian(with_bias)(p["fc2.bias"])
  close(H, H.T)
  let b = p["fc2.bias"].clone()
  b.requires_grad = true
  let gb = grad(with_bias(b), [b], create_graph=true)[0]
  close(H, stack(table(3, fn(k) = grad(gb[k], [b], retain_graph=true)[0])))
  model_unchanged()
}

test "vmap over stacked params (an ensemble of models)" {
  let members = table(3, fn(i) = params_of(MLP().to(f64)))
  let stacked = {}
  for k in p.keys() { stacked[k] = stack(table(3, fn(i) = members[i][k])) }
  let out = vmap(fn(q, x) = functional_call(m, q, x), in_dims=(0, none))(stacked, X)
  close(out, stack(table(3, fn(i) = functional_call(m, members[i], X))))
  # and the per-member gradients of their losses
  let g = vmap(grad(loss), in_dims=(0, none, none))(stacked, X, T)
  for i in range(3) {
    let want = tape_grad(fn(q) = loss(q, X, T), members[i])
    for (k, t) in want.items() { close(g[k][i], t) }
  }
  model_unchanged()
}
