# compile(f, x, mode="script"): if/elif and while on a tensor lower to cond and
# while_loop nodes, for over a range or a tensor's rows to a scan
# (graph/control_flow.hpp); the compiled function equals eager on inputs that take
# other branches and other trip counts than the example did.

fn gate(x) {
  let y = x
  if x.sum() > 0 {
    y = relu(x) * 2.0
  } elif x.sum() < -1.0 {
    y = x * x
  } else {
    y = -x
  }
  return y
}

test "a per-batch gate: if/elif/else on a tensor is a cond, each branch taken by some input" {
  manual_seed(0)
  let gm = compile(gate, randn([4, 3], dtype=f64), mode="script")
  let ir = gm.ir()
  expect(ir.count(" = cond(") == 2, ir)
  expect(" then(" in ir and " else(" in ir, ir)
  for shift in [-2.0, -0.3, 0.0, 2.0] {
    let z = randn([4, 3], dtype=f64) * 0.1 + shift
    expect_close(gm(z), gate(z), rtol=0, atol=0)
  }
  let text = gm.explain()
  expect("test_control_flow.dsl:8:3: if on a tensor -> cond (outputs: y)" in text, text)
  expect("test_control_flow.dsl:10:10: elif on a tensor -> cond (outputs: y)" in text, text)
}

fn newton_sqrt(a) {
  let x = a * 0.0 + 1.0
  while (x * x - a).abs().max() > 1e-12 {
    x = 0.5 * (x + a / x)
  }
  return x
}

test "Newton's iterations until a norm falls below a bound: a while_loop, any trip count" {
  let gm = compile(newton_sqrt, tensor([2.0, 9.0], dtype=f64), mode="script")
  expect(gm.ir().count(" = while_loop(") == 1, gm.ir())
  for a in [tensor([4.0, 16.0], dtype=f64), tensor([1e6, 1e-6], dtype=f64), tensor([1.0, 1.0], dtype=f64)] {
    expect_close(gm(a), newton_sqrt(a), rtol=0, atol=0)
    expect_close(gm(a), a.sqrt(), rtol=1e-12, atol=1e-12)
  }
}

# Note [Counters carried as tensors]: a trip count, a flag and a running number.
fn newton_counted(a) {
  let x = a * 0.0 + 1.0
  let steps = 0
  let last_step = 1.0
  let moved = false
  while (x * x - a).abs().max() > 1e-12 and steps < 100 {
    let next = 0.5 * (x + a / x)
    last_step = last_step * 0.5
    x = next
    steps = steps + 1
    moved = true
  }
  return x, steps, moved, last_step
}

test "a while loop's plain counters and flags are carried as 0-dim tensors, with eager's values" {
  let gm = compile(newton_counted, tensor([2.0, 9.0], dtype=f64), mode="script")
  expect(gm.ir().count(" = while_loop(") == 1, gm.ir())
  expect("last_step, steps, moved carried as 0-dim tensors" in gm.explain(), gm.explain())
  for a in [tensor([4.0, 16.0], dtype=f64), tensor([1e6, 1e-6], dtype=f64), tensor([1.0, 1.0], dtype=f64)] {
    let (x, steps, moved, last_step) = gm(a)
    let (want_x, want_steps, want_moved, want_last) = newton_counted(a)
    expect(last_step.dtype == f64 and last_step.item() == want_last, f"{last_step} {want_last}")
    expect_close(x, want_x, rtol=0, atol=0)
    expect(steps.dtype == i64 and steps.item() == want_steps, f"{steps} {want_steps}")
    expect(str(moved.dtype) == "bool" and moved.item() == want_moved, f"{moved} {want_moved}")
  }
}

# An LSTM written as a loop over the rows of its input, weights closed over.
fn lstm_weights(hidden) {
  manual_seed(3)
  return [randn([4, 4 * hidden], dtype=f64) * 0.3, randn([hidden, 4 * hidden], dtype=f64) * 0.3, zeros([4 * hidden], dtype=f64)]
}
let W = lstm_weights(5)

fn lstm(xs) {
  let h = zeros([2, 5], dtype=f64)
  let c = zeros([2, 5], dtype=f64)
  let loss = zeros([], dtype=f64)
  for x in xs {
    let gates = x @ W[0] + h @ W[1] + W[2]
    let i = sigmoid(gates[:, 0:5])
    let f = sigmoid(gates[:, 5:10])
    let g = tanh(gates[:, 10:15])
    let o = sigmoid(gates[:, 15:20])
    c = f * c + i * g
    h = o * tanh(c)
    loss = loss + (h * h).sum()
  }
  return loss, h
}

test "an LSTM over a sequence is one scan: equal to eager, IR size independent of the length" {
  manual_seed(4)
  let short = compile(lstm, randn([16, 2, 4], dtype=f64), mode="script")
  let long = compile(lstm, randn([256, 2, 4], dtype=f64), mode="script")
  let xs = randn([256, 2, 4], dtype=f64)
  let got = long(xs)
  let want = lstm(xs)
  expect_close(got[0], want[0], rtol=1e-12, atol=1e-12)
  expect_close(got[1], want[1], rtol=1e-12, atol=1e-12)
  let lines16 = short.ir().count("\n")
  let lines256 = long.ir().count("\n")
  print(f"LSTM step IR: {lines16} lines at length 16, {lines256} at length 256")
  expect(lines16 == lines256, f"{lines16} vs {lines256}")
  expect(long.ir().count(" = scan(") == 1, long.ir())
  expect("for over 256 rows -> scan (carries: c, h, loss)" in long.explain(), long.explain())
  # The default passes run inside the body too, on a copy: the captured graph stays.
  let captured = long.ir(captured=true)
  long.optimize("default")
  expect(long.ir(captured=true) == captured)
  expect(long.ir() != captured, "fusion inside the scan's body")
  expect_close(long(xs)[0], want[0], rtol=1e-12, atol=1e-12)
}

test "a scan's body is planned once: the same plan at any length, its memory the same at every step" {
  manual_seed(14)
  let short = compile(lstm, randn([16, 2, 4], dtype=f64), mode="script")
  let long = compile(lstm, randn([256, 2, 4], dtype=f64), mode="script")
  short.optimize("default")
  long.optimize("default")
  let plans16 = short.memory_plan()["regions"]
  let plans256 = long.memory_plan()["regions"]
  expect(len(plans256) == 1 and plans256[0]["where"].startswith("body of scan at "), str(plans256))
  expect(plans256[0]["buffers"] > 0 and plans256[0]["planned_bytes"] < plans256[0]["naive_bytes"], str(plans256))
  expect(str(plans16) == str(plans256), f"{plans16} vs {plans256}")
  # What a call holds at its peak beyond its input does not grow with the length.
  fn peak_of(gm, xs) {
    gm(xs)
    reset_peak_memory_stats()
    let before = memory_allocated()
    gm(xs)
    return max_memory_allocated() - before
  }
  let xs16 = randn([16, 2, 4], dtype=f64)
  let xs256 = randn([256, 2, 4], dtype=f64)
  let peak16 = peak_of(short, xs16)
  let peak256 = peak_of(long, xs256)
  print(f"LSTM call peak beyond its input: {peak16} bytes at length 16, {peak256} at length 256")
  expect(peak256 == peak16, f"peak {peak16} bytes at length 16, {peak256} at 256")
  expect_close(long(xs256)[0], lstm(xs256)[0], rtol=1e-12, atol=1e-12)
}

fn weighted_rows(xs) {
  let s = xs[0] * 0.0
  for i in range(xs.shape[0]) {
    s = s + xs[i] * i
  }
  return s
}

test "for over a range: the counter is a scanned tensor, and x[i] reads row i of every call's input" {
  manual_seed(5)
  let gm = compile(weighted_rows, randn([6, 3], dtype=f64), mode="script")
  let xs = randn([6, 3], dtype=f64)
  expect_close(gm(xs), weighted_rows(xs), rtol=1e-12, atol=1e-12)
  expect("index_select(" in gm.ir(), gm.ir())
}

fn count_up(x) {
  for k in range(3) {
    x = x + [1.0, 2.0, 3.0][k]
  }
  return x
}

test "a for whose body cannot be a scan is unrolled, and explain() says why" {
  let gm = compile(count_up, zeros([2], dtype=f64), mode="script")
  expect_close(gm(ones([2], dtype=f64)), ones([2], dtype=f64) * 7.0)
  expect("for unrolled: its body cannot be captured as one step (an index reads the value of %k" in gm.explain(), gm.explain())
  expect(" = scan(" not in gm.ir(), gm.ir())
}

fn branchy(x) {
  if x.sum() > 0 {
    return x
  }
  return -x
}

fn branchy_in_loop(x) {
  while x.sum() < 10 {
    if x.sum() > 5 {
      return x
    }
    x = x * 2.0
  }
  return -x
}

fn changes_type(x) {
  if x.sum() > 0 {
    x = x.sum()
  }
  return x
}

test "compile() traces, and lowers by itself when the trace meets an if or while on a tensor" {
  manual_seed(1)
  let gm = compile(gate, randn([4, 3], dtype=f64))
  for shift in [-2.0, -0.3, 0.0, 2.0] {
    let z = randn([4, 3], dtype=f64) * 0.1 + shift
    expect_close(gm(z), gate(z), rtol=0, atol=0)
  }
  expect(gm.ir().count(" = cond(") == 2, gm.ir())
  let text = gm.explain()
  expect("an if or while on a tensor at " in text and "captured again with control flow lowered" in text, text)
  expect("if on a tensor -> cond (outputs: y)" in text, text)
  # a new input shape captures again, lowered from the start
  expect_close(compile_again_shape(gm), gate(ones([2, 5])), rtol=0, atol=0)
}

fn compile_again_shape(gm) = gm(ones([2, 5]))

test "what cannot lower is an error that says why; tracing points at mode=script" {
  expect_error("compile(gate, ones([2]), mode=\"trace\")", "without mode=\"trace\", or with mode=\"script\", lowers an if or while on a tensor")
  # a return inside a while on a tensor lowers (Note [Returns inside a lowered loop])
  let gb = compile(branchy_in_loop, ones([2], dtype=f64), mode="script")
  for s in [0.5, 2.0, 3.0, 20.0] {
    expect_close(gb(ones([2], dtype=f64) * s), branchy_in_loop(ones([2], dtype=f64) * s), rtol=0, atol=0)
  }
  expect_error("compile(changes_type, ones([2]), mode=\"script\")", "variable 'x' is f32[] after the then-branch and f32[2] after the else-branch")
  expect_error("compile(gate, ones([2]), mode=\"jit\")", "compile(): mode must be \"auto\"")
}

fn rnn_invariant(xs, w) {
  let h = xs[0] * 0.0
  for x in xs {
    h = tanh(h @ (w.t() * 0.5) + x)
  }
  return h
}

test "licm moves what a loop body computes from invariants alone before the loop" {
  manual_seed(6)
  let w = randn([3, 3], dtype=f64)
  # 30 steps: a loop too long to unroll (passes/unroll.cpp)
  let gm = compile(rnn_invariant, randn([30, 2, 3], dtype=f64), w, mode="script")
  let report = gm.optimize("default", true)
  expect("moved 2 loop-invariant nodes out of the scan" in report, report)
  let ir = gm.ir()
  expect(ir.find("transpose(") < ir.find(" = scan(") and ir.find("transpose(") >= 0, ir)
  let xs = randn([30, 2, 3], dtype=f64)
  expect_close(gm(xs, w), rnn_invariant(xs, w), rtol=1e-12, atol=1e-12)
}

fn halve_until_small(x) {
  let n = 0
  while not (x.abs().max() < 1.0) or n < 2 {
    x = x * 0.5
    n = n + 1
  }
  return x, n
}

test "and, or and not on a traced condition combine masks: compile() lowers them without mode=script" {
  let gm = compile(halve_until_small, tensor([40.0, -3.0], dtype=f64))
  expect(gm.ir().count(" = while_loop(") == 1, gm.ir())
  for x in [tensor([40.0, -3.0], dtype=f64), tensor([0.1, 0.2], dtype=f64), tensor([1e6], dtype=f64)] {
    let (y, n) = gm(x)
    let (want_y, want_n) = halve_until_small(x)
    expect_close(y, want_y, rtol=0, atol=0)
    expect(n.item() == want_n, f"{n} {want_n}")
  }
}

fn count_positive(xs) {
  let n = 0
  let scale = 1.0
  let unchanged = 7
  let y = xs[0] * 0.0
  for i in range(3) {
    if xs[i].sum() > 0 {
      n = n + 1
      y = y + xs[i]
    } else {
      scale = scale * 0.5
    }
  }
  return y * scale * unchanged, n
}

test "an if on a tensor outputs the numbers its branches change as 0-dim tensors; an unchanged one stays a number" {
  let gm = compile(count_positive, randn([3, 4], dtype=f64), mode="script")
  for seed in [1, 2, 3, 4] {
    manual_seed(seed)
    let xs = randn([3, 4], dtype=f64)
    let (y, n) = gm(xs)
    let (want_y, want_n) = count_positive(xs)
    expect_close(y, want_y, rtol=0, atol=0)
    expect(n.dtype == i64 and n.item() == want_n, f"{n} {want_n}")
  }
}

fn plain_while(x, xs) {
  let i = 0
  while i < 3 {
    x = x * 2.0 + xs[i]
    i = i + 1
  }
  return x
}

test "a while on a plain condition runs as usual, unrolled, its counter a number (a list indexed by it)" {
  let xs = [1.0, 2.0, 3.0]
  let gm = compile(plain_while, ones([2]), xs, mode="script")
  expect(not (" = while_loop(" in gm.ir()), gm.ir())
  expect_close(gm(ones([2]) * 3.0, xs), plain_while(ones([2]) * 3.0, xs), rtol=0, atol=0)
}

# Note [Objects changed inside a lowered region]: a lowered body runs once while it is
# captured, so a list, dict or model made outside it cannot change inside it.
fn appends_in_while(x) {
  let hs = []
  while x.sum() > 1 {
    hs.append(x)
    x = x * 0.5
  }
  return stack(hs)
}

fn sets_key_in_if(x) {
  let seen = {"big": 0}
  if x.sum() > 1 {
    seen["big"] = 1
  }
  return x * seen["big"]
}

model Counter() {
  n = 0
  forward(x) {
    if x.sum() > 1 {
      self.n = self.n + 1
      x = x * 0.5
    }
    return x
  }
}

fn logs_rows(xs) {
  let log = {}
  let s = xs[0] * 0.0
  for k in range(xs.shape[0]) {
    s = s + xs[k]
    log["rows"] = k
  }
  return s * log["rows"]
}

test "a lowered body that changes a list, dict or model made outside it is an error; a for unrolls instead" {
  expect_error("compile(appends_in_while, tensor([4.0, 4.0]), mode=\"script\")",
               "a lowered loop or branch (compile, script mode) runs its body once, while capturing, so it cannot append to a list made outside it")
  expect_error("compile(sets_key_in_if, tensor([4.0, 4.0]), mode=\"script\")", "cannot set a key of a dict made outside it")
  let m = Counter()
  expect_error("compile(m, tensor([4.0, 4.0]), mode=\"script\")", "cannot set attribute 'n' of a Counter made outside it")
  expect(m.n == 0, f"the failed capture changed the model: n = {m.n}")
  # The for's dict is written at each unrolled step, as eager writes it.
  let gm = compile(logs_rows, ones([3, 2], dtype=f64), mode="script")
  expect("for unrolled: its body fails with the row as a tensor (a lowered loop or branch" in gm.explain(), gm.explain())
  let xs = randn([3, 2], dtype=f64)
  expect_close(gm(xs), logs_rows(xs), rtol=0, atol=0)
}

# A variable a block declares with `let` lives only in the block: a branch or a loop's
# body that declares and then reassigns one does not output or carry it.
fn block_locals(xs) {
  let acc = xs[0] * 0.0
  for x in xs {
    let t = x * 2.0
    t = t + 1.0
    if t.sum() > 0 {
      let u = t * t
      u = u - 1.0
      acc = acc + u
    }
  }
  return acc
}

test "let-declared variables stay inside the cond or scan that declares them" {
  manual_seed(12)
  let gm = compile(block_locals, randn([5, 3], dtype=f64), mode="script")
  expect(gm.ir().count(" = scan(") == 1 and "carries: acc)" in gm.explain(), gm.explain())
  let xs = randn([5, 3], dtype=f64)
  expect_close(gm(xs), block_locals(xs), rtol=0, atol=0)
}

# A loop may carry tuples and lists of tensors: an RNN's (h, c) state kept as one value.
let Wc = tensor([0.7, -0.3, 0.5], dtype=f64).requires_grad_()
fn cell_step(x, state) {
  let (h, c) = state
  c = c * Wc + x
  return (tanh(c), [c, h])
}
fn tuple_rnn(xs) {
  let state = (xs[0] * 0.0, xs[0] * 0.0)
  for x in xs {
    let (h, cs) = cell_step(x, state)
    state = (h, cs[0])
  }
  return (state[0] * state[1]).sum()
}
fn halving(x) {
  let state = [x, x * 0.0]
  while state[0].sum() > 1.0 {
    state = [state[0] * 0.5, state[1] + 1.0]
  }
  return state
}

test "loops carry tuples and lists of tensors, and train through them" {
  manual_seed(13)
  let gm = compile(tuple_rnn, randn([6, 3], dtype=f64), mode="script")
  expect("for over 6 rows -> scan (carries: state)" in gm.explain(), gm.explain())
  let xs = randn([6, 3], dtype=f64)
  expect_close(gm(xs), tuple_rnn(xs), rtol=0, atol=0)
  let step = compile(tuple_rnn, randn([6, 3], dtype=f64), train=true, mode="script")
  Wc.grad = none
  let loss = step(xs)
  let got = Wc.grad
  Wc.grad = none
  tuple_rnn(xs).backward()
  expect_close(got, Wc.grad, rtol=1e-10, atol=1e-12)
  Wc.grad = none
  let wl = compile(halving, tensor([4.0, 4.0], dtype=f64), mode="script")
  for x in [tensor([8.0, 8.0], dtype=f64), tensor([0.1, 0.2], dtype=f64)] {
    let got_state = wl(x)
    let want_state = halving(x)
    expect(type(got_state) == "list", f"{got_state}")
    expect_close(got_state[0], want_state[0], rtol=0, atol=0)
    expect_close(got_state[1], want_state[1], rtol=0, atol=0)
  }
}
