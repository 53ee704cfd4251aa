# In-place writes inside compiled functions (Note [Functional writes] in
# graph/capture_writes.cpp): a write into a tensor the function made, or into a view
# of one, becomes an out-of-place value and every view of the same base is read anew.
# Each program is checked against eager in f64: values, gradients, parameters after
# several optimizer steps.
import nn
import optim

fn same(gm, f, args) {
  let got = gm(*args)
  let want = f(*args)
  expect_close(got, want, rtol=0, atol=0)
}

# Compiles f on example, then compares it with eager on three other inputs.
fn check_values(f, shapes) {
  manual_seed(11)
  let example = [randn(s, dtype=f64) for s in shapes]
  let gm = compile(f, *example)
  for k in range(3) {
    let args = [randn(s, dtype=f64) for s in shapes]
    let got = gm(*args)
    let want = f(*args)
    if type(want) == "tuple" {
      for i in range(len(want)) { expect_close(got[i], want[i], rtol=0, atol=0) }
    } else {
      expect_close(got, want, rtol=0, atol=0)
    }
  }
}

fn twice_in_place(x) {
  let y = x.clone()
  y.add_(1)
  y.mul_(2)
  return y
}
fn clamped(x) {
  let y = x * 1.0
  y.clamp_(0, 1)
  return y
}
fn row_set(x) {
  let y = x * 1.0
  y[0] = 7
  return y
}
fn cols_set(x, z) {
  let y = x * 1.0
  y[:, 1:3] = z
  return y
}
fn mask_set(x) {
  let y = x * 1.0
  y[y > 0.5] = 0
  return y
}
fn through_view(x) {
  let y = x * 1.0
  let v = y.view([12])
  y.masked_fill_(x < 0, 3.0)
  v.add_(1)
  return y, v
}
fn views_zeroed(x) {
  let y = x * 2.0
  y[0].zero_()
  y.t().add_(1)
  return y
}
fn stale_views(x) {
  let y = x + 1.0
  let r = y[1]
  let d = y.detach()
  let u = y.unsqueeze(0)
  y.mul_(2)
  u[0, 0, 0] = 5.0
  return r, d, u, y
}
fn row_from_row(x) {
  let y = x.exp()
  y[0] += y[1]
  y[2] = y[0] * y[1]
  return y
}
fn index_add(x) {
  let y = x * 1.0
  y[tensor([0, 2])] += 1.0
  y[:, tensor([1, 3])] = x[:, :2] * 10.0
  return y
}
fn filled_buffer(x) {
  let out = zeros([3, 12], dtype=f64)
  for k in range(3) {
    out[:, k * 4:(k + 1) * 4] = tanh(x * (k + 1))
  }
  return out
}
fn accumulated(x) {
  let acc = zeros_like(x)
  for k in range(4) { acc.add_(x * k) }
  acc.div_(2.0)
  return acc
}
fn relu_chain(x) {
  let h = x * 3.0
  h = h.relu_()
  h = h.sub_(1.0).abs_()
  return h
}
fn made_then_filled(x) {
  let t = empty([4], dtype=f64)
  t.fill_(x.sum())
  t[1:3].copy_(x[0, :2])
  return t
}
fn attention(x) {
  let scores = x @ x.t()
  let mask = ones([3, 3]).triu(1).bool()
  scores.masked_fill_(mask, -1e9)
  return softmax(scores, dim=-1) @ x
}
fn residual(x) {
  let h = x
  h += tanh(h)
  h += tanh(h) * 0.5
  return h
}

test "in-place ops on tensors a compiled function made give eager's values" {
  check_values(twice_in_place, [[3, 4]])
  check_values(clamped, [[3, 4]])
  check_values(row_set, [[3, 4]])
  check_values(cols_set, [[3, 4], [3, 2]])
  check_values(mask_set, [[3, 4]])
  check_values(through_view, [[3, 4]])
  check_values(views_zeroed, [[3, 4]])
  check_values(stale_views, [[3, 4]])
  check_values(row_from_row, [[3, 4]])
  check_values(index_add, [[3, 4]])
  check_values(filled_buffer, [[3, 4]])
  check_values(accumulated, [[3, 4]])
  check_values(relu_chain, [[3, 4]])
  check_values(made_then_filled, [[3, 4]])
  check_values(attention, [[3, 4]])
  check_values(residual, [[3, 4]])
}

test "a clone inside a compiled function is an op, not the capture's values" {
  check_values(fn(x) = x.clone(), [[3]])
  let gm = compile(fn(x) = (x > 0).clone(), randn([4], dtype=f64))
  let x = tensor([1.0, -1.0, 2.0, -2.0], dtype=f64)
  expect(str(gm(x).dtype) == "bool" and gm(x).tolist() == [true, false, true, false], f"{gm(x)}")
}

# ---- training steps -------------------------------------------------------------------

# The compiled step's loss and .grad against eager's backward.
fn grads_match(m, gm, loss_fn, x) {
  m.zero_grad()
  let got = gm(x)
  let gg = [p.grad.clone() for p in m.parameters()]
  m.zero_grad()
  let want = loss_fn(x)
  want.backward()
  expect_close(got, want.detach(), rtol=0, atol=0)
  let k = 0
  for p in m.parameters() {
    expect_close(gg[k], p.grad, rtol=0, atol=0)
    k = k + 1
  }
}

model Block() {
  a = nn.Linear(4, 6).double()
  b = nn.Linear(6, 4).double()
  forward(x) {
    let h = self.a(x)
    h = h.relu_()
    h.mul_(2.0)
    h.add_(0.5)
    h.clamp_(-3.0, 3.0)
    let s = self.b(h)
    let scores = s @ s.t()
    scores.masked_fill_(ones([5, 5]).triu(1).bool(), -1e9)
    return (softmax(scores, dim=-1) @ s).pow(2).mean()
  }
}

test "in-place ops on activations train as eager does: loss and gradients" {
  manual_seed(3)
  let m = Block()
  let gm = compile(m, randn([5, 4], dtype=f64), train=true)
  for k in range(3) { grads_match(m, gm, m, randn([5, 4], dtype=f64)) }
}

model Normed() {
  lin = nn.Linear(3, 3).double()
  running = zeros([3], dtype=f64)
  forward(x) {
    let h = self.lin(x)
    no_grad {
      self.running.mul_(0.9).add_(h.mean(0) * 0.1)
    }
    let c = h - h.mean(0)
    c.add_(0.1)
    return (c * c.tanh()).sum()
  }
}

test "running statistics written in place under no_grad: each call as eager's" {
  manual_seed(4)
  let m = Normed()
  let e = Normed()
  e.load_state_dict(m.state_dict())
  let om = optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
  let oe = optim.SGD(e.parameters(), lr=0.1, momentum=0.9)
  let gm = compile(m, randn([4, 3], dtype=f64), train=true, optimizer=om)
  for k in range(4) {
    let x = randn([4, 3], dtype=f64)
    let got = gm(x)
    oe.zero_grad()
    let want = e(x)
    want.backward()
    oe.step()
    expect_close(got, want.detach(), rtol=0, atol=0)
  }
  expect_close(m.running, e.running, rtol=0, atol=0)
  expect_close(m.lin.weight, e.lin.weight, rtol=0, atol=0)
  expect_close(m.lin.bias, e.lin.bias, rtol=0, atol=0)
}

model Filled() {
  lin = nn.Linear(3, 4).double()
  forward(x) {
    let out = zeros([2, 8], dtype=f64)
    out[:, :4] = self.lin(x)
    out[:, 4:] = self.lin(x * 2.0)
    let y = self.lin(x)
    y[0] = 0.0
    y[:, 1] *= 3.0
    return out.pow(2).sum() + y.pow(2).sum()
  }
}

test "index assignment into buffers and activations: PyTorch's gradients, eager and compiled" {
  manual_seed(5)
  let m = Filled()
  let x = randn([2, 3], dtype=f64)
  # By hand, out of place: what PyTorch's CopySlices gives.
  let a = m.lin(x)
  let b = m.lin(x * 2.0)
  let c = m.lin(x)
  let c2 = cat([zeros([1, 4], dtype=f64), c[1:]], 0)
  let c3 = cat([c2[:, :1], c2[:, 1:2] * 3.0, c2[:, 2:]], 1)
  let ref = a.pow(2).sum() + b.pow(2).sum() + c3.pow(2).sum()
  m.zero_grad()
  ref.backward()
  let want = m.lin.weight.grad.clone()
  m.zero_grad()
  m(x).backward()
  expect_close(m.lin.weight.grad, want, rtol=1e-12, atol=1e-12)
  let gm = compile(m, x, train=true)
  for k in range(2) { grads_match(m, gm, m, randn([2, 3], dtype=f64)) }
}

test "an in-place op through a view of an activation is refused as eager refuses it" {
  let lin = nn.Linear(3, 3).double()
  fn loss_fn(x) {
    let h = lin(x)
    h[0].zero_()
    return h.sum()
  }
  expect_error(fn() = loss_fn(randn([2, 3], dtype=f64)), "in-place writes into a view of a tensor that requires grad")
  expect_error(fn() = compile(loss_fn, randn([2, 3], dtype=f64), train=true),
               "in-place writes into a view of a tensor that requires grad")
}

model Adamed() {
  a = nn.Linear(4, 6).double()
  b = nn.Linear(6, 2).double()
  forward(x) {
    let h = self.a(x)
    h.tanh_()
    let buf = zeros([5, 4], dtype=f64)
    buf[:, :2] = self.b(h)
    buf[:, 2:] = self.b(h * h)
    return buf.pow(2).mean()
  }
}

test "parameters after several Adam steps of a compiled step with in-place ops equal eager's" {
  manual_seed(6)
  let m = Adamed()
  let e = Adamed()
  e.load_state_dict(m.state_dict())
  let om = optim.Adam(m.parameters(), lr=0.01)
  let oe = optim.Adam(e.parameters(), lr=0.01)
  let gm = compile(m, randn([5, 4], dtype=f64), train=true, optimizer=om)
  for k in range(4) {
    let x = randn([5, 4], dtype=f64)
    let got = gm(x)
    oe.zero_grad()
    let want = e(x)
    want.backward()
    oe.step()
    expect_close(got, want.detach(), rtol=0, atol=0)
  }
  let pe = e.parameters()
  let k = 0
  for p in m.parameters() {
    expect_close(p, pe[k], rtol=0, atol=0)
    k = k + 1
  }
}

# ---- Note [Numbers read for a condition] (interp/eval/script/script_mode.hpp) -----------

fn gate(x) {
  if x.sum().item() > 0 { return x * 2.0 }
  return -x
}
fn halve(x) {
  while float(x.abs().max()) > 0.1 and bool(x.sum() != 0) { x = x * 0.5 }
  if int(x.sum() * 10) == 1 { x = x + 100.0 }
  return x
}

test "an if or while on item(), float(), int() or bool() of a computed tensor lowers" {
  let gm = compile(gate, ones([3], dtype=f64))
  for s in [1.0, -1.0, 0.0] {
    let x = ones([3], dtype=f64) * s
    expect_close(gm(x), gate(x), rtol=0, atol=0)
  }
  expect("-> cond" in gm.explain(), gm.explain())
  let gh = compile(halve, ones([3], dtype=f64), mode="script")
  for s in [1.0, 0.05, 0.04, 3.0] {
    let x = ones([3], dtype=f64) * s
    expect_close(gh(x), halve(x), rtol=0, atol=0)
  }
}
