# FullyShardedDataParallel with nn.checkpoint around a unit and with
# clip_grad_norm_ over the shards: 2 ranks against one process, f64, 5 SGD steps.
#   nabla launch -n 2 tests/dist/fsdp_checkpoint_clip.dsl      (ctest dist_fsdp_checkpoint_clip)
import dist
import nn
import optim

dist.init(timeout=60)
let rank = dist.rank()
let W = dist.world_size()
let B = 3

model Inner(d) {
  a = nn.Linear(d, d)
  b = nn.Linear(d, d)
  forward(x) = self.b(tanh(self.a(x)))
}

model Net(d) {
  first = nn.Linear(4, d)
  inner = Inner(d)
  last = nn.Linear(d, 2)
  # The inner unit recomputed in backward as a whole.
  forward(x) = self.last(tanh(nn.checkpoint(self.inner, tanh(self.first(x)))))
}

manual_seed(42)
let X = randn([5, B * W, 4], dtype=f64)
let Y = randn([5, B * W, 2], dtype=f64)

fn train(net, params, clip, lo, hi) {
  let opt = optim.SGD(params, lr=0.5)
  let norms = []
  for s in range(5) {
    opt.zero_grad()
    mse_loss(net(X[s][lo:hi]), Y[s][lo:hi]).backward()
    norms.append(clip())
    opt.step()
  }
  return norms
}

# The norm of one process's gradients in f64, scaled as clip_grad_norm_ does.
fn clip_single(params, max_norm) {
  let total = 0.0
  for p in params { total = total + (p.grad ** 2).sum().item() }
  total = total ** 0.5
  let coef = max_norm / (total + 1e-6)
  if coef < 1.0 {
    for p in params { p.grad = p.grad * coef }
  }
  return total
}

for sharding in ["full", "grad_op"] {
  manual_seed(1 + rank)
  let fsdp = dist.FullyShardedDataParallel(Net(6).to(f64), sharding=sharding, auto_wrap=["Inner"])
  let norms = train(fsdp, fsdp.parameters(), fn() = fsdp.clip_grad_norm_(0.05), rank * B, (rank + 1) * B)
  manual_seed(1)
  let single = Net(6).to(f64)
  let norms1 = train(single, single.parameters(), fn() = clip_single(single.parameters(), 0.05), 0, B * W)
  let whole = fsdp.full_state_dict()
  let worst = 0.0
  for (n, p) in single.named_parameters() { worst = max(worst, (whole[n] - p).abs().max().item()) }
  expect(worst < 1e-12, f"rank {rank}: {sharding} with checkpoints and clipping differs by {worst}")
  for (a, b) in zip(norms, norms1) {
    expect(abs(a - b) < 1e-12 * b, f"rank {rank}: {sharding} gradient norm {a}, one process {b}")
  }
  expect(norms1[0] > 0.05, f"the clipping did not clip ({norms1[0]})")
}

# A checkpoint inside a unit's forward: an error on every rank that says what to do,
# and the process still exits cleanly (the graph it leaves is freed at exit).
model Checkpointed(d) {
  a = nn.Linear(d, d)
  b = nn.Linear(d, d)
  forward(x) = nn.checkpoint(self.b, tanh(self.a(x)))
}
let inside = dist.FullyShardedDataParallel(Checkpointed(4).to(f64), auto_wrap=["Checkpointed"])
expect_error(fn() = inside(randn([2, 4], dtype=f64)).sum().backward(), "nn.checkpoint inside a unit's forward is not supported")
print(f"rank {rank}: fsdp with checkpoints and clipping equals one process")
