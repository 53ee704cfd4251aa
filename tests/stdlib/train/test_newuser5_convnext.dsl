# ConvNeXt blocks as a PyTorch user writes them: a depthwise 7x7 convolution, LayerNorm
# over the channels with the channels last (permute), an inverted MLP with GELU, layer
# scale (a learnable per-channel gamma) and stochastic depth (DropPath, one draw per
# sample); AdamW with the norms' weights, the biases and the gammas excluded from weight
# decay by parameter groups, and a warmup + cosine schedule (LambdaLR, or SequentialLR
# of LinearLR and CosineAnnealingLR). One loss, its gradients and three AdamW steps
# from a fixed init are checked against PyTorch 1.13 at f64
# (tests/stdlib/reference/make_newuser5.py); then a tiny ConvNeXt learns to tell
# stripes from blobs.
import math
import nn
import optim

let ref = load("tests/stdlib/reference/newuser5.safetensors")

fn drop_path(x, p, training) {
  if p == 0.0 or not training { return x }
  let keep = 1 - p
  let mask = x.new_empty([x.shape[0]] + [1] * (x.dim() - 1)).bernoulli_(keep)
  return x * mask / keep
}

model DropPath(p=0.0) {
  p = p
  forward(x) = drop_path(x, self.p, self.training)
}

# LayerNorm over the channels of [N, C, H, W] (ConvNeXt's channels_first LayerNorm):
# the channels moved last, normalized, and moved back
model LayerNorm2d(dim, eps=1e-6) {
  weight = nn.Parameter(ones(dim))
  bias = nn.Parameter(zeros(dim))
  eps = eps
  forward(x) = nn.functional.layer_norm(x.permute(0, 2, 3, 1), self.weight.shape, self.weight, self.bias, self.eps).permute(0, 3, 1, 2)
}

model Block(dim, drop_path=0.0, layer_scale_init=1e-6) {
  dwconv = nn.Conv2d(dim, dim, kernel_size=7, padding=3, groups=dim)
  norm = nn.LayerNorm(dim, eps=1e-6)
  pwconv1 = nn.Linear(dim, 4 * dim)
  act = nn.GELU()
  pwconv2 = nn.Linear(4 * dim, dim)
  gamma = nn.Parameter(layer_scale_init * ones(dim))
  drop_path = DropPath(drop_path)
  forward(x) {
    let inp = x
    x = self.dwconv(x).permute(0, 2, 3, 1)
    x = self.gamma * self.pwconv2(self.act(self.pwconv1(self.norm(x))))
    return inp + self.drop_path(x.permute(0, 3, 1, 2))
  }
}

model ConvNeXt(in_chans=3, num_classes=4, dim=8, depth=2, drop_path_rate=0.1, layer_scale_init=0.5) {
  stem = nn.Sequential(nn.Conv2d(in_chans, dim, kernel_size=2, stride=2), LayerNorm2d(dim, eps=1e-6))
  let rates = linspace(0, drop_path_rate, depth).tolist()
  blocks = nn.Sequential(*[Block(dim, rates[i], layer_scale_init) for i in range(depth)])
  norm = nn.LayerNorm(dim, eps=1e-6)
  head = nn.Linear(dim, num_classes)
  forward(x) = self.head(self.norm(self.blocks(self.stem(x)).mean([-2, -1])))
}

# timm's rule: no weight decay for 1-d parameters (norms, gammas) and biases
fn param_groups(m, weight_decay) {
  let (decay, no_decay) = ([], [])
  for (name, p) in m.named_parameters() {
    if p.ndim <= 1 or name.endswith(".bias") { no_decay.append(p) } else { decay.append(p) }
  }
  return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
}

fn warmup_cosine(warmup, total) {
  fn factor(step) {
    if step < warmup { return (step + 1) / warmup }
    let progress = (step - warmup) / max(1, total - warmup)
    return 0.5 * (1.0 + math.cos(math.pi * progress))
  }
  return factor
}

test "a ConvNeXt's loss, gradients and three AdamW steps with groups and warmup match PyTorch" {
  let m = ConvNeXt().double()
  m.load_state_dict({k: ref["convnext." + k] for k in m.state_dict().keys()})
  m.eval()
  let (x, y) = (ref["convnext.x"], ref["convnext.y"])
  let loss = nn.functional.cross_entropy(m(x), y)
  expect_close(loss, ref["convnext.loss"], rtol=1e-12, atol=1e-14)
  loss.backward()
  for (name, p) in m.named_parameters() { expect_close(p.grad, ref["convnext.grad." + name], rtol=1e-9, atol=1e-12) }
  let opt = optim.AdamW(param_groups(m, 0.05), lr=1e-2)
  expect(len(opt.param_groups) == 2 and opt.param_groups[1]["weight_decay"] == 0.0)
  let sched = optim.lr_scheduler.LambdaLR(opt, warmup_cosine(2, 6))
  let lrs = []
  for step in range(4) {
    if step > 0 {
      opt.zero_grad()
      nn.functional.cross_entropy(m(x), y).backward()
    }
    opt.step()
    sched.step()
    lrs.append(sched.get_last_lr()[0])
  }
  expect_close(tensor(lrs, dtype=f64), ref["convnext.lrs"], rtol=1e-14, atol=1e-16)
  for (k, v) in m.state_dict().items() { expect_close(v, ref["convnext.after." + k], rtol=1e-9, atol=1e-12) }
}

test "SequentialLR of a linear warmup and cosine annealing gives PyTorch's lrs" {
  let opt = optim.SGD([zeros(1, requires_grad=true)], lr=0.1)
  let seq = optim.lr_scheduler.SequentialLR(opt, [optim.lr_scheduler.LinearLR(opt, 0.1, total_iters=3),
                                                  optim.lr_scheduler.CosineAnnealingLR(opt, T_max=5)], milestones=[3])
  let lrs = []
  for i in range(9) {
    lrs.append(opt.param_groups[0]["lr"])
    opt.step()
    seq.step()
  }
  expect_close(tensor(lrs, dtype=f64), ref["convnext.seq_lrs"], rtol=1e-12, atol=1e-15)
}

test "DropPath drops whole samples in training, rescales the kept ones, and is the identity in eval" {
  manual_seed(0)
  let dp = DropPath(0.5)
  let x = ones(64, 2, 3, 3)
  let y = dp(x)
  let per_sample = y.flatten(1)
  expect(((per_sample == 0).all(1) | (per_sample == 2).all(1)).all().item(), "each sample dropped or kept whole")
  let kept = (per_sample[:, 0] == 2).float().mean().item()
  expect(kept > 0.3 and kept < 0.7, f"kept fraction {kept}")
  dp.eval()
  expect(dp(x) is x)
  let m = ConvNeXt(drop_path_rate=0.2)
  expect_close(m.blocks[1].drop_path.p, 0.2, rtol=1e-6)
  expect(m.blocks[0].drop_path.p == 0.0)
}

test "a tiny ConvNeXt learns stripes against blobs with AdamW groups and warmup + cosine" {
  manual_seed(0)
  let n = 64
  let labels = randint(0, 2, [n])
  let stripes = (arange(8) % 2).float().view(1, 1, 1, 8).expand(n, 3, 8, 8)
  let blobs = zeros(n, 3, 8, 8)
  blobs[:, :, 2:6, 2:6] = 1.0
  let images = where(labels.view(-1, 1, 1, 1) == 1, stripes, blobs) + 0.3 * randn(n, 3, 8, 8)
  let m = ConvNeXt(num_classes=2)
  let opt = optim.AdamW(param_groups(m, 0.05), lr=5e-3)
  let total = 40
  let sched = optim.lr_scheduler.LambdaLR(opt, warmup_cosine(5, total))
  for step in range(total) {
    let loss = nn.functional.cross_entropy(m(images), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
  }
  m.eval()
  let acc = no_grad_accuracy(m, images, labels)
  expect(acc > 0.9, f"accuracy {acc}")
  expect(opt.param_groups[0]["lr"] < 1e-4, f"the cosine ends near 0: {opt.param_groups[0]['lr']}")
}

fn no_grad_accuracy(m, x, y) {
  let acc = 0.0
  no_grad { acc = (m(x).argmax(-1) == y).float().mean().item() }
  return acc
}
