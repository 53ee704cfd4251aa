# Compiled functions that once did not do what eager does, each checked against eager
# in f64 (values and gradients) on inputs that take each path.
import nn

# ---- Note [Returns inside a lowered loop] (interp/eval/script/exits.cpp) --------------

fn search(x) {
  for k in range(4) {
    x = x * 1.5 - 0.2
    if x.sum() > 3.0 {
      return x * 2.0
    }
  }
  return x - 1.0
}

test "a return inside a scan: the first step, a later one, never" {
  let gm = compile(search, ones([3], dtype=f64), mode="script")
  expect(" = scan(" in gm.ir(), gm.ir())
  expect("a loop that may return -> cond on (returned) after it" in gm.explain(), gm.explain())
  for s in [5.0, 1.2, 0.5, -3.0] {
    let x = ones([3], dtype=f64) * s
    expect_close(gm(x), search(x), rtol=0, atol=0)
  }
}

fn wsearch(x) {
  let i = 0
  while x.sum() < 10.0 {
    x = x * 1.3 + 0.1
    if x.max() > 2.0 {
      return x, i
    }
    i = i + 1
  }
  return x * 0.0, i
}

test "a return of a tuple inside a while_loop, with a counter" {
  let gm = compile(wsearch, ones([3], dtype=f64), mode="script")
  for s in [0.1, 0.5, 1.9, 5.0] {
    let x = tensor([s, 0.1, 0.2], dtype=f64)
    let (got, gi) = gm(x)
    let (want, wi) = wsearch(x)
    expect_close(got, want, rtol=0, atol=0)
    expect(gi.item() == wi, f"{gi} {wi}")
  }
}

fn nested(x) {
  for i in range(3) {
    for j in range(3) {
      x = x * 1.2 + 0.1
      if (x * x).sum() > 20.0 {
        return (x * x).sum(), x
      }
    }
    x = x - 0.05
  }
  return x.sum(), x * 2.0
}

test "a return inside nested scans leaves both" {
  let gm = compile(nested, ones([2], dtype=f64), mode="script")
  for s in [0.1, 0.8, 2.0, 10.0] {
    let x = ones([2], dtype=f64) * s
    let (a, b) = gm(x)
    let (c, d) = nested(x)
    expect_close(a, c, rtol=0, atol=0)
    expect_close(b, d, rtol=0, atol=0)
  }
}

fn grads_match(params, got, want_fn) {
  # got: the compiled step's loss, with .grad set; want_fn: eager's loss
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

model Stack() {
  layers = [nn.Linear(3, 3).double(), nn.Linear(3, 3).double(), nn.Linear(3, 3).double()]
  forward(x) {
    let h = x
    for layer in self.layers {
      h = tanh(layer(h))
      if h.sum() > 0.5 {
        return (h * h).sum()
      }
    }
    return h.abs().sum()
  }
}

test "a return inside a loop over layers trains as eager does" {
  manual_seed(0)
  let m = Stack()
  let gm = compile(m, randn([4, 3], dtype=f64), train=true, mode="script")
  for sh in [-2.0, 0.0, 2.0, 0.3] {
    let x = randn([4, 3], dtype=f64) + sh
    m.zero_grad()
    grads_match(m.parameters(), gm(x), fn() = m(x))
  }
}

model Scanned() {
  w = nn.Linear(2, 2).double()
  forward(x) {
    let h = x
    for k in range(5) {
      h = tanh(self.w(h)) + h
      if h.sum() > 1.0 {
        return (h * h).sum()
      }
    }
    return h.sum()
  }
}

test "a return inside a scan trains as eager does: gradients on every path" {
  manual_seed(2)
  let m = Scanned()
  let gm = compile(m, randn([3, 2], dtype=f64), train=true, mode="script")
  expect(" = scan(" in gm.ir(), gm.ir())
  for sh in [-3.0, -0.5, 0.1, 3.0] {
    let x = randn([3, 2], dtype=f64) * 0.1 + sh
    m.zero_grad()
    grads_match(m.parameters(), gm(x), fn() = m(x))
  }
}

# ---- Note [A tensor field written in a capture] (interp/eval/capture_reads.cpp) -------

model Ema() {
  state = zeros([2], dtype=f64)
  forward(x) {
    self.state = self.state * 0.9 + x
    return self.state * 2.0
  }
}

test "a tensor field updated in a compiled forward is written at every call, as eager does" {
  let a = Ema()
  let b = Ema()
  let gm = compile(a, ones([2], dtype=f64))
  for k in range(4) {
    let x = ones([2], dtype=f64) * (k + 1)
    expect_close(gm(x), b(x), rtol=0, atol=0)
    expect_close(a.state, b.state, rtol=0, atol=0)
  }
  expect("capture 2" not in gm.explain(), gm.explain())
}

# A field read and set to what it already holds (FSDP's compiled forward: its `_current`
# stays none, read and reset after forward): the write changes nothing the graph reads.
model Scratch() {
  w = ones([2], dtype=f64) * 3
  _held = none
  forward(x) {
    let was = self._held
    self._held = none
    self.w = self.w
    return (x * self.w).sum() + (0.0 if was == none else 1.0)
  }
}

test "a field read and set to the value it holds (none, the same tensor) compiles and equals eager" {
  let a = Scratch()
  let b = Scratch()
  let gm = compile(a, ones([2], dtype=f64))
  for k in range(3) {
    let x = ones([2], dtype=f64) * (k + 1)
    expect_close(gm(x), b(x), rtol=0, atol=0)
    expect(a._held == none)
  }
}

model Tracker() {
  fc = nn.Linear(2, 2).double()
  mean = zeros([2], dtype=f64)
  forward(x) {
    let h = self.fc(x)
    no_grad {
      self.mean = self.mean * 0.5 + h.mean(0) * 0.5
    }
    return (h - self.mean).pow(2).sum()
  }
}

test "a running statistic written under no_grad in a training step: loss, gradients and the field equal eager's" {
  manual_seed(4)
  let a = Tracker()
  let b = Tracker()
  b.load_state_dict(a.state_dict())
  let gm = compile(a, randn([3, 2], dtype=f64), train=true)
  for k in range(3) {
    let x = randn([3, 2], dtype=f64)
    a.zero_grad()
    let got = gm(x)
    grads_match_models(a, b, got, x)
    expect_close(a.mean, b.mean, rtol=0, atol=1e-15)
  }
}

fn grads_match_models(a, b, got, x) {
  b.zero_grad()
  let want = b(x)
  want.backward()
  expect_close(got, want.detach(), rtol=1e-12, atol=1e-12)
  expect_close(a.fc.weight.grad, b.fc.weight.grad, rtol=1e-10, atol=1e-12)
  expect_close(a.fc.bias.grad, b.fc.bias.grad, rtol=1e-10, atol=1e-12)
}

model Grows() {
  state = zeros([2], dtype=f64)
  forward(x) {
    self.state = cat([self.state, x])
    return self.state.sum()
  }
}

model Keeps() {
  fc = nn.Linear(2, 2).double()
  state = zeros([2], dtype=f64)
  forward(x) {
    self.state = self.state + self.fc(x).sum(0)
    return self.state.sum()
  }
}

test "a field write the graph cannot make at each call is an error at the statement" {
  expect_error("compile(Grows(), ones([2], dtype=f64))", "so it cannot set it to f64[4]")
  expect_error("compile(Keeps(), ones([3, 2], dtype=f64))", "which would drop the new value's gradient")
}

# ---- appends to an outside list: an error (Note [What a capture read]) ---------------

let seen_calls = []
fn records(x) {
  seen_calls.append(x.sum())
  return x * 2.0
}

fn records_eagerly(x) {
  if not is_compiling() {
    seen_calls.append(x.sum())
  }
  return x * 2.0
}

test "appending to a list made before compile() is an error; under `if not is_compiling()` it is eager's alone" {
  expect_error("compile(records, ones([2], dtype=f64))", "so it cannot append to a list made before the call")
  let gm = compile(records_eagerly, ones([2], dtype=f64))
  expect_close(gm(ones([2], dtype=f64)), ones([2], dtype=f64) * 2.0, rtol=0, atol=0)
  expect(len(seen_calls) == 0, f"{seen_calls}")
}

# ---- Note [Captures at every call] (interp/builtins/graph_module_report.cpp) ---------

let step_count = 0
fn scaled(x) {
  return x * step_count
}

test "a global number changing at every call: explain() says so, and its log stays bounded" {
  let gm = compile(scaled, ones([2], dtype=f64))
  for k in range(40) {
    step_count = step_count + 1
    expect_close(gm(ones([2], dtype=f64)), ones([2], dtype=f64) * step_count, rtol=0, atol=0)
  }
  let text = gm.explain()
  expect("note: variable 'step_count' changed at each of the last 40 captures" in text, text)
  expect("captures between the first and the latest not shown" in text, text)
  expect(text.count("\n  capture ") <= 33, text)
}

# ---- Note [Exits inside a context block] (interp/eval/script/exits.cpp) --------------

fn found_in_no_grad(x) {
  for k in range(4) {
    x = x * 1.5
    no_grad {
      if x.sum() > 3.0 {
        return x * 2.0
      }
    }
    x = x + 0.1
  }
  return x
}

test "a return inside no_grad inside a scan lowers: first step, later step, never" {
  let gm = compile(found_in_no_grad, ones([2], dtype=f64), mode="script")
  expect(" = scan(" in gm.ir(), gm.ir())
  for s in [5.0, 1.0, 0.1, -2.0] {
    let x = ones([2], dtype=f64) * s
    expect_close(gm(x), found_in_no_grad(x), rtol=0, atol=0)
  }
}

model BreakQuietly() {
  w = nn.Linear(2, 2).double()
  forward(x) {
    let h = x
    for k in range(5) {
      h = tanh(self.w(h)) + h
      no_grad {
        let size = h.abs().sum()
        if size > 4.0 {
          break
        }
      }
      h = h * 1.1
    }
    return (h * h).sum()
  }
}

test "a break inside no_grad in a scan: the statements after the block keep their gradients" {
  manual_seed(7)
  let m = BreakQuietly()
  let gm = compile(m, randn([3, 2], dtype=f64), train=true, mode="script")
  expect(" = scan(" in gm.ir(), gm.ir())
  for sh in [-2.0, 0.0, 0.5, 2.0] {
    let x = randn([3, 2], dtype=f64) * 0.3 + sh
    m.zero_grad()
    grads_match(m.parameters(), gm(x), fn() = m(x))
  }
}

fn early_in_block(x) {
  let y = x * 2.0
  enable_grad {
    if y.sum() > 10.0 {
      return y * 0.5
    }
    y = y + 1.0
  }
  return y * 3.0
}

test "a return inside an enable_grad block in a function's body lowers to a cond" {
  let gm = compile(early_in_block, ones([2], dtype=f64), mode="script")
  expect(" = cond(" in gm.ir(), gm.ir())
  for s in [10.0, 1.0, -1.0] {
    let x = ones([2], dtype=f64) * s
    expect_close(gm(x), early_in_block(x), rtol=0, atol=0)
  }
}
