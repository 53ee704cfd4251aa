# Differential tests, round 6: compiled functions against eager in f64, each compiled
# once and called several times on inputs that take other paths or have other shapes.
# Parameters that only an untaken nested side uses (their .grad none, so that every
# optimizer skips them as eager's does), under nine optimizers inside the graph;
# .grad accumulated over calls; the learning rate and momentum changed, and a parameter
# frozen, between calls; while conditions that write a tensor in place (Note [Writes
# in a while loop's condition], interp/eval/script/control_flow.cpp), elif conditions
# that do, and windows and strided slices at a scan's index. Models (BatchNorm and
# friends inside lowered regions): test_compile_differential6_models.dsl.
import nn
import optim

fn same(a, b, msg="") { expect_close(a, b, rtol=1e-10, atol=1e-12, msg=msg) }
fn lowered(gm) = "unrolled" not in gm.explain()

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
  if kind == "amsgrad" { return optim.Adam(params, lr=0.05, amsgrad=true) }
  if kind == "adamw" { return optim.AdamW(params, lr=0.05, weight_decay=0.1) }
  if kind == "rmsprop" { return optim.RMSprop(params, lr=0.01, momentum=0.5, centered=true) }
  if kind == "adagrad" { return optim.Adagrad(params, lr=0.1) }
  if kind == "nesterov" { return optim.SGD(params, lr=0.05, momentum=0.9, nesterov=true) }
  if kind == "adamax" { return optim.Adamax(params, lr=0.05) }
  if kind == "nadam" { return optim.NAdam(params, lr=0.05) }
  if kind == "radam" { return optim.RAdam(params, lr=0.05) }
  return optim.SGD(params, lr=0.05, momentum=0.9, weight_decay=0.1)
}

# The optimizer inside the graph; `between(k, oa, ob, a, b)` runs before call k.
fn train_inside(M, kind, xs, between=none) {
  let (a, b) = twins(M)
  let oa = optimizer(a.parameters(), kind)
  let ob = optimizer(b.parameters(), kind)
  let gm = compile(fn(x) = a(x), xs[0], train=true, optimizer=oa, mode="script")
  for k in range(len(xs)) {
    if between != none { between(k, oa, ob, a, b) }
    let got = gm(xs[k])
    ob.zero_grad()
    let want = b(xs[k])
    want.backward()
    ob.step()
    same(got, want.detach(), msg="loss")
    same_params(a, b)
  }
  return gm
}

# A parameter used only in an if inside a for inside another for.
model InnerGate() {
  a = nn.Linear(3, 3, dtype=f64)
  b = nn.Linear(3, 3, dtype=f64)
  forward(x) {
    let h = self.a(x)
    for i in range(2) {
      for t in range(x.shape[0]) {
        if x[t].sum() > 3.0 { h = h + self.b(x).tanh() * 0.1 }
      }
    }
    return h.pow(2).mean()
  }
}

# One parameter in an if inside a scan on one side of a cond, another on the other side.
model SidedScan() {
  a = nn.Linear(3, 3, dtype=f64)
  b = nn.Linear(3, 3, dtype=f64)
  c = nn.Linear(3, 3, dtype=f64)
  forward(x) {
    let h = self.a(x)
    if x.sum() > 0 {
      for t in range(x.shape[0]) {
        if x[t].sum() > 3.0 { h = self.b(h).tanh() } else { h = h * 0.9 }
      }
    } else {
      h = self.c(h)
    }
    return h.pow(2).mean()
  }
}

# A while in a scan's step, then a gate on its result.
model WhileThenGate() {
  a = nn.Linear(3, 3, dtype=f64)
  b = nn.Linear(3, 3, dtype=f64)
  forward(x) {
    let h = self.a(x)
    for t in range(x.shape[0]) {
      let g = x[t]
      let i = 0
      while g.abs().sum() > 1.0 and i < 2 {
        g = g * 0.5
        i = i + 1
      }
      if g.sum() > 2.0 { h = h + self.b(h) * 0.1 }
    }
    return h.pow(2).mean()
  }
}

model StepExpression() {
  a = nn.Linear(3, 3, dtype=f64)
  b = nn.Linear(3, 3, dtype=f64)
  forward(x) {
    let h = self.a(x)
    for t in range(x.shape[0]) { h = (self.b(h) if x[t].sum() > 3.0 else h * 0.5) + x[t] }
    return h.pow(2).mean()
  }
}

model BreakFirst() {
  a = nn.Linear(3, 3, dtype=f64)
  b = nn.Linear(3, 3, dtype=f64)
  forward(x) {
    let h = self.a(x)
    for t in range(x.shape[0]) {
      if x[t].sum() > 3.0 { break }
      h = self.b(h).tanh()
    }
    return h.pow(2).mean()
  }
}

model ContinueAll() {
  a = nn.Linear(3, 3, dtype=f64)
  b = nn.Linear(3, 3, dtype=f64)
  forward(x) {
    let h = self.a(x)
    for t in range(x.shape[0]) {
      if x[t].sum() < 3.0 { continue }
      h = self.b(h).tanh()
    }
    return h.pow(2).mean()
  }
}

let gated = [ones([4, 3], dtype=f64) * 2, -ones([4, 3], dtype=f64), ones([4, 3], dtype=f64) * 0.5,
             ones([5, 3], dtype=f64) * 2, ones([4, 3], dtype=f64) * 0.1]

test "a parameter only an untaken nested side uses: every optimizer inside the graph skips it as eager's" {
  for kind in ["sgd", "adam", "amsgrad", "adamw", "rmsprop", "adagrad", "nesterov", "adamax", "nadam", "radam"] {
    train_inside(SidedScan, kind, gated)
  }
  for M in [InnerGate, WhileThenGate, StepExpression, BreakFirst, ContinueAll] {
    train_inside(M, "adam", gated)
    train_inside(M, "sgd", gated)
  }
}

test ".grad accumulated over calls without zero_grad, none where no call reached it" {
  for M in [SidedScan, BreakFirst, ContinueAll] {
    let (a, b) = twins(M)
    let gm = compile(fn(x) = a(x), gated[0], train=true, mode="script")
    for x in gated {
      same(gm(x), b(x).detach())
      b(x).backward()
      same_grads(a, b)
    }
  }
}

test "learning rate and momentum changed, and a parameter frozen, between calls of a graph holding the optimizer" {
  fn retune(k, oa, ob, a, b) {
    for o in [oa, ob] {
      o.param_groups[0]["lr"] = 0.01 * (k + 1)
      o.param_groups[0]["momentum"] = 0.5
    }
  }
  train_inside(SidedScan, "sgd", gated, between=retune)
  fn freeze(k, oa, ob, a, b) {
    a.b.weight.requires_grad = k % 2 == 0
    b.b.weight.requires_grad = k % 2 == 0
  }
  train_inside(SidedScan, "adam", gated, between=freeze)
}

test "auto mode: the same values as script mode" {
  let (a, b) = twins(SidedScan)
  let oa = optimizer(a.parameters(), "adam")
  let ob = optimizer(b.parameters(), "adam")
  let gm = compile(fn(x) = a(x), gated[0], train=true, optimizer=oa, mode="auto")
  for x in gated {
    let got = gm(x)
    ob.zero_grad()
    let want = b(x)
    want.backward()
    ob.step()
    same(got, want.detach())
    same_params(a, b)
  }
}

test "a while on a plain condition that calls a function writing a tensor: every test's write, as eager" {
  let buf = zeros([3], dtype=f64)
  fn tick(t, k) {
    t.add_(1.0)
    return k
  }
  fn f(x) {
    let k = 0
    let h = x
    while tick(buf, k) < 3 {
      h = h * 2.0
      k = k + 1
    }
    return h
  }
  let x = ones([3], dtype=f64)
  let want = f(x)
  let eager_buf = buf.clone()
  buf.zero_()
  let gm = compile(f, x, mode="script")
  for k in range(3) {
    buf.zero_()
    same(gm(x), want)
    same(buf, eager_buf)
  }
}

test "elif conditions that call a function writing a tensor: only the conditions eager tests write" {
  let buf = zeros([3], dtype=f64)
  let twin = zeros([3], dtype=f64)
  fn tick(t, v) {
    t.add_(v)
    return t.sum()
  }
  fn f(x, t) {
    let h = x
    if x.sum() > 5.0 { h = h * 2.0 }
    elif tick(t, x) > 1.0 { h = h * 3.0 }
    elif tick(t, x * 0.5) > 0.0 { h = h - 1.0 }
    else { h = h + t }
    return h
  }
  let gm = compile(fn(x) = f(x, buf), ones([3], dtype=f64), mode="script")
  expect(lowered(gm), gm.explain())
  for s in [1.0, 3.0, 0.1, -1.0, 0.2] {
    let x = ones([3], dtype=f64) * s
    same(gm(x), f(x, twin))
    same(buf, twin)
  }
}

test "strided and open-ended slices at a scan's index, several lengths" {
  fn strided(x) {
    let acc = zeros([], dtype=f64)
    for t in range(x.shape[0]) { acc = acc + x[t::2].sum() + x[::t + 1].sum() }
    return acc
  }
  fn tail(x) {
    let acc = zeros([], dtype=f64)
    for t in range(1, x.shape[0]) { acc = acc + x[-t:].sum() * t }
    return acc
  }
  fn trailing(x) {
    let acc = zeros([], dtype=f64)
    for t in range(x.shape[0]) { acc = acc + x[max(t - 2, 0):t + 1].mean() }
    return acc
  }
  fn wrapped(x) {
    let acc = zeros([], dtype=f64)
    for t in range(x.shape[0]) { acc = acc + x[t - 1:t + 1].sum() * (t + 1) }
    return acc
  }
  for f in [strided, tail, trailing, wrapped] {
    let gm = compile(f, arange(5, dtype=f64), mode="script")
    for n in [5, 3, 7, 1] {
      let x = arange(n, dtype=f64) * 1.5 + 1.0
      same(gm(x), f(x))
    }
  }
}

test "if and elif conditions in a scan's step that call a function writing a tensor: every step's tests" {
  let buf = zeros([3], dtype=f64)
  let twin = zeros([3], dtype=f64)
  fn tick(t, v) {
    t.add_(v)
    return t.sum()
  }
  fn f(x, t) {
    let h = zeros([3], dtype=f64)
    for k in range(x.shape[0]) {
      if tick(t, x[k]) > 2.0 { h = h + x[k] } elif tick(t, -x[k] * 0.5) < -1.0 { h = h - 1.0 }
    }
    return h
  }
  let gm = compile(fn(x) = f(x, buf), ones([4, 3], dtype=f64), mode="script")
  expect(lowered(gm), gm.explain())
  manual_seed(2)
  for n in [4, 2, 6, 3] {
    let x = randn([n, 3], dtype=f64)
    same(gm(x), f(x, twin))
    same(buf, twin)
  }
}
