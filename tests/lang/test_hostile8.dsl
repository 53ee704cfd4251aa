# What the hardening of round 8 (tests/lang/errors_hostile8.dsl) keeps working, each
# value checked against PyTorch 1.13's: optimizers whose groups are changed by hand
# between steps, hyperparameters at the edges of their ranges, schedulers at the edges
# of theirs (OneCycleLR's pct_start=1.0, warm restarts after a loaded epoch of 10^15),
# GradScaler's state and lists of losses, and TensorDataset.subset's counts.
import optim
import data

fn _sgd(lr=0.1) = optim.SGD([zeros([3], requires_grad=true)], lr=lr, momentum=0.9)

test "a negative lr set in a group by hand steps as PyTorch's does (only the constructor refuses it)" {
  let w = tensor([1.0, 2.0, 3.0], requires_grad=true)
  let opt = optim.SGD([w], lr=0.1, momentum=0.5)
  w.grad = tensor([1.0, -1.0, 2.0])
  opt.step()
  opt.param_groups[0]["lr"] = -0.1
  opt.step()
  # torch 1.13: the same two steps
  expect(allclose(w, tensor([1.05, 1.95, 3.1]), atol=1e-6))
  expect_error(fn() = optim.SGD([w], lr=-0.1), "lr must be >= 0, got -0.1")
}

test "a group changed by hand to a wrong kind fails at step() and leaves the parameters as they were" {
  let w = tensor([1.0, 2.0], requires_grad=true)
  let opt = optim.Adam([w], lr=0.1)
  w.grad = ones([2])
  opt.param_groups[0]["betas"] = [0.9]
  expect_error(fn() = opt.step(), "param_groups[0]['betas'] must be a pair of numbers, got [0.9]")
  expect(w.tolist() == [1.0, 2.0] and len(opt.state[0]) == 0, "nothing stepped")
  opt.param_groups[0]["betas"] = (0.9, 0.999)
  opt.step()
  # torch 1.13: Adam's first step is lr * sign(g)
  expect(allclose(w, tensor([0.9, 1.9]), atol=1e-6))
  opt.state = [{}, {}]
  expect_error(fn() = opt.step(), "state must be a list of one dict per parameter (1), got a list of 2")
}

test "hyperparameters at the edges of their ranges step as PyTorch 1.13's" {
  # torch 1.13: 3 steps of the loss below from w = [0.5, -1, 2, 0]
  let cases = [(fn(p) = optim.Adam(p, lr=0.01, betas=(0.0, 0.0)), [0.47, -0.99, 1.97, -0.03]),
               (fn(p) = optim.RMSprop(p, lr=0.01, alpha=0.0), [0.47, -0.99, 1.97, -0.03]),
               (fn(p) = optim.Adadelta(p, lr=1.0, rho=1.0), [-0.335251, 10.170517, -2.349136, 6.505357])]
  for (make, want) in cases {
    let w = tensor([0.5, -1.0, 2.0, 0.0], requires_grad=true)
    let opt = make([w])
    for i in range(3) {
      opt.zero_grad()
      ((sin(w * (i + 1)) * tensor([1.0, -2.0, 0.5, 3.0])).sum() + (w * w).sum()).backward()
      opt.step()
    }
    expect(allclose(w, tensor(want), atol=1e-5), f"{type(opt)}: {w.tolist()}")
  }
}

test "OneCycleLR with pct_start=1.0 ends at its least lr where PyTorch 1.13 divides by zero" {
  let opt = _sgd()
  let s = optim.OneCycleLR(opt, max_lr=1.0, total_steps=4, pct_start=1.0)
  let lrs = []
  for i in range(4) {
    s.step()
    lrs.append(s.get_last_lr()[0])
  }
  # torch 1.13: [0.28, 0.76, 1.0], then ZeroDivisionError; 1.0 / 25 / 1e4 is min_lr
  expect(allclose(tensor(lrs), tensor([0.28, 0.76, 1.0, 4e-6]), atol=1e-9), f"{lrs}")
  expect_error(fn() = s.step(), "stepped 5 times, past total_steps=4")
}

test "warm restarts of one period length take a loaded epoch of 10^15 at once, as PyTorch's step(epoch)" {
  let opt = _sgd()
  let s = optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3, eta_min=0.01)
  s.load_state_dict({"base_lrs": [0.1], "last_epoch": 10 ** 15})
  # torch 1.13: step(10**15) gives 0.0775 (10^15 % 3 == 1)
  expect(abs(s.get_last_lr()[0] - 0.0775) < 1e-12, f"{s.get_last_lr()}")
  let g = optim.lr_scheduler.CosineAnnealingWarmRestarts(_sgd(), T_0=3, T_mult=2, eta_min=0.01)
  for i in range(20) { g.step() }
  # torch 1.13: 20 steps
  expect(abs(g.get_last_lr()[0] - 0.011533337816991932) < 1e-12, f"{g.get_last_lr()}")
}

test "LinearLR and ConstantLR at the ends of their factors' ranges, as PyTorch 1.13's" {
  let opt = _sgd()
  let s = optim.lr_scheduler.LinearLR(opt, start_factor=1.0, end_factor=0.0, total_iters=4)
  let lrs = [s.get_last_lr()[0]]
  for i in range(5) {
    s.step()
    lrs.append(s.get_last_lr()[0])
  }
  # torch 1.13: the same
  expect(allclose(tensor(lrs), tensor([0.1, 0.075, 0.05, 0.025, 0.0, 0.0]), atol=1e-12), f"{lrs}")
  expect(optim.lr_scheduler.ConstantLR(_sgd(), factor=0.0, total_iters=2).get_last_lr() == [0.0])
  expect_error(fn() = optim.lr_scheduler.LinearLR(_sgd(), start_factor=1.5), "start_factor must be in (0, 1], got 1.5")
}

test "ReduceLROnPlateau counts NaN metrics as no improvement, as PyTorch 1.13's" {
  let opt = _sgd()
  let s = optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0)
  let lrs = []
  for m in [float("nan"), 1.0, tensor(float("nan")), float("nan")] {
    s.step(m)
    lrs.append(opt.param_groups[0]["lr"])
  }
  # torch 1.13: the same metrics
  expect(allclose(tensor(lrs), tensor([0.01, 0.01, 0.001, 0.0001]), atol=1e-12) and s.best == 1.0, f"{lrs}")
}

test "LambdaLR takes a function's one-element tensor as its factor, and one function per group" {
  let w = zeros([2], requires_grad=true)
  let opt = optim.SGD([{"params": [w]}, {"params": [zeros([1], requires_grad=true)], "lr": 1.0}], lr=0.1)
  let s = optim.lr_scheduler.LambdaLR(opt, [fn(e) = tensor(0.5) ** e, fn(e) = 1.0 / (e + 1)])
  s.step()
  s.step()
  expect(allclose(tensor(s.get_last_lr()), tensor([0.025, 1.0 / 3]), atol=1e-7), f"{s.get_last_lr()}")
  expect_error(fn() = optim.lr_scheduler.LambdaLR(opt, [fn(e) = 1.0]), "expected 2 lr_lambda function(s), one per parameter group, got 1")
}

test "GradScaler's state keeps its schedule, and scale() takes a list of losses as PyTorch's" {
  let a = optim.GradScaler(init_scale=8.0, growth_factor=4.0, backoff_factor=0.25, growth_interval=1)
  let b = optim.GradScaler()
  b.load_state_dict(a.state_dict())
  expect(b.get_scale() == 8.0 and b.growth == 4.0 and b.backoff == 0.25 and b.interval == 1)
  b.update()
  expect(b.get_scale() == 32.0, "one clean step grows the scale by the loaded factor")
  let scaled = b.scale((tensor(1.0), tensor(2.0)))
  expect(type(scaled) == "tuple" and scaled[1].item() == 64.0)
  let sd = a.state_dict()
  sd["growth_interval"] = 0
  expect_error(fn() = b.load_state_dict(sd), "'growth_interval' must be an int > 0, got 0")
  expect(b.interval == 1 and b.get_scale() == 32.0, "a refused dict leaves the scaler as it was")
}

test "TensorDataset.subset takes 0 to all of its items" {
  let ds = data.TensorDataset(arange(10.0).reshape([5, 2]), arange(5))
  expect(len(ds.subset(0)) == 0 and len(ds.subset(5)) == 5 and ds.subset(2).y.tolist() == [0, 1])
  expect_error(fn() = ds.subset(6), "n must be an int from 0 to the dataset's 5 items, got 6")
  expect_error(fn() = ds.subset(2.0), "got 2.0")
}

test "compile() names its first argument when it is not a function, and keeps working" {
  expect_error(fn() = compile("relu", randn([2])), "compile(): expected a function or a model as the first argument, got str")
  expect_error(fn() = compile(fn(x) = x, randn([2]), mode=none), "mode must be \"auto\"")
  let gm = compile(fn(x) = relu(x) * 2, randn([3]))
  expect(gm(tensor([-1.0, 2.0, 0.5])).tolist() == [0.0, 4.0, 1.0])
}

test "Python's builtins read a bool as an int, as Python does (tensor ops refuse it, as PyTorch does)" {
  expect(len(range(true)) == 1 and chr(true) == chr(1) and round(2.567, true) == 2.6)
  expect(list(enumerate(["a"], start=true))[0][0] == 1)
  expect([1, 2, 3][true] == 2)
  expect_error(fn() = topk(tensor([1.0, 3.0]), true), "expected an int, got bool")
}
