# Data parallel on 2 ranks equals one process on the doubled batch (issue 8), in f64:
# after K steps of SGD with momentum the parameters agree within 1e-6. Each rank
# starts from different random parameters; DistributedDataParallel's broadcast makes
# them rank 0's. Tiny buckets make several all-reduces per backward; one step runs
# two half-batches under no_sync (gradient accumulation) and must still agree.
#   nabla launch -n 2 tests/dist/ddp_equivalence.dsl      (ctest dist_ddp_equivalence)
import dist
import optim

dist.init(timeout=60)
let rank = dist.rank()
assert(dist.world_size() == 2, f"run with 2 ranks, got {dist.world_size()}")
let B = 4
let K = 5

model Net() {
  w1 = randn([7, 5], dtype=f64, requires_grad=true)
  b1 = randn([7], dtype=f64, requires_grad=true)
  w2 = randn([3, 7], dtype=f64, requires_grad=true)
  b2 = randn([3], dtype=f64, requires_grad=true)
  forward(x) = linear(tanh(linear(x, self.w1, self.b1)), self.w2, self.b2)
}

manual_seed(1234)  # the same data on both ranks; each takes its half
let X = randn([K, 2 * B, 5], dtype=f64)
let Y = randn([K, 2 * B, 3], dtype=f64)

# Data parallel: rank r trains on rows r*B .. r*B+B-1 of each step's batch.
manual_seed(10 + rank)
let net = Net()
let ddp = dist.DistributedDataParallel(net, bucket_cap_mb=0.0002)
expect(ddp.num_buckets() >= 2, f"buckets: {ddp.bucket_params()}")
let opt = optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)
for step in range(K) {
  let x = X[step][rank * B:(rank + 1) * B]
  let y = Y[step][rank * B:(rank + 1) * B]
  opt.zero_grad()
  if step == 2 {
    # Accumulate two half-batches: the first without communication.
    let h = B // 2
    no_sync(ddp) {
      (mse_loss(ddp(x[0:h]), y[0:h]) / 2).backward()
    }
    (mse_loss(ddp(x[h:B]), y[h:B]) / 2).backward()
  } else {
    mse_loss(ddp(x), y).backward()
  }
  opt.step()
}

# One process on the doubled batch, from rank 0's initial parameters.
manual_seed(10)
let single = Net()
let opt1 = optim.SGD(single.parameters(), lr=0.1, momentum=0.9)
for step in range(K) {
  opt1.zero_grad()
  mse_loss(single(X[step]), Y[step]).backward()
  opt1.step()
}

let worst = 0.0
for (p, q) in zip(net.parameters(), single.parameters()) {
  worst = max(worst, (p - q).abs().max().item())
}
expect(worst < 1e-6, f"rank {rank}: data parallel differs from one process by {worst}")
# And from where it started: the check above is not vacuous.
manual_seed(10)
let start = Net()
expect((start.w1 - net.w1).abs().max().item() > 1e-3, "the parameters did not move")

# Checkpoints: dist.save writes from rank 0 only, and every rank returns once the
# file is there (the same path on both ranks: the launch's port makes it unique).
let port = env("MASTER_PORT", "0")
let checkpoint = f"/tmp/nabla_ddp_test_{port}.safetensors"
let wrote = dist.save({"writer": tensor(rank), "w1": net.w1}, checkpoint)
expect(wrote == (rank == 0), f"rank {rank}: dist.save returned {wrote}")
let back = load(checkpoint)
let writer = back["writer"].item()
expect(writer == 0, f"rank {rank}: the checkpoint was written by rank {writer}")
expect((back["w1"] - net.w1).abs().max().item() == 0.0, "the checkpoint holds the trained parameters")
dist.barrier()
print(f"rank {rank}: {K} steps on 2 ranks equal one process on the doubled batch (max difference {worst:.2e})")
dist.destroy()
