# Differential tests, round 5 (models): compiled training steps and inference graphs
# against eager twins in f64, each called several times with inputs of other paths and
# shapes: fixed-length windows with a tensor bound (Note [A window a graph replays],
# interp/values/advanced_indexing.cpp), BatchNorm and Dropout switched between train and
# eval, GradScaler with an overflow, hooks, grad of grad, tied weights, frozen weights
# and schedulers. Stop-gradients and reach: test_compile_differential5.dsl.
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

fn same_grad(got, want) {
  expect((got == none) == (want == none), f"compiled .grad {got}, eager .grad {want}")
  if got != none and want != none { same(got, want) }
}

# Compiles model a (a training step without optimizer, or inference) and checks its
# output, .grad and buffers against twin b's for each input.
fn check_model(a, b, xs, train=true) {
  let gm = compile(a, xs[0], train=train, mode="script")
  for x in xs {
    for p in a.parameters() { p.grad = none }
    for p in b.parameters() { p.grad = none }
    let got = gm(x)
    let want = b(x)
    if train { want.backward() }
    same(got, want.detach())
    for (p, q) in zip(a.parameters(), b.parameters()) { same_grad(p.grad, q.grad) }
    for (p, q) in zip(a.buffers(), b.buffers()) { same(p, q) }
  }
  return gm
}

# Trains a compiled (oa inside the graph) and b eagerly, seeding each call alike;
# `between(k)` runs before call k.
fn train_twins(a, b, oa, ob, xs, between=none) {
  let gm = compile(fn(x) = a(x), xs[0], train=true, optimizer=oa, mode="script")
  for k in range(len(xs)) {
    if between != none { between(k) }
    manual_seed(100 + k)
    let got = gm(xs[k])
    manual_seed(100 + k)
    ob.zero_grad()
    let want = b(xs[k])
    want.backward()
    ob.step()
    same(got, want.detach())
    for (p, q) in zip(a.parameters(), b.parameters()) { same(p, q) }
    for (p, q) in zip(a.buffers(), b.buffers()) { same(p, q) }
  }
  return gm
}

# ---- windows with a tensor bound -------------------------------------------------------------

model Window() {
  w = nn.Parameter(tensor([0.5, -0.25, 1.0], dtype=f64))
  forward(x) {
    let acc = zeros([3], dtype=f64)
    for t in range(x.shape[0] - 2) { acc = acc + x[t:t+3] * self.w }
    return (acc * acc).sum()
  }
}

model Narrowed() {
  w = nn.Parameter(tensor([0.5, -0.25], dtype=f64))
  forward(x) {
    let acc = zeros([2], dtype=f64)
    for t in range(x.shape[0] - 1) { acc = tanh(acc + narrow(x, 0, t, 2) * self.w) }
    return acc.sum()
  }
}

test "x[t:t+3] and narrow(x, 0, t, 2) in a scan: values and gradients over lengths" {
  let (a, b) = twins(Window)
  check_model(a, b, [randn([6], dtype=f64), randn([6], dtype=f64), randn([8], dtype=f64), randn([3], dtype=f64)])
  let (c, d) = twins(Narrowed)
  check_model(c, d, [randn([5], dtype=f64), randn([5], dtype=f64), randn([7], dtype=f64)])
}

model WindowRows() {
  lin = nn.Linear(4, 2, dtype=f64)
  forward(x) {
    let h = zeros([2], dtype=f64)
    for t in range(x.shape[0] - 1) { h = tanh(self.lin(x[t:t+2].reshape([4])) + h) }
    return (h * h).sum()
  }
}

test "a window of rows feeding a layer, trained with Adam over lengths" {
  let (a, b) = twins(WindowRows)
  let xs = [randn([5, 2], dtype=f64), randn([5, 2], dtype=f64), randn([3, 2], dtype=f64), randn([6, 2], dtype=f64)]
  train_twins(a, b, optim.Adam(a.parameters(), lr=0.05), optim.Adam(b.parameters(), lr=0.05), xs)
}

# ---- normalization and dropout, train and eval --------------------------------------------

model BNNet() {
  lin = nn.Linear(3, 4, dtype=f64)
  bn = nn.BatchNorm1d(4, dtype=f64)
  forward(x) = self.bn(self.lin(x)).pow(2).mean()
}

test "BatchNorm running statistics over calls, then eval between calls" {
  let (a, b) = twins(BNNet)
  check_model(a, b, [randn([5, 3], dtype=f64), randn([5, 3], dtype=f64), randn([7, 3], dtype=f64)])
  a.eval()
  b.eval()
  check_model(a, b, [randn([5, 3], dtype=f64), randn([2, 3], dtype=f64)])
}

model BNScan() {
  lin = nn.Linear(3, 3, dtype=f64)
  bn = nn.BatchNorm1d(3, momentum=0.3, dtype=f64)
  forward(xs) {
    let h = zeros([xs.shape[1], 3], dtype=f64)
    for x in xs { h = tanh(self.bn(self.lin(x) + h)) }
    return h.pow(2).mean()
  }
}

test "BatchNorm at every step of a loop, train then eval inference" {
  let (a, b) = twins(BNScan)
  check_model(a, b, [randn([3, 4, 3], dtype=f64), randn([3, 4, 3], dtype=f64), randn([5, 4, 3], dtype=f64)])
  a.eval()
  b.eval()
  check_model(a, b, [randn([3, 4, 3], dtype=f64), randn([2, 4, 3], dtype=f64)], train=false)
}

model DropNet() {
  lin = nn.Linear(3, 3, dtype=f64)
  drop = nn.Dropout(0.4)
  forward(x) = self.drop(self.lin(x)).pow(2).sum()
}

test "Dropout switched between train and eval on alternate calls" {
  let (a, b) = twins(DropNet)
  fn between(k) {
    if k % 2 == 1 {
      a.eval()
      b.eval()
    } else {
      a.train()
      b.train()
    }
  }
  let xs = [randn([4, 3], dtype=f64), randn([4, 3], dtype=f64), randn([4, 3], dtype=f64), randn([4, 3], dtype=f64)]
  train_twins(a, b, optim.SGD(a.parameters(), lr=0.1), optim.SGD(b.parameters(), lr=0.1), xs, between)
}

model Regular() {
  lin = nn.Linear(3, 4, dtype=f64)
  bn = nn.BatchNorm1d(4, dtype=f64)
  drop = nn.Dropout(0.3)
  forward(x) = self.drop(self.bn(self.lin(x))).pow(2).mean()
}

test "BatchNorm and Dropout under AdamW, model.eval() and model.train() between calls" {
  let (a, b) = twins(Regular)
  fn between(k) {
    if k == 2 {
      a.eval()
      b.eval()
    }
    if k == 4 {
      a.train()
      b.train()
    }
  }
  let xs = [randn([5, 3], dtype=f64), randn([5, 3], dtype=f64), randn([5, 3], dtype=f64), randn([5, 3], dtype=f64),
            randn([5, 3], dtype=f64)]
  let gm = train_twins(a, b, optim.AdamW(a.parameters(), lr=0.05), optim.AdamW(b.parameters(), lr=0.05), xs, between)
  expect(a.bn.num_batches_tracked == b.bn.num_batches_tracked)
}

# ---- scalers, hooks, grad of grad ------------------------------------------------------------

model Rnn() {
  cell = nn.Linear(6, 3, dtype=f64)
  head = nn.Linear(3, 1, dtype=f64)
  forward(xs) {
    let h = zeros([xs.shape[1], 3], dtype=f64)
    for x in xs { h = tanh(self.cell(cat([h, x], 1))) }
    return self.head(h).pow(2).mean()
  }
}

test "a GradScaler skipping an overflow and growing its scale, Adam in the graph, new shapes between" {
  let (a, b) = twins(Rnn)
  let oa = optim.Adam(a.parameters(), lr=0.05)
  let ob = optim.Adam(b.parameters(), lr=0.05)
  let sa = optim.GradScaler(init_scale=8.0, growth_interval=2)
  let sb = optim.GradScaler(init_scale=8.0, growth_interval=2)
  let gm = compile(fn(x) = a(x), randn([4, 2, 3], dtype=f64), train=true, optimizer=oa, scaler=sa, mode="script")
  let xs = [randn([4, 2, 3], dtype=f64), randn([4, 2, 3], dtype=f64) * float("inf"), randn([3, 2, 3], dtype=f64),
            randn([4, 5, 3], dtype=f64), randn([4, 2, 3], dtype=f64)]
  for k in range(len(xs)) {
    let got = gm(xs[k])
    ob.zero_grad()
    let want = b(xs[k])
    sb.scale(want).backward()
    sb.step(ob)
    sb.update()
    if k != 1 { same(got, want.detach()) }
    for (p, q) in zip(a.parameters(), b.parameters()) { same(p, q) }
    expect(sa.get_scale() == sb.get_scale())
  }
}

test "a gradient hook on a weight and a forward hook on a layer, SGD with momentum" {
  let (a, b) = twins(Rnn)
  for m in [a, b] {
    m.cell.weight.register_hook(fn(g) = g * 3)
    m.head.register_forward_hook(fn(mod, i, o) = o * 2)
  }
  let xs = [randn([3, 2, 3], dtype=f64), randn([3, 2, 3], dtype=f64), randn([5, 2, 3], dtype=f64)]
  train_twins(a, b, optim.SGD(a.parameters(), lr=0.1, momentum=0.9),
              optim.SGD(b.parameters(), lr=0.1, momentum=0.9), xs)
}

let w = tensor([0.5, -1.0, 0.25], dtype=f64, requires_grad=true)

fn hooked(x) {
  let h = x * w
  h.register_hook(fn(g) = g * 2)
  let acc = zeros([3], dtype=f64)
  for i in range(2) { acc = acc + h * i }
  return (acc * acc).sum()
}

test "a hook on an intermediate read by a scan doubles its gradient as eager" {
  let gm = compile(hooked, ones([3], dtype=f64), train=true, mode="script")
  for x in [ones([3], dtype=f64), tensor([2.0, -0.5, 0.1], dtype=f64)] {
    w.grad = none
    let got = gm(x)
    let gw = w.grad
    w.grad = none
    let want = hooked(x)
    want.backward()
    same(got, want.detach())
    same(gw, w.grad)
  }
  w.grad = none
}

test "an inference graph under no_grad returns no history, over lengths" {
  let (a, b) = twins(Rnn)
  fn infer(x) {
    no_grad { return a(x) }
  }
  let gm = compile(infer, randn([3, 2, 3], dtype=f64), mode="script")
  for n in [3, 4, 2] {
    let x = randn([n, 2, 3], dtype=f64)
    let got = gm(x)
    expect(not got.requires_grad)
    same(got, b(x).detach())
  }
}

# ---- tied, frozen and early-exit models ------------------------------------------------------

model TiedDecoder() {
  emb = nn.Embedding(5, 3, dtype=f64)
  out = nn.Linear(3, 5, bias=false, dtype=f64)
  forward(ids) {
    let h = zeros([3], dtype=f64)
    let loss = zeros([], dtype=f64)
    for t in range(ids.shape[0] - 1) {
      h = tanh(self.emb(ids[t]) + h)
      loss = loss + cross_entropy(self.out(h).reshape([1, 5]), ids[t + 1].reshape([1]))
    }
    return loss
  }
}

test "an embedding tied to its decoder in a scan, Adagrad in the graph" {
  fn tied() {
    let m = TiedDecoder()
    m.out.weight = m.emb.weight
    return m
  }
  let (a, b) = twins(tied)
  expect(a.out.weight is a.emb.weight and len(a.parameters()) == 1, "tied")
  let xs = [tensor([1, 2, 3, 4]), tensor([0, 4, 2, 1]), tensor([3, 3, 1, 0, 2])]
  train_twins(a, b, optim.Adagrad(a.parameters(), lr=0.1), optim.Adagrad(b.parameters(), lr=0.1), xs)
  expect(a.out.weight is a.emb.weight, "still tied")
}

model Frozen() {
  a = nn.Linear(3, 3, dtype=f64)
  b = nn.Linear(3, 3, dtype=f64)
  forward(xs) {
    let h = zeros([3], dtype=f64)
    for x in xs { h = tanh(self.a(x) + self.b(h)) }
    return (h * h).sum()
  }
}

test "a weight read in a scan frozen and thawed between calls, RMSprop with momentum" {
  let (a, b) = twins(Frozen)
  fn between(k) {
    a.b.weight.requires_grad_(k != 1 and k != 2)
    b.b.weight.requires_grad_(k != 1 and k != 2)
  }
  let xs = [randn([4, 3], dtype=f64), randn([4, 3], dtype=f64), randn([4, 3], dtype=f64), randn([4, 3], dtype=f64)]
  train_twins(a, b, optim.RMSprop(a.parameters(), lr=0.01, momentum=0.9),
              optim.RMSprop(b.parameters(), lr=0.01, momentum=0.9), xs, between)
}

# ---- branches inside a loop step, through the passes -------------------------------------------

model GatedTwice() {
  a = nn.Linear(2, 2, dtype=f64)
  b = nn.Linear(2, 2, dtype=f64)
  c = nn.Linear(2, 2, dtype=f64)
  forward(xs) {
    let h = zeros([2], dtype=f64)
    for x in xs {
      if x.sum() > 0 {
        if x[0] > x[1] { h = tanh(self.a(x) + h) } else { h = h + x }
      } else {
        h = tanh(self.b(x) * h)
      }
    }
    return h.pow(2).sum() + self.c(h).sum()
  }
}
test "nested gates in a scan under every loop_checkpoint, optimized or not, with a GradScaler and an overflow" {
  for o in [("auto", false), ("auto", true), ("none", false), ("full", false), ("full", true)] {
    let (a, b) = twins(GatedTwice)
    let oa = optim.Adam(a.parameters(), lr=0.1)
    let ob = optim.Adam(b.parameters(), lr=0.1)
    let sa = optim.GradScaler(init_scale=4.0, growth_interval=1)
    let sb = optim.GradScaler(init_scale=4.0, growth_interval=1)
    let gm = compile(fn(x) = a(x), ones([3, 2], dtype=f64), train=true, optimizer=oa, scaler=sa, mode="script",
                     loop_checkpoint=o[0])
    if o[1] { gm.optimize("default") }
    let xs = [tensor([[2.0, 1.0], [1.0, 0.5]], dtype=f64), tensor([[1.0, 2.0], [0.5, 1.0]], dtype=f64),
              -ones([3, 2], dtype=f64), tensor([[1.0, 2.0], [-1.0, -1.0], [2.0, 0.0]], dtype=f64),
              ones([3, 2], dtype=f64) * float("inf"), tensor([[2.0, 1.0], [1.0, 0.5]], dtype=f64)]
    for x in xs {
      gm(x)
      ob.zero_grad()
      let want = b(x)
      sb.scale(want).backward()
      sb.step(ob)
      sb.update()
      for (p, q) in zip(a.parameters(), b.parameters()) { same(p, q) }
    }
  }
}
