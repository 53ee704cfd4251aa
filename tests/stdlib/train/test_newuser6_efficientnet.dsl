# EfficientNet's MBConv blocks as a PyTorch user writes them: a 1x1 expansion, a
# depthwise 3x3 convolution, squeeze-and-excitation (global pool, reduce, SiLU, expand,
# sigmoid gate), a 1x1 projection, BatchNorm with momentum=None (the cumulative average
# of the batches' statistics), SiLU, and stochastic depth on the residual; trained on
# mixup batches (a Beta(alpha, alpha) weight, the loss mixed the same way) with label
# smoothing in CrossEntropyLoss, SGD with Nesterov momentum under OneCycleLR (which
# cycles the momentum too), and gradient clipping by the global norm. Three steps from
# a fixed init are checked against PyTorch 1.13 at f64 (logits, loss, gradients, clipped
# norms, lrs, momenta, weights and running statistics after them;
# tests/stdlib/reference/make_newuser6.py); then cutmix and mixup batches train it to
# tell stripes from checks.
import nn
import optim
import distributions

let ref = load("tests/stdlib/reference/newuser6.safetensors")

model SqueezeExcite(c, reduced) {
  reduce = nn.Conv2d(c, reduced, 1)
  expand = nn.Conv2d(reduced, c, 1)
  forward(x) {
    let s = nn.functional.adaptive_avg_pool2d(x, 1)
    return x * sigmoid(self.expand(nn.functional.silu(self.reduce(s))))
  }
}

fn drop_path(x, p, training) {
  if p == 0.0 or not training { return x }
  let keep = 1 - p
  let mask = empty(x.shape[0], 1, 1, 1, dtype=x.dtype).bernoulli_(keep)
  return x * mask / keep
}

model MBConv(c_in, c_out, expand=4, stride=1, drop=0.0) {
  let mid = c_in * expand
  use_res = stride == 1 and c_in == c_out
  drop = drop
  expand = nn.Sequential(nn.Conv2d(c_in, mid, 1, bias=false), nn.BatchNorm2d(mid, momentum=none), nn.SiLU())
  dw = nn.Sequential(nn.Conv2d(mid, mid, 3, stride=stride, padding=1, groups=mid, bias=false),
                     nn.BatchNorm2d(mid, momentum=none), nn.SiLU())
  se = SqueezeExcite(mid, max(1, c_in // 4))
  project = nn.Sequential(nn.Conv2d(mid, c_out, 1, bias=false), nn.BatchNorm2d(c_out, momentum=none))
  forward(x) {
    let y = self.project(self.se(self.dw(self.expand(x))))
    if self.use_res { return x + drop_path(y, self.drop, self.training) }
    return y
  }
}

model EfficientNet(num_classes=3, drop=0.2) {
  stem = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1, bias=false), nn.BatchNorm2d(8, momentum=none), nn.SiLU())
  blocks = nn.Sequential(MBConv(8, 8, drop=drop), MBConv(8, 12, stride=2), MBConv(12, 12, drop=drop))
  head = nn.Linear(12, num_classes)
  forward(x) = self.head(nn.functional.adaptive_avg_pool2d(self.blocks(self.stem(x)), 1).flatten(1))
}

test "three mixup steps with label smoothing, clipping, Nesterov SGD and OneCycleLR match PyTorch" {
  let m = EfficientNet().double()
  m.load_state_dict({k: ref["effnet." + k] for k in m.state_dict().keys()})
  m.train()
  for blk in m.blocks { blk.drop = 0.0 }
  let crit = nn.CrossEntropyLoss(label_smoothing=0.1)
  let opt = optim.SGD(m.parameters(), lr=0.1, momentum=0.9, nesterov=true, weight_decay=1e-4)
  let sched = optim.lr_scheduler.OneCycleLR(opt, max_lr=0.2, total_steps=6, pct_start=0.3)
  let (perm, lam) = (ref["effnet.perm"], 0.7)
  let batches = [(ref["effnet.x1"], ref["effnet.y1"]), (ref["effnet.x2"], ref["effnet.y2"]), (ref["effnet.x1"], ref["effnet.y2"])]
  let (lrs, moms, norms, losses) = ([], [], [], [])
  for (step, (x, y)) in enumerate(batches) {
    let mixed = lam * x + (1 - lam) * x[perm]
    let out = m(mixed)
    let loss = lam * crit(out, y) + (1 - lam) * crit(out, y[perm])
    opt.zero_grad(set_to_none=true)
    loss.backward()
    if step == 0 {
      expect_close(out, ref["effnet.logits"], rtol=1e-11, atol=1e-13)
      expect_close(loss, ref["effnet.loss"], rtol=1e-12, atol=1e-14)
      for (name, p) in m.named_parameters() { expect_close(p.grad, ref["effnet.grad." + name], rtol=1e-9, atol=1e-12) }
    }
    norms.append(nn.utils.clip_grad_norm_(m.parameters(), max_norm=1.0))
    opt.step()
    sched.step()
    losses.append(loss.detach())
    lrs.append(opt.param_groups[0]["lr"])
    moms.append(opt.param_groups[0]["momentum"])
  }
  expect_close(stack(norms), ref["effnet.norms"], rtol=1e-10, atol=1e-13)
  expect_close(stack(losses), ref["effnet.losses"], rtol=1e-10, atol=1e-13)
  expect_close(tensor(lrs, dtype=f64), ref["effnet.lrs"], rtol=1e-13, atol=1e-15)
  expect_close(tensor(moms, dtype=f64), ref["effnet.moms"], rtol=1e-13, atol=1e-15)
  for (k, v) in m.state_dict().items() { expect_close(v, ref["effnet.after." + k], rtol=1e-9, atol=1e-12) }
  m.eval()
  expect_close(m(ref["effnet.x1"]), ref["effnet.eval_logits"], rtol=1e-9, atol=1e-12)
}

test "BatchNorm with momentum=none keeps the plain average of the batches' statistics" {
  manual_seed(3)
  let bn = nn.BatchNorm2d(4, momentum=none).double()
  let xs = [randn(5, 4, 3, 3, dtype=f64) * (k + 1) + k for k in range(3)]
  for x in xs { bn(x) }
  let means = stack([x.mean([0, 2, 3]) for x in xs])
  let vars = stack([x.var([0, 2, 3], unbiased=true) for x in xs])
  expect_close(bn.running_mean, means.mean(0), rtol=1e-12, atol=1e-14)
  expect_close(bn.running_var, vars.mean(0), rtol=1e-12, atol=1e-14)
  expect(bn.num_batches_tracked.item() == 3)
}

test "stochastic depth drops whole residual branches in training only" {
  manual_seed(0)
  let blk = MBConv(8, 8, drop=0.5)
  let x = randn(64, 8, 4, 4)
  blk.eval()
  let y_eval = blk(x)
  let branch = y_eval - x
  blk.train()
  let y = blk(x)
  let kept = ((y - x).flatten(1).abs().sum(1) > 0).float()
  expect(kept.mean().item() > 0.25 and kept.mean().item() < 0.75, f"kept {kept.mean().item()}")
  expect(((y - x).flatten(1).abs().sum(1) * (1 - kept)).sum().item() == 0.0, "a dropped sample is the identity")
}

# cutmix: a box of the shuffled batch pasted in, lam corrected to the box's true area
fn cutmix(x, y, beta) {
  let lam = beta.sample().item()
  let (H, W) = (x.shape[2], x.shape[3])
  let (ch, cw) = (int(H * (1 - lam) ** 0.5), int(W * (1 - lam) ** 0.5))
  let (cy, cx) = (randint(0, H, []).item(), randint(0, W, []).item())
  let (y0, y1) = (max(cy - ch // 2, 0), min(cy + ch // 2, H))
  let (x0, x1) = (max(cx - cw // 2, 0), min(cx + cw // 2, W))
  let perm = randperm(x.shape[0])
  let mixed = x.clone()
  mixed[:, :, y0:y1, x0:x1] = x[perm][:, :, y0:y1, x0:x1]
  return (mixed, y, y[perm], 1 - (y1 - y0) * (x1 - x0) / (H * W))
}

fn mixup(x, y, beta) {
  let lam = beta.sample().item()
  let perm = randperm(x.shape[0])
  return (lam * x + (1 - lam) * x[perm], y, y[perm], lam)
}

test "mixup and cutmix batches train the EfficientNet to tell stripes from checks" {
  manual_seed(0)
  let n = 48
  let labels = randint(0, 2, [n])
  let i = arange(8).view(8, 1)
  let j = arange(8).view(1, 8)
  let stripes = (j % 2).float().expand(8, 8)
  let checks = ((i + j) % 2).float()
  let images = where(labels.view(-1, 1, 1, 1) == 1, stripes, checks).expand(n, 3, 8, 8) + 0.2 * randn(n, 3, 8, 8)
  let m = EfficientNet(num_classes=2, drop=0.1)
  let crit = nn.CrossEntropyLoss(label_smoothing=0.1)
  let opt = optim.SGD(m.parameters(), lr=0.05, momentum=0.9, nesterov=true)
  let steps = 30
  let sched = optim.lr_scheduler.OneCycleLR(opt, max_lr=0.2, total_steps=steps)
  let beta = distributions.Beta(tensor(0.4), tensor(0.4))
  for step in range(steps) {
    let (x, ya, yb, lam) = cutmix(images, labels, beta) if step % 2 == 0 else mixup(images, labels, beta)
    let out = m(x)
    let loss = lam * crit(out, ya) + (1 - lam) * crit(out, yb)
    opt.zero_grad(set_to_none=true)
    loss.backward()
    nn.utils.clip_grad_norm_(m.parameters(), max_norm=2.0)
    opt.step()
    sched.step()
  }
  m.eval()
  let acc = 0.0
  no_grad { acc = (m(images).argmax(-1) == labels).float().mean().item() }
  expect(acc > 0.9, f"accuracy {acc}")
}
