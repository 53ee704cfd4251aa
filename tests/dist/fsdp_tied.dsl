# FullyShardedDataParallel of a model whose output layer shares its weight with the
# embedding (tied parameters in two submodules): the shared tensor lives in one
# unit, that of the innermost module holding every place it is used, and both
# places read the gathered values; 2 ranks against one process, f64, 10 Adam steps.
#   nabla launch -n 2 tests/dist/fsdp_tied.dsl      (ctest dist_fsdp_tied)
import dist
import nn
import optim

dist.init(timeout=60)
let rank = dist.rank()
let W = dist.world_size()
let B = 3

model Body(d) {
  a = nn.Linear(d, d)
  forward(x) = tanh(self.a(x))
}

model Tied(v, d) {
  emb = nn.Embedding(v, d)
  body = Body(d)
  head = nn.Linear(d, v, bias=false)
  forward(i) = self.head(self.body(self.emb(i)))
}

fn tied_net() {
  let m = Tied(7, 5).to(f64)
  m.head.weight = m.emb.weight
  return m
}

manual_seed(42)
let X = randint(0, 7, [10, B * W])
let Y = randint(0, 7, [10, B * W])

fn train(net, lo, hi) {
  let opt = optim.Adam(net.parameters(), lr=0.05)
  for s in range(10) {
    opt.zero_grad()
    cross_entropy(net(X[s][lo:hi]), Y[s][lo:hi]).backward()
    opt.step()
  }
}

for (sharding, policy) in [["full", ["Linear", "Body"]], ["grad_op", ["Linear"]], ["full", none]] {
  manual_seed(1 + rank)
  let fsdp = dist.FullyShardedDataParallel(tied_net(), sharding=sharding, auto_wrap=policy)
  train(fsdp, rank * B, (rank + 1) * B)
  manual_seed(1)
  let single = tied_net()
  train(single, 0, B * W)
  let whole = fsdp.full_state_dict()
  let worst = 0.0
  for (n, p) in single.named_parameters() { worst = max(worst, (whole[n] - p).abs().max().item()) }
  expect(worst < 1e-12, f"rank {rank}: {sharding} ({policy}) with a tied weight differs by {worst}")
  # head's only parameter is the tied weight: no unit of its own; the root holds it
  let paths = [u.path for u in fsdp.units]
  expect(not ("head" in paths) and paths[len(paths) - 1] == "", f"units {paths}")
}
print(f"rank {rank}: fsdp with tied parameters equals one process")
