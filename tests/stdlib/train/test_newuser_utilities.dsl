# The training utilities of a PyTorch program around a tied-embedding GRU language
# model: weight tying by assigning the embedding's weight to the output layer, two
# parameter groups (no weight decay on biases and norms), gradient accumulation, a
# warmup LambdaLR, early stopping on a validation loss with the best state_dict kept,
# and a checkpoint saved mid-training that resumes to the same result.
import nn
import optim

let V = 12

model TinyLM(vocab, dim) {
  emb = nn.Embedding(vocab, dim)
  rnn = nn.GRU(dim, dim, batch_first=true)
  norm = nn.LayerNorm(dim)
  out = nn.Linear(dim, vocab, bias=false)
  let _ = tie()
  tie() { self.out.weight = self.emb.weight }
  forward(x) = self.out(self.norm(self.rnn(self.emb(x))[0]))
}

fn make_opt(m) {
  let decay = []
  let no_decay = []
  for (n, p) in m.named_parameters() {
    if p.ndim < 2 or "norm" in n { no_decay.append(p) } else { decay.append(p) }
  }
  return optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}], lr=1e-2)
}

fn lm_loss(m, x, y) = cross_entropy(m(x).reshape(-1, V), y.reshape(-1))

fn data() {
  manual_seed(0)
  let seqs = (randint(0, V, [64, 1]) + arange(9)) % V     # counting up mod V
  return (seqs[:, :-1], seqs[:, 1:])
}

# one optimizer step accumulated over two micro-batches
fn train_step(m, opt, sched, xs, ys) {
  opt.zero_grad()
  for k in range(2) { (lm_loss(m, xs[32 * k:32 * (k + 1)], ys[32 * k:32 * (k + 1)]) / 2).backward() }
  nn.utils.clip_grad_norm_(m.parameters(), 1.0)
  opt.step()
  sched.step()
}

fn warmup_decay(e) = min(1.0, (e + 1) / 5) * max(0.0, (40 - e) / 40)

test "weight tying shares one parameter, listed once" {
  manual_seed(0)
  let m = TinyLM(V, 16)
  expect(m.out.weight.data_ptr() == m.emb.weight.data_ptr())
  expect(len(m.parameters()) == 7 and not ("out.weight" in m.state_dict().keys()))
  let g = make_opt(m).param_groups
  expect(len(g[0]["params"]) == 3 and len(g[1]["params"]) == 4 and g[1]["weight_decay"] == 0.0)
}

test "gradient accumulation over micro-batches equals the full batch's gradient" {
  let (xs, ys) = data()
  let m = TinyLM(V, 16)
  let g_full = grad(lm_loss(m, xs, ys), [m.emb.weight])[0]
  for k in range(4) { (lm_loss(m, xs[16 * k:16 * (k + 1)], ys[16 * k:16 * (k + 1)]) / 4).backward() }
  expect(allclose(m.emb.weight.grad, g_full, atol=1e-6))
}

test "warmup, early stopping with the best state, and a resumed checkpoint" {
  let (xs, ys) = data()
  let m = TinyLM(V, 16)
  let init = deepcopy(m.state_dict())
  let opt = make_opt(m)
  let sched = optim.LambdaLR(opt, warmup_decay)
  expect(sched.get_last_lr() == [0.002, 0.002])
  let path = "/tmp/nabla_newuser_lm_checkpoint.safetensors"
  let (best, best_state, bad, losses, at14) = (float("inf"), none, 0, [], none)
  for epoch in range(40) {
    m.train()
    train_step(m, opt, sched, xs, ys)
    if epoch == 9 { save({"model": m.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict()}, path) }
    if epoch == 14 { at14 = deepcopy(m.state_dict()) }
    m.eval()
    let vl = 0.0
    no_grad { vl = lm_loss(m, xs[:16], ys[:16]).item() }
    losses.append(vl)
    if vl < best - 1e-4 {
      best = vl
      best_state = deepcopy(m.state_dict())
      bad = 0
    } else {
      bad = bad + 1
      if bad >= 3 { break }
    }
  }
  expect(losses[-1] < 0.1 * losses[0], f"{losses[0]} -> {losses[-1]}")
  m.load_state_dict(best_state)
  no_grad { expect(abs(lm_loss(m, xs[:16], ys[:16]).item() - best) < 1e-6) }
  expect(m.out.weight.data_ptr() == m.emb.weight.data_ptr(), "loading keeps the tie")

  # resume from epoch 9's checkpoint into a fresh model: 5 more steps give epoch 14's weights
  expect(at14 != none, f"the run stopped early, after {len(losses)} epochs")
  let m2 = TinyLM(V, 16)
  let opt2 = make_opt(m2)
  let sched2 = optim.LambdaLR(opt2, warmup_decay)
  let ck = load(path)
  m2.load_state_dict(ck["model"])
  opt2.load_state_dict(ck["opt"])
  sched2.load_state_dict(ck["sched"])
  for k in range(5) { train_step(m2, opt2, sched2, xs, ys) }
  expect(sched2.last_epoch == 15)
  for (k, v) in m2.state_dict().items() { expect(equal(v, at14[k]), f"{k} differs after resuming") }
  expect(not equal(m2.emb.weight, init["emb.weight"]))
}

test "what a parameter, submodule or buffer field takes, as PyTorch's Module.__setattr__" {
  let m = nn.Linear(2, 2)
  expect_error("m.weight = randn([2, 2])", "cannot assign an f32 tensor that does not require grad as parameter 'weight' of Linear")
  expect(len(m.parameters()) == 2, "the refused assignment left the parameter in place")
  m.weight.requires_grad_(false)
  m.weight = m.weight                        # a frozen parameter given back stays one
  expect(len(m.parameters()) == 2)
  m.weight = randn([2, 2], requires_grad=true)
  m.bias = none                              # none empties the field
  expect(m.state_dict().keys() == ["weight"])
  let bn = nn.BatchNorm1d(2)
  bn.running_mean = ones([2])
  expect(equal(bn.state_dict()["running_mean"], ones([2])))
  expect_error("bn.running_var = 1", "as buffer 'running_var'")
  # a model with __setitem__ takes m[k] = v
  model Registry() {
    let _ = 0
    __setitem__(k, v) { setattr(self, k, v) }
    __getitem__(k) = getattr(self, k)
  }
  let r = Registry()
  r["fc"] = nn.Linear(2, 3)
  expect(len(r.parameters()) == 2 and r["fc"].out_features == 3)
}
