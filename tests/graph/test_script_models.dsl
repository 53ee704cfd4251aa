# The executor against eager on the models of scripts/, after optimize("default"):
# inference (the graph's outputs) and training (compile(step, train=true): the loss
# and every parameter's gradient), on small random inputs.
#
# The model definitions are copied from the scripts, not imported: `import
# "../../scripts/x.dsl"` runs the whole file, which loads Fashion-MNIST (or the GPL
# text) and trains. Keep them in step with scripts/*.dsl.
import nn

# ---- helpers ------------------------------------------------------------------------

# Every parameter's .grad, cloned, in parameters() order.
fn grads_of(params) {
  let out = []
  for p in params { out.append(p.grad.clone()) }
  return out
}

# compile(step, inputs..., train=true) optimized with the default pipeline: one call
# gives the loss and writes .grad; eager step(...).backward() must give the same.
fn check_training(params, step, inputs, rtol, atol) {
  let gm = compile(step, *inputs, train=true)
  gm.optimize("default")
  for p in params { p.grad = none }
  let loss = gm(*inputs)
  let graph_grads = grads_of(params)
  for p in params { p.grad = none }
  let eager = step(*inputs)
  eager.backward()
  expect_close(loss, eager.detach(), rtol=rtol, atol=atol)
  let k = 0
  for p in params {
    expect_close(graph_grads[k], p.grad, rtol=rtol, atol=atol)
    k += 1
  }
  return gm
}

# compile(model, x) optimized with the default pipeline against model(x).
fn check_inference(net, x, rtol, atol) {
  let gm = compile(net, x)
  gm.optimize("default")
  no_grad { expect_close(gm(x), net(x), rtol=rtol, atol=atol) }
  return gm
}

# ---- scripts/fashion_mnist_mlp.dsl ---------------------------------------------------

fn fashion_mlp() = nn.Sequential([nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10)])

test "fashion_mnist_mlp: inference, train and eval mode" {
  manual_seed(20)
  let model = fashion_mlp()
  let x = randn([16, 784])
  check_inference(model, x, 1e-5, 1e-6)
  model.eval()
  check_inference(model, x, 1e-5, 1e-6)
}

test "fashion_mnist_mlp: a training step's loss and gradients" {
  manual_seed(21)
  let model = fashion_mlp()
  fn step(xb, yb) = cross_entropy(model(xb), yb)
  check_training(model.parameters(), step, [randn([16, 784]), randint(0, 10, [16])], 1e-5, 1e-6)
}

# ---- scripts/fashion_mnist_cnn.dsl ---------------------------------------------------

fn fashion_cnn() = nn.Sequential([
  nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
  nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
  nn.Flatten(), nn.Linear(64 * 7 * 7, 128), nn.ReLU(), nn.Linear(128, 10)])

test "fashion_mnist_cnn: inference" {
  manual_seed(22)
  let net = fashion_cnn()
  check_inference(net, randn([4, 1, 28, 28]), 1e-5, 1e-6)
}

test "fashion_mnist_cnn: a training step's loss and gradients" {
  manual_seed(23)
  let net = fashion_cnn()
  fn step(xb, yb) = cross_entropy(net(xb), yb)
  check_training(net.parameters(), step, [randn([4, 1, 28, 28]), randint(0, 10, [4])], 1e-4, 1e-6)
}

# ---- scripts/char_transformer.dsl (smaller: vocab 20, dim 32, seq 16) ----------------

model Block(dim, heads) {
  ln1 = nn.LayerNorm([dim])
  attn = nn.MultiheadAttention(dim, heads, batch_first=true)
  ln2 = nn.LayerNorm([dim])
  mlp = nn.Sequential([nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim)])
  forward(x) {
    let h = self.ln1(x)
    let y = x + self.attn(h, h, h, need_weights=false, is_causal=true)[0]
    return y + self.mlp(self.ln2(y))
  }
}

model CharTransformer(vocab, dim, heads, seq) {
  tok = nn.Embedding(vocab, dim)
  pos = nn.Embedding(seq, dim)
  blocks = nn.Sequential([Block(dim, heads), Block(dim, heads)])
  ln = nn.LayerNorm([dim])
  head = nn.Linear(dim, vocab)
  # idx: [batch, t] character codes -> logits [batch, t, vocab]
  forward(idx) = self.head(self.ln(self.blocks(self.tok(idx) + self.pos(arange(idx.shape[1])))))
}

test "char_transformer: inference, and a shorter window (as generate() feeds) re-captures" {
  manual_seed(24)
  let net = CharTransformer(20, 32, 4, 16)
  let x = randint(0, 20, [3, 16])
  let gm = check_inference(net, x, 1e-5, 1e-5)
  net.eval()
  let window = randint(0, 20, [1, 7])
  no_grad { expect_close(gm(window), net(window), rtol=1e-5, atol=1e-5) }
  expect("2 graphs cached" in gm.explain(), gm.explain())
}

test "char_transformer: a training step's loss and gradients" {
  manual_seed(25)
  let net = CharTransformer(20, 32, 4, 16)
  fn step(x, y) = cross_entropy(reshape(net(x), [-1, 20]), reshape(y, [-1]))
  check_training(net.parameters(), step, [randint(0, 20, [3, 16]), randint(0, 20, [3, 16])], 1e-4, 1e-5)
}

# ---- scripts/compress_common.dsl (prune_cnn.dsl, distill.dsl) --------------------------

import prune

fn compress_cnn() = nn.Sequential([
  nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
  nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
  nn.Flatten(), nn.Linear(64 * 7 * 7, 128), nn.ReLU(), nn.Linear(128, 10)])

test "prune_cnn: the masked CNN, inference in both modes and a training step" {
  manual_seed(32)
  let net = compress_cnn()
  let weights = []
  for l in net.children() {
    if isinstance(l, nn.Conv2d) or isinstance(l, nn.Linear) { weights.append((l, "weight")) }
  }
  prune.global_unstructured(weights, amount=0.8)
  let x = randn([4, 1, 28, 28])
  check_inference(net, x, 1e-5, 1e-6)
  net.eval()
  check_inference(net, x, 1e-5, 1e-5)
  net.train()
  fn step(xb, yb) = cross_entropy(net(xb), yb)
  check_training(net.parameters(), step, [x, randint(0, 10, [4])], 1e-4, 1e-6)
  expect(net[9].weight_orig.grad.abs()[net[9].weight_mask == 0].max().item() == 0.0)
}

test "prune_cnn: the shrunk CNN, inference and a training step" {
  manual_seed(33)
  let net = prune.shrink_channels(compress_cnn(), amount=0.5)
  let x = randn([4, 1, 28, 28])
  net.eval()
  check_inference(net, x, 1e-5, 1e-5)
  net.train()
  fn step(xb, yb) = cross_entropy(net(xb), yb)
  check_training(net.parameters(), step, [x, randint(0, 10, [4])], 1e-4, 1e-6)
}

# ---- scripts/regression.dsl ------------------------------------------------------------
#
# mse_loss's backward divides the 0-dim gradient by the element count, a wrapped
# number: it stays f32 in eager and in the graph (the IR keeps the marker: `const
# wrapped f64[]`), so the step captures and verifies.

let reg_x = randn([64, 3])
let reg_y = reg_x @ tensor([[3.0, -2.0, 0.5]]).T + 1.0 + randn([64, 1]) * 0.1
let reg_fit = nn.Linear(3, 1)
fn reg_step(xb, yb) = mse_loss(reg_fit(xb), yb)

test "regression: nn.Linear(3, 1), inference" {
  manual_seed(26)
  check_inference(reg_fit, reg_x, 1e-6, 1e-6)
}

test "regression: the mse_loss training step trains as eager" {
  manual_seed(31)
  check_training(reg_fit.parameters(), reg_step, [reg_x, reg_y], 1e-5, 1e-6)
  expect("const wrapped f64[]" in compile(reg_step, reg_x, reg_y, train=true).ir(), "the wrapped number is marked")
}

test "regression: the same step with the mean written as a sum trains as eager" {
  manual_seed(27)
  fn step(xb, yb) {
    let d = reg_fit(xb) - yb
    return (d * d / 64.0).sum()
  }
  check_training(reg_fit.parameters(), step, [reg_x, reg_y], 1e-5, 1e-6)
}

# ---- scripts/higher_order.dsl ----------------------------------------------------------

fn tanh_net() = nn.Sequential([nn.Linear(1, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 1)])

manual_seed(28)
let ho_net = tanh_net()
let ho_x = rand([64, 1]) * 2.0 - 1.0
let ho_y = sin(ho_x * 3.0)
let penalty_weight = 0.01

# The script's objective: mse(f(x), y) + w * mean((df/dx)^2).
fn objective(xin) {
  let xi = xin.detach().requires_grad_(true)
  let out = ho_net(xi)
  let slope = grad(out.sum(), xi, create_graph=true)
  return mse_loss(out, ho_y) + penalty_weight * (slope * slope).mean()
}

# The same objective written with sums: sum(d * d / n) + sum(w * s * s / n).
fn objective_capturable(xin) {
  let xi = xin.detach().requires_grad_(true)
  let out = ho_net(xi)
  let slope = grad(out.sum(), xi, create_graph=true)
  let d = out - ho_y
  let n = 1.0 * out.shape[0]
  return (d * d / n).sum() + (penalty_weight * slope * slope / n).sum()
}

test "higher_order: the tanh network, inference" {
  check_inference(ho_net, ho_x, 1e-6, 1e-6)
}

test "higher_order: the gradient-penalty objective (grad of grad) as a training graph" {
  check_training(ho_net.parameters(), objective_capturable, [ho_x], 1e-5, 1e-6)
}

test "higher_order: the script's objective (mse_loss, mean, a number times a 0-dim tensor) trains as eager" {
  check_training(ho_net.parameters(), objective, [ho_x], 1e-5, 1e-6)
}

test "higher_order: an inference graph of a function that calls grad() inside equals eager" {
  # capture runs with the caller's grad mode, as eager does
  let gm = compile(objective, ho_x)
  gm.optimize()
  expect_close(gm(ho_x), objective(ho_x), rtol=1e-5, atol=1e-6)
  # under no_grad, grad() has nothing to differentiate: the same error as in eager
  no_grad { expect_error("compile(objective, ho_x)", "grad: output 0 does not require grad and has no grad_fn") }
}

test "higher_order: a Hessian-vector product as the gradients of a training graph (f64)" {
  manual_seed(30)
  let w1 = randn([16, 3], dtype=f64, requires_grad=true)
  let w2 = randn([1, 16], dtype=f64, requires_grad=true)
  let params = [w1, w2]
  let data_x = randn([32, 3], dtype=f64)
  let data_y = randn([32, 1], dtype=f64)
  fn loss_of() = mse_loss(linear(tanh(linear(data_x, w1)), w2), data_y)
  let v = [randn([16, 3], dtype=f64), randn([1, 16], dtype=f64)]
  # d/dp (grad L(p) . v) = H v: double backward inside the captured step.
  fn gv() {
    let g = grad(loss_of(), params, create_graph=true)
    return (g[0] * v[0]).sum() + (g[1] * v[1]).sum()
  }
  let gm = compile(gv, train=true)
  gm.optimize("default")
  for p in params { p.grad = none }
  let value = gm()
  let eager_g = grad(loss_of(), params, create_graph=true)
  let eager_gv = (eager_g[0] * v[0]).sum() + (eager_g[1] * v[1]).sum()
  let hv = grad(eager_gv, params)
  expect_close(value, eager_gv.detach(), rtol=1e-10, atol=1e-12)
  expect_close(w1.grad, hv[0], rtol=1e-10, atol=1e-12)
  expect_close(w2.grad, hv[1], rtol=1e-10, atol=1e-12)
}
