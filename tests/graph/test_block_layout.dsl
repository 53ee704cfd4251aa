# The block_layout pass (passes/block_layout.cpp, Note [Blocked activations between
# convolutions]): a pooled convolution whose result only convolutions read hands it on
# in nChw16c; the compiled model gives eager's outputs bit for bit, and a result read
# by anything else, returned, or whose indices are read stays NCHW.
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
    expect(report.count("hands its result on channel-blocked (nChw16c)") == 2, report)
    let ir = gm.ir()
    expect(ir.count("{blocked_out=true}") == 1 and ir.count("{blocked_in=true, blocked_out=true}") == 1, ir)
    expect(ir.count("conv2d_relu(") == 1 and ir.count("{blocked_in=true}") == 1, ir)
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
    expect("result stays NCHW: read by sum" in report, report)
    expect("blocked_out" not in gm.ir(), gm.ir())
    let x = randn([2, 1, 8, 8])
    let (got, s) = gm(x)
    let (want, t) = m(x)
    expect(sum(ne(got, want)).item() == 0 and s.item() == t.item(), "outputs")
  }
}

test "a training step reads the pool's indices: its convolutions keep NCHW" {
  manual_seed(33)
  let m = cnn()
  m.train()
  let gm = compile(fn(x, y) = cross_entropy(m(x), y), randn([4, 1, 28, 28]), randint(0, 10, [4]), train=true)
  gm.optimize("default")
  expect("blocked_" not in gm.ir(), gm.ir())
}

test "a pool other than 2x2 pools planar, then hands its result on blocked: still eager's outputs" {
  manual_seed(34)
  let m = nn.Sequential([nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(3, stride=2),
                         nn.Conv2d(16, 8, 3, padding=1), nn.ReLU()])
  m.eval()
  no_grad {
    let gm = compile(m, randn([2, 3, 11, 11]))
    gm.optimize("default")
    expect("blocked_out=true" in gm.ir() and "blocked_in=true" in gm.ir(), gm.ir())
    let x = randn([2, 3, 11, 11])
    expect(sum(ne(gm(x), m(x))).item() == 0, "blocked differs from eager after a 3x3 pool")
  }
}
