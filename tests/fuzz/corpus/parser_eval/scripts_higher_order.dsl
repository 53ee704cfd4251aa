# Training that needs grad of grad, and a Hessian-vector product checked against
# finite differences.
#   nabla scripts/higher_order.dsl [steps]
# 1. Fits y = sin(3x) with a small tanh network under a gradient penalty: the loss
#    includes mean(|d f / d x|^2), so each step differentiates a gradient.
# 2. Checks H v (double backward through the same objective) against central
#    differences of the gradient, in f64.
import nn
import optim

let steps = int(args[0]) if len(args) > 0 else 400
manual_seed(0)

# ---- 1. a gradient-penalised fit ----
let x = rand([256, 1]) * 2.0 - 1.0
let y = sin(x * 3.0)
let net = nn.Sequential([nn.Linear(1, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 1)])
let opt = optim.Adam(net.parameters(), lr=1e-2)
let penalty_weight = 0.01

# mse(f(x), y) + w * mean((df/dx)^2): the penalty is a gradient, kept in the graph.
fn objective() {
  let xi = x.detach().requires_grad_(true)
  let out = net(xi)
  let slope = grad(out.sum(), xi, create_graph=true)
  return mse_loss(out, y) + penalty_weight * (slope * slope).mean()
}

let first = objective().item()
for step in range(steps) {
  let loss = objective()
  opt.zero_grad()
  loss.backward()
  opt.step()
}
let last = objective().item()
print(f"gradient-penalty fit: loss {first:.4f} -> {last:.4f} after {steps} steps")
assert(last < first / 4, "the gradient-penalised objective should fall at least 4x")

# ---- 2. Hessian-vector product against finite differences (f64) ----
let w1 = randn([16, 3], dtype=f64, requires_grad=true)
let w2 = randn([1, 16], dtype=f64, requires_grad=true)
let params = [w1, w2]
let data_x = randn([32, 3], dtype=f64)
let data_y = randn([32, 1], dtype=f64)
fn loss_of() = mse_loss(linear(tanh(linear(data_x, w1)), w2), data_y)

let v = [randn([16, 3], dtype=f64), randn([1, 16], dtype=f64)]
let g = grad(loss_of(), params, create_graph=true)
let gv = (g[0] * v[0]).sum() + (g[1] * v[1]).sum()
let hv = grad(gv, params)

# (grad L(p + eps v) - grad L(p - eps v)) / (2 eps)
let eps = 1e-5
fn shift(sign) {
  no_grad {
    for i in range(len(params)) { params[i].add_(v[i] * (sign * eps)) }
  }
}
shift(1.0)
let g_plus = grad(loss_of(), params)
shift(-2.0)
let g_minus = grad(loss_of(), params)
shift(1.0)
let worst = 0.0
for i in range(len(params)) {
  let numeric = (g_plus[i] - g_minus[i]) / (2 * eps)
  let err = (abs(hv[i] - numeric).max() / (abs(numeric).max() + 1e-12)).item()
  worst = max(worst, err)
}
print(f"Hessian-vector product vs finite differences: max relative error {worst:.2e}")
assert(worst < 1e-6, "the double-backward Hessian-vector product disagrees with finite differences")
