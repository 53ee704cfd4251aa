# A branch inside a loop nested in a loop's step, or in a cond's side: a parameter used
# only on a side that no step of the call took gets no gradient in a compiled training
# step, as in eager (Note [Branches inside a loop step], graph/control_flow_step_reach.hpp):
# the nested scan's step predicates are exported through the outer step or side. Each
# test trains the same model eagerly and compiled in f64 and compares the parameters
# after every call (and which .grad are none).
import nn
import optim

fn same(a, b) { expect_close(a, b, rtol=1e-10, atol=1e-12) }

# A scan in a scan's step, the gate inside the inner one.
model InScan() {
  w = nn.Parameter(tensor([0.5, -1.0], dtype=f64))
  v = nn.Parameter(tensor([1.5, 2.0], dtype=f64))
  u = nn.Parameter(tensor([0.2, 0.1], dtype=f64))
  forward(x) {
    let h = zeros([2], dtype=f64)
    for t in range(x.shape[0]) {
      for k in range(2) {
        if x[t].sum() > 1.0 { h = (h + self.w * x[t]).tanh() } else { h = (h + x[t] * self.v).tanh() }
      }
      h = h + self.u
    }
    return h.pow(2).sum()
  }
}

# A scan in a cond's side, the gate inside it.
model InSide() {
  w = nn.Parameter(tensor([0.5, -1.0], dtype=f64))
  v = nn.Parameter(tensor([1.5, 2.0], dtype=f64))
  u = nn.Parameter(tensor([0.2, 0.1], dtype=f64))
  forward(x) {
    let h = zeros([2], dtype=f64)
    if x.sum() > -5.0 {
      for t in range(x.shape[0]) {
        if x[t].sum() > 1.0 { h = (h + self.w * x[t]).tanh() } else { h = (h + x[t] * self.v).tanh() }
      }
    } else {
      h = x[0] * self.u
    }
    return h.pow(2).sum()
  }
}

# Rows [3, 2]: none, some or all of them above the gate, and one batch below -5 in sum.
let batches = [tensor([[0.1, 0.2], [0.3, -0.1], [0.0, 0.4]], dtype=f64),
               tensor([[1.0, 0.9], [0.3, -0.1], [0.0, 0.4]], dtype=f64),
               tensor([[0.1, 0.2], [0.2, 0.1], [-0.3, 0.4]], dtype=f64),
               tensor([[-3.0, -2.0], [-1.0, -1.0], [0.0, -0.5]], dtype=f64),
               tensor([[2.0, 0.9], [1.3, 0.1], [0.6, 0.8]], dtype=f64)]

fn optimizers(params, kind) {
  if kind == "adam" { return optim.Adam(params, lr=0.05, weight_decay=0.01) }
  return optim.SGD(params, lr=0.05, momentum=0.9, weight_decay=0.1)
}

fn check_step(M, kind) {
  manual_seed(3)
  let eager = M()
  let compiled = M()
  compiled.load_state_dict(eager.state_dict())
  let opt_e = optimizers(eager.parameters(), kind)
  let opt_c = optimizers(compiled.parameters(), kind)
  let gm = compile(fn(x) = compiled(x), batches[0], train=true, optimizer=opt_c, mode="script")
  expect("unrolled" not in gm.explain(), gm.explain())
  for x in batches {
    opt_e.zero_grad()
    let le = eager(x)
    le.backward()
    opt_e.step()
    same(gm(x), le.detach())
    let pe = eager.parameters()
    let pc = compiled.parameters()
    for k in range(len(pe)) { same(pc[k], pe[k]) }
  }
}

fn check_grads(M) {
  manual_seed(4)
  let m = M()
  let gm = compile(fn(x) = m(x), batches[0], train=true, mode="script")
  for x in batches {
    for p in m.parameters() { p.grad = none }
    gm(x)
    let got = [p.grad for p in m.parameters()]
    for p in m.parameters() { p.grad = none }
    m(x).backward()
    let ps = m.parameters()
    for k in range(len(ps)) {
      expect((got[k] == none) == (ps[k].grad == none), f"parameter {k}: compiled {got[k]}, eager {ps[k].grad}")
      if got[k] != none { same(got[k], ps[k].grad) }
    }
  }
}

test "a gate in a scan nested in a scan's step: .grad is none where no inner step took the side" {
  check_grads(InScan)
}

test "a gate in a scan nested in a scan's step: SGD with momentum and weight decay, and Adam" {
  check_step(InScan, "sgd")
  check_step(InScan, "adam")
}

test "a gate in a scan inside a cond's side: .grad, and the optimizer inside the graph" {
  check_grads(InSide)
  check_step(InSide, "sgd")
  check_step(InSide, "adam")
}
