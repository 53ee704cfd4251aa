# Differential tests, round 7: compiled functions against eager in f64, each compiled
# once and called several times on inputs that take other paths or have other shapes.
# First the three gaps round 6 left: a branch inside a while_loop nested in another
# while, a scan or a cond's side (Note [Branches inside a loop step],
# graph/control_flow_step_reach.hpp: a parameter no iteration reached keeps .grad none
# and the optimizer leaves it alone); fail() and assert() on one side of a lowered if
# (Note [A failing side of a lowered if], interp/eval/script/raising.cpp); and
# requires_grad set at a compiled function's top level (Note [Flags a compiled function
# sets], graph/capture.cpp). More programs: test_compile_differential7_programs.dsl.
import nn
import optim

fn same(a, b, msg="") { expect_close(a, b, rtol=1e-10, atol=1e-12, msg=msg) }

fn twins(M) {
  manual_seed(7)
  let a = M()
  let b = M()
  b.load_state_dict(a.state_dict())
  return a, b
}

fn same_params(a, b) {
  for (p, q) in zip(a.parameters(), b.parameters()) { same(p, q, msg="parameter") }
}

fn same_grads(a, b) {
  for (p, q) in zip(a.parameters(), b.parameters()) {
    expect((p.grad == none) == (q.grad == none), f"compiled .grad {p.grad}, eager .grad {q.grad}")
    if p.grad != none and q.grad != none { same(p.grad, q.grad, msg="grad") }
  }
}

fn optimizer(params, kind) {
  if kind == "adam" { return optim.Adam(params, lr=0.05, weight_decay=0.01) }
  return optim.SGD(params, lr=0.05, momentum=0.9, weight_decay=0.1)
}

# The optimizer inside the graph, eager's outside; parameters compared after each call.
fn train_inside(M, kind, xs) {
  let (a, b) = twins(M)
  let oa = optimizer(a.parameters(), kind)
  let ob = optimizer(b.parameters(), kind)
  let gm = compile(fn(x) = a(x), xs[0], train=true, optimizer=oa, mode="script")
  for x in xs {
    let got = gm(x)
    ob.zero_grad()
    let want = b(x)
    want.backward()
    ob.step()
    same(got, want.detach(), msg="loss")
    same_params(a, b)
  }
}

# .grad accumulated over calls (no zero_grad), compared after each call.
fn grads_accumulate(M, xs) {
  let (a, b) = twins(M)
  let gm = compile(fn(x) = a(x), xs[0], train=true, mode="script")
  for x in xs {
    let got = gm(x)
    let want = b(x)
    want.backward()
    same(got, want.detach(), msg="loss")
    same_grads(a, b)
  }
}

# The while loops below run as many iterations at every call (counters kept as tensors
# make them lower): a training step differentiates a while over the trip count it
# recorded (an error names the loop otherwise: tests/lang/errors_compile_differential5.dsl).

# A gate inside a while inside a while: b only where the inner loop meets a big h.
model WhileWhileGate() {
  a = nn.Linear(3, 3, dtype=f64)
  b = nn.Linear(3, 3, dtype=f64)
  forward(x) {
    let h = self.a(x)
    let i = zeros([], dtype=f64)
    while i < 2.0 {
      let j = zeros([], dtype=f64)
      while j < 2.0 {
        if h.sum() > 4.0 { h = self.b(h).tanh() } else { h = h * 0.5 }
        j = j + 1.0
      }
      i = i + 1.0
    }
    return h.pow(2).mean()
  }
}

# A gate inside a while inside a scan's step.
model ScanWhileGate() {
  a = nn.Linear(3, 3, dtype=f64)
  b = nn.Linear(3, 3, dtype=f64)
  forward(x) {
    let h = self.a(x)
    for t in range(x.shape[0]) {
      let g = x[t]
      let k = zeros([], dtype=f64)
      while k < 3.0 {
        if g.sum() > 5.0 { h = h + self.b(h) * 0.1 }
        g = g * 0.5
        k = k + 1.0
      }
    }
    return h.pow(2).mean()
  }
}

# A while on one side of a cond, a gate inside it; c on the other side.
model SidedWhileGate() {
  a = nn.Linear(3, 3, dtype=f64)
  b = nn.Linear(3, 3, dtype=f64)
  c = nn.Linear(3, 3, dtype=f64)
  forward(x) {
    let h = self.a(x)
    if x.sum() > 0 {
      let k = 0
      while x.sum() > -100.0 and k < 2 {
        if x.max() > 3.0 { h = self.b(h) } else { h = h * 0.9 }
        k = k + 1
      }
    } else {
      h = self.c(h)
    }
    return h.pow(2).mean()
  }
}

# A gate inside a while inside a while inside a scan's step, the gate's sides nested.
model DeepGate() {
  a = nn.Linear(3, 3, dtype=f64)
  b = nn.Linear(3, 3, dtype=f64)
  c = nn.Linear(3, 3, dtype=f64)
  forward(x) {
    let h = self.a(x)
    for t in range(x.shape[0]) {
      let i = 0
      while h.abs().sum() > -1.0 and i < 2 {
        let j = 0
        while x.abs().sum() > -1.0 and j < 1 {
          if x[t].sum() > 3.0 {
            if x[t].max() > 5.0 { h = self.b(h).tanh() } else { h = h * 1.1 }
          } else {
            h = h + self.c(h) * 0.01 if x[t].sum() < -3.0 else h
          }
          j = j + 1
        }
        i = i + 1
      }
    }
    return h.pow(2).mean()
  }
}

# A gate in a scan in a while on one side of a cond in a while; a conditional
# expression's parameter on the other side.
model WhileSideWhileScanGate() {
  a = nn.Linear(3, 3, dtype=f64)
  b = nn.Linear(3, 3, dtype=f64)
  c = nn.Linear(3, 3, dtype=f64)
  forward(x) {
    let h = self.a(x)
    let i = zeros([], dtype=f64)
    while i < 2.0 {
      if x.sum() > 0 {
        let j = zeros([], dtype=f64)
        while j < 2.0 {
          for t in range(x.shape[0]) {
            if x[t].max() > 1.5 { h = h + self.b(h) * 0.1 }
          }
          j = j + 1.0
        }
      } else {
        h = h + self.c(h) * 0.1 if x.sum() < -20.0 else h * 0.5
      }
      i = i + 1.0
    }
    return h.pow(2).mean()
  }
}

let gated = [ones([4, 3], dtype=f64) * 2, -ones([4, 3], dtype=f64), ones([4, 3], dtype=f64) * 0.5,
             ones([5, 3], dtype=f64) * 2, ones([4, 3], dtype=f64) * 0.1, -ones([4, 3], dtype=f64) * 2]

test "a gate inside a while nested in a while, a scan or a side: .grad none where no iteration took it, as eager" {
  for M in [WhileWhileGate, ScanWhileGate, SidedWhileGate, DeepGate, WhileSideWhileScanGate] { grads_accumulate(M, gated) }
}

test "the same gates under optimizers inside the graph: a parameter no iteration reached is not moved" {
  for M in [WhileWhileGate, ScanWhileGate, SidedWhileGate, DeepGate, WhileSideWhileScanGate] {
    train_inside(M, "adam", gated)
    train_inside(M, "sgd", gated)
  }
}

test "the nested-while gates under each loop_checkpoint: .grad as eager's" {
  for saving in ["none", "full", "auto"] {
    for M in [WhileWhileGate, DeepGate] {
      let (a, b) = twins(M)
      let gm = compile(fn(x) = a(x), gated[0], train=true, mode="script", loop_checkpoint=saving)
      for x in gated {
        same(gm(x), b(x).detach())
        b(x).backward()
        same_grads(a, b)
      }
    }
  }
}

test "a GradScaler and a nested-while gate, an overflowing batch among the calls: scale and steps as eager" {
  let xs = [gated[0], gated[2], ones([4, 3], dtype=f64) * float("inf"), gated[1], gated[0]]
  for M in [WhileWhileGate, ScanWhileGate] {
    let (a, b) = twins(M)
    let oa = optimizer(a.parameters(), "adam")
    let ob = optimizer(b.parameters(), "adam")
    let sa = optim.GradScaler(init_scale=8.0, growth_interval=2)
    let sb = optim.GradScaler(init_scale=8.0, growth_interval=2)
    let gm = compile(fn(x) = a(x), xs[0], train=true, optimizer=oa, scaler=sa, mode="script")
    for x in xs {
      let got = gm(x)
      ob.zero_grad()
      let want = b(x)
      sb.scale(want).backward()
      sb.step(ob)
      sb.update()
      if want.isfinite().all() { same(got, want.detach()) }
      same_params(a, b)
      expect(sa.get_scale() == sb.get_scale())
    }
  }
}

test "an untaken gate in a nested while: .grad stays none after a call (it was zeros)" {
  let (a, b) = twins(WhileWhileGate)
  let x = ones([4, 3], dtype=f64) * 0.01
  let gm = compile(fn(x) = a(x), x, train=true, mode="script")
  gm(x)
  b(x).backward()
  expect(b.b.weight.grad == none)
  expect(a.b.weight.grad == none, f"compiled .grad {a.b.weight.grad}")
}

# ---- fail() and assert() on one side of a lowered if ------------------------------------

fn checked(x) {
  let h = x * 2.0
  if x.sum() > 100.0 { fail("the input diverged") }
  if x.sum() > 0 { h = h.tanh() } elif x.sum() > -5 { assert(false, "mixed signs") } else { h = h * 3.0 }
  return h
}

test "fail() and assert() on an untaken side: the compiled function runs, and raises when a call takes it" {
  let x = ones([2, 3], dtype=f64)
  for mode in ["script", "auto"] {
    let gm = compile(checked, x, mode=mode)
    for s in [1.0, -1.0, 2.0, -3.0] {
      same(gm(x * s), checked(x * s))
    }
    expect_error(fn() = gm(x * 50), "the input diverged")
    expect_error(fn() = checked(x * 50), "the input diverged")
    expect_error(fn() = gm(x * -0.5), "assertion failed: mixed signs")
    expect_error(fn() = checked(x * -0.5), "assertion failed: mixed signs")
    same(gm(x), checked(x))  # the graph still runs after an error
  }
}

test "fail() as the untaken value of a conditional expression on a tensor" {
  fn f(x) {
    let h = x.sum(0)
    let g = h * 2.0 if h.sum() > 0 else fail("negative sum")
    return g + 1.0
  }
  let x = ones([2, 3], dtype=f64)
  let gm = compile(f, x, mode="script")
  for s in [1.0, 3.0] { same(gm(x * s), f(x * s)) }
  expect_error(fn() = gm(-x), "negative sum")
  expect_error(fn() = f(-x), "negative sum")
  expect_error(fn() = compile(f, -x, mode="script"), "negative sum")
}

test "the example takes the failing side: compile raises eager's error" {
  expect_error(fn() = compile(checked, ones([2, 3], dtype=f64) * 50, mode="script"), "the input diverged")
}

test "a failing side inside a scan's step, a while, and a training step" {
  let lin = nn.Linear(3, 3, dtype=f64)
  fn rows(x) {
    let h = lin(x)
    for t in range(x.shape[0]) {
      if x[t].sum() > 100.0 { fail("a row diverged") }
      h = h + lin(h).tanh() * 0.1
    }
    let k = 0
    while h.abs().sum() > -1.0 and k < 3 {
      if h.abs().max() > 1000.0 { assert(false, "h blew up") }
      h = h * 0.5
      k = k + 1
    }
    return h.pow(2).mean()
  }
  let x = ones([2, 3], dtype=f64)
  let gm = compile(rows, x, train=true, mode="script")
  for s in [1.0, -2.0, 0.5] {
    lin.zero_grad()
    let want = rows(x * s)
    want.backward()
    let g = lin.weight.grad.clone()
    lin.zero_grad()
    same(gm(x * s), want.detach())
    same(lin.weight.grad, g)
  }
  let bad = ones([2, 3], dtype=f64)
  bad[1] = bad[1] * 50
  expect_error(fn() = gm(bad), "a row diverged")
  expect_error(fn() = rows(bad), "a row diverged")
  gm.optimize()  # the passes keep the raising sides (an if with no outputs too)
  expect_error(fn() = gm(bad), "a row diverged")
  same(gm(x), rows(x).detach())
}

model NormOrFail() {
  a = nn.Linear(3, 3, dtype=f64)
  bn = nn.BatchNorm1d(3, dtype=f64)
  forward(x) {
    let h = self.a(x)
    let seen = zeros([3], dtype=f64)
    if x.sum() > 0 {
      h = self.bn(h)
      seen.add_(1.0)
    } else {
      fail("negative batch")
    }
    return h.pow(2).mean() + seen.sum()
  }
}

test "a failing side beside one that writes BatchNorm's statistics and a variable in place, in a training step" {
  let (a, b) = twins(NormOrFail)
  let gm = compile(fn(x) = a(x), ones([4, 3], dtype=f64), train=true, mode="script")
  for s in [1.0, 2.0] {
    let x = ones([4, 3], dtype=f64) * s
    x[0, 0] = 0.5
    a.zero_grad()
    b.zero_grad()
    let want = b(x)
    same(gm(x), want.detach())
    want.backward()
    same_grads(a, b)
    same(a.bn.running_mean, b.bn.running_mean)
  }
  expect_error(fn() = gm(-ones([4, 3], dtype=f64)), "negative batch")
  expect_error(fn() = b(-ones([4, 3], dtype=f64)), "negative batch")
  same(a.bn.running_mean, b.bn.running_mean)
  expect(a.bn.num_batches_tracked.item() == b.bn.num_batches_tracked.item())
}

test "a failing side inside an untaken side whose own values would take it" {
  fn f(x) {
    let h = x
    if x.sum() > 0 {
      h = h * 2.0
    } else {
      let y = x + 10.0
      if y.sum() > 0 { fail("inner") } else { h = h - 1.0 }
    }
    return h
  }
  let gm = compile(f, ones([3], dtype=f64), mode="script")
  for s in [1.0, -20.0, 3.0] { same(gm(ones([3], dtype=f64) * s), f(ones([3], dtype=f64) * s)) }
  expect_error(fn() = gm(-ones([3], dtype=f64)), "inner")
}

test "a while the example does not enter, whose body fails (directly, or on a side its stale values take)" {
  fn direct(x) {
    let h = x
    while h.sum() > 100.0 { fail("too big") }
    return h
  }
  fn sided(x) {
    let h = x
    while h.sum() > 100.0 {
      h = h * 0.5
      if h.sum() < 1000.0 { h = h - 1.0 } else { fail("way too big") }
    }
    return h
  }
  let small = ones([3], dtype=f64)
  let gd = compile(direct, small, mode="script")
  let gs = compile(sided, small, mode="script")
  for s in [1.0, 20.0] {
    same(gd(small * s), direct(small * s))
    same(gs(small * s), sided(small * s))
  }
  same(gs(small * 200.0), sided(small * 200.0))
  expect_error(fn() = gd(small * 50.0), "too big")
  expect_error(fn() = gs(small * 1000.0), "way too big")
  expect_error(fn() = sided(small * 1000.0), "way too big")
}

# ---- requires_grad set at the top level -----------------------------------------------------

test "x.requires_grad = true in a training step: each call's argument gets it and its .grad, as eager" {
  let lin = nn.Linear(3, 1, dtype=f64)
  fn by_field(x) {
    x.requires_grad = true
    return lin(x * x).sum()
  }
  fn by_method(x) {
    x.requires_grad_()
    return lin(x.exp()).sum()
  }
  for f in [by_field, by_method] {
    for mode in ["auto", "script"] {
      let gm = compile(f, ones([2, 3], dtype=f64), train=true, mode=mode)
      for s in [1.0, 2.0, -0.5] {
        let x = ones([2, 3], dtype=f64) * s
        let e = ones([2, 3], dtype=f64) * s
        lin.zero_grad()
        let want = f(e)
        want.backward()
        let gw = lin.weight.grad.clone()
        lin.zero_grad()
        same(gm(x), want.detach())
        expect(x.requires_grad, "the argument requires grad after the call, as eager's")
        same(x.grad, e.grad)
        same(lin.weight.grad, gw)
      }
    }
  }
}

test "requires_grad set in an inference graph that calls grad(): later arguments get the flag too" {
  fn f(x) {
    x.requires_grad = true
    let (g,) = grad((x * x).sum(), [x])
    return g
  }
  let gm = compile(f, ones([3], dtype=f64))
  for s in [2.0, -1.0] {
    let x = ones([3], dtype=f64) * s
    let e = ones([3], dtype=f64) * s
    same(gm(x), f(e))
    expect(x.requires_grad == e.requires_grad)
    expect(x.grad == none and e.grad == none)
  }
}

test "requires_grad = false at the top level on an argument that had it: no .grad, as eager" {
  let lin = nn.Linear(3, 1, dtype=f64)
  fn f(x, w) {
    w.requires_grad = false
    return lin(x * w).sum()
  }
  let gm = compile(f, ones([2, 3], dtype=f64), ones([3], dtype=f64, requires_grad=true), train=true)
  for s in [1.0, 3.0] {
    let w = ones([3], dtype=f64, requires_grad=true)
    let v = ones([3], dtype=f64, requires_grad=true)
    lin.zero_grad()
    let want = f(ones([2, 3], dtype=f64) * s, v)
    want.backward()
    let gw = lin.weight.grad.clone()
    lin.zero_grad()
    same(gm(ones([2, 3], dtype=f64) * s, w), want.detach())
    expect(w.requires_grad == v.requires_grad and w.grad == none and v.grad == none)
    same(lin.weight.grad, gw)
  }
}

test "a parameter frozen at the top level of a training step, unfrozen by the caller between calls" {
  let la = nn.Linear(3, 1, dtype=f64)
  let lb = nn.Linear(3, 1, dtype=f64)
  lb.load_state_dict(la.state_dict())
  fn make(lin) {
    fn f(x) {
      lin.weight.requires_grad = false
      return lin(x).pow(2).sum()
    }
    return f
  }
  let fa = make(la)
  let fb = make(lb)
  let gm = compile(fa, ones([2, 3], dtype=f64), train=true)
  for s in [1.0, -2.0, 0.5] {
    la.weight.requires_grad = true
    lb.weight.requires_grad = true
    la.zero_grad()
    lb.zero_grad()
    let x = ones([2, 3], dtype=f64) * s
    same(gm(x), fb(x).detach())
    fb(x).backward()
    expect(la.weight.requires_grad == lb.weight.requires_grad)
    expect((la.weight.grad == none) == (lb.weight.grad == none))
    same(la.bias.grad, lb.bias.grad)
  }
}

test "an inference graph whose function makes its argument require grad: backward() of the result reaches it" {
  fn f(x) {
    x.requires_grad_()
    return (x * 2.0).sum()
  }
  let gm = compile(f, ones([3], dtype=f64))
  for s in [1.0, -3.0] {
    let x = ones([3], dtype=f64) * s
    let e = ones([3], dtype=f64) * s
    let got = gm(x)
    let want = f(e)
    same(got, want)
    got.backward()
    want.backward()
    same(x.grad, e.grad)
  }
  expect("ran eagerly" in gm.explain(), gm.explain())
}
