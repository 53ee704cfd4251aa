# Writes into a model's fields inside a lowered loop or branch (Note [Fields written
# inside a lowered loop], interp/eval/script/field_writes.cpp): self.buf[t] = h,
# self.buf[:, t] = h, self.state.add_(h) lower instead of unrolling, the field's tensor
# carried (or its rows stacked), and the live buffer written after the node as eager
# writes it. Each compiled model against an eager twin in f64: outputs, buffers and
# gradients, for several inputs and trip counts.
import nn
import optim

fn lowered(gm) = "unrolled" not in gm.explain()

fn twins(make) {
  manual_seed(11)
  let a = make()
  let b = make()
  b.load_state_dict(a.state_dict())
  return a, b
}

model Recorder(n) {
  cell = nn.Linear(3, 3).double()
  buf = zeros([n, 2, 3], dtype=f64)
  forward(x) {
    let h = zeros([2, 3], dtype=f64)
    for t in range(x.shape[0]) {
      h = tanh(self.cell(x[t]) + h)
      self.buf[t] = h
    }
    return h * 2.0
  }
}

test "self.buf[t] = h in a for over a range is a stacked output: the loop lowers, the buffer equals eager's" {
  let (a, b) = twins(fn() = Recorder(6))
  let gm = compile(a, randn([6, 2, 3], dtype=f64), mode="script")
  expect(lowered(gm), gm.explain())
  expect("rows written: self.buf" in gm.explain(), gm.explain())
  for n in [6, 6, 4, 2] {
    let x = randn([n, 2, 3], dtype=f64)
    expect_close(gm(x), b(x), rtol=0, atol=0)
    expect_close(a.buf, b.buf, rtol=0, atol=0)
  }
}

model Columns() {
  buf = zeros([2, 6], dtype=f64)
  state = zeros([2], dtype=f64)
  forward(x) {
    let h = zeros([2], dtype=f64)
    for t in range(x.shape[0]) {
      h = tanh(x[t] + h * 0.5 + self.buf[:, t])
      self.buf[:, t] = h
      self.state.add_(h)
      self.state.mul_(0.9)
    }
    return h + self.state
  }
}

test "self.buf[:, t] = h read in the step, and self.state.add_(h): both carried, buffers equal eager's across calls" {
  let (a, b) = twins(Columns)
  let gm = compile(a, randn([5, 2], dtype=f64), mode="script")
  expect(lowered(gm), gm.explain())
  expect("carries: h, self.buf, self.state" in gm.explain(), gm.explain())
  for n in [5, 5, 3, 6] {
    let x = randn([n, 2], dtype=f64)
    expect_close(gm(x), b(x), rtol=0, atol=0)
    expect_close(a.buf, b.buf, rtol=0, atol=0)
    expect_close(a.state, b.state, rtol=0, atol=0)
  }
}

model Gated() {
  buf = zeros([5, 3], dtype=f64)
  hits = zeros([], dtype=f64)
  forward(x) {
    for t in range(x.shape[0]) {
      if x[t].sum() > 0 {
        self.buf[t] = x[t]
        self.hits.add_(1.0)
      } else {
        self.buf[t].mul_(0.5)
      }
    }
    return self.buf.sum()
  }
}

test "fields written inside a cond inside a scan, on either side" {
  let (a, b) = twins(Gated)
  let gm = compile(a, randn([5, 3], dtype=f64), mode="script")
  expect(lowered(gm), gm.explain())
  expect(" = cond(" in gm.ir() and " = scan(" in gm.ir(), gm.ir())
  for k in range(4) {
    let x = randn([5, 3], dtype=f64)
    expect_close(gm(x), b(x), rtol=0, atol=0)
    expect_close(a.buf, b.buf, rtol=0, atol=0)
    expect_close(a.hits, b.hits, rtol=0, atol=0)
  }
}

model Halving() {
  count = zeros([], dtype=f64)
  hist = zeros([8], dtype=f64)
  forward(x) {
    let k = 0
    while x.abs().sum() > 0.1 {
      self.count.add_(1.0)
      self.hist[k] = x.sum()
      x = x * 0.5
      k = k + 1
    }
    return x
  }
}

test "fields written in a while on a tensor condition, for any trip count" {
  let (a, b) = twins(Halving)
  let gm = compile(a, tensor([1.0, 2.0], dtype=f64), mode="script")
  expect(" = while_loop(" in gm.ir(), gm.ir())
  expect("self.count, self.hist" in gm.explain(), gm.explain())
  for x in [tensor([1.0, 2.0], dtype=f64), tensor([0.05, 0.01], dtype=f64), tensor([-3.0, 0.3], dtype=f64)] {
    expect_close(gm(x), b(x), rtol=0, atol=0)
    expect_close(a.count, b.count, rtol=0, atol=0)
    expect_close(a.hist, b.hist, rtol=0, atol=0)
  }
}

model Traced() {
  cell = nn.Linear(3, 3).double()
  buf = zeros([4, 3], dtype=f64)
  forward(x) {
    let h = zeros([3], dtype=f64)
    for t in range(x.shape[0]) {
      h = tanh(self.cell(x[t]) + h)
      self.buf[t] = h
    }
    return (self.buf * self.buf).sum() + h.sum()
  }
}

test "a loss read from a buffer the loop wrote: loss and gradients equal eager's (fresh twins per call)" {
  for k in range(3) {
    let (a, b) = twins(Traced)
    let x = randn([4, 3], dtype=f64)
    let gm = compile(a, x, train=true, mode="script")
    expect(lowered(gm), gm.explain())
    let la = gm(x)
    let lb = b(x)
    lb.backward()
    expect_close(la, lb.detach(), rtol=1e-12, atol=1e-12)
    expect_close(a.cell.weight.grad, b.cell.weight.grad, rtol=1e-10, atol=1e-12)
    expect_close(a.cell.bias.grad, b.cell.bias.grad, rtol=1e-10, atol=1e-12)
    expect_close(a.buf.detach(), b.buf.detach(), rtol=0, atol=1e-14)
  }
}

model Logged() {
  cell = nn.Linear(3, 3).double()
  states = zeros([5, 3], dtype=f64)
  steps = zeros([], dtype=f64)
  forward(x) {
    let h = zeros([3], dtype=f64)
    for t in range(x.shape[0]) {
      h = tanh(self.cell(x[t]) + h)
      self.states[t] = h.detach()
      self.steps.add_(1.0)
    }
    return (h * h).sum()
  }
}

test "a training step that logs its states into buffers: parameters and buffers equal eager's after steps" {
  let (a, b) = twins(Logged)
  let oa = optim.SGD(a.parameters(), lr=0.2)
  let ob = optim.SGD(b.parameters(), lr=0.2)
  let gm = compile(a, randn([5, 3], dtype=f64), train=true, mode="script")
  expect(lowered(gm), gm.explain())
  for k in range(3) {
    let x = randn([5, 3], dtype=f64)
    oa.zero_grad()
    ob.zero_grad()
    let la = gm(x)
    let lb = b(x)
    lb.backward()
    expect_close(la, lb.detach(), rtol=1e-12, atol=1e-12)
    oa.step()
    ob.step()
    expect_close(a.states, b.states, rtol=1e-12, atol=1e-12)
    expect_close(a.steps, b.steps, rtol=0, atol=0)
  }
  expect_close(a.cell.weight, b.cell.weight, rtol=1e-10, atol=1e-12)
  expect_close(a.cell.bias, b.cell.bias, rtol=1e-10, atol=1e-12)
}

model Written() {
  w = nn.Parameter(zeros([4, 3], dtype=f64))
  forward(x) {
    for t in range(x.shape[0]) {
      self.w[t] = x[t]
    }
    return self.w.sum()
  }
}

model WrittenQuietly() {
  w = nn.Parameter(zeros([4, 3], dtype=f64))
  forward(x) {
    for t in range(x.shape[0]) {
      no_grad {
        self.w[t] = x[t] * 2.0
      }
    }
    return (self.w * x).sum()
  }
}

test "a parameter that requires grad written in the loop: eager's error outside no_grad, eager's result inside" {
  expect_error(fn() = Written()(randn([4, 3], dtype=f64)), "a leaf tensor that requires grad cannot be modified in place")
  expect_error(fn() = compile(Written(), randn([4, 3], dtype=f64), mode="script"),
               "a leaf tensor that requires grad cannot be modified in place")
  let (a, b) = twins(WrittenQuietly)
  let gm = compile(a, randn([4, 3], dtype=f64), mode="script")
  expect(lowered(gm), gm.explain())
  for k in range(2) {
    let x = randn([4, 3], dtype=f64)
    expect_close(gm(x), b(x).detach(), rtol=0, atol=0)
    expect_close(a.w.detach(), b.w.detach(), rtol=0, atol=0)
    expect(a.w.is_leaf and a.w.requires_grad, "still a leaf parameter")
  }
}

model Copied() {
  cell = nn.Linear(3, 3).double()
  buf = zeros([5, 3], dtype=f64)
  forward(x) {
    let h = zeros([3], dtype=f64)
    let out = zeros([5, 3], dtype=f64)
    for t in range(x.shape[0]) {
      h = tanh(self.cell(x[t]) + h)
      self.buf[t].copy_(h.detach() * 2.0)
      out[t].copy_(x[t])
      self.buf[t].add_(out[t])
    }
    return (h * h).sum()
  }
}

model CopiedWithGrad() {
  buf = zeros([5, 3], dtype=f64)
  forward(x) {
    for t in range(x.shape[0]) {
      self.buf[t].copy_(x[t] * 2.0)
    }
    return self.buf.sum()
  }
}

test "self.buf[t].copy_(h) and out[t].copy_(h), out[t].add_(v) write through the step's row: values and gradients" {
  for k in range(2) {
    let (a, b) = twins(Copied)
    let x = randn([5, 3], dtype=f64)
    let gm = compile(a, x, train=true, mode="script")
    expect(lowered(gm), gm.explain())
    let la = gm(x)
    let lb = b(x)
    lb.backward()
    expect_close(la, lb.detach(), rtol=1e-12, atol=1e-12)
    expect_close(a.cell.weight.grad, b.cell.weight.grad, rtol=1e-10, atol=1e-12)
    expect_close(a.buf, b.buf, rtol=0, atol=1e-14)
  }
  let (c, d) = twins(CopiedWithGrad)
  let y = randn([5, 3], dtype=f64)
  let gc = compile(c, y, mode="script")
  expect(lowered(gc), gc.explain())
  for n in [5, 3] {
    let z = randn([n, 3], dtype=f64)
    expect_close(gc(z), d(z), rtol=0, atol=0)
    expect_close(c.buf, d.buf, rtol=0, atol=0)
  }
}

model IntoParam() {
  w = nn.Parameter(zeros([3, 2], dtype=f64))
  forward(x) {
    for t in range(3) {
      self.w[t].copy_(x[t] * 2.0)
    }
    return self.w.sum()
  }
}

test "a write through self.w[t] of a parameter that requires grad: eager's error, compiled or not" {
  let x = randn([3, 2], dtype=f64)
  expect_error(fn() = IntoParam()(x), "in-place writes into a view of a tensor that requires grad")
  expect_error(fn() = compile(IntoParam(), x, mode="script"), "in-place writes into a view of a tensor that requires grad")
}

model Breaks() {
  buf = zeros([6, 2], dtype=f64)
  forward(x) {
    for t in range(x.shape[0]) {
      self.buf[t] = x[t]
      if x[t].sum() > 1.0 {
        break
      }
      self.buf[t].mul_(2.0)
    }
    return self.buf.sum()
  }
}

test "a field written in a scan that may break: the break's cond carries it too" {
  let (a, b) = twins(Breaks)
  let gm = compile(a, randn([6, 2], dtype=f64), mode="script")
  expect(lowered(gm), gm.explain())
  expect("a break sets (break)" in gm.explain(), gm.explain())
  for k in range(4) {
    let x = randn([6, 2], dtype=f64)
    expect_close(gm(x), b(x), rtol=0, atol=0)
    expect_close(a.buf, b.buf, rtol=0, atol=0)
  }
}
