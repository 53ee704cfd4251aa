# Differential tests, round 4 (continued from test_compile_differential4.dsl): programs a
# user writes (greedy decoding growing a sequence, Newton, power iteration and
# bisection with early exits, per-row gating, counters, closures and arguments that
# change between calls, random draws per call), each compiled once, traced and
# scripted, and compared with eager in f64 over calls on other inputs.
import nn
import optim

fn same(a, b) { expect_close(a, b, rtol=1e-12, atol=1e-12) }
fn same_int(a, b) { expect(a.shape == b.shape and bool((a == b).all()), f"{a} vs {b}") }

let E = randn([6, 4], dtype=f64)
let Wo = randn([4, 6], dtype=f64)
fn greedy(start, n) {
  let seq = start
  for i in range(n) {
    let nxt = (E[seq[:, -1]] @ Wo).argmax(-1, keepdim=true)
    seq = cat([seq, nxt], 1)
  }
  return seq
}
fn until_eos(start) {
  let seq = start
  let last = start[:, -1]
  while (last != 0).any() and seq.shape[1] < 6 {
    last = (E[last] @ Wo).argmax(-1)
    seq = cat([seq, last.unsqueeze(1)], 1)
  }
  return seq
}

test "greedy decoding with cat growing the sequence: unrolled per length, or refused in a while" {
  let s0 = tensor([[1], [2]])
  let gt = compile(greedy, s0, 4)
  let gs = compile(greedy, s0, 4, mode="script")
  for s in [tensor([[3], [0]]), tensor([[5], [5]])] {
    same_int(gt(s, 4), greedy(s, 4))
    same_int(gs(s, 4), greedy(s, 4))
  }
  same_int(gt(s0, 2), greedy(s0, 2))
  same_int(gs(s0, 6), greedy(s0, 6))
  expect_error(fn() = compile(until_eos, s0, mode="script"), "variable 'seq' is i64[2, 1] before the body and i64[2, 2] after it")
}

fn newton(a) {
  let x = a * 0.0 + 1.0
  let it = 0
  while true {
    let nx = 0.5 * (x + a / x)
    it = it + 1
    if (nx - x).abs().max() < 1e-12 {
      x = nx
      break
    }
    x = nx
    if it > 50 { break }
  }
  return x, it
}
fn power(A) {
  let v = ones([A.shape[0]], dtype=f64)
  v = v / v.norm()
  let lam = tensor(0.0, dtype=f64)
  for k in range(100) {
    let w = A @ v
    let nl = v.dot(w)
    v = w / w.norm()
    if (nl - lam).abs() < 1e-10 {
      lam = nl
      break
    }
    lam = nl
  }
  return lam, v
}
fn bisect(lo0, hi0) {
  let lo = lo0
  let hi = hi0
  for i in range(60) {
    let mid = (lo + hi) / 2
    let fm = mid * mid * mid - 2.0
    if fm.abs() < 1e-14 {
      lo = mid
      hi = mid
      break
    }
    if fm > 0 {
      hi = mid
      continue
    }
    lo = mid
  }
  return (lo + hi) / 2
}

test "Newton with a counter, power iteration and bisection with break and continue, as eager at every exit" {
  let gn = compile(newton, tensor([2.0, 3.0], dtype=f64), mode="script")
  for a in [tensor([2.0, 3.0], dtype=f64), tensor([100.0, 1e-4], dtype=f64), tensor([1.0, 1.0], dtype=f64)] {
    let (p, q) = gn(a)
    let (r, s) = newton(a)
    same(p, r)
    expect(int(q) == s, f"{q} vs {s}")
  }
  let A0 = randn([3, 3], dtype=f64)
  let gs = compile(power, A0 @ A0.T, mode="script")
  let gt = compile(power, A0 @ A0.T)
  for j in range(3) {
    let B = randn([3, 3], dtype=f64)
    let S = B @ B.T + eye(3, dtype=f64)
    let (a, b) = gs(S)
    let (c, d) = power(S)
    same(a, c)
    same(b, d)
    same(gt(S)[0], c)
  }
  let gb = compile(bisect, tensor(0.0, dtype=f64), tensor(2.0, dtype=f64), mode="script")
  for (a, b) in [(0.0, 2.0), (1.0, 5.0), (-3.0, 1.5)] {
    same(gb(tensor(a, dtype=f64), tensor(b, dtype=f64)), bisect(tensor(a, dtype=f64), tensor(b, dtype=f64)))
  }
}

fn rows_enum(x, w) {
  let acc = zeros([x.shape[1]], dtype=f64)
  for (i, r) in enumerate(x) { acc = acc + r * (i + 1) }
  for (r, s) in zip(x, w) { acc = acc + r * s }
  return acc
}
fn nested(x) {
  let s = x * 0.0
  for i in range(4) {
    let y = x * (i + 1)
    while y.sum() > 1.0 {
      y = y * 0.5
      if y.max() < 0.3 { break }
    }
    s = s + y
  }
  return s
}
fn gate_rows(x, w1, w2) {
  let out = zeros_like(x)
  for i in range(x.shape[0]) {
    if x[i].sum() > 0 {
      out[i] = tanh(x[i] @ w1)
    } else {
      out[i] = sigmoid(x[i] @ w2)
    }
  }
  return out
}

test "enumerate and zip over rows, nested while with break, per-row gating: other lengths capture again" {
  let ge = compile(rows_enum, randn([3, 2], dtype=f64), randn([3, 2], dtype=f64), mode="script")
  let gn = compile(nested, tensor([1.0, 2.0], dtype=f64), mode="script")
  let w1 = randn([3, 3], dtype=f64)
  let w2 = randn([3, 3], dtype=f64)
  let gg = compile(gate_rows, randn([4, 3], dtype=f64), w1, w2, mode="script")
  for n in [3, 5] {
    let x = randn([n, 2], dtype=f64)
    let w = randn([n, 2], dtype=f64)
    same(ge(x, w), rows_enum(x, w))
    let y = randn([n + 1, 3], dtype=f64)
    same(gg(y, w1, w2), gate_rows(y, w1, w2))
  }
  for v in [[1.0, 2.0], [0.1, 0.1], [5.0, -1.0], [10.0, 10.0]] {
    same(gn(tensor(v, dtype=f64)), nested(tensor(v, dtype=f64)))
  }
}

fn count_pos(x) {
  let c = 0
  let s = 0.0
  for r in x {
    if r.sum() > 0 {
      c = c + 1
      s = s + r.sum()
    }
  }
  return c, s
}
fn mixed_cond(x, flag) {
  let y = x
  if flag and x.sum() > 0 { y = x * 2 }
  if flag or x.max() > 1 { y = y + 1 }
  if not flag and x.min() < 0 { y = y - 5 }
  return y
}

test "counters in an if inside a scan, and flags mixed with tensor conditions" {
  let gc = compile(count_pos, randn([5, 2], dtype=f64), mode="script")
  for k in range(3) {
    let x = randn([5, 2], dtype=f64)
    let (a, b) = gc(x)
    let (c, d) = count_pos(x)
    expect(int(a) == c, f"{a} vs {c}")
    same(b, tensor(d, dtype=f64))
  }
  for fl in [true, false] {
    let gm = compile(mixed_cond, tensor([1.0, 2.0], dtype=f64), fl, mode="script")
    for v in [[1.0, 2.0], [-3.0, 0.5], [0.1, -0.2]] {
      for f2 in [true, false] { same(gm(tensor(v, dtype=f64), f2), mixed_cond(tensor(v, dtype=f64), f2)) }
    }
  }
}

fn scaled(x, s, n) {
  let y = x * s
  for i in range(n) { y = y + i }
  return y
}
fn combine(xs, d) {
  let s = xs[0] * d["a"]
  for t in xs { s = s + t }
  return [s, (d["b"] * 2, xs[1])], {"k": s.sum()}
}
fn opt_bias(x, b=none, scale=1.0) {
  let y = x * scale
  if b != none { y = y + b }
  return y
}

test "numbers, lists, dicts and none as arguments that change between calls" {
  let x = randn([3], dtype=f64)
  let gm = compile(scaled, x, 2.0, 3)
  let gs = compile(scaled, x, 2.0, 3, mode="script")
  for (s, n) in [(2.0, 3), (0.5, 3), (2.0, 1), (-1.0, 0)] {
    same(gm(x, s, n), scaled(x, s, n))
    same(gs(x, s, n), scaled(x, s, n))
  }
  let gb = compile(opt_bias, x)
  let b = randn([3], dtype=f64)
  same(gb(x), opt_bias(x))
  same(gb(x, b), opt_bias(x, b))
  same(gb(x, none, 4.0), opt_bias(x, none, 4.0))
  expect_error(fn() = gb(x, b, scale=3.0), "keyword argument 'scale' is not taken")
  let xs = [randn([2], dtype=f64), randn([2], dtype=f64)]
  let d = {"a": randn([2], dtype=f64), "b": randn([1], dtype=f64)}
  let gl = compile(combine, xs, d)
  for ys in [[randn([2], dtype=f64), randn([2], dtype=f64)], [randn([2], dtype=f64), randn([2], dtype=f64), randn([2], dtype=f64)]] {
    let (l1, d1) = gl(ys, d)
    let (l2, d2) = combine(ys, d)
    same(l1[0], l2[0])
    same(l1[1][0], l2[1][0])
    same(l1[1][1], l2[1][1])
    same(d1["k"], d2["k"])
  }
}

test "closures: a tensor reassigned, changed in place, of another dtype or shape; a list appended; a dict item" {
  let g = ones([2], dtype=f64)
  fn f(x) = x * g
  let gs = compile(f, ones([2], dtype=f64), mode="script")
  g = full([2], 3.0, dtype=f64)
  same(gs(ones([2], dtype=f64)), f(ones([2], dtype=f64)))
  g.mul_(2)
  same(gs(ones([2], dtype=f64)), f(ones([2], dtype=f64)))
  g = ones([3], dtype=f64)
  same(gs(ones([3], dtype=f64)), f(ones([3], dtype=f64)))
  let ws = [ones([2], dtype=f64)]
  let dd = {"s": 2.0}
  fn h(x) {
    let s = x
    for w in ws { s = s + w }
    return s * dd["s"]
  }
  let gh = compile(h, ones([2], dtype=f64))
  ws.append(full([2], 7.0, dtype=f64))
  same(gh(ones([2], dtype=f64)), h(ones([2], dtype=f64)))
  dd["s"] = 5.0
  same(gh(ones([2], dtype=f64)), h(ones([2], dtype=f64)))
}

fn noisy(x) = x + randn(x.shape, dtype=f64)
fn walk(x) {
  let h = x
  let n = 0
  while h.sum() < 3.0 {
    h = h + rand_like(h)
    n = n + 1
  }
  return h, n
}

test "randn per call differs, is eager's for a seed, and leaves the generator where eager does" {
  let x = zeros([4], dtype=f64)
  let gt = compile(noisy, x)
  expect(not bool((gt(x) == gt(x)).all()), "two calls drew the same numbers")
  manual_seed(5)
  let c = gt(x)
  let c2 = gt(x)
  manual_seed(5)
  same(c, noisy(x))
  same(c2, noisy(x))
  let gw = compile(walk, x, mode="script")
  for k in range(3) {
    manual_seed(20 + k)
    let (a, n) = gw(x)
    manual_seed(20 + k)
    let (b, m) = walk(x)
    same(a, b)
    expect(int(n) == m)
  }
}

model Net() {
  l1 = nn.Linear(4, 8)
  bn = nn.BatchNorm1d(8)
  drop = nn.Dropout(0.3)
  l2 = nn.Linear(8, 3)
  forward(x) = self.l2(self.drop(relu(self.bn(self.l1(x)))))
}

test "cross entropy with label smoothing and ignore_index, BatchNorm and dropout, Adam in the graph" {
  manual_seed(1)
  let m = Net().double()
  let e = Net().double()
  e.load_state_dict(m.state_dict())
  let om = optim.Adam(m.parameters(), lr=0.01)
  let oe = optim.Adam(e.parameters(), lr=0.01)
  let sm = optim.StepLR(om, step_size=1, gamma=0.5)
  let se = optim.StepLR(oe, step_size=1, gamma=0.5)
  let crit = nn.CrossEntropyLoss(label_smoothing=0.1, ignore_index=2)
  fn lm(x, y) = crit(m(x), y)
  let gm = compile(lm, randn([6, 4], dtype=f64), tensor([0, 1, 2, 0, 1, 2]), train=true, optimizer=om)
  for k in range(3) {
    let x = randn([6, 4], dtype=f64)
    let y = randint(0, 3, [6])
    manual_seed(50 + k)
    let a = gm(x, y)
    manual_seed(50 + k)
    oe.zero_grad()
    let b = crit(e(x), y)
    b.backward()
    oe.step()
    sm.step()
    se.step()
    same(a, b.detach())
    for (p, q) in zip(m.parameters(), e.parameters()) { same(p, q) }
    same(m.bn.running_mean, e.bn.running_mean)
    same(m.bn.running_var, e.bn.running_var)
  }
}
