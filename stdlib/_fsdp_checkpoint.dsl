# Sharded checkpoints of a FullyShardedDataParallel model (stdlib/_fsdp.dsl), the
# private part of `import dist` behind dist.save_sharded and dist.load_sharded.
#
# Layout (Hugging Face's and PyTorch's sharded safetensors): one file per rank,
# PREFIX-0000r-of-0000N.safetensors (r from 1), and PREFIX.safetensors.index.json =
# {"metadata": {...}, "weight_map": {tensor name: file}}. A rank's file holds the
# pieces of the model's parameters that fall in its flat shards, each named
# "NAME#START" (START: the piece's first element in the flattened parameter), and
# with an optimizer the same pieces of its per-element state ("optim.exp_avg.NAME#START").
# The metadata gives each parameter's shape ("shape.NAME": "4,8"), the optimizer's
# other state ("optim.UNIT.step") and the world size it was saved on. A parameter
# is whole again when its pieces are put end to end, so loading does not depend on
# the world size that saved: each rank assembles what it needs and takes its slice
# (4 ranks -> 2), and one process gets a full state dict (load_sharded). Every file
# is written atomically (save, write_text), the index last, after every rank's file.
import _dist

fn _ckpt_file(prefix, r, n) = f"{prefix}-{_ckpt_digits(r + 1)}-of-{_ckpt_digits(n)}.safetensors"
fn _ckpt_digits(i) {
  let s = str(i)
  while len(s) < 5 { s = "0" + s }
  return s
}
fn _ckpt_index(prefix) = prefix + ".safetensors.index.json"
fn _ckpt_base(path) {
  let parts = path.split("/")
  return parts[len(parts) - 1]
}

# [name, start, lo, hi] of each piece of unit u that rank r holds: elements [lo, hi)
# of its flat shard, which are elements [start, start + hi - lo) of parameter name.
fn _ckpt_pieces(u, r) {
  let first = r * u.shard_size if u.world > 1 else 0
  let last = first + u.shard_size
  let out = []
  let off = 0
  for e in u.layout() {
    let lo = max(off, first)
    let hi = min(off + e[2], last)
    if hi > lo and (u.world > 1 or r == 0) { out.append([e[0], lo - off, lo - first, hi - first]) }
    off = off + e[2]
  }
  return out
}

fn _ckpt_optimizer_state(fsdp, optimizer) {
  if optimizer == none { return none }
  if len(optimizer.params) != len(fsdp.units) {
    fail(f"dist.save_sharded(): the optimizer has {len(optimizer.params)} parameters, the model {len(fsdp.units)} flat shards (make it from fsdp.parameters())")
  }
  return optimizer.state
}

fn save_sharded(fsdp, prefix, optimizer=none) {
  """Writes a FullyShardedDataParallel model's parameters (and the optimizer's state) as a sharded
  checkpoint: each rank its own safetensors file, rank 0 the index PREFIX.safetensors.index.json;
  every rank returns once all is written. load_sharded reads it back on any number of ranks.

  Example: dist.save_sharded(fsdp, "ckpt/step5", optimizer=opt)
  """
  let r = _dist.rank()
  let n = _dist.world_size()
  let states = _ckpt_optimizer_state(fsdp, optimizer)
  let tensors = {}
  let weight_map = {}
  let meta = {"format": "nabla.fsdp.flat", "world_size": str(n)}
  for (i, u) in enumerate(fsdp.units) {
    for e in u.layout() { meta[f"shape.{e[0]}"] = ",".join([str(d) for d in e[1]]) }
    for rank in range(n) {
      for piece in _ckpt_pieces(u, rank) {
        let key = f"{piece[0]}#{piece[1]}"
        weight_map[key] = _ckpt_base(_ckpt_file(prefix, rank, n))
        if rank == r { tensors[key] = u.flat_param.detach()[piece[2]:piece[3]].clone() }
        if states != none {
          for (k, v) in states[i].items() {
            if type(v) == "tensor" and v.numel() == u.shard_size {
              weight_map[f"optim.{k}.{key}"] = weight_map[key]
              if rank == r { tensors[f"optim.{k}.{key}"] = v.detach()[piece[2]:piece[3]].clone() }
            }
          }
        }
      }
    }
    if states != none {
      for (k, v) in states[i].items() {
        if type(v) in ["int", "float"] { meta[f"optim.{i}.{k}"] = repr(v) }
      }
    }
  }
  save(tensors, _ckpt_file(prefix, r, n))
  _dist.barrier()
  if r == 0 { write_text(_ckpt_index(prefix), _dist.sharded_index_text(weight_map, meta)) }
  _dist.barrier()
  _dist.note_checkpoint(prefix)
}

# Every tensor of the checkpoint whole: {name: tensor} for the parameters and
# {"optim.KEY.NAME": tensor} for the optimizer's per-element state; plus the metadata.
fn _ckpt_read(prefix) {
  let index = _dist.parse_sharded_index(read_text(_ckpt_index(prefix)))
  let weight_map = index[0]
  let meta = index[1]
  let dir = prefix[0:len(prefix) - len(_ckpt_base(prefix))]
  let files = {}
  let pieces = {}
  for (key, file) in weight_map.items() {
    if not (file in files) { files[file] = load(dir + file) }
    let cut = key.split("#")
    let whole = cut[0]
    if not (whole in pieces) { pieces[whole] = [] }
    pieces[whole].append([int(cut[1]), files[file][key]])
  }
  let out = {}
  for (whole, parts) in pieces.items() {
    let name = whole
    if whole.startswith("optim.") {
      let p = whole.split(".")
      name = ".".join(p[2:len(p)])
    }
    let shape = [int(d) for d in meta[f"shape.{name}"].split(",") if d != ""]
    let sorted_parts = sorted(parts, key=fn(p) = p[0])
    out[whole] = cat([p[1].reshape([-1]) for p in sorted_parts]).reshape(shape)
  }
  return [out, meta]
}

fn load_sharded(prefix, fsdp=none, optimizer=none) {
  """Reads a checkpoint save_sharded wrote, on any number of ranks: into fsdp's shards (and
  optimizer's state) when given, each rank taking its slice; without fsdp, the full state dict
  {name: tensor} (what one process loads into the unwrapped model). Returns the full state dict.

  Example: dist.load_sharded("ckpt/step5", fsdp, optimizer=opt)
  """
  let read = _ckpt_read(prefix)
  let whole = read[0]
  let meta = read[1]
  let params = {}
  for (k, v) in whole.items() {
    if not k.startswith("optim.") { params[k] = v }
  }
  if fsdp == none { return params }
  fsdp.load_full_state_dict(params)
  let states = _ckpt_optimizer_state(fsdp, optimizer)
  if states != none { _ckpt_load_optimizer(fsdp, states, whole, meta) }
  return params
}

# The optimizer's state of each unit: per-element tensors sliced like the shards,
# numbers from the metadata.
fn _ckpt_load_optimizer(fsdp, states, whole, meta) {
  let keys = []
  for k in whole {
    if k.startswith("optim.") and not (k.split(".")[1] in keys) { keys.append(k.split(".")[1]) }
  }
  for (i, u) in enumerate(fsdp.units) {
    for k in keys {
      let values = {}
      for e in u.layout() { values[e[0]] = whole[f"optim.{k}.{e[0]}"] }
      states[i][k] = u.shard_of(values)
    }
    for (mk, v) in meta.items() {
      if mk.startswith(f"optim.{i}.") {
        states[i][mk.split(".")[2]] = float(v) if "." in v or "e" in v else int(v)
      }
    }
  }
}
