# The optimizer step inside a compiled training step (compile(loss_fn, x, y,
# train=true, optimizer=opt, scaler=scaler); Note [The optimizer inside the graph] in
# interp/builtins/graph_step.cpp): each call is zero_grad, backward and step. The
# graph's adam_step_ / sgd_step_ nodes run the eager optimizers' own update, so in f64
# every loss and every parameter equals eager training's exactly.
import nn
import optim

fn mlp() {
  manual_seed(40)
  return nn.Sequential([nn.Linear(6, 12), nn.Tanh(), nn.Linear(12, 4)]).double()
}

# The largest difference between two models' parameters.
fn max_difference(a, b) {
  let d = 0.0
  let pa = a.parameters()
  let pb = b.parameters()
  for k in range(len(pa)) { d = max(d, (pa[k] - pb[k]).abs().max().item()) }
  return d
}

# Trains m_eager eagerly and m_graph with a compiled step (the optimizer, scheduler
# and scaler made by make_opt, make_sched, make_scaler for each), steps times on
# inputs xs(i), checking every loss; returns the compiled module.
fn train_both(make_opt, make_sched, make_scaler, steps, xs) {
  let m_eager = mlp()
  let m_graph = mlp()
  let o_eager = make_opt(m_eager)
  let o_graph = make_opt(m_graph)
  let s_eager = make_sched(o_eager)
  let s_graph = make_sched(o_graph)
  let c_eager = make_scaler()
  let c_graph = make_scaler()
  let y = randint(0, 4, [10])
  fn loss_eager(x, y) = cross_entropy(m_eager(x), y)
  fn loss_graph(x, y) = cross_entropy(m_graph(x), y)
  let gm = compile(loss_graph, xs(0), y, train=true, optimizer=o_graph, scaler=c_graph) if c_graph != none else compile(loss_graph, xs(0), y, train=true, optimizer=o_graph)
  gm.optimize("default")
  expect(max_difference(m_eager, m_graph) == 0.0, "compile() itself must not step")
  for i in range(steps) {
    o_eager.zero_grad()
    let l_eager = loss_eager(xs(i), y)
    if c_eager != none {
      c_eager.scale(l_eager).backward()
      c_eager.step(o_eager)
      c_eager.update()
    } else {
      l_eager.backward()
      o_eager.step()
    }
    let l_graph = gm(xs(i), y)
    if s_eager != none {
      s_eager.step()
      s_graph.step()
    }
    let a = l_eager.item()
    let b = l_graph.item()
    expect(a == b or (a != a and b != b), f"step {i}: eager loss {a}, compiled {b}")
    if c_eager != none { expect(c_eager.get_scale() == c_graph.get_scale(), f"step {i}: scales {c_eager.get_scale()} and {c_graph.get_scale()}") }
  }
  expect(max_difference(m_eager, m_graph) == 0.0, f"parameters differ by {max_difference(m_eager, m_graph)}")
  return [gm, o_eager, o_graph]
}

fn plain(i) {
  manual_seed(100 + i)
  return randn([10, 6], dtype=f64)
}
fn no_sched(opt) = none
fn no_scaler() = none

test "Adam inside the graph equals eager Adam step for step (f64), with L2 decay and maximize" {
  let r = train_both(fn(m) = optim.Adam(m.parameters(), lr=0.01, weight_decay=0.1, maximize=true), no_sched, no_scaler, 5, plain)
  let gm = r[0]
  expect(r[2].state[0]["step"].item() == 5.0, f"{r[2].state[0]}")
  expect("optim.Adam (1 group, 4 parameters) step inside the graph" in str(gm), str(gm))
  expect("adam_step_" in gm.ir(), gm.ir())
  # fuse_optimizer: the group's four rows are one node (Note [A group's steps in one kernel])
  expect("optimizer_steps(" in gm.ir() and "fuse_optimizer   1 change" in gm.explain(), gm.explain())
}

test "AdamW with two parameter groups and a scheduler: the learning rate is read at each call" {
  fn groups(m) = optim.AdamW([{"params": m[0].parameters(), "lr": 0.02}, {"params": m[2].parameters()}], lr=0.005, betas=(0.8, 0.99))
  let r = train_both(groups, fn(o) = optim.StepLR(o, 2, gamma=0.5), no_scaler, 6, plain)
  expect(r[2].param_groups[0]["lr"] == r[1].param_groups[0]["lr"], "the schedulers agree")
  expect(len(r[0].explain().split("graph 2:")) == 1, "a new learning rate must not capture again: " + r[0].explain())
}

test "SGD with momentum, dampening and decay, and Nesterov SGD, inside the graph" {
  train_both(fn(m) = optim.SGD(m.parameters(), lr=0.1, momentum=0.9, dampening=0.2, weight_decay=0.01), no_sched, no_scaler, 4, plain)
  train_both(fn(m) = optim.SGD(m.parameters(), lr=0.05, momentum=0.5, nesterov=true), no_sched, no_scaler, 4, plain)
  train_both(fn(m) = optim.SGD(m.parameters(), lr=0.1), no_sched, no_scaler, 3, plain)
}

# Step 3's inputs overflow the logits: Inf and NaN gradients, a step to skip.
fn overflowing(i) = plain(i) * (1e308 if i == 3 else 1.0)

test "the GradScaler inside the graph: a step with Inf/NaN gradients is skipped on the device, the scale halves, then grows" {
  let r = train_both(fn(m) = optim.Adam(m.parameters(), lr=0.01), no_sched, fn() = optim.GradScaler(init_scale=1024.0, growth_interval=2), 7, overflowing)
  expect(r[2].state[0]["step"].item() == 6.0, f"one of 7 steps skipped: {r[2].state[0]['step']}")
  expect("and optim.GradScaler step inside the graph" in r[0].explain(), r[0].explain())
  train_both(fn(m) = optim.SGD(m.parameters(), lr=0.1, momentum=0.9), no_sched, fn() = optim.GradScaler(init_scale=64.0, growth_interval=3), 6, overflowing)
}

test "eager steps and compiled steps share the optimizer's state" {
  let m1 = mlp()
  let m2 = mlp()
  let o1 = optim.Adam(m1.parameters(), lr=0.01)
  let o2 = optim.Adam(m2.parameters(), lr=0.01)
  let y = randint(0, 4, [10])
  fn loss1(x, y) = cross_entropy(m1(x), y)
  fn loss2(x, y) = cross_entropy(m2(x), y)
  # two eager steps on m2 first, then compiled ones; then eager again
  for i in range(2) {
    for (m, o, l) in [(m1, o1, loss1), (m2, o2, loss2)] {
      o.zero_grad()
      l(plain(i), y).backward()
      o.step()
    }
  }
  let gm = compile(loss2, plain(0), y, train=true, optimizer=o2)
  for i in range(2, 5) {
    o1.zero_grad()
    loss1(plain(i), y).backward()
    o1.step()
    gm(plain(i), y)
  }
  o1.zero_grad()
  loss1(plain(5), y).backward()
  o1.step()
  o2.zero_grad()
  loss2(plain(5), y).backward()
  o2.step()
  expect(max_difference(m1, m2) == 0.0, f"{max_difference(m1, m2)}")
  expect(o2.state[1]["step"].item() == 6.0, f"{o2.state[1]}")
}

test "load_state_dict and momentum turned on capture again; a new momentum or lr does not" {
  let m = mlp()
  let o = optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
  let y = randint(0, 4, [10])
  fn loss(x, y) = cross_entropy(m(x), y)
  let gm = compile(loss, plain(0), y, train=true, optimizer=o)
  gm(plain(0), y)
  o.load_state_dict(o.state_dict())
  gm(plain(1), y)
  expect("optimizer's flags, parameters or state tensors changed" in gm.explain(), gm.explain())
  o.momentum = 0.5
  o.lr = 0.05
  gm(plain(2), y)
  expect(len(gm.explain().split("optimizer's flags")) == 2, "a new momentum is read, not captured: " + gm.explain())
  let m2 = mlp()
  let o2 = optim.SGD(m2.parameters(), lr=0.1)
  fn loss2(x, y) = cross_entropy(m2(x), y)
  let gm2 = compile(loss2, plain(0), y, train=true, optimizer=o2)
  gm2(plain(0), y)
  o2.momentum = 0.9
  gm2(plain(1), y)
  expect(len(gm2.explain().split("optimizer's flags")) == 2, "momentum turned on captures again: " + gm2.explain())
}

test "OneCycleLR moves lr and beta1 every step; the compiled step reads them without capturing again" {
  fn one_cycle(o) = optim.OneCycleLR(o, max_lr=0.05, total_steps=8)
  let r = train_both(fn(m) = optim.Adam(m.parameters(), lr=0.01), one_cycle, no_scaler, 7, plain)
  expect(r[2].param_groups[0]["betas"][0] != 0.9, f"beta1 cycled: {r[2].param_groups[0]['betas']}")
  expect(len(r[0].explain().split("graph 2:")) == 1, r[0].explain())
  let s = train_both(fn(m) = optim.SGD(m.parameters(), lr=0.01, momentum=0.9), one_cycle, no_scaler, 6, plain)
  expect(len(s[0].explain().split("graph 2:")) == 1, s[0].explain())
}

test "compiling does not run the step: BatchNorm's running statistics and the parameters are as they were" {
  manual_seed(41)
  let m = nn.Sequential([nn.Linear(6, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 4)])
  let o = optim.Adam(m.parameters(), lr=0.1)
  let before = [p.clone() for p in m.parameters()]
  let mean_before = m[1].running_mean.clone()
  fn loss(x, y) = cross_entropy(m(x), y)
  let gm = compile(loss, randn([10, 6]), randint(0, 4, [10]), train=true, optimizer=o)
  let after = m.parameters()
  for k in range(len(before)) { expect(equal(before[k], after[k]), f"parameter {k} changed") }
  expect(equal(mean_before, m[1].running_mean), "running_mean changed")
  expect(len(o.state[0]) > 0 and o.state[0]["step"].item() == 0.0, f"{o.state[0]}")
}

test "bad uses name what is wrong" {
  let m = mlp()
  let y = randint(0, 4, [10])
  fn loss(x, y) = cross_entropy(m(x), y)
  let o = optim.Adam(m.parameters())
  expect_error(fn() = compile(loss, plain(0), y, optimizer=o), "compile(): optimizer= steps the optimizer inside a training step; add train=true")
  expect_error(fn() = compile(loss, plain(0), y, train=true, optimizer=3), "compile(): optimizer must be an optimizer (optim.Adam, optim.SGD, ...), got 3")
  expect_error(fn() = compile(loss, plain(0), y, train=true, scaler=optim.GradScaler()), "give optimizer= too")
  expect_error(fn() = compile(loss, plain(0), y, train=true, optimizer=o, scaler=o), "compile(): scaler must be an optim.GradScaler")
  expect_error(fn() = compile(loss, plain(0), y, train=true, optimizer=nn.Linear(2, 2)), "compile(): optimizer must be an optimizer of optim (SGD, Adam, AdamW, RMSprop, Adagrad, Adamax, NAdam, RAdam, Adadelta, Rprop, ASGD), got a Linear")
  let half = optim.Adagrad([nn.Linear(2, 2).half().weight])
  expect_error(fn() = compile(loss, plain(0), y, train=true, optimizer=half), "compile(optimizer=optim.Adagrad): parameter 0 is f16")
}

# Note [Optimizers written as ops] (stdlib/_optim_graph.dsl): the optimizers without a
# row of their own step inside the graph as the tensor ops of their eager update.
fn written_as_ops(gm) {
  expect(not ("adam_step_" in gm.ir()) and not ("optimizer_steps" in gm.ir()), gm.ir())
  expect("copy_(" in gm.ir(), "the update writes the parameters and the state: " + gm.ir())
}

test "RMSprop, Adagrad, Adamax, NAdam, RAdam and amsgrad step inside the graph as tensor ops, equal to eager (f64)" {
  let makers = [
    fn(m) = optim.RMSprop(m.parameters(), lr=0.01),
    fn(m) = optim.RMSprop(m.parameters(), lr=0.01, momentum=0.9, centered=true, weight_decay=0.1, maximize=true),
    fn(m) = optim.Adagrad(m.parameters(), lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.5),
    fn(m) = optim.Adamax(m.parameters(), lr=0.01, weight_decay=0.1, maximize=true),
    fn(m) = optim.NAdam(m.parameters(), lr=0.01, weight_decay=0.1, momentum_decay=0.01),
    fn(m) = optim.RAdam(m.parameters(), lr=0.01, weight_decay=0.1),
    fn(m) = optim.Adam(m.parameters(), lr=0.01, amsgrad=true, weight_decay=0.1),
    fn(m) = optim.AdamW(m.parameters(), lr=0.01, amsgrad=true, maximize=true),
  ]
  for make in makers {
    let r = train_both(make, no_sched, no_scaler, 8, plain)   # RAdam: rho_t > 5 from step 6
    written_as_ops(r[0])
    expect(r[2].state[1]["step"].item() == 8.0, f"{type(r[2])}: {r[2].state[1]}")
  }
}

test "Adadelta, Rprop and ASGD step inside the graph as tensor ops, equal to eager (f64)" {
  let makers = [
    fn(m) = optim.Adadelta(m.parameters()),
    fn(m) = optim.Adadelta(m.parameters(), lr=0.5, rho=0.8, eps=1e-4, weight_decay=0.1, maximize=true),
    fn(m) = optim.Rprop(m.parameters()),
    fn(m) = optim.Rprop(m.parameters(), lr=0.02, etas=(0.3, 1.5), step_sizes=(1e-3, 0.05), maximize=true),
    fn(m) = optim.ASGD(m.parameters(), lr=0.05),
    fn(m) = optim.ASGD(m.parameters(), lr=0.05, lambd=0.01, alpha=0.5, t0=3, weight_decay=0.1, maximize=true),
    fn(m) = optim.ASGD([{"params": m[0].parameters(), "t0": 2}, {"params": m[2].parameters(), "lr": 0.1}], lr=0.02),
  ]
  for make in makers {
    let r = train_both(make, no_sched, no_scaler, 8, plain)
    written_as_ops(r[0])
    expect(r[2].state[1]["step"].item() == 8.0, f"{type(r[2])}: {r[2].state[1]}")
  }
  # ASGD's averages from t0 on: eta, mu and ax as eager's
  let a = train_both(fn(m) = optim.ASGD(m.parameters(), lr=0.05, t0=3), no_sched, no_scaler, 6, plain)
  expect(a[2].state[0]["mu"].item() == a[1].state[0]["mu"] and a[2].state[0]["eta"].item() == a[1].state[0]["eta"], f"{a[2].state[0]}")
  expect((a[2].state[0]["ax"] - a[1].state[0]["ax"]).abs().max().item() == 0.0)
  # Rprop's step sizes as eager's
  let rp = train_both(fn(m) = optim.Rprop(m.parameters(), lr=0.01), no_sched, no_scaler, 6, plain)
  expect((rp[2].state[0]["step_size"] - rp[1].state[0]["step_size"]).abs().max().item() == 0.0)
}

test "Adadelta, Rprop and ASGD with the GradScaler (the Inf step skipped) and with a scheduler" {
  let scaler = fn() = optim.GradScaler(init_scale=256.0, growth_interval=2)
  let r = train_both(fn(m) = optim.Rprop(m.parameters(), lr=0.01), no_sched, scaler, 6, overflowing)
  expect(r[2].state[0]["step"].item() == 5.0, f"one of 6 steps skipped: {r[2].state[0]}")
  let a = train_both(fn(m) = optim.ASGD(m.parameters(), lr=0.05, t0=1), no_sched, scaler, 6, overflowing)
  expect(a[2].state[0]["step"].item() == 5.0 and a[2].state[0]["eta"].item() == a[1].state[0]["eta"], f"{a[2].state[0]}")
  train_both(fn(m) = optim.Adadelta(m.parameters(), weight_decay=0.1), no_sched, scaler, 6, overflowing)
  let s = train_both(fn(m) = optim.Adadelta(m.parameters(), lr=1.0), fn(o) = optim.StepLR(o, 2, gamma=0.5), no_scaler, 6, plain)
  expect(len(s[0].explain().split("graph 2:")) == 1, s[0].explain())
  let t = train_both(fn(m) = optim.ASGD(m.parameters(), lr=0.05, t0=2), fn(o) = optim.lr_scheduler.ExponentialLR(o, gamma=0.8), no_scaler, 6, plain)
  expect(len(t[0].explain().split("graph 2:")) == 1, t[0].explain())
}

test "LBFGS cannot step inside a graph: compile() says to call opt.step(closure) after each call" {
  let m = mlp()
  let y = randint(0, 4, [10])
  fn loss(x, y) = cross_entropy(m(x), y)
  expect_error(fn() = compile(loss, plain(0), y, train=true, optimizer=optim.LBFGS(m.parameters())),
               "compile(): optim.LBFGS cannot step inside a graph: its step(closure) evaluates the loss again, several times per step; compile without optimizer= and call opt.step(closure) after each call")
}

test "the GradScaler with optimizers written as ops: the Inf step is skipped on the device, state and count kept" {
  let scaler = fn() = optim.GradScaler(init_scale=256.0, growth_interval=2)
  let r = train_both(fn(m) = optim.NAdam(m.parameters(), lr=0.01), no_sched, scaler, 6, overflowing)
  expect(r[2].state[0]["step"].item() == 5.0, f"one of 6 steps skipped: {r[2].state[0]}")
  expect(r[2].state[0]["mu_product"].item() == r[1].state[0]["mu_product"], f"{r[2].state[0]['mu_product']} {r[1].state[0]['mu_product']}")
  train_both(fn(m) = optim.RMSprop(m.parameters(), lr=0.01, momentum=0.5, centered=true), no_sched, scaler, 6, overflowing)
  train_both(fn(m) = optim.Adam(m.parameters(), lr=0.01, amsgrad=true), no_sched, scaler, 6, overflowing)
}

test "schedulers reach the ops-written updates without capturing again (OneCycleLR cycles RMSprop's momentum)" {
  fn one_cycle(o) = optim.OneCycleLR(o, max_lr=0.05, total_steps=8)
  let r = train_both(fn(m) = optim.RMSprop(m.parameters(), lr=0.01, momentum=0.9), one_cycle, no_scaler, 7, plain)
  expect(r[2].param_groups[0]["momentum"] != 0.9, f"momentum cycled: {r[2].param_groups[0]}")
  expect(len(r[0].explain().split("graph 2:")) == 1, r[0].explain())
  let a = train_both(fn(m) = optim.Adagrad(m.parameters(), lr=0.1), fn(o) = optim.StepLR(o, 2, gamma=0.5), no_scaler, 5, plain)
  expect(len(a[0].explain().split("graph 2:")) == 1, a[0].explain())
}

test "eager and compiled steps share the state of the optimizers written as ops (step counts, NAdam's mu_product, ASGD's eta and mu)" {
  for make in [fn(ps) = optim.NAdam(ps, lr=0.01), fn(ps) = optim.Adagrad(ps, lr=0.1), fn(ps) = optim.RAdam(ps, lr=0.01),
               fn(ps) = optim.ASGD(ps, lr=0.05, t0=3), fn(ps) = optim.Rprop(ps), fn(ps) = optim.Adadelta(ps)] {
    let m1 = mlp()
    let m2 = mlp()
    let o1 = make(m1.parameters())
    let o2 = make(m2.parameters())
    let y = randint(0, 4, [10])
    fn loss1(x, y) = cross_entropy(m1(x), y)
    fn loss2(x, y) = cross_entropy(m2(x), y)
    fn eager(m, o, l, i) {
      o.zero_grad()
      l(plain(i), y).backward()
      o.step()
    }
    eager(m1, o1, loss1, 0)
    eager(m2, o2, loss2, 0)
    let gm = compile(loss2, plain(0), y, train=true, optimizer=o2)
    for i in range(1, 7) {
      eager(m1, o1, loss1, i)
      gm(plain(i), y)
    }
    eager(m1, o1, loss1, 7)
    eager(m2, o2, loss2, 7)
    expect(max_difference(m1, m2) == 0.0, f"{type(o1)}: {max_difference(m1, m2)}")
    expect(o2.state[0]["step"].item() == 8.0, f"{o2.state[0]}")
  }
}

test "weight decay or centering turned on captures again; a new alpha or lr does not" {
  let m = mlp()
  let o = optim.RMSprop(m.parameters(), lr=0.01)
  let y = randint(0, 4, [10])
  fn loss(x, y) = cross_entropy(m(x), y)
  let gm = compile(loss, plain(0), y, train=true, optimizer=o)
  gm(plain(0), y)
  o.alpha = 0.9
  o.lr = 0.02
  gm(plain(1), y)
  expect(len(gm.explain().split("optimizer's flags")) == 1, "a new alpha is read, not captured: " + gm.explain())
  o.weight_decay = 0.1
  gm(plain(2), y)
  expect(len(gm.explain().split("optimizer's flags")) == 2, "weight decay turned on captures again: " + gm.explain())
  o.centered = true
  gm(plain(3), y)
  expect(len(gm.explain().split("optimizer's flags")) == 3, "centered captures again: " + gm.explain())
  expect(o.state[0]["grad_avg"].shape == o.params[0].shape, f"{o.state[0]}")
}
