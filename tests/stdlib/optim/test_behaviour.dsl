# The optim module's behaviour beyond the PyTorch trajectories of test_reference.dsl:
# zero_grad, skipped parameters, lr, state dicts, convergence, the schedulers that cycle
# momentum. `nabla test tests/stdlib/optim`.
import optim

# A small quadratic with its minimum at x = target: sum(scale * (x - target)^2).
let target = tensor([1.5, -2.0, 0.5, 3.0])
let scale = tensor([1.0, 4.0, 0.5, 2.0])
fn quad(x) = (scale * (x - target) * (x - target)).sum()

fn minimise(make, steps) {
  let x = zeros([4], requires_grad=true)
  let opt = make([x])
  for i in range(steps) {
    opt.zero_grad()
    quad(x).backward()
    opt.step()
  }
  return x
}

test "every optimizer minimises a quadratic" {
  expect_close(minimise(fn(ps) = optim.SGD(ps, lr=0.1), 200), target, atol=1e-4)
  expect_close(minimise(fn(ps) = optim.SGD(ps, lr=0.05, momentum=0.9), 300), target, atol=1e-4)
  expect_close(minimise(fn(ps) = optim.SGD(ps, lr=0.05, momentum=0.9, nesterov=true), 300), target, atol=1e-4)
  expect_close(minimise(fn(ps) = optim.Adam(ps, lr=0.05), 1000), target, atol=1e-3)
  expect_close(minimise(fn(ps) = optim.AdamW(ps, lr=0.05, weight_decay=0), 1000), target, atol=1e-3)
  expect_close(minimise(fn(ps) = optim.RMSprop(ps, lr=0.01), 1000), target, atol=1e-2)
  # A wrong sign would run away from the minimum instead.
  expect(quad(minimise(fn(ps) = optim.Adam(ps, lr=0.05), 50)).item() < quad(zeros([4])).item())
}

test "zero_grad sets every grad to none" {
  let w = tensor([1.0, 2.0], requires_grad=true)
  let b = tensor([0.5], requires_grad=true)
  let opt = optim.Adam([w, b])
  ((w * w).sum() + b.sum()).backward()
  expect(w.grad != none and b.grad != none)
  opt.zero_grad()
  expect(w.grad == none, "w.grad is none")
  expect(b.grad == none, "b.grad is none")
  ((w * w).sum() + b.sum()).backward()
  opt.zero_grad(set_to_none=false)
  expect_close(w.grad, zeros([2]))
  expect_close(b.grad, zeros([1]))
}

test "step skips parameters without a grad and keeps no state for them" {
  let w = tensor([1.0, 2.0], requires_grad=true)
  let unused = tensor([3.0, 4.0], requires_grad=true)
  for opt in [optim.SGD([w, unused], lr=0.1, momentum=0.9), optim.Adam([w, unused]),
              optim.AdamW([w, unused]), optim.RMSprop([w, unused], momentum=0.5)] {
    opt.zero_grad()
    (w * w).sum().backward()
    opt.step()
    expect_close(unused, tensor([3.0, 4.0]))
    expect(len(opt.state[1]) == 0, "no state for a parameter never updated")
    expect(len(opt.state[0]) > 0, "state for the updated parameter")
  }
  expect(w.grad != none and w.requires_grad and w.is_leaf, "still a leaf that requires grad")
}

test "step does not record autograd history" {
  let w = tensor([1.0, 2.0], requires_grad=true)
  let opt = optim.SGD([w], lr=0.1, momentum=0.9)
  (w * w).sum().backward()
  opt.step()
  expect(w.is_leaf and w.grad_fn == none)
}

test "lr is readable and settable" {
  let w = tensor([1.0], requires_grad=true)
  let opt = optim.SGD([w], lr=0.5)
  expect(opt.lr == 0.5)
  opt.lr = 0.25
  (w * 2.0).sum().backward()
  opt.step()
  expect_close(w, tensor([0.5]))
  expect(optim.Adam([w]).lr == 1e-3 and optim.RMSprop([w]).lr == 1e-2)
  expect(optim.AdamW([w]).weight_decay == 1e-2 and optim.Adam([w]).weight_decay == 0)
  expect(optim.Adam([w]).betas == (0.9, 0.999))
}

test "parameters of a model" {
  model Lin(n) {
    w = ones([n], requires_grad=true)
    b = zeros([1], requires_grad=true)
    forward(x) = (x * self.w).sum() + self.b
  }
  let m = Lin(3)
  let opt = optim.SGD(m.parameters(), lr=0.1)
  m(tensor([1.0, 2.0, 3.0])).sum().backward()
  opt.step()
  expect_close(m.w, tensor([0.9, 0.8, 0.7]))
  expect_close(m.b, tensor([-0.1]))
}

test "nesterov needs momentum" {
  expect_error("optim.SGD([tensor([1.0], requires_grad=true)], lr=0.1, nesterov=true)", "nesterov")
  expect_error("optim.SGD([tensor([1.0], requires_grad=true)], momentum=0.9, dampening=0.1, nesterov=true)",
               "nesterov")
}

# Runs n steps of opt on quad over x.
fn train(opt, x, n) {
  for i in range(n) {
    opt.zero_grad()
    quad(x).backward()
    opt.step()
  }
}

fn round_trip(make) {
  # a: 6 steps straight. b: 3 steps, then its state dict. c: 3 steps on xc, then a fresh
  # optimizer on xc loads b's state dict and takes 3 more: xc must equal xa.
  let xa = zeros([4], requires_grad=true)
  let a = make([xa])
  train(a, xa, 6)
  let xb = zeros([4], requires_grad=true)
  let b = make([xb])
  train(b, xb, 3)
  let sd = b.state_dict()
  train(b, xb, 2)   # the state dict holds copies: these steps do not change it
  let xc = zeros([4], requires_grad=true)
  let c = make([xc])
  train(c, xc, 3)
  let fresh = make([xc])
  fresh.lr = 123.0
  fresh.load_state_dict(sd)
  train(fresh, xc, 3)
  expect_close(xc, xa, rtol=1e-6, atol=1e-7)
}

test "state_dict round trip continues identically" {
  round_trip(fn(ps) = optim.SGD(ps, lr=0.05, momentum=0.9, nesterov=true))
  round_trip(fn(ps) = optim.Adam(ps, lr=0.1))
  round_trip(fn(ps) = optim.Adam(ps, lr=0.1, amsgrad=true, weight_decay=0.1))
  round_trip(fn(ps) = optim.AdamW(ps, lr=0.1))
  round_trip(fn(ps) = optim.RMSprop(ps, lr=0.01, momentum=0.9, centered=true))
}

test "state_dict is a flat dict of numbers and tensors" {
  let w = tensor([1.0, 2.0], requires_grad=true)
  let opt = optim.Adam([w], lr=0.1, betas=(0.8, 0.9))
  (w * w).sum().backward()
  opt.step()
  opt.step()
  let sd = opt.state_dict()
  expect(sd["lr"] == 0.1 and sd["beta1"] == 0.8 and sd["beta2"] == 0.9 and sd["eps"] == 1e-8)
  expect(sd["state.0.step"] == 2)
  expect(sd["state.0.exp_avg"].shape == (2,) and sd["state.0.exp_avg_sq"].shape == (2,))
  for k in sd { expect(type(sd[k]) in ["int", "float", "bool", "tensor"], f"{k}: {type(sd[k])}") }
}

test "a scheduler's state dict restores its lr" {
  let w = tensor([1.0], requires_grad=true)
  let opt = optim.SGD([w], lr=0.1)
  let s = optim.CosineAnnealingLR(opt, 10)
  for i in range(4) { s.step() }
  let sd = s.state_dict()
  let opt2 = optim.SGD([w], lr=0.1)
  let s2 = optim.CosineAnnealingLR(opt2, 10)
  s2.load_state_dict(sd)
  expect_close(opt2.lr, opt.lr)
  s.step()
  s2.step()
  expect_close(opt2.lr, opt.lr)
}

test "LinearWarmup ramps from lr/warmup_steps to lr" {
  let w = tensor([1.0], requires_grad=true)
  let opt = optim.Adam([w], lr=1.0)
  let s = optim.LinearWarmup(opt, 4)
  let seen = [opt.lr]
  for i in range(5) {
    s.step()
    seen.append(opt.lr)
  }
  expect(seen == [0.25, 0.5, 0.75, 1.0, 1.0, 1.0], f"{seen}")
  expect(s.get_last_lr() == [1.0] and s.last_epoch == 5)
}

test "the fused Adam update equals the tensor-op one in f32" {
  for make in [fn(ps) = optim.Adam(ps, lr=0.01, weight_decay=0.1), fn(ps) = optim.AdamW(ps, lr=0.01)] {
    let xs = []
    for fused in [true, false] {
      optim._use_fused(fused)
      let x = tensor([0.5, -1.0, 2.0, 0.0], requires_grad=true)
      train(make([x]), x, 20)
      xs.append(x)
    }
    optim._use_fused(true)
    expect(xs[0].dtype == f32)
    expect_close(xs[0], xs[1], rtol=1e-5, atol=1e-6)
  }
}

test "Adam, AdamW, SGD and RMSprop train a small MLP" {
  model MLP() {
    w1 = randn([16, 4], requires_grad=true)
    b1 = zeros([16], requires_grad=true)
    w2 = randn([3, 16], requires_grad=true)
    b2 = zeros([3], requires_grad=true)
    forward(x) = linear(relu(linear(x, self.w1, self.b1)), self.w2, self.b2)
  }
  let x = randn([32, 4])
  let y = argmax(x[:, 0:3], dim=1)
  for make in [fn(ps) = optim.Adam(ps, lr=0.01), fn(ps) = optim.AdamW(ps, lr=0.01),
               fn(ps) = optim.SGD(ps, lr=0.1, momentum=0.9), fn(ps) = optim.RMSprop(ps, lr=0.01)] {
    let m = MLP()
    let opt = make(m.parameters())
    let first = cross_entropy(m(x), y).item()
    for i in range(100) {
      opt.zero_grad()
      cross_entropy(m(x), y).backward()
      opt.step()
    }
    let last = cross_entropy(m(x), y).item()
    expect(last < 0.5 * first, f"loss {first} -> {last}")
  }
}

test "SGD's fused multi-tensor step equals its tensor ops bit for bit, with every option, in f32 and f64" {
  let options = [{"momentum": 0}, {"momentum": 0.9}, {"momentum": 0.9, "dampening": 0.25},
                 {"momentum": 0.9, "nesterov": true, "weight_decay": 0.01}, {"momentum": 0.5, "maximize": true},
                 {"weight_decay": 0.1}]
  for dtype in [f32, f64] {
    for o in options {
      let results = []
      for fused in [true, false] {
        optim._use_fused(fused)
        manual_seed(40)
        let ps = [randn([33, 17], dtype=dtype, requires_grad=true), randn([5], dtype=dtype, requires_grad=true)]
        let group = {"params": ps}
        for k in o { group[k] = o[k] }
        let opt = optim.SGD([group], lr=0.05)
        for step in range(4) {
          opt.zero_grad()
          (sum(ps[0] * ps[0]) + sum(sin(ps[1])) * step).backward()
          opt.step()
        }
        results.append(ps)
      }
      optim._use_fused(true)
      for k in range(2) { expect_close(results[0][k], results[1][k], rtol=0, atol=0) }
    }
  }
}

test "one SGD step is one sgd_step_multi row of the profile" {
  let ps = [randn([10, 3], requires_grad=true), randn([4], requires_grad=true)]
  (sum(ps[0] * ps[0]) + sum(ps[1] * ps[1])).backward()
  let opt = optim.SGD(ps, lr=0.1, momentum=0.9)
  profile(print=false) { opt.step() }
  let rows = last_profile().rows()
  expect(len(rows) == 1 and rows[0]["key"] == "sgd_step_multi" and rows[0]["calls"] == 1, f"{rows}")
  expect(rows[0]["flops"] == 6 * 34 and rows[0]["bytes"] == 5 * 34 * 4, f"{rows[0]}")
}

test "OneCycleLR and CyclicLR state dicts restore the lr and the momentum" {
  for make in [fn(o) = optim.OneCycleLR(o, 0.5, total_steps=20), fn(o) = optim.CyclicLR(o, 0.01, 0.1, step_size_up=3)] {
    let w = tensor([1.0], requires_grad=true)
    let opt = optim.SGD([w], lr=0.1, momentum=0.9)
    let s = make(opt)
    for i in range(5) { s.step() }
    let opt2 = optim.SGD([w], lr=0.1, momentum=0.9)
    let s2 = make(opt2)
    s2.load_state_dict(s.state_dict())
    expect(opt2.lr == opt.lr and opt2.momentum == opt.momentum, f"{opt2.lr} {opt2.momentum}")
    s.step()
    s2.step()
    expect(opt2.lr == opt.lr and opt2.momentum == opt.momentum, f"{opt2.lr} {opt2.momentum}")
  }
}

test "OneCycleLR cycles beta1 of an optimizer with betas and keeps beta2" {
  let adam = optim.Adam([tensor([1.0], requires_grad=true)], betas=(0.9, 0.99))
  let s = optim.OneCycleLR(adam, 0.1, total_steps=10)
  expect_close(adam.lr, 0.1 / 25, rtol=1e-12)
  expect_close(adam.betas[0], 0.95, rtol=1e-12)
  for i in range(3) { s.step() }
  expect(adam.betas[1] == 0.99 and adam.betas[0] < 0.95 and adam.lr > 0.1 / 25, f"{adam.betas} {adam.lr}")
}

test "without cycle_momentum, CyclicLR and OneCycleLR leave momentum and betas alone" {
  let opt = optim.SGD([tensor([1.0], requires_grad=true)], lr=0.1, momentum=0.5)
  let s = optim.CyclicLR(opt, 0.01, 0.1, step_size_up=2, cycle_momentum=false)
  expect(opt.lr == 0.01)
  s.step()
  expect(opt.momentum == 0.5 and opt.lr > 0.01)
  let adam = optim.Adam([tensor([1.0], requires_grad=true)])
  let s2 = optim.OneCycleLR(adam, 0.1, total_steps=10, cycle_momentum=false)
  s2.step()
  expect(adam.betas == (0.9, 0.999))
}

test "PolynomialLR decays to 0 at total_iters and stays there" {
  let opt = optim.SGD([tensor([1.0], requires_grad=true)], lr=0.8)
  let s = optim.PolynomialLR(opt, total_iters=4, power=1.0)
  let seen = [opt.lr]
  for i in range(6) {
    s.step()
    seen.append(opt.lr)
  }
  expect_close(tensor(seen), tensor([0.8, 0.6, 0.4, 0.2, 0.0, 0.0, 0.0]), atol=1e-15)
}
