# detach() and no_grad blocks inside a lowered loop or branch stop the gradient in a
# compiled training step as they do eagerly (Note [Detach in a graph],
# autograd/ops/views.cpp; Note [No-grad blocks inside a lowered region],
# graph/capture.cpp). A lowered region's gradient is its ops replayed with gradients
# on, and both used to be invisible there: `acc = acc + h.detach()` in a scan gave
# wrong weight gradients. Each function is compiled once, in f64, and called on inputs
# that take both sides of its branches, against eager.
import nn
import optim

fn same(a, b) { expect_close(a, b, rtol=1e-10, atol=1e-12) }

let w = tensor([0.5, -1.0, 2.0], dtype=f64, requires_grad=true)
let x0 = tensor([1.0, 0.3, -0.2], dtype=f64)

# Compiled with train=true, called at several scales of x0; w.grad against eager's.
fn check(f) {
  let gm = compile(f, x0, train=true, mode="script")
  for s in [1.5, -2.0, 0.7] {
    w.grad = none
    let lc = gm(x0 * s)
    let gc = w.grad.clone()
    w.grad = none
    let le = f(x0 * s)
    le.backward()
    same(lc, le.detach())
    same(gc, w.grad)
  }
  w.grad = none
}

fn detach_in_scan(x) {
  let acc = zeros([3], dtype=f64)
  let h = x
  for t in range(4) {
    h = (h * w).tanh()
    acc = acc + h.detach()
  }
  return acc.sum() * h.sum()
}

fn detached_rows(x) {
  let out = zeros([4, 3], dtype=f64)
  let h = x
  for t in range(4) {
    h = (h * w).sin()
    out[t] = h.detach() * w
  }
  return out.pow(2).sum() + h.sum()
}

fn no_grad_in_scan(x) {
  let acc = zeros([3], dtype=f64)
  let h = x
  for t in range(4) {
    h = (h * w).tanh()
    no_grad { acc = acc + h * w }
  }
  return acc.sum() * h.sum()
}

fn no_grad_in_place(x) {
  let acc = zeros([3], dtype=f64)
  let h = x
  for t in range(3) {
    h = (h * w).tanh()
    no_grad { acc.add_(h * w) }
    acc = acc * h
  }
  return acc.sum()
}

fn in_branches(x) {
  let h = x * w
  if h.sum() > 0 {
    no_grad { h = h * w }
    h = h * 2
  } else {
    h = h.detach() * w
  }
  return (h * w).sum()
}

fn detached_then_required(x) {
  let acc = zeros([3], dtype=f64)
  let h = x
  for t in range(3) {
    h = (h * w).tanh()
    let d = h.detach()
    d.requires_grad_(true)
    acc = acc + d * w
  }
  return acc.sum() * h.sum()
}

fn enable_grad_inside_no_grad(x) {
  let h = x
  for t in range(3) {
    no_grad {
      let frozen = h * w
      enable_grad { h = (h * w).tanh() + frozen }
    }
  }
  return h.sum()
}

test "detach() inside a lowered loop stops the gradient" {
  check(detach_in_scan)
  check(detached_rows)
}

test "a no_grad block inside a lowered loop stops the gradient, assigned or written in place" {
  check(no_grad_in_scan)
  check(no_grad_in_place)
}

test "no_grad and detach inside the sides of a lowered if" { check(in_branches) }

test "a detached value made a leaf again, and enable_grad inside no_grad, in a lowered loop" {
  check(detached_then_required)
  check(enable_grad_inside_no_grad)
}

test "a training step with a target network's detached output inside a lowered loop equals eager's" {
  model Net() {
    f = nn.Linear(3, 3, dtype=f64)
    forward(x) {
      let h = x
      let target = zeros([3], dtype=f64)
      for t in range(3) {
        h = self.f(h).tanh()
        target = target + h.detach() * 0.5
      }
      return (h - target).pow(2).sum()
    }
  }
  fn run(compiled) {
    manual_seed(2)
    let m = Net()
    let opt = optim.SGD(m.parameters(), lr=0.1, momentum=0.5)
    let gm = compile(fn(x) = m(x), x0, train=true, optimizer=opt, mode="script")
    for s in [1.0, -0.5, 2.0, 0.3] {
      if compiled { gm(x0 * s) } else {
        opt.zero_grad()
        m(x0 * s).backward()
        opt.step()
      }
    }
    return m.parameters()
  }
  let e = run(false)
  let c = run(true)
  for k in range(len(e)) { same(c[k], e[k]) }
}
