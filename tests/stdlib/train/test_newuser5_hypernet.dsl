# A hypernetwork as a PyTorch user writes it: a network that outputs the weights of
# another (a flat vector split into the target's parameter shapes), applied with
# torch.nn.utils.stateless.functional_call over the generated parameter dict, and a
# convolution whose kernel and bias come from a task embedding through
# nn.functional.conv2d. Outputs and the hypernetwork's gradients from a fixed init are
# checked against PyTorch 1.13 at f64 (tests/stdlib/reference/make_newuser5.py); the
# target's own parameters take no gradient; per-task weights batch through vmap; then a
# hypernetwork learns a family of sine tasks from the task's embedding.
import functional
import math
import nn
import optim

let ref = load("tests/stdlib/reference/newuser5.safetensors")

model Target(d_in=4, hidden=8, d_out=2) {
  fc1 = nn.Linear(d_in, hidden)
  fc2 = nn.Linear(hidden, d_out)
  forward(x) = self.fc2(relu(self.fc1(x)))
}

model HyperNet(target, z_dim=3, hidden=32) {
  shapes = [(name, p.shape) for (name, p) in target.named_parameters()]
  numels = [p.numel() for p in target.parameters()]
  net = nn.Sequential(nn.Linear(z_dim, hidden), nn.ReLU(), nn.Linear(hidden, sum(self.numels)))
  # z: [z_dim] gives one set of weights; the dict maps the target's names to them
  forward(z) {
    let chunks = self.net(z).split(self.numels, dim=-1)
    return {name: c.view(shape) for ((name, shape), c) in zip(self.shapes, chunks)}
  }
}

model ConvHyper(z_dim=4, c_in=2, c_out=3, k=3) {
  shape = (c_out, c_in, k, k)
  w = nn.Linear(z_dim, c_out * c_in * k * k)
  b = nn.Linear(z_dim, c_out)
  forward(x, z) = nn.functional.conv2d(x, self.w(z).view(self.shape), self.b(z), padding=1)
}

test "generated weights through functional_call: output and hypernetwork gradients match PyTorch" {
  let target = Target().double()
  let h = HyperNet(target).double()
  h.load_state_dict({k: ref["hyper." + k] for k in h.state_dict().keys()})
  let params = h(ref["hyper.z"])
  expect(params.keys() == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"])
  expect(params["fc1.weight"].shape == (8, 4))
  let out = nn.utils.stateless.functional_call(target, params, (ref["hyper.x"],))
  expect_close(out, ref["hyper.out"], rtol=1e-12, atol=1e-14)
  let loss = nn.functional.mse_loss(out, ref["hyper.y"])
  expect_close(loss, ref["hyper.loss"], rtol=1e-12, atol=1e-14)
  loss.backward()
  for (name, p) in h.named_parameters() { expect_close(p.grad, ref["hyper.grad." + name], rtol=1e-10, atol=1e-13) }
  for p in target.parameters() { expect(p.grad is none, "the target's own weights were not used") }
  # after the call the target has its own weights back
  expect_close(target(ref["hyper.x"]), nn.utils.stateless.functional_call(target, dict(target.named_parameters()), ref["hyper.x"]))
}

test "a convolution with a generated kernel and bias matches PyTorch" {
  let ch = ConvHyper().double()
  ch.load_state_dict({k: ref["convhyper." + k] for k in ch.state_dict().keys()})
  let out = ch(ref["convhyper.x"], ref["convhyper.z"])
  expect_close(out, ref["convhyper.out"], rtol=1e-12, atol=1e-14)
  out.pow(2).mean().backward()
  for (name, p) in ch.named_parameters() { expect_close(p.grad, ref["convhyper.grad." + name], rtol=1e-10, atol=1e-13) }
}

test "per-task generated weights batch through vmap as a loop over the tasks does" {
  manual_seed(0)
  let target = Target()
  let h = HyperNet(target)
  let (zs, xs) = (randn(5, 3), randn(5, 6, 4))
  let run = fn(z, x) = nn.utils.stateless.functional_call(target, h(z), (x,))
  let batched = functional.vmap(run)(zs, xs)
  let looped = stack([run(zs[i], xs[i]) for i in range(5)])
  expect_close(batched, looped, rtol=1e-5, atol=1e-6)
}

# Tasks y = a * sin(x + phase), each task's embedding z = (a, cos(phase), sin(phase)):
# the hypernetwork must produce a regressor for any task, unseen ones included.
fn task_batch(n_tasks, n_points) {
  let a = rand(n_tasks) * 1.5 + 0.5
  let phase = rand(n_tasks) * math.pi
  let z = stack([a, cos(phase), sin(phase)], dim=1)
  let x = rand(n_tasks, n_points, 1) * 6 - 3
  return (z, x, a.view(-1, 1, 1) * sin(x + phase.view(-1, 1, 1)))
}

test "a hypernetwork learns a family of sine regressors from the task embedding" {
  manual_seed(0)
  let target = Target(d_in=1, hidden=16, d_out=1)
  let h = HyperNet(target, hidden=64)
  let opt = optim.Adam(h.parameters(), lr=2e-3)
  let run = fn(z, x) = nn.utils.stateless.functional_call(target, h(z), (x,))
  let (z_test, x_test, y_test) = task_batch(16, 32)
  let before = 0.0
  no_grad { before = nn.functional.mse_loss(functional.vmap(run)(z_test, x_test), y_test).item() }
  for step in range(300) {
    let (z, x, y) = task_batch(8, 32)
    let loss = nn.functional.mse_loss(functional.vmap(run)(z, x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
  }
  let after = 0.0
  no_grad { after = nn.functional.mse_loss(functional.vmap(run)(z_test, x_test), y_test).item() }
  expect(after < 0.3 * before, f"unseen tasks' mse {before} -> {after}")
}
