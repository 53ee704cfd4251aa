# Beyond data parallel (issue 8), each against one process, in f64 on 2 ranks:
#   ZeRO-1: Adam with its state sharded over the ranks, each rank on half the batch,
#           equals Adam in one process on the whole batch after K steps;
#   pipeline: a 2-stage model, rank r running stage r over 4 micro-batches, gives
#           the loss and the parameter gradients of one process on the whole batch.
#   nabla launch -n 2 tests/dist/parallelism.dsl          (ctest dist_parallelism)
import dist
import optim

dist.init(timeout=60)
let rank = dist.rank()
let B = 8
let K = 4

model Net() {
  w1 = randn([6, 5], dtype=f64, requires_grad=true)
  b1 = randn([6], dtype=f64, requires_grad=true)
  w2 = randn([3, 6], dtype=f64, requires_grad=true)
  forward(x) = linear(tanh(linear(x, self.w1, self.b1)), self.w2)
}

fn max_difference(a, b) {
  let worst = 0.0
  for (p, q) in zip(a, b) { worst = max(worst, (p - q).abs().max().item()) }
  return worst
}

manual_seed(7)
let X = randn([K, 2 * B, 5], dtype=f64)
let Y = randn([K, 2 * B, 3], dtype=f64)

# ---- ZeRO-1 ----
manual_seed(20 + rank)  # different starts: the optimizer broadcasts rank 0's
let net = Net()
let zero = dist.ZeroRedundancyOptimizer(net.parameters(), fn(ps) = optim.Adam(ps, lr=0.05))
expect(zero.shard.numel() == (6 * 5 + 6 + 3 * 6 + 1) // 2, f"shard of {zero.shard.numel()}")
for step in range(K) {
  zero.zero_grad()
  mse_loss(net(X[step][rank * B:(rank + 1) * B]), Y[step][rank * B:(rank + 1) * B]).backward()
  zero.step()
}
manual_seed(20)
let single = Net()
let adam = optim.Adam(single.parameters(), lr=0.05)
for step in range(K) {
  adam.zero_grad()
  mse_loss(single(X[step]), Y[step]).backward()
  adam.step()
}
let zero_diff = max_difference(net.parameters(), single.parameters())
expect(zero_diff < 1e-6, f"rank {rank}: ZeRO-1 differs from one process by {zero_diff}")
manual_seed(20)
expect(max_difference(Net().parameters(), net.parameters()) > 1e-3, "ZeRO-1 did not move the parameters")

# ---- pipeline: stage 0 = first layer and tanh, stage 1 = second layer ----
manual_seed(30)
let whole = Net()
let stage = (fn(x) = tanh(linear(x, whole.w1, whole.b1))) if rank == 0 else (fn(h) = linear(h, whole.w2))
let pipe = dist.Pipeline(stage, 4, [fn(n) = [n, 6], fn(n) = [n, 3]])
let loss = pipe.train_step(X[0], Y[0], fn(out, y) = mse_loss(out, y))
manual_seed(30)
let reference = Net()
let ref_loss = mse_loss(reference(X[0]), Y[0])
ref_loss.backward()
if rank == 0 {
  expect(loss == none, "only the last stage has the loss")
  let d = max_difference([whole.w1.grad, whole.b1.grad], [reference.w1.grad, reference.b1.grad])
  expect(d < 1e-10, f"stage 0 gradients differ by {d}")
  expect(whole.w2.grad == none, "stage 0 does not run the second layer")
} else {
  expect(abs(loss - ref_loss.item()) < 1e-12, f"pipeline loss {loss} against {ref_loss.item()}")
  let d = max_difference([whole.w2.grad], [reference.w2.grad])
  expect(d < 1e-10, f"stage 1 gradients differ by {d}")
}
print(f"rank {rank}: zero1 and pipeline agree with one process (ZeRO-1 difference {zero_diff:.1e})")
dist.destroy()
