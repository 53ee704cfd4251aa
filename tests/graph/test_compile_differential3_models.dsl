# Differential tests, round 3 (continued from test_compile_differential3.dsl): models,
# training steps with optimizers, running statistics, indices that are tensors and
# numbers read from tensor arguments, each compiled once and compared with eager in
# f64 over several calls.
import nn
import optim

fn same(a, b) { expect_close(a, b, rtol=1e-10, atol=1e-12) }
fn params_same(m, e) {
  let pe = e.parameters()
  let k = 0
  for p in m.parameters() {
    same(p, pe[k])
    k = k + 1
  }
}

# ---- Note [Numbers read from tensor arguments] (interp/builtins/builtins_args.cpp) ----

fn by_select(x) {
  let s = zeros([2], dtype=f64)
  for i in range(3) { s = s + x.select(0, i) * (i + 1) }
  return s
}
fn by_narrow(x) {
  let s = zeros([1, 2], dtype=f64)
  for i in range(3) { s = s + x.narrow(0, i, 1) }
  return s
}
fn by_roll(x) {
  let s = zeros([2], dtype=f64)
  for i in range(3) { s = s + x.roll(i, 0)[0] }
  return s
}
fn out_select(x) {
  let out = zeros([3, 2], dtype=f64)
  for i in range(3) { out.select(0, i).copy_(x * (i + 1)) }
  return out
}

test "select, narrow, roll and select().copy_ with the step's i: each step's own, not the first's" {
  for f in [by_select, by_narrow, by_roll, out_select] {
    let gm = compile(f, randn([3, 2], dtype=f64) if f != out_select else randn([2], dtype=f64), mode="script")
    for k in range(3) {
      let x = randn([3, 2], dtype=f64) if f != out_select else randn([2], dtype=f64)
      same(gm(x), f(x))
    }
  }
}

fn narrow_arg(x, k) = x.narrow(0, 0, k).sum()
fn narrow_start(x, k) = x.narrow(0, k, 2).sum()

test "a tensor argument read as an int at the top level is a capture error, not a baked constant" {
  expect_error(fn() = compile(narrow_arg, randn([4], dtype=f64), tensor(1)), "narrow")
  expect_error(fn() = compile(narrow_arg, randn([4], dtype=f64), tensor(1)), "cannot replay")
  # a start with a fixed length replays (Note [A window a graph replays])
  let x = randn([4], dtype=f64)
  let gm = compile(narrow_start, x, tensor(1))
  for k in [0, 2, -2] {
    same(gm(x, tensor(k)), narrow_start(x, tensor(k)))
  }
  expect_error(fn() = gm(x, tensor(3)), "out of bounds")
}

# ---- Note [A view taken with a tensor index] (graph/capture_writes.cpp) ---------------

fn chained(x, i, j) {
  let y = x.clone()
  y[i][1:3] = 100.0
  return y
}
fn chained_through(x, i, j) {
  let y = x.clone()
  y[i][j] = 100.0
  y[j - 1].add_(y[i] * 2.0)
  return y
}
fn stale(x, i) {
  let y = x.clone()
  let r = y[i]
  y[i] = 0.0
  return r.sum()
}
fn indexed(x, i, j) {
  let y = x.clone()
  let before = y[i].sum()
  y[i, j] = 100.0
  y[i, j - 1] += 1.0
  return y, before
}

test "x[i][1:3] = v and a stale x[i] with tensor indices are refused; x[i, j] = v and x[i][j] = v replay" {
  let x = randn([3, 4], dtype=f64)
  expect_error(fn() = compile(chained, x, tensor(1), tensor(2)), "taken with a tensor index")
  # Note [A write through a view taken with a tensor index]: a write covering all of x[i] reaches x
  let gt = compile(chained_through, x, tensor(1), tensor(2))
  for (i, j) in [(0, 0), (2, 3), (-1, -2), (1, 1)] {
    same(gt(x, tensor(i), tensor(j)), chained_through(x, tensor(i), tensor(j)))
  }
  expect_error(fn() = compile(stale, x, tensor(1)), "is read after a write into that tensor")
  let gm = compile(indexed, x, tensor(1), tensor(2))
  for (i, j) in [(0, 0), (2, 3), (-1, -2), (1, 1)] {
    let (a, b) = gm(x, tensor(i), tensor(j))
    let (c, d) = indexed(x, tensor(i), tensor(j))
    same(a, c)
    same(b, d)
  }
}

# ---- in-place chains on variables inside lowered branches and loops -------------------

model Stats() {
  running = zeros([3], dtype=f64)
  forward(x) {
    let r = self.running
    if x.sum() > 0 {
      r.mul_(0.9).add_(x.mean(0) * 0.1)
    }
    return x - r
  }
}

test "r.mul_(m).add_(v) on a buffer held by a variable, in a lowered if: the buffer as eager's" {
  let a = Stats()
  let e = Stats()
  let gm = compile(a, randn([4, 3], dtype=f64), mode="script")
  expect(" = cond(" in gm.ir(), gm.ir())
  for k in range(4) {
    let x = randn([4, 3], dtype=f64) + (1.0 if k % 2 == 0 else -1.0)
    same(gm(x), e(x))
    same(a.running, e.running)
  }
}

model Run() {
  running = zeros([3], dtype=f64)
  steps = zeros([], dtype=i64)
  forward(xs) {
    let r = self.running
    let n = self.steps
    let h = zeros([3], dtype=f64)
    for x in xs {
      h = tanh(h + x)
      no_grad {
        r.mul_(0.9).add_(h * 0.1)
        n += 1
      }
    }
    return h
  }
}

test "running statistics under no_grad inside a scan, through variables" {
  let a = Run()
  let e = Run()
  let gm = compile(a, randn([4, 3], dtype=f64), mode="script")
  for k in range(3) {
    let xs = randn([4, 3], dtype=f64)
    same(gm(xs), e(xs))
    same(a.running, e.running)
    expect(int(a.steps) == int(e.steps), f"{a.steps} {e.steps}")
  }
}

model Counter() {
  count = zeros([], dtype=f64)
  buf = zeros([4], dtype=f64)
  forward(x) {
    self.count += 1.0
    self.buf[1] = x.sum()
    return x * self.count
  }
}

test "self.count += 1 and self.buf[1] = v at the top of a compiled forward, every call" {
  let a = Counter()
  let e = Counter()
  let gm = compile(a, randn([3], dtype=f64))
  for k in range(3) {
    let x = randn([3], dtype=f64)
    same(gm(x), e(x))
    same(a.count, e.count)
    same(a.buf, e.buf)
  }
}

fn masked(x) {
  let s = x.clone()
  let k = 0
  while s.abs().max() > 0.5 and k < 10 {
    s.masked_fill_(s.abs() < 0.2, 0.0)
    s.mul_(0.7)
    k = k + 1
  }
  return s, k
}

test "masked_fill_ and mul_ in a while on a tensor, with a counter" {
  let gm = compile(masked, randn([6], dtype=f64), mode="script")
  for k in range(4) {
    let x = randn([6], dtype=f64) * (k + 0.5)
    let (a, ka) = gm(x)
    let (b, kb) = masked(x)
    same(a, b)
    expect(int(ka) == kb, f"{ka} {kb}")
  }
}

# ---- exits inside no_grad / enable_grad blocks inside lowered loops -------------------

fn nb(x) {
  let y = x
  for i in range(5) {
    y = y * 1.5
    no_grad {
      if y.sum() > 4.0 { break }
    }
    y = y + 0.1
  }
  return y
}
fn nr(x) {
  for i in range(4) {
    x = x * 1.2
    no_grad {
      if x.sum() > 3.0 { return x * 2.0 }
    }
  }
  return x
}

test "break and return inside no_grad inside a scan, on each path" {
  let gb = compile(nb, ones([2], dtype=f64), mode="script")
  let gr = compile(nr, ones([2], dtype=f64), mode="script")
  for s in [0.1, 0.5, 1.0, 1.3, 3.0, -1.0] {
    let x = ones([2], dtype=f64) * s
    same(gb(x), nb(x))
    same(gr(x), nr(x))
  }
}

# ---- models, training steps, optimizers --------------------------------------------------

model Stack(n) {
  layers = nn.ModuleList([nn.Linear(4, 4).double() for i in range(n)])
  drop = nn.Dropout(0.3)
  head = nn.Linear(4, 1).double()
  forward(x) {
    let h = x
    for l in self.layers { h = h + self.drop(relu(l(h))) }
    return (self.head(h) ** 2).mean()
  }
}

test "a list of layers with dropout, trained with Adam inside the graph: parameters as eager's" {
  manual_seed(0)
  let m = Stack(3)
  let e = Stack(3)
  e.load_state_dict(m.state_dict())
  let om = optim.Adam(m.parameters(), lr=0.01)
  let oe = optim.Adam(e.parameters(), lr=0.01)
  let gm = compile(m, randn([5, 4], dtype=f64), train=true, optimizer=om)
  for k in range(4) {
    let x = randn([5, 4], dtype=f64)
    manual_seed(100 + k)
    let got = gm(x)
    manual_seed(100 + k)
    oe.zero_grad()
    let want = e(x)
    want.backward()
    oe.step()
    same(got, want.detach())
  }
  params_same(m, e)
}

test "dropout compiled in eval, then called in train and eval again" {
  manual_seed(0)
  let m = Stack(2)
  m.eval()
  let gm = compile(m, randn([5, 4], dtype=f64))
  let x = randn([5, 4], dtype=f64)
  same(gm(x), m(x))
  m.train()
  manual_seed(7)
  let a = gm(x)
  manual_seed(7)
  same(a, m(x))
  m.eval()
  same(gm(x), m(x))
}

model Seq2() {
  cell = nn.Linear(6, 3).double()
  forward(x) {
    let out = zeros([x.shape[0], x.shape[1], 3], dtype=f64)
    let h = zeros([x.shape[1], 3], dtype=f64)
    for t in range(x.shape[0]) {
      h = tanh(self.cell(cat([h, x[t]], 1)))
      if h.sum() > 0 {
        out[t] = h
      } else {
        out[t] = -h * 0.5
      }
    }
    return (out * out).sum()
  }
}

test "an RNN writing on either side of a cond in a scan trains with SGD as eager" {
  manual_seed(3)
  let m = Seq2()
  let e = Seq2()
  e.load_state_dict(m.state_dict())
  let om = optim.SGD(m.parameters(), lr=0.05, momentum=0.9)
  let oe = optim.SGD(e.parameters(), lr=0.05, momentum=0.9)
  let gm = compile(m, randn([5, 2, 3], dtype=f64), train=true, optimizer=om, mode="script")
  for k in range(4) {
    let x = randn([5, 2, 3], dtype=f64)
    let got = gm(x)
    oe.zero_grad()
    let want = e(x)
    want.backward()
    oe.step()
    same(got, want.detach())
  }
  params_same(m, e)
}

let w2 = randn([3, 3], dtype=f64, requires_grad=true)
fn gg(xs) {
  let out = zeros([xs.shape[0], 3], dtype=f64)
  let h = zeros([3], dtype=f64)
  for i in range(xs.shape[0]) {
    h = tanh(h @ w2 + xs[i])
    out[i] = h
  }
  let g = grad((out * out).sum(), w2, create_graph=true)
  return (g * g).sum()
}

test "grad of grad through a scan that writes each step into a tensor" {
  let gm = compile(gg, randn([4, 3], dtype=f64), train=true, mode="script")
  for k in range(3) {
    let xs = randn([4, 3], dtype=f64)
    w2.grad = none
    let a = gm(xs)
    let ga = w2.grad.clone()
    w2.grad = none
    let b = gg(xs)
    b.backward()
    same(a, b.detach())
    same(ga, w2.grad)
    w2.grad = none
  }
}
