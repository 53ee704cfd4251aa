# The unroll pass (passes/unroll.cpp, Note [When a scan unrolls]): a scan whose steps
# times body nodes fit the budget becomes its steps; a longer one, or one with a loop
# in its body, stays rolled (one of no steps too: tests/passes/golden/unroll_kept.ir). Each decision is a note; the unrolled
# graph equals eager, values and gradients (forward and reverse scans), in f64.

let R = tensor([0.5, -0.7], dtype=f64).requires_grad_()
fn rnn_loss(xs) {
  let h = zeros([2], dtype=f64)
  for x in xs {
    h = tanh(h * R + x)
  }
  return (h * h).sum()
}

fn scans_in(gm) = gm.ir().count(" = scan(")

test "a short scan unrolls, a long one stays rolled, and the notes say why" {
  manual_seed(21)
  let short = compile(rnn_loss, randn([4, 2], dtype=f64), mode="script")
  let report = short.optimize("default", true)
  expect("unrolled the scan at " in report and "(4 steps x 3 body nodes, within the budget of 64)" in report, report)
  expect(scans_in(short) == 0, short.ir())
  let long = compile(rnn_loss, randn([40, 2], dtype=f64), mode="script")
  let kept = long.optimize("default", true)
  expect("kept the scan at " in kept and "rolled: 40 steps x 3 body nodes = 120 nodes unrolled, over the budget of 64" in kept,
         kept)
  expect(scans_in(long) == 1, long.ir())
  let xs = randn([4, 2], dtype=f64)
  expect_close(short(xs), rnn_loss(xs), rtol=1e-14, atol=0)
  let ys = randn([40, 2], dtype=f64)
  expect_close(long(ys), rnn_loss(ys), rtol=1e-14, atol=0)
}

# The compiled step's loss and gradient of R against eager's.
fn expect_same_step(gm, f, x) {
  R.grad = none
  let got = gm(x)
  let got_grad = R.grad
  R.grad = none
  let want = f(x)
  want.backward()
  expect_close(got, want, rtol=1e-12, atol=1e-12)
  expect_close(got_grad, R.grad, rtol=1e-10, atol=1e-12)
  R.grad = none
}

fn penalty(xs) {
  let g = grad(rnn_loss(xs), [R], create_graph=true)[0]
  return (g * g).sum()
}

test "an unrolled training step: the forward scan and its reverse scan unroll, gradients equal eager's" {
  manual_seed(22)
  let gm = compile(rnn_loss, randn([3, 2], dtype=f64), train=true, mode="script")
  expect(scans_in(gm) == 2, gm.ir())  # the forward scan and its backward, a reverse scan
  let report = gm.optimize("default", true)
  expect(report.count("unrolled the scan at ") == 2, report)
  expect(scans_in(gm) == 0, gm.ir())
  expect_same_step(gm, rnn_loss, randn([3, 2], dtype=f64))
  # grad of grad: the reverse scan of the reverse scan, all unrolled
  let twice = compile(penalty, randn([2, 2], dtype=f64), train=true, mode="script")
  twice.optimize("default")
  expect(scans_in(twice) == 0, twice.ir())
  expect_same_step(twice, penalty, randn([2, 2], dtype=f64))
}

fn nested(xs) {
  let h = zeros([2], dtype=f64)
  for x in xs {
    for k in range(2) {
      h = tanh(h * R + x)
    }
  }
  return h
}

test "a loop inside a loop body: the inner scan unrolls inside the body, the outer stays rolled" {
  manual_seed(23)
  let gm = compile(nested, randn([3, 2], dtype=f64), mode="script")
  let report = gm.optimize("unroll", true)
  expect("rolled: its body holds scan, which is unrolled only as a table op" in report, report)
  expect("in region 'body' of scan" in report and "unrolled the scan at " in report, report)
  expect(scans_in(gm) == 1, gm.ir())
  gm.optimize("default")
  let xs = randn([3, 2], dtype=f64)
  expect_close(gm(xs), nested(xs), rtol=1e-14, atol=0)
}

test "gm.render(path, \"unroll\") draws the graph before and after the decision" {
  let gm = compile(rnn_loss, randn([3, 2], dtype=f64), mode="script")
  let path = "/tmp/nabla_unroll_test.svg" if graphviz_available() else "/tmp/nabla_unroll_test.dot"
  gm.render(path, "unroll")
  let drawing = read_text(path)
  expect("before unroll" in drawing and "after unroll" in drawing and "body of scan" in drawing, drawing)
}
