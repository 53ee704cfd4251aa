# The fusion passes against eager: fused elementwise kernels compute with the same
# scalar functions as the op table's kernels, so they agree bit for bit (broadcast,
# strided, mixed-dtype inputs, sizes that span several blocks and threads); the
# epilogue kernels (oneDNN post-ops) and BatchNorm folding agree within rounding.
import nn

fn ir_has(gm, text) = text in gm.ir()

test "an elementwise chain with broadcasts and wrapped numbers is one exact kernel" {
  manual_seed(20)
  fn f(a, b) = (a * 2.0 + b).sigmoid() * a - (b * 0.5).exp()
  for shape in [[3, 5], [257, 130], [64, 1031]] {
    let a = randn(shape)
    let b = randn([shape[1]])
    let gm = compile(f, a, b)
    gm.optimize("fuse")
    expect(ir_has(gm, "fused("), gm.ir())
    expect_close(gm(a, b), f(a, b), rtol=0, atol=0)
  }
}

test "strided inputs, a bool condition, clamp and every unary op, in f32 and f64" {
  manual_seed(21)
  fn g(x, y) {
    let u = where(x > y, x.exp(), y.tanh()) + x.abs().sqrt() - y.sin() * x.cos()
    let v = u.clamp(-2.0, 3.0).relu() + u.gelu() * u.silu() - u.erf() + u.neg().sign()
    return maximum(v, x.rsqrt().log()) / minimum(u, y).sigmoid() + x.pow(2.0)
  }
  for dt in [f32, f64] {
    let x = randn([40, 300], dtype=dt).abs() + 0.1
    let y = randn([300, 40], dtype=dt).T
    let gm = compile(g, x, y)
    gm.optimize("fuse")
    expect(ir_has(gm, "fused("), gm.ir())
    expect_close(gm(x, y), g(x, y), rtol=0, atol=0)
  }
}

test "relu's gradient (threshold_backward) fuses with its neighbours, its threshold kept" {
  manual_seed(23)
  fn h(g, x) = threshold_backward(g * 2.0, x, threshold=0.25) + threshold_backward(g, x.relu()) * x
  for dt in [f32, f64] {
    let g = randn([64, 515], dtype=dt)
    let x = randn([515], dtype=dt)
    let gm = compile(h, g, x)
    gm.optimize("fuse")
    expect(ir_has(gm, "fused(") and ir_has(gm, "{threshold=0.25}"), gm.ir())
    expect_close(gm(g, x), h(g, x), rtol=0, atol=0)
  }
}

test "linear + relu/gelu/tanh/sigmoid/silu as one call equals eager" {
  manual_seed(22)
  let x = randn([64, 96])
  for act in [relu, gelu, tanh, sigmoid, silu] {
    let m = nn.Linear(96, 48)
    fn f(x) = act(m(x))
    let gm = compile(f, x)
    gm.optimize("fuse_epilogue")
    expect(ir_has(gm, "linear_"), gm.ir())
    expect_close(gm(x), f(x), rtol=1e-5, atol=1e-6)
  }
}

test "the packed weight of linear_relu follows an optimizer step" {
  manual_seed(23)
  let m = nn.Sequential([nn.Linear(32, 16), nn.ReLU()])
  let x = randn([8, 32])
  let gm = compile(m, x)
  gm.optimize()
  expect_close(gm(x), m(x), rtol=1e-5, atol=1e-6)
  no_grad { m[0].weight.mul_(0.5) }
  expect_close(gm(x), m(x), rtol=1e-5, atol=1e-6)
}

test "Conv+BatchNorm+ReLU in eval mode becomes one conv2d_relu and equals eager" {
  manual_seed(24)
  let net = nn.Sequential([nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                           nn.Conv2d(8, 4, 3, padding=1, bias=false), nn.BatchNorm2d(4), nn.ReLU()])
  # running statistics away from 0 and 1, so that folding them matters
  for i in range(3) { net(randn([4, 3, 10, 10]) * 2.0 + 1.0) }
  net.eval()
  let x = randn([2, 3, 10, 10])
  let gm = compile(net, x)
  let report = gm.optimize("default", explain=true)
  let ir = gm.ir()
  expect(not ("batch_norm" in ir), ir)
  expect(ir_has(gm, "conv2d_relu("), ir)
  expect_close(gm(x), net(x), rtol=1e-4, atol=1e-5)
}

test "explain names the BatchNorm left unfolded in training mode" {
  manual_seed(25)
  let net = nn.Sequential([nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2)])
  let x = randn([2, 1, 6, 6])
  let gm = compile(net, x)
  let report = gm.optimize("fold_bn", explain=true)
  expect("not folded into a conv: training mode" in report, report)
}

test "a rendered optimized graph draws its fused nodes as clusters" {
  manual_seed(26)
  let m = nn.Sequential([nn.Linear(16, 8), nn.ReLU(), nn.Linear(8, 4)])
  fn f(x) = (m(x) * 2.0).tanh() + 1.0
  let x = randn([4, 16])
  let gm = compile(f, x)
  gm.optimize()
  if not graphviz_available() {
    print("built without Graphviz (NABLA_GRAPHVIZ=OFF): checking the DOT instead of the SVG")
    gm.render("/tmp/nabla_fusion_test.dot")
    let dot = read_text("/tmp/nabla_fusion_test.dot")
    expect(dot.count("graph [class=\"fused") == 2, "two fused clusters: linear_relu and the tanh chain")
    expect("linear_relu" in dot and "absorbed" in dot, "the clusters say what they absorbed")
  } else {
    let path = "/tmp/nabla_fusion_test.svg"
    gm.render(path)
    let svg = read_text(path)
    expect(svg.count("class=\"cluster fused") == 2, "two fused clusters: linear_relu and the tanh chain")
    expect("linear_relu" in svg and "absorbed" in svg, "the clusters say what they absorbed")
  }
}

test "a comparison with a number joins the group and compares in f32, as eager does" {
  # f32(0.1) > 0.1 is false in f32 (true if compared in f64)
  fn h(x) = where(x > 0.1, x * 3.0, x.exp())
  let x = tensor([0.1, 0.2, -1.0, 0.1]).expand([256, 4]).contiguous()
  let gm = compile(h, x)
  gm.optimize("fuse")
  expect("fused(" in gm.ir() and "= gt(%in0, %in1)" in gm.ir(), gm.ir())
  expect_close(gm(x), h(x), rtol=0, atol=0)
  expect_close(h(x)[0], tensor([0.1, 0.6, -1.0, 0.1]).exp() * tensor([1.0, 0.0, 1.0, 1.0]) + tensor([0.0, 0.6, 0.0, 0.0]), rtol=1e-6, atol=1e-7)
}

test "Conv+ReLU+MaxPool becomes one conv2d_relu_max_pool2d and equals eager, values and indices" {
  manual_seed(26)
  # 2x2 pools of even and odd sizes (floor mode drops the last row), and pools the
  # fast path does not take (3x3, stride 1, ceil mode): each equals eager
  # (20 channels: a partly filled last block of 16 in oneDNN's blocked layout)
  for (channels, pool) in [[16, nn.MaxPool2d(2)], [20, nn.MaxPool2d(2)], [16, nn.MaxPool2d(3)],
                           [16, nn.MaxPool2d(2, stride=1)], [16, nn.MaxPool2d(2, ceil_mode=true)]] {
    let net = nn.Sequential([nn.Conv2d(3, channels, 3, padding=1), nn.ReLU(), pool])
    net.eval()
    for shape in [[1, 3, 12, 12], [5, 3, 9, 11]] {
      let x = randn(shape)
      no_grad {
        let gm = compile(net, x)
        gm.optimize()
        expect(ir_has(gm, "conv2d_relu_max_pool2d("), gm.ir())
        # the pooled convolution may run another oneDNN kernel than eager's (channel
        # blocks): equal within rounding
        expect_close(gm(x), net(x), rtol=1e-5, atol=1e-6)
      }
    }
  }
  # a batch the pooled convolution runs in several chunks (about 1 MiB of its result
  # each: 16 images of [16, 32, 32] here), the last one partly filled
  let wide = nn.Sequential([nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2)])
  wide.eval()
  let batch = randn([37, 3, 32, 32])
  no_grad {
    let gm = compile(wide, batch)
    gm.optimize()
    expect(ir_has(gm, "conv2d_relu_max_pool2d("), gm.ir())
    expect_close(gm(batch), wide(batch), rtol=1e-5, atol=1e-6)
  }
  # the indices, when the graph returns them, as eager's
  let conv = nn.Conv2d(2, 8, 3)
  fn pooled(x) = max_pool2d(relu(conv(x)), 2, return_indices=true)
  let x = randn([3, 2, 10, 10])
  no_grad {
    let gm = compile(pooled, x)
    gm.optimize()
    expect(ir_has(gm, "conv2d_relu_max_pool2d("), gm.ir())
    let (values, indices) = gm(x)
    let (eager_values, eager_indices) = pooled(x)
    expect_close(values, eager_values, rtol=1e-5, atol=1e-6)
    expect_close(indices.float(), eager_indices.float(), rtol=0, atol=0)
    expect(indices.dtype == eager_indices.dtype, f"indices of dtype {indices.dtype}")
  }
}

test "a max pool is left out of the conv's node when the activation has another reader" {
  manual_seed(27)
  let conv = nn.Conv2d(1, 4, 3)
  fn two_readers(x) {
    let h = relu(conv(x))
    return max_pool2d(h, 2).sum() + h.sum()
  }
  let x = randn([2, 1, 8, 8])
  no_grad {
    let gm = compile(two_readers, x)
    gm.optimize()
    expect(ir_has(gm, "conv2d_relu(") and not ir_has(gm, "conv2d_relu_max_pool2d("), gm.ir())
    expect_close(gm(x), two_readers(x), rtol=1e-5, atol=1e-5)
  }
}
