# Differential tests, round 8: compiled functions against eager in f64, each compiled
# once and called several times on inputs that take other paths or have other shapes.
# Here the first gap round 7 left: branches one after another in a loop's step, taken
# in different steps, the later one overwriting what the earlier one computed (Note
# [Reach along a loop's steps], graph/control_flow_step_reach.cpp: eager's .grad stays
# none for what the loss no longer depends on; the compiled step gave zeros, and an
# optimizer moved the parameter). The failing sides' messages and the raise nodes'
# errors, and the other programs: test_compile_differential8_programs.dsl and
# tests/lang/errors_compile_differential8.dsl.
import nn
import optim

fn same(a, b, msg="") { expect_close(a, b, rtol=1e-10, atol=1e-12, msg=msg) }

fn twins(M) {
  manual_seed(8)
  let a = M()
  let b = M()
  b.load_state_dict(a.state_dict())
  return a, b
}

fn same_params(a, b) {
  for (p, q) in zip(a.parameters(), b.parameters()) { same(p, q, msg="parameter") }
}

fn same_grads(a, b) {
  for (p, q) in zip(a.named_parameters(), b.named_parameters()) {
    expect((p[1].grad == none) == (q[1].grad == none), f"{p[0]}: compiled .grad {p[1].grad}, eager .grad {q[1].grad}")
    if p[1].grad != none and q[1].grad != none { same(p[1].grad, q[1].grad, msg="grad") }
  }
}

# .grad accumulated over calls (no zero_grad), then set to none between calls: both
# compared after each call.
fn grads_as_eager(M, xs) {
  for fresh in [false, true] {
    let (a, b) = twins(M)
    let gm = compile(fn(x) = a(x), xs[0], train=true, mode="script")
    for x in xs {
      if fresh {
        a.zero_grad(set_to_none=true)
        b.zero_grad(set_to_none=true)
      }
      let got = gm(x)
      let want = b(x)
      want.backward()
      same(got, want.detach(), msg="loss")
      same_grads(a, b)
    }
  }
}

# SGD with momentum and weight decay inside the graph, eager's outside.
fn steps_as_eager(M, xs) {
  let (a, b) = twins(M)
  let oa = optim.SGD(a.parameters(), lr=0.05, momentum=0.9, weight_decay=0.1)
  let ob = optim.SGD(b.parameters(), lr=0.05, momentum=0.9, weight_decay=0.1)
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

# ---- branches one after another in a step, taken in different steps ----------------------

# b where a row's sum is big, then c of the row itself where it is very negative: a
# later step taking c drops everything before it.
model ScanTwoGates() {
  a = nn.Linear(3, 3, dtype=f64)
  b = nn.Linear(3, 3, dtype=f64)
  c = nn.Linear(3, 3, dtype=f64)
  forward(x) {
    let h = self.a(x[0])
    for t in range(x.shape[0]) {
      if x[t].sum() > 5.0 { h = self.b(h) }
      if x[t].sum() < -5.0 { h = self.c(x[t]).tanh() }
    }
    return h.pow(2).mean()
  }
}

# The same in a while: the first if only at the first iteration, the second only at the second.
model WhileTwoGates() {
  a = nn.Linear(3, 3, dtype=f64)
  b = nn.Linear(3, 3, dtype=f64)
  c = nn.Linear(3, 3, dtype=f64)
  forward(x) {
    let h = self.a(x[0])
    let i = zeros([], dtype=f64)
    while i < 2.0 {
      if x.sum() * (1.0 - i) > 1.0 { h = self.b(h) }
      if x[1].sum() * i > 1.0 { h = self.c(x[1]).tanh() }
      i = i + 1.0
    }
    return h.pow(2).mean()
  }
}

# The gates in a scan nested in a scan's step.
model NestedTwoGates() {
  a = nn.Linear(3, 3, dtype=f64)
  b = nn.Linear(3, 3, dtype=f64)
  c = nn.Linear(3, 3, dtype=f64)
  forward(x) {
    let h = self.a(x[0])
    for s in range(2) {
      for t in range(x.shape[0]) {
        if x[t].sum() > 5.0 { h = self.b(h) }
        if x[t].sum() < -5.0 and s == 1 { h = self.c(x[t]).tanh() }
      }
    }
    return h.pow(2).mean()
  }
}

# An early break after the row that overwrites h; the statements after it in a cond.
model BreakAfterReset() {
  a = nn.Linear(3, 3, dtype=f64)
  b = nn.Linear(3, 3, dtype=f64)
  c = nn.Linear(3, 3, dtype=f64)
  forward(x) {
    let h = self.a(x[0])
    for t in range(x.shape[0]) {
      h = self.b(h).tanh()
      if x[t].sum() < -5.0 {
        h = self.c(x[t])
        break
      }
    }
    return h.pow(2).mean()
  }
}

# A break before the only use of b: a break at the first row leaves b unreached.
model BreakBeforeUse() {
  a = nn.Linear(3, 3, dtype=f64)
  b = nn.Linear(3, 3, dtype=f64)
  forward(x) {
    let h = self.a(x[0])
    for t in range(x.shape[0]) {
      if x[t].sum() < -5.0 { break }
      h = self.b(h).tanh()
    }
    return h.pow(2).mean()
  }
}

# The gates in a scan on one side of a cond, and in a scan inside a while's step.
model SidedTwoGates() {
  a = nn.Linear(3, 3, dtype=f64)
  b = nn.Linear(3, 3, dtype=f64)
  c = nn.Linear(3, 3, dtype=f64)
  forward(x) {
    let h = self.a(x[0])
    if x.sum() > -100.0 {
      for t in range(x.shape[0]) {
        if x[t].sum() > 5.0 { h = self.b(h) }
        if x[t].sum() < -5.0 { h = self.c(x[t]).tanh() }
      }
    } else {
      h = h * 2.0
    }
    return h.pow(2).mean()
  }
}

model ScanInWhileGates() {
  a = nn.Linear(3, 3, dtype=f64)
  b = nn.Linear(3, 3, dtype=f64)
  c = nn.Linear(3, 3, dtype=f64)
  forward(x) {
    let h = self.a(x[0])
    let k = zeros([], dtype=f64)
    while k < 2.0 {
      for t in range(x.shape[0]) {
        if x[t].sum() * (1.0 - k) > 5.0 { h = self.b(h) }
        if x[t].sum() * k < -5.0 { h = self.c(x[t]).tanh() }
      }
      k = k + 1.0
    }
    return h.pow(2).mean()
  }
}

# A while with a break after the reset; the trip count the same at every call.
model WhileBreakGates() {
  a = nn.Linear(3, 3, dtype=f64)
  b = nn.Linear(3, 3, dtype=f64)
  c = nn.Linear(3, 3, dtype=f64)
  forward(x) {
    let h = self.a(x[0])
    let i = zeros([], dtype=f64)
    while i < 2.0 {
      if x[1].sum() * (1.0 - i) > 1.0 { h = self.b(h) }
      if x[2].sum() * i < -1.0 {
        h = self.c(x[2]).tanh()
        break
      }
      i = i + 1.0
    }
    return h.pow(2).mean()
  }
}

fn rows(values) {
  let x = ones([len(values), 3], dtype=f64)
  for (i, v) in enumerate(values) { x[i] = x[i] * v }
  return x
}

let paths = [rows([2.0, -2.0, 0.5]), rows([0.5, 0.5, 0.5]), rows([-2.0, 2.0, 2.0]), rows([2.0, 2.0, 2.0]),
             rows([0.5, 2.0, -2.0]), rows([-3.0, -3.0, 0.1])]
let two_gate_models = [ScanTwoGates, WhileTwoGates, NestedTwoGates, BreakAfterReset, BreakBeforeUse, SidedTwoGates,
                       ScanInWhileGates, WhileBreakGates]

test "two gates in a step taken in different steps, the later overwriting h: .grad none as eager (it was zeros)" {
  for M in two_gate_models { grads_as_eager(M, paths) }
}

test "the same gates with SGD's momentum and weight decay inside the graph: an unreached parameter is not moved" {
  for M in two_gate_models { steps_as_eager(M, paths) }
}

test "the first-step reset alone: a's and b's .grad stay none after a compiled call" {
  let (a, b) = twins(ScanTwoGates)
  let x = rows([2.0, -2.0])
  let gm = compile(fn(x) = a(x), x, train=true, mode="script")
  gm(x)
  b(x).backward()
  for m in [a, b] {
    expect(m.a.weight.grad == none and m.b.weight.grad == none, f"a: {m.a.weight.grad}, b: {m.b.weight.grad}")
    expect(m.c.weight.grad != none)
  }
}

# Two carries, four gates resetting or mixing them, random rows: the chain of steps
# (log2(steps) rounds of composed maps) at lengths that are not powers of two. The loss
# reads h alone: g's output reaches the loss only where a later step adds it to h
# (the chain reads which of the loop's outputs the loss reaches; d got zeros before).
model FourGates() {
  a = nn.Linear(3, 3, dtype=f64)
  b = nn.Linear(3, 3, dtype=f64)
  c = nn.Linear(3, 3, dtype=f64)
  d = nn.Linear(3, 3, dtype=f64)
  forward(x) {
    let h = self.a(x[0])
    let g = self.d(x[0])
    for t in range(x.shape[0]) {
      if x[t, 0] > 1.0 { h = self.b(h).tanh() }
      if x[t, 1] < -1.0 { g = self.c(x[t]).tanh() }
      if x[t, 2] > 1.5 { h = h + g * 0.1 }
      if x[t, 2] < -1.5 { h = x[t] * 0.5 }
    }
    return h.pow(2).mean()
  }
}

# A loss that needs no gradient (every row resets h to a row's values) cannot call
# backward() in eager: such batches are skipped.
fn reaches_a_weight(x) {
  let live = true  # whether h depends on a weight: b and the mix add one, a reset drops them
  for t in range(x.shape[0]) {
    if x[t, 0].item() > 1.0 or x[t, 2].item() > 1.5 { live = true }
    if x[t, 2].item() < -1.5 { live = false }
  }
  return live
}

test "four gates over two carries, random rows at lengths 1, 6 and 11: .grad none exactly where eager's is" {
  manual_seed(12)
  for steps in [1, 6, 11] {
    let batches = [randn([steps, 3], dtype=f64) * 2.0 for k in range(8)]
    grads_as_eager(FourGates, [x for x in batches if reaches_a_weight(x)])
  }
}
