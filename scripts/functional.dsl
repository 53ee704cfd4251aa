# The function transforms at work (docs/LANGUAGE.md, "Function transforms").
#   nabla scripts/functional.dsl [epochs] [train_items]
# 1. DP-SGD on Fashion-MNIST: the 784-256-128-10 MLP as a function of a params dict
#    (functional_call), per-example gradients by vmap(grad(loss)), each clipped to norm
#    C, averaged, Gaussian noise added, one SGD step; the per-example norms are checked
#    against a loop of grad on a few examples, and the test accuracy is printed.
# 2. Newton's method with hessian on a small logistic regression (f64): the loss per
#    step, the gradient norm going to ~0, the optimum equal to gradient descent's.
# 3. The Jacobian determinant of polar -> cartesian, (r, theta) -> (r cos theta,
#    r sin theta), by jacrev and jacfwd (vmapped over points): det = r.
# The last line sums up what the asserts checked.
import nn
import data

let epochs = int(args[0]) if len(args) > 0 else 2
let train_items = int(args[1]) if len(args) > 1 else 60000
manual_seed(0)

# ---- 1. DP-SGD with per-example gradients ----
let train = data.fashion_mnist("train", normalize=true).subset(train_items)
let test = data.fashion_mnist("test", normalize=true)
let net = nn.Sequential([nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10)])
let params = {}
for (name, t) in net.named_parameters() { params[name] = t.detach() }

let clip_norm = 1.0         # C: each example's gradient is scaled to norm <= C
let noise_multiplier = 0.5  # sigma: the noise's std is sigma * C on the clipped sum
let lr = 0.5
let batch_size = 64

# One example's loss (x: [784], t: a 0-d class index).
fn example_loss(p, x, t) = cross_entropy(functional_call(net, p, x.unsqueeze(0)), t.unsqueeze(0))
let per_example_grads = vmap(grad(example_loss), in_dims=(none, 0, 0))

# The norm of each example's whole gradient (over every parameter): [B].
fn per_example_norms(grads) {
  let squares = none
  for (name, g) in grads.items() {
    let s = (g * g).flatten(1).sum(1)
    squares = s if squares == none else squares + s
  }
  return sqrt(squares)
}

# vmap(grad)'s per-example norms against grad of each example alone.
fn check_norms_against_loop(p, xb, yb, count) {
  let norms = per_example_norms(per_example_grads(p, xb, yb))
  let one = grad(example_loss)
  for i in range(count) {
    let g = one(p, xb[i], yb[i])
    let squares = 0.0
    for (name, t) in g.items() { squares = squares + (t * t).sum().item() }
    let expected = squares ** 0.5
    assert(abs(norms[i].item() - expected) <= 1e-4 * expected,
           f"per-example gradient norm {i}: vmap(grad) gives {norms[i].item()}, a loop of grad {expected}")
  }
  return norms
}

# One DP-SGD step: clip, sum, add noise, average, descend.
fn dp_sgd_step(p, xb, yb) {
  let grads = per_example_grads(p, xb, yb)
  let scale = clamp(clip_norm / (per_example_norms(grads) + 1e-6), max=1.0)
  let n = xb.shape[0]
  let out = {}
  for (name, g) in grads.items() {
    let clipped_sum = (g * scale.reshape([n] + [1] * (g.dim() - 1))).sum(0)
    let noise = randn(clipped_sum.shape) * (noise_multiplier * clip_norm)
    out[name] = p[name] - lr * (clipped_sum + noise) / n
  }
  return out
}

fn accuracy(p, ds) {
  let right = 0
  for (xb, yb) in ds.batches(1000) {
    right = right + sum(eq(argmax(functional_call(net, p, xb), dim=1), yb)).item()
  }
  return right / len(ds)
}

let (x0, y0) = (train.x[0:batch_size], train.y[0:batch_size])
let norms0 = check_norms_against_loop(params, x0, y0, 4)
print(f"per-example gradient norms (first 4, vmap(grad) = loop of grad): {norms0[:4].tolist()}")
for epoch in range(epochs) {
  for (xb, yb) in train.batches(batch_size, shuffle=true) { params = dp_sgd_step(params, xb, yb) }
  print(f"dp-sgd epoch {epoch + 1}/{epochs}: test accuracy {accuracy(params, test):.4f}")
}
let dp_accuracy = accuracy(params, test)

# ---- 2. Newton's method on a logistic regression (f64) ----
# 200 points, 3 features and a constant; labels drawn from the model, so the optimum
# is finite; a small L2 term keeps the Hessian positive definite.
let features = cat([randn([200, 3], dtype=f64), ones([200, 1], dtype=f64)], dim=1)
let true_w = tensor([1.5, -2.0, 0.5, 0.3], dtype=f64)
let labels = (rand([200], dtype=f64) < sigmoid(features @ true_w)).to(f64)
fn logistic_loss(w) = binary_cross_entropy_with_logits(features @ w, labels) + 1e-3 * (w * w).sum()

# A x = b for a small symmetric positive definite A, by Gauss-Jordan elimination.
fn solve(A, b) {
  let n = A.shape[0]
  let rows = []
  for i in range(n) { rows.append(cat([A[i], b[i].unsqueeze(0)])) }
  for i in range(n) {
    rows[i] = rows[i] / rows[i][i]
    for j in range(n) {
      if j != i { rows[j] = rows[j] - rows[j][i] * rows[i] }
    }
  }
  let x = []
  for r in rows { x.append(r[n]) }
  return stack(x)
}

fn norm_of(v) = sqrt((v * v).sum()).item()
let w = zeros([4], dtype=f64)
let newton_steps = 0
let grad_norm = norm_of(grad(logistic_loss)(w))
print(f"newton step 0: loss {logistic_loss(w).item():.12f} gradient norm {grad_norm:.3e}")
while grad_norm > 1e-12 and newton_steps < 20 {
  w = w - solve(hessian(logistic_loss)(w), grad(logistic_loss)(w))
  newton_steps = newton_steps + 1
  grad_norm = norm_of(grad(logistic_loss)(w))
  print(f"newton step {newton_steps}: loss {logistic_loss(w).item():.12f} gradient norm {grad_norm:.3e}")
}
assert(grad_norm <= 1e-12 and newton_steps <= 10, f"Newton's method should converge in a few steps: {newton_steps} steps, gradient norm {grad_norm}")

# Gradient descent from the same start reaches the same optimum, in many more steps.
let w_gd = zeros([4], dtype=f64)
let gd_steps = 0
let step_grad = grad(logistic_loss)
while norm_of(step_grad(w_gd)) > 1e-12 and gd_steps < 20000 {
  w_gd = w_gd - 2.0 * step_grad(w_gd)
  gd_steps = gd_steps + 1
}
let optimum_diff = (w - w_gd).abs().max().item()
print(f"gradient descent: {gd_steps} steps to gradient norm 1e-12; max |w_newton - w_gd| = {optimum_diff:.2e}")
assert(optimum_diff < 1e-10, "Newton's optimum should equal gradient descent's")

# ---- 3. Jacobian determinant of polar -> cartesian ----
fn polar_to_cartesian(v) = stack([v[0] * cos(v[1]), v[0] * sin(v[1])])
fn det2(J) = J[:, 0, 0] * J[:, 1, 1] - J[:, 0, 1] * J[:, 1, 0]
let points = stack([rand([16], dtype=f64) * 2.0 + 0.5, rand([16], dtype=f64) * 6.283185307179586], dim=1)
let det_rev = det2(vmap(jacrev(polar_to_cartesian))(points))
let det_fwd = det2(vmap(jacfwd(polar_to_cartesian))(points))
let det_err = max((det_rev - points[:, 0]).abs().max().item(), (det_fwd - points[:, 0]).abs().max().item())
print(f"polar -> cartesian: det J = r at 16 points, by jacrev and jacfwd; max error {det_err:.2e}")
assert(det_err < 1e-12, "det of the polar -> cartesian Jacobian should be r")

print(f"functional_summary dp_accuracy={dp_accuracy:.4f} norms_match_loop=true newton_steps={newton_steps} " +
      f"newton_grad_norm={grad_norm:.1e} gd_optimum_diff={optimum_diff:.1e} jacobian_det_err={det_err:.1e}")
