# FixMatch-style semi-supervised training as a PyTorch user writes it: weak (flip,
# roll) and strong (weak plus noise and a cutout) augmentations on tensors, one forward
# over labeled, weak and strong batches together, pseudo-labels from the weak view's
# confident predictions (a threshold mask), SGD with Nesterov momentum and weight
# decay, and an EMA teacher: torch.optim.swa_utils.AveragedModel with an EMA avg_fn
# (and a manual EMA with no_grad and lerp_), update_bn for the averaged weights' BatchNorm
# statistics, and SWALR. Three steps from a fixed init, the EMA, update_bn and SWALR's
# lrs are checked against PyTorch 1.13 at f64 (tests/stdlib/reference/make_newuser5.py);
# then FixMatch learns from 8 labels and 400 unlabeled images, keeping more
# pseudo-labels as it grows confident.
import copy
import math
import nn
import optim

let ref = load("tests/stdlib/reference/newuser5.safetensors")

fn fixmatch_net() = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                                  nn.Flatten(), nn.Linear(4, 3))

fn fixmatch_loss(m, xl, yl, xu_weak, xu_strong, threshold, lambda_u=1.0) {
  let logits = m(cat([xl, xu_weak, xu_strong]))
  let logits_x = logits[:len(xl)]
  let (lw, ls) = logits[len(xl):].chunk(2)
  let (max_probs, targets) = softmax(lw.detach(), dim=-1).max(dim=-1)
  let mask = max_probs.ge(threshold).to(logits.dtype)
  let lu = (nn.functional.cross_entropy(ls, targets, reduction="none") * mask).mean()
  return (nn.functional.cross_entropy(logits_x, yl) + lambda_u * lu, mask, targets)
}

test "FixMatch steps, an AveragedModel EMA and update_bn match PyTorch" {
  let m = fixmatch_net().double()
  m.load_state_dict({k: ref["fixmatch." + k] for k in m.state_dict().keys()})
  let (xl, yl, xw, xs) = (ref["fixmatch.xl"], ref["fixmatch.yl"], ref["fixmatch.xu_weak"], ref["fixmatch.xu_strong"])
  let ema = optim.swa_utils.AveragedModel(m, avg_fn=fn(avg, p, n) = 0.9 * avg + 0.1 * p)
  expect(ema.n_averaged.item() == 0 and ema.n_averaged.dtype == i64)
  let opt = optim.SGD(m.parameters(), lr=0.03, momentum=0.9, nesterov=true, weight_decay=5e-4)
  for step in range(3) {
    let (loss, mask, targets) = fixmatch_loss(m, xl, yl, xw, xs, 0.6)
    opt.zero_grad()
    loss.backward()
    if step == 0 {
      expect_close(loss, ref["fixmatch.loss"], rtol=1e-12, atol=1e-14)
      expect_close(mask, ref["fixmatch.mask"])
      expect((targets == ref["fixmatch.targets"]).all().item())
      for (name, p) in m.named_parameters() { expect_close(p.grad, ref["fixmatch.grad." + name], rtol=1e-9, atol=1e-12) }
    }
    opt.step()
    ema.update_parameters(m)
  }
  for (k, v) in m.state_dict().items() { expect_close(v, ref["fixmatch.after." + k], rtol=1e-9, atol=1e-12) }
  # PyTorch's keys: n_averaged, then the copy's under module.; buffers are not averaged
  expect(ema.state_dict().keys()[0] == "n_averaged", f"{ema.state_dict().keys()}")
  for (k, v) in ema.state_dict().items() { expect_close(v, ref["fixmatch.ema." + k], rtol=1e-9, atol=1e-12) }
  optim.swa_utils.update_bn([xl, (xw, none)], ema)
  for (k, v) in ema.state_dict().items() { expect_close(v, ref["fixmatch.bn." + k], rtol=1e-9, atol=1e-12) }
  expect(ema.module[1].momentum == 0.1, "update_bn restores the momentum")
  expect(ema.training, "and the mode")
}

test "the default AveragedModel is the running mean of the weights (SWA), buffers too with use_buffers" {
  manual_seed(0)
  let net = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
  let swa = optim.swa_utils.AveragedModel(net, use_buffers=true)
  let seen = []
  for i in range(4) {
    no_grad { for p in net.parameters() { p.add_(randn_like(p)) } }
    net(randn(8, 2))
    swa.update_parameters(net)
    seen.append([t.clone() for t in list(net.parameters()) + list(net.buffers())])
  }
  let mine = list(swa.module.parameters()) + list(swa.module.buffers())
  for k in range(len(mine)) {
    if mine[k].is_floating_point() {
      expect_close(mine[k], stack([s[k] for s in seen]).mean(0), rtol=1e-5, atol=1e-6)
    } else {
      expect(mine[k].item() == seen[3][k].item(), "an integer buffer is copied")
    }
  }
  expect(swa.n_averaged.item() == 4)
  expect_close(swa(ones(3, 2)), swa.module(ones(3, 2)))
}

test "SWALR anneals each group to its swa_lr, by cos and linear, as PyTorch" {
  for strategy in ["cos", "linear"] {
    let opt = optim.SGD([{"params": [zeros(1, requires_grad=true)]}, {"params": [zeros(1, requires_grad=true)], "lr": 0.2}], lr=0.1)
    let sched = optim.swa_utils.SWALR(opt, swa_lr=[0.01, 0.05], anneal_epochs=3, anneal_strategy=strategy)
    let lrs = []
    for i in range(6) {
      lrs.append([g["lr"] for g in opt.param_groups])
      opt.step()
      sched.step()
    }
    expect_close(tensor(lrs, dtype=f64), ref["fixmatch.swalr_" + strategy], rtol=1e-13, atol=1e-15)
  }
  let opt = optim.SGD([zeros(1, requires_grad=true)], lr=0.1)
  optim.swa_utils.SWALR(opt, swa_lr=0.02, anneal_epochs=0)
  expect(opt.param_groups[0]["lr"] == 0.02, "anneal_epochs=0 sets swa_lr at once")
}

# FixMatch's get_cosine_schedule_with_warmup: LambdaLR with last_epoch passed on (-1)
fn cosine_schedule_with_warmup(optimizer, num_warmup_steps, num_training_steps, num_cycles=7.0 / 16.0, last_epoch=-1) {
  fn lr_lambda(current_step) {
    if current_step < num_warmup_steps { return float(current_step) / float(max(1, num_warmup_steps)) }
    let no_progress = float(current_step - num_warmup_steps) / float(max(1, num_training_steps - num_warmup_steps))
    return max(0.0, math.cos(math.pi * num_cycles * no_progress))
  }
  return optim.lr_scheduler.LambdaLR(optimizer, lr_lambda, last_epoch)
}

fn weak_aug(x) {
  let flip = (rand(x.shape[0]) < 0.5).view(-1, 1, 1, 1)
  return where(flip, x.flip(-1), x).roll(shifts=randint(-1, 2, []).item(), dims=-1)
}

fn strong_aug(x) {
  x = weak_aug(x) + 0.3 * randn_like(x)
  let cut = ones_like(x)
  let (i, j) = (randint(0, 4, []).item(), randint(0, 4, []).item())
  cut[:, :, i:i + 2, j:j + 2] = 0
  return x * cut
}

# Three classes of 6x6 images: a bar at the top, in the middle, or at the bottom.
fn bars(n) {
  let y = randint(0, 3, [n])
  let x = 0.3 * randn(n, 1, 6, 6)
  for c in range(3) { x[:, :, 2 * c:2 * c + 2, :] = x[:, :, 2 * c:2 * c + 2, :] + (y == c).float().view(-1, 1, 1, 1) }
  return (x, y)
}

fn accuracy(m, x, y) {
  let acc = 0.0
  no_grad { acc = (m(x).argmax(-1) == y).float().mean().item() }
  return acc
}

test "FixMatch with an EMA teacher learns from 8 labels and 400 unlabeled images" {
  manual_seed(0)
  let (xl, yl) = bars(8)
  let (xu, _) = bars(400)
  let (x_test, y_test) = bars(300)
  let m = fixmatch_net()
  let ema = optim.swa_utils.AveragedModel(m, avg_fn=fn(avg, p, n) = 0.95 * avg + 0.05 * p, use_buffers=true)
  let teacher = copy.deepcopy(m)                          # the same EMA by hand, with lerp_
  teacher.requires_grad_(false)
  let opt = optim.SGD(m.parameters(), lr=0.05, momentum=0.9, nesterov=true, weight_decay=5e-4)
  let sched = cosine_schedule_with_warmup(opt, 10, 300)
  expect(opt.param_groups[0]["lr"] == 0.0, "the warmup starts from 0")
  let kept = []
  for step in range(300) {
    let idx = randint(0, 400, [32])
    let (loss, mask, _) = fixmatch_loss(m, weak_aug(xl), yl, weak_aug(xu[idx]), strong_aug(xu[idx]), 0.9)
    kept.append(mask.mean().item())
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
    ema.update_parameters(m)
    no_grad {
      if step == 0 {
        for (t, s) in zip(teacher.parameters(), m.parameters()) { t.copy_(s) }
      } else {
        for (t, s) in zip(teacher.parameters(), m.parameters()) { t.lerp_(s, 0.05) }
      }
      for (t, s) in zip(teacher.buffers(), m.buffers()) { t.copy_(s) }
    }
  }
  for (a, b) in zip(ema.module.parameters(), teacher.parameters()) { expect_close(a, b, rtol=1e-5, atol=1e-6) }
  ema.eval()
  let fixmatch_acc = accuracy(ema, x_test, y_test)
  expect(fixmatch_acc > 0.8, f"FixMatch's EMA accuracy {fixmatch_acc}")
  let kept_late = sum(kept[-50:]) / 50
  expect(kept[0] == 0.0 and kept_late > 0.1, f"pseudo-labels kept: {kept[0]} at first, {kept_late} over the last 50 steps")
}
