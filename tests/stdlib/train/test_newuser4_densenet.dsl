# A DenseNet block as a PyTorch user writes it: each layer sees torch.cat of every
# earlier feature map (BN-ReLU-1x1 conv bottleneck, BN-ReLU-3x3 conv), the bottleneck
# run under activation checkpointing as torchvision's memory_efficient DenseNet does
# (checkpoint(bn_function, *prev_features), here nn.checkpoint). The loss and
# gradients are checked against PyTorch 1.13 at f64 (tests/stdlib/reference/
# make_newuser4.py) with and without checkpointing; checkpoint's use_reentrant= and
# preserve_rng_state= and checkpoint_sequential are PyTorch's.
import nn
import optim

let ref = load("tests/stdlib/reference/newuser4.safetensors")

model DenseLayer(c_in, growth, bn_size=2, memory_efficient=false) {
  norm1 = nn.BatchNorm2d(c_in)
  conv1 = nn.Conv2d(c_in, bn_size * growth, 1, bias=false)
  norm2 = nn.BatchNorm2d(bn_size * growth)
  conv2 = nn.Conv2d(bn_size * growth, growth, 3, padding=1, bias=false)
  memory_efficient = memory_efficient

  bn_function(*inputs) = self.conv1(relu(self.norm1(cat(list(inputs), 1))))
  forward(features) {
    let bottleneck = none
    if self.memory_efficient and any([f.requires_grad for f in features]) {
      bottleneck = nn.checkpoint(self.bn_function, *features)
    } else {
      bottleneck = self.bn_function(*features)
    }
    return self.conv2(relu(self.norm2(bottleneck)))
  }
}

model DenseNet(c0=4, growth=3, n_layers=3, n_classes=2, memory_efficient=false) {
  stem = nn.Conv2d(1, c0, 3, padding=1)
  layers = nn.ModuleList([DenseLayer(c0 + k * growth, growth, memory_efficient=memory_efficient) for k in range(n_layers)])
  head = nn.Linear(c0 + n_layers * growth, n_classes)
  forward(x) {
    let features = [self.stem(x)]
    for layer in self.layers { features.append(layer(features)) }
    return self.head(nn.functional.adaptive_avg_pool2d(cat(features, 1), 1).flatten(1))
  }
}

fn loaded(memory_efficient) {
  let m = DenseNet(memory_efficient=memory_efficient).double()
  m.load_state_dict({k: ref["densenet." + k] for k in m.state_dict().keys()})
  return m
}

test "the DenseNet step matches PyTorch, and checkpointing gives the same gradients" {
  for memory_efficient in [false, true] {
    let m = loaded(memory_efficient)
    let loss = nn.functional.cross_entropy(m(ref["densenet.x"]), ref["densenet.y"])
    expect_close(loss, ref["densenet.loss"], rtol=1e-12, atol=1e-14)
    loss.backward()
    for (name, p) in m.named_parameters() {
      expect_close(p.grad, ref["densenet.grad." + name], rtol=1e-9, atol=1e-12)
    }
  }
}

test "the checkpointed DenseNet trains exactly as the plain one (eval-mode BN: the rerun's stats do not count twice)" {
  manual_seed(0)
  let x = randn(16, 1, 6, 6)
  let y = (x.mean([1, 2, 3]) > 0).long()
  let plain = DenseNet()
  let efficient = DenseNet(memory_efficient=true)
  efficient.load_state_dict(plain.state_dict())
  for m in [plain, efficient] { m.eval() }    # BN in eval: the recomputation is the same function
  let opts = [optim.Adam(plain.parameters(), lr=1e-2), optim.Adam(efficient.parameters(), lr=1e-2)]
  for step in range(10) {
    for (m, opt) in zip([plain, efficient], opts) {
      let loss = nn.functional.cross_entropy(m(x), y)
      opt.zero_grad()
      loss.backward()
      opt.step()
    }
  }
  for (k, v) in plain.state_dict().items() { expect(equal(v, efficient.state_dict()[k]), k) }
}

test "checkpoint: use_reentrant=false needs no input that requires grad; dropout reruns with the same mask" {
  manual_seed(0)
  let net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout(0.5), nn.Linear(8, 1))
  let x = randn(6, 4)
  expect_error(fn() = nn.checkpoint(net, x), "no tensor argument requires grad")
  manual_seed(1)
  nn.checkpoint(net, x, use_reentrant=false).sum().backward()
  let want = [p.grad.clone() for p in net.parameters()]
  net.zero_grad()
  manual_seed(1)
  net(x).sum().backward()
  for (p, g) in zip(net.parameters(), want) { expect(equal(p.grad, g)) }
  # preserve_rng_state (the default): the rerun draws the forward's dropout mask
  let xr = x.clone().requires_grad_(true)
  manual_seed(2)
  nn.checkpoint(net, xr).sum().backward()
  let g_ckpt = xr.grad.clone()
  let xp = x.clone().requires_grad_(true)
  manual_seed(2)
  net(xp).sum().backward()
  expect(equal(g_ckpt, xp.grad), "the same dropout mask in the rerun")
  expect_error(fn() = nn.checkpoint(net, xr, use_reentrant="no"), "use_reentrant must be true, false or none")
}

test "checkpoint_sequential splits a Sequential into checkpointed segments, as PyTorch's" {
  manual_seed(0)
  let net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 2))
  let x = randn(5, 4).requires_grad_(true)
  let out = nn.checkpoint_sequential(net, 2, x)
  expect_close(out, net(x), rtol=0, atol=0)
  out.sum().backward()
  let want = [p.grad.clone() for p in net.parameters()]
  let gx = x.grad.clone()
  net.zero_grad()
  x.grad = none
  net(x).sum().backward()
  for (p, g) in zip(net.parameters(), want) { expect_close(p.grad, g, rtol=1e-6, atol=1e-7) }
  expect_close(x.grad, gx, rtol=1e-6, atol=1e-7)
  expect_error(fn() = nn.checkpoint_sequential(net, 9, x), "segments must be an int in [1, 5]")
}

test "the memory-efficient DenseNet keeps less at its peak: the concatenations are not kept" {
  manual_seed(0)
  let x = randn(32, 1, 16, 16)
  let y = (x.mean([1, 2, 3]) > 0).long()
  fn peak(memory_efficient) {
    manual_seed(1)
    let m = DenseNet(c0=8, growth=8, n_layers=6, memory_efficient=memory_efficient)
    reset_peak_memory_stats()
    let base = memory_allocated()
    nn.functional.cross_entropy(m(x), y).backward()
    return max_memory_allocated() - base
  }
  let plain = peak(false)
  let efficient = peak(true)
  expect(efficient < 0.8 * plain, f"peak {efficient} bytes checkpointed, {plain} without")
}
