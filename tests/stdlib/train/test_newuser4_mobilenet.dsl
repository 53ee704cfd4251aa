# MobileNetV2 / EfficientNet blocks as a PyTorch user writes them: inverted residuals
# (1x1 expand, 3x3 depthwise conv with groups=channels, 1x1 project), ReLU6 and SiLU,
# squeeze-and-excitation (AdaptiveAvgPool2d + 1x1 convs + sigmoid gating), BatchNorm,
# stochastic depth on the residual branch (torchvision.ops.stochastic_depth, written
# out) and label smoothing. One train-mode step is checked against PyTorch 1.13 at f64
# (tests/stdlib/reference/make_newuser4.py), with the running statistics and the
# eval-mode output; then the network learns a small image task.
import nn
import optim

let ref = load("tests/stdlib/reference/newuser4.safetensors")

model SqueezeExcite(c, r=4) {
  pool = nn.AdaptiveAvgPool2d(1)
  fc1 = nn.Conv2d(c, c // r, 1)
  fc2 = nn.Conv2d(c // r, c, 1)
  forward(x) = x * sigmoid(self.fc2(nn.functional.silu(self.fc1(self.pool(x)))))
}

# torchvision.ops.stochastic_depth(input, p, mode="row", training): each sample's
# branch dropped with probability p, the kept ones scaled by 1 / (1 - p)
fn stochastic_depth(x, p, training) {
  if not training or p == 0.0 { return x }
  let keep = empty([x.shape[0]] + [1] * (x.dim() - 1), dtype=x.dtype).bernoulli_(1 - p)
  return x * keep / (1 - p)
}

model InvertedResidual(c_in, c_out, stride, expand, drop_path=0.0) {
  use_res = stride == 1 and c_in == c_out
  drop_path = drop_path
  expand = nn.Sequential(nn.Conv2d(c_in, c_in * expand, 1, bias=false), nn.BatchNorm2d(c_in * expand), nn.ReLU6(inplace=true))
  depthwise = nn.Sequential(nn.Conv2d(c_in * expand, c_in * expand, 3, stride, 1, groups=c_in * expand, bias=false),
                            nn.BatchNorm2d(c_in * expand), nn.SiLU())
  se = SqueezeExcite(c_in * expand)
  project = nn.Sequential(nn.Conv2d(c_in * expand, c_out, 1, bias=false), nn.BatchNorm2d(c_out))
  forward(x) {
    let out = self.project(self.se(self.depthwise(self.expand(x))))
    return x + stochastic_depth(out, self.drop_path, self.training) if self.use_res else out
  }
}

model MobileNet(n_classes=3, drop_path=0.0) {
  stem = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1, bias=false), nn.BatchNorm2d(8), nn.ReLU6())
  blocks = nn.Sequential(InvertedResidual(8, 8, 1, 2, drop_path), InvertedResidual(8, 12, 2, 2))
  pool = nn.AdaptiveAvgPool2d(1)
  classifier = nn.Linear(12, n_classes)
  forward(x) = self.classifier(flatten(self.pool(self.blocks(self.stem(x))), 1))
}

test "one train-mode MobileNet step matches PyTorch: label-smoothed loss, gradients, running stats" {
  let m = MobileNet().double()
  m.load_state_dict({k: ref["mobilenet." + k] for k in m.state_dict().keys()})
  let dw = m.blocks[0].depthwise[0]
  expect(dw.groups == 16 and list(dw.weight.shape) == [16, 1, 3, 3], f"{dw.groups} {list(dw.weight.shape)}")
  let loss = nn.functional.cross_entropy(m(ref["mobilenet.x"]), ref["mobilenet.y"], label_smoothing=0.1)
  expect_close(loss, ref["mobilenet.loss"], rtol=1e-12, atol=1e-14)
  loss.backward()
  for (name, p) in m.named_parameters() { expect_close(p.grad, ref["mobilenet.grad." + name], rtol=1e-9, atol=1e-12) }
  for (k, v) in m.state_dict().items() {
    if "running" in k { expect_close(v, ref["mobilenet.after." + k], rtol=1e-12, atol=1e-14) }
    if "num_batches_tracked" in k { expect(v.item() == 1, k) }
  }
  m.eval()
  no_grad { expect_close(m(ref["mobilenet.x"]), ref["mobilenet.eval_out"], rtol=1e-10, atol=1e-12) }
  expect_close(nn.CrossEntropyLoss(label_smoothing=0.1)(m(ref["mobilenet.x"]), ref["mobilenet.y"]),
               nn.functional.cross_entropy(m(ref["mobilenet.x"]), ref["mobilenet.y"], label_smoothing=0.1))
}

test "stochastic depth drops whole samples' branches in training and is the identity in eval" {
  manual_seed(0)
  let x = ones(2000, 3, 2, 2)
  let y = stochastic_depth(x, 0.25, true)
  let kept = (y[:, 0, 0, 0] != 0).float().mean().item()
  expect(kept > 0.72 and kept < 0.78, f"{kept} of the rows kept")
  expect(((y == 0) | (abs(y - 1 / 0.75) < 1e-6)).all().item(), "a row is dropped or scaled by 1 / (1 - p)")
  expect(((y == 0).float().sum([1, 2, 3]) % 12 == 0).all().item(), "whole rows at once")
  expect(equal(stochastic_depth(x, 0.25, false), x))
  let block = InvertedResidual(4, 4, 1, 2, drop_path=0.5)
  block.eval()
  let z = randn(3, 4, 5, 5)
  no_grad { expect(equal(block(z), block(z)), "eval is deterministic") }
}

test "a small MobileNet with SE and stochastic depth learns to tell three patterns apart" {
  manual_seed(0)
  let n = 96
  let labels = arange(n) % 3
  let x = 0.3 * randn(n, 3, 8, 8)
  # class 0: bright top half, 1: bright left half, 2: bright red channel
  x[labels == 0, :, :4, :] += 1.0
  x[labels == 1, :, :, :4] += 1.0
  x[labels == 2, 0] += 1.0
  let m = MobileNet(drop_path=0.1)
  let opt = optim.SGD(m.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
  let loss_fn = nn.CrossEntropyLoss(label_smoothing=0.1)
  for epoch in range(15) {
    m.train()
    for idx in randperm(n).split(32) {
      let loss = loss_fn(m(x[idx]), labels[idx])
      opt.zero_grad()
      loss.backward()
      opt.step()
    }
  }
  m.eval()
  no_grad {
    let acc = (m(x).argmax(1) == labels).float().mean().item()
    expect(acc > 0.9, f"train accuracy {acc}")
  }
}
