# MAML as a PyTorch user writes it: a functional MLP whose inner SGD steps take
# grad(loss, params, create_graph=true), so the meta-gradient flows through them
# (second order); checked against PyTorch 1.13 at f64 (the reference is written by
# tests/stdlib/reference/make_newuser2.py), against the first-order variant, and the
# functional_call form over an nn model; then meta-training on sinusoid tasks.
import nn
import optim
import math

let ref = load("tests/stdlib/reference/newuser2.safetensors")

fn mlp(params, x) {
  let (w1, b1, w2, b2) = params
  return tanh(x @ w1.t() + b1) @ w2.t() + b2
}

# the query loss after `steps` inner SGD steps on the support set
fn adapted_loss(params, xs, ys, xq, yq, inner_lr, steps, create_graph=true) {
  let fast = params
  for s in range(steps) {
    let loss = mse_loss(mlp(fast, xs), ys)
    let grads = grad(loss, fast, create_graph=create_graph)
    fast = [p - inner_lr * g for (p, g) in zip(fast, grads)]
  }
  return mse_loss(mlp(fast, xq), yq)
}

fn ref_params() = [ref[f"maml.param{k}"].clone().requires_grad_() for k in range(4)]

test "second-order meta-gradients match PyTorch's (grad with create_graph through two SGD steps)" {
  let params = ref_params()
  let loss = adapted_loss(params, ref["maml.xs"], ref["maml.ys"], ref["maml.xq"], ref["maml.yq"], 0.1, 2)
  expect_close(loss, ref["maml.loss"], rtol=1e-10, atol=1e-12)
  let meta = grad(loss, params)
  for k in range(4) {
    expect(meta[k].dtype == f64)
    expect_close(meta[k], ref[f"maml.grad{k}"], rtol=1e-8, atol=1e-10)
  }
  # first-order MAML (no create_graph) differs, and matches PyTorch's first-order too
  let params1 = ref_params()
  let first = adapted_loss(params1, ref["maml.xs"], ref["maml.ys"], ref["maml.xq"], ref["maml.yq"], 0.1, 2,
                           create_graph=false)
  let meta1 = grad(first, params1)
  for k in range(4) { expect_close(meta1[k], ref[f"maml.grad_first_order{k}"], rtol=1e-8, atol=1e-10) }
  expect((meta[0] - meta1[0]).abs().max().item() > 1e-4, "the second-order term is not negligible here")
}

model Net() {
  l1 = nn.Linear(1, 8, dtype=f64)
  l2 = nn.Linear(8, 1, dtype=f64)
  forward(x) = self.l2(tanh(self.l1(x)))
}

test "functional_call with a dict of fast weights gives the same meta-gradient" {
  let m = Net()
  let p = ref_params()
  m.load_state_dict({"l1.weight": p[0], "l1.bias": p[1], "l2.weight": p[2], "l2.bias": p[3]})
  let params = dict(m.named_parameters())
  let fast = params
  for s in range(2) {
    let loss = mse_loss(nn.utils.stateless.functional_call(m, fast, (ref["maml.xs"],)), ref["maml.ys"])
    let grads = grad(loss, list(fast.values()), create_graph=true)
    fast = {k: v - 0.1 * g for ((k, v), g) in zip(fast.items(), grads)}
  }
  let loss = mse_loss(functional_call(m, fast, ref["maml.xq"]), ref["maml.yq"])
  loss.backward()
  expect_close(m.l1.weight.grad, ref["maml.grad0"], rtol=1e-8, atol=1e-10)
  expect_close(m.l2.bias.grad, ref["maml.grad3"], rtol=1e-8, atol=1e-10)
}

# sinusoid regression tasks: amplitude in [0.1, 5], phase in [0, pi]
fn sample_task() {
  let amp = 0.1 + 4.9 * rand([]).item()
  let phase = math.pi * rand([]).item()
  let xs = rand([10, 1]) * 10 - 5
  let xq = rand([10, 1]) * 10 - 5
  return (xs, amp * sin(xs + phase), xq, amp * sin(xq + phase))
}

test "meta-training on sinusoid tasks lowers the post-adaptation loss" {
  manual_seed(0)
  let m = nn.Sequential(nn.Linear(1, 40), nn.ReLU(), nn.Linear(40, 40), nn.ReLU(), nn.Linear(40, 1))
  let meta_opt = optim.Adam(m.parameters(), lr=3e-3)
  fn meta_batch_loss(n_tasks) {
    let total = 0.0
    for t in range(n_tasks) {
      let (xs, ys, xq, yq) = sample_task()
      let fast = dict(m.named_parameters())
      let loss = mse_loss(functional_call(m, fast, xs), ys)
      let grads = grad(loss, list(fast.values()), create_graph=true)
      fast = {k: v - 0.01 * g for ((k, v), g) in zip(fast.items(), grads)}
      total = total + mse_loss(functional_call(m, fast, xq), yq)
    }
    return total / n_tasks
  }
  manual_seed(100)
  let before = meta_batch_loss(25).item()
  manual_seed(1)
  for it in range(800) {
    let loss = meta_batch_loss(4)
    meta_opt.zero_grad()
    loss.backward()
    meta_opt.step()
  }
  manual_seed(100)
  let after = meta_batch_loss(25).item()
  expect(after < 0.5 * before, f"the post-adaptation loss on the same 25 tasks should fall: {before} -> {after}")
}
