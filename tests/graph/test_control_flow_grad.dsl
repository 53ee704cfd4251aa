# compile(f, x, train=true, mode="script"): gradients through the cond, scan and
# while_loop nodes that if, for and while lower to (graph/control_flow_grad.hpp). Each
# compiled step is checked against eager on inputs other than the example, values and
# gradients, in f64.

# The compiled step's loss and the gradients it leaves in `params`, then eager's.
fn compiled_and_eager(gm, f, params, x) {
  for p in params { p.grad = none }
  let got = gm(x)
  let got_grads = [p.grad for p in params]
  for p in params { p.grad = none }
  let want = f(x)
  want.backward()
  let want_grads = [p.grad for p in params]
  for p in params { p.grad = none }
  return [got, want, got_grads, want_grads]
}

fn expect_same_step(gm, f, params, x) {
  let r = compiled_and_eager(gm, f, params, x)
  expect_close(r[0], r[1], rtol=1e-12, atol=1e-12)
  for k in range(len(params)) {
    expect_close(r[2][k], r[3][k], rtol=1e-10, atol=1e-12)
  }
}

# A char-LSTM-like cell: one-hot characters in, logits over them out, the loss the
# log-likelihood of the next character; the sequence is the scanned axis.
let V = 6
let H = 5
fn lstm_params() {
  manual_seed(11)
  return [(randn([V, 4 * H], dtype=f64) * 0.4).requires_grad_(), (randn([H, 4 * H], dtype=f64) * 0.4).requires_grad_(),
          zeros([4 * H], dtype=f64).requires_grad_(), (randn([H, V], dtype=f64) * 0.4).requires_grad_()]
}
let P = lstm_params()

fn char_lstm(seq) {
  let xs = seq[0]
  let targets = seq[1]
  let h = zeros([2, H], dtype=f64)
  let c = zeros([2, H], dtype=f64)
  let loss = zeros([], dtype=f64)
  for i in range(xs.shape[0]) {
    let gates = xs[i] @ P[0] + h @ P[1] + P[2]
    let ig = sigmoid(gates[:, 0:5])
    let fg = sigmoid(gates[:, 5:10])
    let g = tanh(gates[:, 10:15])
    let og = sigmoid(gates[:, 15:20])
    c = fg * c + ig * g
    h = og * tanh(c)
    loss = loss - (log_softmax(h @ P[3], dim=1) * targets[i]).sum()
  }
  return loss
}

fn one_hot_sequence(n) {
  let ids = randint(0, V, [n + 1, 2])
  let x = zeros([n + 1, 2, V], dtype=f64)
  for t in range(n + 1) {
    for b in range(2) { x[t, b, ids[t, b].item()] = 1.0 }
  }
  return [x[0:n], x[1:n + 1]]
}

fn lstm_step(seq) = char_lstm(seq)

test "an LSTM training step over a scan equals eager, loss and every weight's gradient" {
  manual_seed(5)
  let gm = compile(lstm_step, one_hot_sequence(12), train=true, mode="script")
  expect(gm.ir().count(" = scan(") == 2, gm.ir())
  expect(gm.ir().count("reverse=true") == 1, gm.ir())
  for k in range(2) {
    expect_same_step(gm, lstm_step, P, one_hot_sequence(12))
  }
  # The reverse body reads the matmuls' results the forward saved: the forward's 3
  # matmuls, and the backward's 5 (h's and the weights' gradients; xs needs none),
  # none recomputed. Elementwise ops are recomputed from them.
  gm.optimize("default")
  expect(gm.ir().count("matmul(") == 8, gm.ir())
  expect_same_step(gm, lstm_step, P, one_hot_sequence(12))
}

test "the compiled LSTM training step has as many nodes at length 256 as at 16" {
  manual_seed(6)
  let short = compile(lstm_step, one_hot_sequence(16), train=true, mode="script")
  let long = compile(lstm_step, one_hot_sequence(256), train=true, mode="script")
  let nodes16 = short.ir().count(" = ")
  let nodes256 = long.ir().count(" = ")
  print(f"LSTM training step IR: {nodes16} nodes at length 16, {nodes256} at length 256")
  expect(nodes16 == nodes256, f"{nodes16} vs {nodes256}")
  expect_same_step(long, lstm_step, P, one_hot_sequence(256))
}

# A per-batch gate: the branch depends on the batch's values.
let G = (tensor([[0.5, -1.0, 0.3], [0.2, 0.8, -0.6], [-0.4, 0.1, 0.9]], dtype=f64)).requires_grad_()
fn gated(x) {
  let y = x @ G
  if y.sum() > 0 {
    y = relu(y) * y
  } else {
    y = tanh(y @ G)
  }
  return (y * y).sum()
}

test "a data-dependent if trains as a cond: both branches equal eager" {
  manual_seed(7)
  let gm = compile(gated, randn([4, 3], dtype=f64), train=true, mode="script")
  expect(gm.ir().count(" = cond(") == 2, gm.ir())
  for shift in [2.0, -2.0] {
    let x = randn([4, 3], dtype=f64) * 0.1 + shift
    let r = compiled_and_eager(gm, gated, [G], x)
    expect_close(r[0], r[1], rtol=1e-12, atol=1e-12)
    expect_close(r[2][0], r[3][0], rtol=1e-12, atol=1e-12)
  }
}

# Newton's iterations for sqrt(s * a) until the residual falls below a bound.
let S = tensor([1.5, 0.5], dtype=f64).requires_grad_()
fn newton_loss(a) {
  let b = a * S
  let x = b * 0.0 + 1.0
  while (x * x - b).abs().max() > 1e-12 {
    x = 0.5 * (x + b / x)
  }
  return (x * x * x).sum()
}

test "a while loop trains over its recorded trip count, and another count is an error naming the loop" {
  let a = tensor([2.0, 9.0], dtype=f64)
  let gm = compile(newton_loss, a, train=true, mode="script")
  expect(gm.ir().count(" = while_loop(") == 1 and gm.ir().count("trips=") == 1, gm.ir())
  expect("while on a tensor -> while_loop (carries: x, trip count 5 recorded for gradients)" in gm.explain(), gm.explain())
  expect_same_step(gm, newton_loss, [S], a)
  expect_same_step(gm, newton_loss, [S], tensor([2.1, 8.9], dtype=f64))
  expect_error("gm(tensor([2000.0, 9.0], dtype=f64))", "test_control_flow_grad.dsl:124:3: the loop runs more than")
}

# Grad of grad: a gradient penalty on a recurrent cell, differentiated again.
let R = tensor([0.5, -0.7], dtype=f64).requires_grad_()
fn rnn_loss(xs) {
  let h = zeros([2], dtype=f64)
  for x in xs {
    h = tanh(h * R + x)
  }
  return (h * h).sum()
}
fn penalty(xs) {
  let g = grad(rnn_loss(xs), [R], create_graph=true)[0]
  return (g * g).sum()
}

test "grad of grad through a scan: the reverse scan is differentiated again" {
  manual_seed(8)
  let gm = compile(penalty, randn([5, 2], dtype=f64), train=true, mode="script")
  expect(gm.ir().count(" = scan(") == 4, gm.ir())
  expect_same_step(gm, penalty, [R], randn([5, 2], dtype=f64))
}

# Compiled for inference, a function that takes a gradient inside: the scan keeps
# nothing, its backward runs it again to stack the carries.
fn rnn_grad(xs) = grad(rnn_loss(xs), [R])[0]

test "grad() inside an inference graph: the scan's backward recomputes the carries" {
  manual_seed(9)
  let gm = compile(rnn_grad, randn([5, 2], dtype=f64), mode="script")
  expect(gm.ir().count(" = scan(") == 3 and gm.ir().count("stack_carries=true") == 1, gm.ir())
  let xs = randn([5, 2], dtype=f64)
  expect_close(gm(xs), rnn_grad(xs), rtol=1e-12, atol=1e-12)
}

fn newton_grad(a) = grad(newton_loss(a), [S])[0]

test "a while loop whose trip count was not recorded has no gradient: the error names the loop" {
  expect_error("compile(newton_grad, tensor([2.0, 9.0], dtype=f64), mode=\"script\")",
               "no gradient through the while loop (tests/graph/test_control_flow_grad.dsl:124:3): its trip count was not recorded")
}

# A gate inside each step, and an integer counter carried beside the state: the scan's
# reverse body is the traced VJP of a body that holds a cond.
fn gated_rnn(xs) {
  let h = zeros([2], dtype=f64)
  let k = zeros([], dtype=i64)
  for x in xs {
    if (x * R).sum() > 0 {
      h = tanh(h * R + x)
    } else {
      h = h * x - R
    }
    k = k + 1
  }
  return (h * h).sum() + k * 0.0
}

test "an if inside a for trains: a cond nested in the scan's body, both branches taken" {
  manual_seed(10)
  let gm = compile(gated_rnn, randn([6, 2], dtype=f64), train=true, mode="script")
  # The forward body's cond, and in the reverse body the cond of the branches' VJPs
  # (the step's values come saved from the forward, not recomputed).
  expect(gm.ir().count(" = cond(") == 2, gm.ir())
  for k in range(3) {
    expect_same_step(gm, gated_rnn, [R], randn([6, 2], dtype=f64))
  }
}

# A loop that appends each step's state to a list, stacked after the loop: the scan
# stacks the appended value as a step output and the list gets its rows.
fn all_states(xs) {
  let h = zeros([2], dtype=f64)
  let hs = []
  for x in xs {
    h = tanh(h * R + x)
    hs.append(h * 2.0)
  }
  return (stack(hs) ** 2).sum() + len(hs) * 0.0
}
fn stacked_states(xs) {
  let h = zeros([2], dtype=f64)
  let hs = []
  for x in xs {
    h = tanh(h * R + x)
    hs.append(h)
  }
  return stack(hs)
}

test "a list appended to in a lowered for becomes a stacked scan output" {
  manual_seed(12)
  let short = compile(stacked_states, randn([32, 2], dtype=f64), mode="script")  # both too long to unroll
  let long = compile(stacked_states, randn([64, 2], dtype=f64), mode="script")
  expect("for over 64 rows -> scan (carries: h; stacks: hs)" in long.explain(), long.explain())
  short.optimize("default")
  long.optimize("default")
  # stack(select(y, 0, 0), ..., select(y, 0, n - 1)) simplifies to y: one node either way.
  expect(short.ir().count(" = ") == long.ir().count(" = "), long.ir())
  let xs = randn([64, 2], dtype=f64)
  expect_close(long(xs), stacked_states(xs), rtol=0, atol=0)
  let gm = compile(all_states, randn([7, 2], dtype=f64), train=true, mode="script")
  expect_same_step(gm, all_states, [R], randn([7, 2], dtype=f64))
}

# The stacked outputs of the step's forward scan: what the backward reads of it.
fn forward_scan_outputs(gm) {
  for line in gm.ir().split("\n") {
    if " = scan(" in line and "reverse=true" not in line { return line.split(" = scan(")[0].count("%") }
  }
  return -1
}

test "loop_checkpoint: the forward saves costly results, everything, or only the carries; the gradients are the same" {
  manual_seed(15)
  let example = one_hot_sequence(10)
  let costly = compile(lstm_step, example, train=true, mode="script")
  let every = compile(lstm_step, example, train=true, mode="script", loop_checkpoint="none")
  let carries = compile(lstm_step, example, train=true, mode="script", loop_checkpoint="full")
  # every: 3 carries + their stacks + every saved value; carries: 3 carries and their 3 stacks
  let (n_costly, n_every, n_carries) = (forward_scan_outputs(costly), forward_scan_outputs(every),
                                        forward_scan_outputs(carries))
  expect(n_carries == 6 and n_costly > n_carries and n_every > n_costly,
         f"outputs: full {n_carries}, auto {n_costly}, none {n_every}")
  for gm in [costly, every, carries] {
    gm.optimize("default")
    expect_same_step(gm, lstm_step, P, one_hot_sequence(10))
  }
  expect_error("compile(lstm_step, example, train=true, mode=\"script\", loop_checkpoint=\"some\")",
               "compile(): loop_checkpoint must be \"auto\"")
}

test "a list's rows are one unbind, its gradient one stack: a training step's size does not grow with the list" {
  manual_seed(16)
  let short = compile(all_states, randn([32, 2], dtype=f64), train=true, mode="script")
  let long = compile(all_states, randn([64, 2], dtype=f64), train=true, mode="script")
  short.optimize("default")
  long.optimize("default")
  let nodes32 = short.ir().count(" = ")
  let nodes64 = long.ir().count(" = ")
  expect(nodes32 == nodes64, f"{nodes32} nodes at 32 steps, {nodes64} at 64: {long.ir()}")
  expect(" = select(" not in long.ir() and " = unbind(" not in long.ir(), long.ir())
  expect_same_step(long, all_states, [R], randn([64, 2], dtype=f64))
}
