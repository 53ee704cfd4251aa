# A large-batch training loop as a PyTorch user writes it on a small machine: gradient
# accumulation over 4 micro-batches with loss / 4, zero_grad(set_to_none=true) once per
# optimizer step, residual blocks run through torch.utils.checkpoint (nn.checkpoint,
# recomputed in backward, dropout included: preserve_rng_state), AdamW under
# CosineAnnealingLR, and a checkpoint of model, optimizer, scheduler, the global RNG
# state and a data Generator's state, saved with save() and resumed in fresh objects.
# Three accumulated steps from a fixed init are checked against PyTorch 1.13 at f64
# (tests/stdlib/reference/make_newuser6.py); accumulation against one full batch;
# checkpointing against the plain forward; the resumed run against the uninterrupted
# one, bit for bit.
import nn
import optim

let ref = load("tests/stdlib/reference/newuser6.safetensors")

model ResBlock(d, p=0.0) {
  ff = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 2 * d), nn.GELU(), nn.Dropout(p), nn.Linear(2 * d, d))
  forward(x) = x + self.ff(x)
}

model AccumNet(d_in=5, d=8, n_blocks=2, p=0.0, use_checkpoint=true) {
  use_checkpoint = use_checkpoint
  inp = nn.Linear(d_in, d)
  blocks = nn.ModuleList([ResBlock(d, p) for _ in range(n_blocks)])
  out = nn.Linear(d, 1)
  forward(x) {
    let h = self.inp(x)
    for blk in self.blocks {
      h = nn.checkpoint(blk, h, use_reentrant=false) if self.use_checkpoint else blk(h)
    }
    return self.out(h).squeeze(-1)
  }
}

# one optimizer step over 4 micro-batches; the summed loss
fn accumulated_step(m, opt, xs, ys) {
  opt.zero_grad(set_to_none=true)
  let total = 0.0
  for k in range(4) {
    let loss = nn.functional.mse_loss(m(xs[k]), ys[k]) / 4
    loss.backward()
    total = total + loss.item()
  }
  opt.step()
  return total
}

test "three accumulated AdamW steps through checkpointed blocks under a cosine schedule match PyTorch" {
  let m = AccumNet().double()
  m.load_state_dict({k: ref["acc." + k] for k in m.state_dict().keys()})
  let opt = optim.AdamW(m.parameters(), lr=1e-2, weight_decay=0.1)
  let sched = optim.lr_scheduler.CosineAnnealingLR(opt, T_max=5)
  let losses = []
  for step in range(3) {
    opt.zero_grad(set_to_none=true)
    expect(all([p.grad is none for p in m.parameters()]), "set_to_none leaves no gradient")
    let total = 0.0
    for k in range(4) {
      let loss = nn.functional.mse_loss(m(ref["acc.xs"][step, k]), ref["acc.ys"][step, k]) / 4
      loss.backward()
      total = total + loss.item()
    }
    if step == 0 {
      for (name, p) in m.named_parameters() { expect_close(p.grad, ref["acc.grad." + name], rtol=1e-10, atol=1e-13) }
    }
    opt.step()
    sched.step()
    losses.append(total)
  }
  expect_close(tensor(losses, dtype=f64), ref["acc.losses"], rtol=1e-11, atol=1e-13)
  for (k, v) in m.state_dict().items() { expect_close(v, ref["acc.after." + k], rtol=1e-9, atol=1e-12) }
}

test "4 micro-batches with loss / 4 give the full batch's gradient, and checkpointing changes nothing" {
  manual_seed(0)
  let m = AccumNet(p=0.3).double()
  let plain = AccumNet(p=0.3, use_checkpoint=false).double()
  plain.load_state_dict(m.state_dict())
  let (x, y) = (randn(24, 5, dtype=f64), randn(24, dtype=f64))
  # the full batch in one go, with the dropout masks of each micro-batch: same seed, same order
  manual_seed(5)
  for k in range(4) { (nn.functional.mse_loss(plain(x[6 * k:6 * k + 6]), y[6 * k:6 * k + 6]) / 4).backward() }
  manual_seed(5)
  for k in range(4) { (nn.functional.mse_loss(m(x[6 * k:6 * k + 6]), y[6 * k:6 * k + 6]) / 4).backward() }
  for ((name, p), q) in zip(m.named_parameters(), plain.parameters()) {
    expect_close(p.grad, q.grad, rtol=1e-12, atol=1e-14)
  }
  # without dropout, the accumulated gradient is the full batch's
  let m2 = AccumNet().double()
  for k in range(4) { (nn.functional.mse_loss(m2(x[6 * k:6 * k + 6]), y[6 * k:6 * k + 6]) / 4).backward() }
  let (full,) = grad(nn.functional.mse_loss(m2(x), y), [m2.inp.weight])
  expect_close(m2.inp.weight.grad, full, rtol=1e-11, atol=1e-13)
}

fn make_run(seed) {
  manual_seed(seed)
  let m = AccumNet(p=0.2)
  let opt = optim.AdamW(m.parameters(), lr=1e-2, weight_decay=0.1)
  let sched = optim.lr_scheduler.CosineAnnealingLR(opt, T_max=8)
  return (m, opt, sched)
}

# a step's data comes from the data Generator (a shuffled pool), dropout from the global one
fn train_steps(m, opt, sched, g, pool_x, pool_y, n) {
  for _ in range(n) {
    let idx = randperm(pool_x.shape[0], generator=g)[:24]
    accumulated_step(m, opt, pool_x[idx].view(4, 6, 5), pool_y[idx].view(4, 6))
    sched.step()
  }
}

test "a run saved after 3 steps and resumed in fresh objects ends where the uninterrupted run does" {
  manual_seed(42)
  let (pool_x, pool_y) = (randn(64, 5), randn(64))
  let (m1, opt1, sched1) = make_run(0)
  let g1 = Generator().manual_seed(9)
  train_steps(m1, opt1, sched1, g1, pool_x, pool_y, 6)

  let (m2, opt2, sched2) = make_run(0)
  let g2 = Generator().manual_seed(9)
  train_steps(m2, opt2, sched2, g2, pool_x, pool_y, 3)
  let path = "/tmp/nabla_newuser6_resume.safetensors"
  save({"model": m2.state_dict(), "optimizer": opt2.state_dict(), "scheduler": sched2.state_dict(),
        "rng": get_rng_state(), "data_rng": g2.get_state(), "step": 3}, path)
  randn(100)   # the interrupted process draws on; the checkpoint holds where it was

  let ck = load(path)
  let (m3, opt3, sched3) = make_run(1)   # a fresh start, other weights
  m3.load_state_dict(ck["model"])
  opt3.load_state_dict(ck["optimizer"])
  sched3.load_state_dict(ck["scheduler"])
  set_rng_state(ck["rng"])
  let g3 = Generator()
  g3.set_state(ck["data_rng"])
  train_steps(m3, opt3, sched3, g3, pool_x, pool_y, 6 - ck["step"])
  for (k, v) in m1.state_dict().items() { expect(v.equal(m3.state_dict()[k]), f"{k} differs after resuming") }
  expect(opt1.param_groups[0]["lr"] == opt3.param_groups[0]["lr"])
  expect(g1.get_state() == g3.get_state())
}
