# dist: training on several processes (issue 8), as torch.distributed. The process
# group is native (the `_dist` module, interp/builtins/builtins_dist.cpp): Gloo for CPU tensors,
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
import _argcheck
import _dist
import _fsdp
import _fsdp_checkpoint
import data
import nn
import optim

# init(backend="gloo", init_method="env://", rank=none, world_size=none, timeout=30):
# joins the group (waits for all ranks, up to timeout seconds). init_method is
# "env://" (MASTER_ADDR, MASTER_PORT), "tcp://host:port" or "file:///path"; rank and
# world_size default to RANK and WORLD_SIZE. A collective that fails stops with an
# error naming the rank that died or hangs, within timeout seconds.
fn init(backend="gloo", init_method="env://", rank=none, world_size=none, timeout=30) {
  """Joins the process group of this run's ranks (waiting for all of them up to timeout seconds), as
  torch.distributed.init_process_group; rank and world_size default to RANK and WORLD_SIZE, which
  nabla launch sets.

  Example: dist.init(backend="gloo")
  """
  return _dist.init(backend, init_method, rank, world_size, timeout)
}
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
# all_gather_into(output, t): the same into output, a flat buffer of world * t.numel().
let all_gather_into = _dist.all_gather_into
# reduce_scatter(t, op="sum"): t is [world * n, ...]; this rank's n rows of the sum.
let reduce_scatter = _dist.reduce_scatter
let barrier = _dist.barrier
# send(t, dst) and recv(t, src): point to point; recv writes into t.
let send = _dist.send
let recv = _dist.recv

let _save_file = save  # the builtin, before this module's save() hides it

# save(obj, path, metadata=none): a checkpoint written by rank 0 only (as save()
# writes it: atomically, so a reader sees the old file or the new one); every rank
# returns once the file is there. Returns whether this rank wrote it.
fn save(obj, path, metadata=none) {
  """Writes a checkpoint as save() does, from rank 0 only, and returns on every rank once the file is
  there; whether this rank wrote it.

  Example: dist.save(nn.Linear(4, 2), "model.safetensors")
  """
  let writer = not _dist.is_initialized() or _dist.rank() == 0
  if writer { _save_file(obj, path, metadata) }
  if _dist.is_initialized() { _dist.barrier() }
  _dist.note_checkpoint(path)
  return writer
}
# Data parallel (torch's DistributedDataParallel): rank 0's parameters and buffers
# are broadcast at construction; during backward the gradients are averaged over the
# ranks in buckets of about bucket_cap_mb MiB, each all-reduced as soon as backward
# has made its gradients, on a thread of its own while backward goes on. After
# backward every rank's .grad holds the average, so each rank's optimizer takes the
# same step. `no_sync(ddp) { ... }` skips the averaging (gradient accumulation: the
# next synchronized backward averages all that accumulated).
model DistributedDataParallel(module, bucket_cap_mb=25) {
  """Wraps module so that backward averages its gradients over the ranks, in buckets all-reduced
  while backward goes on, as torch.nn.parallel.DistributedDataParallel.

  Example: let ddp = dist.DistributedDataParallel(nn.Linear(4, 2))
  """
  module = _checked_module("dist.DistributedDataParallel()", module)
  for p in module.parameters() { _dist.broadcast(p, 0) }
  for b in module.buffers() { _dist.broadcast(b, 0) }
  _reducer = _dist.Reducer(module.parameters(), int(bucket_cap_mb * 1024 * 1024))
  forward(x) = self.module(x)
  # Whether backward averages gradients; returns the previous setting (no_sync uses it).
  _set_sync(on) = self._reducer.set_sync(on)
  num_buckets() {
    """How many buckets of gradients backward all-reduces.

    Example: dist.DistributedDataParallel(nn.Linear(4, 2)).num_buckets()
    """
    return self._reducer.num_buckets()
  }
  bucket_params() {
    """The parameters of each bucket, one list per bucket.

    Example: dist.DistributedDataParallel(nn.Linear(4, 2)).bucket_params()
    """
    return self._reducer.bucket_params()
  }
  comm_stats() {
    """{comm_us, wait_us} of the last synchronized backward: microseconds spent in all-reduces, and
    how many of them backward's end still waited for (the rest overlapped).

    Example: dist.DistributedDataParallel(nn.Linear(4, 2)).comm_stats()
    """
    return self._reducer.comm_stats()
  }
}

# Each rank's share of a dataset per epoch (torch's DistributedSampler): with
# shuffle, a permutation seeded by seed + epoch (the same on every rank), padded by
# repeating its first items to a multiple of num_replicas (or cut, drop_last=true),
# then every num_replicas-th item from this rank's position.
model DistributedSampler(dataset, num_replicas=none, rank=none, shuffle=true, seed=0, drop_last=false) {
  """This rank's share of a dataset per epoch (shuffled the same on every rank by seed + epoch), as
  torch.utils.data.distributed.DistributedSampler, with batches() for its mini-batches.

  Example: dist.DistributedSampler(data.TensorDataset(randn(10, 4)), num_replicas=2, rank=0).indices()
  """
  dataset = _checked_dataset("dist.DistributedSampler()", dataset)
  num_replicas = num_replicas if num_replicas != none else _dist.world_size()
  rank = rank if rank != none else _dist.rank()
  shuffle = shuffle
  seed = seed
  drop_last = drop_last
  epoch = 0
  set_epoch(e) {
    """Sets the epoch, which reseeds the shuffle, as torch's DistributedSampler.set_epoch; call it
    before each epoch.

    Example: dist.DistributedSampler(data.TensorDataset(randn(10, 4)), num_replicas=2, rank=0).set_epoch(1)
    """
    self.epoch = e
  }
  # Items per rank.
  __len__() {
    let n = len(self.dataset)
    return n // self.num_replicas if self.drop_last else (n + self.num_replicas - 1) // self.num_replicas
  }
  indices() {
    """This rank's item indices for the current epoch, as an i64 tensor.

    Example: dist.DistributedSampler(data.TensorDataset(randn(10, 4)), num_replicas=2, rank=0).indices()
    """
    let n = len(self.dataset)
    let order = data.permutation(n, seed=self.seed + self.epoch) if self.shuffle else arange(n)
    let total = len(self) * self.num_replicas
    if total > n {
      order = cat([order, order[0:total - n]])
    }
    return order[self.rank:total:self.num_replicas]
  }
  shard() {
    """This rank's items for the current epoch, as a TensorDataset.

    Example: dist.DistributedSampler(data.TensorDataset(randn(10, 4)), num_replicas=2, rank=0).shard()
    """
    let idx = self.indices()
    let ds = self.dataset
    return data.TensorDataset(ds.x[idx], ds.y[idx] if ds.y != none else none)
  }
  batches(size, drop_last=false, device=none) {
    """Mini-batches of this rank's items in the epoch's order, as TensorDataset.batches gives them.

    Example: dist.DistributedSampler(data.TensorDataset(randn(10, 4)), num_replicas=2, rank=0).batches(2)
    """
    return self.shard().batches(size, drop_last=drop_last, device=device)
  }
}

# ZeRO stage 1 (optimizer-state sharding): each rank keeps the optimizer state of
# only its 1/world share of the parameters. step() reduce-scatters the gradients
# (averaged over ranks, so each rank gets its share's average), lets the inner
# optimizer update that share, and all-gathers the updated shares into every rank's
# parameters. Use it instead of DistributedDataParallel, with a model whose ranks
# compute gradients on their own batches; rank 0's parameters are broadcast first.
#   let opt = dist.ZeroRedundancyOptimizer(model.parameters(), fn(ps) = optim.Adam(ps, lr=1e-3))
model ZeroRedundancyOptimizer(params, make_optimizer) {
  """An optimizer whose state is sharded over the ranks (ZeRO stage 1): each rank's inner optimizer,
  made by make_optimizer, updates its share, as torch.distributed.optim.ZeroRedundancyOptimizer.

  Example: dist.ZeroRedundancyOptimizer(nn.Linear(4, 2).parameters(), fn(ps) = optim.Adam(ps, lr=1e-3))
  """
  params = optim._group_params("dist.ZeroRedundancyOptimizer()", "params", params, [])
  let _checked = _check_maker(make_optimizer)
  for p in params { _dist.broadcast(p, 0) }
  world = _dist.world_size()
  numel = _zero_numel(params)
  shard_size = (self.numel + self.world - 1) // self.world
  # This rank's share of the flat parameters: the only tensor the inner optimizer sees.
  shard = _zero_flat(params, shard_size * world)[_dist.rank() * shard_size:(_dist.rank() + 1) * shard_size].detach().clone().requires_grad_()
  inner = make_optimizer([self.shard])
  zero_grad(set_to_none=true) {
    """Clears the parameters' gradients (to none with set_to_none, else to zeros), as an optimizer's
    zero_grad.

    Example: dist.ZeroRedundancyOptimizer(nn.Linear(4, 2).parameters(), fn(ps) = optim.SGD(ps, lr=0.1)).zero_grad()
    """
    return optim._zero_grad(self.params, set_to_none)
  }
  step() {
    """Averages the gradients over the ranks, updates this rank's share with the inner optimizer and
    gathers the updated shares into every rank's parameters.

    Example: dist.ZeroRedundancyOptimizer(nn.Linear(4, 2).parameters(), fn(ps) = optim.SGD(ps, lr=0.1)).step()
    """
    let grads = []
    for p in self.params { grads.append(p.grad if p.grad != none else zeros_like(p)) }
    self.shard.grad = _dist.reduce_scatter(_zero_flat(grads, self.shard_size * self.world), "avg")
    self.inner.step()
    let full = _dist.all_gather(self.shard.detach())
    let offset = 0
    no_grad {
      for p in self.params {
        p.copy_(full[offset:offset + p.numel()].reshape(p.shape))
        offset = offset + p.numel()
      }
    }
  }
}

# elastic_state(): where this run stands among nabla launch's restarts.
fn elastic_state() {
  """{restart_count, max_restarts, last_checkpoint}: how many times nabla launch --max-restarts started
  the ranks again before this run (0 the first time), how many it may, and the path of the last
  checkpoint dist.save or dist.save_sharded finished in this launch (none before the first); a
  script resumes from it when restart_count > 0 (as torchrun's TORCHELASTIC_RESTART_COUNT).

  Example: if dist.elastic_state()["restart_count"] > 0 { print("resuming") }
  """
  return {"restart_count": int(env("NABLA_RESTART_COUNT", "0")), "max_restarts": int(env("NABLA_MAX_RESTARTS", "0")),
          "last_checkpoint": _dist.last_checkpoint()}
}

# Fully sharded data parallel (ZeRO-2/3): stdlib/_fsdp.dsl.
let FullyShardedDataParallel = _fsdp.FullyShardedDataParallel
# Sharded checkpoints that reshard: stdlib/_fsdp_checkpoint.dsl.
let save_sharded = _fsdp_checkpoint.save_sharded
let load_sharded = _fsdp_checkpoint.load_sharded

# The constructors' checks of their structured arguments.
fn _checked_module(who, m) {
  if not nn._is_module(m) { fail(f"{who}: the module must be a model instance, got {_argcheck.shown(m)}") }
  return m
}

# A dataset DistributedSampler can shard: a data.TensorDataset (its x and y are cut).
fn _checked_dataset(who, ds) {
  if type(ds) == "tensor" or getattr(ds, "x", none) == none {
    fail(f"{who}: dataset must be a data.TensorDataset (its x and y are sharded), got {_argcheck.shown(ds)}")
  }
  return ds
}

fn _check_maker(make_optimizer) {
  if not (type(make_optimizer) in ["function", "builtin", "method", "model"]) {
    fail(f"dist.ZeroRedundancyOptimizer(): make_optimizer must be a function of the parameter list " +
         f"(fn(ps) = optim.Adam(ps)), got {_argcheck.shown(make_optimizer)}")
  }
}

# A stage: this rank's layer (a model instance) or a function of its input.
fn _checked_stage(stage) = stage if type(stage) in ["function", "builtin", "method"] else _checked_module("dist.Pipeline()", stage)

fn _check_out_shapes(out_shapes) {
  if not (type(out_shapes) in ["list", "tuple"]) {
    fail(f"dist.Pipeline(): out_shapes must be a list with one function per stage (n -> the stage's output shape), got {_argcheck.shown(out_shapes)}")
  }
}

fn _zero_numel(tensors) {
  let n = 0
  for t in tensors { n = n + t.numel() }
  return n
}

# The tensors flattened into one vector of `size` values (zeros after them).
fn _zero_flat(tensors, size) {
  let parts = []
  for t in tensors { parts.append(t.detach().reshape([-1])) }
  let n = _zero_numel(tensors)
  if size > n { parts.append(zeros([size - n], dtype=tensors[0].dtype)) }
  return cat(parts)
}

# A GPipe-style pipeline: the model is cut into stages, rank r runs stage r, and each
# batch is split into `chunks` micro-batches. Forward: every micro-batch flows through
# the stages (activations sent to the next rank); then backward runs in reverse, each
# stage receiving the gradient of its output from the next rank and sending the
# gradient of its input to the previous one. Gradients of a stage's parameters add up
# over the micro-batches, so after step() every stage holds the gradient of the whole
# batch's loss. `loss_fn(out, target)` is the mean loss of a micro-batch; the pipeline
# averages over micro-batches. out_shape(n) gives the shape of stage r's output for a
# micro-batch of n items, on every rank (for the receiving buffers).
model Pipeline(stage, chunks, out_shapes) {
  """A GPipe pipeline: rank r runs stage on each of chunks micro-batches, sending activations to the
  next rank and gradients back; out_shapes[r](n) is stage r's output shape for n items.

  Example: let pipe = dist.Pipeline(nn.Linear(8, 8), 4, [fn(n) = [n, 8]])
  """
  stage = _checked_stage(stage)
  chunks = chunks
  let _checked = _argcheck.check_option("dist.Pipeline()", "chunks", "int > 0", chunks)
  let _shapes_checked = _check_out_shapes(out_shapes)
  # out_shapes[r](n): the output shape of stage r for n items.
  out_shapes = out_shapes
  # Runs forward and backward over the batch; returns the mean loss on the last rank,
  # none on the others.
  train_step(x, target, loss_fn) {
    """Runs forward and backward of the batch x through the pipeline, loss_fn(out, target) on each
    micro-batch; the mean loss on the last rank, none on the others.

    Example: dist.Pipeline(nn.Linear(8, 8), 2, [fn(n) = [n, 8]]).train_step(randn(4, 8), randn(4, 8), mse_loss)
    """
    let r = _dist.rank()
    let last = _dist.world_size() - 1
    let n = x.shape[0] // self.chunks
    let inputs = []
    let outputs = []
    let total = 0.0
    for c in range(self.chunks) {
      let inp = x[c * n:(c + 1) * n]
      if r > 0 {
        inp = zeros(self.out_shapes[r - 1](n), dtype=x.dtype)
        _dist.recv(inp, r - 1)
        inp.requires_grad_()
      }
      let out = self.stage(inp)
      if r < last { _dist.send(out.detach().contiguous(), r + 1) }
      inputs.append(inp)
      outputs.append(out)
    }
    for c in range(self.chunks) {
      let i = self.chunks - 1 - c
      if r == last {
        let loss = loss_fn(outputs[i], target[i * n:(i + 1) * n]) / self.chunks
        total = total + loss.item()
        loss.backward()
      } else {
        let g = zeros(outputs[i].shape, dtype=outputs[i].dtype)
        _dist.recv(g, r + 1)
        outputs[i].backward(g)
      }
      if r > 0 { _dist.send(inputs[i].grad.contiguous(), r - 1) }
    }
    return total if r == last else none
  }
}

# ---- tensor parallel (Megatron-LM's layers) ----------------------------------------
# A Linear too big for one rank keeps a slice of its weight on each. The collectives
# in between are ops of the table (dist_copy, dist_reduce, dist_split, dist_gather;
# Note [Tensor-parallel regions] in autograd/ops/dist.cpp), so backward, and grad of
# grad, run across the ranks too. The usual pairing needs no communication between
# the two layers:
#   let up = dist.ColumnParallelLinear(512, 2048, gather_output=false)
#   let down = dist.RowParallelLinear(2048, 512, input_is_parallel=true)
#   forward(x) = down(gelu(up(x)))          # x and the result are whole on every rank
# Each layer starts from the whole nn.Linear `whole` when given (it must be the same
# on every rank) or from a new nn.Linear with rank 0's initial values. The group must
# not also carry DistributedDataParallel's gradient averaging. Without dist.init()
# the layers are ordinary Linears (a group of one process).

fn _tp_world() = _dist.world_size() if _dist.is_initialized() else 1
fn _tp_rank() = _dist.rank() if _dist.is_initialized() else 0

# The whole layer every rank slices: `whole`, or a new one with rank 0's values.
fn _tp_whole_linear(in_features, out_features, bias, whole) {
  if whole != none { return whole }
  let whole = nn.Linear(in_features, out_features, bias=bias)
  if _dist.is_initialized() {
    for p in whole.parameters() { _dist.broadcast(p, 0) }
  }
  return whole
}

# `t` (detached) rows or columns [rank * n, (rank + 1) * n) as a new parameter.
fn _tp_shard(t, dim, n) {
  let r = _tp_rank()
  let part = t.detach()[r * n:(r + 1) * n] if dim == 0 else t.detach()[:, r * n:(r + 1) * n]
  return part.clone().requires_grad_()
}

fn _tp_check_divisible(layer, what, size) {
  assert(size % _tp_world() == 0, f"{layer}: {what} = {size} is not a multiple of the world size {_tp_world()}")
}

# y = x W^T + b with W's rows (output features) split over the ranks: this rank
# computes out_features / world of the outputs. gather_output=true all-gathers them
# into the whole output on every rank; false leaves this rank's slice, for a
# RowParallelLinear to take.
model ColumnParallelLinear(in_features, out_features, bias=true, gather_output=true, whole=none) {
  """A Linear whose output features are split over the ranks, gathered again with gather_output, as
  Megatron-LM's ColumnParallelLinear (without dist.init(), an ordinary Linear).

  Example: dist.ColumnParallelLinear(8, 16)(randn(2, 8))
  """
  in_features = in_features
  out_features = out_features
  gather_output = gather_output
  let _c = _tp_check_divisible("ColumnParallelLinear", "out_features", out_features)
  let _whole = _tp_whole_linear(in_features, out_features, bias, whole)
  weight = _tp_shard(_whole.weight, 0, out_features // _tp_world())
  bias = _tp_shard(_whole.bias, 0, out_features // _tp_world()) if _whole.bias != none else none
  forward(x) {
    let y = linear(dist_copy(x), self.weight, self.bias)
    return dist_gather(y, -1) if self.gather_output else y
  }
}

# y = x W^T + b with W's columns (input features) split over the ranks: each rank
# multiplies its slice of the input features and the partial products are summed
# (all-reduce); the bias, whole on every rank, is added once after. With
# input_is_parallel=true x is already this rank's slice (a ColumnParallelLinear's
# output); otherwise the whole x is given and each rank takes its slice.
model RowParallelLinear(in_features, out_features, bias=true, input_is_parallel=true, whole=none) {
  """A Linear whose input features are split over the ranks, the partial products summed by an
  all-reduce, as Megatron-LM's RowParallelLinear (without dist.init(), an ordinary Linear).

  Example: dist.RowParallelLinear(16, 8, input_is_parallel=false)(randn(2, 16))
  """
  in_features = in_features
  out_features = out_features
  input_is_parallel = input_is_parallel
  let _c = _tp_check_divisible("RowParallelLinear", "in_features", in_features)
  let _whole = _tp_whole_linear(in_features, out_features, bias, whole)
  weight = _tp_shard(_whole.weight, 1, in_features // _tp_world())
  bias = _whole.bias.detach().clone().requires_grad_() if _whole.bias != none else none
  forward(x) {
    let part = x if self.input_is_parallel else dist_split(x, -1)
    let y = dist_reduce(linear(part, self.weight))
    return y + self.bias if self.bias != none else y
  }
}
