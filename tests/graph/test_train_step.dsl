# The compiled training step: a planned graph runs again and again in the buffers of
# its previous run (Note [Buffers kept between runs] in graph/executor.cpp), so after
# its first step it allocates no arena and no result; with the multi-tensor Adam
# step, an MLP's whole training step (gradients, loss, optimizer) allocates nothing.
# Its updates equal eager training's within f32 rounding.
import nn
import optim

fn mlp() = nn.Sequential([nn.Linear(784, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10)])
fn cnn() = nn.Sequential([
  nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
  nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
  nn.Flatten(), nn.Linear(16 * 7 * 7, 32), nn.ReLU(), nn.Linear(32, 10)])

# The allocations of one training step of gm (compiled with train=true) and opt.
fn step_allocations(gm, opt, x, y) {
  opt.zero_grad()
  let before = memory_allocations()
  let loss = gm(x, y).item()
  opt.step()
  return memory_allocations() - before
}

test "a compiled MLP training step allocates nothing after its first step" {
  manual_seed(30)
  let net = mlp()
  let opt = optim.Adam(net.parameters(), lr=1e-3)
  let x = randn([16, 784])
  let y = randint(0, 10, [16])
  fn loss_of(xb, yb) = cross_entropy(net(xb), yb)
  let gm = compile(loss_of, x, y, train=true)
  gm.optimize("default")
  let first = step_allocations(gm, opt, x, y)
  expect(first > 0, f"the first step allocates its arena, results and Adam's state: {first}")
  for i in range(3) {
    let n = step_allocations(gm, opt, x, y)
    expect(n == 0, f"step {i + 2} allocated {n} times")
    expect(gm.memory_plan()["run_allocations"] == 0, f"{gm.memory_plan()}")
  }
}

test "a compiled CNN training step reuses its arena and results after its first step" {
  manual_seed(31)
  let net = cnn()
  let opt = optim.Adam(net.parameters(), lr=1e-3)
  let x = randn([8, 1, 28, 28])
  let y = randint(0, 10, [8])
  fn loss_of(xb, yb) = cross_entropy(net(xb), yb)
  let gm = compile(loss_of, x, y, train=true)
  gm.optimize("default")
  step_allocations(gm, opt, x, y)
  expect(gm.memory_plan()["run_allocations"] > 0, f"{gm.memory_plan()}")
  for i in range(3) {
    step_allocations(gm, opt, x, y)
    expect(gm.memory_plan()["run_allocations"] == 0, f"step {i + 2}: {gm.memory_plan()}")
  }
}

test "a result the caller still holds is never reused" {
  manual_seed(32)
  let w = randn([4, 3], requires_grad=true)
  fn loss_of(x) = sum(x.matmul(w))
  let gm = compile(loss_of, randn([2, 4]), train=true)
  gm.optimize("default")
  let x1 = randn([2, 4])
  let kept = gm(x1)
  let g1 = w.grad
  let expected = sum(x1.matmul(w)).item()
  w.grad = none
  let again = gm(randn([2, 4]))
  expect(kept.item() == expected, f"{kept} changed")
  expect_close(g1, x1.sum(dim=0).unsqueeze(1).expand([4, 3]), rtol=0, atol=1e-6)
  expect(gm.memory_plan()["run_allocations"] >= 2, f"{gm.memory_plan()}")
}

# Parameters after `steps` Adam steps on the same batches, eager or compiled.
fn trained(compiled, steps) {
  manual_seed(33)
  let net = cnn()
  let opt = optim.Adam(net.parameters(), lr=1e-2)
  let x = randn([8, 1, 28, 28])
  let y = randint(0, 10, [8])
  fn loss_of(xb, yb) = cross_entropy(net(xb), yb)
  let gm = compile(loss_of, x, y, train=true)
  gm.optimize("default")
  for i in range(steps) {
    opt.zero_grad()
    if compiled { gm(x, y) } else { loss_of(x, y).backward() }
    opt.step()
  }
  return net.parameters()
}

test "compiled training steps equal eager ones within f32 rounding (rtol 1e-4, atol 1e-5 after 3 Adam steps)" {
  let eager = trained(false, 3)
  let compiled = trained(true, 3)
  for k in range(len(eager)) { expect_close(compiled[k], eager[k], rtol=1e-4, atol=1e-5) }
}
