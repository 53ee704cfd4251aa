# Writes in place into a variable's tensor inside a lowered loop or branch (Note
# [Variables written in place inside a lowered region], interp/eval/script/regions.cpp)
# and assignment through a step's index (Note [An index a graph replays],
# interp/values/advanced_indexing.cpp): each compiled function against eager in f64,
# values and gradients, on inputs that take each path.
import nn

fn grads_match(params, got, want_fn) {
  let gg = [zeros_like(p) if p.grad == none else p.grad.clone() for p in params]
  for p in params { p.grad = none }
  let want = want_fn()
  want.backward()
  expect_close(got, want.detach(), rtol=1e-12, atol=1e-12)
  let k = 0
  for p in params {
    expect_close(gg[k], zeros_like(p) if p.grad == none else p.grad, rtol=1e-10, atol=1e-12)
    p.grad = none
    k = k + 1
  }
}

fn columns(x) {
  let out = zeros([2, 4], dtype=f64)
  for i in range(4) {
    out[:, i] = x * i + out[:, i - 1]
  }
  return out
}

test "out[:, i] = h in a for over a range lowers to one scan and equals eager" {
  let gm = compile(columns, ones([2], dtype=f64), mode="script")
  expect(" = scan(" in gm.ir(), gm.ir())
  expect("carries: out" in gm.explain(), gm.explain())
  for s in [1.0, -2.5, 0.0] {
    let x = tensor([s, 2.0 * s + 1.0], dtype=f64)
    expect_close(gm(x), columns(x), rtol=0, atol=0)
  }
}

fn history(x) {
  let hist = zeros([6], dtype=f64)
  let k = 0
  while x.abs().sum() > 0.1 {
    hist[k] = x.sum()
    x = x * 0.5
    k = k + 1
  }
  return hist, k
}

test "hist[k] = v in a while on a tensor condition, k a counter, for any trip count" {
  let gm = compile(history, tensor([1.0, 2.0], dtype=f64), mode="script")
  expect(" = while_loop(" in gm.ir(), gm.ir())
  for x in [tensor([1.0, 2.0], dtype=f64), tensor([0.05, 0.01], dtype=f64), tensor([-0.5, 0.3], dtype=f64)] {
    let (a, ka) = gm(x)
    let (b, kb) = history(x)
    expect_close(a, b, rtol=0, atol=0)
    expect(int(ka) == kb, f"{ka} {kb}")
  }
}

fn accumulate(x) {
  let acc = zeros([3], dtype=f64)
  for row in x {
    acc.add_(row * row)
    acc.mul_(0.5)
  }
  return acc
}

test "in-place methods on an outside tensor inside a scan over rows" {
  let x = randn([5, 3], dtype=f64)
  let gm = compile(accumulate, x, mode="script")
  expect(" = scan(" in gm.ir(), gm.ir())
  for k in range(3) {
    let y = randn([5, 3], dtype=f64)
    expect_close(gm(y), accumulate(y), rtol=0, atol=0)
  }
}

fn gated(x) {
  let y = x * 2.0
  let view = y[1:3]
  if x.sum() > 0 {
    y[0] = 7.0
    view.mul_(10.0)
  }
  return y, view + 1.0
}

test "writes in place inside a lowered if: the variable and a view made before it see them" {
  let gm = compile(gated, ones([4], dtype=f64), mode="script")
  expect(" = cond(" in gm.ir(), gm.ir())
  for x in [ones([4], dtype=f64), -ones([4], dtype=f64), tensor([1.0, -3.0, 2.0, 0.5], dtype=f64)] {
    let (a, b) = gm(x)
    let (c, d) = gated(x)
    expect_close(a, c, rtol=0, atol=0)
    expect_close(b, d, rtol=0, atol=0)
  }
}

fn signed_rows(x) {
  let out = zeros_like(x)
  for i in range(x.shape[0]) {
    let r = x[i]
    if r.sum() > 0 {
      out[i] = r
    } else {
      out[i] = -r * 0.5
    }
  }
  return out
}

test "a cond inside a scan writes a row of an outside tensor on either side" {
  let x = randn([6, 3], dtype=f64)
  let gm = compile(signed_rows, x, mode="script")
  expect(" = scan(" in gm.ir() and " = cond(" in gm.ir(), gm.ir())
  for k in range(3) {
    let y = randn([6, 3], dtype=f64)
    expect_close(gm(y), signed_rows(y), rtol=0, atol=0)
  }
}

model Unrolled() {
  cell = nn.Linear(3, 3).double()
  forward(x) {
    # x: [T, B, 3]; the outputs written step by step into one tensor, as an RNN does
    let out = zeros([x.shape[0], x.shape[1], 3], dtype=f64)
    let h = zeros([x.shape[1], 3], dtype=f64)
    for t in range(x.shape[0]) {
      h = tanh(self.cell(h) + x[t])
      out[t] = h
    }
    return (out * out).sum() + out[:, 0].sum()
  }
}

test "an RNN writing each step's output into a tensor trains as eager: loss and gradients" {
  manual_seed(5)
  let m = Unrolled()
  let gm = compile(m, randn([7, 2, 3], dtype=f64), train=true, mode="script")
  expect(" = scan(" in gm.ir(), gm.ir())
  for k in range(3) {
    let x = randn([7, 2, 3], dtype=f64)
    m.zero_grad()
    grads_match(m.parameters(), gm(x), fn() = m(x))
  }
}

fn into_arg(x, out) {
  for i in range(3) {
    out[i] = x * i
  }
  return out.sum()
}

test "a lowered loop writing into the caller's argument is refused, as at the top level" {
  expect_error(fn() = compile(into_arg, ones([2], dtype=f64), zeros([3, 2], dtype=f64), mode="script"),
               "writes into the argument")
}

fn write_then_assign(x) {
  let y = zeros([2], dtype=f64)
  while x.sum() > 0.5 {
    y[0] = x.sum()
    y = y * 2.0
    x = x * 0.5
  }
  return y
}

test "a variable written in place and then assigned in a lowered while is a clear error" {
  expect_error(fn() = compile(write_then_assign, ones([2], dtype=f64), mode="script"),
               "writes into variable 'y' in place or assigns it, but its body does both")
}

fn by_index(x, i) {
  let y = x * 1.0
  y[i] = -1.0
  return y
}

test "assignment through a 0-dim index tensor replays other indices, with gradients" {
  let x = randn([4], dtype=f64)
  let gm = compile(by_index, x, tensor(1))
  for j in [0, 3, -1] {
    expect_close(gm(x, tensor(j)), by_index(x, tensor(j)), rtol=0, atol=0)
  }
  let xs = randn([4], dtype=f64, requires_grad=true)
  let g1 = grad((gm(xs, tensor(2)) * tensor([1.0, 2.0, 3.0, 4.0], dtype=f64)).sum(), xs)
  let g2 = grad((by_index(xs, tensor(2)) * tensor([1.0, 2.0, 3.0, 4.0], dtype=f64)).sum(), xs)
  expect_close(g1, g2, rtol=0, atol=0)
}

# ---- Note [A write into part of a parameter] (graph/capture_writes.cpp) ---------------

model Ring() {
  buf = zeros([4], dtype=f64)
  forward(x) {
    let tail = self.buf[1:3]
    self.buf[0] = x.sum()
    self.buf[1:3].mul_(0.5)
    tail.add_(x[0])
    return tail * 2.0 + self.buf[0]
  }
}

test "writes into part of a buffer in a compiled forward happen at every call, views see them" {
  let a = Ring()
  let b = Ring()
  let gm = compile(a, ones([2], dtype=f64))
  for k in range(4) {
    let x = tensor([k + 1.0, -0.5 * k], dtype=f64)
    expect_close(gm(x), b(x), rtol=0, atol=0)
    expect_close(a.buf, b.buf, rtol=0, atol=0)
  }
  expect("capture 2" not in gm.explain(), gm.explain())
}

model Slots() {
  slots = zeros([5], dtype=f64)
  forward(x) {
    let s = self.slots
    for i in range(5) {
      s[i] = s[i] * 0.5 + (x * i).sum()
    }
    return s.sum()
  }
}

test "a buffer held by a variable and written a slot per step of a scan: the scan carries it, the buffer is written" {
  let a = Slots()
  let b = Slots()
  let gm = compile(a, ones([3], dtype=f64), mode="script")
  expect(" = scan(" in gm.ir(), gm.ir())
  for k in range(3) {
    let x = randn([3], dtype=f64)
    expect_close(gm(x), b(x), rtol=0, atol=0)
    expect_close(a.slots, b.slots, rtol=0, atol=0)
  }
}

let kept = zeros([4], dtype=f64)
fn keeps(x) {
  kept[0] = x.sum()
  kept[1:].add_(x[0])
  return kept * 2.0
}

test "writes into part of a tensor the function closes over: at every call, as eager's" {
  let gm = compile(keeps, ones([2], dtype=f64))
  let shadow = zeros([4], dtype=f64)
  for k in range(3) {
    let x = tensor([k * 1.0, 2.0], dtype=f64)
    shadow[0] = x.sum()
    shadow[1:].add_(x[0])
    expect_close(gm(x), shadow * 2.0, rtol=0, atol=0)
    expect_close(kept, shadow, rtol=0, atol=0)
  }
}

# ---- Note [Rows written at a step's index] (interp/eval/script/row_writes.cpp) ---------

fn rows_rnn(x, w) {
  let out = zeros([x.shape[0], x.shape[1], 3], dtype=f64)
  let h = zeros([x.shape[1], 3], dtype=f64)
  for t in range(x.shape[0]) {
    h = tanh(h @ w + x[t])
    out[t] = h
  }
  return out
}

test "out[t] = h in a scan is a stacked output, not a carried out: values and gradients equal eager's" {
  let x = randn([6, 2, 3], dtype=f64)
  let w = randn([3, 3], dtype=f64)
  let gm = compile(rows_rnn, x, w, mode="script")
  expect("rows written: out" in gm.explain(), gm.explain())
  expect("carries: h;" in gm.explain(), gm.explain())
  for k in range(2) {
    let y = randn([6, 2, 3], dtype=f64)
    expect_close(gm(y, w), rows_rnn(y, w), rtol=0, atol=0)
  }
  let wg = w.clone().requires_grad_()
  let got = grad((gm(x, wg) * x).sum(), wg)
  let want = grad((rows_rnn(x, wg) * x).sum(), wg)
  expect_close(got, want, rtol=1e-12, atol=1e-12)
}

fn rows_mixed(x) {
  let a = ones([3, 5], dtype=f64) * 7.0
  let b = zeros([2, 4, 5], dtype=f64)
  let c = zeros([5, 5])
  for t in range(4, 0, -2) {
    a[:, t] = x[t] * 2.0
    b[..., t] = x[t] + 1.0
    c[t] = 1.5
  }
  for t in range(-3, 0) {
    c[t] = x[t].float()
  }
  return a, b, c
}

test "rows at a middle dim, after an ellipsis, a number, another dtype, and ranges stepping down or from the end" {
  let x = randn([5], dtype=f64)
  let gm = compile(rows_mixed, x, mode="script")
  expect("rows written: a, b, c" in gm.explain(), gm.explain())
  for k in range(2) {
    let y = randn([5], dtype=f64)
    let (g1, g2, g3) = gm(y)
    let (e1, e2, e3) = rows_mixed(y)
    expect_close(g1, e1, rtol=0, atol=0)
    expect_close(g2, e2, rtol=0, atol=0)
    expect_close(g3, e3, rtol=0, atol=0)
  }
}

fn rows_read_back(x) {
  let out = zeros([5, 2], dtype=f64)
  let first = out[0]
  for t in range(1, 5) {
    out[t] = x[t] + first * 0.5
    first.add_(1.0)
  }
  let hist = zeros([5], dtype=f64)
  for t in range(5) {
    hist[t] = hist.sum() + x[t].sum()
  }
  return out, hist
}

test "a step that reads the tensor it writes rows of (itself or a view) carries it, and equals eager" {
  let x = randn([5, 2], dtype=f64)
  let gm = compile(rows_read_back, x, mode="script")
  expect("rows written" not in gm.explain(), gm.explain())
  for k in range(2) {
    let y = randn([5, 2], dtype=f64)
    let (a, b) = gm(y)
    let (c, d) = rows_read_back(y)
    expect_close(a, c, rtol=0, atol=0)
    expect_close(b, d, rtol=0, atol=0)
  }
}

fn rows_into_arg(x, out) {
  for t in range(3) {
    out[t] = x * t
  }
  return out.sum()
}

test "rows written into the caller's argument are refused, as any write into it" {
  expect_error(fn() = compile(rows_into_arg, ones([2], dtype=f64), zeros([3, 2], dtype=f64), mode="script"),
               "writes into the argument")
}

test "the rows a scan stacked are written back with the positions read once, not sorted at every call" {
  # out[t] = h's rows go into out after the loop at positions that are the same at every
  # call: read on the host at capture (a copy when they cover out in order), not the
  # sort and scatters an index the graph replays takes (which made this 5x slower)
  fn rows(x) {
    let out = zeros([4, 3], dtype=f64)
    let h = zeros([3], dtype=f64)
    for t in range(4) {
      h = tanh(h + x[t])
      out[t] = h
    }
    return out
  }
  let x = randn([4, 3], dtype=f64)
  let gm = compile(rows, x, mode="script")
  expect(not ("sort(" in gm.ir()) and not ("scatter_add(" in gm.ir()), gm.ir())
  for k in range(3) {
    let y = randn([4, 3], dtype=f64)
    expect_close(gm(y), rows(y), rtol=1e-12, atol=1e-12)
  }
}
