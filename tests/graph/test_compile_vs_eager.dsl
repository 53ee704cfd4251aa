# Differential tests: a compiled function gives eager's results on later calls whose
# inputs, globals, fields and seeds differ from the capture's, or refuses at compile
# time (Note [What a capture read] in interp/eval/capture_reads.hpp).
import nn
import optim

test "a global number the function reads is a guard: changing it captures again" {
  let lr = 0.5
  fn f(x) = x * lr
  let gm = compile(f, ones([2], dtype=f64))
  lr = 2.0
  expect_close(gm(ones([2], dtype=f64)), f(ones([2], dtype=f64)), rtol=0, atol=0)
  expect("variable 'lr' the function read is 2.0, it was 0.5" in gm.explain(), gm.explain())
  lr = 0.5
  expect_close(gm(ones([2], dtype=f64)), tensor([0.5, 0.5], dtype=f64), rtol=0, atol=0)
}

test "a global tensor reassigned is read anew; one changed in place is read live" {
  let g = ones([2], dtype=f64)
  fn f(x) = x + g
  let gm = compile(f, ones([2], dtype=f64))
  g = full([2], 10.0, dtype=f64)
  expect_close(gm(ones([2], dtype=f64)), f(ones([2], dtype=f64)), rtol=0, atol=0)
  g.add_(1)
  expect_close(gm(ones([2], dtype=f64)), tensor([12.0, 12.0], dtype=f64), rtol=0, atol=0)
}

test "an item of a global list replaced is seen by the next call" {
  let ws = [ones([2], dtype=f64), ones([2], dtype=f64)]
  fn f(x) = x + ws[0] + ws[1]
  let gm = compile(f, ones([2], dtype=f64))
  ws[0] = full([2], 5.0, dtype=f64)
  expect_close(gm(ones([2], dtype=f64)), f(ones([2], dtype=f64)), rtol=0, atol=0)
}

test "a model's number attribute is a guard" {
  model Scaled() {
    scale = 2.0
    forward(x) = x * self.scale
  }
  let m = Scaled()
  let gm = compile(m, ones([2], dtype=f64))
  m.scale = 5.0
  expect_close(gm(ones([2], dtype=f64)), m(ones([2], dtype=f64)), rtol=0, atol=0)
}

test "a global weight in a training step's loss changes the loss and the gradients" {
  manual_seed(0)
  let lin = nn.Linear(3, 1).to(f64)
  let decay = 0.0
  fn loss_fn(x) = (lin(x) ** 2).mean() + decay * (lin.weight ** 2).sum()
  let gm = compile(loss_fn, randn([4, 3], dtype=f64), train=true)
  decay = 1.0
  let x = randn([4, 3], dtype=f64)
  lin.zero_grad()
  let got = gm(x)
  let got_grad = lin.weight.grad.clone()
  lin.zero_grad()
  let want = loss_fn(x)
  want.backward()
  expect_close(got, want.detach(), rtol=0, atol=0)
  expect_close(got_grad, lin.weight.grad, rtol=0, atol=0)
}

test "script mode: a global threshold of a lowered if is a guard" {
  let thr = 0.0
  fn gate(x) {
    let y = x
    if x.sum() > thr { y = x * 2 } else { y = -x }
    return y
  }
  let gm = compile(gate, ones([2], dtype=f64), mode="script")
  thr = 100.0
  expect_close(gm(ones([2], dtype=f64)), gate(ones([2], dtype=f64)), rtol=0, atol=0)
}

test "the call that captures again draws eager's numbers for eager's seed" {
  manual_seed(3)
  let m = nn.Sequential([nn.Linear(4, 8), nn.Dropout(0.5), nn.ReLU(), nn.Linear(8, 2)])
  let gm = compile(m, randn([3, 4]))
  m.eval()
  gm(ones([3, 4]))
  m.train()
  manual_seed(5)
  let got = gm(ones([3, 4]))   # captures again (training flags), then runs the graph
  manual_seed(5)
  expect_close(got, m(ones([3, 4])), rtol=0, atol=0)
}

test "compile() itself does not move the generator" {
  fn noisy(x) = x + randn([2], dtype=f64)
  manual_seed(7)
  let gm = compile(noisy, zeros([2], dtype=f64))
  let got = gm(zeros([2], dtype=f64))
  manual_seed(7)
  expect_close(got, noisy(zeros([2], dtype=f64)), rtol=0, atol=0)
}

test "a closure over a function's variable compiles with that value" {
  fn make(scale) {
    let s = scale
    fn f(x) = x * s
    return f
  }
  let f = make(3.0)
  let gm = compile(f, ones([2], dtype=f64))
  expect_close(gm(full([2], 2.0, dtype=f64)), f(full([2], 2.0, dtype=f64)), rtol=0, atol=0)
}

test "a graph module called inside another capture hands on its guards" {
  let k = 2.0
  fn inner(x) = x * k
  let gi = compile(inner, ones([2], dtype=f64))
  fn outer(x) = gi(x) + 1
  let go = compile(outer, ones([2], dtype=f64))
  k = 3.0
  expect_close(go(ones([2], dtype=f64)), tensor([4.0, 4.0], dtype=f64), rtol=0, atol=0)
}

test "a dict among the results comes back as a dict" {
  fn heads(x) = {"double": x * 2, "sum": x.sum(), "tag": "ok"}
  let gm = compile(heads, ones([3], dtype=f64))
  let out = gm(full([3], 2.0, dtype=f64))
  expect_close(out["double"], full([3], 4.0, dtype=f64), rtol=0, atol=0)
  expect_close(out["sum"], tensor(6.0, dtype=f64), rtol=0, atol=0)
  expect(out["tag"] == "ok")
}

test "BatchNorm in training: the running statistics move at every call as eager's" {
  manual_seed(11)
  let bn = nn.BatchNorm1d(3).to(f64)
  let twin = nn.BatchNorm1d(3).to(f64)
  twin.load_state_dict(bn.state_dict())
  let gm = compile(bn, randn([4, 3], dtype=f64))
  for i in range(3) {
    let x = randn([4, 3], dtype=f64) * (i + 1)
    expect_close(gm(x), twin(x), rtol=0, atol=0)
    expect_close(bn.running_mean, twin.running_mean, rtol=0, atol=0)
    expect_close(bn.running_var, twin.running_var, rtol=0, atol=0)
  }
  expect("1 graph cached" in gm.explain(), gm.explain())
}

test "assigning a global, an enclosing variable or a model's attribute is refused at compile time" {
  let calls = 0
  fn counted(x) {
    calls = calls + 1
    return x
  }
  expect_error("compile(counted, ones([2]))", "cannot assign to 'calls', a global variable made before the call")
  expect(calls == 0, f"the refused capture changed nothing: {calls}")
}
