# Sharded checkpoints: N ranks train 3 Adam steps under FSDP and save_sharded
# (parameters and optimizer state); the test's second phase loads them on another
# world size. Phase "save" (4 ranks) writes PREFIX; phase "load" (2 ranks) loads it,
# both go on 3 more steps, and the result must equal one process's 6 steps; phase
# "full" (1 process, no group) loads the full state dict into the plain model.
#   nabla launch -n 4 tests/dist/fsdp_checkpoint_save.dsl save PREFIX
#   nabla launch -n 2 tests/dist/fsdp_checkpoint_save.dsl load PREFIX
#   nabla tests/dist/fsdp_checkpoint_save.dsl full PREFIX      (ctest dist_fsdp_reshard)
import dist
import nn
import optim

let phase = args[0]
let prefix = args[1]
let B = 4  # rows per step, split over the ranks

model Net() {
  a = nn.Linear(5, 7)
  b = nn.Linear(7, 3)
  forward(x) = self.b(tanh(self.a(x)))
}
manual_seed(11)
let X = randn([6, B, 5], dtype=f64)
let Y = randn([6, B, 3], dtype=f64)

fn steps(net, opt, first, last, lo, hi) {
  for s in range(first, last) {
    opt.zero_grad()
    mse_loss(net(X[s][lo:hi]), Y[s][lo:hi]).backward()
    opt.step()
  }
}

# One process: 6 steps from the same start.
fn reference() {
  manual_seed(3)
  let net = Net().to(f64)
  let opt = optim.Adam(net.parameters(), lr=1e-2)
  steps(net, opt, 0, 6, 0, B)
  return net
}

if phase == "full" {
  let sd = dist.load_sharded(prefix)
  Net().to(f64).load_state_dict(sd)  # the plain model's names and shapes
  manual_seed(3)
  let three = Net().to(f64)
  let opt3 = optim.Adam(three.parameters(), lr=1e-2)
  steps(three, opt3, 0, 3, 0, B)
  let worst = 0.0
  for (n, p) in three.named_parameters() { worst = max(worst, (sd[n] - p).abs().max().item()) }
  expect(worst < 1e-12, f"the full state dict differs from 3 steps of one process by {worst}")
  print(f"full state dict from 4 shards equals one process: {worst}")
} else {
  dist.init(timeout=60)
  let rank = dist.rank()
  let W = dist.world_size()
  let rows = B // W
  manual_seed(3)
  let fsdp = dist.FullyShardedDataParallel(Net().to(f64), auto_wrap=["Linear"])
  let opt = optim.Adam(fsdp.parameters(), lr=1e-2)
  if phase == "save" {
    steps(fsdp, opt, 0, 3, rank * rows, (rank + 1) * rows)
    dist.save_sharded(fsdp, prefix, optimizer=opt)
    print(f"rank {rank}: saved on {W} ranks")
  } else {
    dist.load_sharded(prefix, fsdp, optimizer=opt)
    steps(fsdp, opt, 3, 6, rank * rows, (rank + 1) * rows)
    let whole = fsdp.full_state_dict()
    let worst = 0.0
    for (n, p) in reference().named_parameters() { worst = max(worst, (whole[n] - p).abs().max().item()) }
    expect(worst < 1e-12, f"rank {rank}: resharded training differs from one process by {worst}")
    print(f"rank {rank}: saved on 4 ranks, resumed on {W}, equals one process: {worst}")
  }
}
