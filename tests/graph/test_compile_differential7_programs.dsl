# Differential tests, round 7 (programs): small functions compiled once in script mode
# and called on inputs that take other paths and have other shapes, against eager in
# f64: outputs, .grad, buffers, parameters after several optimizer steps (inside the
# graph and outside it), the generator's position after draws in branches and loops,
# nested functions and closures, an early return inside a loop, break and continue in
# nested loops, lists and tuples carried through loops, in-place writes into views in a
# loop's body. The round's gaps: test_compile_differential7.dsl.
import nn
import optim

fn same(a, b, msg="") { expect_close(a, b, rtol=1e-10, atol=1e-12, msg=msg) }

fn same_tree(a, b) {
  if type(a) == "tuple" or type(a) == "list" {
    expect(len(a) == len(b), f"{len(a)} results, eager {len(b)}")
    for (p, q) in zip(a, b) { same_tree(p, q) }
  } else {
    same(a, b)
  }
}

# f compiled on xs[0]; each x of xs called compiled and eager, results compared.
fn check(f, xs, mode="script") {
  let gm = compile(f, xs[0], mode=mode)
  for x in xs { same_tree(gm(x), f(x)) }
  return gm
}

fn rows(n, s=1.0) = (arange(n * 3, dtype=f64).reshape([n, 3]) - n) * s * 0.3

let shapes = [rows(4), rows(4, -1.0), rows(6, 0.5), rows(2, 3.0), rows(5, -2.0), rows(1)]

test "early return inside a for, from an if on a tensor, several lengths" {
  fn f(x) {
    let acc = zeros([3], dtype=f64)
    for t in range(x.shape[0]) {
      acc = acc + x[t]
      if acc.sum() > 2.0 { return acc * 10.0 }
    }
    return acc
  }
  check(f, shapes)
}

test "early return inside a while, the result a tuple" {
  fn f(x) {
    let h = x.sum(0)
    let k = 0
    while h.abs().sum() < 50.0 and k < 6 {
      h = h * 2.0 + 0.1
      k = k + 1
      if h.max() > 4.0 { return h, k }
    }
    return h * 0.0, k
  }
  check(f, shapes)
}

test "break in an inner for, continue in the outer, on tensor conditions" {
  fn f(x) {
    let acc = zeros([], dtype=f64)
    for i in range(x.shape[0]) {
      if x[i].sum() < 0 { continue }
      for j in range(x.shape[1]) {
        if x[i, j] > 1.0 { break }
        acc = acc + x[i, j] * (i + 1)
      }
    }
    return acc
  }
  check(f, shapes)
}

test "continue in an inner for, break in the outer" {
  fn f(x) {
    let acc = zeros([3], dtype=f64)
    for i in range(x.shape[0]) {
      for j in range(x.shape[1]) {
        if x[i, j] < 0 { continue }
        acc[j] = acc[j] + x[i, j]
      }
      if acc.sum() > 3.0 { break }
    }
    return acc
  }
  check(f, shapes)
}

test "a list of tensors carried through a for, replaced by a new list each step" {
  fn f(x) {
    let state = [x[0], x[0] * 0.0]
    for t in range(1, x.shape[0]) { state = [state[0] * 0.5 + x[t], state[1] + state[0]] }
    return state
  }
  check(f, shapes[0:5])
}

test "a tuple carried through a while, swapped each trip" {
  fn f(x) {
    let (a, b) = (x.sum(0), x.mean(0))
    let k = 0
    while (a - b).abs().sum() > 0.01 and k < 5 {
      (a, b) = (b, (a + b) * 0.5)
      k = k + 1
    }
    return a, b
  }
  check(f, shapes)
}

test "in-place writes into a view of a carried tensor in a for's body" {
  fn f(x) {
    let out = zeros([x.shape[0], 3], dtype=f64)
    let h = zeros([3], dtype=f64)
    for t in range(x.shape[0]) {
      h = h * 0.5 + x[t]
      out[t] = h
      out[t, 0:2].mul_(2.0)
    }
    return out
  }
  check(f, shapes)
}

test "in-place add into a slice of a tensor made before the loop, under an if" {
  fn f(x) {
    let buf = zeros([4], dtype=f64)
    for t in range(x.shape[0]) {
      if x[t].sum() > 0 { buf[1:3].add_(x[t, 0:2]) } else { buf[0:2].sub_(x[t, 1:3]) }
    }
    return buf
  }
  check(f, shapes)
}

test "nested functions: a helper with a loop called from an if, a closure over an outer tensor" {
  let scale = tensor([1.0, -2.0, 0.5], dtype=f64)
  fn helper(v, n) {
    let h = v
    for k in range(n) { h = (h * scale).tanh() + v }
    return h
  }
  fn f(x) {
    let s = x.sum(0)
    if s.sum() > 0 { return helper(s, 3) }
    return helper(-s, 2) * 2.0
  }
  check(f, shapes)
  scale.mul_(0.5)  # the closure reads the tensor live, as eager does
  check(f, shapes)
}

test "a closure over an outer tensor written between calls" {
  let bias = zeros([3], dtype=f64)
  fn f(x) {
    let h = zeros([3], dtype=f64)
    for t in range(x.shape[0]) {
      if x[t].sum() > 0 { h = h + x[t] + bias } else { h = h - bias }
    }
    return h
  }
  let gm = compile(f, shapes[0], mode="script")
  for k in range(4) {
    bias.add_(0.25)
    for x in shapes { same(gm(x), f(x)) }
  }
}

test "the generator's position after randn drawn inside a branch of a loop" {
  fn f(x) {
    let h = zeros([3], dtype=f64)
    for t in range(x.shape[0]) {
      if x[t].sum() > 0 { h = h + randn([3], dtype=f64) * x[t] } else { h = h - x[t] }
    }
    return h
  }
  let gm = compile(f, shapes[0], mode="script")
  for x in shapes {
    manual_seed(11)
    let got = gm(x)
    let after = randn([2], dtype=f64)
    manual_seed(11)
    let want = f(x)
    same(got, want)
    same(after, randn([2], dtype=f64))
  }
}

test "dropout inside a while and on one side of an if: values and the generator's position" {
  fn f(x) {
    let h = x.sum(0)
    let k = 0
    while h.abs().sum() > -1.0 and k < 3 {
      h = dropout(h, 0.5, training=true) + 0.1
      k = k + 1
    }
    if h.sum() > 0.5 { h = dropout(h, 0.3, training=true) }
    return h
  }
  let gm = compile(f, shapes[0], mode="script")
  for x in shapes {
    manual_seed(5)
    let got = gm(x)
    let after = rand([3], dtype=f64)
    manual_seed(5)
    same(got, f(x))
    same(after, rand([3], dtype=f64))
  }
}

test "a draw in an if whose result is not used: the generator still moves as eager's" {
  fn f(x) {
    if x.sum() > 0 { let unused = randn([4], dtype=f64) }
    return x * 2.0
  }
  let gm = compile(f, shapes[0], mode="script")
  gm.optimize()
  for x in shapes {
    manual_seed(3)
    let got = gm(x)
    let after = randn([2], dtype=f64)
    manual_seed(3)
    same(got, f(x))
    same(after, randn([2], dtype=f64))
  }
}

model Gated() {
  a = nn.Linear(3, 3, dtype=f64)
  b = nn.Linear(3, 3, dtype=f64)
  bn = nn.BatchNorm1d(3, dtype=f64)
  forward(x) {
    let h = self.bn(self.a(x))
    for t in range(x.shape[0]) {
      if x[t].sum() > 0 { h = h + self.b(h).tanh() * 0.1 } else { continue }
      if h.abs().sum() > 40.0 { break }
    }
    return h.pow(2).mean()
  }
}

fn gated_twins() {
  manual_seed(9)
  let a = Gated()
  let b = Gated()
  b.load_state_dict(a.state_dict())
  return a, b
}

fn same_model(a, b) {
  for (p, q) in zip(a.parameters(), b.parameters()) {
    same(p, q, msg="parameter")
    expect((p.grad == none) == (q.grad == none), "the same .grad none")
    if p.grad != none and q.grad != none { same(p.grad, q.grad, msg="grad") }
  }
  same(a.bn.running_mean, b.bn.running_mean, msg="running_mean")
  same(a.bn.running_var, b.bn.running_var, msg="running_var")
  expect(a.bn.num_batches_tracked.item() == b.bn.num_batches_tracked.item())
}

test "several optimizer steps inside the graph: parameters, buffers, loss" {
  for kind in ["adam", "sgd"] {
    let (a, b) = gated_twins()
    let oa = optim.Adam(a.parameters(), lr=0.02) if kind == "adam" else optim.SGD(a.parameters(), lr=0.05, momentum=0.9)
    let ob = optim.Adam(b.parameters(), lr=0.02) if kind == "adam" else optim.SGD(b.parameters(), lr=0.05, momentum=0.9)
    let gm = compile(fn(x) = a(x), shapes[0], train=true, optimizer=oa, mode="script")
    for x in shapes[0:5] {
      let got = gm(x)
      ob.zero_grad()
      let want = b(x)
      want.backward()
      ob.step()
      same(got, want.detach())
      for (p, q) in zip(a.parameters(), b.parameters()) { same(p, q) }
      same(a.bn.running_mean, b.bn.running_mean)
    }
  }
}

test "several optimizer steps outside the graph: .grad, parameters, buffers" {
  let (a, b) = gated_twins()
  let oa = optim.RMSprop(a.parameters(), lr=0.01)
  let ob = optim.RMSprop(b.parameters(), lr=0.01)
  let gm = compile(fn(x) = a(x), shapes[0], train=true, mode="script")
  for x in shapes[0:5] {
    oa.zero_grad()
    ob.zero_grad()
    let got = gm(x)
    let want = b(x)
    want.backward()
    same(got, want.detach())
    same_model(a, b)
    oa.step()
    ob.step()
  }
}

test "eval mode after training calls: the running statistics used, not updated" {
  let (a, b) = gated_twins()
  let gm = compile(fn(x) = a(x), shapes[0], mode="script")
  for x in shapes[0:3] { same(gm(x), b(x)) }
  a.eval()
  b.eval()
  for x in shapes[0:3] {
    same(gm(x), b(x))
    same_model(a, b)
  }
}

test "a while whose trip count differs per call, in an inference graph" {
  fn f(x) {
    let h = x.abs().sum(0) + 1.0
    let k = zeros([], dtype=f64)
    while h.sum() > 1.0 {
      h = h * 0.5
      k = k + 1.0
    }
    return h, k
  }
  check(f, shapes)
}

test "a scan over a tensor's rows with a nested scan over each row's elements, both shapes varying" {
  fn f(x) {
    let total = zeros([], dtype=f64)
    for r in x {
      let run = zeros([], dtype=f64)
      for v in r {
        if v > 0 { run = run + v } else { run = run * 0.5 }
      }
      total = total + run
    }
    return total
  }
  check(f, shapes)
}

test "an elif chain in a loop's step choosing among three parameter-free updates" {
  fn f(x) {
    let h = zeros([3], dtype=f64)
    for t in range(x.shape[0]) {
      let s = x[t].sum()
      if s > 2.0 { h = h + x[t] } elif s > 0.0 { h = h * 0.5 } elif s > -2.0 { h = h - 1.0 } else { h = -h }
    }
    return h
  }
  check(f, shapes)
}

test "a conditional expression on a tensor in a while's body" {
  fn f(x) {
    let h = x.sum(0)
    let k = 0
    while h.abs().max() < 10.0 and k < 4 {
      h = h * 2.0 if h.sum() > 0 else h - 1.0
      k = k + 1
    }
    return h
  }
  check(f, shapes)
}

test "grad() of a loss computed by a loop with a branch, inside an inference graph" {
  fn f(x) {
    let w = ones([3], dtype=f64, requires_grad=true)
    let h = zeros([], dtype=f64)
    for t in range(x.shape[0]) {
      if x[t].sum() > 0 { h = h + (x[t] * w).sum() } else { h = h + (x[t] * w).pow(2).sum() }
    }
    let (g,) = grad(h, [w])
    return g
  }
  check(f, shapes)
}

test "an argument's .grad after a training step whose loop reads it on one side" {
  let lin = nn.Linear(3, 1, dtype=f64)
  fn f(x, w) {
    let h = zeros([1], dtype=f64)
    for t in range(x.shape[0]) {
      if x[t].sum() > 0 { h = h + lin(x[t] * w) } else { h = h + lin(x[t]) }
    }
    return h.sum()
  }
  let gm = compile(f, shapes[0], ones([3], dtype=f64, requires_grad=true), train=true, mode="script")
  for x in shapes[0:5] {
    let w = ones([3], dtype=f64, requires_grad=true)
    let v = ones([3], dtype=f64, requires_grad=true)
    lin.zero_grad()
    let want = f(x, v)
    want.backward()
    let gl = lin.weight.grad.clone()
    lin.zero_grad()
    same(gm(x, w), want.detach())
    expect((w.grad == none) == (v.grad == none), f"compiled {w.grad}, eager {v.grad}")
    if v.grad != none { same(w.grad, v.grad) }
    same(lin.weight.grad, gl)
  }
}

test "a helper that returns early from inside its loop, called in a scan's step" {
  fn first_big(v) {
    for k in range(3) {
      if v[k] > 0.5 { return v[k] }
    }
    return v.sum() * 0.0
  }
  fn f(x) {
    let acc = zeros([], dtype=f64)
    for t in range(x.shape[0]) { acc = acc + first_big(x[t]) }
    return acc
  }
  check(f, shapes)
}

test "a list built by append in a for, stacked after it, then reduced" {
  fn f(x) {
    let hs = []
    let h = zeros([3], dtype=f64)
    for t in range(x.shape[0]) {
      h = (h + x[t]).tanh() if x[t].sum() > 0 else h * 0.9
      hs.append(h)
    }
    return stack(hs).cumsum(0)
  }
  check(f, shapes)
}

test "auto mode: a traced branch lowered, other shapes and signs" {
  fn f(x) {
    let h = x.sum(0)
    if h.sum() > 0 { h = h.exp() } else { h = -h }
    for t in range(x.shape[0]) {
      if x[t, 0] > 0 { h = h + x[t] }
    }
    return h
  }
  check(f, shapes, mode="auto")
}

test "a return inside a for inside a while, the result a tuple" {
  fn f(x) {
    let h = zeros([3], dtype=f64)
    let k = zeros([], dtype=f64)
    while k < 3.0 {
      for t in range(x.shape[0]) {
        h = h + x[t] * (k + 1.0)
        if h.sum() > 6.0 { return h, k }
      }
      k = k + 1.0
    }
    return h, k
  }
  check(f, shapes)
}

test "a break out of a while inside a for, and a continue of the for" {
  fn f(x) {
    let acc = zeros([3], dtype=f64)
    for t in range(x.shape[0]) {
      let g = x[t]
      if g.sum() < -1.0 { continue }
      while g.abs().sum() < 20.0 {
        g = g * 2.0 + 0.5
        if g.max() > 5.0 { break }
      }
      acc = acc + g
    }
    return acc
  }
  check(f, shapes)
}

test "a function defined inside, closing over a local tensor, called on both sides in a loop" {
  fn f(x) {
    let w = x.mean(0)
    fn step(h, r) = (h * w + r).tanh()
    let h = zeros([3], dtype=f64)
    for t in range(x.shape[0]) {
      if x[t].sum() > 0 { h = step(h, x[t]) } else { h = step(h, -x[t]) * 0.5 }
    }
    return h
  }
  check(f, shapes)
}

test "in-place writes into a column, a transposed row and the diagonal of a carried matrix" {
  fn f(x) {
    let m = zeros([3, 3], dtype=f64)
    for t in range(x.shape[0]) {
      if x[t].sum() > 0 { m[:, 0].add_(x[t]) } else { m.T[1].sub_(x[t]) }
      m.diagonal().mul_(0.9)
    }
    return m
  }
  check(f, shapes)
}

test "tensors a closure holds, trained by optimizers inside the graph and outside it" {
  manual_seed(3)
  let w = randn([3], dtype=f64, requires_grad=true)
  let u = randn([3], dtype=f64, requires_grad=true)
  let w2 = w.detach().clone().requires_grad_()
  let u2 = u.detach().clone().requires_grad_()
  fn make(w, u) {
    fn f(x) {
      let h = zeros([3], dtype=f64)
      for t in range(x.shape[0]) {
        if x[t].sum() > 0 { h = (h * w + x[t]).tanh() } else { h = h + u * x[t] }
      }
      return h.pow(2).sum()
    }
    return f
  }
  let f = make(w, u)
  let g = make(w2, u2)
  let inside = optim.SGD([w, u], lr=0.1, momentum=0.9)
  let twin = optim.SGD([w2, u2], lr=0.1, momentum=0.9)
  let gm = compile(f, shapes[0], train=true, optimizer=inside, mode="script")
  for x in shapes[0:5] {
    let got = gm(x)
    twin.zero_grad()
    let want = g(x)
    want.backward()
    twin.step()
    same(got, want.detach())
    same(w, w2)
    same(u, u2)
  }
  let outside = optim.Adam([w, u], lr=0.1)
  let twin2 = optim.Adam([w2, u2], lr=0.1)
  let gm2 = compile(f, shapes[0], train=true, mode="script")
  for x in shapes[0:5] {
    outside.zero_grad()
    let got = gm2(x)
    outside.step()
    twin2.zero_grad()
    let want = g(x)
    want.backward()
    twin2.step()
    same(got, want.detach())
    expect((u.grad == none) == (u2.grad == none), f"compiled {u.grad}, eager {u2.grad}")
    same(w, w2)
    same(u, u2)
  }
}

model Counting() {
  a = nn.Linear(3, 3, dtype=f64)
  drop = nn.Dropout(0.4)
  bn = nn.BatchNorm1d(3, dtype=f64)
  count = zeros([], dtype=f64)
  forward(x) {
    let h = self.a(x)
    for t in range(x.shape[0]) {
      if x[t].sum() > 0 {
        h = self.drop(h) + x[t]
        self.count.add_(1.0)
      }
    }
    let k = zeros([], dtype=f64)
    while k < 2.0 {
      h = self.bn(h)
      k = k + 1.0
    }
    return h
  }
}

test "a compiled model switched between train() and eval(): dropout's draws, a counter and BatchNorm's statistics" {
  manual_seed(1)
  let a = Counting()
  let b = Counting()
  b.load_state_dict(a.state_dict())
  let gm = compile(a, shapes[0], mode="script")
  for training in [true, false, true] {
    a.train(training)
    b.train(training)
    for x in shapes[0:5] {
      manual_seed(8)
      let got = gm(x)
      let after = rand([2], dtype=f64)
      manual_seed(8)
      same(got, b(x))
      same(after, rand([2], dtype=f64))
      same(a.count, b.count)
      same(a.bn.running_mean, b.bn.running_mean)
      same(a.bn.running_var, b.bn.running_var)
    }
  }
}

model DrawingSides() {
  a = nn.Linear(3, 3, dtype=f64)
  b = nn.Linear(3, 3, dtype=f64)
  forward(x) {
    let h = self.a(x)
    if x.sum() > 0 { h = dropout(self.b(h), 0.5, training=true) } else { h = h + randn([3], dtype=f64) * 0.1 }
    for t in range(x.shape[0]) { h = h + dropout(x[t], 0.2, training=true) }
    return h.pow(2).mean()
  }
}

test "a training step drawing on both sides of an if and in a scan: loss, .grad and the generator's position" {
  manual_seed(1)
  let a = DrawingSides()
  let b = DrawingSides()
  b.load_state_dict(a.state_dict())
  let gm = compile(fn(x) = a(x), ones([4, 3], dtype=f64), train=true, mode="script")
  for s in [1.0, -1.0, 2.0, -0.5] {
    let x = ones([4, 3], dtype=f64) * s
    a.zero_grad()
    b.zero_grad()
    manual_seed(20)
    let got = gm(x)
    let after = rand([2], dtype=f64)
    manual_seed(20)
    let want = b(x)
    want.backward()
    same(got, want.detach())
    same(after, rand([2], dtype=f64))
    same(a.a.weight.grad, b.a.weight.grad)
    expect((a.b.weight.grad == none) == (b.b.weight.grad == none))
  }
}
