# Differential tests, round 4: compiled functions against eager in f64, each compiled
# once and called on inputs that take other paths. Random draws inside a lowered branch
# or loop of a training step (Note [Random draws in a differentiated region],
# graph/control_flow_grad.cpp): the backward reuses the forward's numbers instead of
# drawing again, so the loss, the gradients and the generator's position are eager's.
# `a if cond else b` on a tensor (Note [A conditional expression on a tensor],
# interp/eval/script/regions.cpp). Arguments that require grad in a training step
# (Note [Arguments that require grad in a training step],
# interp/builtins/builtins_graph.cpp).
import nn
import optim

fn same(a, b) { expect_close(a, b, rtol=1e-10, atol=1e-12) }

# ---- random draws in a differentiated region ----------------------------------------------

let w = tensor([1.0, -2.0, 3.0, 0.5], dtype=f64, requires_grad=true)

# Compiles f as a training step (script mode, the given loop_checkpoint, optimized or
# not) and checks loss, w.grad and the generator after the call against eager's, for
# inputs that take both sides.
fn check_draws(f, checkpoint, optimized) {
  let x = ones([4], dtype=f64)
  let gm = compile(f, x, train=true, mode="script", loop_checkpoint=checkpoint)
  if optimized { gm.optimize("default") }
  for k in range(3) {
    let xx = x * (k + 1) * (1 if k != 1 else -1)
    manual_seed(70 + k)
    w.grad = none
    let a = gm(xx)
    let after_graph = rand([3], dtype=f64)
    let ga = w.grad.clone()
    w.grad = none
    manual_seed(70 + k)
    let b = f(xx)
    b.backward()
    same(a, b.detach())
    same(ga, w.grad)
    same(after_graph, rand([3], dtype=f64))
  }
  w.grad = none
}

fn drop_in_if(x) {
  let h = x * w
  if h.sum() > 0 {
    h = dropout(h, 0.5, true) * h
  } else {
    h = h * 2 + randn_like(h)
  }
  return (h * w).sum()
}

test "dropout and randn in the sides of a cond: the backward reads the forward's mask and noise" {
  for o in [("auto", false), ("auto", true), ("full", false)] { check_draws(drop_in_if, o[0], o[1]) }
}

fn noisy_rnn(x) {
  let h = x * w
  for i in range(4) {
    h = tanh(dropout(h, 0.25, true) * w + randn_like(h) * 0.1)
  }
  return h.sum()
}

test "dropout and randn in a scan's step: saved, never drawn twice, under every loop_checkpoint" {
  for o in [("auto", false), ("auto", true), ("none", false), ("full", false), ("full", true)] {
    check_draws(noisy_rnn, o[0], o[1])
  }
}

model Gated() {
  a = nn.Linear(3, 3)
  b = nn.Linear(3, 3)
  drop = nn.Dropout(0.5)
  forward(x) {
    let h = x
    if h.mean() > 0 {
      h = self.a(h)
    } else {
      h = self.drop(self.b(h))
    }
    return h
  }
}

test "a model with dropout on one side of an if on a tensor trains with SGD as eager, traced or scripted" {
  for mode in ["script", "auto"] {
    manual_seed(3)
    let m = Gated().double()
    let e = Gated().double()
    e.load_state_dict(m.state_dict())
    # Plain SGD: the side not taken gives its layer's parameters a zero gradient where
    # eager leaves none, and a zero gradient moves nothing under plain SGD (with
    # momentum or Adam it would: a known difference, see the report of round 4).
    let om = optim.SGD(m.parameters(), lr=0.1)
    let oe = optim.SGD(e.parameters(), lr=0.1)
    fn lm(x) = m(x).pow(2).mean()
    let gm = compile(lm, randn([5, 3], dtype=f64), train=true, optimizer=om, mode=mode)
    for k in range(4) {
      let x = randn([5, 3], dtype=f64) + (1.0 if k % 2 == 0 else -1.0)
      manual_seed(60 + k)
      let got = gm(x)
      manual_seed(60 + k)
      oe.zero_grad()
      let want = e(x).pow(2).mean()
      want.backward()
      oe.step()
      same(got, want.detach())
      for (p, q) in zip(m.parameters(), e.parameters()) { same(p, q) }
    }
  }
}

model NoisyCell() {
  cell = nn.Linear(6, 3)
  drop = nn.Dropout(0.3)
  forward(xs) {
    let h = zeros([xs.shape[1], 3], dtype=f64)
    for x in xs { h = tanh(self.cell(cat([self.drop(h), x], 1))) }
    return h.pow(2).sum()
  }
}

test "an RNN with dropout on its state trains with Adam inside the graph as eager" {
  manual_seed(5)
  let m = NoisyCell().double()
  let e = NoisyCell().double()
  e.load_state_dict(m.state_dict())
  let om = optim.Adam(m.parameters(), lr=0.01)
  let oe = optim.Adam(e.parameters(), lr=0.01)
  let gm = compile(m, randn([4, 2, 3], dtype=f64), train=true, optimizer=om, mode="script")
  expect(" = scan(" in gm.ir(), gm.ir())
  for k in range(3) {
    let xs = randn([4, 2, 3], dtype=f64)
    manual_seed(90 + k)
    let got = gm(xs)
    manual_seed(90 + k)
    oe.zero_grad()
    let want = e(xs)
    want.backward()
    oe.step()
    same(got, want.detach())
  }
  for (p, q) in zip(m.parameters(), e.parameters()) { same(p, q) }
}

fn drop_in_while(x) {
  let h = x * w
  while h.abs().sum() > 1.0 { h = dropout(h, 0.5, true) * 0.5 }
  return h.sum()
}

test "a draw the backward would have to make again is an error naming the loop, not other numbers" {
  expect_error(fn() = compile(drop_in_while, ones([4], dtype=f64), train=true, mode="script"),
               "draws random numbers, which the backward would draw again")
  # without gradients it runs as eager
  let gi = compile(drop_in_while, ones([4], dtype=f64), mode="script")
  manual_seed(4)
  let a = gi(ones([4], dtype=f64) * 3)
  manual_seed(4)
  no_grad { same(a, drop_in_while(ones([4], dtype=f64) * 3)) }
}

# ---- a if cond else b on a tensor ---------------------------------------------------------

fn sign_gate(x) {
  let y = relu(x) if x.sum() > 0 else -x
  return y * 2
}
fn pair_gate(x) = (x, x * 2) if x.max() > 1 else (x * 3, -x)
fn number_gate(x) {
  let k = 1.0 if x.sum() > 0 else 2.5
  return x * k
}
fn gate_in_loop(x) {
  let h = x
  for i in range(3) { h = h * 0.5 if h.sum() > 1 else h + 1 }
  return h
}

test "a if cond else b on a tensor lowers to a cond: scripted, or traced and captured again" {
  for f in [sign_gate, number_gate, gate_in_loop] {
    let gs = compile(f, tensor([1.0, -0.5, 2.0], dtype=f64), mode="script")
    let gt = compile(f, tensor([1.0, -0.5, 2.0], dtype=f64))
    for v in [[1.0, -0.5, 2.0], [-1.0, 0.2, -3.0], [0.1, 0.2, 0.3]] {
      let x = tensor(v, dtype=f64)
      same(gs(x), f(x))
      same(gt(x), f(x))
    }
    expect("a if cond else b on a tensor -> cond" in gs.explain(), gs.explain())
  }
  let gp = compile(pair_gate, tensor([1.0, -0.5, 2.0], dtype=f64), mode="script")
  for v in [[1.0, -0.5, 2.0], [-1.0, 0.2, -3.0]] {
    let x = tensor(v, dtype=f64)
    let (a, b) = gp(x)
    let (c, d) = pair_gate(x)
    same(a, c)
    same(b, d)
  }
  # a plain condition stays a plain choice
  fn plain(x, k) = x * 2 if k > 0 else x * 3
  let gk = compile(plain, ones([2], dtype=f64), 1, mode="script")
  same(gk(ones([2], dtype=f64), -1), plain(ones([2], dtype=f64), -1))
  expect(not (" = cond(" in gk.ir()), gk.ir())
}

let v = tensor([1.0, -2.0, 0.5], dtype=f64, requires_grad=true)
fn gate_loss(x) {
  let h = x * v
  let y = h.pow(2) if h.sum() > 0 else (h * 3).exp()
  return y.sum()
}

test "a if cond else b on a tensor in a training step: gradients of the side taken" {
  let gm = compile(gate_loss, ones([3], dtype=f64), train=true, mode="script")
  for s in [[1.0, 1.0, 1.0], [-1.0, 0.0, 1.0]] {
    let x = tensor(s, dtype=f64)
    v.grad = none
    let a = gm(x)
    let g = v.grad.clone()
    v.grad = none
    let b = gate_loss(x)
    b.backward()
    same(a, b.detach())
    same(g, v.grad)
  }
  v.grad = none
}

# ---- arguments that require grad in a training step ---------------------------------------

fn quad(x, m) = (x @ m).pow(2).sum()

test "a training step's argument that requires grad gets eager's gradient, a non-leaf passes it on" {
  let x = randn([3, 4], dtype=f64)
  let m = randn([4, 3], dtype=f64, requires_grad=true)
  let gm = compile(quad, x, m, train=true)
  gm(x, m)
  let g1 = m.grad.clone()
  m.grad = none
  quad(x, m).backward()
  same(g1, m.grad)
  gm(x, m)
  same(m.grad, g1 * 2)  # accumulates, as backward() does
  let u = randn([4, 3], dtype=f64, requires_grad=true)
  gm(x, u * 2.0)
  let gu = u.grad.clone()
  u.grad = none
  quad(x, u * 2.0).backward()
  same(gu, u.grad)
  expect("requiring grad" in gm.explain(), gm.explain())
  # an argument that does not require grad: as eager, there is nothing to differentiate
  expect_error(fn() = gm(x, randn([4, 3], dtype=f64)), "does not require grad")
}

test "with optimizer= the argument gets its gradient and only the optimizer's parameters step" {
  manual_seed(2)
  let m = nn.Linear(4, 2).double()
  let e = nn.Linear(4, 2).double()
  e.load_state_dict(m.state_dict())
  let om = optim.SGD(m.parameters(), lr=0.1)
  let oe = optim.SGD(e.parameters(), lr=0.1)
  fn lm(x, s) = (m(x) * s).pow(2).mean()
  let s = tensor([1.5, -0.5], dtype=f64, requires_grad=true)
  let gm = compile(lm, randn([3, 4], dtype=f64), s, train=true, optimizer=om)
  for k in range(3) {
    let x = randn([3, 4], dtype=f64)
    s.grad = none
    let got = gm(x, s)
    let gs = s.grad.clone()
    s.grad = none
    oe.zero_grad()
    let want = (e(x) * s).pow(2).mean()
    want.backward()
    oe.step()
    same(got, want.detach())
    same(gs, s.grad)
    for (p, q) in zip(m.parameters(), e.parameters()) { same(p, q) }
  }
}
