# A return inside an if on a tensor condition (Note [Returns on a tensor condition],
# interp/eval/script/exits.cpp): the if lowers to a cond with the rest of the function
# in its branches, and the function returns the cond's output. Each compiled function
# is checked against eager, in f64, on inputs that take each way out.
import nn

fn early(x) {
  if x.sum() > 0 {
    return x * 2.0
  }
  let y = x - 1.0
  return y * y
}

test "an early return on a tensor is a cond; both ways out equal eager" {
  let gm = compile(early, ones([3], dtype=f64), mode="script")
  expect(gm.ir().count(" = cond(") == 1, gm.ir())
  let note = "test_script_returns.dsl:8:3: if on a tensor that may leave the function -> cond (outputs: (return); the rest of the function runs in its branches)"
  expect(note in gm.explain(), gm.explain())
  for x in [tensor([1.0, 2.0, -0.5], dtype=f64), tensor([-1.0, -2.0, 0.5], dtype=f64)] {
    expect_close(gm(x), early(x), rtol=0, atol=0)
  }
  # A plain compile() traces, meets the if, and lowers it by itself.
  let traced = compile(early, ones([3], dtype=f64))
  expect_close(traced(-ones([3], dtype=f64)), early(-ones([3], dtype=f64)), rtol=0, atol=0)
}

# if/elif/else with returns in some branches, tuples nested, statements between.
fn classify(x) {
  let s = x.sum()
  if s > 10.0 {
    return x / s, (s, x.max())
  } elif s < -10.0 {
    let flipped = -x
    return flipped, (-s, flipped.max())
  }
  let scaled = x * 0.5
  if scaled.max() > 1.0 {
    scaled = scaled.clamp(-1.0, 1.0)
  }
  return scaled, (s, scaled.max())
}

test "returns in an if/elif chain, tuples of tensors, the rest of the function after them" {
  let gm = compile(classify, ones([4], dtype=f64), mode="script")
  for x in [ones([4], dtype=f64) * 5.0, ones([4], dtype=f64) * -5.0, tensor([0.5, 3.0, -1.0, 0.2], dtype=f64),
            tensor([0.1, 0.2, 0.3, 0.4], dtype=f64)] {
    let (got, (s, m)) = gm(x)
    let (want, (want_s, want_m)) = classify(x)
    expect_close(got, want, rtol=0, atol=0)
    expect_close(s, want_s, rtol=0, atol=0)
    expect_close(m, want_m, rtol=0, atol=0)
  }
}

# A per-batch gate in a model's forward, trained: loss and gradients equal eager's.
model Gated() {
  fc = nn.Linear(3, 3).double()
  gate = nn.Linear(3, 1).double()
  forward(x) {
    let h = tanh(self.fc(x))
    if self.gate(h).mean() > 0 {
      return (h * h).sum()
    }
    return (h - 1.0).abs().sum()
  }
}

test "a model whose forward returns early trains as eager does" {
  manual_seed(3)
  let m = Gated()
  let gm = compile(m, randn([5, 3], dtype=f64), train=true, mode="script")
  for shift in [-3.0, 3.0, 0.0] {
    let x = randn([5, 3], dtype=f64) + shift
    m.zero_grad()
    let got = gm(x)
    let got_grads = [p.grad.clone() for p in m.fc.parameters()]
    expect(m.gate.weight.grad == none, "the gate only decides: no gradient reaches it")
    m.zero_grad()
    let want = m(x)
    want.backward()
    expect_close(got, want, rtol=1e-12, atol=1e-12)
    let k = 0
    for p in m.fc.parameters() {
      expect_close(got_grads[k], p.grad, rtol=1e-10, atol=1e-12)
      k = k + 1
    }
  }
}

fn mixed_structure(x) {
  if x.sum() > 0 {
    return x, x
  }
  return x
}

fn falls_off(x) {
  if x.sum() > 0 {
    return x
  }
  x = x * 2.0
}

test "both ways out must return the same structure: the error names what each returned" {
  expect_error("compile(mixed_structure, ones([2]), mode=\"script\")",
               "the function's result is (f32[2], f32[2]) after the then-branch and f32[2] after the else-branch")
  expect_error("compile(falls_off, ones([2]), mode=\"script\")",
               "the function's result is f32[2] after one branch and none after the other")
}
