# Differential tests, round 5: compiled functions against eager in f64, each compiled
# once and called several times on inputs that take other paths or have other shapes
# (a new shape captures again). Stop-gradients inside lowered regions (Note [Detach in
# a graph], autograd/ops/views.cpp; Note [No-grad blocks inside a lowered region],
# graph/capture.cpp), outputs of a region that no input's gradient reaches (Note
# [Outputs a lowered region does not differentiate], graph/control_flow_carries.hpp),
# x.detach_() (interp/builtins/builtins_tensor.cpp), fields written inside lowered
# loops (Note [Fields written inside a lowered loop]) and parameters that one side of a
# lowered if alone uses (Note [Gradients a lowered branch may not reach]), also where
# that if is inside a loop's step or inside another if (Note [Branches inside a loop
# step], graph/control_flow_step_reach.hpp), under every optimizer. Models, windows,
# normalization and scalers: test_compile_differential5_models.dsl.
import nn
import optim

fn same(a, b) { expect_close(a, b, rtol=1e-10, atol=1e-12) }

fn twins(make) {
  manual_seed(11)
  let a = make()
  let b = make()
  b.load_state_dict(a.state_dict())
  return a, b
}

# Both .grad none, or both equal.
fn same_grad(got, want) {
  expect((got == none) == (want == none), f"compiled .grad {got}, eager .grad {want}")
  if got != none and want != none { same(got, want) }
}

# Trains model a compiled (optimizer oa inside the graph) and its twin b eagerly on
# each input, comparing the loss, every parameter and every buffer after each call;
# `between(k)` runs before call k (schedulers, toggles).
fn train_twins(a, b, oa, ob, xs, between=none, mode="script") {
  let gm = compile(fn(x) = a(x), xs[0], train=true, optimizer=oa, mode=mode)
  for k in range(len(xs)) {
    if between != none { between(k) }
    let got = gm(xs[k])
    ob.zero_grad()
    let want = b(xs[k])
    want.backward()
    ob.step()
    same(got, want.detach())
    for (p, q) in zip(a.parameters(), b.parameters()) { same(p, q) }
    for (p, q) in zip(a.buffers(), b.buffers()) {
      same(p, q)
      expect(p.requires_grad == q.requires_grad, "a buffer's requires_grad")
    }
  }
  return gm
}

let w = tensor([0.5, -1.0, 0.25], dtype=f64, requires_grad=true)
let v = tensor([1.5, 0.5, -0.75], dtype=f64, requires_grad=true)

# Compiles f as a training step without an optimizer and checks the loss and w's and
# v's .grad (none where eager leaves none) for each input.
fn check_grads(f, xs) {
  let gm = compile(f, xs[0], train=true, mode="script")
  for x in xs {
    w.grad = none
    v.grad = none
    let got = gm(x)
    let (gw, gv) = (w.grad, v.grad)
    w.grad = none
    v.grad = none
    let want = f(x)
    want.backward()
    same(got, want.detach())
    same_grad(gw, w.grad)
    same_grad(gv, v.grad)
  }
  w.grad = none
  v.grad = none
  return gm
}

let xs3 = [ones([3], dtype=f64), -ones([3], dtype=f64) * 2, tensor([0.3, -0.2, 0.1], dtype=f64),
           ones([3], dtype=f64) * 0.5]

# ---- outputs a lowered region does not differentiate --------------------------------------

fn detached_sum(x) {
  let acc = zeros([3], dtype=f64)
  for i in range(3) { acc = acc + (x * v).detach() }
  return acc.sum() + (x * w).sum()
}

test "a scan's carry made only of detached values: the weight it read gets no .grad (it got zeros)" {
  check_grads(detached_sum, xs3)
}

fn detached_side(x) {
  let h = x * w
  let acc = zeros([3], dtype=f64)
  if h.sum() > 0 { acc = (x * v).detach() } else { acc = x * v }
  return (h + acc).sum()
}

fn detached_while(x) {
  let h = x * w
  let acc = zeros([3], dtype=f64)
  let n = zeros([], dtype=f64)
  while n < 2 {
    acc = acc + (h * v).detach()
    h = h * 0.5
    n = n + 1
  }
  return (h * acc).sum()
}

test "a cond output detached on one side, a while's detached carry: .grad as eager's" {
  check_grads(detached_side, xs3)
  check_grads(detached_while, xs3)
}

fn nested_detach(x) {
  let h = x * w
  let acc = zeros([3], dtype=f64)
  for i in range(2) {
    if h.sum() > 0 { acc = acc + (h * v).detach() } else { acc = acc * 0.5 }
    h = tanh(h)
  }
  return (h * acc).sum()
}

test "a detached value carried through a cond inside a scan reaches no weight" {
  check_grads(nested_detach, xs3)
}

model Ring() {
  cell = nn.Linear(2, 2, dtype=f64)
  buf = zeros([3, 2], dtype=f64)
  forward(x) {
    let h = zeros([2], dtype=f64)
    for t in range(x.shape[0]) {
      h = tanh(self.cell(x[t]) + self.buf[t % 3])
      self.buf[t % 3] = h.detach()
    }
    return h.sum()
  }
}

test "a buffer written with detached states in a training step stays without history, and a new shape captures again" {
  # The buffer came out with a CopyBackward into the capture's graph, and the capture
  # on the new shape failed with "ScanBackward: its saved values were freed".
  let (a, b) = twins(Ring)
  let gm = compile(a, randn([5, 2], dtype=f64), train=true, mode="script")
  b(randn([5, 2], dtype=f64))
  b.buf.copy_(a.buf)
  expect(not a.buf.requires_grad and a.buf.grad_fn == none, "the buffer has no history")
  for n in [5, 2, 5, 4] {
    let x = randn([n, 2], dtype=f64)
    for p in a.parameters() { p.grad = none }
    for p in b.parameters() { p.grad = none }
    let got = gm(x)
    let want = b(x)
    want.backward()
    same(got, want.detach())
    same(a.buf, b.buf)
    expect(not a.buf.requires_grad, "the buffer has no history")
    for (p, q) in zip(a.parameters(), b.parameters()) { same_grad(p.grad, q.grad) }
  }
}

model StateGate() {
  cell = nn.Linear(3, 3, dtype=f64)
  state = zeros([3], dtype=f64)
  forward(x) {
    let h = zeros([3], dtype=f64)
    for t in range(x.shape[0]) {
      h = tanh(self.cell(x[t]) + h)
      if h.sum() > 0 { self.state.add_(h.detach()) } else { self.state.mul_(0.5) }
    }
    return (h * self.state).sum()
  }
}

test "a buffer written on either side of a cond in a scan, trained with Adam over shapes" {
  let (a, b) = twins(StateGate)
  let xs = [randn([4, 3], dtype=f64), randn([4, 3], dtype=f64), randn([2, 3], dtype=f64), randn([4, 3], dtype=f64)]
  train_twins(a, b, optim.Adam(a.parameters(), lr=0.05), optim.Adam(b.parameters(), lr=0.05), xs)
}

model Ema() {
  lin = nn.Linear(3, 3, dtype=f64)
  ema = zeros([3], dtype=f64)
  forward(xs) {
    let h = zeros([3], dtype=f64)
    for x in xs {
      h = tanh(self.lin(x) + h)
      self.ema.mul_(0.9).add_(h.detach() * 0.1)
    }
    return (h * h).sum() + (self.ema * h).sum()
  }
}

test "a chained in-place update of a buffer in a loop, SGD with momentum, shapes changing" {
  let (a, b) = twins(Ema)
  let xs = [randn([4, 3], dtype=f64), randn([4, 3], dtype=f64), randn([6, 3], dtype=f64), randn([4, 3], dtype=f64)]
  train_twins(a, b, optim.SGD(a.parameters(), lr=0.1, momentum=0.5),
              optim.SGD(b.parameters(), lr=0.1, momentum=0.5), xs)
}

model Counted() {
  a = nn.Linear(2, 2, dtype=f64)
  count = zeros([], dtype=f64)
  forward(x) {
    let h = x
    let n = zeros([], dtype=f64)
    while n < 3 {
      h = tanh(self.a(h))
      self.count.add_(1.0)
      n = n + 1
    }
    return (h * h).sum()
  }
}

test "a buffer counted in a while of a training step: Adam with weight decay" {
  let (a, b) = twins(Counted)
  let xs = [randn([2], dtype=f64), randn([2], dtype=f64), randn([2], dtype=f64)]
  train_twins(a, b, optim.Adam(a.parameters(), lr=0.1, weight_decay=0.1),
              optim.Adam(b.parameters(), lr=0.1, weight_decay=0.1), xs)
}

# ---- detach_, detach and no_grad inside lowered regions ------------------------------------

fn detached_in_place(x) {
  let h = x * w
  for i in range(3) {
    let d = h * v
    d.detach_()
    h = h * d
  }
  return h.sum()
}

test "x.detach_() takes x out of the graph, eagerly and compiled (it was copy_ of x.detach(): zeros for v)" {
  let h = w * 2
  let d = h * v
  d.detach_()
  expect(not d.requires_grad and d.grad_fn == none, "detached in place")
  (h * d).sum().backward()
  expect(v.grad == none, "v is not reached")
  w.grad = none
  check_grads(detached_in_place, xs3)
  expect_error(fn() = (w * 2)[0].detach_(), "detach_(): this tensor is a view of another")
}

fn detach_cond(x) {
  let h = x * w
  if h.sum() > 0 { h = h.detach() * v } else { h = h * v }
  return (h * w).sum()
}

fn no_grad_scan(x) {
  let h = x * w
  let acc = zeros([3], dtype=f64)
  for i in range(3) {
    no_grad { acc = acc + h * v }
    h = tanh(h * v + acc)
  }
  return h.sum()
}

fn detach_while(x) {
  let h = x * w
  let n = zeros([], dtype=f64)
  while n < 3 {
    h = h.detach() * v + h * 0.5
    n = n + 1
  }
  return h.sum()
}

test "detach on one side of a cond, no_grad in a scan step, detach in a while" {
  check_grads(detach_cond, xs3)
  check_grads(no_grad_scan, xs3)
  check_grads(detach_while, xs3)
}

fn data_cond(x) {
  let h = x * w
  if h.sum() > 0 { h = h.data * v } else { h = h * v.data }
  return (h * w).sum()
}

fn enable_in_no_grad(x) {
  let h = x * w
  for i in range(2) {
    no_grad {
      let t = h * 2
      enable_grad { h = h + t * v }
    }
  }
  return h.sum()
}

fn quiet_side(x) {
  let h = x * w
  if h.sum() > 0 {
    no_grad { h = h * v }
  }
  return (h * v).sum() + w.sum()
}

test ".data on either side, enable_grad inside no_grad in a loop, a no_grad side" {
  check_grads(data_cond, xs3)
  check_grads(enable_in_no_grad, xs3)
  check_grads(quiet_side, xs3)
}

fn detached_carry_reads(x) {
  let h = x * w
  let s = zeros([], dtype=f64)
  for xi in x.reshape([3, 1]) {
    s = s + (h * xi).sum()
    h = h.detach() * v + h
  }
  return s
}

fn second_order(x) {
  let h = x * w
  for i in range(2) { h = tanh(h * v) }
  let (g,) = grad((h * h).sum(), [w], create_graph=true)
  return (g * g.detach()).sum() + (g * v).sum()
}

test "a carry detached after it is read; grad of grad with a detached factor" {
  check_grads(detached_carry_reads, xs3)
  check_grads(second_order, xs3)
}

fn second_order_branches(x) {
  let h = x * w
  for i in range(3) {
    if h.sum() > 0 { h = tanh(h * w) } else { h = h * h * w }
  }
  let (g,) = grad(h.sum(), [w], create_graph=true)
  return (g * g).sum()
}

test "grad of grad through a cond inside a scan" {
  check_grads(second_order_branches, [ones([3], dtype=f64), -ones([3], dtype=f64), tensor([2.0, -0.5, 0.1], dtype=f64)])
}

# ---- branches inside a loop step and inside a branch ----------------------------------------

model GatedRnn() {
  a = nn.Linear(3, 3, dtype=f64)
  b = nn.Linear(3, 3, dtype=f64)
  forward(xs) {
    let h = zeros([3], dtype=f64)
    for x in xs {
      if x.sum() > 0 { h = tanh(self.a(x) + h) } else { h = h * 0.5 }
    }
    return h.pow(2).sum() + self.b(h).sum()
  }
}

test "a layer only a gate inside a scan uses is left alone in calls where no step opened the gate (Adam)" {
  # It got zeros at every call: Adam's step count moved on, and its later steps differed.
  let (a, b) = twins(GatedRnn)
  let xs = [-ones([4, 3], dtype=f64), ones([4, 3], dtype=f64), -ones([4, 3], dtype=f64) * 2,
            tensor([[1.0, 1.0, 1.0], [-1.0, -1.0, -1.0]], dtype=f64)]
  train_twins(a, b, optim.Adam(a.parameters(), lr=0.1), optim.Adam(b.parameters(), lr=0.1), xs)
}

model BreakEarly() {
  a = nn.Linear(3, 3, dtype=f64)
  tail = nn.Linear(3, 3, dtype=f64)
  forward(xs) {
    let h = zeros([3], dtype=f64)
    for t in range(xs.shape[0]) {
      h = tanh(self.a(xs[t]) + h)
      if h.sum() > 1.0 { break }
      h = self.tail(h)
    }
    return (h * h).sum()
  }
}

test "the layer after a break that every call's first step takes gets no step (Adam, SGD with momentum)" {
  let xs = [randn([4, 3], dtype=f64) + 3, randn([4, 3], dtype=f64), randn([4, 3], dtype=f64) + 3,
            randn([4, 3], dtype=f64), randn([2, 3], dtype=f64) + 3]
  let (a, b) = twins(BreakEarly)
  train_twins(a, b, optim.Adam(a.parameters(), lr=0.1), optim.Adam(b.parameters(), lr=0.1), xs)
  let (c, d) = twins(BreakEarly)
  train_twins(c, d, optim.SGD(c.parameters(), lr=0.1, momentum=0.9),
              optim.SGD(d.parameters(), lr=0.1, momentum=0.9), xs)
}

model Nested() {
  a = nn.Linear(3, 2, dtype=f64)
  b = nn.Linear(3, 2, dtype=f64)
  c = nn.Linear(3, 2, dtype=f64)
  forward(x) {
    let y = self.c(x)
    if x.sum() > 0 {
      if x.max() > 1.5 { y = self.a(x) } else { y = y * 2 }
    } else {
      y = self.b(x)
    }
    return y.pow(2).mean()
  }
}

test "an if nested in an if: each layer is stepped only where the call reached it (SGD momentum, AdamW)" {
  # c is overwritten on the inner then side, a used there only: both got zeros where
  # the inner side was not the one taken.
  let xs = [ones([4, 3], dtype=f64), ones([4, 3], dtype=f64) * 2, -ones([4, 3], dtype=f64),
            ones([4, 3], dtype=f64) * 0.5, ones([4, 3], dtype=f64) * 3]
  let (a, b) = twins(Nested)
  train_twins(a, b, optim.SGD(a.parameters(), lr=0.1, momentum=0.9),
              optim.SGD(b.parameters(), lr=0.1, momentum=0.9), xs)
  let (c, d) = twins(Nested)
  train_twins(c, d, optim.AdamW(c.parameters(), lr=0.1), optim.AdamW(d.parameters(), lr=0.1), xs)
}

model DeepGate() {
  a = nn.Linear(2, 2, dtype=f64)
  b = nn.Linear(2, 2, dtype=f64)
  forward(xs) {
    let h = zeros([2], dtype=f64)
    for x in xs {
      if x.sum() > 0 {
        if x[0] > x[1] { h = tanh(self.a(x) + h) } else { h = h + x }
      } else {
        h = tanh(self.b(x) * h)
      }
    }
    return h.pow(2).sum() + self.b.bias.sum()
  }
}

test "an if nested in an if inside a scan, gradients without an optimizer: .grad none where eager's is" {
  let (a, b) = twins(DeepGate)
  let gm = compile(a, ones([3, 2], dtype=f64), train=true, mode="script")
  let xs = [tensor([[2.0, 1.0], [1.0, 0.5]], dtype=f64), tensor([[1.0, 2.0], [0.5, 1.0]], dtype=f64),
            -ones([3, 2], dtype=f64), tensor([[1.0, 2.0], [-1.0, -1.0], [2.0, 0.0]], dtype=f64)]
  for x in xs {
    for p in a.parameters() { p.grad = none }
    for p in b.parameters() { p.grad = none }
    let got = gm(x)
    let want = b(x)
    want.backward()
    same(got, want.detach())
    for (p, q) in zip(a.parameters(), b.parameters()) { same_grad(p.grad, q.grad) }
  }
}

model ScanInSide() {
  a = nn.Linear(2, 2, dtype=f64)
  b = nn.Linear(2, 2, dtype=f64)
  forward(xs) {
    let h = zeros([2], dtype=f64)
    if xs.sum() > 0 {
      for x in xs { h = tanh(self.a(x) + h) }
    } else {
      h = self.b(xs[0])
    }
    return h.pow(2).sum()
  }
}

model ContinueGate() {
  a = nn.Linear(2, 2, dtype=f64)
  b = nn.Linear(2, 2, dtype=f64)
  forward(xs) {
    let h = zeros([2], dtype=f64)
    for x in xs {
      if x.sum() < 0 { continue }
      h = tanh(self.a(x) + self.b(h))
    }
    return h.pow(2).sum() + self.b.bias.sum()
  }
}

model ReturnInIf() {
  a = nn.Linear(2, 2, dtype=f64)
  b = nn.Linear(2, 2, dtype=f64)
  forward(x) {
    let h = self.a(x)
    if h.sum() > 0 {
      if x.sum() > 1 { return h.pow(2).sum() }
      return self.b(h).sum()
    }
    return h.sum()
  }
}

test "a scan on one side, a continue in a scan, a return in a nested if: Adam as eager" {
  let (a, b) = twins(ScanInSide)
  train_twins(a, b, optim.Adam(a.parameters(), lr=0.1), optim.Adam(b.parameters(), lr=0.1),
              [-ones([3, 2], dtype=f64), ones([3, 2], dtype=f64), -ones([3, 2], dtype=f64)])
  let (c, d) = twins(ContinueGate)
  train_twins(c, d, optim.Adam(c.parameters(), lr=0.1), optim.Adam(d.parameters(), lr=0.1),
              [-ones([3, 2], dtype=f64), ones([3, 2], dtype=f64), -ones([3, 2], dtype=f64),
               tensor([[1.0, 1.0], [-1.0, -1.0]], dtype=f64)])
  let (e, f) = twins(ReturnInIf)
  train_twins(e, f, optim.Adam(e.parameters(), lr=0.1), optim.Adam(f.parameters(), lr=0.1),
              [ones([2], dtype=f64) * 2, -ones([2], dtype=f64), ones([2], dtype=f64) * 0.3, ones([2], dtype=f64) * 3])
}

model WhileGate() {
  a = nn.Linear(2, 2, dtype=f64)
  b = nn.Linear(2, 2, dtype=f64)
  forward(x) {
    let h = self.b(x)
    let n = zeros([], dtype=f64)
    while n < 2 {
      if x.sum() > 0 { h = tanh(self.a(h)) } else { h = h * 0.5 }
      n = n + 1
    }
    return h.pow(2).sum()
  }
}

test "a gate inside a while on a tensor: its layer is left alone where no iteration opened it (Adam)" {
  let (a, b) = twins(WhileGate)
  train_twins(a, b, optim.Adam(a.parameters(), lr=0.1), optim.Adam(b.parameters(), lr=0.1),
              [-ones([2], dtype=f64), ones([2], dtype=f64), -ones([2], dtype=f64)])
}

fn second_order_nested(x) {
  let h = x * w
  for i in range(3) {
    if h.sum() > 0 {
      if h.max() > 0.4 { h = tanh(h * v) } else { h = h * w }
    } else {
      h = h * h * w
    }
  }
  let (g,) = grad(h.sum(), [w], create_graph=true)
  return (g * g).sum()
}

test "grad of grad through an if nested in an if in a scan: v's .grad none in the calls that never used it" {
  check_grads(second_order_nested, [ones([3], dtype=f64), -ones([3], dtype=f64), tensor([2.0, -0.5, 0.1], dtype=f64),
                                    tensor([0.1, 0.1, 0.1], dtype=f64)])
}

# ---- parameters one side of a lowered if alone uses -----------------------------------------

model Two() {
  a = nn.Linear(3, 2, dtype=f64)
  b = nn.Linear(3, 2, dtype=f64)
  forward(x) {
    let y = none
    if x.sum() > 0 { y = self.a(x) } else { y = self.b(x) }
    return y.pow(2).mean()
  }
}

let sides = [ones([4, 3], dtype=f64), ones([4, 3], dtype=f64) * 2, -ones([4, 3], dtype=f64),
             ones([4, 3], dtype=f64) * 0.5, -ones([4, 3], dtype=f64) * 3]

fn optimizer(kind, ps) {
  if kind == "nesterov" { return optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=true, weight_decay=0.01) }
  if kind == "amsgrad" { return optim.Adam(ps, lr=0.1, amsgrad=true, weight_decay=0.01) }
  if kind == "adagrad" { return optim.Adagrad(ps, lr=0.1, weight_decay=0.01, lr_decay=0.01) }
  if kind == "adamw" { return optim.AdamW(ps, lr=0.1, amsgrad=true) }
  return optim.RMSprop(ps, lr=0.01, centered=true, momentum=0.5)
}

test "the untaken side's layer under SGD nesterov, Adam amsgrad, Adagrad, AdamW amsgrad, centered RMSprop" {
  for kind in ["nesterov", "amsgrad", "adagrad", "adamw", "rmsprop"] {
    let (a, b) = twins(Two)
    train_twins(a, b, optimizer(kind, a.parameters()), optimizer(kind, b.parameters()), sides)
  }
}

test "a StepLR stepping between calls of a step with an untaken side" {
  let (a, b) = twins(Two)
  let oa = optim.SGD(a.parameters(), lr=0.1, momentum=0.9)
  let ob = optim.SGD(b.parameters(), lr=0.1, momentum=0.9)
  let sa = optim.StepLR(oa, 1, gamma=0.5)
  let sb = optim.StepLR(ob, 1, gamma=0.5)
  fn between(k) {
    if k > 0 {
      sa.step()
      sb.step()
    }
  }
  train_twins(a, b, oa, ob, sides, between)
}

test "requires_grad_(false) toggled between calls on a one-sided weight" {
  let (a, b) = twins(Two)
  fn between(k) {
    a.a.weight.requires_grad_(k % 2 == 0)
    b.a.weight.requires_grad_(k % 2 == 0)
  }
  train_twins(a, b, optim.Adam(a.parameters(), lr=0.1), optim.Adam(b.parameters(), lr=0.1), sides, between)
}

model TiedSides() {
  a = nn.Linear(3, 3, bias=false, dtype=f64)
  b = nn.Linear(3, 3, bias=false, dtype=f64)
  forward(x) {
    let y = x
    if x.sum() > 0 { y = self.a(x) } else { y = self.b(x) * 2 }
    return y.pow(2).mean()
  }
}

test "a weight tied between the two sides is reached on either" {
  fn tied() {
    let m = TiedSides()
    m.b.weight = m.a.weight
    return m
  }
  let (a, b) = twins(tied)
  expect(a.b.weight is a.a.weight and len(a.parameters()) == 1, "tied")
  train_twins(a, b, optim.SGD(a.parameters(), lr=0.1, momentum=0.9),
              optim.SGD(b.parameters(), lr=0.1, momentum=0.9), sides)
}

model MaybeEmpty() {
  a = nn.Linear(3, 3, dtype=f64)
  forward(xs) {
    let h = ones([3], dtype=f64)
    for t in range(xs.shape[0]) { h = tanh(self.a(xs[t]) + h) }
    return h.pow(2).sum() + self.a.bias.sum()
  }
}

test "a loop of no steps on one call: the weight only the loop reads is left alone" {
  let (a, b) = twins(MaybeEmpty)
  let xs = [ones([2, 3], dtype=f64), zeros([0, 3], dtype=f64), ones([3, 3], dtype=f64), zeros([0, 3], dtype=f64)]
  train_twins(a, b, optim.SGD(a.parameters(), lr=0.1, momentum=0.9, weight_decay=0.1),
              optim.SGD(b.parameters(), lr=0.1, momentum=0.9, weight_decay=0.1), xs)
}

model Pick() {
  a = nn.Linear(3, 3, dtype=f64)
  forward(x) {
    let h = self.a(x)
    let y = h.detach() if h.sum() > 0 else h
    return (y * h).sum()
  }
}

test "a conditional expression with a detached side, an ExponentialLR between calls" {
  let (a, b) = twins(Pick)
  let oa = optim.SGD(a.parameters(), lr=0.1, momentum=0.9, nesterov=true)
  let ob = optim.SGD(b.parameters(), lr=0.1, momentum=0.9, nesterov=true)
  let sa = optim.ExponentialLR(oa, 0.7)
  let sb = optim.ExponentialLR(ob, 0.7)
  fn between(k) {
    if k > 0 {
      sa.step()
      sb.step()
    }
  }
  let xs = [randn([3], dtype=f64), -randn([3], dtype=f64), randn([3], dtype=f64), -randn([3], dtype=f64)]
  train_twins(a, b, oa, ob, xs, between)
}

test "gradients accumulate over calls without zero_grad, .grad none where no call reached it" {
  let (a, b) = twins(Two)
  let gm = compile(a, ones([4, 3], dtype=f64), train=true, mode="script")
  for x in sides {
    let got = gm(x)
    let want = b(x)
    want.backward()
    same(got, want.detach())
    for (p, q) in zip(a.parameters(), b.parameters()) { same_grad(p.grad, q.grad) }
  }
}
