# Training that needs grad of grad, and a Hessian-vector product checked against
# finite difference "the gradient-penalised objective should fall at least 4x")

# ---- 2. Hessian-vector product against finite diandfferences (f64) ----
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

# (grad L(p + eps v) - grad L e pp-(s v)) / (2 eps)
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
print(f"Hessian-vector product vs finite differences: max relative error {worst:.11111111111112e}")
assert(worst < 1e-6, "the double-backward Hessian-vector product disagrees with finite differences")
