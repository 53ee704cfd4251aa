# Meta-learning as a PyTorch user writes it: MAML with a higher-order inner loop (two
# SGD steps on a task's support set through torch.autograd.grad(create_graph=true)
# and functional_call over the adapted parameter dict, the query loss backpropagated
# through both steps into the meta-parameters), and Reptile (SGD on a deepcopy, then
# the weights moved toward it). The meta-loss, meta-gradients, an Adam meta-step and a
# Reptile step from a fixed init are checked against PyTorch 1.13 at f64
# (tests/stdlib/reference/make_newuser5.py); the second-order terms are checked to
# matter (first-order MAML differs); then MAML learns sine tasks so that two steps
# adapt to an unseen one better than from a plain init.
import autograd
import copy
import math
import nn
import optim

let ref = load("tests/stdlib/reference/newuser5.safetensors")

fn maml_net() = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 1))

# Two (or `steps`) SGD steps on the support set, differentiable with create_graph.
fn adapt(net, xs, ys, steps=2, inner_lr=0.1, first_order=false) {
  let params = dict(net.named_parameters())
  for i in range(steps) {
    let loss = nn.functional.mse_loss(nn.utils.stateless.functional_call(net, params, (xs,)), ys)
    let grads = autograd.grad(loss, list(params.values()), create_graph=not first_order)
    params = {name: p - inner_lr * g for ((name, p), g) in zip(params.items(), grads)}
  }
  return params
}

fn meta_loss(net, xs, ys, xq, yq, first_order=false) {
  let total = 0
  for k in range(xs.shape[0]) {
    let params = adapt(net, xs[k], ys[k], first_order=first_order)
    total = total + nn.functional.mse_loss(nn.utils.stateless.functional_call(net, params, (xq[k],)), yq[k])
  }
  return total / xs.shape[0]
}

fn loaded() {
  let net = maml_net().double()
  net.load_state_dict({k: ref["maml." + k] for k in net.state_dict().keys()})
  return net
}

test "MAML's second-order meta-gradient over two inner steps, and an Adam meta-step, match PyTorch" {
  let net = loaded()
  let meta_opt = optim.Adam(net.parameters(), lr=1e-2)
  meta_opt.zero_grad()
  let loss = meta_loss(net, ref["maml.xs"], ref["maml.ys"], ref["maml.xq"], ref["maml.yq"])
  expect_close(loss, ref["maml.meta_loss"], rtol=1e-12, atol=1e-14)
  loss.backward()
  for (name, p) in net.named_parameters() { expect_close(p.grad, ref["maml.grad." + name], rtol=1e-9, atol=1e-12) }
  meta_opt.step()
  for (k, v) in net.state_dict().items() { expect_close(v, ref["maml.after." + k], rtol=1e-10, atol=1e-12) }
}

test "first-order MAML drops the second-order terms: its meta-gradient differs" {
  let net = loaded()
  meta_loss(net, ref["maml.xs"], ref["maml.ys"], ref["maml.xq"], ref["maml.yq"], first_order=true).backward()
  let gap = 0.0
  for (name, p) in net.named_parameters() { gap = max(gap, (p.grad - ref["maml.grad." + name]).abs().max().item()) }
  expect(gap > 1e-4, f"first-order and second-order meta-gradients differ by {gap}")
}

test "a Reptile step (three SGD steps on a copy, then halfway toward it) matches PyTorch" {
  let net = loaded()
  let meta_opt = optim.Adam(net.parameters(), lr=1e-2)
  meta_loss(net, ref["maml.xs"], ref["maml.ys"], ref["maml.xq"], ref["maml.yq"]).backward()
  meta_opt.step()
  let fast = copy.deepcopy(net)
  let inner = optim.SGD(fast.parameters(), lr=0.05)
  for i in range(3) {
    inner.zero_grad()
    nn.functional.mse_loss(fast(ref["maml.xs"][0]), ref["maml.ys"][0]).backward()
    inner.step()
  }
  no_grad {
    for (p, fp) in zip(net.parameters(), fast.parameters()) { p.add_(0.5 * (fp - p)) }
  }
  for (k, v) in net.state_dict().items() { expect_close(v, ref["maml.reptile." + k], rtol=1e-10, atol=1e-12) }
}

# Sine tasks: amplitude in [0.5, 2], phase in [0, pi]; support and query sets of 10.
fn sine_tasks(n) {
  let amp = (rand(n) * 1.5 + 0.5).view(n, 1, 1)
  let phase = (rand(n) * math.pi).view(n, 1, 1)
  let (xs, xq) = (rand(n, 10, 1) * 10 - 5, rand(n, 10, 1) * 10 - 5)
  return (xs, amp * sin(xs + phase), xq, amp * sin(xq + phase))
}

fn adapted_loss(net, tasks) {
  let (xs, ys, xq, yq) = tasks
  let total = 0.0
  for k in range(xs.shape[0]) {
    let params = adapt(net, xs[k], ys[k], first_order=true)
    total = total + nn.functional.mse_loss(nn.utils.stateless.functional_call(net, params, (xq[k],)), yq[k]).item()
  }
  return total / xs.shape[0]
}

test "MAML learns an init from which two steps fit an unseen sine task" {
  manual_seed(0)
  let net = nn.Sequential(nn.Linear(1, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 1))
  let plain = copy.deepcopy(net)
  let meta_opt = optim.Adam(net.parameters(), lr=3e-3)
  for it in range(150) {
    let (xs, ys, xq, yq) = sine_tasks(4)
    let loss = meta_loss(net, xs, ys, xq, yq)
    meta_opt.zero_grad()
    loss.backward()
    meta_opt.step()
  }
  let tasks = sine_tasks(20)
  let (before, after) = (adapted_loss(plain, tasks), adapted_loss(net, tasks))
  expect(after < 0.7 * before, f"query mse after two steps: plain init {before}, MAML init {after}")
}
