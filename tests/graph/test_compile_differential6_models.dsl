# Differential tests, round 6 (models): compiled against eager in f64, each model
# compiled once and called several times on inputs that take other paths and have
# other shapes. Layers that write their own buffers inside a lowered branch or loop
# (Note [Tensors a lowered region's calls write], graph/capture_writes.cpp):
# BatchNorm2d, SyncBatchNorm on one process, track_running_stats=false, momentum=none,
# one BatchNorm used twice per step and two in one loop, InstanceNorm with running
# statistics, a model bumping its own counter in a method a branch calls; the running
# statistics read back in the same region; train/eval switched between calls; dropout's
# RNG position; loop_checkpoint. Each trains under the optimizer inside the graph
# (optimizer=opt) and outside it (.grad compared). Functions and programs:
# test_compile_differential6.dsl.
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

# Every parameter and buffer, by name, with its dtype and requires_grad.
fn same_state(a, b) {
  let sa = a.state_dict()
  let sb = b.state_dict()
  for k in sa.keys() {
    same(sa[k], sb[k], msg=k)
    expect(sa[k].dtype == sb[k].dtype and sa[k].requires_grad == sb[k].requires_grad, k)
  }
}

fn optimizer(params, kind) {
  if kind == "adam" { return optim.Adam(params, lr=0.05, weight_decay=0.01) }
  return optim.SGD(params, lr=0.05, momentum=0.9, weight_decay=0.1)
}

# The optimizer inside the graph: loss and state after every call.
fn train_inside(M, kind, xs, checkpoint="auto") {
  let (a, b) = twins(M)
  let oa = optimizer(a.parameters(), kind)
  let ob = optimizer(b.parameters(), kind)
  let gm = compile(fn(x) = a(x), xs[0], train=true, optimizer=oa, mode="script", loop_checkpoint=checkpoint)
  for x in xs {
    let got = gm(x)
    ob.zero_grad()
    let want = b(x)
    want.backward()
    ob.step()
    same(got, want.detach(), msg="loss")
    same_state(a, b)
  }
  return gm
}

# The optimizer outside the graph: each .grad (none where eager's is none), then a step.
fn train_outside(M, kind, xs) {
  let (a, b) = twins(M)
  let oa = optimizer(a.parameters(), kind)
  let ob = optimizer(b.parameters(), kind)
  let gm = compile(fn(x) = a(x), xs[0], train=true, mode="script")
  for x in xs {
    oa.zero_grad()
    let got = gm(x)
    ob.zero_grad()
    let want = b(x)
    want.backward()
    for (p, q) in zip(a.parameters(), b.parameters()) {
      expect((p.grad == none) == (q.grad == none), f"compiled .grad {p.grad}, eager .grad {q.grad}")
      if p.grad != none and q.grad != none { same(p.grad, q.grad, msg="grad") }
    }
    oa.step()
    ob.step()
    same(got, want.detach(), msg="loss")
    same_state(a, b)
  }
  return gm
}

fn infer(M, xs) {
  let (a, b) = twins(M)
  let gm = compile(a, xs[0], mode="script")
  for x in xs {
    same(gm(x), b(x), msg="output")
    same_state(a, b)
  }
  return gm
}

model Gate2d() {
  conv = nn.Conv2d(2, 2, 3, padding=1, dtype=f64)
  bn = nn.BatchNorm2d(2, dtype=f64)
  forward(x) {
    let y = x
    if x.mean() > 0 { y = self.bn(self.conv(x)) } else { y = self.conv(x).tanh() }
    return y.pow(2).mean()
  }
}

model SyncGate() {
  lin = nn.Linear(3, 3, dtype=f64)
  bn = nn.SyncBatchNorm(3, dtype=f64)
  forward(x) {
    let y = self.lin(x)
    if x.sum() > 0 { y = self.bn(y) }
    return y.pow(2).mean()
  }
}

# Batch statistics only: nothing to carry, both sides in a loop's step.
model Untracked() {
  lin = nn.Linear(3, 3, dtype=f64)
  bn = nn.BatchNorm1d(3, track_running_stats=false, dtype=f64)
  forward(x) {
    let h = x
    for t in range(2) { if h.sum() > 0 { h = self.bn(self.lin(h)) } else { h = self.lin(h).tanh() } }
    return h.pow(2).mean()
  }
}

# One BatchNorm(momentum=none) called twice in each step: two moves per step.
model TwiceCumulative() {
  lin = nn.Linear(3, 3, dtype=f64)
  bn = nn.BatchNorm1d(3, momentum=none, dtype=f64)
  forward(x) {
    let h = x
    for t in range(x.shape[0] - 2) { h = self.bn(self.lin(h)) + self.bn(h) * 0.5 }
    return h.pow(2).mean()
  }
}

# Two BatchNorms sharing nothing, each on one side of an if in a while's step.
model TwoInWhile() {
  lin = nn.Linear(3, 3, dtype=f64)
  bn1 = nn.BatchNorm1d(3, dtype=f64)
  bn2 = nn.BatchNorm1d(3, momentum=0.4, dtype=f64)
  forward(x) {
    let h = x
    let k = 0
    while h.abs().sum() > 1.0 and k < 3 {
      if k == 1 { h = self.bn1(self.lin(h)) * 0.3 } else { h = self.bn2(h) * 0.4 }
      k = k + 1
    }
    return h.pow(2).mean()
  }
}

model AfterBreak() {
  lin = nn.Linear(3, 3, dtype=f64)
  bn = nn.BatchNorm1d(3, dtype=f64)
  forward(x) {
    let h = x
    for t in range(4) {
      if h.abs().max() < 0.5 { break }
      h = self.bn(self.lin(h)) * 0.3
    }
    return h.pow(2).mean()
  }
}

model Instance() {
  conv = nn.Conv1d(2, 2, 3, padding=1, dtype=f64)
  norm = nn.InstanceNorm1d(2, affine=true, track_running_stats=true, dtype=f64)
  forward(x) {
    let y = self.conv(x)
    if x.sum() > 0 { y = self.norm(y) }
    return y.pow(2).mean()
  }
}

# Its own buffer, written in a method that a lowered branch calls, then read there.
model Counter() {
  lin = nn.Linear(3, 3, dtype=f64)
  count = zeros([1], dtype=f64)
  bump(v) { self.count.add_(v) }
  forward(x) {
    let y = self.lin(x)
    if x.sum() > 0 {
      self.bump(1.0)
      y = y * self.count
    }
    return y.pow(2).mean()
  }
}

# The same counter bumped on the steps of a scan that take a branch, read at each step.
model CountSteps() {
  lin = nn.Linear(3, 3, dtype=f64)
  count = zeros([1], dtype=f64)
  bump(v) { self.count.add_(v) }
  forward(x) {
    let h = self.lin(x)
    for t in range(x.shape[0]) {
      if x[t].sum() > 0 { self.bump(1.0) }
      h = h * 0.9 + self.count
    }
    return h.pow(2).mean()
  }
}

# The running statistics read in the branch that moved them, and after it.
model ReadBack() {
  lin = nn.Linear(3, 3, dtype=f64)
  bn = nn.BatchNorm1d(3, dtype=f64)
  forward(x) {
    let y = self.lin(x)
    if x.sum() > 0 {
      y = self.bn(y)
      y = y + self.bn.running_mean * 2.0
    }
    return y.pow(2).mean() + self.bn.running_var.sum()
  }
}

# One BatchNorm on both sides.
model BothSides() {
  lin = nn.Linear(3, 3, dtype=f64)
  bn = nn.BatchNorm1d(3, dtype=f64)
  forward(x) {
    let y = none
    if x.sum() > 0 { y = self.bn(self.lin(x)) } else { y = self.bn(x * 2.0).tanh() }
    return y.pow(2).mean()
  }
}

# A while whose condition reads the statistics its body moves.
model UntilMoved() {
  bn = nn.BatchNorm1d(3, momentum=0.5, dtype=f64)
  forward(x) {
    let h = x
    let k = 0
    while self.bn.running_mean.abs().sum() < 2.0 and k < 5 {
      h = self.bn(h) + x
      k = k + 1
    }
    return (h * self.bn.weight).pow(2).mean()
  }
}

# A for over the rows of a tensor (not a range).
model OverRows() {
  cell = nn.Linear(3, 3, dtype=f64)
  bn = nn.BatchNorm1d(3, dtype=f64)
  forward(x) {
    let h = zeros([4, 3], dtype=f64)
    for r in x { h = self.bn(self.cell(r) + h).tanh() }
    return h.pow(2).mean()
  }
}

model CumulativeWhile() {
  lin = nn.Linear(3, 3, dtype=f64)
  bn = nn.BatchNorm1d(3, momentum=none, dtype=f64)
  forward(x) {
    let h = x
    let k = 0
    while h.abs().max() > 0.3 and k < 4 {
      h = self.bn(self.lin(h)) * 0.4
      k = k + 1
    }
    return h.pow(2).mean()
  }
}

model Dropped() {
  lin = nn.Linear(3, 3, dtype=f64)
  drop = nn.Dropout(0.5)
  forward(x) {
    let y = self.lin(x)
    if x.sum() > 0 { y = self.drop(y) }
    for t in range(2) { y = self.drop(y) + y }
    return y.pow(2).mean()
  }
}

manual_seed(3)
let batches = [randn([4, 3], dtype=f64) + 2.0, randn([4, 3], dtype=f64) - 2.0, randn([4, 3], dtype=f64) + 1.5,
               randn([5, 3], dtype=f64) - 1.0, randn([4, 3], dtype=f64) + 2.5]
let images = [randn([2, 2, 4, 4], dtype=f64) + 1.0, randn([2, 2, 4, 4], dtype=f64) - 1.0, randn([3, 2, 4, 4], dtype=f64) + 1.0]
let signals = [randn([2, 2, 5], dtype=f64) + 1.0, randn([2, 2, 5], dtype=f64) - 1.0, randn([2, 2, 6], dtype=f64) + 1.0]
let sequences = [randn([3, 4, 3], dtype=f64), randn([5, 4, 3], dtype=f64) + 1.0, randn([2, 4, 3], dtype=f64)]

test "BatchNorm2d on one side of a gate: SGD inside the graph, Adam outside it, other batch sizes" {
  expect(lowered(train_inside(Gate2d, "sgd", images)))
  train_outside(Gate2d, "adam", images)
}

test "SyncBatchNorm on one process on one side of a gate: as BatchNorm1d" {
  train_inside(SyncGate, "adam", batches)
  train_outside(SyncGate, "sgd", batches)
  infer(SyncGate, batches)
}

test "BatchNorm(track_running_stats=false) on both sides of an if in a scan's step: no buffers to carry" {
  train_inside(Untracked, "sgd", batches)
  train_outside(Untracked, "adam", batches)
}

test "one BatchNorm(momentum=none) called twice per step, over several trip counts" {
  train_inside(TwiceCumulative, "sgd", batches)
  train_outside(TwiceCumulative, "sgd", batches)
  infer(TwiceCumulative, batches)
}

test "two BatchNorms sharing nothing, on the two sides of an if in a while's step" {
  train_inside(TwoInWhile, "sgd", batches)
  train_outside(TwoInWhile, "adam", batches)
}

test "a BatchNorm after a break on a tensor condition" {
  train_inside(AfterBreak, "adam", batches)
  train_outside(AfterBreak, "sgd", batches)
}

test "InstanceNorm1d(track_running_stats=true) on one side of a gate writes its statistics as eager" {
  train_inside(Instance, "sgd", signals)
  train_outside(Instance, "adam", signals)
  infer(Instance, signals)
}

test "a model's own counter, bumped in a method a lowered branch calls and read after it" {
  train_inside(Counter, "adam", batches)
  train_outside(Counter, "sgd", batches)
  infer(Counter, batches)
}

test "a counter bumped on the steps of a scan that take a branch, read at every step" {
  train_inside(CountSteps, "sgd", batches)
  infer(CountSteps, batches)
}

test "running statistics read back in the branch that moved them and after it" {
  train_inside(ReadBack, "sgd", batches)
  train_outside(ReadBack, "adam", batches)
  infer(ReadBack, batches)
}

test "one BatchNorm on both sides of a gate" {
  train_inside(BothSides, "sgd", batches)
  train_outside(BothSides, "adam", batches)
}

test "a while whose condition reads the statistics its body moves (inference: the trip count varies)" {
  infer(UntilMoved, batches)
}

test "a BatchNorm in a for over a tensor's rows, several lengths" {
  train_inside(OverRows, "sgd", sequences)
  train_outside(OverRows, "adam", sequences)
}

test "BatchNorm(momentum=none) in a while on a tensor condition" {
  train_outside(CumulativeWhile, "sgd", batches)
}

test "train and eval switched between the calls of one compiled model" {
  for M in [BothSides, TwoInWhile, Instance] {
    let (a, b) = twins(M)
    let xs = signals if M == Instance else batches
    let gm = compile(a, xs[0], mode="script")
    for k in range(len(xs)) {
      if k % 2 == 0 { a.train() ; b.train() } else { a.eval() ; b.eval() }
      same(gm(xs[k]), b(xs[k]))
      same_state(a, b)
    }
  }
  let (a, b) = twins(BothSides)
  let oa = optimizer(a.parameters(), "sgd")
  let ob = optimizer(b.parameters(), "sgd")
  let gm = compile(fn(x) = a(x), batches[0], train=true, optimizer=oa, mode="script")
  for k in range(len(batches)) {
    if k % 2 == 1 { a.train() ; b.train() } else { a.eval() ; b.eval() }
    let got = gm(batches[k])
    ob.zero_grad()
    let want = b(batches[k])
    want.backward()
    ob.step()
    same(got, want.detach())
    same_state(a, b)
  }
}

test "dropout in a branch and a scan: the same masks and the same RNG position after each call" {
  let (a, b) = twins(Dropped)
  let oa = optimizer(a.parameters(), "adam")
  let ob = optimizer(b.parameters(), "adam")
  let gm = compile(fn(x) = a(x), batches[0], train=true, optimizer=oa, mode="script", loop_checkpoint="full")
  for x in batches {
    manual_seed(5)
    let got = gm(x)
    let after = rand([2], dtype=f64)
    manual_seed(5)
    ob.zero_grad()
    let want = b(x)
    want.backward()
    ob.step()
    same(got, want.detach())
    same(after, rand([2], dtype=f64))
    same_state(a, b)
  }
}

test "loop_checkpoint full and none: BatchNorm's statistics and gradients as eager's" {
  train_inside(OverRows, "sgd", sequences, checkpoint="full")
  train_inside(AfterBreak, "sgd", batches, checkpoint="full")
  train_inside(CountSteps, "adam", batches, checkpoint="none")
}

test "a state loaded, a buffer and a parameter rebound between calls: the graph reads the new ones" {
  let (a, b) = twins(BothSides)
  let (c, d) = twins(BothSides)
  let gm = compile(a, batches[0], mode="script")
  same(gm(batches[0]), b(batches[0]))
  for x in batches { c(x) }
  a.load_state_dict(c.state_dict())
  b.load_state_dict(c.state_dict())
  for x in batches {
    same(gm(x), b(x))
    same_state(a, b)
    a.bn.running_mean = ones([3], dtype=f64) * 0.5
    b.bn.running_mean = ones([3], dtype=f64) * 0.5
    a.lin.weight = nn.Parameter(randn([3, 3], dtype=f64))
    b.lin.weight = nn.Parameter(a.lin.weight.detach().clone())
  }
}

# A shadow of the weights moved in place under no_grad, on one side of a gate.
model Shadowed() {
  lin = nn.Linear(3, 3, dtype=f64)
  shadow = zeros([3, 3], dtype=f64)
  forward(x) {
    let y = self.lin(x)
    if x.sum() > 0 { no_grad { self.shadow.mul_(0.9).add_(self.lin.weight * 0.1) } }
    return (y + x @ self.shadow).pow(2).mean()
  }
}

# The same BatchNorm at every step of a scan nested in a scan's step.
model NestedSteps() {
  lin = nn.Linear(3, 3, dtype=f64)
  bn = nn.BatchNorm1d(3, dtype=f64)
  forward(x) {
    let h = zeros([4, 3], dtype=f64)
    for t in range(x.shape[0]) {
      for j in range(2) { h = self.bn(self.lin(x[t]) + h * 0.5).tanh() }
    }
    return h.pow(2).mean()
  }
}

# A scan on one side of a cond, another BatchNorm on the other side.
model ScanOnOneSide() {
  lin = nn.Linear(3, 3, dtype=f64)
  bn = nn.BatchNorm1d(3, dtype=f64)
  bn2 = nn.BatchNorm1d(3, dtype=f64)
  forward(x) {
    let h = zeros([4, 3], dtype=f64)
    if x.sum() > 0 {
      for t in range(x.shape[0]) { h = self.bn(self.lin(x[t]) + h).tanh() }
    } else {
      h = self.bn2(x[0])
    }
    return h.pow(2).mean()
  }
}

test "a shadow of the weights moved in place under no_grad on one side of a gate" {
  train_inside(Shadowed, "sgd", batches)
  train_outside(Shadowed, "adam", batches)
  infer(Shadowed, batches)
}

test "a BatchNorm in a scan nested in a scan's step, and in a scan on one side of a cond" {
  train_inside(NestedSteps, "sgd", sequences)
  train_outside(NestedSteps, "adam", sequences)
  let signed = [sequences[0].abs(), -sequences[1].abs(), sequences[1].abs(), -sequences[2].abs()]
  train_inside(ScanOnOneSide, "adam", signed)
  train_outside(ScanOnOneSide, "sgd", signed)
}

test "a GradScaler skipping an overflowing batch whose side holds no BatchNorm: statistics, scale and steps as eager" {
  let xs = [batches[0], batches[1], -ones([4, 3], dtype=f64) * float("inf"), batches[2], batches[3], batches[4]]
  for kind in ["adam", "sgd"] {
    let (a, b) = twins(SyncGate)
    let oa = optimizer(a.parameters(), kind)
    let ob = optimizer(b.parameters(), kind)
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
      same_state(a, b)
      expect(sa.get_scale() == sb.get_scale())
    }
  }
}

# SyncBatchNorm.convert_sync_batchnorm of an affine=false BatchNorm, in an if in a scan.
model Converted() {
  body = nn.SyncBatchNorm.convert_sync_batchnorm(nn.Sequential(nn.Linear(3, 3, dtype=f64),
                                                               nn.BatchNorm1d(3, affine=false, dtype=f64)))
  forward(x) {
    let h = x
    for t in range(3) { if h.sum() > -1.0 { h = self.body(h) + h * 0.5 } else { h = self.body[0](h) } }
    return h.pow(2).mean()
  }
}

model InstanceSteps() {
  conv = nn.Conv2d(2, 2, 3, padding=1, dtype=f64)
  norm = nn.InstanceNorm2d(2, track_running_stats=true, momentum=none, dtype=f64)
  forward(x) {
    let h = x
    for t in range(2) { h = self.norm(self.conv(h)).tanh() + h }
    return h.pow(2).mean()
  }
}

model Volume() {
  bn = nn.BatchNorm3d(2, dtype=f64)
  forward(x) {
    let h = x
    let k = 0
    while h.abs().max() > 1.0 and k < 2 {
      h = self.bn(h) * 0.3
      k = k + 1
    }
    return h.pow(2).mean()
  }
}

test "converted SyncBatchNorm(affine=false), InstanceNorm2d(momentum=none) and BatchNorm3d in lowered loops" {
  train_inside(Converted, "sgd", batches)
  train_outside(Converted, "adam", batches)
  train_inside(InstanceSteps, "adam", images)
  infer(InstanceSteps, images)
  infer(Volume, [randn([2, 2, 2, 3, 3], dtype=f64) * 3, randn([3, 2, 2, 3, 3], dtype=f64) * 3])
}
