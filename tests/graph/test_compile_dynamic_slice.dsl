# Slices whose bounds are tensors a capture traces (Note [A window a graph replays],
# interp/values/advanced_indexing.cpp): a window of fixed length (x[t:t+w], x[:, t-1:t+2],
# x.narrow(0, t, w)) at a lowered loop's step, a while_loop's counter or a 0-dim argument
# lowers to an index_select of positions made by ops; each compiled function against eager
# in f64, values and gradients, on several inputs and trip counts. A slice whose length
# depends on a bound's value (y[t:], y[:t]) still unrolls, and explain() says why.
import nn
import optim

fn lowered(gm) = "unrolled" not in gm.explain()

fn windows(x) {
  let s = zeros([3], dtype=f64)
  for t in range(x.shape[0] - 2) {
    s = s * 0.5 + x[t:t+3] * (t + 1.0)
  }
  return s
}

test "x[t:t+w] in a for over a range lowers to one scan, values equal eager for other trip counts" {
  let gm = compile(windows, randn([6], dtype=f64), mode="script")
  expect(lowered(gm), gm.explain())
  expect(" = scan(" in gm.ir(), gm.ir())
  for n in [6, 6, 4, 9] {
    let x = randn([n], dtype=f64)
    expect_close(gm(x), windows(x), rtol=0, atol=0)
  }
}

test "the window's gradient reaches x at the window's positions, as eager's" {
  let gm = compile(windows, randn([7], dtype=f64), mode="script")
  let w = tensor([1.0, -2.0, 0.5], dtype=f64)
  for k in range(2) {
    let x = randn([7], dtype=f64, requires_grad=true)
    let got = grad((gm(x) * w).sum(), x)
    let want = grad((windows(x) * w).sum(), x)
    expect_close(got, want, rtol=1e-12, atol=1e-12)
  }
}

fn columns(x) {
  let acc = zeros([2, 3], dtype=f64)
  for t in range(1, x.shape[1] - 2) {
    acc = acc + x[:, t-1:t+2] * x.narrow(1, t, 3)
  }
  return acc
}

test "a window at dim 1 starting before the step, and narrow with the step as start" {
  let x = randn([2, 7], dtype=f64)
  let gm = compile(columns, x, mode="script")
  expect(lowered(gm), gm.explain())
  for k in range(3) {
    let y = randn([2, 7], dtype=f64, requires_grad=true)
    expect_close(gm(y), columns(y), rtol=0, atol=0)
    expect_close(grad(gm(y).sum(), y), grad(columns(y).sum(), y), rtol=1e-12, atol=1e-12)
  }
}

fn blocks(x) {
  let y = zeros([8], dtype=f64)
  for t in range(0, 8, 2) {
    y[t:t+2] = x[t:t+2] * 2.0 + y[t:t+2] + t
  }
  return y
}

test "assignment through a window in a scan writes the window's positions, values and gradients" {
  let gm = compile(blocks, randn([8], dtype=f64), mode="script")
  expect(lowered(gm), gm.explain())
  for k in range(3) {
    let x = randn([8], dtype=f64, requires_grad=true)
    expect_close(gm(x), blocks(x), rtol=0, atol=0)
    let w = randn([8], dtype=f64)
    expect_close(grad((gm(x) * w).sum(), x), grad((blocks(x) * w).sum(), x), rtol=1e-12, atol=1e-12)
  }
}

fn counted(x) {
  let i = 0
  let s = zeros([2], dtype=f64)
  while x.abs().sum() > 0.1 {
    s = s + x[i:i+2]
    x = x * 0.5
    i = i + 1
  }
  return s
}

test "a window at a while_loop's counter, for any trip count" {
  let gm = compile(counted, tensor([1.0, 2.0, 0.5, 0.25, 0.1, 0.05, 0.01, 0.0], dtype=f64), mode="script")
  expect(" = while_loop(" in gm.ir(), gm.ir())
  for x in [tensor([0.3, 0.2, 0.1, 0.0, 0.0, 0.0, 0.0, 0.0], dtype=f64), tensor([4.0, 1.0, 2.0, 3.0, 0.0, 1.0, 0.0, 1.0], dtype=f64)] {
    expect_close(gm(x), counted(x), rtol=0, atol=0)
  }
}

fn at_arg(x, i) = x[i:i+2].sum() * 3.0 + x[i-1:i+1].sum() + x.narrow(0, i, 3).sum() * 0.5

test "a window at a 0-dim argument replays other starts, negative ones too; one eager clamps is an error" {
  let x = randn([6], dtype=f64)
  let gm = compile(at_arg, x, tensor(1))
  for i in [1, 3, -3, -4] {
    expect_close(gm(x, tensor(i)), at_arg(x, tensor(i)), rtol=0, atol=0)
  }
  # x[5:7] of 6 elements is 1 element in eager: a graph cannot change the window's length
  expect_close(x[5:7].sum(), x[5], rtol=0, atol=0)
  expect_error(fn() = gm(x, tensor(5)), "out of bounds")
  # x[-1:1] is empty in eager, and narrow(0, 4, 3) an error
  expect_error(fn() = gm(x, tensor(-1)), "out of bounds")
  expect_error(fn() = at_arg(x, tensor(4)), "do not fit dim 0")
  expect_error(fn() = gm(x, tensor(4)), "out of bounds")
}

fn tails(x) {
  let s = zeros([], dtype=f64)
  for t in range(3) {
    s = s + x[t:].sum() + x[:t + 1].sum()
  }
  return s
}

test "a slice whose length depends on the step still unrolls, and explain() says why" {
  let gm = compile(tails, randn([5], dtype=f64), mode="script")
  expect("for unrolled" in gm.explain() and "a slice whose length depends on a tensor bound" in gm.explain(), gm.explain())
  let x = randn([5], dtype=f64)
  expect_close(gm(x), tails(x), rtol=0, atol=0)
}

model Conv1() {
  proj = nn.Linear(3, 1).double()
  forward(x) {
    # x: [T, 2]; a sliding window of 3 steps through a linear map, as a 1-d convolution
    let h = zeros([1], dtype=f64)
    for t in range(x.shape[0] - 2) {
      h = tanh(self.proj(x[t:t+3, 0]) + h * 0.5 + x.narrow(0, t, 3)[:, 1].sum())
    }
    return (h * h).sum()
  }
}

test "a training step through windows at the step: loss, gradients and parameters after steps equal eager's" {
  manual_seed(3)
  let a = Conv1()
  let b = Conv1()
  b.load_state_dict(a.state_dict())
  let oa = optim.SGD(a.parameters(), lr=0.1)
  let ob = optim.SGD(b.parameters(), lr=0.1)
  let gm = compile(a, randn([6, 2], dtype=f64), train=true, mode="script")
  expect(lowered(gm), gm.explain())
  for k in range(3) {
    let x = randn([6, 2], dtype=f64)
    oa.zero_grad()
    ob.zero_grad()
    let la = gm(x)
    let lb = b(x)
    lb.backward()
    expect_close(la, lb.detach(), rtol=1e-12, atol=1e-12)
    expect_close(a.proj.weight.grad, b.proj.weight.grad, rtol=1e-10, atol=1e-12)
    oa.step()
    ob.step()
  }
  expect_close(a.proj.weight, b.proj.weight, rtol=1e-10, atol=1e-12)
  expect_close(a.proj.bias, b.proj.bias, rtol=1e-10, atol=1e-12)
}

fn method_writes(x) {
  let y = zeros([8], dtype=f64)
  for t in range(0, 8, 2) {
    y[t:t+2].copy_(x[t:t+2] * 3.0)
    y.narrow(0, t, 2).add_(t)
  }
  return y
}

test "an in-place method on a window (y[t:t+2].copy_(v), y.narrow(0, t, 2).add_(c)) writes y's window" {
  let gm = compile(method_writes, randn([8], dtype=f64), mode="script")
  expect(lowered(gm), gm.explain())
  for k in range(3) {
    let x = randn([8], dtype=f64)
    expect_close(gm(x), method_writes(x), rtol=0, atol=0)
  }
}
