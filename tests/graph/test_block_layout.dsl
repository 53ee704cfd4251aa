# The block_layout pass (passes/block_layout.cpp, Note [Blocked activations between
# convolutions]): values that only convolutions and the ops around them read hold
# nChw16c; the compiled model gives eager's outputs bit for bit, a training step
# eager's gradients, and a result read by anything else, or returned, stays NCHW.
import nn

fn cnn() {
  let m = nn.Sequential([nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(64, 16, 3, padding=1), nn.ReLU(),
                         nn.Flatten(), nn.Linear(16 * 7 * 7, 10)])
  m.eval()
  return m
}

test "two pooled convolutions and a plain one: each hands its result on blocked, and the outputs are eager's" {
  manual_seed(31)
  let m = cnn()
  no_grad {
    let gm = compile(m, randn([8, 1, 28, 28]))
    let report = gm.optimize("default", true)
    expect(report.count("hold nChw16c (oneDNN's channel-blocked layout)") == 2, report)
    let ir = gm.ir()
    expect(ir.count("{blocked_out=true}") == 1 and ir.count("{blocked_inputs=[0], blocked_out=true}") == 1, ir)
    expect(ir.count("conv2d_relu(") == 1 and ir.count("{blocked_inputs=[0]}") == 1, ir)
    for k in range(3) {
      let x = randn([8, 1, 28, 28])
      expect(sum(ne(gm(x), m(x))).item() == 0, "blocked differs from eager")
    }
    # another batch size: a new capture, the same layout
    let x = randn([3, 1, 28, 28])
    expect(sum(ne(gm(x), m(x))).item() == 0, "blocked differs from eager at batch 3")
  }
}

model Tapped() {
  a = nn.Conv2d(1, 16, 3, padding=1)
  b = nn.Conv2d(16, 16, 3, padding=1)
  forward(x) {
    let h = max_pool2d(relu(self.a(x)), 2)
    return (relu(self.b(h)), h.sum())
  }
}

test "a result that is also read by another op, or returned, stays NCHW" {
  manual_seed(32)
  let m = Tapped()
  no_grad {
    let gm = compile(m, randn([2, 1, 8, 8]))
    let report = gm.optimize("default", true)
    expect("stay NCHW: %" in report and "read by sum" in report, report)
    expect("blocked_out" not in gm.ir(), gm.ir())
    let x = randn([2, 1, 8, 8])
    let (got, s) = gm(x)
    let (want, t) = m(x)
    expect(sum(ne(got, want)).item() == 0 and s.item() == t.item(), "outputs")
  }
}

test "a training step keeps nChw16c through its backward: the pools' and convolutions' gradients, eager's values" {
  manual_seed(33)
  let m = cnn()
  m.train()
  fn loss_of(x, y) = cross_entropy(m(x), y)
  let gm = compile(loss_of, randn([4, 1, 28, 28]), randint(0, 10, [4]), train=true)
  gm.optimize("default")
  let ir = gm.ir()
  # the two pools' results and indices, the convolutions' input gradients, ReLU's
  # gradients between them, and the pools' gradients
  for part in ["= max_pool2d_backward(", "= conv2d_backward_input(", "= conv2d_backward_weight_bias(",
               "= threshold_backward("] {
    let flagged = [line for line in ir.split("\n") if part in line and "blocked_" in line]
    expect(len(flagged) >= 1, f"{part} without a layout attribute:\n{ir}")
  }
  # the second pool's gradient reads its nChw16c indices as window codes
  let codes = [line for line in ir.split("\n") if "= max_pool2d_backward(" in line and "window_codes=true" in line]
  expect(len(codes) == 1, ir)
  for k in range(2) {
    let x = randn([4, 1, 28, 28])
    let y = randint(0, 10, [4])
    for p in m.parameters() { p.grad = none }
    let want = loss_of(x, y)
    want.backward()
    let eager = [p.grad.clone() for p in m.parameters()]
    for p in m.parameters() { p.grad = none }
    let got = gm(x, y)
    expect(got.item() == want.item(), f"loss {got.item()} against {want.item()}")
    # the same kernels in another layout: weights' gradients equal, biases' summed in
    # another order (oneDNN's, as without the layout)
    let i = 0
    for p in m.parameters() {
      expect_close(p.grad, eager[i], rtol=1e-5, atol=1e-6)
      i = i + 1
    }
  }
}

# The top-level lines of a graph's text that hold `part` (a region's lines are indented
# further).
fn top_level(ir, part) = [line for line in ir.split("\n") if part in line and line.startswith("  %")]

test "the first layer's weight gradient takes its pool's gradient apart: that gradient is never a value" {
  manual_seed(36)
  let m = cnn()
  m.train()
  fn loss_of(x, y) = cross_entropy(m(x), y)
  let gm = compile(loss_of, randn([4, 1, 28, 28]), randint(0, 10, [4]), train=true)
  let report = gm.optimize("default", true)
  expect("the pool's gradient computed inside the first layer's weight gradient, never stored" in report, report)
  let ir = gm.ir()
  # the second layer's pool gradient is still one (the second convolution's input
  # gradient reads it too); the first layer's is inside its weight gradient, whose
  # pooled gradient and indices hold nChw16c
  expect(len(top_level(ir, "= max_pool2d_backward(")) == 1, ir)
  let fused = [line for line in top_level(ir, "= conv2d_backward_weight_bias(") if "%x)" in line]
  expect(len(fused) == 1 and "blocked_inputs=[0, 1]" in fused[0], ir)
  # the layers after the first have more than 4 input channels: theirs stay apart, as
  # does a pool other than the plain 2x2 one
  let wide = nn.Sequential([nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                            nn.Linear(16 * 4 * 4, 3)])
  let odd_pool = nn.Sequential([nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(3, stride=2), nn.Flatten(),
                                nn.Linear(16 * 3 * 3, 3)])
  for (net, c) in [(wide, 8), (odd_pool, 1)] {
    net.train()
    fn step(x, y) = cross_entropy(net(x), y)
    let other = compile(step, randn([2, c, 8, 8]), randint(0, 3, [2]), train=true)
    expect("never stored" not in other.optimize("default", true), other.ir())
  }
}

test "a pool other than 2x2 pools planar, then hands its result on blocked: still eager's outputs" {
  manual_seed(34)
  let m = nn.Sequential([nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(3, stride=2),
                         nn.Conv2d(16, 8, 3, padding=1), nn.ReLU()])
  m.eval()
  no_grad {
    let gm = compile(m, randn([2, 3, 11, 11]))
    gm.optimize("default")
    expect("blocked_out=true" in gm.ir() and "blocked_inputs=[0]" in gm.ir(), gm.ir())
    let x = randn([2, 3, 11, 11])
    expect(sum(ne(gm(x), m(x))).item() == 0, "blocked differs from eager after a 3x3 pool")
  }
}

# A compiled training step's gradients against eager ones, each parameter within
# rtol 1e-5 (the kernels are the same up to summation order); `blocked` says whether
# the layout must be in use.
fn step_matches_eager(net, shape, classes, blocked) {
  net.train()
  fn loss_of(x, y) = cross_entropy(net(x), y)
  let gm = compile(loss_of, randn(shape), randint(0, classes, [shape[0]]), train=true)
  gm.optimize("default")
  expect(("blocked_inputs=" in gm.ir()) == blocked, gm.ir())
  let x = randn(shape)
  let y = randint(0, classes, [shape[0]])
  for p in net.parameters() { p.grad = none }
  let want = loss_of(x, y)
  want.backward()
  let eager = [p.grad.clone() for p in net.parameters()]
  for p in net.parameters() { p.grad = none }
  expect_close(gm(x, y), want, rtol=1e-6, atol=1e-6)
  let i = 0
  for p in net.parameters() {
    expect_close(p.grad, eager[i], rtol=1e-5, atol=1e-6)
    i = i + 1
  }
}

test "training steps of other shapes keep eager's gradients with the layout: odd sizes, other pools, groups, batch 1" {
  manual_seed(35)
  let pooled = fn(c_in, c_out) = [nn.Conv2d(c_in, c_out, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2)]
  # odd sizes (floor mode drops a row and a column), 48 channels (three blocks)
  step_matches_eager(nn.Sequential(pooled(3, 16) + pooled(16, 48) + [nn.Flatten(), nn.Linear(48 * 3 * 3, 5)]),
                     [4, 3, 15, 15], 5, true)
  # a 3x3 stride-2 pool and a ceil-mode pool: planar pools, blocked results and indices
  # (flat ones: window codes are the plain 2x2 pool's alone)
  step_matches_eager(nn.Sequential([nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(3, stride=2),
                                    nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2, ceil_mode=true),
                                    nn.Flatten(), nn.Linear(32 * 4 * 4, 5)]), [3, 3, 15, 15], 5, true)
  # dilation, groups and a strided convolution after the pool
  step_matches_eager(nn.Sequential([nn.Conv2d(4, 32, 3, padding=2, dilation=2), nn.ReLU(), nn.MaxPool2d(2),
                                    nn.Conv2d(32, 32, 3, stride=2, padding=1, groups=4), nn.ReLU(), nn.MaxPool2d(2),
                                    nn.Flatten(), nn.Linear(32, 3)]), [2, 4, 8, 8], 3, true)
  # one image; a convolution without a pool between two pooled ones
  step_matches_eager(nn.Sequential(pooled(1, 32) + pooled(32, 64) + [nn.Flatten(), nn.Linear(64 * 7 * 7, 10)]),
                     [1, 1, 28, 28], 10, true)
  step_matches_eager(nn.Sequential(pooled(1, 16) + [nn.Conv2d(16, 16, 3, padding=1), nn.ReLU()] + pooled(16, 32) +
                                   [nn.Flatten(), nn.Linear(32 * 4 * 4, 10)]), [3, 1, 16, 16], 10, true)
  # a 9x9 first layer, wider than its kernel in registers takes: the weight gradient's
  # node runs its body, the window codes turned back into flat indices
  step_matches_eager(nn.Sequential([nn.Conv2d(1, 16, 9, padding=4), nn.ReLU(), nn.MaxPool2d(2)] + pooled(16, 16) +
                                   [nn.Flatten(), nn.Linear(16 * 4 * 4, 10)]), [2, 1, 16, 16], 10, true)
  # 12 channels: no whole block, so NCHW throughout
  step_matches_eager(nn.Sequential(pooled(1, 12) + pooled(12, 12) + [nn.Flatten(), nn.Linear(12 * 4 * 4, 10)]),
                     [2, 1, 16, 16], 10, false)
}
