# dist: training on several processes (issue 8), as torch.distributed. The process
# group is native (the `_dist` module, interp/builtins_dist.cpp): Gloo for CPU tensors,
# NCCL for CUDA tensors. Start N ranks with `nabla launch -n N file.dsl` (or any
# launcher that sets RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT, as torchrun does).
#
#   import dist
#   dist.init()                                  # backend="gloo", from the environment
#   let model = dist.DistributedDataParallel(net)
#   let sampler = dist.DistributedSampler(train, seed=0)
#   for epoch in range(epochs) {
#     sampler.set_epoch(epoch)
#     for (xb, yb) in sampler.batches(64) { ... loss.backward() ... }
#   }
import _dist
import data

# init(backend="gloo", init_method="env://", rank=none, world_size=none, timeout=30):
# joins the group (waits for all ranks, up to timeout seconds). init_method is
# "env://" (MASTER_ADDR, MASTER_PORT), "tcp://host:port" or "file:///path"; rank and
# world_size default to RANK and WORLD_SIZE. A collective that fails stops with an
# error naming the rank that died or hangs, within timeout seconds.
fn init(backend="gloo", init_method="env://", rank=none, world_size=none, timeout=30) = _dist.init(backend, init_method, rank, world_size, timeout)
let is_initialized = _dist.is_initialized
# destroy(): leaves the group (the others see this rank as finished).
let destroy = _dist.destroy
let rank = _dist.rank
let world_size = _dist.world_size
let backend = _dist.backend

# Collectives, called by every rank in the same order; they write in place and are
# not differentiated (see the tensor-parallel layers for those that are).
# all_reduce(t, op="sum"): t becomes the sum (or "avg", "max", "min") over ranks.
let all_reduce = _dist.all_reduce
# broadcast(t, src=0): t becomes rank src's.
let broadcast = _dist.broadcast
# all_gather(t): the ranks' t concatenated along dim 0, in rank order.
let all_gather = _dist.all_gather
# reduce_scatter(t, op="sum"): t is [world * n, ...]; this rank's n rows of the sum.
let reduce_scatter = _dist.reduce_scatter
let barrier = _dist.barrier
# send(t, dst) and recv(t, src): point to point; recv writes into t.
let send = _dist.send
let recv = _dist.recv

# Data parallel (torch's DistributedDataParallel): rank 0's parameters and buffers
# are broadcast at construction; during backward the gradients are averaged over the
# ranks in buckets of about bucket_cap_mb MiB, each all-reduced as soon as backward
# has made its gradients, on a thread of its own while backward goes on. After
# backward every rank's .grad holds the average, so each rank's optimizer takes the
# same step. `no_sync(ddp) { ... }` skips the averaging (gradient accumulation: the
# next synchronized backward averages all that accumulated).
model DistributedDataParallel(module, bucket_cap_mb=25) {
  module = module
  for p in module.parameters() { _dist.broadcast(p, 0) }
  for b in module.buffers() { _dist.broadcast(b, 0) }
  _reducer = _dist.Reducer(module.parameters(), int(bucket_cap_mb * 1024 * 1024))
  forward(x) = self.module(x)
  # Whether backward averages gradients; returns the previous setting (no_sync uses it).
  _set_sync(on) = self._reducer.set_sync(on)
  num_buckets() = self._reducer.num_buckets()
  bucket_params() = self._reducer.bucket_params()
  # {comm_us, wait_us} of the last synchronized backward: the time spent in
  # all-reduces, and how much of it backward's end still waited for (the rest overlapped).
  comm_stats() = self._reducer.comm_stats()
}

# Each rank's share of a dataset per epoch (torch's DistributedSampler): with
# shuffle, a permutation seeded by seed + epoch (the same on every rank), padded by
# repeating its first items to a multiple of num_replicas (or cut, drop_last=true),
# then every num_replicas-th item from this rank's position.
model DistributedSampler(dataset, num_replicas=none, rank=none, shuffle=true, seed=0, drop_last=false) {
  dataset = dataset
  num_replicas = num_replicas if num_replicas != none else _dist.world_size()
  rank = rank if rank != none else _dist.rank()
  shuffle = shuffle
  seed = seed
  drop_last = drop_last
  epoch = 0
  set_epoch(e) { self.epoch = e }
  # Items per rank.
  __len__() {
    let n = len(self.dataset)
    return n // self.num_replicas if self.drop_last else (n + self.num_replicas - 1) // self.num_replicas
  }
  # This rank's item indices for the current epoch (an i64 tensor).
  indices() {
    let n = len(self.dataset)
    let order = data.permutation(n, seed=self.seed + self.epoch) if self.shuffle else arange(n)
    let total = len(self) * self.num_replicas
    if total > n {
      order = cat([order, order[0:total - n]])
    }
    return order[self.rank:total:self.num_replicas]
  }
  # This rank's items as a dataset.
  shard() {
    let idx = self.indices()
    let ds = self.dataset
    return data.TensorDataset(ds.x[idx], ds.y[idx] if ds.y != none else none)
  }
  # Mini-batches of this rank's items, in the epoch's order.
  batches(size, drop_last=false, device=none) = self.shard().batches(size, drop_last=drop_last, device=device)
}
