# BatchNorm in training mode inside a lowered branch or loop (Note [Tensors a lowered
# region's calls write], graph/capture_writes.cpp): the layer writes num_batches_tracked,
# running_mean and running_var inside stdlib/nn.dsl, where the body names no field, so
# the statement is lowered once, finds them, and is lowered again carrying them; the
# live buffers are written once after the node. Each model runs eagerly and compiled
# from the same state, in f64, over inputs that take both sides and several trip
# counts: outputs, buffers, and (with the optimizer inside the graph) parameters after
# every step.
import nn
import optim

fn same(a, b) { expect_close(a, b, rtol=1e-10, atol=1e-12) }
fn lowered(gm) = "unrolled" not in gm.explain()

fn twins(M) {
  manual_seed(7)
  let a = M()
  let b = M()
  b.load_state_dict(a.state_dict())
  return a, b
}

fn same_buffers(a, b) {
  let sa = a.state_dict()
  let sb = b.state_dict()
  for k in sa.keys() { expect_close(sa[k], sb[k], rtol=1e-10, atol=1e-12, msg=k) }
}

# A per-batch gate: the BatchNorm runs on one side only.
model Gate() {
  a = nn.Linear(3, 3, dtype=f64)
  b = nn.Linear(3, 3, dtype=f64)
  bn = nn.BatchNorm1d(3, dtype=f64)
  forward(x) {
    let y = none
    if x.sum() > 0 { y = self.bn(self.a(x)) } else { y = self.b(x).tanh() }
    return y.pow(2).mean()
  }
}

# A depth loop: the same layer and BatchNorm at every step of a scan over a range.
model Deep() {
  lin = nn.Linear(3, 3, dtype=f64)
  bn = nn.BatchNorm1d(3, momentum=0.3, dtype=f64)
  forward(x) {
    let h = x
    for t in range(3) { h = self.bn(self.lin(h)).tanh() + h }
    return h.pow(2).mean()
  }
}

# An RNN-like scan over the rows of the input, its step normalized.
model Recurrent() {
  cell = nn.Linear(3, 3, dtype=f64)
  bn = nn.BatchNorm1d(3, dtype=f64)
  forward(x) {
    let h = zeros([4, 3], dtype=f64)
    for t in range(x.shape[0]) { h = (self.bn(self.cell(x[t])) + h * 0.5).tanh() }
    return h.pow(2).mean()
  }
}

# A branch inside a scan's step: the statistics move only on the steps that take it.
model GatedSteps() {
  cell = nn.Linear(3, 3, dtype=f64)
  bn = nn.BatchNorm1d(3, dtype=f64)
  forward(x) {
    let h = zeros([4, 3], dtype=f64)
    for t in range(x.shape[0]) {
      let z = self.cell(x[t]) + h
      if x[t].sum() > 0 { z = self.bn(z) }
      h = z.tanh()
    }
    return h.pow(2).mean()
  }
}

# A while loop on a tensor condition that normalizes on each trip.
model Settle() {
  bn = nn.BatchNorm1d(3, momentum=0.5, dtype=f64)
  forward(x) {
    let h = x
    let k = 0
    while h.abs().max() > 0.5 and k < 4 {
      h = self.bn(h) * 0.5
      k = k + 1
    }
    return (h * self.bn.weight).pow(2).mean()
  }
}

# A for over a list of layers (it unrolls inside the side), two BatchNorms in it.
model Blocks() {
  blocks = nn.ModuleList([nn.Sequential(nn.Linear(3, 3, dtype=f64), nn.BatchNorm1d(3, dtype=f64)),
                          nn.Sequential(nn.Linear(3, 3, dtype=f64), nn.BatchNorm1d(3, momentum=none, dtype=f64))])
  forward(x) {
    let h = x
    if x.sum() > 0 {
      for blk in self.blocks { h = blk(h).tanh() + h }
    }
    return (h * self.blocks[0][1].weight).pow(2).mean()
  }
}

# The same gate as a conditional expression.
model GateExpression() {
  a = nn.Linear(3, 3, dtype=f64)
  bn = nn.BatchNorm1d(3, dtype=f64)
  forward(x) { return (self.bn(self.a(x)) if x.sum() > 0 else self.a(x).tanh()).pow(2).mean() }
}

fn rows(n, sign) = randn([n, 4, 3], dtype=f64) + sign * 0.5
let batches = [randn([4, 3], dtype=f64) + 2.0, randn([4, 3], dtype=f64) - 2.0, randn([4, 3], dtype=f64) + 1.5,
               randn([4, 3], dtype=f64) - 1.0, randn([4, 3], dtype=f64) + 2.5]

fn check_inference(M, xs) {
  let (a, b) = twins(M)
  let gm = compile(a, xs[0], mode="script")
  expect(lowered(gm), gm.explain())
  for x in xs {
    expect_close(gm(x), b(x), rtol=0, atol=0)
    same_buffers(a, b)
  }
  return gm
}

fn optimizer(params, kind) {
  if kind == "adam" { return optim.Adam(params, lr=0.05, weight_decay=0.01) }
  return optim.SGD(params, lr=0.05, momentum=0.9, weight_decay=0.1)
}

# `passes`: "" or a pipeline for gm.optimize (the written fresh copies must not merge,
# passes/cse.cpp; a body node with a none input must not stop licm).
fn check_training(M, kind, xs, passes="") {
  let (a, b) = twins(M)
  let oa = optimizer(a.parameters(), kind)
  let ob = optimizer(b.parameters(), kind)
  let gm = compile(fn(x) = a(x), xs[0], train=true, optimizer=oa, mode="script")
  expect(lowered(gm), gm.explain())
  if passes != "" { gm.optimize(passes) }
  for x in xs {
    ob.zero_grad()
    let lb = b(x)
    lb.backward()
    ob.step()
    same(gm(x), lb.detach())
    same_buffers(a, b)
  }
}

test "a BatchNorm on one side of a per-batch gate: explain names its buffers, each call moves them as eager" {
  let gm = check_inference(Gate, batches)
  expect("writes bn.num_batches_tracked, bn.running_mean, bn.running_var" in gm.explain(), gm.explain())
}

test "a BatchNorm on one side of a conditional expression (a if p else b)" {
  let gm = check_inference(GateExpression, batches)
  expect("a if cond else b on a tensor -> cond (writes bn.num_batches_tracked" in gm.explain(), gm.explain())
  check_training(GateExpression, "sgd", batches)
}

test "a BatchNorm on one side of a gate, trained with the optimizer inside the graph" {
  check_training(Gate, "sgd", batches)
  check_training(Gate, "adam", batches)
}

test "a BatchNorm in a depth loop (a scan over a range): buffers after three moves per call" {
  let gm = check_inference(Deep, batches)
  expect("-> scan (carries: h, bn.num_batches_tracked, bn.running_mean, bn.running_var)" in gm.explain(), gm.explain())
  check_training(Deep, "sgd", batches)
}

test "BatchNorms in a for over a list of layers inside a gate: each block's buffers" {
  let gm = check_inference(Blocks, batches)
  expect("blocks.1.1.num_batches_tracked" in gm.explain(), gm.explain())
  check_training(Blocks, "adam", batches)
}

test "a BatchNorm in an RNN-like scan over rows, several lengths" {
  let xs = [rows(5, 1.0), rows(5, -1.0), rows(3, 0.0), rows(6, 1.0)]
  check_inference(Recurrent, xs)
  check_training(Recurrent, "adam", [rows(5, 1.0), rows(5, -1.0), rows(5, 0.0)])
}

test "a BatchNorm in a branch inside a scan's step: only the steps that take it move the statistics" {
  let xs = [rows(5, 1.0), rows(5, -1.0), rows(5, 0.0), rows(4, 0.3)]
  let gm = check_inference(GatedSteps, xs)
  expect(" = cond(" in gm.ir() and " = scan(" in gm.ir(), gm.ir())
  check_training(GatedSteps, "sgd", [rows(5, 1.0), rows(5, -1.0), rows(5, 0.0)])
}

test "a BatchNorm in a while loop on a tensor condition, for several trip counts" {
  let xs = [randn([4, 3], dtype=f64) * 3.0, randn([4, 3], dtype=f64) * 0.1, randn([4, 3], dtype=f64)]
  let gm = check_inference(Settle, xs)
  expect(" = while_loop(" in gm.ir(), gm.ir())
  # (A training step's while_loop keeps the trip count it was captured with: trained
  # on inputs that all take 4 trips.)
  let big = [ones([4, 3], dtype=f64) * tensor([[3.0], [-3.0], [1.0], [-1.0]], dtype=f64) * (k + 1.0) for k in range(3)]
  check_training(Settle, "sgd", big)
}

test "optimized training graphs: the statistics' fresh copies stay apart (cse), licm runs past batch_norm's backward" {
  check_training(Gate, "sgd", batches, "default")
  check_training(Deep, "adam", batches, "default")
  for p in ["cse", "licm", "fuse"] { check_training(Deep, "sgd", batches[0:3], p) }
  check_training(GatedSteps, "sgd", [rows(5, 1.0), rows(5, -1.0), rows(5, 0.0)], "default")
  check_training(Recurrent, "adam", [rows(5, 1.0), rows(5, -1.0)], "default")
}

test "in eval mode the branch reads the running statistics and writes nothing" {
  let (a, b) = twins(Gate)
  for x in batches { a(x); b(x) }
  a.eval()
  b.eval()
  let gm = compile(a, batches[0], mode="script")
  expect(lowered(gm), gm.explain())
  expect("writes" not in gm.explain(), gm.explain())
  for x in batches {
    expect_close(gm(x), b(x), rtol=0, atol=0)
    same_buffers(a, b)
  }
}

test "compiling changes no buffer: the probe run that finds them puts them back" {
  let (a, b) = twins(GatedSteps)
  compile(a, rows(5, 1.0), mode="script")
  same_buffers(a, b)
  expect(a.bn.num_batches_tracked.item() == 0)
}

# momentum=none (Note [The cumulative average as tensor ops], stdlib/_nn_extra.dsl):
# the factor 1 / num_batches_tracked stays a tensor, so the layer compiles, at the top
# level and inside a branch, and each call uses the count of that call.
model Cumulative() {
  a = nn.Linear(3, 3, dtype=f64)
  bn = nn.BatchNorm1d(3, momentum=none, dtype=f64)
  forward(x) { return self.bn(self.a(x)).pow(2).mean() }
}

model CumulativeGate() {
  a = nn.Linear(3, 3, dtype=f64)
  bn = nn.BatchNorm1d(3, momentum=none, dtype=f64)
  forward(x) {
    let y = none
    if x.sum() > 0 { y = self.bn(self.a(x)) } else { y = self.a(x).tanh() }
    return y.pow(2).mean()
  }
}

test "BatchNorm(momentum=none) compiles: its running statistics are the cumulative average of the batches'" {
  let m = nn.BatchNorm1d(3, momentum=none, dtype=f64)
  let gm = compile(m, batches[0])
  let means = []
  for x in batches {
    gm(x)
    means.append(x.mean(0))
  }
  expect(m.num_batches_tracked.item() == len(batches))
  same(m.running_mean, stack(means).mean(0))
  check_inference(Cumulative, batches)
  check_training(Cumulative, "sgd", batches)
}

test "BatchNorm(momentum=none) on one side of a gate: the count moves only where the side ran" {
  let gm = check_inference(CumulativeGate, batches)
  expect("writes bn.num_batches_tracked, bn.running_mean, bn.running_var" in gm.explain(), gm.explain())
  check_training(CumulativeGate, "adam", batches)
  let (a, b) = twins(CumulativeGate)
  let go = compile(a, batches[0], mode="script")
  go.optimize("default")
  for x in batches {
    expect_close(go(x), b(x), rtol=0, atol=0)
    same_buffers(a, b)
  }
}

test "BatchNorm(momentum=none) in f32: compiled equals eager, bit for bit" {
  let m = nn.BatchNorm1d(3, momentum=none)
  let e = nn.BatchNorm1d(3, momentum=none)
  let gm = compile(m, batches[0].float())
  for x in batches {
    expect_close(gm(x.float()), e(x.float()), rtol=0, atol=0)
    expect_close(m.running_var, e.running_var, rtol=0, atol=0)
    expect_close(m.running_mean, e.running_mean, rtol=0, atol=0)
  }
}
