# A parameter that a call's loss does not reach gets no gradient, in a compiled
# training step as in eager (Note [Gradients a lowered branch may not reach],
# graph/gradient_reach.hpp): a lowered `if` whose untaken side alone uses a parameter
# used to give it a zero gradient at every call, so momentum, Adam's moments and
# weight decay moved it where eager's step leaves it alone. Each test runs the same
# inputs eagerly and compiled, in f64, and compares the parameters after every call.
import nn
import optim

fn same(a, b) { expect_close(a, b, rtol=1e-10, atol=1e-12) }

# Branches on the batch: a and b each used on one side only; c on both sides; d
# outside the branch.
model Gate() {
  a = nn.Linear(3, 2, dtype=f64)
  b = nn.Linear(3, 2, dtype=f64)
  c = nn.Linear(2, 1, dtype=f64)
  forward(x) {
    let y = none
    if x.sum() > 0 { y = self.c(self.a(x)) } else { y = self.c(self.b(x).tanh()) }
    return y.pow(2).mean()
  }
}

# An operand computed outside the branch (a view of the parameter) and a parameter
# reached both inside one side and outside the branch.
model Mixed() {
  w = nn.Parameter(tensor([[0.5, -0.25, 1.0], [0.1, 0.2, -0.3]], dtype=f64))
  v = nn.Parameter(tensor([0.3, -0.7], dtype=f64))
  u = nn.Parameter(tensor([1.5, 0.5], dtype=f64))
  forward(x) {
    let wt = self.w.t()
    let h = x @ wt
    if h.sum() > 0 { h = h * self.v } else { h = (x @ wt).sin() * 2 }
    return ((h + self.u * self.v).pow(2)).sum()
  }
}

let batches = [ones([4, 3], dtype=f64), ones([4, 3], dtype=f64) * 0.5, -ones([4, 3], dtype=f64),
               ones([4, 3], dtype=f64), -ones([4, 3], dtype=f64) * 2, -ones([4, 3], dtype=f64)]

fn optimizers(params, kind) {
  if kind == "adam" { return optim.Adam(params, lr=0.05, weight_decay=0.01) }
  if kind == "adamw" { return optim.AdamW(params, lr=0.05) }
  if kind == "rmsprop" { return optim.RMSprop(params, lr=0.01, momentum=0.5, weight_decay=0.1) }
  return optim.SGD(params, lr=0.05, momentum=0.9, weight_decay=0.1)
}

# Trains a fresh model of class M eagerly and compiled on `xs`, comparing every
# parameter after each step (and the optimizer's step counts at the end).
fn check_step(M, kind, optimized) {
  manual_seed(3)
  let eager = M()
  manual_seed(3)
  let compiled = M()
  let opt_e = optimizers(eager.parameters(), kind)
  let opt_c = optimizers(compiled.parameters(), kind)
  let gm = compile(fn(x) = compiled(x), batches[0], train=true, optimizer=opt_c, mode="script")
  if optimized { gm.optimize("default") }
  for x in batches {
    opt_e.zero_grad()
    let le = eager(x)
    le.backward()
    opt_e.step()
    let lc = gm(x)
    same(lc, le.detach())
    let pe = eager.parameters()
    let pc = compiled.parameters()
    for k in range(len(pe)) { same(pc[k], pe[k]) }
  }
}

test "one side's parameters are left alone where the other side ran: SGD with momentum and weight decay" {
  check_step(Gate, "sgd", false)
  check_step(Gate, "sgd", true)
}

test "one side's parameters are left alone where the other side ran: Adam, AdamW and RMSprop" {
  for kind in ["adam", "adamw", "rmsprop"] { check_step(Gate, kind, false) }
  check_step(Gate, "adam", true)
}

test "an operand made outside the branch, and a parameter also used outside it" {
  for kind in ["sgd", "adam"] { check_step(Mixed, kind, false) }
}

test "a step with a GradScaler skips an unreached parameter and still skips all on Inf" {
  fn run(compiled_mode) {
    manual_seed(5)
    let m = Gate()
    let opt = optim.SGD(m.parameters(), lr=0.05, momentum=0.9)
    let scaler = optim.GradScaler(init_scale=4.0, growth_interval=2)
    let gm = compile(fn(x) = m(x), batches[0], train=true, optimizer=opt, scaler=scaler, mode="script")
    let xs = batches + [ones([4, 3], dtype=f64) * float("inf")]
    for x in xs {
      if compiled_mode { gm(x) } else {
        opt.zero_grad()
        scaler.scale(m(x)).backward()
        scaler.step(opt)
        scaler.update()
      }
    }
    return m.parameters() + [scaler.get_scale()]
  }
  let e = run(false)
  let c = run(true)
  for k in range(len(e) - 1) { same(c[k], e[k]) }
  expect(c[len(c) - 1] == e[len(e) - 1])
}

test "compile(train=true) without an optimizer sets .grad only where the call reached it" {
  manual_seed(1)
  let m = Gate()
  let gm = compile(fn(x) = m(x), batches[0], train=true, mode="script")
  for x in batches {
    for p in m.parameters() { p.grad = none }
    gm(x)
    let got = [p.grad for p in m.parameters()]
    for p in m.parameters() { p.grad = none }
    m(x).backward()
    let ps = m.parameters()
    for k in range(len(ps)) {
      expect((got[k] == none) == (ps[k].grad == none))
      if got[k] != none { same(got[k], ps[k].grad) }
    }
  }
}

test "an argument that requires grad, used on one side only, gets no gradient where the other ran" {
  let w = tensor([0.5, -1.0], dtype=f64)
  fn f(x, s) {
    if x.sum() > 0 { return (x * s * w).sum() }
    return (x * w).sum()
  }
  let gm = compile(f, ones([2], dtype=f64), ones([2], dtype=f64, requires_grad=true), train=true, mode="script")
  let s = tensor([2.0, 3.0], dtype=f64, requires_grad=true)
  gm(-ones([2], dtype=f64), s)
  expect(s.grad == none)
  gm(ones([2], dtype=f64), s)
  same(s.grad, w)
}
